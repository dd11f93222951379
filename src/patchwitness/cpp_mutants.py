"""Mutants of the lines a patch added to C or C++ production code, all in one text. Pure.

The mutants are those of `mutants.py` for Python, made on C++ text: a decision's condition (an
`if` or `while` on an added line) made always true and always false, each ordered comparison of
such a condition with its boundary moved (`<` made `<=`, and back), and an added expression
statement deleted. Rebuilding a C++ project once per mutant costs a build each (a header-only
library rebuilds every test unit); so all the mutants of a file are written into one text, a
*mutant schema*, each selected at run time by the number in the variable `PW_MUTANT`, and one
rebuild serves them all (Untch, Offutt and Harrold's schemata; Mull and dextool do the same).
With the variable unset or 0, the schema behaves as the patched text.

The text is read structurally through the census's lexer (comments and literals blanked, offsets
kept) and edited at the same offsets of the original. What is not clearly an expression statement
or a plain condition is left alone: a declaration, an `if` with an initializer or a declared
condition, `if constexpr`, a condition the preprocessor builds. A schema the compiler refuses is
dropped whole by the phase that builds it (phases/cpp_mutants.py), and its mutants say why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from patchwitness.census.cpp_lexer import match_close, strip_cpp

VARIABLE = "PW_MUTANT"
SELECTOR = "pw_mutant_chosen_"
# Defined once at the top of each mutated file, C and C++ alike: `static inline` warns of
# nothing when a unit does not use it, and it reads the variable once per process.
PROLOGUE = (
    "#include <stdlib.h>\n"
    f"static inline int {SELECTOR}(int k) {{ static int chosen = -1; if (chosen < 0) {{ "
    f'const char* v = getenv("{VARIABLE}"); chosen = v ? atoi(v) : 0; }} return chosen == k; }}\n'
)

CONDITION_TRUE = "condition-true"
CONDITION_FALSE = "condition-false"
STATEMENT_DELETED = "statement-deleted"
BOUNDARY = "boundary"

_DECISION = re.compile(r"(?<![\w$])(if|while)\s*\(")
_CONSTEXPR = re.compile(r"(?<![\w$])if\s+constexpr\b")
# `=` alone in a condition: an assignment or a declared variable, left alone.
_ASSIGNS = re.compile(r"(?<![=!<>+\-*/%&|^])=(?!=)")
# A comparison written as one (spaces around it): `a < b`; `vector<int>` is no comparison.
_COMPARISON = re.compile(r"(?<=\s)(<=|>=|<|>)(?=\s)")
_SWAPPED = {"<": "<=", "<=": "<", ">": ">=", ">=": ">"}
# An expression statement: a name (qualified, with members and subscripts) assigned, called or
# stepped, or a step first; a declaration (`int x = 1;`, `std::string s(a);`) is not one.
_EXPRESSION = re.compile(
    r"\s*(?:(?:\+\+|--)\s*)?[A-Za-z_][\w]*(?:\s*::\s*[A-Za-z_]\w*)*"
    r"(?:\s*(?:\.|->)\s*[A-Za-z_]\w*|\s*\[[^\]\n]*\])*"
    r"\s*(?:[-+*/%&|^]?=(?!=)|<<=|>>=|\(|\+\+|--)"
)
# Calls whose deletion changes only what a person reads (as mutants.QUIET_CALLS, and C's).
_QUIET = frozenset(
    {"print", "debug", "info", "warning", "warn", "error", "exception", "critical", "log"}
    | {"printf", "fprintf", "puts", "fputs", "perror", "syslog", "trace"}
)
_CALLEE = re.compile(r"\s*(?:[A-Za-z_]\w*\s*(?:::|\.|->)\s*)*([A-Za-z_]\w*)\s*\(")
_KEYWORDS = frozenset(
    {"return", "throw", "break", "continue", "goto", "case", "default", "delete", "new", "if"}
    | {"while", "for", "switch", "do", "else", "sizeof", "static_assert", "using", "typedef"}
)


@dataclass(frozen=True)
class CppMutant:
    """One mutant: the number that selects it, where, what it changes, and its line as it
    reads when selected (for the diff a person is shown)."""

    number: int
    file: str
    line: int
    operator: str
    description: str
    original: str
    mutated: str

    def diff(self) -> str:
        return (
            f"--- a/{self.file}\n+++ b/{self.file}\n@@ -{self.line} +{self.line} @@\n"
            f"-{self.original.rstrip()}\n+{self.mutated.rstrip()}\n"
        )


@dataclass(frozen=True)
class Schema:
    """The mutants of one file and the file's text holding them all."""

    file: str
    mutants: tuple[CppMutant, ...]
    text: str


@dataclass(frozen=True)
class _Edit:
    start: int
    end: int
    replacement: str
    numbers: tuple[int, ...]  # the mutants it holds


def schema_of(path: str, text: str, added: list[int], first: int = 1) -> Schema | None:
    """The mutants of the `added` lines of `text`, numbered from `first`, decisions first; None
    when there are none."""
    code = strip_cpp(text, dead_if=False)
    starts = _line_starts(text)
    wanted = set(added)
    numbers = iter(range(first, first + 100_000))
    made: list[CppMutant] = []
    edits: list[_Edit] = []
    for start, end in _conditions(code, starts, wanted):
        made_here, edit = _decision(path, text, starts, start, end, numbers)
        made += made_here
        edits.append(edit)
    for start, end in _statements(code, starts, wanted):
        number = next(numbers)
        statement = text[start:end]
        line = _line_of(starts, start)
        made.append(
            CppMutant(
                number,
                path,
                line,
                STATEMENT_DELETED,
                f"`{_short(statement)}` deleted",
                _line_text(text, starts, line),
                _line_text(text, starts, line).replace(statement, ";", 1),
            )
        )
        deleted = f"if (!{SELECTOR}({number})) {{ {statement} }}"
        edits.append(_Edit(start, end, deleted, (number,)))
    text_made, kept = _apply(text, edits)
    made = [m for m in made if m.number in kept]
    if not made:
        return None
    return Schema(path, tuple(made), PROLOGUE + text_made)


def _decision(
    path: str, text: str, starts: list[int], start: int, end: int, numbers
) -> tuple[list[CppMutant], _Edit]:
    """The mutants of one condition `text[start:end]` (inside its parentheses) and the edit
    that holds them: true, false, then each boundary moved."""
    condition = text[start:end]
    line = _line_of(starts, start)
    shown = _short(" ".join(condition.split()))
    original = _line_text(text, starts, line)
    true, false = next(numbers), next(numbers)
    made = [
        CppMutant(
            true,
            path,
            line,
            CONDITION_TRUE,
            f"`{shown}` replaced by true",
            original,
            original.replace(condition, "true", 1),
        ),
        CppMutant(
            false,
            path,
            line,
            CONDITION_FALSE,
            f"`{shown}` replaced by false",
            original,
            original.replace(condition, "false", 1),
        ),
    ]
    arms = [(true, "1"), (false, "0")]
    compared = list(_COMPARISON.finditer(strip_cpp(condition, dead_if=False)))
    if len(compared) == 1 and _clamps(text, end, condition, compared[0]):
        compared = []  # both ways give the same value at the boundary: no mutant says more
    for match in compared:
        number = next(numbers)
        old = match.group(1)
        moved = condition[: match.start()] + _SWAPPED[old] + condition[match.end() :]
        made.append(
            CppMutant(
                number,
                path,
                line,
                BOUNDARY,
                f"`{old}` made `{_SWAPPED[old]}` in `{shown}`",
                original,
                original.replace(condition, moved, 1),
            )
        )
        arms.append((number, f"!!({moved})"))
    chosen = " : ".join(f"{SELECTOR}({n}) ? {value}" for n, value in arms)
    numbers_here = tuple(m.number for m in made)
    return made, _Edit(start, end, f"{chosen} : !!({condition})", numbers_here)


def _clamps(text: str, end: int, condition: str, match: re.Match[str]) -> bool:
    """`if (x > hi) return hi;`, `if (x < lo) r = lo;`: the statement the condition controls
    returns or assigns one side of its one comparison, so at the boundary both ways agree."""
    sides = {
        " ".join(condition[: match.start()].split()),
        " ".join(condition[match.end() :].split()),
    }
    after = text[end + 1 :].lstrip().lstrip("{").strip()
    body = after.split(";", 1)[0]
    picked = re.match(r"(?:return\s+|[A-Za-z_][\w.\->\[\]]*\s*=(?!=)\s*)(.*)$", body, re.S)
    return picked is not None and " ".join(picked.group(1).split()) in sides


def _conditions(code: str, starts: list[int], wanted: set[int]) -> list[tuple[int, int]]:
    """The spans (inside the parentheses) of the plain conditions of `if` and `while` whose
    keyword is on one of `wanted` lines."""
    out = []
    for match in _DECISION.finditer(code):
        if _line_of(starts, match.start()) not in wanted:
            continue
        if _CONSTEXPR.match(code, match.start()):
            continue
        open_at = match.end() - 1
        close = match_close(code, open_at)
        if close is None:
            continue
        inside = code[open_at + 1 : close]
        if not inside.strip() or ";" in inside or _ASSIGNS.search(inside) or "#" in inside:
            continue
        out.append((open_at + 1, close))
    return out


def _statements(code: str, starts: list[int], wanted: set[int]) -> list[tuple[int, int]]:
    """Expression statements wholly on one `wanted` line: (start, end) of the statement, its
    `;` included."""
    out = []
    for number in sorted(wanted):
        if number < 1 or number > len(starts):
            continue
        begin = starts[number - 1]
        finish = starts[number] - 1 if number < len(starts) else len(code)
        line = code[begin:finish]
        stripped = line.strip()
        if not stripped.endswith(";") or stripped.count(";") != 1 or "{" in line or "}" in line:
            continue
        if stripped.startswith("#"):
            continue
        first = re.match(r"\s*([A-Za-z_]\w*)", line)
        if first is None or first.group(1) in _KEYWORDS:
            continue
        if not _EXPRESSION.match(line):
            continue
        callee = _CALLEE.match(line)
        if callee is not None and callee.group(1) in _QUIET:
            continue
        start = begin + len(line) - len(line.lstrip())
        end = begin + line.rindex(";") + 1
        out.append((start, end))
    return out


def _apply(text: str, edits: list[_Edit]) -> tuple[str, set[int]]:
    """The text with the edits made, and the mutants they hold (an edit that overlaps an
    earlier one is left out, and its mutants with it)."""
    out, last, kept = [], 0, set()
    for edit in sorted(edits, key=lambda e: e.start):
        if edit.start < last:
            continue
        out.append(text[last : edit.start])
        out.append(edit.replacement)
        last = edit.end
        kept.update(edit.numbers)
    out.append(text[last:])
    return "".join(out), kept


def _line_starts(text: str) -> list[int]:
    starts = [0]
    starts += [m.end() for m in re.finditer("\n", text)]
    return starts


def _line_of(starts: list[int], offset: int) -> int:
    low, high = 0, len(starts) - 1
    while low < high:
        mid = (low + high + 1) // 2
        if starts[mid] <= offset:
            low = mid
        else:
            high = mid - 1
    return low + 1


def _line_text(text: str, starts: list[int], line: int) -> str:
    begin = starts[line - 1]
    finish = starts[line] if line < len(starts) else len(text)
    return text[begin:finish]


def _short(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
