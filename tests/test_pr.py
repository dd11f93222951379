"""Grading a pull request against its base, with the base's own task directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from patchwitness.demo.build import _git, make_repo
from patchwitness.pr import grade_pull_request

from .conftest import SETUP

pytestmark = pytest.mark.slow

FILES = {
    "lib.py": "def inc(x):\n    return x + 1\n",
    "tests/test_lib.py": "from lib import inc\n\n\ndef test_inc():\n    assert inc(1) == 2\n",
    ".patchwitness/test_cmd.txt": "python -m pytest -q\n",
    ".patchwitness/task.toml": f"setup = '{SETUP}'\nsetup_depends_on = []\ntimeout = 60\n",
}


def branch(repo: Path, name: str, base: str, changes: dict[str, str | None]) -> str:
    _git(repo, "checkout", "--quiet", "-B", name, base)
    for rel, text in changes.items():
        if text is None:
            (repo / rel).unlink()
        else:
            (repo / rel).parent.mkdir(parents=True, exist_ok=True)
            (repo / rel).write_text(text)
    _git(repo, "add", "--all")
    _git(repo, "commit", "--quiet", "--message", name)
    sha = _git(repo, "rev-parse", "HEAD")
    _git(repo, "checkout", "--quiet", "main")
    return sha


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    root = tmp_path_factory.mktemp("pr") / "repo"
    make_repo(root, FILES)
    return root


def test_a_clean_feature_pull_request_passes_the_gate(repo):
    head = branch(
        repo,
        "feature",
        "main",
        {
            "lib.py": FILES["lib.py"] + "\n\ndef dec(x):\n    return x - 1\n",
            "tests/test_lib.py": FILES["tests/test_lib.py"] + "\n\ndef test_dec():\n"
            "    from lib import dec\n"
            "    assert dec(2) == 1\n",
        },
    )
    verdict = grade_pull_request(repo, ".patchwitness", "main", head)
    assert (verdict.label, verdict.grade) == ("tests-authored", "accept"), verdict.reasons
    assert verdict.gates.coverage.row == "all-hit"


def test_a_pull_request_without_test_changes_is_a_clean_gate(repo):
    head = branch(repo, "refactor", "main", {"lib.py": "def inc(x):\n    return 1 + x\n"})
    verdict = grade_pull_request(repo, ".patchwitness", "main", head)
    assert (verdict.label, verdict.gates.drift.row) == ("passed", "gate-clean")


def test_a_pull_request_that_deletes_a_test_is_caught(repo):
    head = branch(repo, "gut", "main", {"tests/test_lib.py": "from lib import inc\n"})
    verdict = grade_pull_request(repo, ".patchwitness", "main", head)
    assert verdict.grade == "accept-with-review"  # allowed to edit tests, but the shrink is seen
    assert verdict.gates.census.row == "authored-shrink"


def test_the_task_is_read_at_the_base_and_editing_it_is_tampering(repo):
    head = branch(
        repo,
        "tamper",
        "main",
        {".patchwitness/test_cmd.txt": "true\n", "lib.py": "def inc(x):\n    return x + 2\n"},
    )
    verdict = grade_pull_request(repo, ".patchwitness", "main", head)
    assert verdict.fingerprint.test_cmd == "python -m pytest -q"  # the base's command
    assert (verdict.label, verdict.gates.drift.row) == ("UNPRINTABLE", "grader-files-edited")


def test_unknown_refs_and_missing_task(repo):
    assert grade_pull_request(repo, ".patchwitness", "nope", "main").label == "invalid-task"
    verdict = grade_pull_request(repo, ".elsewhere", "main", "main")
    assert verdict.label == "invalid-task"
    assert "no task directory" in verdict.reasons[0].detail


def test_action_runs_the_pr_command():
    yaml = pytest.importorskip("yaml")
    action = yaml.safe_load((Path(__file__).parents[1] / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    script = "\n".join(step.get("run", "") for step in action["runs"]["steps"])
    assert "patchwitness pr --base" in script and "--sarif" in script
    uses = [step.get("uses", "") for step in action["runs"]["steps"]]
    assert any(u.startswith("github/codeql-action/upload-sarif") for u in uses)
