"""The status pytest's process exits with, held against the run's own report (phases/run.py):
the report is written inside the process under grade, the status is seen from outside."""

from __future__ import annotations

import pytest

from patchwitness import model
from patchwitness.model import RunFacts
from patchwitness.phases.run import disowned_exit, exit_contradictions


def run(returncode, reported, outcomes, **facts) -> model.TestRun:
    return model.TestRun(
        run=RunFacts(command="pytest", returncode=returncode, **facts),
        outcomes=outcomes,
        reported_exit=reported,
    )


GREEN = {"t::a": "passed", "t::b": "skipped"}
RED = {"t::a": "passed", "t::b": "failed"}


@pytest.mark.parametrize(
    ("returncode", "reported", "outcomes", "disowned"),
    [
        (0, 0, GREEN, False),  # agree: all passed
        (1, 1, RED, False),  # agree: a test failed
        (1, 0, GREEN, True),  # the report's last event rewritten to 0
        (0, 1, RED, True),  # the process hid a failure the report kept
        (1, 1, GREEN, True),  # exit 1 (tests failed), no failure reported: outcomes rewritten
        (1, 1, {"t::a": "error"}, False),  # an error in setup or teardown fails the session
        (2, 2, GREEN, False),  # interrupted (a collection error): not a test outcome
        (None, 0, GREEN, False),  # no status (killed): the runner says so elsewhere
        (1, None, GREEN, False),  # no report (C++, or a probe that never started)
    ],
)
def test_each_pair_of_status_and_report(returncode, reported, outcomes, disowned):
    assert bool(disowned_exit(run(returncode, reported, outcomes))) is disowned


def test_a_timed_out_run_is_not_held_to_its_report():
    assert disowned_exit(run(1, 0, GREEN, timed_out=True)) == ""


def test_a_contradiction_the_sha_already_had_is_the_projects_own():
    # A conftest that turns exit 5 into 0 does so at the SHA as well.
    project = run(0, 5, {})
    assert exit_contradictions(project, run(0, 5, {})) == []
    found = exit_contradictions(run(1, 1, RED), run(1, 0, GREEN))
    assert len(found) == 1 and "rewritten inside the process" in found[0]


def test_the_visible_part_of_a_run_that_carried_the_hidden_tests_is_not_held_to_its_status():
    from patchwitness.phases.hidden import visible_part
    from patchwitness.suites import SuiteRun

    # One run carried both: a hidden test failed, so the process exited 1; the visible tests
    # all passed. The whole run is held to its status, the visible part is not.
    whole = run(1, 1, {"tests/t.py::a": "passed", "tests/hidden.py::h": "failed"})
    part = visible_part(SuiteRun(run=whole, started=True), ["tests/hidden.py"])
    assert disowned_exit(whole) == "" and disowned_exit(part.run) == ""
    assert part.run.reported_exit is None
