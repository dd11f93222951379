"""Where the patched tree lives: a fresh checkout of the SHA, removed afterwards; or, for a
language with warm build trees, a warm slot's repository restored to the SHA (warm.py), primed
with the SHA's build before the patch goes in. And the fresh patched trees that the runs after
the grader's own take, so that no run reads what an earlier one left."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from patchwitness import history, languages
from patchwitness.baseline import test_focus
from patchwitness.facts import HiddenCollected
from patchwitness.languages.cpp import cpp_suite
from patchwitness.phases.context import GradeContext, Tree
from patchwitness.phases.hidden import hidden_applied
from patchwitness.warm_checkout import warm_checkout
from patchwitness.workspace import Workspace


@contextlib.contextmanager
def checkout(ctx: GradeContext) -> Iterator[Tree]:
    ctx.clock.say("checking out the SHA")
    task, settings = ctx.task, ctx.settings
    if not (settings.warm and languages.of(task).warm_trees):
        with history.checkout(task, settings.cache) as ws:
            yield Tree(ws, None)
        return
    with warm_checkout(task, ctx.suite, settings) as (ws, slot):
        tree = Tree(ws, slot)
        prime(ctx, tree)
        yield tree


def prime(ctx: GradeContext, tree: Tree) -> None:
    """The SHA's build in the warm slot, with the instrumentation of the patched run."""
    assert tree.slot is not None
    ctx.clock.say("priming the warm build tree")
    cpp_suite(ctx.suite).prime(
        tree.slot, ctx.instrument, test_focus(ctx.base.inventory), tree.ws.new_dir("prime")
    )
    ctx.clock.lap("prime")


@contextlib.contextmanager
def fresh_patched(
    ctx: GradeContext, hidden: HiddenCollected | None = None, *, unnamed: bool = False
) -> Iterator[Workspace | None]:
    """A fresh checkout of the SHA with the patch applied, and the hidden tests as for the
    grader's run (None when they do not apply there): a tree no earlier run wrote into. A run
    can leave files in its tree, and code that finds them knows it is not the first run (red
    team round 27 kept a marker beside the package: every run after the grader's read as
    another program). `unnamed`: at a path with none of the names of the grader's trees."""
    with history.checkout(ctx.task, ctx.settings.cache, unnamed=unnamed) as ws:
        ws.apply(ctx.data, allow_binary=ctx.task.options.patch.allow_binary)
        if hidden is None:
            yield ws
            return
        with hidden_applied(ws, ctx.task, hidden.model_copy(deep=True)) as ok:
            yield ws if ok else None
