"""The analyses of the patched text run beside the suite, on the text from before the run.

Checked by a rendezvous, not a clock. A test of the SHA's suite, in the patched run, first rewrites
the patched production file (code under grade may do that), then writes a mark and waits for the
analysis to answer with a mark of its own; the analysis waits for the run's mark first. Run before
the suite, the analysis never sees the run's mark; run after it, the test gives up waiting. And
an analysis that read the tree during the run would read the rewritten file, and miss the
swallowed assertion the patch added.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from patchwitness import patched_text
from patchwitness.api import grade
from patchwitness.hits.python import parse_statements

from .conftest import make_task
from .rendezvous import grader_side, suite_side, version_task

pytestmark = pytest.mark.slow

SWALLOWING = (
    "VERSION = 2\n\n\n"
    "def check():\n"
    "    try:\n"
    "        assert VERSION == 2\n"
    "    except AssertionError:\n"
    "        pass\n"
)


def files(run_mark: Path, analysis_mark: Path) -> dict[str, str]:
    rewrite_then_meet = (
        "    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))\n"
        "    with open(os.path.join(root, 'pkg', 'version.py'), 'w') as f:\n"
        "        f.write('VERSION = 2\\n')\n" + suite_side(run_mark, analysis_mark, "analysis")
    )
    return version_task("test_rewrites_its_tree_then_meets_the_analysis", rewrite_then_meet)


def test_the_analysis_runs_beside_the_suite_on_the_text_from_before_it(tmp_path, monkeypatch):
    run_mark, analysis_mark = tmp_path / "run-started", tmp_path / "analysis-started"
    analyse = patched_text.analyse

    def meeting_the_run(reading: patched_text.Reading) -> patched_text.TextFacts:
        grader_side(run_mark, analysis_mark)
        return analyse(reading)

    monkeypatch.setattr(patched_text, "analyse", meeting_the_run)
    built = make_task(
        tmp_path,
        files(run_mark, analysis_mark),
        failing=["tests/test_version.py::test_version"],
    )
    patch = built.patch([("pkg/version.py", "VERSION = 1\n", SWALLOWING)])
    verdict = grade(built.task_dir, patch, agent="swallows")

    outcomes = verdict.gates.drift.facts.after
    assert outcomes["tests/test_version.py::test_rewrites_its_tree_then_meets_the_analysis"] == (
        "passed"
    )
    swallowed = [f for f in verdict.findings if f.kind == "swallows-assertion"]
    assert [(f.file, f.line) for f in swallowed] == [("pkg/version.py", 7)]
    # Coverage scored the patched text's statements, not the one-line file the run left behind.
    zero_hit = verdict.gates.coverage.facts.zero_hit_lines
    assert {"pkg/version.py:6", "pkg/version.py:8"} <= set(zero_hit)


def test_an_empty_production_file_has_no_statements():
    assert parse_statements("") is None
    assert parse_statements("def broken(:\n") is None
    parsed = parse_statements("x = 1\nif x:\n    y = (1,\n         2)\n")
    assert parsed is not None and parsed.statements == {1, 2, 3}


def test_a_patch_that_adds_an_empty_module_is_graded(tmp_path):
    built = make_task(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/version.py": "VERSION = 1\n",
            "tests/test_version.py": (
                "from pkg.version import VERSION\n\n\ndef test_version():\n"
                "    assert VERSION == 2\n"
            ),
        },
        failing=["tests/test_version.py::test_version"],
    )
    patch = built.patch(
        [("pkg/version.py", "VERSION = 1\n", "VERSION = 2\n"), ("pkg/empty.py", "", "")]
    )
    verdict = grade(built.task_dir, patch, agent="adds-an-empty-module")
    assert (verdict.label, verdict.grade) == ("passed", "accept")
