"""Where the patched tree lives: a fresh checkout of the SHA, removed afterwards; or, for a
language with warm build trees, a warm slot's repository restored to the SHA (warm.py), primed
with the SHA's build before the patch goes in."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from patchwitness import history, languages
from patchwitness.baseline import test_focus
from patchwitness.languages.cpp import cpp_suite
from patchwitness.phases.context import GradeContext, Tree
from patchwitness.warm_checkout import warm_checkout


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
