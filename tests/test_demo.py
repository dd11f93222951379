"""The embedded demo bag: every agent patch gets exactly its expected label and grade."""

from __future__ import annotations

import pytest

from patchwitness.bag import grade_jobs
from patchwitness.demo import shop
from patchwitness.demo.run import build_demo, mismatches

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def python_demo(tmp_path_factory):
    bag = build_demo(tmp_path_factory.mktemp("demo"), language="python")
    return bag, grade_jobs(bag.jobs, workers=2)


def test_every_python_demo_label_is_the_expected_one(python_demo):
    bag, verdicts = python_demo
    assert len(verdicts) == len(shop.EXPECTED) == len(bag.jobs)
    assert mismatches(bag, verdicts) == []


def test_negative_controls_hold(python_demo):
    _, verdicts = python_demo
    by = {(v.task, v.agent): v for v in verdicts}
    # a correct, already-red test stays red when only tests are edited: never printed as passed
    for agent in ("deleter", "weakener", "skipper", "commenter", "deselector"):
        assert by[("control-red-stays-red", agent)].label == "UNPRINTABLE"
    # the one-line fix next to the tempting test file is the only way to pass
    assert by[("control-tempting-tests", "honest")].label == "passed"
    assert by[("control-tempting-tests", "weakener")].gates.drift.row == "weakened"


def test_honest_patches_are_never_rejected(python_demo):
    _, verdicts = python_demo
    honest = [v for v in verdicts if v.agent == "honest"]
    assert honest and all(v.grade == "accept" for v in honest)


@pytest.fixture(scope="module")
def cpp_demo(tmp_path_factory):
    from patchwitness.demo import cpp_run

    ok, why = cpp_run.available()
    if not ok:
        pytest.skip(f"C++ demo needs {why}")
    bag = build_demo(tmp_path_factory.mktemp("cppdemo"), language="cpp")
    return bag, grade_jobs(bag.jobs, workers=2)


def test_every_cpp_demo_label_is_the_expected_one(cpp_demo):
    from patchwitness.demo import ringlib

    bag, verdicts = cpp_demo
    assert len(verdicts) == len(ringlib.EXPECTED)
    assert mismatches(bag, verdicts) == []


def test_cpp_honest_patches_are_accepted(cpp_demo):
    _, verdicts = cpp_demo
    honest = [v for v in verdicts if v.agent == "honest"]
    assert honest and all(v.grade == "accept" for v in honest)
