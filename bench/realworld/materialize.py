"""From a case to what patchwitness grades: a repository with the bug committed (the task's SHA),
a task directory in the seed layout, and one patch file per patch case.

Layout under the work directory, one bag per case so that a case's patches are the only agents
of its bag:

    WORK/CASE/repo/                      the source, the bug committed on top (HEAD = the SHA)
    WORK/CASE/bag/CASE/                  the task directory (repo.lock, test_cmd.txt, ...)
    WORK/CASE/patches/PATCH/CASE.diff    one agent per patch case
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from realworld.case import Case
from realworld.cases import all_cases
from realworld.edits import Edit, apply_all
from realworld.sources import checkout, git

REFERENCE_PATCH = "honest-1"  # each case's fix: the upstream code the bug was made from


@dataclass(frozen=True)
class Materialized:
    case: Case
    repo: Path
    sha: str
    bag: Path
    task_dir: Path
    patches: Path

    def patch_file(self, name: str) -> Path:
        return self.patches / name / f"{self.case.name}.diff"


def materialize(
    case: Case,
    work: Path,
    sources_dir: Path | None,
    cache: Path,
    reference: tuple[Edit, ...] | None = None,
) -> Materialized:
    """The case's repository at its bug, its task and its patches under `work`. `reference`:
    the edits of the task's reference fix, when the case passed holds none of its own (the red
    team materializes a base without its patches); by default the case's own fix."""
    root = work / case.name
    repo = checkout(case.source, root / "repo", sources_dir, cache)
    apply_all(repo, case.bug)
    git(repo, "add", "-A")
    git(repo, "commit", "--quiet", "--allow-empty", "-m", f"bench: inject the bug of {case.name}")
    sha = git(repo, "rev-parse", "HEAD")
    bag = root / "bag"
    task_dir = bag / case.name
    shutil.rmtree(bag, ignore_errors=True)
    write_task(case, task_dir, repo, sha)
    patches = root / "patches"
    shutil.rmtree(patches, ignore_errors=True)
    done = Materialized(case, repo, sha, bag, task_dir, patches)
    reference = reference if reference is not None else reference_edits(case)
    if reference is not None:
        # The upstream behaviour the bug was taken out of: the task's reference fix, which
        # every patch of the case is compared with (the reference gate).
        diff = make_diff(repo, sha, reference, root / "scratch")
        (task_dir / "reference.diff").write_bytes(diff)
    for patch in case.patches:
        target = done.patch_file(patch.name)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(make_diff(repo, sha, patch.edits, root / "scratch"))
    return done


def reference_edits(case: Case) -> tuple[Edit, ...] | None:
    """The edits of the case's reference fix: its honest-1. A variant holding none takes its
    base's, whose source and bug it keeps (iniconfig-tests: its honest patch also writes a
    test). None when the case opts out, or has no fix to offer (a red-team base, graded
    without its own patches)."""
    if not case.reference:
        return None
    for patch in case.patches:
        if patch.name == REFERENCE_PATCH:
            return patch.edits
    if case.variant_of and case.patches:
        base = next((c for c in all_cases() if c.name == case.variant_of), None)
        return reference_edits(base) if base is not None else None
    return None


def write_task(case: Case, task_dir: Path, repo: Path, sha: str) -> None:
    task_dir.mkdir(parents=True)
    (task_dir / "repo.lock").write_text(sha + "\n")
    (task_dir / "test_cmd.txt").write_text(case.test_cmd + "\n")
    (task_dir / "allow_test_edits.json").write_text(json.dumps(case.allow_test_edits) + "\n")
    (task_dir / "failing_nodeids.txt").write_text("".join(f"{i}\n" for i in case.failing))
    toml = f'language = "{case.language}"\nrepo = {json.dumps(str(repo))}\n' + case.task_toml
    (task_dir / "task.toml").write_text(toml)


def make_diff(repo: Path, sha: str, edits: tuple, scratch: Path) -> bytes:
    """The patch an agent would submit: the edits applied to a checkout of the SHA, as a diff."""
    shutil.rmtree(scratch, ignore_errors=True)
    git(repo.parent, "clone", "--quiet", "--shared", "--no-checkout", str(repo), str(scratch))
    git(scratch, "checkout", "--quiet", "--detach", sha)
    apply_all(scratch, edits)
    git(scratch, "add", "-A")
    diff = git_bytes(scratch, "diff", "--cached", "--binary", sha)
    shutil.rmtree(scratch, ignore_errors=True)
    return diff


def git_bytes(cwd: Path, *args: str) -> bytes:
    import subprocess

    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=True).stdout
