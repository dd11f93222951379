"""The SHA's instrumented run starts beside its plain run, in a copy of the checkout taken before
either ran (baseline.instrumented_beside), run for real on small Python projects."""

from __future__ import annotations

from pathlib import Path

import pytest

from patchwitness import baseline as baselines
from patchwitness.demo import build
from patchwitness.settings import Settings
from patchwitness.suites.python import COVERAGE_PY, LINE_PROBES

from .test_baseline_moved import baseline_at

pytestmark = pytest.mark.slow

FILES = {
    "pkg/__init__.py": "",
    "pkg/a.py": "def a():\n    return 0  # the bug: 1\n",
    "tests/test_a.py": "from pkg.a import a\n\n\ndef test_a():\n    assert a() == 1\n",
}
# A test that leaves a file in its tree and fails where it finds one: a second run in the same
# tree would be red for the leftover, never for the grader's instrumentation.
LEAVES_A_FILE = (
    "import pathlib\n\n"
    'MARK = pathlib.Path(__file__).parent / "ran-here-before"\n\n\n'
    "def test_first_run_in_this_tree():\n"
    "    assert not MARK.exists()\n"
    '    MARK.write_text("x")\n'
)
# A test that sees the line probes: they may not stand in for the plain run, coverage.py may.
SEES_THE_PROBES = (
    'import sys\n\n\ndef test_no_line_probes():\n    assert "pw_lines" not in sys.modules\n'
)


def baseline_of(tmp_path: Path, files: dict[str, str]) -> baselines.Baseline:
    """The baseline of a repository of `files`, its failing test tests/test_a.py::test_a."""
    sha = build.make_repo(tmp_path / "repo", files)
    return baseline_at(tmp_path, sha, Settings(cache=tmp_path / "cache"))


def test_a_suite_that_leaves_files_in_its_tree_keeps_the_line_probes(tmp_path):
    base = baseline_of(tmp_path, {**FILES, "tests/test_leaves.py": LEAVES_A_FILE})
    assert base.instrumentation == LINE_PROBES, base.coverage_trials
    assert base.coverage_trials == ["line probes: used"]
    key = "tests/test_leaves.py::test_first_run_in_this_tree"
    assert base.outcomes[key] == base.instrumented_outcomes[key] == "passed"
    # The copy the instrumented run had is gone; the source repository has no leftover.
    assert not (tmp_path / "repo" / "tests" / "ran-here-before").exists()


def test_an_instrumentation_a_test_sees_is_passed_over_for_the_next(tmp_path):
    base = baseline_of(tmp_path, {**FILES, "tests/test_sees.py": SEES_THE_PROBES})
    assert base.instrumentation == COVERAGE_PY, base.coverage_trials
    assert base.coverage_trials[0].startswith("line probes: ")
    assert "test_no_line_probes" in base.coverage_trials[0]
    assert base.coverage_trials[1] == "coverage.py: used"
    assert base.instrumented_outcomes["tests/test_sees.py::test_no_line_probes"] == "passed"
