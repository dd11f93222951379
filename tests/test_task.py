"""Task directories: the seed layout, task.toml, and the clear errors for bad ones."""

from __future__ import annotations

import json

import pytest

from patchwitness.errors import InvalidTask
from patchwitness.task import load_task

from .conftest import make_task

FILES = {"a.py": "x = 1\n", "tests/test_a.py": "def test_a():\n    assert True\n"}


@pytest.fixture
def built(tmp_path):
    return make_task(tmp_path, FILES, failing=["tests/test_a.py::test_a"], setup=None)


def test_loads_the_seed_layout(built):
    task = load_task(built.task_dir)
    assert task.sha == built.sha
    assert task.repo == built.repo.resolve()
    assert task.failing_ids == ["tests/test_a.py::test_a"]
    assert task.allow_test_edits is False
    assert task.language == "python"
    assert task.test_cmd == "python -m pytest -q"
    assert task.repo_relative_dir is None
    assert len(task.files_sha256) == 64


def test_repo_override_and_git_root_discovery(tmp_path, built):
    (built.task_dir / "task.toml").write_text('language = "python"\n')
    with pytest.raises(InvalidTask, match="no repository"):
        load_task(built.task_dir)
    assert load_task(built.task_dir, repo=built.repo).repo == built.repo.resolve()
    inside = built.repo / "eval" / "t1"
    inside.mkdir(parents=True)
    for name in ("repo.lock", "test_cmd.txt", "allow_test_edits.json", "failing_nodeids.txt"):
        (inside / name).write_text((built.task_dir / name).read_text())
    task = load_task(inside)
    assert task.repo == built.repo.resolve()
    assert task.repo_relative_dir == "eval/t1"
    assert task.grader_owned() == ["eval/t1/**"]


@pytest.mark.parametrize(
    ("file", "content", "message"),
    [
        ("repo.lock", "main\n", "full commit SHA"),
        ("repo.lock", "abc123\n", "full commit SHA"),
        ("test_cmd.txt", "\n# only a comment\n", "no command"),
        ("test_cmd.txt", "pytest\npytest -x\n", "exactly one"),
        ("allow_test_edits.json", '"yes"', "true or false"),
        ("allow_test_edits.json", "{", "true or false"),
        ("failing_nodeids.txt", "t::a\nt::a\n", "twice"),
        ("task.toml", "timeout = 'soon'\n", "task.toml: timeout"),
        ("task.toml", "unknown_key = 1\n", "task.toml: unknown_key"),
        ("task.toml", "[[[", "does not parse"),
        ("task.toml", 'language = "rust"\n', "task.toml: language"),
    ],
)
def test_invalid_tasks_get_clear_errors(built, file, content, message):
    (built.task_dir / file).write_text(content)
    with pytest.raises(InvalidTask, match=message):
        load_task(built.task_dir)


def test_missing_seed_file(built):
    (built.task_dir / "repo.lock").unlink()
    with pytest.raises(InvalidTask, match=r"missing task file: repo\.lock"):
        load_task(built.task_dir)


def test_allowlist(built):
    (built.task_dir / "allow.json").write_text(json.dumps({"remove": ["k1"], "note": "why"}))
    with open(built.task_dir / "task.toml", "a") as handle:
        handle.write('[census]\nallowlist = "allow.json"\n')
    task = load_task(built.task_dir)
    assert task.allowlist == ["k1"]
    assert task.allowlist_note == "why"


def test_comments_and_blank_lines_in_failing_ids(built):
    (built.task_dir / "failing_nodeids.txt").write_text("# red at the SHA\n\nt::a\n  t::b  \n")
    assert load_task(built.task_dir).failing_ids == ["t::a", "t::b"]


def test_allowlist_and_manifest_in_the_repository_are_grader_owned(tmp_path):
    allow = json.dumps({"remove": ["test|tests/test_a.py|test_a|pytest|x"], "note": "renamed"})
    built = make_task(
        tmp_path,
        {**FILES, "eval/allow.json": allow},
        failing=["tests/test_a.py::test_a"],
        setup=None,
    )
    with open(built.task_dir / "task.toml", "a") as handle:
        handle.write(
            '[census]\nallowlist = "repo:eval/allow.json"\n'
            '[matrix]\nmanifest = "repo:eval/matrix.json"\n'
            '[paths]\ngrader = ["tools/grade.sh"]\n'
        )
    task = load_task(built.task_dir)
    assert sorted(task.grader_owned()) == ["eval/allow.json", "eval/matrix.json", "tools/grade.sh"]
    # A repository allowlist is read at the SHA, when the task is loaded.
    assert task.allowlist == ["test|tests/test_a.py|test_a|pytest|x"]
    assert task.allowlist_note == "renamed"


def test_a_repository_allowlist_missing_at_the_sha_makes_the_task_invalid(built):
    with open(built.task_dir / "task.toml", "a") as handle:
        handle.write('[census]\nallowlist = "repo:eval/allow.json"\n')
    with pytest.raises(InvalidTask, match="does not exist at the SHA"):
        load_task(built.task_dir)


def test_a_loaded_task_cannot_be_changed(built):
    task = load_task(built.task_dir)
    with pytest.raises(ValueError):
        task.sha = "0" * 40
