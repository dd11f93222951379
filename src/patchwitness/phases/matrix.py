"""The compiler flag matrix over the patched tree (matrix/). In a warm tree the SHA's side is
made in the slot: each envelope's snapshot is built once per slot, and the SHA's cells are that
build's tests (once per SHA: cached), so a first grade builds each envelope once at the SHA, not
once in a fresh checkout and again to prime the slot."""

from __future__ import annotations

from dataclasses import replace

from patchwitness import warm
from patchwitness.facts import MatrixCollected
from patchwitness.languages.cpp import cpp_suite
from patchwitness.model import Cell
from patchwitness.patch import Patch
from patchwitness.phases.context import GradeContext, Tree


def collect_matrix(ctx: GradeContext, tree: Tree, patch: Patch) -> MatrixCollected:
    from patchwitness.matrix import collect as matrix

    plan = ctx.plan
    assert plan is not None
    suite = cpp_suite(ctx.suite)
    tools = matrix.Tools.of(ctx.settings, suite.env)
    baseline = None
    if tree.slot is not None and plan.mode == "cmake":
        tools = replace(tools, slot=tree.slot)
        baseline = sha_in_slot(ctx, tree, tools)
        ctx.clock.lap("prime")
    ctx.clock.say(f"the flag matrix ({len(plan.envelopes)} envelopes)")
    tools = replace(tools, progress=ctx.clock.progress)
    found = matrix.collect(
        ctx.task,
        plan,
        tree.ws.repo,
        tree.ws.new_dir("matrix"),
        tools,
        baseline=baseline,
        patch_id=patch.sha256,
        patch=patch,
    )
    if plan.mode == "cmake" and ctx.failing:
        found.targets = list(ctx.failing)  # the failing tests as the baseline keys them
    ctx.clock.lap("matrix")
    return found


def sha_in_slot(ctx: GradeContext, tree: Tree, tools) -> list[Cell]:
    """The SHA's cells, from the cache or run in the slot, with each envelope's snapshot made
    first where the slot has none. The slot's repository is put back to the SHA for them and
    the patch applied again afterwards (the SHA's tests may write to it)."""
    from patchwitness.matrix import collect as matrix
    from patchwitness.matrix import run
    from patchwitness.matrix.cmake import prime_envelope, warm_name

    plan, slot, ws = ctx.plan, tree.slot, tree.ws
    assert plan is not None and slot is not None
    missing = [e for e in plan.envelopes if not slot.has_snapshot(warm_name(e))]
    at_sha = False

    def to_sha() -> None:
        nonlocal at_sha
        if not at_sha:
            warm.restore(slot.pristine, slot.repo)
            at_sha = True

    def cells() -> list[Cell]:
        to_sha()
        ctx.clock.say(f"the flag matrix at the SHA ({len(plan.envelopes)} envelopes)")
        quiet = replace(tools, at_sha=True, progress=None)
        return run.baseline_cells(ctx.task, slot.repo, ws.new_dir("matrix-sha"), plan, quiet)

    if missing:
        to_sha()
        ctx.clock.say(f"building the SHA under {len(missing)} envelopes")
        for envelope in missing:
            prime_envelope(cpp_suite(ctx.suite), envelope, slot, ws.new_dir("prime"))
    try:
        return matrix.obtain_baseline(ctx.task, plan, tools, compute=cells)
    finally:
        if at_sha:
            ws.apply(ctx.data, allow_binary=ctx.task.options.patch.allow_binary)
