"""A Python baseline that follows the branch (baseline_moved.py), run for real: at a commit near
a graded one only the tests the commit can change run again, and what comes out is what a
baseline computed from nothing says."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from patchwitness import baseline as baselines
from patchwitness.demo import build
from patchwitness.phases.prepare import prepare
from patchwitness.settings import Settings
from patchwitness.task import load_task

from .conftest import SETUP

pytestmark = pytest.mark.slow

FILES = {
    "pkg/__init__.py": "",
    "pkg/a.py": "def a():\n    return 0  # the bug: 1\n",
    "pkg/c.py": "def c():\n    return 3\n",
    "pkg/helper.py": "FACTOR = 1\n",
    "tests/test_a.py": "from pkg.a import a\n\n\ndef test_a():\n    assert a() == 1\n",
    "tests/test_c.py": "import pkg.c\n\n\ndef test_c():\n    assert pkg.c.c() == 3\n",
    "tests/test_more.py": "".join(
        f"def test_{n}():\n    assert {n} == {n}\n\n\n" for n in range(5)
    ),
}


def commit(repo: Path, changes: dict[str, str], message: str) -> str:
    build.write_files(repo, changes)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", message], cwd=repo, check=True)
    done = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def baseline_at(root: Path, sha: str, settings: Settings) -> baselines.Baseline:
    task_dir = root / "tasks" / f"{sha[:10]}-{settings.cache.name}"
    build.write_task(
        task_dir,
        sha=sha,
        test_cmd="python -m pytest -q tests",
        allow_test_edits=False,
        failing=["tests/test_a.py::test_a"],
        toml=f"repo = \"../../repo\"\nsetup = '{SETUP}'\ntimeout = 120\n",
    )
    task = load_task(task_dir)
    return baselines.obtain(task, prepare(task, settings).suite, settings)


def test_a_baseline_follows_the_branch_and_says_what_a_fresh_one_says(tmp_path):
    repo = tmp_path / "repo"
    sha_a = build.make_repo(repo, FILES)
    # B breaks c through a module c newly imports: an import the commit adds
    sha_b = commit(
        repo,
        {
            "pkg/c.py": "from pkg.helper import FACTOR\n\n\ndef c():\n    return 3 * FACTOR\n",
            "pkg/helper.py": "FACTOR = 2\n",
        },
        "B",
    )
    followed = Settings(cache=tmp_path / "followed")
    at_a = baseline_at(tmp_path, sha_a, followed)
    assert at_a.outcomes["tests/test_c.py::test_c"] == "passed"
    at_b = baseline_at(tmp_path, sha_b, followed)
    assert at_b.extra["followed"] == {
        "from": sha_a,
        "changed": 2,
        "rerun": ["tests/test_c.py"],
    }
    fresh = baseline_at(tmp_path, sha_b, Settings(cache=tmp_path / "fresh"))
    assert "followed" not in fresh.extra
    assert at_b.outcomes == fresh.outcomes
    assert at_b.outcomes["tests/test_c.py::test_c"] == "failed"  # seen through the new import
    assert sorted(at_b.collected) == sorted(fresh.collected)
    assert at_b.instrumented_outcomes == fresh.instrumented_outcomes
    assert at_b.instrumentation == fresh.instrumentation
    assert at_b.surface is not None and fresh.surface is not None
    for field in ("test_modules", "config", "plugins", "harness_modules", "hook_words"):
        assert getattr(at_b.surface, field) == getattr(fresh.surface, field), field


def test_a_commit_the_graph_cannot_vouch_for_is_run_whole_and_says_why(tmp_path):
    repo = tmp_path / "repo"
    sha_a = build.make_repo(repo, FILES)
    sha_b = commit(repo, {"tests/data.txt": "a file the tests may read\n"}, "B")
    settings = Settings(cache=tmp_path / "cache")
    baseline_at(tmp_path, sha_a, settings)
    at_b = baseline_at(tmp_path, sha_b, settings)
    assert at_b.extra["followed"] == (
        f"not moved from {sha_a[:12]}: tests/data.txt changed and is no Python module"
    )
    assert at_b.outcomes["tests/test_more.py::test_4"] == "passed"


READING = {
    **FILES,
    "notes.yaml": "lint: strict\n",
    "tests/expected.txt": "1\n",
    "tests/test_read.py": (
        "from pathlib import Path\n\n\n"
        "def test_read():\n"
        "    assert Path(__file__).with_name('expected.txt').read_text() == '1\\n'\n"
    ),
}


def test_a_commit_that_changes_only_files_the_run_never_opened_moves_without_a_run(tmp_path):
    repo = tmp_path / "repo"
    sha_a = build.make_repo(repo, READING)
    sha_b = commit(repo, {"notes.yaml": "lint: lax\n"}, "B: a linter's configuration")
    # C changes a file a test opens: its outcome may change, and it does
    sha_c = commit(repo, {"tests/expected.txt": "2\n"}, "C: a file a test reads")
    settings = Settings(cache=tmp_path / "cache")
    at_a = baseline_at(tmp_path, sha_a, settings)
    assert at_a.surface is not None and at_a.surface.escaped == ()
    assert "notes.yaml" not in (at_a.surface.loaded or ())
    at_b = baseline_at(tmp_path, sha_b, settings)
    assert at_b.extra["followed"] == {
        "from": sha_a,
        "changed": 1,
        "rerun": [],
        "unread": ["notes.yaml"],
    }
    assert at_b.outcomes == at_a.outcomes
    at_c = baseline_at(tmp_path, sha_c, settings)
    assert at_c.extra["followed"] == (
        f"not moved from {sha_b[:12]}: tests/expected.txt changed and is no Python module"
    )
    assert at_c.outcomes["tests/test_read.py::test_read"] == "failed"


def test_a_run_that_started_a_process_vouches_for_no_file_it_did_not_open(tmp_path):
    spawning = {
        **READING,
        "tests/test_spawn.py": (
            "import subprocess, sys\n\n\n"
            "def test_spawn():\n"
            "    subprocess.run([sys.executable, '-c', 'pass'], check=True)\n"
        ),
    }
    repo = tmp_path / "repo"
    sha_a = build.make_repo(repo, spawning)
    sha_b = commit(repo, {"notes.yaml": "lint: lax\n"}, "B")
    settings = Settings(cache=tmp_path / "cache")
    at_a = baseline_at(tmp_path, sha_a, settings)
    assert at_a.surface is not None and "subprocess.Popen" in (at_a.surface.escaped or ())
    at_b = baseline_at(tmp_path, sha_b, settings)
    assert at_b.extra["followed"] == (
        f"not moved from {sha_a[:12]}: notes.yaml changed and is no Python module"
    )
