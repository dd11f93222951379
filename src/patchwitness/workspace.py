"""A fresh checkout of the locked SHA for one grade, and the patch applied to it.

Every grade gets its own temporary directory: the worktree (`repo/`), a build area, a private home
and a reports area, all outside the user's working tree. The source repository is only read (a
shared clone borrows its objects); nothing is written to it. The directory is removed at the end,
and its name is unique, so a grade killed midway leaves nothing a later grade could pick up.

A patch is applied the way git reads it (gitpatch.py): to a private index, and the worktree is
then written from the tree git made, so what the grader reads is what the tests run.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import stat
import tempfile
import time
from pathlib import Path

from patchwitness.errors import ApplyFailed, InvalidTask, ToolError
from patchwitness.patch import FileChange, Patch, sha256_of
from patchwitness.runner import run_tool

PREFIX = "patchwitness-"
OWNER = "owner.pid"
# Where an unnamed workspace (a root that shares no name with the grader's) is listed, beside
# it, so that one a killed grader left is found and swept like the named ones.
UNNAMED = PREFIX + "unnamed"
STALE_AFTER_S = 120


def git(repo: Path, *args: str, timeout: float = 300, stdin: bytes | None = None):
    try:
        return run_tool(["git", *args], cwd=repo, timeout=timeout, stdin=stdin)
    except FileNotFoundError:
        raise ToolError("git is not installed") from None


def require_commit(repo: Path, sha: str) -> None:
    result = git(repo, "cat-file", "-e", f"{sha}^{{commit}}", timeout=60)
    if result.returncode != 0:
        raise InvalidTask(f"repo.lock {sha[:12]} is not a commit in {repo}")


def show_at(repo: Path, sha: str, path: str) -> bytes | None:
    """A file's bytes at a commit, read from the object store; None when it does not exist."""
    result = git(repo, "show", f"{sha}:{path}", timeout=60)
    return result.stdout if result.returncode == 0 else None


def files_at(repo: Path, sha: str) -> list[str]:
    result = git(repo, "ls-tree", "-r", "-z", "--name-only", sha, timeout=120)
    if result.returncode != 0:
        raise ToolError(f"git ls-tree failed: {result.stderr.decode(errors='replace').strip()}")
    return [p for p in result.stdout.decode("utf-8", "surrogateescape").split("\0") if p]


class Workspace:
    def __init__(self, root: Path, sha: str = "", tree: str = "repo") -> None:
        self.root = root
        self.sha = sha  # the commit the worktree holds before any patch
        self.repo = root / tree
        self.home = root / "home"
        self.reports = root / "reports"
        self.builds = root / "builds"

    @classmethod
    def create(
        cls, source: Path, sha: str, parent: Path | None = None, *, unnamed: bool = False
    ) -> Workspace:
        """A checkout of `sha` from `source`. `unnamed`: at a path that shares no name with
        the grader's own trees (no `patchwitness-` folder, no `repo`), drawn afresh each time:
        code that finds its own place and asks whether it is the grader's answers no there."""
        ws = cls._empty(sha, parent, unnamed=unnamed)
        try:
            ws._checkout(source, sha)
        except BaseException:
            ws.remove()
            raise
        return ws

    @classmethod
    def _empty(cls, sha: str, parent: Path | None, *, unnamed: bool = False) -> Workspace:
        if unnamed:
            root = Path(tempfile.mkdtemp(prefix="", dir=parent))
            ws = cls(root, sha, tree=secrets.token_hex(4))
            listed = root.parent / UNNAMED
            listed.mkdir(exist_ok=True)
            (listed / root.name).write_text(str(root))
        else:
            ws = cls(Path(tempfile.mkdtemp(prefix=PREFIX, dir=parent)), sha)
        try:
            (ws.root / OWNER).write_text(str(os.getpid()))
            for d in (ws.home, ws.reports, ws.builds):
                d.mkdir()
        except BaseException:
            ws.remove()
            raise
        return ws

    def copy(self) -> Workspace:
        """A workspace of its own beside this one, its worktree a copy of this one's as it is
        now: modes, times and symbolic links kept (a build that compares times has nothing to
        redo), nothing shared (a run in the copy changes no file of this one)."""
        ws = self._empty(self.sha, self.root.parent)
        try:
            shutil.copytree(self.repo, ws.repo, symlinks=True, ignore=_not_files)
        except BaseException:
            ws.remove()
            raise
        return ws

    def _checkout(self, source: Path, sha: str) -> None:
        result = run_tool(
            ["git", "clone", "--quiet", "--shared", "--no-checkout", str(source), str(self.repo)],
            cwd=self.root,
            timeout=600,
        )
        if result.returncode != 0:
            raise ToolError(f"git clone failed: {result.stderr.decode(errors='replace').strip()}")
        result = git(
            self.repo,
            "-c",
            "advice.detachedHead=false",
            "checkout",
            "--quiet",
            "--detach",
            sha,
            timeout=600,
        )
        if result.returncode != 0:
            raise InvalidTask(
                f"cannot check out {sha[:12]}: {result.stderr.decode(errors='replace').strip()}"
            )

    def apply(self, data: bytes, *, allow_binary: bool = False) -> Patch:
        """Apply `data` as git reads it, and return what git says it changed. The worktree must
        hold the SHA. Anything short of a clean apply is ApplyFailed (or UnreadablePatch), and
        then the worktree is left as it was."""
        from patchwitness import gitpatch

        assert self.sha, "a workspace applies a patch over a commit it knows"
        if not data.strip():
            return Patch(sha256=sha256_of(data), size=len(data))
        gitpatch.precheck(data, allow_binary=allow_binary)
        patch_file = self.root / "patch.diff"
        patch_file.write_bytes(data)
        index = self.root / "patch.index"
        reader = gitpatch.reader(self.root, self.repo, self.sha)
        try:
            tree = gitpatch.apply_to_index(reader, self.sha, patch_file, index)
            changes, contents = gitpatch.read_tree_diff(
                reader, self.sha, tree, allow_binary=allow_binary
            )
        finally:
            index.unlink(missing_ok=True)
        self._write(changes, contents)
        added = [c.path for c in changes if c.status == "added"]
        ignored = gitpatch.ignored(reader, self.repo, added)
        return Patch(sha256=sha256_of(data), size=len(data), files=changes, ignored=ignored)

    def _write(self, changes: list[FileChange], contents: dict[str, bytes]) -> None:
        """The worktree made to hold git's patched tree: removals first (a path may turn from a
        file into a directory, or back), then every added or changed file, blob by blob."""
        for change in changes:
            if change.status == "removed":
                target = self._inside(change.path)
                _remove_path(target)
                _prune_empty(target.parent, self.repo)
        for change in changes:
            if change.status == "removed":
                continue
            target = self._inside(change.path)
            target.parent.mkdir(parents=True, exist_ok=True)
            _remove_path(target)
            data = contents[change.path]
            if change.mode == "120000":
                os.symlink(os.fsdecode(data), target)
            else:
                target.write_bytes(data)
                target.chmod(0o755 if change.mode == "100755" else 0o644)

    def _inside(self, relpath: str) -> Path:
        """`relpath` under the worktree, refused when a directory on the way is a symlink: git
        never writes through one, and neither does the grader."""
        here = self.repo
        for part in relpath.split("/")[:-1]:
            here = here / part
            if here.is_symlink():
                raise ApplyFailed(f"unsafe patch: {relpath!r} is beyond a symbolic link")
        return self.repo / relpath

    def new_dir(self, name: str) -> Path:
        path = Path(tempfile.mkdtemp(prefix=name + "-", dir=self.reports))
        return path

    def remove(self) -> None:
        (self.root.parent / UNNAMED / self.root.name).unlink(missing_ok=True)
        shutil.rmtree(self.root, ignore_errors=True)
        if self.root.exists():
            # A test may have left read-only directories behind.
            for dirpath, dirnames, _ in os.walk(self.root):
                for d in dirnames:
                    with contextlib.suppress(OSError):
                        os.chmod(os.path.join(dirpath, d), 0o700)
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


def _not_files(folder: str, names: list[str]) -> set[str]:
    """What a copy leaves out: anything but files, folders and symbolic links (a fifo a run
    left would block the copy that opens it)."""
    kept = (stat.S_ISREG, stat.S_ISDIR, stat.S_ISLNK)
    out = set()
    for name in names:
        mode = os.lstat(os.path.join(folder, name)).st_mode
        if not any(kind(mode) for kind in kept):
            out.add(name)
    return out


def _remove_path(target: Path) -> None:
    if target.is_symlink() or target.is_file():
        target.unlink()
    elif target.is_dir():
        shutil.rmtree(target)


def _prune_empty(folder: Path, top: Path) -> None:
    """Directories a removal left empty go, as git's own checkout removes them."""
    while folder != top and folder.is_dir() and not folder.is_symlink():
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent


def put_back(tree: Path, repo: Path, sha: str, paths: list[str]) -> None:
    """Files of `tree` back to their version at `sha` in `repo` (removed where it has none)."""
    for rel in paths:
        write_or_remove(tree / rel, show_at(repo, sha, rel))


def write_or_remove(target: Path, data: bytes | None) -> None:
    """`target` holds `data` afterwards, whatever was there (a file, a link, a folder); None
    removes it."""
    if target.is_symlink() or target.is_file():
        target.unlink()
    elif target.is_dir():
        shutil.rmtree(target)
    if data is not None:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def as_text(data: bytes | None) -> str | None:
    """Bytes read from a repository as text: never an error for a file that is not UTF-8."""
    return None if data is None else data.decode("utf-8", "replace")


def safe_read(root: Path, relpath: str) -> bytes | None:
    path = root / relpath
    try:
        resolved = path.resolve(strict=True)
    except (FileNotFoundError, RuntimeError, OSError):
        return None
    root_resolved = root.resolve()
    if resolved != root_resolved and root_resolved not in resolved.parents:
        return None
    if not resolved.is_file():
        return None
    try:
        return resolved.read_bytes()
    except OSError:
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_stale(parent: Path | None = None) -> list[Path]:
    """Remove workspaces left by graders that were killed: their owner process is gone.

    Names are unique, so no later grade would ever pick one up; this only returns the disk.
    """
    parent = Path(parent or tempfile.gettempdir())
    removed = []
    listed = sorted((parent / UNNAMED).glob("*")) if (parent / UNNAMED).is_dir() else []
    for record in listed:
        path = parent / record.name
        if not path.is_dir():
            record.unlink(missing_ok=True)
            continue
        if _stale(path):
            Workspace(path).remove()
            removed.append(path)
    for path in parent.glob(PREFIX + "*"):
        if path.name == UNNAMED:
            continue
        if _stale(path):
            Workspace(path).remove()
            removed.append(path)
    return removed


def _stale(path: Path) -> bool:
    """A workspace older than STALE_AFTER_S whose owner process is gone."""
    try:
        if time.time() - path.stat().st_mtime < STALE_AFTER_S:
            return False
        owner = int((path / OWNER).read_text().strip())
    except (OSError, ValueError):
        return False
    return not _alive(owner)
