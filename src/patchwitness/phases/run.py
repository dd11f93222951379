"""The suite over the patched tree, instrumented as the SHA was, and what its reports and its
surface say beside the outcomes."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from patchwitness import baseline as baselines
from patchwitness import buildgraph
from patchwitness.classify import PRODUCTION
from patchwitness.facts import BaselineFacts, HiddenCollected, SuiteFacts
from patchwitness.languages.cpp import cpp_suite
from patchwitness.model import Finding, TestRun
from patchwitness.names import GateName
from patchwitness.patch import Patch
from patchwitness.phases.apply import Applied
from patchwitness.phases.context import GradeContext, Tree
from patchwitness.phases.hidden import hidden_applied, project_baseline, visible_part
from patchwitness.suites import (
    Focus,
    Instrumentation,
    SuiteRun,
    changes,
    fill_broken,
    self_written,
)


def focus_of(applied: Applied, hidden_patch: Patch | None, decisions: bool = True) -> Focus:
    """What the run may leave out or must watch: the changed paths, the test sources, the
    patched production Python files whose hits the coverage gate reads, and the lines of them
    whose decisions the pinning gate reads."""
    traced = frozenset(
        p for p, c in applied.classes.items() if c.kind == PRODUCTION and p.endswith(".py")
    )
    focus = Focus(
        changed=tuple(c.path for c in applied.patch.files),
        test_sources=applied.test_sources,
        traced=traced,
        decided={
            c.path: tuple(c.added_lines)
            for c in applied.patch.files
            if decisions and c.path in traced and c.added_lines
        },
    )
    if hidden_patch is not None:
        focus = replace(focus, test_sources=focus.test_sources | frozenset(hidden_patch.touched()))
    return focus


@dataclass(frozen=True)
class SuiteOver:
    """The suite over the patched tree, one run per call, each in a scratch folder of its own."""

    ctx: GradeContext
    tree: Tree
    focus: Focus

    def __call__(self, where: str) -> tuple[SuiteRun, Path]:
        ctx, tree = self.ctx, self.tree
        ctx.clock.say("building and running the tests" if where == "after" else f"the {where} run")
        scratch = tree.ws.new_dir(where)
        if tree.slot is not None:
            run = cpp_suite(ctx.suite).run(
                tree.ws.repo, scratch, instrument=ctx.instrument, focus=self.focus, slot=tree.slot
            )
        else:
            run = ctx.suite.run(tree.ws.repo, scratch, instrument=ctx.instrument, focus=self.focus)
        return run, scratch


@dataclass(frozen=True)
class Ran:
    after: SuiteRun  # the patched run, as the visible tests saw it
    measured: Path  # where the run that the failing tests ran in left its data
    baseline: BaselineFacts  # the SHA's side, as the visible tests saw it
    secret: SuiteRun | None = None  # the hidden tests, when the same run carried them


def baseline_facts(ctx: GradeContext) -> BaselineFacts:
    """The SHA's side of every comparison, under the patched run's instrumentation."""
    base, instrument = ctx.base, ctx.instrument
    return BaselineFacts(
        key=base.key,
        outcomes=base.instrumented_outcomes if instrument is not None else base.outcomes,
        plain_outcomes=base.outcomes,
        ids=dict(base.run.ids),
        flaky=list(base.flaky),
        unstable_ids=list(base.unstable_ids),
        runs=base.runs,
        cases=base.cases(instrumented=instrument is not None),
    )


def run_patched(
    ctx: GradeContext, run_suite: SuiteOver, before: BaselineFacts, hidden: HiddenCollected | None
) -> Ran:
    """The patched run. With `hidden` (one run will do, hidden.one_run_will_do) the hidden tests
    are applied first and the one run carries both: the visible transitions are read outside
    the hidden files."""
    if hidden is not None:
        assert ctx.secret is not None
        with hidden_applied(run_suite.tree.ws, ctx.task, hidden) as applied:
            carried = run_suite("after") if applied else None
        if carried is not None:
            secret, measured = carried
            fill_broken(secret, ctx.secret.outcomes)
            hidden.one_run = True
            after = visible_part(secret, hidden.files)
            return Ran(after, measured, project_baseline(before, hidden.files), secret)
    after, measured = run_suite("after")
    fill_broken(after, before.outcomes)
    return Ran(after, measured, before)


def contradicted_passes(at_sha: TestRun, patched: TestRun) -> list[str]:
    """Tests ctest passed by their output alone while the program exited non-zero, where the
    SHA's run did not already pass them so: production code printed what the pass expression
    looks for. A test whose program always exits non-zero by design (an example that prints its
    usage error) passes the same way at the SHA, and is no finding."""
    out = []
    for name, status in sorted(patched.exits.items()):
        before = at_sha.exits.get(name, 0)
        if (
            status != 0
            and patched.outcomes.get(name) == "passed"
            and not (at_sha.outcomes.get(name) == "passed" and before != 0)
        ):
            out.append(
                f"{name} passed by its output alone (PASS_REGULAR_EXPRESSION) while its program "
                f"exits {status}: the output says pass, the program says fail"
            )
    return out


def disowned_exit(run: TestRun) -> str:
    """Why the status pytest's process exited with contradicts the run's own report ('' when
    it does not): the report is written from inside the process under test, the status is
    what the runner saw from outside."""
    status, facts = run.run.returncode, run.run
    if run.reported_exit is None or status is None or facts.timed_out or facts.killed_reason:
        return ""
    if status != run.reported_exit:
        return f"pytest's process exited {status} while its report ends with {run.reported_exit}"
    if status == 1 and not any(o in ("failed", "error") for o in run.outcomes.values()):
        return "pytest's process exited 1 (tests failed) while no test of its report failed"
    return ""


def exit_contradictions(at_sha: TestRun, patched: TestRun) -> list[str]:
    """A patched run whose exit status disowns its report, where the SHA's run's did not (a
    project whose conftest sets the session's status, `exitstatus 5 -> 0`, does so at the SHA
    too): code in the process rewrote what the report says."""
    why = disowned_exit(patched)
    if not why or disowned_exit(at_sha):
        return []
    return [f"{why}: the report was rewritten inside the process"]


def run_findings(
    base: baselines.Baseline,
    after: SuiteRun,
    focus: Focus,
    instrument: Instrumentation | None = None,
    test_edit: bool = False,
) -> list[Finding]:
    """What the patched run's reports and surface say. A surface that differs from the SHA's
    is a finding unless the patch edited tests or test infrastructure, whose edits explain it
    and are judged as such; a production compile with other flags is one whatever the patch
    edited."""
    out = [Finding(gate=GateName.DRIFT, kind="report-tamper", message=t) for t in after.tamper]
    out += [
        Finding(gate=GateName.DRIFT, kind="report-tamper", message=m)
        for m in [
            *contradicted_passes(base.run, after.run),
            *exit_contradictions(base.run, after.run),
        ]
    ]
    differs = [] if test_edit else changes(base.surface, after.surface)
    before = base.graph_for(instrument)
    differs += buildgraph.changes(before, after.graph, test_edit, focus.test_sources)
    differs += self_written(base.surface, after.surface)  # whatever the patch edited
    out += [Finding(gate=GateName.SURFACE, kind="surface-changed", message=m) for m in differs]
    for problem in after.problems:
        out.append(Finding(gate=GateName.DRIFT, kind="report-problem", message=problem))
    for hook, owners in sorted(after.hooks.items()):
        added = sorted(set(owners) - set(base.hooks.get(hook, [])))
        for owner in added:
            out.append(
                Finding(
                    gate=GateName.DRIFT,
                    kind="report-hook-added",
                    file=owner,
                    message=f"{owner} now implements {hook}",
                )
            )
    return out


def suite_facts(run: SuiteRun) -> SuiteFacts:
    return SuiteFacts(
        run=run.run,
        started=run.started,
        timed_out=run.timed_out,
        build_failed=run.build_failed,
        build=run.build,
        tamper=list(run.tamper),
    )
