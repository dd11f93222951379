"""A warm slot (warm.py) ready for runs at the task's SHA: acquired for this process, its pristine
tree made once, its repository restored from the pristine tree, its homes and reports emptied.

The baseline and every grade of the task use the same slot key, so the SHA's builds the
baseline makes (the plain build, the coverage build) are the snapshots every later grade of the
task starts from: a first grade builds each of them once, not once for the baseline and again to
prime the warm trees."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from patchwitness import history, warm
from patchwitness.build_id import grader_build
from patchwitness.languages.cpp import cpp_suite
from patchwitness.settings import Settings
from patchwitness.suites import Focus, Suite, SuiteRun
from patchwitness.task import Task
from patchwitness.workspace import Workspace


def warm_key(task: Task, suite: Suite, settings: Settings) -> str:
    """What a warm build depends on besides the sources (warm.py)."""
    from patchwitness.suites.cpp import toolchain_versions

    return warm.slot_key(
        {
            "grader": grader_build(),
            "sha": task.sha,
            "cpp": task.options.cpp.model_dump(),
            "cwd": task.options.cwd,
            "env": cpp_suite(suite).env.key,
            "tools": toolchain_versions(),
            "sandbox": settings.sandbox,
        }
    )


@contextlib.contextmanager
def warm_checkout(
    task: Task, suite: Suite, settings: Settings
) -> Iterator[tuple[Workspace, warm.Slot]]:
    """The slot of the task's key, its repository at the SHA, held until the block ends."""
    with warm.acquire(settings.cache, warm_key(task, suite, settings)) as slot:
        if not slot.ready():
            with history.checkout(task, settings.cache) as fresh:
                warm.make_pristine(slot, fresh.repo)
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
