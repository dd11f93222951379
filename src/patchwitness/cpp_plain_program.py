"""A test program without a framework, as a user's program: the reference comparison's C++ side
for a suite whose test is a plain program (its own `main`, its own checks that print).

A GoogleTest case is a body the grader can lift into a program of its own
(cpp_user_program.py). A plain test program has no such unit: its checks are statements of one
`main`, each printing what it found. So the program is taken as it is, and two things are added
to it. A mark printed before each top-level statement of `main` cuts the program's output into
one piece per statement: the statements whose piece differs between the SHA and the reference
fix are the failing checks. And those statements are then written again with one literal
moved (a number one up, a character of a string one letter on), each copy selected at run time
through a `switch` on a variable of a name drawn per grade, so one compile serves every
neighbour. The program runs once per neighbour over the patched tree and twice over the
reference's; where the two print otherwise, the patch behaves unlike the reference on an input
next to the tests' own.

Pure: this module writes the program's text and reads its output; phases/cpp_plain_reference.py
builds and runs it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from patchwitness import cpp_user_program as user
from patchwitness.census.cpp_lexer import match_close, strip_cpp

STATEMENTS_VARIED = 4  # failing statements of main whose literals move, at most
VARIANTS = 64  # neighbours in one program, at most
LITERAL_CHARACTERS = 80  # the characters of a longer string literal are not moved one by one

_MAIN = re.compile(r"(?m)^[ \t]*(?:int|auto)\s+main\s*\(")
_DIRECTIVE_LINE = re.compile(r"[ \t]*#[^\n]*(?:\n|$)")
_KEYWORD_STATEMENT = re.compile(r"(?:if|for|while|switch|do)\b")
_CALL_STATEMENT = re.compile(r"(?:::)?[A-Za-z_][\w:]*\s*\(")
_NOT_CALLS = frozenset({"return", "sizeof", "alignof", "decltype", "static_assert", "throw"})


@dataclass(frozen=True)
class Statement:
    """A top-level statement of `main`: its offsets in the file, and whether its copies can be
    selected by a `switch` (a block, a call, a loop or a choice; never a declaration, whose
    names the statements after it use)."""

    index: int
    start: int
    end: int
    variable: bool


@dataclass(frozen=True)
class PlainVariant:
    """One way the program runs: as written (`statement` -1), or with one literal of one
    statement moved."""

    statement: int
    varied: str
    text: str


@dataclass(frozen=True)
class PlainProgram:
    """The program's text; its variants (the first as written), selected by number; and the
    lines each variant's copy takes in the text (1-based, inclusive; (0, 0) for the first)."""

    text: str
    variants: tuple[PlainVariant, ...]
    lines: tuple[tuple[int, int], ...]


def main_statements(text: str) -> list[Statement]:
    """The top-level statements of the file's `main` ([] when it has none)."""
    code = strip_cpp(text, dead_if=False)
    match = _MAIN.search(code)
    if match is None:
        return []
    closing_paren = match_close(code, code.index("(", match.start()))
    if closing_paren is None:
        return []
    opening = code.find("{", closing_paren)
    if opening < 0 or code[closing_paren + 1 : opening].strip():
        return []
    closing = match_close(code, opening)
    if closing is None:
        return []
    spans: list[tuple[int, int]] = []
    for start, end in user._statements(code[opening : closing + 1]):
        start, end = _skip_directives(code, opening + start, opening + end)
        if start >= end:
            continue
        if spans and re.match(r"else\b", code[start:end]):
            spans[-1] = (spans[-1][0], end)  # `else` goes on with the statement before it
            continue
        spans.append((start, end))
    return [
        Statement(index, start, end, _variable(code[start:end]))
        for index, (start, end) in enumerate(spans)
    ]


def _skip_directives(code: str, start: int, end: int) -> tuple[int, int]:
    """`start` moved past blanks and whole preprocessor lines."""
    while start < end:
        rest = code[start:end]
        stripped = rest.lstrip(" \t\n\r")
        start += len(rest) - len(stripped)
        directive = _DIRECTIVE_LINE.match(code, start)
        if directive is None or not code[start:end].startswith("#"):
            break
        start = directive.end()
    return start, end


def _variable(code: str) -> bool:
    if re.search(r"(?m)^[ \t]*#", code):
        return False  # a copy would split a preprocessor conditional
    if code.startswith("{") or _KEYWORD_STATEMENT.match(code):
        return True
    call = _CALL_STATEMENT.match(code)
    return call is not None and call.group().rstrip("( \t\n").lstrip(":") not in _NOT_CALLS


def mark(token: str, index: int) -> str:
    """The line printed before statement `index`."""
    return f"<<{token} {index}>>"


def pieces(output: str, token: str) -> dict[int, str]:
    """The program's output cut at its marks: statement index -> what it printed (-1: before
    the first statement)."""
    out: dict[int, str] = {}
    current, last = -1, 0
    for found in re.finditer(r"\n<<" + re.escape(token) + r" (\d+)>>\n", output):
        out[current] = out.get(current, "") + output[last : found.start()]
        current, last = int(found.group(1)), found.end()
    out[current] = out.get(current, "") + output[last:]
    return out


def differing_statements(sha: str, reference: str, again: str, token: str) -> list[int]:
    """The statements that printed otherwise at the SHA than with the reference fix (and alike
    in the reference's two runs: a time it prints is no check): the failing checks, in the
    order they ran."""
    before, after, steady = pieces(sha, token), pieces(reference, token), pieces(again, token)
    return [
        i
        for i in sorted(set(before) | set(after))
        if i >= 0 and before.get(i) != after.get(i) and after.get(i) == steady.get(i)
    ]


def unsteady(pairs: Iterable[tuple[str, str]], token: str) -> set[int]:
    """The statements that printed otherwise in the two runs of any pair (the reference's two
    runs of each variant): what such a statement prints (a time, an address) is no answer in
    any run, even where its two prints happened to agree."""
    out: set[int] = set()
    for first, second in pairs:
        one, two = pieces(first, token), pieces(second, token)
        out |= {i for i in set(one) & set(two) if one[i] != two[i]}
    return out


def comparable(
    reference: str, again: str, patched: str, token: str, dropped: Iterable[int] = ()
) -> tuple[str, str, str]:
    """The three outputs of one run each, cut to the statements the reference's two runs
    printed alike and that are not `dropped` (unsteady anywhere): the rest of the run is
    still an answer."""
    first, second, other = (pieces(out, token) for out in (reference, again, patched))
    left_out = set(dropped)
    kept = sorted(
        i for i in set(first) | set(second) if first.get(i) == second.get(i) and i not in left_out
    )

    def shown(found: dict[int, str]) -> str:
        return "".join(
            _visible(f"[statement {i + 1}]\n{found[i]}" if i >= 0 else found[i])
            for i in kept
            if i in found
        )

    return shown(first), shown(second), shown(other)


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def _visible(text: str) -> str:
    """Control characters written as escapes: a witness shows the byte a check printed."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def program(
    text: str,
    statements: Sequence[Statement],
    token: str,
    variable: str,
    varied: Mapping[int, Sequence[tuple[str, str]]] | None = None,
    alone: Sequence[int] = (),
) -> PlainProgram:
    """The file with a mark printed before each statement of `main`, and each statement of
    `varied` (index -> its copies: what moved, the statement's new text) selected at run time by
    the number in the environment variable `variable` (0: as written). Each statement of
    `alone` is also a variant of its own: that statement as written, every other one that can
    be skipped skipped (a user's program that makes that one check, in a process that did
    nothing else before it)."""
    varied = varied or {}
    variants: list[PlainVariant] = [PlainVariant(-1, "", "")]
    where: list[tuple[int, int, int]] = []  # (variant, offset in the body's text, length)
    last = 0
    pieces_: list[str] = []
    for statement in statements:
        pieces_.append(text[last : statement.start])
        pieces_.append(
            f'\n{{ std::fputs("\\n{mark(token, statement.index)}\\n", stdout); '
            "std::fflush(stdout); }\n"
        )
        original = text[statement.start : statement.end]
        guarded = bool(alone) and statement.variable
        if guarded:
            pieces_.append(
                f"if ({_loner(token)}() < 0 || {_loner(token)}() == {statement.index}) {{\n"
            )
        copies = varied.get(statement.index, ()) if statement.variable else ()
        if not copies:
            pieces_.append(original)
        else:
            pieces_.append(f"switch ({_chooser(token)}()) {{\n")
            for said, copy in copies:
                variants.append(PlainVariant(statement.index, said, copy))
                number = len(variants) - 1
                pieces_.append(f"case {number}: {{\n")
                where.append((number, sum(map(len, pieces_)), len(copy)))
                pieces_.append(copy + "\n} break;\n")
            pieces_.append("default: {\n" + original + "\n} break;\n}\n")
        if guarded:
            pieces_.append("\n}\n")
        last = statement.end
    pieces_.append(text[last:])
    body = "".join(pieces_)
    lone: dict[int, int] = {}
    for index in alone:
        said = f"main's statement {index + 1} alone, every other check skipped"
        variants.append(PlainVariant(index, said, ""))
        lone[len(variants) - 1] = index
    prelude = _prelude(token, variable, lone)
    at = _after_includes(body)
    full = body[:at] + prelude + body[at:]
    lines = [(0, 0)] * len(variants)
    for number, offset, length in where:
        offset += len(prelude) if offset >= at else 0
        first = full.count("\n", 0, offset) + 1
        lines[number] = (first, first + full.count("\n", offset, offset + length))
    return PlainProgram(full, tuple(variants), tuple(lines))


def _chooser(token: str) -> str:
    return f"pw_variant_{token}"


def _loner(token: str) -> str:
    return f"pw_alone_{token}"


def _prelude(token: str, variable: str, lone: Mapping[int, int]) -> str:
    cases = "".join(f"    case {number}: return {index};\n" for number, index in lone.items())
    return (
        "\n#include <cstdio>\n#include <cstdlib>\n"
        f"static int {_chooser(token)}() {{\n"
        f'  const char* chosen = std::getenv("{variable}");\n'
        "  return chosen ? std::atoi(chosen) : 0;\n}\n"
        f"static int {_loner(token)}() {{\n"
        f"  switch ({_chooser(token)}()) {{\n{cases}    default: return -1;\n  }}\n}}\n"
    )


def _after_includes(text: str) -> int:
    """Where the grader's prelude goes: after the line of the file's last `#include` outside
    every preprocessor conditional, or at the start."""
    depth, at = 0, 0
    offset = 0
    for line in text.splitlines(keepends=True):
        stripped = line.lstrip()
        if re.match(r"#\s*if", stripped):
            depth += 1
        elif re.match(r"#\s*endif", stripped):
            depth -= 1
        elif depth == 0 and re.match(r"#\s*include\b", stripped):
            at = offset + len(line)
        offset += len(line)
    return at


# --- the neighbours of a statement -------------------------------------------------------------


def moves(
    text: str, statement: Statement, own_functions: frozenset[str], cap: int
) -> list[tuple[str, str]]:
    """The statement with one literal moved, at most `cap`: (what moved, the new text). In
    turn, one move of each literal and of each character of a string before a second of any:
    first the literals the code under test is given and their characters; then the characters
    of a word a string holds twice (a name that must match, a tag's opening and closing); then
    the literals handed to the test file's own functions (a check's label, its expected
    value)."""
    inner = text[statement.start : statement.end]
    code = strip_cpp(inner, dead_if=False)
    by_literal: dict[int, list[tuple[int, int, str]]] = {}
    for start, end, new in user._literal_moves(inner, code):
        by_literal.setdefault(start, []).append((start, end, new))
    given: list[list[tuple[int, int, str]]] = []
    names: list[list[tuple[int, int, str]]] = []
    checked: list[list[tuple[int, int, str]]] = []
    characters = _character_moves(inner, code)
    for start in sorted(set(by_literal) | {group[0][0] for _, group in characters}):
        mine = [(repeated, group) for repeated, group in characters if group[0][0] == start]
        if _called(code, start) in own_functions:
            checked.extend([by_literal.get(start, []), *(group for _, group in mine)])
            continue
        given.append(by_literal.get(start, []))
        given.extend(group for repeated, group in mine if not repeated)
        names.extend(group for repeated, group in mine if repeated)
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for tier in (given, names, checked):
        for start, end, new in _round_robin(tier):
            moved = inner[:start] + new + inner[end:]
            if moved in seen:
                continue
            if len(out) >= cap:
                return out
            seen.add(moved)
            line = inner[:start].count("\n") + 1
            said = (
                f"{inner[start:end]} -> {new} (main's statement {statement.index + 1}, line {line})"
            )
            out.append((said, moved))
    return out


def _round_robin(groups: list[list[tuple[int, int, str]]]) -> list[tuple[int, int, str]]:
    out, depth = [], 0
    while any(depth < len(g) for g in groups):
        out.extend(g[depth] for g in groups if depth < len(g))
        depth += 1
    return out


def _called(code: str, pos: int) -> str:
    """The name of the innermost call whose parentheses hold `pos` ("" for none)."""
    depth = 0
    for index in range(pos - 1, -1, -1):
        char = code[index]
        if char in ")]":
            depth += 1
        elif char in "([":
            if depth == 0:
                if char == "[":
                    return ""
                name = re.search(r"([A-Za-z_]\w*)\s*$", code[:index])
                return name.group(1) if name else ""
            depth -= 1
        elif char in "{};" and depth == 0:
            return ""
    return ""


_CYCLES = ("0123456789", "abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _character_moves(inner: str, code: str) -> list[tuple[bool, list[tuple[int, int, str]]]]:
    """Each letter and digit of a string literal moved one on and one back in its class, to
    its class's first and last (`e` to `f`, `d`, `a` and `z`; `0` to `1` and `9`), and left
    out; the literal written whole: the same input one character away (a fix for the one
    letter or digit the tests use answers otherwise; red team round 50: a term zero at d, e and
    f, and a `+ 10` that needed a digit before the letter, `&#xe;` against the tests'
    `&#x0e;`). One group of moves per character, and whether its word is one the literal holds
    twice (a name that must match, not data)."""
    out: list[tuple[bool, list[tuple[int, int, str]]]] = []
    for start in user._quotes(code, '""'):
        end = user._literal_end(inner, start, '"')
        if end is None or (start > 0 and (code[start - 1].isalnum() or code[start - 1] == "_")):
            continue
        content = inner[start + 1 : end - 1]
        if len(content) > LITERAL_CHARACTERS:
            continue
        words = [w.group() for w in re.finditer(r"[A-Za-z0-9]+", content)]
        repeated = {w for w in words if words.count(w) > 1}
        for at in _plain_characters(content):
            group = [
                (start, end, f'"{content[:at]}{new}{content[at + 1 :]}"')
                for new in [*_neighbours(content[at]), ""]
            ]
            out.append((_word_at(content, at) in repeated, group))
    return out


def _word_at(content: str, at: int) -> str:
    start = at
    while start > 0 and content[start - 1].isascii() and content[start - 1].isalnum():
        start -= 1
    found = re.match(r"[A-Za-z0-9]+", content[start:])
    return found.group() if found else ""


def _plain_characters(content: str) -> list[int]:
    """Where a letter or digit stands for itself (not inside an escape sequence)."""
    out, index = [], 0
    while index < len(content):
        char = content[index]
        if char == "\\":
            escape = re.match(
                r"\\(?:x[0-9a-fA-F]+|[0-7]{1,3}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)", content[index:]
            )
            index += len(escape.group()) if escape else 2
            continue
        if char.isascii() and char.isalnum():
            out.append(index)
        index += 1
    return out


def _neighbours(char: str) -> list[str]:
    for cycle in _CYCLES:
        at = cycle.find(char)
        if at >= 0:
            moved = [cycle[(at + 1) % len(cycle)], cycle[at - 1], cycle[0], cycle[-1]]
            return [c for c in dict.fromkeys(moved) if c != char]
    return []
