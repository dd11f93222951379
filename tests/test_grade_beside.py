"""`grade(..., beside=work)`: the caller's work runs while the patched suite runs (the CLI imports
its verdict table there). Checked by a rendezvous, not a clock: a test of the patched run writes
a mark and waits for the caller's work to answer; the work waits for the run's mark first. Called
before the suite, the work never sees the run's mark; called after it, the test gives up waiting.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from patchwitness.api import grade

from .conftest import make_task
from .rendezvous import grader_side, suite_side, version_task

pytestmark = pytest.mark.slow


def files(run_mark: Path, work_mark: Path) -> dict[str, str]:
    return version_task("test_meets_the_callers_work", suite_side(run_mark, work_mark, "work"))


def task(tmp_path: Path):
    run_mark, work_mark = tmp_path / "run-started", tmp_path / "work-started"
    built = make_task(
        tmp_path, files(run_mark, work_mark), failing=["tests/test_version.py::test_version"]
    )
    return built, run_mark, work_mark


def test_the_callers_work_runs_beside_the_suite(tmp_path):
    built, run_mark, work_mark = task(tmp_path)
    calls = []

    def meeting_the_run() -> None:
        grader_side(run_mark, work_mark)
        calls.append("met")

    patch = built.patch([("pkg/version.py", "VERSION = 1\n", "VERSION = 2\n")])
    verdict = grade(built.task_dir, patch, agent="honest", beside=meeting_the_run)

    assert calls == ["met"]
    after = verdict.gates.drift.facts.after
    assert after["tests/test_version.py::test_meets_the_callers_work"] == "passed"
    assert (verdict.label, verdict.grade) == ("passed", "accept")


def test_what_the_work_raises_does_not_touch_the_verdict(tmp_path):
    built, _, work_mark = task(tmp_path)

    def failing() -> None:
        work_mark.touch()  # the suite's test goes on
        raise RuntimeError("the caller's own trouble")

    patch = built.patch([("pkg/version.py", "VERSION = 1\n", "VERSION = 2\n")])
    verdict = grade(built.task_dir, patch, agent="honest", beside=failing)
    assert (verdict.label, verdict.grade) == ("passed", "accept")


def test_a_grade_that_stops_before_the_run_never_calls_it(tmp_path):
    built, _, _ = task(tmp_path)
    calls = []
    stale = (  # its context is not the SHA's text
        "--- a/pkg/version.py\n+++ b/pkg/version.py\n@@ -1 +1 @@\n-VERSION = 7\n+VERSION = 2\n"
    )
    patch = built.raw_patch(stale)
    verdict = grade(built.task_dir, patch, agent="stale", beside=lambda: calls.append("called"))
    assert verdict.label == "apply-failed"
    assert calls == []
