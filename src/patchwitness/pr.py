"""Grading a pull request: the diff from its base to its head, against the base's own task.

The task directory lives in the repository (for example `.patchwitness/`), and it is read at the
BASE commit, never from the pull request's head: a pull request that edits the grader's files
does not get to grade itself with them, and its edit to them is tampering (the directory is
grader-owned). Unless the task says otherwise it is a gate: nothing named to fix, accepted when
nothing broke, vanished or weakened.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from patchwitness.api import grade_task, stopped
from patchwitness.errors import ApplyFailed, InvalidTask
from patchwitness.model import Verdict
from patchwitness.settings import Settings
from patchwitness.task import load_task
from patchwitness.workspace import files_at, git, show_at

DEFAULTS = {"allow_test_edits.json": "true\n", "failing_nodeids.txt": ""}


def resolve(repo: Path, ref: str) -> str:
    done = git(repo, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", timeout=60)
    if done.returncode != 0:
        raise InvalidTask(f"not a commit in {repo}: {ref}")
    return done.stdout.decode().strip()


def task_at(repo: Path, sha: str, task_path: str, into: Path) -> None:
    """Write the task directory as it is at `sha` into `into`, with repo.lock = sha."""
    prefix = task_path.strip("/") + "/"
    names = [p for p in files_at(repo, sha) if p.startswith(prefix)]
    if not names:
        raise InvalidTask(f"no task directory {task_path!r} at the base commit {sha[:12]}")
    for name in names:
        data = show_at(repo, sha, name)
        target = into / name[len(prefix) :]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data or b"")
    for name, text in DEFAULTS.items():
        if not (into / name).exists():
            (into / name).write_text(text)
    (into / "repo.lock").write_text(sha + "\n")


def grade_pull_request(
    repo: Path,
    task_path: str,
    base: str,
    head: str,
    agent: str = "pr",
    settings: Settings | None = None,
) -> Verdict:
    repo = Path(repo).resolve()
    try:
        base_sha, head_sha = resolve(repo, base), resolve(repo, head)
    except InvalidTask as stop:
        return stopped(task_path, agent, b"", stop)
    diff = git(
        repo, "diff", "--no-color", "--no-ext-diff", "--full-index", base_sha, head_sha, timeout=300
    )
    if diff.returncode != 0:
        return stopped(task_path, agent, b"", ApplyFailed("git diff failed"))
    with tempfile.TemporaryDirectory(prefix="patchwitness-pr-") as scratch:
        task_dir = Path(scratch) / Path(task_path.strip("/")).name
        try:
            task_at(repo, base_sha, task_path, task_dir)
        except InvalidTask as stop:
            return stopped(task_path, agent, diff.stdout, stop)
        # Unless task.toml says otherwise: a gate, and the task directory is the grader's.
        defaults = {"mode": "gate", "paths": {"grader": [f"{task_path.strip('/')}/**"]}}
        try:
            task = load_task(task_dir, repo, defaults=defaults)
        except InvalidTask as stop:
            return stopped(task_path, agent, diff.stdout, stop)
        owned = f"{task_path.strip('/')}/**"
        if owned not in task.options.paths.grader:
            grader = [*task.options.paths.grader, owned]
            paths = task.options.paths.model_copy(update={"grader": grader})
            task = task.model_copy(
                update={"options": task.options.model_copy(update={"paths": paths})}
            )
        return grade_task(
            task,
            diff.stdout,
            agent=agent,
            settings=settings,
            patch_path=f"{base_sha[:12]}..{head_sha[:12]}",
        )
