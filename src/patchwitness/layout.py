"""Whether a patch changed only a file's layout: the same program before and after.

A formatter's commit (re-indented code, braces moved, long lines broken) changes lines no test
may execute, and nothing any test could see. The coverage gate does not score such a file: its
lines are no code the patch changed. "The same program" is decided strictly, and anything the
decision cannot see through is a change:

- Python: the two texts parse to equal syntax trees, every node at the same line and column.
  Any code can read its own positions (a frame, a code object, a traceback, a log record), so a
  position is part of a Python program: what is left is comments and whitespace that moves no
  statement.
- C and C++: the same tokens, each preprocessing directive ending where it ended (a directive
  ends at its line's end, so a line break there is a token). Comments and line continuations
  are layout. The language's own ways to see layout make a file never layout-only: a raw
  string (its whitespace is its value), a line or column (`__LINE__`, `source_location`, the
  builtins behind it) and a macro that stringizes a parameter (`#x` turns the spacing of its
  argument into a string).

Left out: a macro defined in another file that stringizes an argument this file respaced or
reads the line it is used on (`__LINE__` in its body), and code elsewhere that reads this file's
text. Each must be in the SHA already, since a patch that adds one changes that
other file, which is scored.
"""

from __future__ import annotations

import ast
import re

from patchwitness import python_ast, sourcefiles
from patchwitness.census.cpp_lexer import as_read, tokens

# What C and C++ have to see layout with: a line, a column, a raw string's whitespace.
_CPP_LAYOUT = re.compile(
    r'__LINE__|source_location|__builtin_(?:LINE|COLUMN)\b|(?<![\w$])(?:u8|[uUL])?R"'
)


def same_program(path: str, before: str | None, after: str | None) -> bool:
    """Whether `after` is `before` with only its layout changed (False when either is unread,
    or the language is not one this module reads)."""
    if before is None or after is None:
        return False
    if path.endswith(".py"):
        return _same_python(before, after)
    if sourcefiles.is_cpp(path, after) and sourcefiles.is_cpp(path, before):
        return _same_cpp(before, after)
    return False


def _same_python(before: str, after: str) -> bool:
    try:
        old, new = python_ast.parse(before), python_ast.parse(after)
    except (SyntaxError, ValueError):
        return False
    return ast.dump(old, include_attributes=True) == ast.dump(new, include_attributes=True)


def _same_cpp(before: str, after: str) -> bool:
    if _CPP_LAYOUT.search(before) or _CPP_LAYOUT.search(after):
        return False
    old, new = cpp_program(before), cpp_program(after)
    return old is not None and old == new


def cpp_program(text: str) -> list[str] | None:
    """The tokens of a C or C++ text as the compiler's later phases see them, a directive's end
    kept as a token; None when a directive stringizes (its `#` beyond the first)."""
    out: list[str] = []
    for line in as_read(text).splitlines():
        found = tokens(line)
        if found and found[0] == "#":
            if "#" in found[1:]:
                return None
            out += found
            out.append("\n")
        else:
            out += found
    return out
