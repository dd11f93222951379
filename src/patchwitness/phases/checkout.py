"""Where the patched tree lives: a fresh checkout of the SHA, removed afterwards; or, for a
language with warm build trees, a warm slot's repository restored to the SHA (warm.py), primed
with the SHA's build before the patch goes in."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from patchwitness import history, languages, warm
from patchwitness.build_id import grader_build
from patchwitness.census.items import is_test
from patchwitness.languages.cpp import cpp_suite
from patchwitness.phases.context import GradeContext, Tree
from patchwitness.settings import Settings
from patchwitness.suites import Focus
from patchwitness.task import Task
from patchwitness.workspace import Workspace


@contextlib.contextmanager
def checkout(ctx: GradeContext) -> Iterator[Tree]:
    ctx.clock.say("checking out the SHA")
    task, settings = ctx.task, ctx.settings
    if not (settings.warm and languages.of(task).warm_trees):
        with history.checkout(task, settings.cache) as ws:
            yield Tree(ws, None)
        return
    with warm.acquire(settings.cache, warm_key(task, ctx, settings)) as slot:
        if not slot.ready():
            with history.checkout(task, settings.cache) as fresh:
                warm.make_pristine(slot, fresh.repo)
        warm.restore(slot.pristine, slot.repo)
        warm.note_added(slot, [])
        ws = Workspace(slot.root, task.sha)
        for folder in (ws.home, ws.reports):
            warm.restore_empty(folder)
        tree = Tree(ws, slot)
        prime(ctx, tree)
        yield tree


def prime(ctx: GradeContext, tree: Tree) -> None:
    """The SHA's build in the warm slot, with the instrumentation of the patched run."""
    assert tree.slot is not None
    ctx.clock.say("priming the warm build tree")
    base_tests = frozenset(it.file for it in ctx.base.inventory.items if is_test(it.kind))
    cpp_suite(ctx.suite).prime(
        tree.slot, ctx.instrument, Focus(test_sources=base_tests), tree.ws.new_dir("prime")
    )
    ctx.clock.lap("prime")


def warm_key(task: Task, ctx: GradeContext, settings: Settings) -> str:
    """What a warm build depends on besides the sources (warm.py)."""
    from patchwitness.suites.cpp import toolchain_versions

    return warm.slot_key(
        {
            "grader": grader_build(),
            "sha": task.sha,
            "cpp": task.options.cpp.model_dump(),
            "cwd": task.options.cwd,
            "env": cpp_suite(ctx.suite).env.key,
            "tools": toolchain_versions(),
            "sandbox": settings.sandbox,
        }
    )
