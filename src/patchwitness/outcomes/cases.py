"""The test cases inside each ctest test, and the ones that no longer run. Pure.

Outcomes are per ctest test, so a case hidden inside a ctest test that still passes (a
`--gtest_filter` in its arguments, a `GTEST_FILTER` set by a ctest property or script, a Catch2 tag
or test spec, a doctest `-tce`, a `#define` that compiles the case out) vanished unseen. Two
channels say which cases ran, and neither depends on the arguments the project runs its tests
with:

- GoogleTest's XML (the grader sets `GTEST_OUTPUT`): per executable, every case that ran and no
  case a filter left out. It is the same report the outcomes already trust.
- Catch2 and doctest have no reporter an environment variable turns on, so the count of test
  cases their own summary prints (`All tests passed (4 assertions in 2 test cases)`,
  `[doctest] test cases: 3 | 3 passed | ...`) is read from the whole output ctest keeps in its
  JUnit report. That output is the code's own, which could print a count it never ran; it is
  therefore only ever used to reveal a loss (fewer cases than at the SHA, or no summary at all
  where the SHA had one, in a ctest test that passes), never to vouch for a pass.

A case counts as lost only while every ctest test that runs it still passes: a ctest test that
fails, crashes or is gone is the ctest outcomes' business (its cases are errors, not removals).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from patchwitness.model import Cases, Outcome
from patchwitness.outcomes.ctest import CtestReport

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
# What each framework's summary says ran: Catch2's console reporter (all passed, some failed,
# none ran), its compact reporter, doctest's summary (the cases that passed its filters).
_SUMMARIES = (
    (
        "Catch2",
        re.compile(r"^All tests passed \(\d+ assertions? in (?P<n>\d+) test cases?\)", re.M),
    ),
    ("Catch2", re.compile(r"^test cases: *(?P<n>\d+) \|", re.M)),
    ("Catch2", re.compile(r"^No tests ran$", re.M)),
    ("Catch2", re.compile(r"^Passed (?:all )?(?P<n>\d+) test cases? with", re.M)),
    ("doctest", re.compile(r"^\[doctest\] test cases: *(?P<n>\d+) \|", re.M)),
)
_DISABLED = re.compile(r"(^|[./])DISABLED_")


def summary(output: str) -> tuple[str, int] | None:
    """(framework, test cases ran) from a test's output: the sum over every summary in it (a
    ctest test may run several programs); None when there is none."""
    text = _ANSI.sub("", output)
    found: list[tuple[int, str, int]] = []
    for framework, pattern in _SUMMARIES:
        for match in pattern.finditer(text):
            ran = int(match.group("n")) if "n" in pattern.groupindex else 0
            found.append((match.start(), framework, ran))
    if not found:
        return None
    found.sort()
    return found[0][1], sum(n for _, _, n in found)


def case_name(name: str) -> str:
    """A GoogleTest case as it is, disabled or not: disabling is the skip rows' business."""
    return _DISABLED.sub(r"\1", name)


def read(
    report: CtestReport,
    outputs: Mapping[str, str],
    *,
    cut: Iterable[str] = (),
    count: bool = True,
) -> Cases:
    """The cases of one run: `outputs` is each ctest test's output as ctest kept it, `cut` the
    tests whose output it cut short; `count` false when ctest cannot keep whole outputs."""
    cases = Cases(
        executables=dict(report.executables),
        gtest={
            exe: sorted({case_name(n) for n in names})
            for exe, names in report.gtest_by_executable.items()
        },
    )
    if not count:
        return cases
    shortened = set(cut)
    for test in report.listed:
        if test in shortened:
            cases.uncounted.append(test)
            continue
        said = summary(outputs.get(test, ""))
        if said is not None:
            cases.framework[test], cases.counted[test] = said
    return cases


def varied(runs: Sequence[Cases | None]) -> list[str]:
    """Executables and ctest tests whose cases differ between runs at the SHA: flaky, never
    judged."""
    known = [r for r in runs if r is not None]
    if len(known) < 2:
        return []
    first, out = known[0], set()
    for other in known[1:]:
        for exe in set(first.gtest) | set(other.gtest):
            if first.gtest.get(exe) != other.gtest.get(exe):
                out.add(exe)
        for test in set(first.counted) | set(other.counted):
            if first.counted.get(test) != other.counted.get(test):
                out.add(test)
    return sorted(out)


def lost(before: Cases, after: Cases, outcomes: Mapping[str, Outcome]) -> list[str]:
    """Cases that ran at the SHA and no longer run, inside ctest tests that all still pass:
    `TEST::CASE` for GoogleTest (the executable's name when several ctest tests run it), and
    `TEST::<K of N Catch2 test cases no longer run>` for a count."""
    out: list[str] = []
    for exe, names in before.gtest.items():
        if exe in before.varied:
            continue
        owners = sorted(
            {t for t, e in before.executables.items() if e == exe}
            | {t for t, e in after.executables.items() if e == exe}
        )
        present = [t for t in owners if t in outcomes]
        if not present or any(outcomes[t] != "passed" for t in present):
            continue
        where = owners[0] if len(owners) == 1 else exe
        gone = sorted(set(names) - set(after.gtest.get(exe, [])))
        out += [f"{where}::{name}" for name in gone]
    for test, ran in before.counted.items():
        if test in before.varied or test in after.uncounted or outcomes.get(test) != "passed":
            continue
        # No summary at all where the SHA printed one: nothing it could count ran.
        now = after.counted.get(test, 0)
        if now < ran:
            framework = before.framework.get(test, "test")
            out.append(f"{test}::<{ran - now} of {ran} {framework} test cases no longer run>")
    return sorted(out)
