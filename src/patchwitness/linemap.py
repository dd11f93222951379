"""Which line of a C++ file gcov scores a patched line by. Pure.

gcov reports a count for the lines that produced code, not for every line a patch can touch: a
`case` or `default` label, an `else`, a lone brace, a label, a declaration without an initializer,
an attribute, the second line of a statement that spans several lines. Such a line belongs to a
statement or a block gcov does report, and is scored by it:

- a line of a multi-line statement: by the statement's first line that has data;
- a closing brace: by the last line with data inside the block it closes;
- a label, an `else`, an opening brace, a declaration: by the next line with data in the block it
  opens or sits in (else the last one before it in that block, else the nearest before it in the
  function).

Structure comes from the census's lexer (comments, literals and dead preprocessor branches blanked,
offsets kept) and a brace tree: each `{` opens a scope (namespace, class, enum, linkage), code (a
function body, a control statement, a compound statement, a lambda) or an initializer list, told
apart by the text before it. A line inside a function that has no line data at all (a template
never instantiated, an inline function no test compiled) is not mapped: it stays suspicious. A line
outside any function (a declaration at namespace or class scope) is no code to score.

`sha_line` maps the other way between two texts: a line of the patched text to the SHA's line it
is, by the patch's own added and removed lines (the flag matrix matches sanitizer findings with
the SHA's through it, carried.py).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from patchwitness.census.cpp_lexer import digraphs_spelled, strip_cpp

SCOPE, CODE, INIT = "scope", "code", "init"

_SCOPE_HEAD = re.compile(
    r"^\s*(?:template\s*<.*>\s*)?(?:export\s+)?(?:inline\s+)?"
    r"(?:(?:namespace|class|struct|union|enum)\b|extern\s*\"\")",
    re.S,
)
# The same keywords at the end of a head that starts with something else: a macro the project
# opens its namespace with (`NLOHMANN_JSON_NAMESPACE_BEGIN namespace detail {`), an attribute or
# an export macro before `class`. No parenthesis, `=` or brace may follow the name: `struct tm*
# localtime(...) {` is a function, `template <class T> void f(T) {` too.
_SCOPE_TAIL = re.compile(r"(?:^|[\s;>])(?:namespace|class|struct|union|enum)\b[^(){}=;]*$", re.S)
_CONTROL_HEAD = re.compile(r"^\s*(?:if|for|while|switch|catch|else|do|try)\b")
# What may follow a function's parameter list before its body.
_QUALIFIERS = re.compile(
    r"^(?:\s*(?:const|volatile|noexcept(?:\s*\(.*\))?|override|final|mutable|constexpr|&&?|"
    r"throw\s*\(.*\)|try|requires\b.*|->[^{;]*|\[\[.*\]\]))*\s*$",
    re.S,
)
_LABEL = re.compile(r"^\s*(?:case\b[^;{}]*|default\s*|[A-Za-z_]\w*\s*):(?!:)")
_CLOSER = re.compile(r"^\s*\}")


@dataclass
class Block:
    kind: str
    open: int  # offset of `{`
    close: int  # offset of the matching `}` (end of text when unmatched)
    parent: Block | None = None
    children: list[Block] = field(default_factory=list)


@dataclass(frozen=True)
class Scored:
    """How one patched line is scored: by `line` (itself or the line it maps to), or not at all
    (`line` None): no code, or `suspicious` (its function produced no line data)."""

    line: int | None
    suspicious: bool = False


class CppLines:
    """One C++ file's structure, for mapping lines to the lines gcov reports."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.raw_lines = text.split("\n")
        # Digraphs spelled as the braces they are (red team round 53 hid a function's body
        # behind `<% %>`, and its line read as a declaration with no code).
        self.code = _blank_directives(strip_cpp(digraphs_spelled(text), dead_if=False))
        self.starts = [0] + [i + 1 for i, ch in enumerate(self.code) if ch == "\n"]
        self.blocks = _brace_tree(self.code)
        self.brace_kind: dict[int, str] = {}
        self.opened: dict[int, Block] = {}  # line -> the last code block whose `{` is on it
        for block in _walk(self.blocks):
            self.brace_kind[block.open] = self.brace_kind[block.close] = block.kind
            if block.kind == CODE:
                self.opened[self.line_of(block.open)] = block

    # -- offsets and lines ------------------------------------------------------------------

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset)

    def line_text(self, line: int) -> str:
        if line < 1 or line > len(self.starts):
            return ""
        start = self.starts[line - 1]
        end = self.starts[line] - 1 if line < len(self.starts) else len(self.code)
        return self.code[start:end]

    def span(self, block: Block) -> tuple[int, int]:
        return self.line_of(block.open), self.line_of(block.close)

    # -- the blocks around a line -----------------------------------------------------------

    def innermost(self, offset: int, kinds: tuple[str, ...] = (CODE,)) -> Block | None:
        """The innermost block of one of `kinds` whose braces enclose `offset`."""
        found = None
        level = self.blocks
        while True:
            inside = next((b for b in level if b.open < offset <= b.close), None)
            if inside is None:
                return found
            if inside.kind in kinds:
                found = inside
            level = inside.children

    def bodies_around(self, line: int) -> list[Block]:
        """The code blocks enclosing the line's first character (comments count: a `/*` added
        inside a function is inside it), outermost first."""
        return [b for b in self.blocks_around(line) if b.kind == CODE]

    def blocks_around(self, line: int) -> list[Block]:
        """Every block (a scope: namespace, class, linkage; or code) enclosing the line's first
        character, outermost first."""
        raw = self.raw_lines[line - 1] if 0 < line <= len(self.raw_lines) else ""
        if not raw.strip():
            return []
        offset = self.starts[line - 1] + len(raw) - len(raw.lstrip())
        out = []
        level = self.blocks
        while True:
            inside = next((b for b in level if b.open < offset <= b.close), None)
            if inside is None:
                return out
            out.append(inside)
            level = inside.children

    def head(self, block: Block) -> str:
        """The statement text before a block's `{` (a function's signature, `TEST_SUITE("x")`)."""
        return _head(self.code, block.open, {}).strip()

    def function(self, line: int) -> Block | None:
        """The outermost code block holding the line, or opened on it: its function's body."""
        first = self._first_code(line)
        block = self.innermost(first) if first is not None else None
        if block is None:
            block = self._opened_on(line)
        outer = block
        while outer is not None and outer.parent is not None and outer.parent.kind == CODE:
            outer = outer.parent
        return outer

    def _first_code(self, line: int) -> int | None:
        text = self.line_text(line)
        stripped = len(text) - len(text.lstrip())
        if not text.strip():
            return None
        return self.starts[line - 1] + stripped

    def opened_blocks(self) -> list[Block]:
        """Every code block, in the order of their opening braces."""
        return sorted((b for b in _walk(self.blocks) if b.kind == CODE), key=lambda b: b.open)

    def block_end(self, line: int) -> int:
        """The line closing the first code block opened on or after `line` (a test macro's
        body); `line` itself when none is."""
        block = next((b for b in self.opened_blocks() if self.line_of(b.open) >= line), None)
        return self.line_of(block.close) if block is not None else line

    def _opened_on(self, line: int) -> Block | None:
        """The last code block whose `{` is on this line."""
        return self.opened.get(line)

    def statement_lines(self, line: int) -> tuple[int, int]:
        """The first and last line of the statement holding the line's first code character:
        from after the previous `;`, `{` or `}` of code or scope to the next one."""
        first = self._first_code(line)
        if first is None:
            return line, line
        start = first
        while start > 0:
            ch = self.code[start - 1]
            if ch in ";{}" and not self._is_init(start - 1):
                break
            start -= 1
        while start < first and self.code[start].isspace():
            start += 1
        end = first
        while end < len(self.code):
            ch = self.code[end]
            if ch in ";{}" and not self._is_init(end):
                break
            end += 1
        return self.line_of(start if start < len(self.code) else first), self.line_of(end)

    def _is_init(self, offset: int) -> bool:
        return self.brace_kind.get(offset) == INIT

    # -- scoring -----------------------------------------------------------------------------

    def score(self, line: int, data: set[int]) -> Scored:
        if line in data:
            return Scored(line)
        if not self.line_text(line).strip():
            return Scored(None)  # a comment, a directive, a blank: no code
        function = self.function(line)
        if function is None:
            return Scored(None)  # a declaration at namespace or class scope
        low, high = self.span(function)
        if not any(low <= n <= high for n in data):
            return Scored(None, suspicious=True)
        mapped = self._mapped(line, data, function)
        return Scored(mapped, suspicious=mapped is None)

    def _mapped(self, line: int, data: set[int], function: Block) -> int | None:
        text = self.line_text(line)
        first, last = self.statement_lines(line)
        inside = [n for n in range(first, last + 1) if n in data]
        if inside and not _LABEL.match(text) and text.strip()[:1] not in ("{", "}"):
            return inside[0]
        ordered = sorted(data)
        opened = self._opened_on(line)
        if _CLOSER.match(text) and "else" not in text:
            closed = self.innermost(self._first_code(line) or 0)
            if closed is not None:
                low, high = self.span(closed)
                before = [n for n in ordered if low <= n < line]
                if before:
                    return before[-1]
        block = opened if opened is not None else self.innermost(self._first_code(line) or 0)
        if block is not None:
            low, high = self.span(block)
            after = [n for n in ordered if line < n <= high]
            if after:
                return after[0]
            before = [n for n in ordered if low <= n < line]
            if before:
                return before[-1]
        low, _ = self.span(function)
        before = [n for n in ordered if low <= n < line]
        return before[-1] if before else None


def map_lines(text: str, lines: Iterable[int], data: Iterable[int]) -> dict[int, Scored]:
    """How each of `lines` is scored, given the lines gcov reported for the file."""
    known = set(data)
    file = CppLines(text)
    return {line: file.score(line, known) for line in lines}


# -- the brace tree ------------------------------------------------------------------------------


def _blank_directives(code: str) -> str:
    """Preprocessor lines (with their continuations) blanked: they are not statements."""
    out = []
    continued = False
    for line in code.split("\n"):
        if continued or line.lstrip().startswith("#"):
            continued = line.rstrip().endswith("\\")
            out.append(" " * len(line))
        else:
            out.append(line)
    return "\n".join(out)


def _brace_tree(code: str) -> list[Block]:
    roots: list[Block] = []
    stack: list[Block] = []
    closed: dict[int, Block] = {}  # offset of a `}` -> the block it closes
    for match in re.finditer(r"[{}]", code):
        pos = match.start()
        if match.group() == "{":
            parent = stack[-1] if stack else None
            block = Block(_kind(_head(code, pos, closed), parent), pos, len(code), parent)
            (parent.children if parent else roots).append(block)
            stack.append(block)
        elif stack:
            block = stack.pop()
            block.close = pos
            closed[pos] = block
    return roots


def _head(code: str, pos: int, closed: dict[int, Block]) -> str:
    """The text of the statement before the `{` at `pos`: back to the previous `;`, `{` or `}`,
    stepping over the initializer lists of this statement (`S() : a_{1}, b_{2} {`)."""
    start = pos
    while start > 0:
        ch = code[start - 1]
        if ch == ")":
            # A parenthesised part is one piece: the `;` of `for (i = 0; i < n; ++i)` does not
            # end the head.
            opening = _matching_open(code, start - 1)
            if opening is None:
                break
            start = opening
            continue
        if ch == "}":
            inner = closed.get(start - 1)
            if inner is None or inner.kind != INIT:
                break
            start = inner.open
            continue
        if ch in ";{":
            break
        start -= 1
    return code[start:pos]


def _matching_open(code: str, close: int) -> int | None:
    """Offset of the `(` that the `)` at `close` closes, scanning back; None if none does."""
    depth = 0
    for index in range(close, -1, -1):
        ch = code[index]
        if ch == ")":
            depth += 1
        elif ch == "(":
            depth -= 1
            if depth == 0:
                return index
    return None


def _kind(head: str, parent: Block | None) -> str:
    label = _LABEL.match(head)
    if label:
        head = head[label.end() :]
    stripped = head.strip()
    in_code = parent is not None and parent.kind == CODE
    if parent is not None and parent.kind == INIT:
        return INIT
    if _SCOPE_HEAD.match(head) or _SCOPE_TAIL.search(head):
        return SCOPE
    if _CONTROL_HEAD.match(head) or stripped.endswith("]"):
        return CODE
    if not stripped:
        return CODE if in_code else SCOPE
    if stripped.endswith(("=", "(", ",", "[", "?", "return", "<<", "+", "-", "*", "/", "||", "&&")):
        return INIT
    close = _last_top_paren(head)
    if close is not None and _QUALIFIERS.match(head[close + 1 :]):
        return CODE
    return INIT


def _last_top_paren(head: str) -> int | None:
    """Offset of the last `)` at nesting depth zero in the head, if any."""
    depth = 0
    found = None
    for i, ch in enumerate(head):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
            if depth == 0 and ch == ")":
                found = i
    return found


def _walk(blocks: list[Block]):
    for block in blocks:
        yield block
        yield from _walk(block.children)


# -- between the SHA and the patched text --------------------------------------------------------


def sha_line(line: int, removed: Sequence[int], added: Sequence[int]) -> int | None:
    """The SHA's line that line `line` of the patched text is, given the SHA's lines the patch
    removed and the patched text's lines it added (a diff's `-` and `+` lines, 1-based); None
    for a line the patch added. A diff keeps the lines it leaves alone in their order, so the
    k-th untouched line of the patched text is the k-th untouched line of the SHA's."""
    if line in added:
        return None
    rank = line - sum(1 for n in set(added) if n < line)
    old = rank
    for gone in sorted(set(removed)):
        if gone > old:
            break
        old += 1
    return old
