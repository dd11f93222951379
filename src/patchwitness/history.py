"""The git history a graded checkout carries, and nothing after its SHA.

Every checkout is a shared clone: its objects are borrowed from another repository. Borrowed from
the user's repository, they are out of the sandbox's sight, so `git` inside a run sees no commit at
all, and a project whose version comes from git (setuptools-scm, hatch-vcs) fails at setup or
import. Making the user's repository readable would show the code under grade every later commit
too (the fix among them). So a task that needs its history gets a store of its own: a bare
repository, built once per SHA in the cache, holding exactly the objects reachable from the SHA and
the tags merged into it. Checkouts borrow from it, and runs may read it.

`history = "auto"` (the default) gives a task its store when the project's build asks git for its
version: setuptools-scm, hatch-vcs, versioningit, dunamai, pbr or poetry-dynamic-versioning in its
packaging files, or `git describe` in its CMake files. `true` and `false` decide without looking.
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from patchwitness import locks
from patchwitness.cachedir import cache_root
from patchwitness.errors import ToolError
from patchwitness.task import Task
from patchwitness.workspace import Workspace, git, show_at

PACKAGING = ("pyproject.toml", "setup.py", "setup.cfg", "CMakeLists.txt")
ASKS_GIT = re.compile(
    rb"setuptools[-_]scm|hatch[-_]vcs|versioningit|dunamai|\bpbr\b|poetry[-_]dynamic[-_]versioning"
    rb"|git\s+describe|GIT_DESCRIBE|git_describe"
)


def wanted(task: Task) -> bool:
    choice = task.options.history
    if choice != "auto":
        return bool(choice)
    return _asks_git(task.repo, task.sha)


@functools.lru_cache(maxsize=256)
def _asks_git(repo: Path, sha: str) -> bool:
    # A grade asks three times (the environment's key, the checkout, what runs may read), a bag
    # worker once per grade: a commit's files never change, so git is asked once per process.
    return any(ASKS_GIT.search(show_at(repo, sha, name) or b"") for name in PACKAGING)


def store(task: Task, cache: Path | None = None) -> Path | None:
    """The task's history store under `cache` (built on first use), or None when the task needs
    none."""
    if not wanted(task):
        return None
    home = (cache or cache_root()) / "history"
    home.mkdir(parents=True, exist_ok=True)
    path = home / f"{task.sha}.git"
    with locks.held(home / f"{task.sha}.lock"):
        if not (path / "pw-complete").exists():
            _build(task.repo, task.sha, path)
    return path


def _build(source: Path, sha: str, path: Path) -> None:
    staging = Path(tempfile.mkdtemp(prefix=".building-", dir=path.parent))
    # Runs read the store as the sandbox's own uid: mkdtemp's 0700 would hide every commit.
    staging.chmod(0o755)
    try:
        git(staging, "init", "--quiet", "--bare", ".")
        tags = git(
            source,
            "for-each-ref",
            "--merged",
            sha,
            "refs/tags",
            "--format=%(objectname) %(refname)",
        )
        refs = [line.split(" ", 1) for line in tags.stdout.decode().splitlines() if " " in line]
        revs = "\n".join([sha, *(obj for obj, _ in refs)]) + "\n"
        # Written straight into the store as one pack (never through memory: a history can be
        # gigabytes): every object reachable from the SHA and its tags, nothing later.
        pack = subprocess.run(
            ["git", "pack-objects", "--revs", "-q", str(staging / "objects" / "pack" / "pack")],
            cwd=source,
            input=revs.encode(),
            capture_output=True,
            timeout=3600,
        )
        if pack.returncode != 0:
            raise ToolError(f"cannot pack the history of {sha[:12]}: {pack.stderr[-300:]!r}")
        for obj, ref in [*refs, (sha, "refs/heads/graded")]:
            _checked(git(staging, "update-ref", ref, obj), f"update-ref {ref}")
        _checked(git(staging, "symbolic-ref", "HEAD", "refs/heads/graded"), "symbolic-ref HEAD")
        for item in staging.rglob("*"):
            item.chmod(0o755 if item.is_dir() else 0o644)
        (staging / "pw-complete").write_text(sha + "\n")
        shutil.rmtree(path, ignore_errors=True)
        staging.rename(path)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _checked(result, what: str) -> None:
    if result.returncode != 0:
        raise ToolError(f"history store: git {what}: {result.stderr.decode(errors='replace')}")


def checkout(
    task: Task, cache: Path | None = None, parent: Path | None = None, *, unnamed: bool = False
) -> Workspace:
    """A fresh checkout of the task's SHA, borrowing from its history store when it has one
    (`unnamed`: see `Workspace.create`)."""
    return Workspace.create(store(task, cache) or task.repo, task.sha, parent, unnamed=unnamed)


def readable(task: Task, cache: Path | None = None) -> list[Path]:
    """What runs over the task's checkouts may read besides the checkout: its history store."""
    found = store(task, cache)
    return [found] if found is not None else []
