"""The scheduler of a grade: from a task and a patch to the facts a judge reads.

    facts = collect(task, patch_bytes, settings=settings, agent="claude")

It runs the phases (phases/) in order: git's reading of the patch checked; the task's
environment and the SHA's baseline; a checkout of the SHA with the patch applied, the census of
the touched files and their classes; the suite over the patched tree, while the patched text is
analysed in a thread beside it (patched_text.py); the hidden tests; the line hits on the hunk;
then the expensive phases only when they can still change the verdict (the pristine run, the
flag matrix), unless the settings ask for every gate. The scheduler alone asks the judge
(`rejecting`) whether a later phase is worth its cost, and records a skipped phase with its
reason. Nothing here decides. Anything the task, the patch or the code under grade does ends in
facts with a `stop` (apply-failed, invalid-task); an exception from here is a grader bug.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from patchwitness import failure_log, gitpatch, languages, patched_text, python_ast
from patchwitness.classify import GRADER, INFRA, PRODUCTION, TEST, Classified
from patchwitness.errors import GradeStop
from patchwitness.facts import GradeFacts, OutsideCollected, PristineCollected, Stop, TaskFacts
from patchwitness.model import build_models
from patchwitness.names import GateName
from patchwitness.patch import sha256_of
from patchwitness.phases import baseline as baseline_phase
from patchwitness.phases import hidden as hidden_phase
from patchwitness.phases import pristine
from patchwitness.phases.apply import Applied, add_compiler_command, apply
from patchwitness.phases.checkout import checkout
from patchwitness.phases.classes import builds_of, harness_of, reclassify
from patchwitness.phases.context import Clock, GradeContext, Tree
from patchwitness.phases.coverage import collect_coverage
from patchwitness.phases.elsewhere import Early, collect_elsewhere, failing_to_check
from patchwitness.phases.elsewhere import start_early as start_early_elsewhere
from patchwitness.phases.matrix import collect_matrix
from patchwitness.phases.mutants import EarlyMutants, collect_mutants
from patchwitness.phases.mutants import start_early as start_early_mutants
from patchwitness.phases.pinning import collect_pinning
from patchwitness.phases.prepare import prepare
from patchwitness.phases.reference import collect_reference
from patchwitness.phases.run import (
    Ran,
    SuiteOver,
    baseline_facts,
    focus_of,
    run_findings,
    run_patched,
    suite_facts,
)
from patchwitness.policy import Policy
from patchwitness.settings import Settings
from patchwitness.suites import Focus, SuiteRun
from patchwitness.task import Task
from patchwitness.workspace import as_text, require_commit, safe_read


def load_judge() -> None:
    """Import the judge and build every model (model.build_models): work for the thread beside
    the patched run."""
    importlib.import_module("patchwitness.judge")
    build_models()


def under_the_tree_lock(work: Callable[[], object]) -> None:
    """Work beside the run (the grader's, or a caller's) holds python_ast.LOCK: building models
    reads signatures, which builds syntax trees, and the main thread may build syntax trees
    again before that work ends."""
    with python_ast.LOCK:
        work()


def rejecting(facts: GradeFacts, policy: Policy) -> str:
    """`judge.rejecting`. The judge (its gates, its tables) is imported in the thread beside the
    patched run, which needs none of it: the first grade of a process does not wait for it."""
    from patchwitness import judge

    return judge.rejecting(facts, policy)


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def task_facts(task: Task, failing: list[str] | None = None) -> TaskFacts:
    return TaskFacts(
        name=task.name,
        language=task.language,
        repo_sha=task.sha,
        mode=task.options.mode,
        allow_test_edits=task.allow_test_edits,
        failing_ids=list(task.failing_ids),
        failing=list(failing if failing is not None else task.failing_ids),
        timeout_s=task.timeout,
        test_additions=task.options.policy.test_additions,
        special_casing=task.options.policy.special_casing,
        hidden=task.hidden,
        allowlist=list(task.allowlist),
    )


def stopped_facts(
    task: TaskFacts, agent: str, data: bytes, stop: GradeStop, patch_path: str = ""
) -> GradeFacts:
    return GradeFacts(
        task=task,
        agent=agent,
        patch_sha256=sha256_of(data),
        patch_path=patch_path,
        stop=stop_of(stop),
        started_at=now(),
    )


def stop_of(stop: GradeStop, detail: str | None = None) -> Stop:
    return Stop(
        label=stop.label,
        grade=stop.grade,
        detail=str(stop) if detail is None else detail,
        row=stop.row,
    )


def collect(
    task: Task,
    data: bytes,
    *,
    agent: str = "agent",
    settings: Settings | None = None,
    patch_path: str = "",
    progress: Callable[[str], None] | None = None,
    beside: Callable[[], object] | None = None,
) -> GradeFacts:
    """`progress` hears what the grade does now, phase by phase (a terminal's status line).
    `beside` is called in the thread beside the patched run, for work the caller will need after
    the grade (the CLI imports its verdict table); its result and errors are not kept."""
    settings = settings or Settings()
    clock = Clock(progress=progress)
    facts = GradeFacts(
        task=task_facts(task), agent=agent, patch_sha256=sha256_of(data), patch_path=patch_path
    )
    facts.started_at = now()
    try:
        # Git's reading of the patch, checked before anything is spent on it (gitpatch.py).
        gitpatch.precheck(data, allow_binary=task.options.patch.allow_binary)
        require_commit(task.repo, task.sha)
        clock.say("the task's environment")
        prepared = prepare(task, settings)
        clock.lap("setup")
        facts.fingerprint = prepared.fingerprint
        bases = baseline_phase.obtain(task, prepared.suite, settings, clock)
        # With hidden tests the failing ids are the hidden run's: the visible run names none.
        failing = () if task.hidden else tuple(bases.base.failing_keys(task.failing_ids))
        ctx = GradeContext(
            task,
            data,
            settings,
            clock,
            prepared.suite,
            bases.base,
            bases.secret,
            prepared.plan,
            failing,
        )
        facts.task = task_facts(task, list(failing))
        _grade_patched(facts, ctx, beside)
    except GradeStop as stop:
        facts.stop = stop_of(stop, failure_log.detail(stop, settings.artifacts))
    facts.timings = clock.timings()
    return facts


def _grade_patched(
    facts: GradeFacts, ctx: GradeContext, caller_work: Callable[[], object] | None
) -> None:
    with (
        checkout(ctx) as tree,
        ThreadPoolExecutor(max_workers=1, thread_name_prefix="patched-text") as beside,
        # Waited for on the way out, whatever happened: no run outlives its grade.
        ThreadPoolExecutor(max_workers=1, thread_name_prefix="elsewhere") as early_pool,
    ):
        applied = _apply(facts, ctx, tree)
        # Read now, analysed while the suite runs: the run may rewrite its tree. Nothing below
        # builds a syntax tree in this thread until both are done (python_ast.py).
        reading = beside.submit(patched_text.analyse, _reading(ctx, tree, applied))
        judge_loaded = beside.submit(under_the_tree_lock, load_judge)  # see `rejecting`
        if caller_work is not None:
            beside.submit(under_the_tree_lock, caller_work)  # not waited for until the end
        facts.baseline = baseline_facts(ctx)
        focus = focus_of(applied, ctx.task.hidden_patch(), decisions=ctx.settings.decisions)
        run_suite = SuiteOver(ctx, tree, focus)
        early = _early_pristine(facts, ctx, applied)
        stop = threading.Event()
        early_elsewhere, early_mutants = None, None
        # Runs start beside the patched one only when nothing known before it (a test file
        # edited, hidden tests to run) may decide the grade without them.
        if not (_edits_tests(applied.classes) or ctx.task.hidden):
            early_elsewhere = start_early_elsewhere(ctx, early_pool, stop)
            early_mutants = start_early_mutants(ctx, early_pool, applied, reading, stop)
        try:
            _after_apply(
                facts, ctx, tree, applied, run_suite, reading, judge_loaded, early,
                (early_elsewhere, early_mutants),
            )  # fmt: skip
        finally:
            stop.set()  # what the runs beside were not asked for by now is not wanted: killed
    ctx.clock.lap("cleanup")  # removing the patched workspace (its build trees)


def _after_apply(
    facts: GradeFacts,
    ctx: GradeContext,
    tree: Tree,
    applied: Applied,
    run_suite: SuiteOver,
    reading: Future[patched_text.TextFacts],
    judge_loaded: Future[None],
    early: Future[SuiteRun] | None,
    beside: tuple[Early | None, EarlyMutants | None],
) -> None:
    """The patched run and every phase after it (`beside`: the runs started beside it)."""
    early_elsewhere, early_mutants = beside
    ran = _run(facts, ctx, applied, run_suite)
    # The classes again, knowing what the patched run loaded and compiled.
    classes = reclassify(applied.classes, ran.after, applied.test_sources, applied.source)
    applied = replace(applied, classes=classes)
    facts.files = applied.files
    text_facts = reading.result()
    judge_loaded.result()
    measured, where = _findings_and_hidden(facts, ctx, applied, ran, run_suite, text_facts)
    ctx.clock.lap("tests")
    if ctx.wants_coverage:
        ctx.clock.say("coverage on the hunk")
        # Coverage is read where the failing tests ran: the hidden run, when there is one.
        read = collect_coverage(ctx, applied, measured, tree.ws.repo, where, text_facts)
        facts.coverage = read.collected
        if ctx.settings.decisions:
            facts.pinning = collect_pinning(
                read.sources, read.hits, text_facts.texts, read.collected.measurable
            )
        facts.coverage.facts.pragmas_added = [
            f"{f.file}:{f.line}" for f in facts.findings if f.kind == "pragma-added"
        ]
        ctx.clock.lap("coverage")
    _pristine(facts, ctx, applied, early)
    _elsewhere(facts, ctx, tree, measured, run_suite, early_elsewhere)
    _matrix(facts, ctx, tree, applied, ran.after)
    _mutants(facts, ctx, tree, applied, measured, text_facts, run_suite.focus, early_mutants)
    _reference(facts, ctx, tree, applied, measured, text_facts)


def _edits_tests(classes: dict[str, Classified]) -> bool:
    """Whether the patch touches a test, the test infrastructure or the grader's own files."""
    return any(c.kind in (TEST, INFRA, GRADER) for c in classes.values())


def _apply(facts: GradeFacts, ctx: GradeContext, tree: Tree) -> Applied:
    applied = apply(ctx, tree)
    facts.files = applied.files
    hidden_patch = ctx.task.hidden_patch()
    if ctx.secret is not None and hidden_patch is not None:
        facts.hidden = hidden_phase.hidden_collected(
            ctx.task, applied.patch, hidden_patch, ctx.secret
        )
    facts.census = applied.census
    facts.test_edit, facts.test_edit_why = applied.test_edit, applied.test_edit_why
    return applied


def _reading(ctx: GradeContext, tree: Tree, applied: Applied) -> patched_text.Reading:
    """What the thread beside the run analyses: the patched files' text as the patch left it."""
    base, repo = ctx.base, tree.ws.repo
    return patched_text.Reading(
        ctx.task,
        applied.patch,
        applied.classes,
        patched_text.read_patched(applied.patch, applied.classes, repo),
        base,
        list(ctx.failing),
        ctx.task.hidden_patch(),
        for_coverage=ctx.wants_coverage,
        harness=harness_of(base, ctx.suite),
        own=applied.source.own_names(),
        builds=builds_of(ctx.task, base, ctx.instrument, applied.test_sources, repo, ctx.suite),
    )


def _early_pristine(
    facts: GradeFacts, ctx: GradeContext, applied: Applied
) -> Future[SuiteRun] | None:
    """An additive test edit is always judged by its pristine run: where the language allows,
    that run starts now, beside the patched one."""
    if not pristine.is_additive(facts.test_edit, ctx.task):
        return None
    return pristine.start_early(ctx, pristine.reverted_paths(applied.classes))


def _run(facts: GradeFacts, ctx: GradeContext, applied: Applied, run_suite: SuiteOver) -> Ran:
    """The patched run, carrying the hidden tests when one run will do."""
    hidden = facts.hidden
    carried = hidden is not None and hidden_phase.one_run_will_do(
        hidden, applied.patch, applied.classes
    )
    ran = run_patched(ctx, run_suite, facts.baseline, hidden if carried else None)
    facts.baseline = ran.baseline
    facts.after = suite_facts(ran.after)
    facts.runs["after"] = ran.after.run.run
    return ran


def _findings_and_hidden(
    facts: GradeFacts,
    ctx: GradeContext,
    applied: Applied,
    ran: Ran,
    run_suite: SuiteOver,
    text_facts: patched_text.TextFacts,
) -> tuple[SuiteRun, Path]:
    """What the text and the run say, then the hidden run when the visible one did not carry
    it. Returns the run the failing tests ran in, and where it left its data."""
    facts.special_values_from = text_facts.special_values_from
    edited = _edits_tests(applied.classes)
    focus, after = run_suite.focus, ran.after
    facts.findings = text_facts.findings + run_findings(
        ctx.base, after, focus, ctx.instrument, edited
    )
    if facts.census.artifacts and after.build is not None:
        add_compiler_command(facts.census.artifacts, after.build.compiler_command)
    secret_run, where = ran.secret, ran.measured
    hidden = facts.hidden
    if hidden is not None and ctx.secret is not None and secret_run is None:
        secret_run, hidden_dir = hidden_phase.run_hidden(
            hidden, run_suite.tree.ws, ctx.task, after, ctx.secret, run_suite
        )
        where = hidden_dir if hidden_dir is not None else where
    if secret_run is None:
        return after, where
    assert hidden is not None
    hidden.run = suite_facts(secret_run)
    if not hidden.one_run:
        facts.runs["hidden"] = secret_run.run.run
    found = run_findings(ctx.base, secret_run, focus, ctx.instrument, edited)
    facts.findings += [f for f in found if f not in facts.findings]
    return secret_run, where


def _pristine(
    facts: GradeFacts, ctx: GradeContext, applied: Applied, early: Future[SuiteRun] | None
) -> None:
    """The pristine run, when the patch edited tests and the run can still matter: it decides a
    purely additive test edit (always), and checks a tests-authored one (unless another gate
    already rejected the patch)."""
    reverted = pristine.reverted_paths(applied.classes)
    if not reverted:
        return
    task = ctx.task
    additive = pristine.is_additive(facts.test_edit, task)
    if not (additive or pristine.wants_pristine(task)):
        facts.pristine = PristineCollected(
            skipped=f"pristine = {task.options.pristine}: the test edit already decides this task"
        )
        return
    rejected = rejecting(facts, ctx.settings.policy)
    if rejected and not additive and not ctx.settings.all_gates:
        facts.pristine = PristineCollected(skipped=f"{rejected} already rejected the patch")
        facts.skipped["pristine"] = facts.pristine.skipped
        return
    facts.pristine = pristine.collect_pristine(ctx, reverted, early, facts.baseline.plain_outcomes)
    assert facts.pristine.run is not None
    facts.runs["pristine"] = facts.pristine.run.run.run


def _elsewhere(
    facts: GradeFacts,
    ctx: GradeContext,
    tree: Tree,
    after: SuiteRun,
    run_suite: SuiteOver,
    early: Early | None,
) -> None:
    """The failing tests once more, elsewhere, unless the run they ran in (`after`: the hidden
    run, with hidden tests) did not build or finish, or another gate already rejected the
    patch (`early`: the run started beside the patched one, then unread)."""
    if _skipped(facts, ctx, after, "elsewhere"):
        return
    facts.elsewhere, found = collect_elsewhere(
        ctx, tree, after, run_suite.focus, facts.hidden, early
    )
    facts.findings += found
    _outside(facts, ctx, tree, after)


def _outside(facts: GradeFacts, ctx: GradeContext, tree: Tree, after: SuiteRun) -> None:
    """The failing tests outside their harness: a C++ task's as a user's program, a Python
    task's called from a script (each imported here: a grade loads no other language's half)."""
    checked = failing_to_check(ctx, after, facts.hidden)
    how = languages.of(ctx.task).outside
    if how == "program":
        from patchwitness.phases.cpp_outside import collect_outside

        if facts.hidden is not None:
            why = "hidden tests over a warm build: not asked yet"
            facts.outside = OutsideCollected(skipped=why)
            return
        facts.outside, found = collect_outside(ctx, tree, after, checked)
    elif how == "script":
        from patchwitness.phases.python_outside import collect_outside as called

        facts.outside, found = called(ctx, tree, after, checked, facts.hidden)
    else:
        return
    facts.findings += found


def _matrix(
    facts: GradeFacts, ctx: GradeContext, tree: Tree, applied: Applied, after: SuiteRun
) -> None:
    """The flag matrix, unless the patched run did not build or another gate already rejected
    the patch (every gate asked for: it runs anyway)."""
    if ctx.plan is None:
        return
    rejected = rejecting(facts, ctx.settings.policy)
    if after.build_failed or after.timed_out:
        facts.skipped[GateName.MATRIX] = "the patched run did not build or finish"
    elif rejected and not ctx.settings.all_gates:
        facts.skipped[GateName.MATRIX] = f"{rejected} already rejected the patch"
    else:
        facts.matrix = collect_matrix(ctx, tree, applied.patch)


def _mutants(
    facts: GradeFacts,
    ctx: GradeContext,
    tree: Tree,
    applied: Applied,
    measured: SuiteRun,
    text_facts: patched_text.TextFacts,
    focus: Focus,
    early: EarlyMutants | None,
) -> None:
    """Mutants of the added production lines, unless the run the failing tests ran in did not
    finish or another gate already rejected the patch (every gate asked for: they run anyway).
    `early`: the failing tests' answers over them, asked beside the patched run."""
    if facts.pinning is None or not ctx.settings.mutants:
        return  # not asked for (nor is coverage, without which nothing is asked of the tests)
    if _skipped(facts, ctx, measured, "mutants"):
        return
    late = _production_since_the_run(applied, tree, set(text_facts.texts))
    texts = {**late, **text_facts.changed_programs()}
    facts.mutants = collect_mutants(ctx, tree, applied, measured, texts, facts.hidden, focus, early)


def _production_since_the_run(
    applied: Applied, tree: Tree, read: set[str]
) -> dict[str, str | None]:
    """The text of each file the patched run showed to be production that the patch's reading
    did not know as such (a `table.inc` the library's build includes: red team round 33): an
    added file is its added lines; another is read from the tree."""
    out: dict[str, str | None] = {}
    for change in applied.patch.files:
        if change.path in read or change.status == "removed":
            continue
        if applied.classes[change.path].kind != PRODUCTION:
            continue
        if change.status == "added":
            out[change.path] = "".join(f"{line}\n" for _, line in change.added)
        else:
            out[change.path] = as_text(safe_read(tree.ws.repo, change.path))
    return out


def _reference(
    facts: GradeFacts,
    ctx: GradeContext,
    tree: Tree,
    applied: Applied,
    measured: SuiteRun,
    text_facts: patched_text.TextFacts,
) -> None:
    """The patch beside the task's reference fix, when the task has one, unless the run the
    failing tests ran in did not finish or another gate already rejected the patch. A
    reference that does not pass the task stops the grade (invalid-task)."""
    if ctx.task.reference is None or not ctx.settings.reference:
        return
    if _skipped(facts, ctx, measured, "reference"):
        return
    facts.reference = collect_reference(
        ctx, tree, applied, text_facts.texts, facts.hidden, measured
    )


def _skipped(facts: GradeFacts, ctx: GradeContext, measured: SuiteRun, phase: str) -> bool:
    """Whether a phase that asks more of the run the failing tests ran in (`measured`) is left
    out, and why (kept in the facts): that run did not build or finish, or a gate already
    rejected the patch and not every gate was asked for."""
    if measured.build_failed or measured.timed_out or not measured.started:
        facts.skipped[phase] = "the run the failing tests ran in did not build or finish"
        return True
    rejected = rejecting(facts, ctx.settings.policy)
    if rejected and not ctx.settings.all_gates:
        facts.skipped[phase] = f"{rejected} already rejected the patch"
        return True
    return False
