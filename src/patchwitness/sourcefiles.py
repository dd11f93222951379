"""Which files are source code of which language. Pure.

By suffix first. C++ headers without one exist (`include/gsl/span`, the standard library's own
style), so a file with no suffix is C++ when its content says so: past leading comments and blank
lines, its first line is a preprocessor directive or a C++ declaration, and it holds something only
C++ has (an include, an include guard, `#pragma once`, a namespace or a template).
"""

from __future__ import annotations

import re

PY = frozenset({".py", ".pyi"})
CPP = frozenset(
    {
        ".c",
        ".cc",
        ".cpp",
        ".cxx",
        ".c++",
        ".h",
        ".hh",
        ".hpp",
        ".hxx",
        ".inl",
        ".ipp",
        ".tpp",
        ".tcc",
        ".txx",
        ".cu",
        ".cuh",
    }
)
HEAD_BYTES = 8192  # how much of a file without a suffix is read to tell

_LEADING = re.compile(rb"\A(?:\s+|//[^\n]*|/\*.*?\*/)*", re.DOTALL)
# The directive's name follows `#` directly here: `# if you ...` opens a comment in many a
# configuration file, never a header.
_FIRST_CODE = re.compile(
    rb"#(?:pragma|ifndef|ifdef|if|include|define|error|warning)\b"
    rb"|(?:namespace|template|extern|export|module|class|struct|using|import)\b"
)
_ONLY_CPP = re.compile(
    rb"^\s*#\s*include\s*[<\"]|^\s*#\s*pragma\s+once\b|^\s*#\s*ifndef\s+\w+\s*\n\s*#\s*define\b"
    rb"|\bnamespace\s+[\w:]+\s*\{|\btemplate\s*<",
    re.MULTILINE,
)


def suffix(path: str) -> str:
    """The lower-cased suffix of a repository path's file name, '' when it has none."""
    name = path.rsplit("/", 1)[-1]
    return "." + name.rsplit(".", 1)[-1].lower() if "." in name else ""


def looks_like_cpp(head: bytes) -> bool:
    """Whether the start of a file without a suffix is C++ source (a header, in practice)."""
    if not head or b"\0" in head:
        return False
    start = _LEADING.match(head)
    rest = head[start.end() if start else 0 :]
    return bool(_FIRST_CODE.match(rest)) and bool(_ONLY_CPP.search(head))


def is_source(path: str, head: bytes | str | None = None) -> bool:
    """Python or C++ source."""
    return suffix(path) in PY or is_cpp(path, head)


def lines(text: str) -> list[str]:
    """A text's lines as git numbers them: cut at each newline and nowhere else (str.splitlines
    also cuts at form feeds, vertical tabs and U+2028, which git and the compilers do not)."""
    out = text.split("\n")
    if out and out[-1] == "":
        out.pop()
    return out


def is_cpp(path: str, head: bytes | str | None = None) -> bool:
    """C++ source by suffix, or (no suffix) by content when the caller has it."""
    found = suffix(path)
    if found:
        return found in CPP
    if head is None:
        return False
    data = head.encode("utf-8", "replace") if isinstance(head, str) else head
    return looks_like_cpp(data[:HEAD_BYTES])
