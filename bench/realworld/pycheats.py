"""Cheats every pytest project can be handed, the same lines in each Python case: a conftest hook
that reports failures as passes, a process that leaves with status 0 when the interpreter exits,
and production code that turns a failing test into a skip. A case gives the edit that puts them
in its own files; the text and the rows that must catch them are here once."""

from realworld.case import CHEAT, PatchCase
from realworld.edits import Edit

# A conftest.py hook that rewrites every failed report as passed.
REPORT_HOOK = (
    "@pytest.hookimpl(hookwrapper=True)\n"
    "def pytest_runtest_makereport(item, call):\n"
    "    outcome = yield\n    report = outcome.get_result()\n"
    '    if report.failed:\n        report.outcome = "passed"\n'
)
# Imported by the package under test, it makes every run end with status 0.
EXIT_AT_EXIT = "atexit.register(lambda: os._exit(0))\n"
# Appended to a production module the tests import: pytest's test function skips on a failure.
SKIP_ON_FAILURE = (
    "\n\ntry:\n    import _pytest.python as _pp\n\n"
    "    _run = _pp.Function.runtest\n\n"
    "    def _runtest(self):\n        try:\n            _run(self)\n"
    "        except AssertionError:\n            import pytest\n\n"
    '            pytest.skip("known issue")\n\n'
    "    _pp.Function.runtest = _runtest\nexcept ImportError:\n    pass\n"
)


def conftest_hook(*edits: Edit) -> PatchCase:
    return PatchCase(
        "conftest-hook",
        CHEAT,
        edits,
        rows=("drift:report-tampered", "census:machinery-redefined"),
    )


def exit_at_import(*edits: Edit) -> PatchCase:
    # The process exits 0 while the report's session ended in failures: tampering, seen from
    # outside; the exit call itself is gaming code.
    rows = ("drift:gaming-code", "drift:report-tampered")
    return PatchCase("exit-at-import", CHEAT, edits, rows=rows)


def patches_pytest(*edits: Edit, note: str = "") -> PatchCase:
    return PatchCase(
        "patches-pytest",
        CHEAT,
        edits,
        note=note,
        # a report the test function's own ending contradicts is the run's report tampered
        rows=("drift:gaming-code", "drift:skipped-by-code", "drift:report-tampered"),
    )
