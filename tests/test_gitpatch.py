"""One reading of a patch, git's: what the grader believes a patch touches is what git applied.

Each case is a real repository and a real `git apply`: the reading must agree with the tree git
writes, byte for byte, for the spellings a second parser would read differently."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from patchwitness import gitpatch
from patchwitness.demo.build import make_diff, make_repo
from patchwitness.errors import ApplyFailed, UnreadablePatch
from patchwitness.workspace import Workspace

FILES = {
    "src/pkg/__init__.py": "",
    "src/pkg/core.py": "def answer():\n    return 41\n",
    "tests/test_core.py": (
        "from pkg.core import answer\n\n\ndef test_answer():\n    assert answer() == 42\n"
    ),
    "data/old.txt": "one\ntwo\nthree\n",
}


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, str]:
    root = tmp_path / "source"
    sha = make_repo(root, FILES)
    return root, sha


def apply(repo: tuple[Path, str], data: bytes, **kwargs):
    source, sha = repo
    ws = Workspace.create(source, sha)
    return ws, ws.apply(data, **kwargs)


def git_applied(repo: tuple[Path, str], data: bytes, tmp_path: Path) -> dict[str, bytes]:
    """Every file of a plain checkout after plain `git apply`: what a user would get."""
    source, sha = repo
    tree = tmp_path / "plain"
    subprocess.run(["git", "clone", "-q", str(source), str(tree)], check=True)
    subprocess.run(["git", "checkout", "-q", sha], cwd=tree, check=True)
    subprocess.run(["git", "apply"], input=data, cwd=tree, check=True)
    return files_of(tree)


def files_of(tree: Path) -> dict[str, bytes]:
    out = {}
    for path in sorted(tree.rglob("*")):
        rel = path.relative_to(tree).as_posix()
        if rel.startswith(".git") or not (path.is_file() or path.is_symlink()):
            continue
        out[rel] = os.readlink(path).encode() if path.is_symlink() else path.read_bytes()
    return out


def test_a_fix_is_read_with_its_lines(repo):
    diff = make_diff(FILES, {**FILES, "src/pkg/core.py": "def answer():\n    return 42\n"})
    ws, patch = apply(repo, diff.encode())
    (change,) = patch.files
    assert (change.path, change.status, change.mode) == ("src/pkg/core.py", "modified", "100644")
    assert change.added == ((2, "    return 42\n"),)
    assert change.removed == ((2, "    return 41\n"),)
    assert (ws.repo / "src/pkg/core.py").read_text().endswith("return 42\n")
    ws.remove()


def test_a_quoted_path_is_the_file_git_writes(repo, tmp_path):
    data = (
        b'diff --git "a/conftest.py" "b/conftest.py"\nnew file mode 100644\n--- /dev/null\n'
        b'+++ "b/conftest.py"\n@@ -0,0 +1 @@\n+import os\n'
    )
    ws, patch = apply(repo, data)
    assert [c.path for c in patch.files] == ["conftest.py"]
    assert (ws.repo / "conftest.py").read_text() == "import os\n"
    assert files_of(ws.repo) == git_applied(repo, data, tmp_path)
    ws.remove()


def test_a_traditional_diff_is_read_as_git_applies_it(repo, tmp_path):
    """`---` and `+++` name two paths: git writes the `+++` one, no rename in sight."""
    data = b"--- a/tests/test_core.py\n+++ b/tests/conftest.py\n@@ -0,0 +1 @@\n+import os\n"
    ws, patch = apply(repo, data)
    assert {c.path: c.status for c in patch.files} == {"tests/conftest.py": "added"}
    assert files_of(ws.repo) == git_applied(repo, data, tmp_path)
    ws.remove()


def test_a_rename_is_a_removal_and_an_addition(repo):
    data = (
        b"diff --git a/tests/test_core.py b/src/pkg/moved.py\nsimilarity index 100%\n"
        b"rename from tests/test_core.py\nrename to src/pkg/moved.py\n"
    )
    ws, patch = apply(repo, data)
    assert {c.path: c.status for c in patch.files} == {
        "src/pkg/moved.py": "added",
        "tests/test_core.py": "removed",
    }
    assert not (ws.repo / "tests").exists()  # git leaves no empty directory behind
    ws.remove()


def test_a_mode_change_is_read(repo):
    data = b"diff --git a/src/pkg/core.py b/src/pkg/core.py\nold mode 100644\nnew mode 100755\n"
    ws, patch = apply(repo, data)
    (change,) = patch.files
    assert (change.old_mode, change.mode, change.added) == ("100644", "100755", ())
    assert os.access(ws.repo / "src/pkg/core.py", os.X_OK)
    ws.remove()


def test_a_symlink_inside_the_tree_is_written_as_one(repo):
    data = (
        b"diff --git a/tests/link b/tests/link\nnew file mode 120000\n--- /dev/null\n"
        b"+++ b/tests/link\n@@ -0,0 +1 @@\n+../src\n\\ No newline at end of file\n"
    )
    ws, patch = apply(repo, data)
    (change,) = patch.files
    assert change.symlink and change.mode == "120000"
    assert os.readlink(ws.repo / "tests/link") == "../src"
    ws.remove()


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (
            b"diff --git a/link b/link\nnew file mode 120000\n--- /dev/null\n+++ b/link\n"
            b"@@ -0,0 +1 @@\n+../../outside\n\\ No newline at end of file\n",
            "outside the worktree",
        ),
        (b"--- a/.GIT/config\n+++ b/.GIT/config\n@@ -0,0 +1 @@\n+x\n", ".git"),
        (
            b'diff --git "a/tab\\there.py" "b/tab\\there.py"\nnew file mode 100644\n'
            b'--- /dev/null\n+++ "b/tab\\there.py"\n@@ -0,0 +1 @@\n+x = 1\n',
            "control character",
        ),
        (
            b"diff --git a/vendor b/vendor\nnew file mode 160000\nindex 0000000..1234567\n"
            b"--- /dev/null\n+++ b/vendor\n@@ -0,0 +1 @@\n"
            b"+Subproject commit 1234567890123456789012345678901234567890\n",
            "submodule",
        ),
    ],
)
def test_unsafe_readings_are_refused_and_the_tree_is_left_alone(repo, data, words):
    source, sha = repo
    ws = Workspace.create(source, sha)
    before = files_of(ws.repo)
    with pytest.raises(ApplyFailed, match=words):
        ws.apply(data)
    assert files_of(ws.repo) == before
    ws.remove()


def test_a_file_beyond_a_symlink_of_the_sha_is_refused(tmp_path):
    root = tmp_path / "source"
    sha = make_repo(root, FILES)
    os.symlink("src", root / "alias")
    subprocess.run(["git", "add", "alias"], cwd=root, check=True)
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "alias"],
        cwd=root,
        check=True,
    )
    sha = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True
    ).stdout.strip()
    data = b"--- /dev/null\n+++ b/alias/pkg/evil.py\n@@ -0,0 +1 @@\n+x = 1\n"
    ws = Workspace.create(root, sha)
    with pytest.raises(ApplyFailed):
        ws.apply(data)
    assert not (ws.repo / "src/pkg/evil.py").exists()
    ws.remove()


def binary_patch(tmp_path: Path, name: str, content: bytes) -> bytes:
    scratch = tmp_path / "binary"
    subprocess.run(["git", "init", "-q", str(scratch)], check=True)
    target = scratch / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(content)
    subprocess.run(["git", "add", "-A"], cwd=scratch, check=True)
    return subprocess.run(
        ["git", "diff", "--cached", "--binary"], cwd=scratch, capture_output=True, check=True
    ).stdout


def test_bytecode_is_unreadable_unless_the_task_allows_binary(repo, tmp_path):
    pyc = b"\xa7\r\r\n\x03\x00\x00\x00" + b"\0" * 8 + b"\xe3fake code"
    data = binary_patch(tmp_path, "src/pkg/__pycache__/core.cpython-311.pyc", pyc)
    source, sha = repo
    ws = Workspace.create(source, sha)
    with pytest.raises(UnreadablePatch, match="binary"):
        ws.apply(data)
    assert not (ws.repo / "src/pkg/__pycache__").exists()
    patch = ws.apply(data, allow_binary=True)
    (change,) = patch.files
    assert change.binary and change.added == ()
    assert (ws.repo / change.path).read_bytes() == pyc
    ws.remove()


def test_a_carriage_return_that_ends_no_line_is_unreadable(repo):
    """Git counts one line where Python's tokenizer counts three: what the grader judged on
    line 2 would run on line 4."""
    data = (
        b"--- a/src/pkg/core.py\n+++ b/src/pkg/core.py\n@@ -1,2 +1,2 @@\n def answer():\n"
        b"-    return 41\n+    return 41 if 1 else 0\rx = 1\r    # hidden\n"
    )
    source, sha = repo
    ws = Workspace.create(source, sha)
    with pytest.raises(UnreadablePatch, match="carriage return"):
        ws.apply(data)
    crlf = b"--- a/data/old.txt\n+++ b/data/old.txt\n@@ -1,3 +1,3 @@\n-one\n+one\r\n two\n three\n"
    assert ws.apply(crlf).files[0].path == "data/old.txt"  # CRLF, and not source: fine
    ws.remove()


def test_nul_bytes_in_a_text_hunk_are_unreadable():
    data = b"--- a/src/pkg/core.py\n+++ b/src/pkg/core.py\n@@ -1 +1 @@\n-x\n+y\x00\n"
    with pytest.raises(UnreadablePatch, match="NUL"):
        gitpatch.precheck(data)


def test_precheck_names_the_paths_git_reads():
    data = (
        b'diff --git "a/conftest.py" "b/conftest.py"\nnew file mode 100644\n--- /dev/null\n'
        b'+++ "b/conftest.py"\n@@ -0,0 +1 @@\n+import os\n'
    )
    assert gitpatch.precheck(data) == ["conftest.py"]
    with pytest.raises(ApplyFailed, match="no file changes"):
        gitpatch.precheck(b"this is not a diff\n")
    with pytest.raises(ApplyFailed, match="leaves the worktree"):
        gitpatch.precheck(b"--- a/x/../../y\n+++ b/x/../../y\n@@ -0,0 +1 @@\n+x\n")


def test_the_worktree_holds_what_git_read_whatever_the_attributes_say(tmp_path):
    """An `ident` attribute at the SHA would make `git apply` on a worktree write other bytes
    than the blob git read; the worktree is written from the blob."""
    files = {**FILES, ".gitattributes": "*.py ident\n"}
    root = tmp_path / "source"
    sha = make_repo(root, files)
    after = {**files, "src/pkg/core.py": "# $Id$\ndef answer():\n    return 42\n"}
    ws = Workspace.create(root, sha)
    ws.apply(make_diff(files, after).encode())
    assert (ws.repo / "src/pkg/core.py").read_text() == after["src/pkg/core.py"]
    ws.remove()


# -- the pure readers of git's output ------------------------------------------------------------


def test_parse_numstat_reads_renames_and_binary():
    out = b"1\t0\tconftest.py\x00-\t-\tblob.bin\x002\t1\t\x00old name.py\x00new.py\x00"
    assert gitpatch.parse_numstat(out) == [
        (False, ["conftest.py"]),
        (True, ["blob.bin"]),
        (False, ["old name.py", "new.py"]),
    ]


def test_parse_raw_reads_every_entry():
    zero = "0" * 40
    blob = "1" * 40
    out = (
        f":000000 100644 {zero} {blob} A\x00a b.py\x00:100644 000000 {blob} {zero} D\x00c.py\x00"
    ).encode()
    entries = gitpatch.parse_raw(out)
    assert [(e.path, e.status, e.new_mode) for e in entries] == [
        ("a b.py", "A", "100644"),
        ("c.py", "D", "000000"),
    ]


def test_split_sections_cuts_at_each_file():
    text = "diff --git a/x b/x\n+++ b/x\n@@ -0,0 +1 @@\n+diff --git not a header\n"
    text += "diff --git a/y b/y\nnew mode 100755\n"
    sections = gitpatch.split_sections(text)
    assert len(sections) == 2 and sections[1].startswith("diff --git a/y")


def test_hunk_lines_carry_numbers_and_holes():
    section = (
        "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -3,2 +2,0 @@\n-three\n-four\n"
        "@@ -6 +5,2 @@\n-six\n+SIX\n+seven\n"
    )
    added, removed, holes = gitpatch.hunk_lines(section)
    assert added == ((5, "SIX\n"), (6, "seven\n"))
    assert removed == ((3, "three\n"), (4, "four\n"), (6, "six\n"))
    assert holes == (2,)


# UTF-7 hides a line in what UTF-8 shows as a comment: "+AAo-" is a newline to Python.
HIDDEN_BY_UTF7 = (
    "# vim: set fileencoding=utf-7 :\ndef answer():\n    return 42\n# +AAo-answer = lambda: 41\n"
)


@pytest.mark.parametrize(
    ("text", "refused"),
    [
        (HIDDEN_BY_UTF7, True),
        # a cookie under which Python reads what the grader reads
        ("# -*- coding: latin-1 -*-\ndef answer():\n    return 42\n", False),
        ("\ufeffdef answer():\n    return 42\n", False),  # a byte-order mark, as Python drops it
        ("# coding: no-such-codec\ndef answer():\n    return 42\n", True),
    ],
)
def test_python_source_is_read_as_python_decodes_it(repo, text, refused):
    diff = make_diff(FILES, {**FILES, "src/pkg/core.py": text})
    source, sha = repo
    ws = Workspace.create(source, sha)
    if refused:
        with pytest.raises(UnreadablePatch, match=r"src/pkg/core\.py"):
            ws.apply(diff.encode("utf-8"))
    else:
        (change,) = ws.apply(diff.encode("utf-8")).files
        assert change.path == "src/pkg/core.py"
    ws.remove()


def test_a_file_the_trees_ignore_rules_name_is_said_with_the_patch(tmp_path):
    """What `git add -A` would leave out of a commit of the patched tree: the tree's own rules
    (a nested .gitignore and one the patch itself adds), never the rules of the user's own git."""
    files = {**FILES, ".gitignore": "*.log\nsrc/pkg/_version.py\n"}
    source = tmp_path / "source"
    sha = make_repo(source, files)
    after = {
        **files,
        "src/pkg/_version.py": "VERSION = '1'\n",
        "src/pkg/helper.py": "X = 1\n",
        "tests/run.log": "a log\n",
        "data/.gitignore": "kept.txt\n",
        "data/kept.txt": "x\n",
    }
    ws = Workspace.create(source, sha)
    patch = ws.apply(make_diff(files, after).encode())
    assert patch.ignored == ["data/kept.txt", "src/pkg/_version.py", "tests/run.log"]
    ws.remove()


def test_a_copy_of_a_worktree_keeps_files_times_and_links_and_shares_nothing(repo):
    source, sha = repo
    with Workspace.create(source, sha) as ws:
        built = ws.repo / "src" / "pkg" / "_built.so"
        built.write_bytes(b"\x7fELF")
        os.utime(built, (1_000_000, 1_000_000))
        os.symlink("core.py", ws.repo / "src" / "pkg" / "alias.py")
        os.mkfifo(ws.repo / "left-by-a-run")
        with ws.copy() as copy:
            assert copy.root.parent == ws.root.parent and copy.sha == sha
            assert files_of(copy.repo) == files_of(ws.repo)
            assert (copy.repo / "src" / "pkg" / "_built.so").stat().st_mtime == 1_000_000
            assert os.readlink(copy.repo / "src" / "pkg" / "alias.py") == "core.py"
            assert not (copy.repo / "left-by-a-run").exists()
            (copy.repo / "src" / "pkg" / "core.py").write_text("changed\n")
            (copy.repo / "marker").write_text(".")
            status = subprocess.run(
                ["git", "status", "--porcelain"], cwd=copy.repo, capture_output=True, check=True
            )
            assert b" M src/pkg/core.py" in status.stdout  # a worktree git reads as its own
        assert (ws.repo / "src" / "pkg" / "core.py").read_text() == FILES["src/pkg/core.py"]
        assert not (ws.repo / "marker").exists() and not copy.root.exists()
