"""Bad input ends in a clean label with a reason: never a traceback, never a changed repository."""

from __future__ import annotations

import pytest

from patchwitness.api import grade

from .conftest import make_task, tree_digest

pytestmark = pytest.mark.slow

FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": "def answer():\n    return 41\n",
    "tests/test_core.py": "# -*- coding: latin-1 -*-\nfrom pkg.core import answer\n\n\n"
    "def test_answer():\n    assert answer() == 42, 'caf\xe9'\n",
    "eval/task/README": "the task lives inside the repository\n",
}
FIX = ("pkg/core.py", "return 41", "return 42")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("bad")
    files = dict(FILES)
    built = make_task(root, files, failing=["tests/test_core.py::test_answer"])
    # The latin-1 test file must be written as latin-1 bytes, as a real repository would hold it.
    path = built.repo / "tests" / "test_core.py"
    path.write_bytes(FILES["tests/test_core.py"].encode("latin-1"))
    from patchwitness.demo.build import _git

    _git(built.repo, "commit", "--quiet", "--all", "--amend", "--no-edit")
    built.sha = _git(built.repo, "rev-parse", "HEAD")
    (built.task_dir / "repo.lock").write_text(built.sha + "\n")
    return built


def check(built, data: bytes, label: str, words: str):
    repo_before = tree_digest(built.repo)
    task_before = tree_digest(built.task_dir)
    verdict = grade(built.task_dir, built.raw_patch(data, f"{label}-{abs(hash(data))}.diff"))
    assert verdict.label == label, verdict.reasons
    assert words in verdict.reasons[0].detail
    assert "Traceback" not in verdict.model_dump_json()
    assert tree_digest(built.repo) == repo_before
    assert tree_digest(built.task_dir) == task_before
    return verdict


def diff(path: str, old: str, new: str) -> bytes:
    return f"--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-{old}\n+{new}\n".encode()


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (diff("../outside.py", "x", "y"), "leaves the worktree"),
        (diff("/etc/passwd", "x", "y"), "absolute path"),
        (diff(".git/hooks/post-checkout", "x", "y"), "inside .git"),
        (
            b"diff --git a/link b/link\nnew file mode 120000\n--- /dev/null\n+++ b/link\n"
            b"@@ -0,0 +1 @@\n+/root/.ssh\n\\ No newline at end of file\n",
            "symlink",
        ),
        (diff("pkg/core.py", "def nothing():", "def x():"), "does not apply"),
        (b"garbage that is no diff\n", "no file changes"),
    ],
)
def test_unsafe_or_broken_patches_are_apply_failed(built, data, words):
    check(built, data, "apply-failed", words)


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (
            b"diff --git a/blob.bin b/blob.bin\nnew file mode 100644\nindex 0000000000000000000000"
            b"000000000000000000..735a95829dd77133742c0416d45e0e0de7153ef6\nGIT binary patch\n"
            b"literal 5\nMcmYdHVn|K_00f)?ivR!s\n\nliteral 0\nHcmV?d00001\n\n",
            "binary",
        ),
        (b"\x00\x01garbage that is no diff\n", "NUL"),
        (
            b"--- a/pkg/core.py\n+++ b/pkg/core.py\n@@ -1,2 +1,2 @@\n-def answer():\n"
            b"+def answer():  # \x00\n     return 41\n",
            "NUL",
        ),
    ],
)
def test_binary_content_is_unreadable(built, data, words):
    verdict = check(built, data, "UNPRINTABLE", words)
    assert verdict.reasons[0].row == "unreadable-patch"


def test_a_100_mb_patch_is_refused_before_git_sees_it(built):
    line = b"+" + b"x" * 99 + b"\n"
    data = b"--- a/big.txt\n+++ b/big.txt\n@@ -0,0 +1,1000000 @@\n" + line * 1_000_000
    assert len(data) >= 100_000_000
    check(built, data, "apply-failed", "over the")


def test_empty_patch_is_a_no_op(built):
    verdict = grade(built.task_dir, built.raw_patch(b"", "empty.diff"))
    assert (verdict.label, verdict.grade) == ("no-op", "reject")


def test_non_utf8_test_file_is_read_through_its_coding_cookie(built):
    verdict = grade(built.task_dir, built.patch([FIX], "fix.diff"))
    assert (verdict.label, verdict.grade) == ("passed", "accept"), verdict.reasons
    assert verdict.gates.census.facts.unreadable == []


def test_a_new_test_file_that_does_not_decode_fails_closed(built):
    """Python cannot decode the file either: the patch is refused as git reads it, before the
    census would have had to give up on it."""
    data = (
        b"diff --git a/tests/test_more.py b/tests/test_more.py\nnew file mode 100644\n"
        b"--- /dev/null\n+++ b/tests/test_more.py\n@@ -0,0 +1,2 @@\n"
        b"+def test_more():\n+    assert '\xff\xfe' == 1\n"
    )
    verdict = grade(built.task_dir, built.raw_patch(data, "undecodable.diff"))
    assert (verdict.grade, verdict.label) == ("reject", "UNPRINTABLE")
    assert verdict.reasons[0].row == "unreadable-patch", verdict.reasons
    assert "tests/test_more.py" in verdict.reasons[0].detail


def test_a_patch_that_edits_the_task_inside_the_repository(tmp_path):
    from patchwitness.demo import build

    built = make_task(tmp_path, FILES, failing=[])
    inside = built.repo / "eval" / "task"
    for name in ("test_cmd.txt", "allow_test_edits.json", "failing_nodeids.txt", "task.toml"):
        (inside / name).write_text(
            (built.task_dir / name).read_text().replace('repo = "../../repo"\n', "")
        )
    (inside / "failing_nodeids.txt").write_text("")
    build._git(built.repo, "add", "--all")
    build._git(built.repo, "commit", "--quiet", "--message", "task inside")
    sha = build._git(built.repo, "rev-parse", "HEAD")
    (inside / "repo.lock").write_text(sha + "\n")  # untracked: the lock lives beside the task
    patch = built.raw_patch(
        diff("eval/task/README", "the task lives inside the repository", "owned"), "task-edit.diff"
    )
    verdict = grade(inside, patch)
    assert (verdict.label, verdict.gates.drift.row) == ("UNPRINTABLE", "grader-files-edited")


@pytest.mark.parametrize(
    ("lock", "words"), [("HEAD", "full commit SHA"), ("f" * 40, "not a commit")]
)
def test_bad_locks_are_invalid_tasks(tmp_path, lock, words):
    built = make_task(tmp_path, FILES, failing=[])
    (built.task_dir / "repo.lock").write_text(lock + "\n")
    verdict = grade(built.task_dir, built.patch([FIX]))
    assert (verdict.label, verdict.grade) == ("invalid-task", "ungradable")
    assert words in verdict.reasons[0].detail
