"""A patch as git reads it: the only reading of a patch under grade.

A grader that parses a patch itself and then lets `git apply` write it reads it twice, and the two
readings can disagree: git unquotes C-style quoted paths (`diff --git "a/conftest.py" ...`), takes
a traditional diff's `+++` name where a parser sees a rename, and applies raw bytes a text parser
calls a hunk. So the grader never parses a patch under grade. Git applies it to a private index
that holds the SHA's tree (`git apply --cached`); the tree git wrote is compared with the SHA's
(`git diff-tree`), and what changed, with which mode, and which lines, is read from git's own
output. The worktree is then written from git's result, blob by blob, so the files the tests run
are byte for byte the ones the grader read (no attribute filter, no second apply).

    precheck(data)                 # before anything runs: git's paths, unsafe ones refused
    changes = read_tree_diff(...)  # after `git apply --cached`: the files, modes and lines

Refused here: a patch over the size limit, one that git cannot read, paths outside the worktree
or inside `.git`, paths with control characters or quotes (git would have to quote them in its
text output), submodules, and content with NUL bytes (binary: `unreadable-patch`) unless the task
allows binary files.
"""

from __future__ import annotations

import io
import re
import subprocess
import tempfile
import tokenize
from dataclasses import dataclass
from pathlib import Path

from unidiff import PatchSet
from unidiff.errors import UnidiffParseError

from patchwitness import sourcefiles
from patchwitness.errors import ApplyFailed, UnreadablePatch
from patchwitness.patch import MAX_PATCH_BYTES, FileChange, deletion_holes, unsafe_path
from patchwitness.runner import run_tool

SYMLINK = "120000"
GITLINK = "160000"
EXECUTABLE = "100755"
ZERO = "0" * 40


@dataclass(frozen=True)
class TreeEntry:
    """One line of `git diff-tree -r -z --raw`: a path and its two sides."""

    path: str
    old_mode: str
    new_mode: str
    old_blob: str
    new_blob: str
    status: str  # A (added), D (deleted), M (modified), T (type changed)

    @property
    def removed(self) -> bool:
        return self.status == "D"

    @property
    def added(self) -> bool:
        return self.status == "A"


def git_env(index: Path | None = None) -> dict[str, str]:
    """Variables for the grader's git commands: a private index, pathspecs taken literally."""
    env = {"GIT_LITERAL_PATHSPECS": "1"}
    if index is not None:
        env["GIT_INDEX_FILE"] = str(index)
    return env


def reader(root: Path, repo: Path, sha: str) -> Path:
    """A bare git directory of the grader's own under `root`, borrowing the objects of the
    worktree `repo`. Git reads the patch through it and never through `repo/.git`: that one sits
    in a tree the code under grade may have written (a warm slot's build ran there), where its
    config could name a command for git to run, and whose owner may be the sandbox's uid."""
    home = root / "reader.git"
    if not (home / "HEAD").exists():
        (home / "objects" / "info").mkdir(parents=True, exist_ok=True)
        (home / "refs").mkdir(exist_ok=True)
        fmt = "\trepositoryformatversion = 1\n[extensions]\n\tobjectformat = sha256\n"
        core = "[core]\n\tbare = true\n" + (
            fmt if len(sha) == 64 else "\trepositoryformatversion = 0\n"
        )
        (home / "config").write_text(core)
        (home / "HEAD").write_text("ref: refs/heads/reader\n")
    (home / "objects" / "info" / "alternates").write_text(f"{repo / '.git' / 'objects'}\n")
    return home


def _git(git_dir: Path, *args: str, index: Path | None = None, stdin: bytes | None = None):
    argv = ["git", f"--git-dir={git_dir}", *args]
    try:
        return run_tool(argv, cwd=git_dir, timeout=300, stdin=stdin, env=git_env(index))
    except FileNotFoundError:
        from patchwitness.errors import ToolError

        raise ToolError("git is not installed") from None
    except subprocess.TimeoutExpired:
        raise ApplyFailed("git did not read the patch in time") from None


def ignored(reader: Path, tree: Path, paths: list[str]) -> list[str]:
    """Of `paths` (files the patch adds, written in `tree`), those git's ignore rules leave out
    of a commit: the tree's own .gitignore files, as the patch leaves them (no user's or
    system's rules: run_tool reads no global configuration). Read through the grader's `reader`
    and never `tree/.git`."""
    if not paths:
        return []
    done = run_tool(
        [
            "git",
            f"--git-dir={reader}",
            f"--work-tree={tree}",
            "check-ignore",
            "--no-index",
            "-z",
            "--stdin",
        ],
        cwd=tree,
        stdin=b"\0".join(p.encode() for p in paths) + b"\0",
        # No literal pathspecs: check-ignore refuses the magic, and reads the paths as
        # paths, never patterns.
        env={},
    )
    if done.returncode not in (0, 1):
        return sorted(paths)  # rules git cannot read vouch for no file
    return sorted(_decode(p) for p in done.stdout.split(b"\0") if p)


def _first_line(stderr: bytes, fallback: str) -> str:
    lines = stderr.decode("utf-8", "replace").strip().splitlines()
    return lines[0] if lines else fallback


# -- before anything runs ------------------------------------------------------------------------


def precheck(data: bytes, *, allow_binary: bool = False) -> list[str]:
    """The paths git reads in `data`, checked, before the grade spends anything on it. Raises
    ApplyFailed (git cannot read it, an unsafe path) or UnreadablePatch (binary content)."""
    if len(data) > MAX_PATCH_BYTES:
        raise ApplyFailed(f"patch is {len(data)} bytes, over the {MAX_PATCH_BYTES}-byte limit")
    if not data.strip():
        return []
    if b"\0" in data and not allow_binary:
        raise UnreadablePatch("the patch holds NUL bytes: binary content is not graded")
    with tempfile.TemporaryDirectory(prefix="patchwitness-precheck-") as empty:
        # Outside any repository git reads the patch as it would apply it, and applies nothing.
        done = run_tool(
            ["git", "apply", "--numstat", "-z", "-"], cwd=Path(empty), stdin=data, env=git_env()
        )
    if done.returncode != 0:
        reason = _first_line(done.stderr, f"exit {done.returncode}")
        if "No valid patches" in reason:
            raise ApplyFailed("patch holds no file changes")
        raise ApplyFailed(f"patch does not parse: {reason}")
    entries = parse_numstat(done.stdout)
    if not entries:
        raise ApplyFailed("patch holds no file changes")
    paths: list[str] = []
    for binary, names in entries:
        for path in names:
            check_path(path)
        if binary and not allow_binary:
            raise UnreadablePatch(f"binary patches are not graded ({names[-1]})")
        paths += names
    return paths


def parse_numstat(out: bytes) -> list[tuple[bool, list[str]]]:
    """`git apply --numstat -z`: (binary, paths) per file; a rename or copy names two paths."""
    fields = out.split(b"\0")
    entries: list[tuple[bool, list[str]]] = []
    index = 0
    while index < len(fields):
        record = fields[index]
        index += 1
        if not record:
            continue
        added, _, rest = record.partition(b"\t")
        removed, _, path = rest.partition(b"\t")
        binary = added == b"-" or removed == b"-"
        if path:
            entries.append((binary, [_decode(path)]))
        else:  # a rename or copy: the two paths follow as fields of their own
            names = [_decode(fields[index]), _decode(fields[index + 1])]
            index += 2
            entries.append((binary, names))
    return entries


def _decode(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def check_path(path: str) -> None:
    """A path as git resolved it, refused when it could leave the worktree, reach into `.git`,
    or be printed by git in another spelling than its own (quoted, escaped)."""
    problem = unsafe_path(path)
    if problem is None and any(part.lower() == ".git" for part in path.split("/")):
        problem = f"path inside .git {path!r}"
    if problem is None and any(ord(c) < 0x20 or c in '"\x7f' for c in path):
        problem = f"path with a control character or a quote {path!r}"
    if problem is not None:
        raise ApplyFailed(f"unsafe patch: {problem}")


# -- after `git apply --cached` -----------------------------------------------------------------


def apply_to_index(repo: Path, sha: str, patch_file: Path, index: Path) -> str:
    """Apply the patch to a private index holding the SHA's tree; the tree git wrote. `repo` is
    a git directory of the grader's (`reader`)."""
    for args in (("read-tree", sha), ("apply", "--cached", "--whitespace=nowarn", str(patch_file))):
        done = _git(repo, *args, index=index)
        if done.returncode != 0:
            if args[0] == "read-tree":
                from patchwitness.errors import ToolError

                raise ToolError(f"git read-tree {sha[:12]} failed: {_first_line(done.stderr, '')}")
            raise ApplyFailed(f"patch does not apply: {_first_line(done.stderr, 'git apply')}")
    done = _git(repo, "write-tree", index=index)
    if done.returncode != 0:
        raise ApplyFailed(f"patch does not apply: {_first_line(done.stderr, 'write-tree')}")
    return done.stdout.decode().strip()


def parse_raw(out: bytes) -> list[TreeEntry]:
    """`git diff-tree -r -z --raw --no-renames`: `:OLDMODE NEWMODE OLD NEW STATUS\\0PATH\\0`."""
    fields = out.split(b"\0")
    entries = []
    for head, path in zip(fields[0::2], fields[1::2], strict=False):
        if not head.startswith(b":"):
            continue
        old_mode, new_mode, old_blob, new_blob, status = head[1:].decode().split(" ")
        entries.append(TreeEntry(_decode(path), old_mode, new_mode, old_blob, new_blob, status[:1]))
    return entries


def split_sections(text: str) -> list[str]:
    """`git diff-tree -p` output cut into one section per file. A section starts with a
    `diff --git ` line; no line inside a section does (hunk lines start with +, - or a space)."""
    sections: list[list[str]] = []
    for line in text.splitlines(keepends=True):
        if line.startswith("diff --git "):
            sections.append([])
        if sections:
            sections[-1].append(line)
    return ["".join(s) for s in sections]


def hunk_lines(
    section: str,
) -> tuple[tuple[tuple[int, str], ...], tuple[tuple[int, str], ...], tuple[int, ...]]:
    """(added lines with new-side numbers, removed lines with old-side numbers, deletion holes)
    of one file's section of git's diff. Its header is git's; only the hunks are read."""
    try:
        (patched,) = PatchSet(section)
    except (UnidiffParseError, ValueError) as exc:
        raise ApplyFailed(f"git's diff of the patched tree does not read: {exc}") from None
    added: list[tuple[int, str]] = []
    removed: list[tuple[int, str]] = []
    holes: list[int] = []
    for hunk in patched:
        added += [(ln.target_line_no, ln.value) for ln in hunk if ln.is_added]
        removed += [(ln.source_line_no, ln.value) for ln in hunk if ln.is_removed]
        holes += deletion_holes(hunk)
    return tuple(added), tuple(removed), tuple(sorted(set(holes)))


def read_blobs(repo: Path, blobs: list[str]) -> dict[str, bytes]:
    """The content of each blob, read from the object store in one process."""
    wanted = sorted({b for b in blobs if b and b != ZERO})
    if not wanted:
        return {}
    done = _git(repo, "cat-file", "--batch", stdin="".join(f"{b}\n" for b in wanted).encode())
    out: dict[str, bytes] = {}
    data = done.stdout
    at = 0
    for blob in wanted:
        end = data.index(b"\n", at)
        header = data[at:end].decode().split(" ")
        if len(header) != 3:
            raise ApplyFailed(f"git cannot read blob {blob[:12]} of the patched tree")
        size = int(header[2])
        out[blob] = data[end + 1 : end + 1 + size]
        at = end + 1 + size + 1
    return out


def read_tree_diff(
    repo: Path, sha: str, tree: str, *, allow_binary: bool = False
) -> tuple[list[FileChange], dict[str, bytes]]:
    """What the patch changed, as git sees the SHA's tree against the patched one: the files,
    with their lines, and the new content of each (path -> bytes; a symlink's is its target).
    `repo` is a git directory of the grader's (`reader`)."""
    raw = _git(repo, "diff-tree", "-r", "-z", "--raw", "--no-renames", sha, tree)
    if raw.returncode != 0:
        raise ApplyFailed(f"git cannot compare the patched tree: {_first_line(raw.stderr, '')}")
    entries = parse_raw(raw.stdout)
    for entry in entries:
        check_path(entry.path)
        if GITLINK in (entry.old_mode, entry.new_mode):
            raise ApplyFailed(f"unsafe patch: submodules are not graded ({entry.path})")
    blobs = read_blobs(repo, [e.new_blob for e in entries if not e.removed])
    text = _git(
        repo,
        "-c",
        "core.quotePath=false",
        "diff-tree",
        "-p",
        "-U0",
        "--no-renames",
        "--text",
        "--no-ext-diff",
        "--no-textconv",
        "--no-color",
        "--full-index",
        sha,
        tree,
    )
    sections = split_sections(text.stdout.decode("utf-8", "replace"))
    if len(sections) != len(entries):
        raise ApplyFailed(
            f"git's diff names {len(sections)} files, its listing {len(entries)}: not graded"
        )
    changes: list[FileChange] = []
    contents: dict[str, bytes] = {}
    for entry, section in zip(entries, sections, strict=True):
        new = b"" if entry.removed else blobs.get(entry.new_blob, b"")
        changes.append(_change(entry, section, new, allow_binary))
        if not entry.removed:
            contents[entry.path] = new
    return changes, contents


# A carriage return that ends no line: git counts it inside a line, Python's tokenizer and a C
# preprocessor as a line break, so the lines the grader judges would not be the lines that run.
_LONE_CR = re.compile(rb"\r(?!\n)")


PYTHON_SOURCE = (".py", ".pyw", ".pyi")


def _check_python_encoding(path: str, data: bytes) -> None:
    """Python decodes a source file by its coding cookie (PEP 263); the grader reads every file
    as UTF-8. A file the two would read differently (a utf-7 cookie hides code in what UTF-8
    shows as a comment) is refused; a cookie whose decoding agrees with UTF-8 is fine."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        as_python = data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError) as exc:
        raise UnreadablePatch(f"{path}: Python cannot decode it ({exc})") from None
    as_grader = data.decode("utf-8", "replace").removeprefix("\ufeff")
    if as_python.removeprefix("\ufeff") != as_grader:
        raise UnreadablePatch(
            f"{path} declares the source encoding {encoding}: Python would read other text "
            "than the grader (UTF-8) does"
        )


def _change(entry: TreeEntry, section: str, new: bytes, allow_binary: bool) -> FileChange:
    binary = b"\0" in new
    if binary and not allow_binary:
        raise UnreadablePatch(f"binary content is not graded ({entry.path})")
    if not binary and sourcefiles.is_source(entry.path, new) and _LONE_CR.search(new):
        raise UnreadablePatch(
            f"{entry.path} holds a carriage return that ends no line: git and the language "
            "would number its lines differently"
        )
    if not binary and entry.path.endswith(PYTHON_SOURCE):
        _check_python_encoding(entry.path, new)
    symlink = SYMLINK in (entry.new_mode, entry.old_mode)
    if binary:
        added, removed, holes = (), (), ()
    else:
        added, removed, holes = hunk_lines(section)
    if entry.new_mode == SYMLINK:
        from patchwitness.patch import symlink_escapes

        if symlink_escapes(entry.path, new.decode("utf-8", "surrogateescape")):
            raise ApplyFailed(f"unsafe patch: symlink {entry.path!r} points outside the worktree")
    status = {"A": "added", "D": "removed"}.get(entry.status, "modified")
    return FileChange(
        path=entry.path,
        status=status,
        mode="" if entry.removed else entry.new_mode,
        old_mode="" if entry.added else entry.old_mode,
        binary=binary,
        symlink=symlink,
        added=added,
        removed=removed,
        deletion_holes=holes,
    )
