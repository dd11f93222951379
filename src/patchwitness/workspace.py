"""A fresh checkout of the locked SHA for one grade, and the patch applied to it.

Every grade gets its own temporary directory: the worktree (`repo/`), a build area, a private home
and a reports area, all outside the user's working tree. The source repository is only read (a
shared clone borrows its objects); nothing is written to it. The directory is removed at the end,
and its name is unique, so a grade killed midway leaves nothing a later grade could pick up.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from patchwitness.errors import ApplyFailed, InvalidTask, ToolError
from patchwitness.runner import run_tool

PREFIX = "patchwitness-"
OWNER = "owner.pid"
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
    def __init__(self, root: Path) -> None:
        self.root = root
        self.repo = root / "repo"
        self.home = root / "home"
        self.reports = root / "reports"
        self.builds = root / "builds"

    @classmethod
    def create(cls, source: Path, sha: str, parent: Path | None = None) -> Workspace:
        root = Path(tempfile.mkdtemp(prefix=PREFIX, dir=parent))
        ws = cls(root)
        (root / OWNER).write_text(str(os.getpid()))
        try:
            for d in (ws.home, ws.reports, ws.builds):
                d.mkdir()
            ws._checkout(source, sha)
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

    def apply(self, patch: bytes, timeout: float = 120) -> None:
        """`git apply --check`, then apply. Anything short of a clean apply is ApplyFailed."""
        if not patch.strip():
            return
        patch_file = self.root / "patch.diff"
        patch_file.write_bytes(patch)
        for args in (["apply", "--check"], ["apply"]):
            try:
                result = git(
                    self.repo, *args, "--whitespace=nowarn", str(patch_file), timeout=timeout
                )
            except subprocess.TimeoutExpired:
                raise ApplyFailed("git apply did not finish in time") from None
            if result.returncode != 0:
                message = result.stderr.decode("utf-8", "replace").strip().splitlines()
                first = message[0] if message else f"exit {result.returncode}"
                raise ApplyFailed(f"patch does not apply: {first}")

    def new_dir(self, name: str) -> Path:
        path = Path(tempfile.mkdtemp(prefix=name + "-", dir=self.reports))
        return path

    def remove(self) -> None:
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
    for path in parent.glob(PREFIX + "*"):
        try:
            if time.time() - path.stat().st_mtime < STALE_AFTER_S:
                continue
            owner = int((path / OWNER).read_text().strip())
        except (OSError, ValueError):
            continue
        if not _alive(owner):
            Workspace(path).remove()
            removed.append(path)
    return removed
