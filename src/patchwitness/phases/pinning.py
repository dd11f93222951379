"""Do the tests pin the patch: the ways the decisions of its added production lines went in the
run the failing tests ran in. Read from what the coverage phase read: the Python line probes'
decision files, gcov's branch counts for C and C++ (a C++ task, or a Python task's compiled
extension). Pure: the hits are already read."""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Callable, Mapping

from patchwitness.census.cpp_lexer import match_close, strip_cpp
from patchwitness.facts import Decision, FileLines, PinningCollected
from patchwitness.model import COMPLETED, THREW
from patchwitness.patch import FileChange

# The ways a Python decision goes, by the bit the probes set (probe/pw_lines.py).
WAYS = (("true", 1), ("false", 2))
# A C or C++ line that decides: a condition, a loop, a conditional expression, a short circuit.
# (A `switch` is left out: gcov counts one outcome per case, and a case no test takes is a
# line that never ran, which coverage already reads.)
CPP_DECISION = re.compile(r"\b(?:if|while|for)\b|\?|&&|\|\||\band\b|\bor\b")


def collect_pinning(
    production: list[FileChange],
    hits: Mapping[str, FileLines],
    texts: Mapping[str, str | None],
    measured: bool,
) -> PinningCollected:
    """The decisions of the `production` changes' added lines, from the run's `hits`; `texts`:
    the patched files as the run found them; `measured`: coverage was measured at all."""
    if not measured:
        return PinningCollected(measured=False, why_not="coverage was not measured")
    decisions: list[Decision] = []
    unprobed: list[str] = []
    for change in production:
        lines = hits.get(change.path)
        if lines is None or not change.added_lines:
            continue
        if change.path.endswith(".py"):
            found = python_decisions(change, lines)
            if found is None:
                unprobed.append(change.path)
                continue
        else:
            found = cpp_decisions(change, lines, texts.get(change.path) or "")
        decisions.extend(found)
    why = ""
    if unprobed:
        why = "decisions not probed (the run traced these files with coverage.py, or no process "
        why += f"imported them): {', '.join(unprobed)}"
    return PinningCollected(
        decisions=decisions, measured=not unprobed or bool(decisions), why_not=why
    )


def python_decisions(change: FileChange, lines: FileLines) -> list[Decision] | None:
    """The probes' record of each decision on the change's added lines; None when the run did
    not probe them."""
    if lines.decisions is None:
        return None
    out = []
    # A decision that starts above the hunk and reaches into it counts, at its own first line.
    for line, text, bits in lines.decisions:
        went = [way for way, bit in WAYS if bits & bit]
        never = [way for way, bit in WAYS if not bits & bit] if went else []
        out.append(Decision(file=change.path, line=line, text=_short(text), went=went, never=never))
    return out


def cpp_decisions(change: FileChange, lines: FileLines, text: str) -> list[Decision]:
    """gcov's outcomes of each added line that decides, read as `went` (taken at least once)
    and `never` (taken by no test) per outcome; a line that never ran went no way."""
    stripped = strip_cpp(text, dead_if=False) if text else ""
    code = stripped.splitlines()
    line_of = functools.partial(bisect.bisect_right, _line_starts(stripped))
    heads = _head_lines(stripped, line_of)
    out = []
    for number in change.added_lines:
        source = code[number - 1] if 0 < number <= len(code) else ""
        ways = lines.ways.get(number)
        switch = _SWITCH.search(source) is not None
        if not ways or not (CPP_DECISION.search(source) or number in heads or switch):
            continue
        went: list[str] = []
        never: list[str] = []
        if lines.hits.get(number, 0) > 0:
            for k, counts in enumerate(ways, 1):
                for j, count in enumerate(counts, 1):
                    name = f"decision {k} outcome {j}" if len(ways) > 1 else f"outcome {j}"
                    (went if count > 0 else never).append(name)
        if switch and not CPP_DECISION.search(source) and len(went) > 1:
            # A switch goes one way only when every test took one of its ways: gcov counts a
            # way to its end for a switch with no `default` too, which a switch over all of
            # an enum's values never takes (red team round 44: `switch (*q) { case 'e': case
            # 'f': digit += 10; }`, where every test's letter was e or f).
            never = []
        original = text.splitlines()[number - 1] if text else source
        out.append(
            Decision(
                file=change.path,
                line=number,
                text=_short(original.strip()),
                went=went,
                never=never if went else [],
            )
        )
    return out + _tries(change, lines, text, stripped, line_of)


_TRY = re.compile(r"(?<![\w$])try\s*\{")


def _tries(
    change: FileChange, lines: FileLines, text: str, code: str, line_of: Callable[[int], int]
) -> list[Decision]:
    """Each `try` the patch adds decides by whether its block throws: a block that ran and
    whose calls never left by an exception went one way (red team rounds 33 and 43: a `+ 10`
    or a `return directory` kept only where `.at(...)` or `.substr(2)` did not throw, which
    every test's input made so). gcov's exception edges say it; a block with none says
    nothing."""
    out = []
    added = set(change.added_lines)
    for match in _TRY.finditer(code):
        first = line_of(match.start())
        close = match_close(code, match.end() - 1)
        if first not in added or close is None:
            continue
        block = range(first, line_of(close) + 1)
        edges = [lines.throws[n] for n in block if n in lines.throws]
        ran = any(lines.hits.get(n, 0) > 0 for n in block)  # `try {` alone is no code of gcov's
        if not ran or not edges or any(edges):
            continue
        original = text.splitlines()[first - 1] if text else ""
        out.append(
            Decision(
                file=change.path,
                line=first,
                text=_short(original.strip()),
                went=[COMPLETED],
                never=[THREW],
            )
        )
    return out


_SWITCH = re.compile(r"(?<![\w$])switch\s*\(")
_HEAD = re.compile(r"(?<![\w$])(?:if|while|for)\s*\(")


def _line_starts(code: str) -> list[int]:
    return [0] + [m.end() for m in re.finditer("\n", code)]


def _head_lines(code: str, line_of: Callable[[int], int]) -> set[int]:
    """The lines a decision's parenthesized head spans past its keyword's own: gcov puts a
    condition's branches on the condition's line (red team round 43: a `for` whose condition
    stood on the next line went one way unseen)."""
    out: set[int] = set()
    for match in _HEAD.finditer(code):
        close = match_close(code, match.end() - 1)
        if close is None:
            continue
        out.update(range(line_of(match.start()) + 1, line_of(close) + 1))
    return out


def _short(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
