"""Per-test outcomes from the probe's JSON lines, and what counts as tampering."""

from __future__ import annotations

import json

import pytest

from patchwitness.outcomes.pytest_probe import outcome_of, parse_probe


@pytest.mark.parametrize(
    ("phases", "outcome"),
    [
        (
            {"setup": ("passed", False), "call": ("passed", False), "teardown": ("passed", False)},
            "passed",
        ),
        (
            {"setup": ("passed", False), "call": ("failed", False), "teardown": ("passed", False)},
            "failed",
        ),
        ({"setup": ("failed", False), "teardown": ("passed", False)}, "error"),
        ({"setup": ("skipped", False), "teardown": ("passed", False)}, "skipped"),
        ({"setup": ("skipped", True), "teardown": ("passed", False)}, "xfailed"),
        (
            {"setup": ("passed", False), "call": ("skipped", True), "teardown": ("passed", False)},
            "xfailed",
        ),
        (
            {"setup": ("passed", False), "call": ("passed", True), "teardown": ("passed", False)},
            "xpassed",
        ),
        (
            {"setup": ("passed", False), "call": ("skipped", False), "teardown": ("passed", False)},
            "skipped",
        ),
        (
            {"setup": ("passed", False), "call": ("passed", False), "teardown": ("failed", False)},
            "error",
        ),
        ({"setup": ("passed", False)}, "missing"),  # died during the call
        ({"setup": ("passed", False), "call": ("passed", False)}, "missing"),  # died after
        ({}, "missing"),
    ],
)
def test_outcome_of(phases, outcome):
    assert outcome_of(phases) == outcome


def lines(*events) -> bytes:
    return "".join(json.dumps(e) + "\n" for e in events).encode()


def report(nodeid, when, outcome, xfail=False):
    return {"event": "report", "id": nodeid, "when": when, "outcome": outcome, "xfail": xfail}


def full(nodeid, call="passed"):
    return [
        report(nodeid, "setup", "passed"),
        report(nodeid, "call", call),
        report(nodeid, "teardown", "passed"),
    ]


def test_a_clean_run():
    data = lines(
        {"event": "start"},
        {"event": "collected", "ids": ["t::a", "t::b"]},
        *full("t::a"),
        *full("t::b", "failed"),
        {"event": "finish", "exitstatus": 1},
    )
    parsed = parse_probe(data)
    assert parsed.outcomes == {"t::a": "passed", "t::b": "failed"}
    assert parsed.problems == [] and parsed.tamper == []
    assert parsed.exitstatus == 1


def test_collected_but_never_reported_is_missing():
    data = lines({"event": "start"}, {"event": "collected", "ids": ["t::a", "t::b"]}, *full("t::a"))
    parsed = parse_probe(data)
    assert parsed.outcomes == {"t::a": "passed", "t::b": "missing"}
    assert any("did not finish" in p for p in parsed.problems)


def test_report_for_an_uncollected_test_is_tamper():
    data = lines(
        {"event": "start"},
        {"event": "collected", "ids": ["t::a"]},
        *full("t::a"),
        *full("t::ghost"),
        {"event": "finish", "exitstatus": 0},
    )
    parsed = parse_probe(data)
    assert "t::ghost" not in parsed.outcomes
    assert parsed.tamper == ["report names a test that was never collected: t::ghost"]


def test_a_second_report_for_a_phase_is_tamper_and_the_failure_stands():
    data = lines(
        {"event": "start"},
        {"event": "collected", "ids": ["t::a"]},
        report("t::a", "setup", "passed"),
        report("t::a", "call", "failed"),
        report("t::a", "call", "passed"),
        report("t::a", "teardown", "passed"),
        {"event": "finish", "exitstatus": 0},
    )
    parsed = parse_probe(data)
    assert parsed.outcomes == {"t::a": "failed"}
    assert parsed.tamper == ["two call reports for t::a"]


def test_reruns_are_not_tamper():
    data = lines(
        {"event": "start"},
        {"event": "collected", "ids": ["t::a"]},
        report("t::a", "setup", "passed"),
        report("t::a", "call", "rerun"),
        *full("t::a"),
        {"event": "finish", "exitstatus": 0},
    )
    parsed = parse_probe(data)
    assert parsed.outcomes == {"t::a": "passed"}
    assert parsed.reruns == ["t::a"]


def test_nothing_at_all_is_a_problem_not_a_pass():
    parsed = parse_probe(b"")
    assert parsed.outcomes == {}
    assert not parsed.started
    assert any("never started" in p for p in parsed.problems)


def test_garbage_lines_are_problems():
    parsed = parse_probe(b'{"event": "start"}\nnot json\n{"event": "weird"}\n')
    assert len(parsed.problems) == 3  # two bad lines, and the session never finished


def test_hooks_and_deselection_are_kept():
    data = lines(
        {"event": "start"},
        {"event": "deselected", "ids": ["t::x"]},
        {
            "event": "collected",
            "ids": [],
            "hooks": {"pytest_runtest_makereport": ["tests/conftest.py"]},
        },
        {"event": "finish", "exitstatus": 5},
    )
    parsed = parse_probe(data)
    assert parsed.deselected == ["t::x"]
    assert parsed.hooks == {"pytest_runtest_makereport": ["tests/conftest.py"]}
    assert parsed.exitstatus == 5


def subtest(nodeid, outcome, xfail=False, **kwargs):
    event = report(nodeid, "call", outcome, xfail)
    event["subtest"] = {"msg": None, "kwargs": {k: str(v) for k, v in kwargs.items()}}
    return event


def with_subtests(*subtests, call="passed"):
    return lines(
        {"event": "start"},
        {"event": "collected", "ids": ["t::a"]},
        report("t::a", "setup", "passed"),
        *subtests,
        report("t::a", "call", call),
        report("t::a", "teardown", "passed"),
        {"event": "finish", "exitstatus": 0},
    )


def test_subtests_are_their_tests_own_reports():
    parsed = parse_probe(with_subtests(*(subtest("t::a", "passed", i=i) for i in range(3))))
    assert parsed.outcomes == {"t::a": "passed"}
    assert parsed.problems == [] and parsed.tamper == []


@pytest.mark.parametrize(
    ("outcomes", "outcome"),
    [
        ((("passed", False), ("failed", False), ("passed", False)), "failed"),
        ((("passed", False), ("skipped", False)), "skipped"),
        ((("skipped", True),), "xfailed"),
        ((("failed", False), ("skipped", False)), "failed"),
        ((("rerun", False),), "failed"),  # a failure that asked for a rerun that never came
    ],
)
def test_a_test_passes_only_when_every_subtest_passes(outcomes, outcome):
    # pytest calls a unittest test passed when only its subtests failed: its own call passed.
    events = (subtest("t::a", o, xfail, i=i) for i, (o, xfail) in enumerate(outcomes))
    parsed = parse_probe(with_subtests(*events))
    assert parsed.outcomes == {"t::a": outcome}
    assert parsed.tamper == []


def test_a_subtest_never_stands_in_for_its_tests_own_report():
    data = lines(
        {"event": "start"},
        {"event": "collected", "ids": ["t::a"]},
        report("t::a", "setup", "passed"),
        subtest("t::a", "passed"),
        report("t::a", "teardown", "passed"),
        {"event": "finish", "exitstatus": 0},
    )
    assert parse_probe(data).outcomes == {"t::a": "missing"}


def test_a_second_call_report_beside_subtests_is_still_tamper():
    forged = report("t::a", "call", "passed")
    parsed = parse_probe(with_subtests(subtest("t::a", "passed"), forged, call="failed"))
    assert parsed.outcomes == {"t::a": "failed"}
    assert parsed.tamper == ["two call reports for t::a"]


def test_subtests_of_an_uncollected_test_are_tamper():
    parsed = parse_probe(with_subtests(subtest("t::ghost", "passed")))
    assert "t::ghost" not in parsed.outcomes
    assert parsed.tamper == ["report names a test that was never collected: t::ghost"]


def test_a_rerun_drops_the_subtests_of_the_attempt_it_repeats():
    data = lines(
        {"event": "start"},
        {"event": "collected", "ids": ["t::a"]},
        report("t::a", "setup", "passed"),
        subtest("t::a", "failed"),
        report("t::a", "call", "rerun"),
        subtest("t::a", "passed"),
        report("t::a", "call", "passed"),
        report("t::a", "teardown", "passed"),
        {"event": "finish", "exitstatus": 0},
    )
    parsed = parse_probe(data)
    assert parsed.outcomes == {"t::a": "passed"}
    assert parsed.reruns == ["t::a"] and parsed.tamper == []


def body(nodeid, ended):
    return {"event": "body", "id": nodeid, "ended": ended}


@pytest.mark.parametrize(
    ("events", "contradiction"),
    [
        # the body raised, the report says passed: changed on its way
        ([body("t::a", "raised")], "t::a is reported passed, but its body raised"),
        # no body ran for a watched test that reports passed: the report was made up
        ([], "t::a is reported passed, but its body never ran"),
        # the body's own ending agrees with the report
        ([body("t::a", "returned")], None),
        # a rerun: the last ending stands
        ([body("t::a", "raised"), body("t::a", "returned")], None),
    ],
)
def test_a_report_is_checked_against_how_the_body_ended(events, contradiction):
    data = lines(
        {"event": "start"},
        {"event": "collected", "ids": ["t::a"], "watched": ["t::a"]},
        *events,
        *full("t::a"),
        {"event": "finish", "exitstatus": 0},
    )
    parsed = parse_probe(data)
    assert parsed.tamper == ([contradiction] if contradiction else [])


def test_a_failed_report_of_a_body_that_raised_is_no_contradiction():
    data = lines(
        {"event": "start"},
        {"event": "collected", "ids": ["t::a", "t::b"], "watched": ["t::a"]},
        body("t::a", "raised"),
        *full("t::a", "failed"),
        *full("t::b"),  # not watched (the probe could not wrap it): no claim either way
        {"event": "finish", "exitstatus": 1},
    )
    assert parse_probe(data).tamper == []


REWRITER = """\
import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    outcome.get_result().outcome = "passed"
"""
# Below the runtest watch: the test function's exception swallowed where pytest calls it.
SWALLOWER = """\
import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_pyfunc_call(pyfuncitem):
    outcome = yield
    outcome.force_result(True)
"""
TESTS = """\
import unittest


def test_fails():
    assert 1 == 2


def test_skips():
    import pytest
    pytest.skip("no")


class Case(unittest.TestCase):
    def test_unit_fails(self):
        self.assertEqual(1, 2)

    def test_sub(self):
        for n in (1, 2):
            with self.subTest(n=n):
                self.assertEqual(n, 1)
"""


@pytest.mark.parametrize("rewrite", [False, True, "swallow"])
def test_the_real_probe_watches_bodies_past_every_hook(tmp_path, rewrite):
    """The real plugin in a real pytest: honest runs (a failing subtest of a passing unittest
    case included) say nothing; a plugin that rewrites every report to passed is caught by
    the bodies."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    import patchwitness

    (tmp_path / "test_x.py").write_text(TESTS)
    (tmp_path / "rewriter.py").write_text(REWRITER)
    (tmp_path / "swallower.py").write_text(SWALLOWER)
    out = tmp_path / "probe.jsonl"
    with out.open("wb") as sink:
        env = {
            **os.environ,
            "PW_PROBE_FD": str(sink.fileno()),
            "PYTHONPATH": os.pathsep.join(
                [(Path(patchwitness.__file__).parent / "probe").as_posix(), str(tmp_path)]
            ),
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        }
        command = [sys.executable, "-m", "pytest", "-q", "-p", "pw_probe", "-p", "no:cacheprovider"]
        if rewrite:
            command += ["-p", "swallower" if rewrite == "swallow" else "rewriter"]
        subprocess.run(
            command,
            cwd=tmp_path,
            env=env,
            pass_fds=(sink.fileno(),),
            timeout=120,
            capture_output=True,
        )
    parsed = parse_probe(out.read_bytes())
    if not rewrite:
        assert parsed.tamper == []
        assert parsed.outcomes["test_x.py::test_fails"] == "failed"
        assert parsed.outcomes["test_x.py::Case::test_sub"] == "failed"  # by its subtest
    elif rewrite == "swallow":
        said = " ".join(parsed.tamper)
        assert "test_x.py::test_fails is reported passed, but its body raised" in said
    else:
        said = " ".join(parsed.tamper)
        assert "test_x.py::test_fails is reported passed, but its body raised" in said
        assert "test_x.py::Case::test_unit_fails is reported passed, but its body raised" in said
        assert "test_skips" not in said  # a skip is no failure the report hid


def test_the_files_the_run_wrote_reach_the_grader():
    """What the open audit saw written, and the modules imported from such files: the
    self-written check reads them (a key the parser drops is a check that never fires)."""
    event = {
        "event": "loaded",
        "modules": ["/t/pkg/a.py"],
        "written": ["/t/pkg/a.py"],
        "written_modules": ["/tmp/x/_made.py"],
    }
    report = parse_probe((json.dumps(event) + "\n").encode())
    assert report.loaded is not None
    assert report.loaded["written"] == ["/t/pkg/a.py"]
    assert report.loaded["written_modules"] == ["/tmp/x/_made.py"]
