"""All the I/O of a grade: from a task and a patch to the facts a judge reads.

    facts = collect(task, patch_bytes, settings=settings, agent="claude")

In order: parse the patch; build or reuse the task's environment and baseline; check the patch out
over a fresh checkout of the SHA; take the census again over the files it touched; classify them;
run the suite over the patched tree, instrumented as the SHA was, while the patched text is
analysed in a thread (patched_text.py); read the line hits; then the
expensive parts only when they can still change the verdict (the pristine run, the flag matrix),
unless the settings ask for every gate. Nothing here decides: the cheap gates are consulted
(`judge.rejecting`) only to know whether the expensive facts are worth gathering, and a skipped
part is recorded with its reason. Anything the task, the patch or the code under grade does ends in
facts with a `stop` (apply-failed, invalid-task); an exception from here is a grader bug.
"""

from __future__ import annotations

import contextlib
import importlib
import re
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from patchwitness import (
    atomic,
    failure_log,
    fingerprint,
    gitpatch,
    hidden,
    history,
    languages,
    patched_text,
    python_ast,
    reads,
    sourcefiles,
    testfiles,
    warm,
)
from patchwitness import baseline as baselines
from patchwitness.build_id import grader_build
from patchwitness.census.items import Inventory, diff_inventories, is_test, kind_of
from patchwitness.census.scan import scan_paths
from patchwitness.classify import (
    GRADER,
    INFRA,
    PRODUCTION,
    TEST,
    Classified,
    ClassifyContext,
    SourceMap,
)
from patchwitness.classify import classify as classify_file
from patchwitness.environment import prepare
from patchwitness.errors import ApplyFailed, GradeStop
from patchwitness.facts import (
    BaselineFacts,
    ChangedFile,
    CoverageCollected,
    GradeFacts,
    HiddenCollected,
    PristineCollected,
    Stop,
    SuiteFacts,
    TaskFacts,
)
from patchwitness.gates import census as census_gate
from patchwitness.hits import collect as collect_hits
from patchwitness.hits import unmeasured
from patchwitness.model import Finding, Fingerprint, TestRun, Timings, build_models
from patchwitness.patch import FileChange, Patch, sha256_of
from patchwitness.policy import Policy
from patchwitness.settings import Settings
from patchwitness.suites import Focus, Instrumentation, Suite, SuiteRun, fill_broken
from patchwitness.suites.python import PythonSuite
from patchwitness.task import Task
from patchwitness.workspace import Workspace, as_text, require_commit, safe_read, show_at

if TYPE_CHECKING:
    from patchwitness.matrix.collect import Matrix
    from patchwitness.suites.cpp import CppSuite


@dataclass
class Clock:
    """The time each phase of a grade took, and (for a person watching) what it does now."""

    started: float = field(default_factory=time.monotonic)
    phases: dict[str, float] = field(default_factory=dict)
    _last: float = field(default_factory=time.monotonic)
    progress: Callable[[str], None] | None = None

    def say(self, doing: str) -> None:
        if self.progress is not None:
            self.progress(doing)

    def lap(self, name: str) -> None:
        now = time.monotonic()
        self.phases[name] = round(self.phases.get(name, 0.0) + now - self._last, 3)
        self._last = now

    def timings(self) -> Timings:
        return Timings(total_s=round(time.monotonic() - self.started, 3), phases=self.phases)


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


def make_suite(task: Task, settings: Settings) -> Suite:
    env = prepare(task, settings.runner, settings.cache)
    return languages.of(task).make_suite(task, env, settings.runner)


def matrix_plan(task: Task, settings: Settings) -> Matrix | None:
    if not languages.of(task).flag_matrix:
        return None
    from patchwitness.matrix import collect as matrix

    return matrix.load_plan(task) if matrix.applies(task, settings) else None


def make_fingerprint(
    task: Task, suite: Suite, settings: Settings, plan: Matrix | None
) -> Fingerprint:
    versions = suite.versions()
    manifests = {"task": task.files_sha256[:16]}
    if plan is not None:
        manifests["matrix"] = plan.sha256[:16]
    warnings = settings.runner.warnings
    if settings.sandbox == "none" and not warnings:
        warnings.append("no sandbox: the code under grade ran with resource limits only")
    if isinstance(suite, PythonSuite) and suite.env.surface.plugin_variables() is None:
        warnings.append(
            "pytest plugins load automatically: this pytest cannot be told the environment's "
            "plugins by name, so a plugin a file of the tree declares could load too"
        )
    return fingerprint.build(
        test_cmd=task.test_cmd,
        timeout_s=task.timeout,
        sandbox=settings.sandbox,
        versions=versions,
        compiler=versions.get("compiler"),
        gcov=versions.get("gcov"),
        manifests=manifests,
        warnings=warnings,
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
        plan = matrix_plan(task, settings)
        clock.say("the task's environment")
        suite = make_suite(task, settings)
        clock.lap("setup")
        facts.fingerprint = make_fingerprint(task, suite, settings, plan)
        clock.say("the tests at the SHA (once per task)")
        base = baselines.obtain(task, suite, settings)
        if task.hidden:
            clock.say("the hidden tests at the SHA (once per task)")
        secret = baselines.obtain_hidden(task, suite, settings, base) if task.hidden else None
        clock.lap("baseline")
        _collect_patched(facts, task, data, suite, base, secret, settings, plan, clock, beside)
    except GradeStop as stop:
        facts.stop = stop_of(stop, failure_log.detail(stop, settings.artifacts))
    facts.timings = clock.timings()
    return facts


def _collect_patched(
    facts: GradeFacts,
    task: Task,
    data: bytes,
    suite: Suite,
    base: baselines.Baseline,
    secret: baselines.Baseline | None,
    settings: Settings,
    plan: Matrix | None,
    clock: Clock,
    caller_work: Callable[[], object] | None,
) -> None:
    # With hidden tests the failing ids are the hidden run's: the visible run names none.
    failing = [] if task.hidden else base.failing_keys(task.failing_ids)
    facts.task = task_facts(task, failing)
    wants_coverage = settings.coverage and task.options.coverage.enabled
    # The patched run uses the instrumentation the SHA was measured with, and is compared with
    # the SHA's outcomes under it: like with like. None: no instrumentation works at the SHA, so
    # the run is plain and coverage is not measurable.
    instrument = base.instrumentation if wants_coverage else None
    clock.say("checking out the SHA")
    with (
        checkout(task, settings, suite) as (ws, slot),
        ThreadPoolExecutor(max_workers=1, thread_name_prefix="patched-text") as beside,
    ):
        if slot is not None:
            clock.say("priming the warm build tree")
            base_tests = frozenset(it.file for it in base.inventory.items if is_test(it.kind))
            cpp_suite(suite).prime(
                slot, instrument, Focus(test_sources=base_tests), ws.new_dir("prime")
            )
            clock.lap("prime")
        patch = ws.apply(data, allow_binary=task.options.patch.allow_binary)
        if slot is not None:
            warm.note_added(slot, [c.path for c in patch.files if c.status == "added"])
        clock.lap("apply")
        clock.say("the census of the touched files")
        touched = sorted(patch.touched())
        rescanned = scan_paths(ws.repo, touched, baselines.scan_options(task, base.pytest_config))
        after_inventory = base.inventory.replace_files(rescanned, touched)
        source = source_map(task, suite, base, patch, ws.repo)
        classes = classify_patch(task, patch, ws.repo, base, rescanned, source)
        facts.files = [
            ChangedFile(path=p, kind=c.kind, why=c.why, status=_status(patch, p))
            for p, c in classes.items()
        ]
        hidden_patch = task.hidden_patch()
        if secret is not None and hidden_patch is not None:
            facts.hidden = hidden_collected(task, patch, hidden_patch, secret)
        infra = sorted(p for p, c in classes.items() if c.kind in (INFRA, GRADER))
        diff = diff_inventories(base.inventory, after_inventory, task.allowlist, infra)
        artifacts = save_artifacts(
            settings.artifacts, base.inventory, after_inventory, diff, patch, task.sha
        )
        facts.census = census_gate.census_facts(diff, artifacts)
        facts.test_edit, facts.test_edit_why = test_edit(
            patch, classes, diff, after_inventory, ws.repo
        )
        test_sources = frozenset(p for p, c in classes.items() if c.kind == TEST) | frozenset(
            it.file for it in base.inventory.items if is_test(it.kind)
        )
        clock.lap("census")
        # Read now, analysed while the suite runs: the run may rewrite its tree. Nothing below
        # builds a syntax tree in this thread until both are done (python_ast.py).
        reading = beside.submit(
            patched_text.analyse,
            patched_text.Reading(
                task,
                patch,
                classes,
                patched_text.read_patched(patch, classes, ws.repo),
                base,
                failing,
                hidden_patch,
                for_coverage=wants_coverage,
                harness=harness_of(base, suite),
                own=source.own_names(),
                builds=builds_of(task, base, instrument, test_sources, ws.repo, suite),
            ),
        )
        judge_loaded = beside.submit(under_the_tree_lock, load_judge)  # see `rejecting`
        if caller_work is not None:
            beside.submit(under_the_tree_lock, caller_work)  # not waited for until the end
        before = base.instrumented_outcomes if instrument is not None else base.outcomes
        facts.baseline = BaselineFacts(
            key=base.key,
            outcomes=before,
            plain_outcomes=base.outcomes,
            ids=dict(base.run.ids),
            flaky=list(base.flaky),
            unstable_ids=list(base.unstable_ids),
            runs=base.runs,
            cases=base.cases(instrumented=instrument is not None),
        )
        focus = Focus(
            changed=tuple(c.path for c in patch.files),
            test_sources=test_sources,
            # The coverage gate reads the hits of patched production Python files only.
            traced=frozenset(
                p for p, c in classes.items() if c.kind == PRODUCTION and p.endswith(".py")
            ),
        )
        if hidden_patch is not None:
            focus = replace(
                focus, test_sources=focus.test_sources | frozenset(hidden_patch.touched())
            )
        one_run = facts.hidden is not None and one_run_will_do(facts.hidden, patch, classes)

        def run_suite(where: str) -> tuple[SuiteRun, Path]:
            clock.say("building and running the tests" if where == "after" else f"the {where} run")
            scratch = ws.new_dir(where)
            if slot is not None:
                return cpp_suite(suite).run(
                    ws.repo, scratch, instrument=instrument, focus=focus, slot=slot
                ), scratch
            return suite.run(ws.repo, scratch, instrument=instrument, focus=focus), scratch

        # An additive test edit is always judged by its pristine run: it starts now.
        early = (
            early_pristine(task, data, reverted_paths(classes), suite, settings)
            if is_additive(facts, task)
            else None
        )
        secret_run: SuiteRun | None = None
        measured_dir: Path | None = None
        if one_run:
            assert facts.hidden is not None and secret is not None
            with hidden_applied(ws, task, facts.hidden) as applied:
                secret_run, measured_dir = run_suite("after") if applied else (None, None)
        if secret_run is not None:
            # One run carried both: the visible transitions are read outside the hidden files.
            assert facts.hidden is not None and secret is not None
            fill_broken(secret_run, secret.outcomes)
            after = visible_part(secret_run, facts.hidden.files)
            facts.hidden.one_run = True
            facts.baseline = project_baseline(facts.baseline, facts.hidden.files)
        else:
            after, measured_dir = run_suite("after")
            fill_broken(after, before)
        facts.after = suite_facts(after)
        facts.runs["after"] = after.run.run
        classes = reclassify(classes, after, test_sources, source)
        facts.files = [
            ChangedFile(path=p, kind=c.kind, why=c.why, status=_status(patch, p))
            for p, c in classes.items()
        ]
        text_facts = reading.result()
        judge_loaded.result()
        facts.special_values_from = text_facts.special_values_from
        edited = any(c.kind in (TEST, INFRA, GRADER) for c in classes.values())
        facts.findings = text_facts.findings + run_findings(base, after, focus, instrument, edited)
        if facts.census.artifacts and after.build is not None:
            _add_compiler_command(facts.census.artifacts, after.build.compiler_command)
        if facts.hidden is not None and secret is not None and secret_run is None:
            secret_run, hidden_dir = _run_hidden(facts, ws, task, after, secret, run_suite)
            if hidden_dir is not None:
                measured_dir = hidden_dir
        if secret_run is not None:
            assert facts.hidden is not None
            facts.hidden.run = suite_facts(secret_run)
            if not facts.hidden.one_run:
                facts.runs["hidden"] = secret_run.run.run
            found = run_findings(base, secret_run, focus, instrument, edited)
            facts.findings += [f for f in found if f not in facts.findings]
        clock.lap("tests")
        if wants_coverage:
            clock.say("coverage on the hunk")
            # Coverage is read where the failing tests ran: the hidden run, when there is one.
            measured = secret_run if secret_run is not None else after
            assert measured_dir is not None
            facts.coverage = collect_coverage(
                task,
                patch,
                classes,
                measured,
                ws.repo,
                measured_dir,
                base,
                settings,
                text_facts,
            )
            facts.coverage.facts.pragmas_added = [
                f"{f.file}:{f.line}" for f in facts.findings if f.kind == "pragma-added"
            ]
            clock.lap("coverage")
        _collect_pristine(facts, task, data, classes, suite, settings, clock, early)
        rejected = rejecting(facts, settings.policy)
        if plan is not None:
            if after.build_failed or after.timed_out:
                facts.skipped["matrix"] = "the patched run did not build or finish"
            elif rejected and not settings.all_gates:
                facts.skipped["matrix"] = f"{rejected} already rejected the patch"
            else:
                from patchwitness.matrix import collect as matrix
                from patchwitness.suites.cpp import CppSuite

                env = suite.env if isinstance(suite, CppSuite) else None
                tools = matrix.Tools.of(settings, env)
                if slot is not None and plan.mode == "cmake":
                    assert isinstance(suite, CppSuite)
                    prime_envelopes(ws, slot, suite, plan, data)
                    tools = replace(tools, slot=slot)
                    clock.lap("prime")
                clock.say(f"the flag matrix ({len(plan.envelopes)} envelopes)")
                tools = replace(tools, progress=clock.progress)
                facts.matrix = matrix.collect(
                    task,
                    plan,
                    ws.repo,
                    ws.new_dir("matrix"),
                    tools,
                    patch_id=patch.sha256,
                    failing=failing,
                    patch=patch,
                )
                clock.lap("matrix")
    clock.lap("cleanup")  # removing the patched workspace (its build trees)


@contextlib.contextmanager
def checkout(
    task: Task, settings: Settings, suite: Suite
) -> Iterator[tuple[Workspace, warm.Slot | None]]:
    """Where the patched tree lives: a fresh checkout of the SHA, removed afterwards; or, for a
    C++ task with warm build trees, a warm slot's repo restored to the SHA (warm.py)."""
    if not (settings.warm and languages.of(task).warm_trees):
        with history.checkout(task, settings.cache) as ws:
            yield ws, None
        return
    with warm.acquire(settings.cache, warm_key(task, cpp_suite(suite), settings)) as slot:
        if not slot.ready():
            with history.checkout(task, settings.cache) as fresh:
                warm.make_pristine(slot, fresh.repo)
        warm.restore(slot.pristine, slot.repo)
        warm.note_added(slot, [])
        ws = Workspace(slot.root, task.sha)
        for folder in (ws.home, ws.reports):
            warm.restore_empty(folder)
        yield ws, slot


def cpp_suite(suite: Suite) -> CppSuite:
    """The C++ suite a warm slot or an envelope needs (imported here: a Python grade never
    loads the C++ half of the grader)."""
    from patchwitness.suites.cpp import CppSuite

    assert isinstance(suite, CppSuite)
    return suite


def warm_key(task: Task, suite: CppSuite, settings: Settings) -> str:
    """What a warm build depends on besides the sources (warm.py)."""
    from patchwitness.suites.cpp import toolchain_versions

    return warm.slot_key(
        {
            "grader": grader_build(),
            "sha": task.sha,
            "cpp": task.options.cpp.model_dump(),
            "cwd": task.options.cwd,
            "env": suite.env.key,
            "tools": toolchain_versions(),
            "sandbox": settings.sandbox,
        }
    )


def prime_envelopes(
    ws: Workspace, slot: warm.Slot, suite: CppSuite, plan: Matrix, data: bytes
) -> None:
    """Snapshots of the pristine tree under each CMake envelope, made once per slot: the repo is
    put back to the SHA for them, and the patch applied again."""
    from patchwitness.matrix.cmake import prime_envelope, warm_name

    missing = [e for e in plan.envelopes if not slot.has_snapshot(warm_name(e))]
    if not missing:
        return
    warm.restore(slot.pristine, slot.repo)
    for envelope in missing:
        prime_envelope(suite, envelope, slot, ws.new_dir("prime"))
    ws.apply(data, allow_binary=suite.task.options.patch.allow_binary)


def _collect_pristine(
    facts: GradeFacts,
    task: Task,
    data: bytes,
    classes: dict[str, Classified],
    suite: Suite,
    settings: Settings,
    clock: Clock,
    early: Future[SuiteRun] | None = None,
) -> None:
    """The SHA's own tests over the patched code, when the patch edited tests and the run can
    still matter: it decides a purely additive test edit, and it checks a tests-authored one.
    `early`: the same run, started beside the patched one (`early_pristine`)."""
    reverted = reverted_paths(classes)
    if not reverted:
        return
    additive = is_additive(facts, task)
    if not (additive or wants_pristine(task)):
        facts.pristine = PristineCollected(
            skipped=f"pristine = {task.options.pristine}: the test edit already decides this task"
        )
        return
    rejected = rejecting(facts, settings.policy)
    if rejected and not additive and not settings.all_gates:
        facts.pristine = PristineCollected(skipped=f"{rejected} already rejected the patch")
        facts.skipped["pristine"] = facts.pristine.skipped
        return
    clock.say("the pristine run (the SHA's tests over the patched code)")
    run = (
        early.result() if early is not None else run_pristine(task, data, reverted, suite, settings)
    )
    fill_broken(run, facts.baseline.plain_outcomes)
    facts.pristine = PristineCollected(run=suite_facts(run))
    facts.runs["pristine"] = run.run.run
    clock.lap("pristine")


def reverted_paths(classes: dict[str, Classified]) -> list[str]:
    """What the pristine run puts back to the SHA: the patch's tests and test infrastructure."""
    return sorted(p for p, c in classes.items() if c.kind in (TEST, INFRA, GRADER))


def is_additive(facts: GradeFacts, task: Task) -> bool:
    return facts.test_edit == "additive" and not task.allow_test_edits


def early_pristine(
    task: Task, data: bytes, reverted: list[str], suite: Suite, settings: Settings
) -> Future[SuiteRun] | None:
    """`run_pristine` for a Python task, started now, beside the patched run: for a patch whose
    test edit is purely additive, which its pristine run always judges (no other gate's
    rejection skips it); the two runs share nothing but the machine's cores. Other patches wait,
    so that a run whose verdict is already decided is never spent. C++ ones wait too: their
    pristine run is a cold build."""
    if not languages.of(task).pristine_beside or not reverted:
        return None
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pristine")
    try:
        return pool.submit(run_pristine, task, data, reverted, suite, settings)
    finally:
        pool.shutdown(wait=False)


def wants_pristine(task: Task) -> bool:
    choice = task.options.pristine
    if choice == "auto":
        return task.allow_test_edits or languages.of(task).pristine_by_default
    return choice == "always"


def run_pristine(
    task: Task, data: bytes, reverted: list[str], suite: Suite, settings: Settings
) -> SuiteRun:
    with history.checkout(task, settings.cache) as ws:
        ws.apply(data, allow_binary=task.options.patch.allow_binary)
        _put_back(ws.repo, task, reverted)
        return suite.run(ws.repo, ws.new_dir("pristine"))


def suite_facts(run: SuiteRun) -> SuiteFacts:
    return SuiteFacts(
        run=run.run,
        started=run.started,
        timed_out=run.timed_out,
        build_failed=run.build_failed,
        build=run.build,
        tamper=list(run.tamper),
    )


def _status(patch: Patch, path: str) -> str:
    return next((c.status for c in patch.files if c.path == path), "modified")


# -- hidden tests (hidden.py) --------------------------------------------------------------------


def hidden_collected(
    task: Task, patch: Patch, hidden_patch: Patch, secret: baselines.Baseline
) -> HiddenCollected:
    named = (
        None if task.pass_to_pass is None else baselines.resolve_known(secret, task.pass_to_pass)
    )
    p2p, red = hidden.pass_to_pass(secret.outcomes, named)
    failing = baselines.validate_hidden(task, secret)
    return HiddenCollected(
        files=hidden.touched(hidden_patch),
        conflicts=hidden.conflicts(patch, hidden_patch),
        baseline=dict(secret.outcomes),
        failing=failing,
        # A FAIL_TO_PASS test is checked as such, never as one that must stay green.
        pass_to_pass=[k for k in p2p if k not in failing],
        pass_to_pass_red_at_sha=red,
    )


def one_run_will_do(
    collected: HiddenCollected, patch: Patch, classes: dict[str, Classified]
) -> bool:
    """One run can carry the visible and the hidden tests when the patch touched no test and no
    file the hidden tests touch, and the tests name their files (pytest keys): the visible
    transitions are then the ones outside the hidden files, where both runs are the same."""
    if collected.conflicts or any(c.kind != PRODUCTION for c in classes.values()):
        return False
    if patch.touched() & set(collected.files):
        return False
    return all("::" in key for key in collected.baseline)


@contextlib.contextmanager
def hidden_applied(ws: Workspace, task: Task, collected: HiddenCollected) -> Iterator[bool]:
    """The hidden tests over the patched tree, as SWE-bench applies its test patch: every file
    they touch back to its SHA version first, then the patch. Afterwards those files are put
    back as the patch left them (the flag matrix runs the visible tree). Yields False, with the
    reason recorded as a conflict, when they do not apply over the patched tree."""
    assert task.hidden_tests is not None
    kept = {rel: safe_read(ws.repo, rel) for rel in collected.files}
    try:
        _put_back(ws.repo, task, collected.files)
        try:
            ws.apply(task.hidden_tests, allow_binary=True)  # the grader's own tests
        except ApplyFailed as exc:
            collected.conflicts.append(f"the hidden tests do not apply over the patch: {exc}")
            yield False
        else:
            yield True
    finally:
        for rel, data in kept.items():
            _write_or_remove(ws.repo / rel, data)


def _put_back(tree: Path, task: Task, paths: list[str]) -> None:
    """Files of the tree back to their SHA version (removed where the SHA has none)."""
    for rel in paths:
        _write_or_remove(tree / rel, show_at(task.repo, task.sha, rel))


def _write_or_remove(target: Path, data: bytes | None) -> None:
    if target.is_symlink() or target.is_file():
        target.unlink()
    elif target.is_dir():
        import shutil

        shutil.rmtree(target)
    if data is not None:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def _run_hidden(facts, ws, task, after, secret, run_suite) -> tuple[SuiteRun | None, Path | None]:
    """The hidden run after the visible one, unless the patch conflicts with the hidden tests or
    the visible run did not build or finish (its verdict is already the run's)."""
    collected: HiddenCollected = facts.hidden
    if collected.conflicts:
        collected.skipped = "the patch conflicts with the hidden tests"
        return None, None
    if after.build_failed or after.timed_out or not after.started:
        collected.skipped = "the patched run did not build or finish"
        return None, None
    with hidden_applied(ws, task, collected) as applied:
        if not applied:
            collected.skipped = "the hidden tests do not apply over the patch"
            return None, None
        run, scratch = run_suite("hidden")
    fill_broken(run, secret.outcomes)
    return run, scratch


def visible_part(run: SuiteRun, files: list[str]) -> SuiteRun:
    """The run as the visible tests saw it: the tests outside the hidden files."""
    outcomes = hidden.project(run.run.outcomes, files)
    test_run = run.run.model_copy(
        update={
            "outcomes": outcomes,
            "collected": [k for k in run.run.collected if k in outcomes],
            "ids": {k: v for k, v in run.run.ids.items() if k in outcomes},
        }
    )
    return replace(run, run=test_run)


def project_baseline(baseline: BaselineFacts, files: list[str]) -> BaselineFacts:
    return baseline.model_copy(
        update={
            "outcomes": hidden.project(baseline.outcomes, files),
            "plain_outcomes": hidden.project(baseline.plain_outcomes, files),
        }
    )


# -- classes and findings -----------------------------------------------------------------------


def source_map(
    task: Task, suite: Suite, base: baselines.Baseline, patch: Patch, tree: Path
) -> SourceMap:
    """What the SHA's project builds or imports as the code under test (sourcemap.py)."""
    return languages.of(task).source_map(task, suite, base, patch, tree)


def builds_of(
    task: Task,
    base: baselines.Baseline,
    instrument: Instrumentation | None,
    tests: frozenset[str],
    tree: Path,
    suite: Suite,
):
    """How the tests' build differs from a user's, read off the SHA's build; for a Python task
    (whose compiled extension is read as C++ too) the environment only."""
    harness = harness_of(base, suite)
    return languages.of(task).builds(task, base, instrument, tests, tree, suite, harness)


def harness_of(base: baselines.Baseline, suite: Suite) -> reads.Harness:
    """What the test harness gives a run that a user's does not: the variables a test of the
    SHA's run saw, and the ones the grader sets for every run; the modules the runner loaded."""
    surface = base.surface
    seen = surface.environ if surface is not None else ()
    modules = surface.harness_modules if surface is not None else ()
    tests = surface.test_modules if surface is not None else ()
    words = surface.hook_words if surface is not None else ()
    return reads.Harness.of({*seen, *suite.run_variables()}, modules, tests, words)


def classify_patch(
    task: Task,
    patch: Patch,
    tree: Path,
    base: baselines.Baseline,
    rescanned: Inventory,
    source: SourceMap | None = None,
) -> dict[str, Classified]:
    # A file holds tests if it did at the SHA or does after the patch (a TEST added to a file
    # named like production code is still a test edit).
    files_with_tests = {
        it.file
        for inventory in (base.inventory, rescanned)
        for it in inventory.items
        if is_test(it.kind)
    }
    ctx = ClassifyContext(
        language=task.language,
        pytest=base.pytest_config,
        test_globs=task.options.paths.test,
        infra_globs=task.options.paths.infra,
        production_globs=task.options.paths.production,
        grader_globs=task.grader_owned(),
        files_with_tests=files_with_tests,
        test_sources=languages.of(task).test_sources(task),
        source=source or SourceMap(),
    )
    if any(_data_file(change.path) for change in patch.files):
        # Only a file that is no source can be test data: read the tests' strings for it.
        ctx.test_strings = testfiles.string_literals(tree, files_with_tests | ctx.test_sources)
    out = {}
    for change in patch.files:
        old = show_at(task.repo, task.sha, change.path)
        new = None if change.status == "removed" else safe_read(tree, change.path)
        out[change.path] = classify_file(change, as_text(old), as_text(new), ctx)
    return out


def _data_file(path: str) -> bool:
    found = sourcefiles.suffix(path)
    return bool(found) and found not in sourcefiles.PY | sourcefiles.CPP


def reclassify(
    classes: dict[str, Classified], after: SuiteRun, tests: frozenset[str], source: SourceMap
) -> dict[str, Classified]:
    """The classes again, knowing what the patched run loaded: what the tests read
    (classify.loaded_by_the_run), and in C++ what each side of the build compiled
    (classify.read_by_the_build)."""
    from patchwitness.classify import loaded_by_the_run, read_by_the_build

    graph = after.graph
    if graph is not None:
        production = frozenset(graph.read_by({s for s in graph.reads if s not in tests}))
        test_side = frozenset(graph.read_by({s for s in graph.reads if s in tests}))
        classes = {
            path: read_by_the_build(found, production, test_side, source.cpp_shadows)
            for path, found in classes.items()
        }
    if after.surface is None or after.surface.loaded is None:
        return classes
    loaded = frozenset(after.surface.loaded)
    return {path: loaded_by_the_run(found, loaded) for path, found in classes.items()}


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
    from patchwitness import buildgraph
    from patchwitness.suites import changes

    out = [Finding(gate="drift", kind="report-tamper", message=t) for t in after.tamper]
    out += [
        Finding(gate="drift", kind="report-tamper", message=m)
        for m in contradicted_passes(base.run, after.run)
    ]
    differs = [] if test_edit else changes(base.surface, after.surface)
    before = base.graph_for(instrument)
    differs += buildgraph.changes(before, after.graph, test_edit, focus.test_sources)
    out += [Finding(gate="surface", kind="surface-changed", message=m) for m in differs]
    for problem in after.problems:
        out.append(Finding(gate="drift", kind="report-problem", message=problem))
    for hook, owners in sorted(after.hooks.items()):
        added = sorted(set(owners) - set(base.hooks.get(hook, [])))
        for owner in added:
            out.append(
                Finding(
                    gate="drift",
                    kind="report-hook-added",
                    file=owner,
                    message=f"{owner} now implements {hook}",
                )
            )
    return out


# -- a purely additive test edit ------------------------------------------------------------------

# Lines a test file may lose in a purely additive edit: what an added test needs at the top.
_IMPORT_LINE = re.compile(r"^\s*(?:import\s|from\s+\S+\s+import\s|#\s*include\s|$)")


def test_edit(
    patch: Patch, classes: dict[str, Classified], diff, after: Inventory, tree: Path
) -> tuple[str, str]:
    """("none" | "additive" | "other", why not additive). Additive: new test functions or cases
    only. No test infrastructure or grader file touched; no census key removed, rewritten,
    disabled or redefined; every added assertion sits in an added test; and no line of the
    patch falls inside a test that existed at the SHA (a test's body changed, even where the
    census sees no assertion move)."""
    tests = [c for c in patch.files if classes[c.path].kind in (TEST, INFRA, GRADER)]
    if not tests:
        return "none", ""
    infra = [c.path for c in tests if classes[c.path].kind != TEST]
    if infra:
        return "other", f"test infrastructure edited: {infra[0]}"
    if diff.removed or diff.disabled or diff.macro_redefinitions or diff.unreadable:
        return "other", "census keys were removed, disabled or redefined"
    new_scopes = {_scope_of(k) for k in diff.added if is_test(kind_of(k))}
    for key in diff.added:
        if kind_of(key) == "assert" and _scope_of(key) not in new_scopes:
            return "other", f"an assertion was added to an existing test: {_scope_of(key)[1]}"
    existing = _test_spans(tree, after, [c.path for c in tests], new_scopes)
    for change in tests:
        if change.status == "removed":
            return "other", f"test file removed: {change.path}"
        for number, text in change.removed:
            if not _IMPORT_LINE.match(text):
                return "other", f"{change.path}:{number} changed an existing line"
        for number, text in change.added:
            if not text.strip():
                continue
            for low, high, name in existing.get(change.path, ()):
                if low <= number <= high:
                    return "other", f"{change.path}:{number} is inside the existing test {name}"
        inside = _inside_existing_function(tree, change)
        if inside:
            return "other", inside
    return "additive", ""


# A block that only groups tests (doctest's TEST_SUITE("x") { ... }): tests may be added in it.
_SUITE_HEAD = re.compile(r"^(?:[A-Z_]*TEST_SUITE\w*|SUITE|describe)\s*\(")


def _inside_existing_function(tree: Path, change: FileChange) -> str:
    """Why a C++ test file's added line is not an addition: it sits in the body of a function
    that existed at the SHA (a test program's main, a helper the tests call). The census sees
    tests only where a test macro is; a plain test program is one big function, and a `return`,
    a `/*` or an `#if 0` added inside it disables every check below it."""
    if change.path.endswith(tuple(sourcefiles.PY)):
        return ""
    text = as_text(safe_read(tree, change.path))
    if text is None:
        return ""
    from patchwitness.linemap import CppLines

    lines = CppLines(text)
    added = {number for number, _ in change.added}
    for number, line in change.added:
        if not line.strip():
            continue
        bodies = [b for b in lines.bodies_around(number) if not _SUITE_HEAD.match(lines.head(b))]
        if bodies and lines.line_of(bodies[0].open) not in added:
            head = " ".join(lines.head(bodies[0]).split())[:80]
            return f"{change.path}:{number} changes the existing function {head or '{...}'}"
    return ""


def _scope_of(key: str) -> tuple[str, str]:
    from patchwitness.census.items import split_key

    kind, file, scope, name, _ = split_key(key)
    return file, (scope or name) if is_test(kind) else scope


def _test_spans(
    tree: Path, after: Inventory, files: list[str], new_scopes: set[tuple[str, str]]
) -> dict[str, list[tuple[int, int, str]]]:
    """Line spans, in the patched files, of the tests that existed at the SHA: a Python test
    from its first decorator to its last line, a C++ test from its macro to its closing brace."""
    old: dict[str, dict[int, str]] = {}
    for item in after.items:
        scope = _scope_of(item.key)
        if is_test(item.kind) and item.file in files and scope not in new_scopes:
            old.setdefault(item.file, {})[item.line] = scope[1]
    spans: dict[str, list[tuple[int, int, str]]] = {}
    for file, tests in old.items():
        text = as_text(safe_read(tree, file)) or ""
        if file.endswith(".py"):
            spans[file] = python_test_spans(text, set(tests.values()))
        else:
            from patchwitness.linemap import CppLines

            lines = CppLines(text)
            for line, name in tests.items():
                spans.setdefault(file, []).append((line, lines.block_end(line), name))
    return spans


def python_test_spans(text: str, names: set[str]) -> list[tuple[int, int, str]]:
    import ast

    try:
        module = python_ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    out: list[tuple[int, int, str]] = []

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}::")
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                name = prefix + node.name
                if name in names:
                    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                    out.append((first, node.end_lineno or node.lineno, name))

    visit(module.body, "")
    return out


# -- coverage on the hunk -----------------------------------------------------------------------


def collect_coverage(
    task: Task,
    patch: Patch,
    classes: dict[str, Classified],
    after: SuiteRun,
    tree: Path,
    scratch: Path,
    base: baselines.Baseline,
    settings: Settings,
    patched: patched_text.TextFacts,
) -> CoverageCollected:
    """The coverage gate's facts: the patched run's line hits joined with the production hunks,
    scored against `patched`: the patched files' text before the run, and its Python statements."""
    production = [c for c in patch.files if classes[c.path].kind == PRODUCTION]
    # C and C++ are executable source in a C++ task, and in a Python task whose extension the
    # run built with gcov's flags; a header without a suffix is known by its content.
    native = languages.of(task).compiled(base)
    known = frozenset(
        c.path
        for c in production
        if native and sourcefiles.is_cpp(c.path, patched.texts.get(c.path))
    )
    from patchwitness.gates import coverage as coverage_gate

    sources = coverage_gate.patched_sources(production, task.language, known)
    measurable = base.instrumentation is not None
    hits: dict = {}
    found, why, tool_failure = True, "", ""
    unseen: list[str] = []
    if sources and measurable:
        # gcovr runs gcov on files the code under grade wrote: through the runner.
        read = collect_hits(
            after.coverage,
            tree,
            scratch,
            [c.path for c in sources],
            settings.runner,
            patched.statements,
        )
        # The tool failing on data the run left is the grader's trouble; no data is the run's.
        found = read.files is not None or read.tool_failed
        why = "" if read.tool_failed else read.why
        tool_failure = read.why if read.tool_failed else ""
        hits = read.files or {}
        unseen = unmeasured(after.coverage, [c.path for c in sources])
        if unseen:
            # A file a test ran as a script is one the probes never see: it is left out, not
            # scored as unrun; when it is all the patch changed, coverage is not measurable.
            sources = [c for c in sources if c.path not in unseen]
            measurable = bool(sources)
    texts = {c.path: patched.texts.get(c.path) or "" for c in sources if _is_cpp(c, task)}
    facts = coverage_gate.score(sources, hits, texts)
    if unseen:
        facts.notes.append(f"run as a script, not measured: {', '.join(unseen)}")
    facts.language = task.language
    facts.one_run = True
    facts.instrumentation = base.instrumentation.describe() if measurable else ""
    facts.trials = list(base.coverage_trials)
    languages.of(task).coverage_notes(facts, task, base)
    facts.test_hunks = {
        c.path: list(c.added_lines) for c in patch.files if classes[c.path].kind != PRODUCTION
    }
    return CoverageCollected(
        touches_source=bool(sources or unseen),
        measurable=measurable,
        data_found=found,
        why_no_data=why,
        tool_failure=tool_failure,
        facts=facts,
    )


def _is_cpp(change: FileChange, task: Task) -> bool:
    return not change.path.endswith(".py")


# -- the census artifacts --------------------------------------------------------------


def save_artifacts(
    where: Path | None, before: Inventory, after: Inventory, diff, patch: Patch, sha: str = ""
) -> dict[str, str]:
    """The census's failure artifact: before.json, after.json, and the report with the unexpected
    keys, the patch sha256 and the SHA (the compiler command line is added after the build)."""
    if where is None:
        return {}
    paths = {
        "before": where / "before.json",
        "after": where / "after.json",
        "report": where / "census_report.json",
    }
    atomic.write_json(paths["before"], before.to_json(), indent=1)
    atomic.write_json(paths["after"], after.to_json(), indent=1)
    report = diff.report() | {"patch_sha256": patch.sha256, "repo_sha": sha}
    atomic.write_json(paths["report"], report)
    return {k: str(v) for k, v in paths.items()}


def _add_compiler_command(artifacts: dict[str, str], command: str) -> None:
    import json

    path = Path(artifacts["report"])
    report = json.loads(path.read_text())
    report["compiler_command"] = command
    atomic.write_json(path, report)
