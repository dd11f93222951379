"""A patch as data: its files, their added and removed lines, and what is unsafe about a path.

A patch under grade is read by git alone (gitpatch.py), which fills these records from its own
output. `parse_patch` reads a diff with unidiff, for the diffs the grader owns (a task's hidden
tests): never for a patch under grade, where a second reading could disagree with git's.
"""

from __future__ import annotations

import hashlib
import posixpath
from dataclasses import dataclass, field

from unidiff import PatchSet
from unidiff.errors import UnidiffParseError

from patchwitness.errors import ApplyFailed

MAX_PATCH_BYTES = 20 * 1024 * 1024


@dataclass(frozen=True)
class FileChange:
    """One path the patch changed. A rename is a removal and an addition: each path is judged for
    what it is, wherever the other one was."""

    path: str
    status: str  # added | removed | modified
    mode: str = ""  # git's mode after the patch ("100644", "100755", "120000"); "" when removed
    old_mode: str = ""  # and before it; "" when added
    binary: bool = False
    symlink: bool = False
    added: tuple[tuple[int, str], ...] = ()
    removed: tuple[tuple[int, str], ...] = ()
    deletion_holes: tuple[int, ...] = ()

    @property
    def added_lines(self) -> list[int]:
        return [n for n, _ in self.added]

    @property
    def removed_lines(self) -> list[int]:
        return [n for n, _ in self.removed]

    @property
    def paths(self) -> set[str]:
        return {self.path}


@dataclass
class Patch:
    sha256: str
    size: int
    files: list[FileChange] = field(default_factory=list)
    # Paths the patch adds that git's ignore rules in the patched tree leave out of a commit:
    # `git apply` writes them, `git add -A` does not take them (red team round 22).
    ignored: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.files

    def touched(self) -> set[str]:
        out: set[str] = set()
        for change in self.files:
            out |= change.paths
        return out


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _strip_prefix(name: str | None) -> str | None:
    if name is None or name == "/dev/null":
        return None
    if name.startswith(("a/", "b/")):
        return name[2:]
    return name


def unsafe_path(path: str) -> str | None:
    """Why a path in a patch may not be applied, or None when it is fine."""
    if path.startswith("/"):
        return f"absolute path {path!r}"
    if "\\" in path or "\0" in path:
        return f"path with a backslash or NUL {path!r}"
    parts = path.split("/")
    if ".." in parts:
        return f"path leaves the worktree {path!r}"
    if ".git" in parts:
        return f"path inside .git {path!r}"
    return None


def symlink_escapes(path: str, target: str) -> bool:
    if target.startswith("/"):
        return True
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
    return joined == ".." or joined.startswith("../")


def parse_patch(data: bytes, max_bytes: int = MAX_PATCH_BYTES) -> Patch:
    """Parse a diff the grader owns (hidden tests). Raises ApplyFailed with a one-line reason for
    anything unsafe. A patch under grade is read by git instead (gitpatch.py)."""
    digest = sha256_of(data)
    if len(data) > max_bytes:
        raise ApplyFailed(f"patch is {len(data)} bytes, over the {max_bytes}-byte limit")
    if not data.strip():
        return Patch(sha256=digest, size=len(data))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    try:
        patchset = PatchSet(text)
    except UnidiffParseError as exc:
        raise ApplyFailed(f"patch does not parse: {exc}") from None
    if not len(patchset):
        raise ApplyFailed("patch holds no file changes")
    files: list[FileChange] = []
    for pf in patchset:
        files += _file_changes(pf)
    return Patch(sha256=digest, size=len(data), files=files)


def _file_changes(pf) -> list[FileChange]:
    old = _strip_prefix(pf.source_file)
    new = _strip_prefix(pf.target_file)
    path = new or old
    if path is None:
        raise ApplyFailed("patch names a file without a path")
    for p in {old, new} - {None}:
        problem = unsafe_path(p)
        if problem:
            raise ApplyFailed(f"unsafe patch: {problem}")
    if pf.is_binary_file:
        raise ApplyFailed(f"binary patches are not graded ({path})")
    status = "added" if pf.is_added_file else "removed" if pf.is_removed_file else "modified"
    added: list[tuple[int, str]] = []
    removed: list[tuple[int, str]] = []
    anchors: list[int] = []
    for hunk in pf:
        added_here = [(ln.target_line_no, ln.value) for ln in hunk if ln.is_added]
        removed_here = [(ln.source_line_no, ln.value) for ln in hunk if ln.is_removed]
        added += added_here
        removed += removed_here
        anchors += deletion_holes(hunk)
    symlink = bool(pf.is_symlink) or _mode_is_symlink(pf)
    if symlink and added and symlink_escapes(path, added[0][1].strip()):
        raise ApplyFailed(f"unsafe patch: symlink {path!r} points outside the worktree")
    change = FileChange(
        path=path,
        status=status,
        symlink=symlink,
        added=tuple(added),
        removed=tuple(removed),
        deletion_holes=tuple(sorted(set(anchors))),
    )
    if old is None or old == path:
        return [change]
    # A rename: the old path is removed, the new one added with the lines.
    from dataclasses import replace

    return [FileChange(path=old, status="removed"), replace(change, status="added")]


def _mode_is_symlink(pf) -> bool:
    info = str(pf.patch_info or "")
    return "mode 120000" in info


def deletion_holes(hunk) -> list[int]:
    """Holes left by runs of deleted lines that have no added line beside them.

    A hunk that only deletes has no new-side line of its own. Each hole is recorded as the new-side
    line number it follows (0 = top of file); the coverage gate scores the executable lines around
    it, because those are what a test must run for the deletion to have been evaluated.
    """
    holes: list[int] = []
    next_new = hunk.target_start if hunk.target_length else hunk.target_start + 1
    previous = None
    in_run = False
    run_touches_add = False
    for line in hunk:
        if line.line_type not in ("+", "-", " "):
            continue
        if line.is_removed:
            if not in_run:
                in_run, run_touches_add = True, previous == "+"
            continue
        if in_run:
            if not (run_touches_add or line.is_added):
                holes.append(next_new - 1)
            in_run = False
        next_new += 1
        previous = line.line_type
    if in_run and not run_touches_add:
        holes.append(next_new - 1)
    return holes
