"""The diff model: line numbers, deletion holes, and refusal of unsafe patches."""

from __future__ import annotations

import pytest

from patchwitness.demo.build import make_diff
from patchwitness.errors import ApplyFailed
from patchwitness.patch import parse_patch, symlink_escapes, unsafe_path

BEFORE = {"a.py": "one\ntwo\nthree\nfour\nfive\nsix\n"}


def test_added_lines_carry_new_side_numbers():
    after = {"a.py": "one\ntwo\nTHREE\nfour\nextra\nfive\nsix\n"}
    patch = parse_patch(make_diff(BEFORE, after).encode())
    (change,) = patch.files
    assert change.status == "modified"
    assert change.added == ((3, "THREE\n"), (5, "extra\n"))
    assert change.removed == ((3, "three\n"),)
    assert change.deletion_holes == ()


def test_pure_deletion_records_its_hole():
    after = {"a.py": "one\ntwo\nfive\nsix\n"}
    (change,) = parse_patch(make_diff(BEFORE, after).encode()).files
    assert change.added == ()
    assert change.removed_lines == [3, 4]
    assert change.deletion_holes == (2,)  # the hole follows new line 2


def test_deletion_at_top_of_file():
    after = {"a.py": "three\nfour\nfive\nsix\n"}
    (change,) = parse_patch(make_diff(BEFORE, after).encode()).files
    assert change.deletion_holes == (0,)


def test_replacement_is_not_a_hole():
    after = {"a.py": "one\ntwo\nX\nsix\n"}
    (change,) = parse_patch(make_diff(BEFORE, after).encode()).files
    assert change.deletion_holes == ()


def test_added_and_removed_files():
    patch = parse_patch(make_diff(BEFORE, {"b.py": "new\n"}).encode())
    status = {c.path: c.status for c in patch.files}
    assert status == {"a.py": "removed", "b.py": "added"}
    assert patch.touched() == {"a.py", "b.py"}


def test_sha256_is_the_identity():
    data = make_diff(BEFORE, {"a.py": "x\n"}).encode()
    assert parse_patch(data).sha256 == parse_patch(data).sha256
    assert parse_patch(data).sha256 != parse_patch(data + b"\n").sha256


@pytest.mark.parametrize("data", [b"", b"   \n"])
def test_empty_patch_is_empty_not_an_error(data):
    assert parse_patch(data).empty


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("/etc/passwd", "absolute"),
        ("../outside", "leaves"),
        ("a/../../b", "leaves"),
        (".git/config", ".git"),
        ("sub/.git/hooks/pre-commit", ".git"),
    ],
)
def test_unsafe_paths(path, why):
    assert why in unsafe_path(path)
    text = f"--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-x\n+y\n"
    with pytest.raises(ApplyFailed, match="unsafe patch"):
        parse_patch(text.encode())


def test_safe_path():
    assert unsafe_path("src/pkg/mod.py") is None


def test_symlink_escaping_the_worktree_is_refused():
    text = (
        "diff --git a/link b/link\nnew file mode 120000\n--- /dev/null\n+++ b/link\n"
        "@@ -0,0 +1 @@\n+../../outside\n\\ No newline at end of file\n"
    )
    with pytest.raises(ApplyFailed, match="symlink"):
        parse_patch(text.encode())


def test_symlink_inside_the_worktree_is_allowed():
    text = (
        "diff --git a/d/link b/d/link\nnew file mode 120000\n--- /dev/null\n+++ b/d/link\n"
        "@@ -0,0 +1 @@\n+../other\n\\ No newline at end of file\n"
    )
    (change,) = parse_patch(text.encode()).files
    assert change.symlink


@pytest.mark.parametrize(
    ("path", "target", "escapes"),
    [("a", "/etc", True), ("a", "..", True), ("d/a", "../b", False), ("d/a", "../../b", True)],
)
def test_symlink_escapes(path, target, escapes):
    assert symlink_escapes(path, target) is escapes


def test_binary_patch_is_refused():
    text = (
        "diff --git a/bin.dat b/bin.dat\nnew file mode 100644\nindex 0000000..1234567\n"
        "GIT binary patch\nliteral 3\nKcmZ?wWMT!0000\n\n"
    )
    with pytest.raises(ApplyFailed, match="binary"):
        parse_patch(text.encode())


def test_oversized_patch_is_refused():
    with pytest.raises(ApplyFailed, match="over the"):
        parse_patch(b"x" * 101, max_bytes=100)


def test_garbage_is_refused():
    with pytest.raises(ApplyFailed):
        parse_patch(b"this is not a diff\n")
