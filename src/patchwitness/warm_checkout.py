"""A warm slot (warm.py) ready for runs at the task's SHA: acquired for this process, its pristine
tree made once, its repository restored from the pristine tree, its homes and reports emptied.

The baseline and every grade of the task use the same slot key, so the SHA's builds the
baseline makes (the plain build, the coverage build) are the snapshots every later grade of the
task starts from: a first grade builds each of them once, not once for the baseline and again to
prime the warm trees."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator
from pathlib import Path

from patchwitness import history, warm
from patchwitness.build_id import grader_build
from patchwitness.languages.cpp import cpp_suite
from patchwitness.settings import Settings
from patchwitness.suites import Focus, Suite, SuiteRun
from patchwitness.task import Task
from patchwitness.workspace import Workspace, git


def warm_key(task: Task, suite: Suite, settings: Settings) -> str:
    """What a warm build depends on besides the sources (warm.py): the slots of one key hold
    the repository's commits, each moved to the next commit it is asked for."""
    from patchwitness.suites.cpp import toolchain_versions

    return warm.slot_key(
        {
            "grader": grader_build(),
            "repo": str(task.repo.resolve()),
            "cpp": task.options.cpp.model_dump(),
            "cwd": task.options.cwd,
            "env": cpp_suite(suite).env.key,
            "tools": toolchain_versions(),
            "sandbox": settings.sandbox,
        }
    )


NEAR_FILES = 64


def near(task: Task, other: str) -> bool:
    """Whether a slot at commit `other` is worth moving to the task's SHA rather than building
    from nothing: git knows both, and they differ in at most a quarter of the SHA's files (or
    in at most NEAR_FILES, however small the project)."""
    if not other:
        return False
    return _near(task.repo.resolve(), other, task.sha)


@functools.lru_cache(maxsize=64)
def _near(repo: Path, other: str, sha: str) -> bool:
    changed = git(repo, "diff", "--no-renames", "--name-only", "-z", other, sha)
    files = git(repo, "ls-tree", "-r", "--name-only", "-z", sha)
    if changed.returncode != 0 or files.returncode != 0:
        return False
    differ = changed.stdout.count(b"\0")
    return differ <= max(NEAR_FILES, files.stdout.count(b"\0") // 4)


@contextlib.contextmanager
def warm_checkout(
    task: Task, suite: Suite, settings: Settings
) -> Iterator[tuple[Workspace, warm.Slot]]:
    """The slot of the task's key, its repository at the SHA, held until the block ends."""
    key = warm_key(task, suite, settings)
    with warm.acquire(settings.cache, key, task.sha, functools.partial(near, task)) as slot:
        if not (slot.ready() and slot.sha() == task.sha):
            with history.checkout(task, settings.cache) as fresh:
                if slot.ready() and near(task, slot.sha()):
                    warm.move(slot, fresh.repo, task.sha)
                else:
                    warm.make_pristine(slot, fresh.repo, task.sha)
        warm.restore(slot.pristine, slot.repo)
        warm.note_added(slot, [])
        ws = Workspace(slot.root, task.sha)
        for folder in (ws.home, ws.reports):
            warm.restore_empty(folder)
        yield ws, slot


def warm_run(suite: Suite, slot: warm.Slot, scratch: Path, instrument, focus: Focus) -> SuiteRun:
    """One run at the SHA in the slot: the repository restored from the pristine tree, the build
    for `instrument` made and kept as the slot's snapshot (once: a snapshot already there is
    restored instead), then the tests. A build that fails here fails again in `scratch`, where
    the run reports it as any failed build."""
    cpp = cpp_suite(suite)
    warm.restore(slot.pristine, slot.repo)
    kept = slot.has_snapshot(cpp.warm_name(instrument))
    name = cpp.prime(slot, instrument, focus, scratch / "prime")
    if not name:
        return cpp.run(slot.repo, scratch, instrument=instrument, focus=focus)
    # A build just made is tested as it is; one kept earlier is restored from its snapshot, since
    # a grade's code may have written to the build tree since.
    built = None if kept else slot.build(name)
    return cpp.run(slot.repo, scratch, instrument=instrument, focus=focus, slot=slot, built=built)
