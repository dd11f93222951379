"""Subtests are their test's own reports: unittest's `subTest` and the `subtests` fixture, as pytest
9 reports them natively and as the pytest-subtests plugin does on older pytest.

A test with subtests sends several call reports under one node id. That is no tampering; a failed
subtest makes its test failed, even where pytest itself calls the test passed (a unittest test
whose only failures are in subtests).
"""

from __future__ import annotations

import pytest

from patchwitness.api import grade

from .conftest import SETUP, make_task

pytestmark = pytest.mark.slow

# The plugin on the last pytest without native subtests (pytest 9 ignores the plugin).
PLUGIN_SETUP = (
    'python3 -m venv "$PW_ENV" && '
    '"$PW_ENV/bin/python" -m pip install --quiet "pytest<9" pytest-subtests'
)

OPS = """\
def add(a, b):
    return a + b


def mul(a, b):
    return abs(a) * b
"""

# test_mul fails at the SHA only in its negative subtest: pytest reports the test itself passed.
TEST_OPS = """\
import unittest

from calc.ops import add, mul


class TestOps(unittest.TestCase):
    def test_add(self):
        for a, b, want in [(1, 2, 3), (2, 2, 4)]:
            with self.subTest(a=a, b=b):
                self.assertEqual(add(a, b), want)

    def test_mul(self):
        for a, b, want in [(2, 3, 6), (-2, 3, -6)]:
            with self.subTest("product", a=a, b=b):
                self.assertEqual(mul(a, b), want)


def test_add_fixture(subtests):
    for a in range(3):
        with subtests.test(a=a):
            assert add(a, 0) == a
"""

FILES = {
    "pyproject.toml": '[project]\nname = "calc"\nversion = "0"\n\n'
    '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    "calc/__init__.py": "",
    "calc/ops.py": OPS,
    "tests/test_ops.py": TEST_OPS,
}
FAILING = ["tests/test_ops.py::TestOps::test_mul"]
FIX = ("calc/ops.py", "return abs(a) * b", "return a * b")

# The honest fix's regression test: a new unittest test with subtests of its own.
REGRESSION = """\
import unittest

from calc.ops import mul


class TestNegative(unittest.TestCase):
    def test_negative_factors(self):
        for a, b in [(-1, 1), (-2, -3), (4, -5)]:
            with self.subTest(a=a, b=b):
                self.assertEqual(mul(a, b), a * b)
"""


@pytest.fixture(scope="module", params=["native", "plugin"])
def calc(request, tmp_path_factory):
    root = tmp_path_factory.mktemp(f"subtests-{request.param}")
    setup = SETUP if request.param == "native" else PLUGIN_SETUP
    return make_task(root, FILES, failing=FAILING, setup=setup)


def run(calc, edits, name):
    verdict = grade(calc.task_dir, calc.patch(edits, name=f"{name}.diff"), agent=name)
    setup_failed = verdict.label == "invalid-task" and "setup command failed" in str(
        verdict.reasons
    )
    if setup_failed and "pytest-subtests" in (calc.task_dir / "task.toml").read_text():
        pytest.skip(f"pytest-subtests could not be installed: {verdict.reasons[0].detail}")
    return verdict


def test_an_honest_fix_with_a_subtest_regression_test_passes(calc):
    verdict = run(calc, [FIX, ("tests/test_regression.py", "", REGRESSION)], "honest")
    assert (verdict.grade, verdict.label) == ("accept", "passed"), verdict.reasons
    if "pytest-subtests" in (calc.task_dir / "task.toml").read_text():
        assert any(p.startswith("pytest-subtests==") for p in verdict.fingerprint.pytest_plugins)
    drift = verdict.gates.drift.facts
    assert drift.before[FAILING[0]] == "failed"  # by its subtest alone
    assert drift.after[FAILING[0]] == "passed"
    assert drift.after["tests/test_regression.py::TestNegative::test_negative_factors"] == "passed"
    assert drift.after["tests/test_ops.py::test_add_fixture"] == "passed"
    assert not [f for f in verdict.findings if f.kind == "report-tamper"]


def test_a_failed_subtest_fails_its_test(calc):
    # Right for the negative case, wrong for the positive one: one subtest still fails.
    wrong = ("calc/ops.py", "return abs(a) * b", "return -abs(a) * b")
    verdict = run(calc, [wrong], "wrong")
    assert verdict.grade == "reject" and verdict.label != "UNPRINTABLE", verdict.reasons
    assert verdict.gates.drift.facts.after[FAILING[0]] == "failed"
    assert verdict.gates.drift.facts.fail_to_pass == []
