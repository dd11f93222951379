"""The compiler flag matrix over the patched tree (matrix/), with the warm slot's envelope
snapshots primed first when the tree is a warm one."""

from __future__ import annotations

from dataclasses import replace

from patchwitness import warm
from patchwitness.facts import MatrixCollected
from patchwitness.languages.cpp import cpp_suite
from patchwitness.patch import Patch
from patchwitness.phases.context import GradeContext, Tree
from patchwitness.workspace import Workspace


def collect_matrix(ctx: GradeContext, tree: Tree, patch: Patch) -> MatrixCollected:
    from patchwitness.matrix import collect as matrix

    plan = ctx.plan
    assert plan is not None
    suite = cpp_suite(ctx.suite)
    tools = matrix.Tools.of(ctx.settings, suite.env)
    if tree.slot is not None and plan.mode == "cmake":
        prime_envelopes(tree.ws, tree.slot, ctx)
        tools = replace(tools, slot=tree.slot)
        ctx.clock.lap("prime")
    ctx.clock.say(f"the flag matrix ({len(plan.envelopes)} envelopes)")
    tools = replace(tools, progress=ctx.clock.progress)
    found = matrix.collect(
        ctx.task,
        plan,
        tree.ws.repo,
        tree.ws.new_dir("matrix"),
        tools,
        patch_id=patch.sha256,
        patch=patch,
    )
    if plan.mode == "cmake" and ctx.failing:
        found.targets = list(ctx.failing)  # the failing tests as the baseline keys them
    ctx.clock.lap("matrix")
    return found


def prime_envelopes(ws: Workspace, slot: warm.Slot, ctx: GradeContext) -> None:
    """Snapshots of the pristine tree under each CMake envelope, made once per slot: the repo is
    put back to the SHA for them, and the patch applied again."""
    from patchwitness.matrix.cmake import prime_envelope, warm_name

    assert ctx.plan is not None
    missing = [e for e in ctx.plan.envelopes if not slot.has_snapshot(warm_name(e))]
    if not missing:
        return
    warm.restore(slot.pristine, slot.repo)
    for envelope in missing:
        prime_envelope(cpp_suite(ctx.suite), envelope, slot, ws.new_dir("prime"))
    ws.apply(ctx.data, allow_binary=ctx.task.options.patch.allow_binary)
