"""The public Python API: grade one patch against one task.

    from patchwitness.api import grade
    verdict = grade(Path("tasks/fix-total"), Path("agent.diff"), agent="claude")

Facts flow one way: task + patch -> workspace -> runner -> facts -> gates -> policy -> Verdict.
A grade never raises for anything the task, the patch or the code under grade does: every such
ending is a verdict with a label (apply-failed, invalid-task, timeout, error) and a reason.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from patchwitness import baseline as baselines
from patchwitness import fingerprint, history, identity, matrix, policy, runner, sourcefiles
from patchwitness.cachedir import cache_root
from patchwitness.census.items import Inventory, diff_inventories
from patchwitness.census.scan import scan_paths
from patchwitness.classify import GRADER, INFRA, PRODUCTION, TEST, Classified, ClassifyContext
from patchwitness.classify import classify as classify_file
from patchwitness.cpp import KEEP_INLINE, TEST_TU_NOTE, CppSuite
from patchwitness.errors import GradeStop, InvalidTask
from patchwitness.gates import census as census_gate
from patchwitness.gates import coverage as coverage_gate
from patchwitness.gates import drift as drift_gate
from patchwitness.hits import collect as collect_hits
from patchwitness.model import (
    CoverageGate,
    Finding,
    Fingerprint,
    Gates,
    PristineFacts,
    Reason,
    Timings,
    Verdict,
)
from patchwitness.patch import Patch, parse_patch, sha256_of
from patchwitness.suite import Focus, Suite, SuiteRun, fill_broken
from patchwitness.suspicious import GAMING_KINDS, python_findings
from patchwitness.task import Task, load_task, parse_allowlist
from patchwitness.workspace import require_commit, safe_read, show_at


@dataclass
class GradeOptions:
    baseline_runs: int = 1
    cache: baselines.BaselineCache | None = None
    coverage: bool = True
    matrix: bool = True
    # Cells of the flag matrix run in parallel up to this many (0: one per core). A bag that
    # already runs grades in parallel sets 1.
    matrix_workers: int = 0
    artifacts: Path | None = None

    def baseline_cache(self) -> baselines.BaselineCache:
        if self.cache is None:
            self.cache = baselines.DiskCache(cache_root() / "baselines")
        return self.cache


@dataclass
class _Clock:
    started: float = field(default_factory=time.monotonic)
    phases: dict[str, float] = field(default_factory=dict)
    _last: float = field(default_factory=time.monotonic)

    def lap(self, name: str) -> None:
        now = time.monotonic()
        self.phases[name] = round(self.phases.get(name, 0.0) + now - self._last, 3)
        self._last = now

    def timings(self) -> Timings:
        return Timings(total_s=round(time.monotonic() - self.started, 3), phases=self.phases)


def grade(
    task_dir: Path,
    patch_path: Path,
    *,
    repo: Path | None = None,
    agent: str = "agent",
    options: GradeOptions | None = None,
) -> Verdict:
    """Grade the patch file at `patch_path` against the task at `task_dir`."""
    options = options or GradeOptions()
    try:
        data = Path(patch_path).read_bytes()
    except OSError as exc:
        return stopped(str(task_dir), agent, b"", GradeStop(f"cannot read the patch: {exc}"))
    try:
        task = load_task(Path(task_dir), repo)
    except GradeStop as stop:
        return stopped(Path(task_dir).name, agent, data, stop, str(patch_path))
    return grade_task(task, data, agent=agent, options=options, patch_path=str(patch_path))


def stopped(
    task: str, agent: str, data: bytes, stop: GradeStop, patch_path: str = "", **extra
) -> Verdict:
    extra.setdefault("started_at", datetime.now(UTC).isoformat(timespec="seconds"))
    return Verdict(
        task=task,
        agent=agent,
        patch_sha256=sha256_of(data),
        patch_path=patch_path,
        grade=stop.grade,
        label=stop.label,
        reasons=[Reason(gate="grade", row=stop.label, detail=str(stop))],
        **extra,
    )


def make_suite(task: Task) -> Suite:
    if task.language == "python":
        from patchwitness import environment
        from patchwitness.outcomes.pytest_run import PythonSuite

        return PythonSuite(task, environment.prepare(task))
    return CppSuite(task)


def grade_task(
    task: Task,
    data: bytes,
    *,
    agent: str = "agent",
    options: GradeOptions | None = None,
    patch_path: str = "",
) -> Verdict:
    options = options or GradeOptions()
    clock = _Clock()
    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    common = dict(language=task.language, repo_sha=task.sha, started_at=started_at)
    fp: Fingerprint | None = None
    try:
        patch = parse_patch(data)
        require_commit(task.repo, task.sha)
        load_repo_allowlist(task)
        plan = matrix.prepare(task) if options.matrix and matrix.applies(task) else None
        suite = make_suite(task)
        clock.lap("setup")
        fp = make_fingerprint(task, suite)
        base = baselines.obtain(
            task, suite, options.baseline_cache(), options.baseline_runs, runner.confinement().name
        )
        clock.lap("baseline")
        verdict = _grade_patched(task, data, patch, suite, base, fp, agent, options, clock, plan)
    except GradeStop as stop:
        verdict = stopped(task.name, agent, data, stop, patch_path, fingerprint=fp, **common)
    except Exception as exc:  # a bug or an environment failure: still a verdict, never a traceback
        verdict = stopped(
            task.name,
            agent,
            data,
            GradeStop(f"internal error: {exc.__class__.__name__}: {exc}"),
            patch_path,
            fingerprint=fp,
            **common,
        )
    verdict.patch_path = patch_path
    verdict.timings = clock.timings()
    verdict.wall_clock_s = verdict.timings.total_s
    return verdict


def load_repo_allowlist(task: Task) -> None:
    """An allowlist that lives in the repository is read at the SHA, never from a worktree."""
    ref = task.options.census.allowlist
    if ref and ref.startswith("repo:"):
        data = show_at(task.repo, task.sha, ref[len("repo:") :])
        if data is None:
            raise InvalidTask(f"allowlist {ref} does not exist at the SHA")
        task.allowlist, task.allowlist_note = parse_allowlist(data.decode("utf-8", "replace"), ref)


def make_fingerprint(task: Task, suite: Suite) -> Fingerprint:
    versions = suite.versions()
    manifests = {"task": task.files_sha256[:16]}
    if task.manifest_sha256:
        manifests["matrix"] = task.manifest_sha256[:16]
    conf = runner.confinement()
    warnings = list(conf.warnings)
    if conf.name == "none" and not warnings:
        warnings.append("no sandbox: the code under grade ran with resource limits only")
    return fingerprint.build(
        test_cmd=task.test_cmd,
        timeout_s=task.timeout,
        sandbox=conf.name,
        versions=versions,
        compiler=versions.get("compiler"),
        gcov=versions.get("gcov"),
        manifests=manifests,
        warnings=warnings,
    )


def classify_patch(
    task: Task, patch: Patch, tree: Path, base: baselines.Baseline, rescanned: Inventory
) -> dict[str, Classified]:
    # A file holds tests if it did at the SHA or does after the patch (a TEST added to a file
    # named like production code is still a test edit).
    files_with_tests = {
        it.file
        for inventory in (base.inventory, rescanned)
        for it in inventory.items
        if it.kind in ("test", "case")
    }
    ctx = ClassifyContext(
        language=task.language,
        pytest=base.pytest_config,
        test_globs=task.options.paths.test,
        infra_globs=task.options.paths.infra,
        production_globs=task.options.paths.production,
        grader_globs=task.grader_owned(),
        files_with_tests=files_with_tests,
    )
    out = {}
    for change in patch.files:
        old = show_at(task.repo, task.sha, change.old_path or change.path)
        new = None if change.status == "removed" else safe_read(tree, change.path)
        out[change.path] = classify_file(change, _text(old), _text(new), ctx)
    return out


def _text(data: bytes | None) -> str | None:
    return None if data is None else data.decode("utf-8", "replace")


def _grade_patched(
    task: Task,
    data: bytes,
    patch: Patch,
    suite: Suite,
    base: baselines.Baseline,
    fp: Fingerprint,
    agent: str,
    options: GradeOptions,
    clock: _Clock,
    plan: matrix.Matrix | None = None,
) -> Verdict:
    findings: list[Finding] = []
    failing = base.failing_keys(task.failing_ids)
    with history.checkout(task) as ws:
        ws.apply(data)
        clock.lap("apply")
        touched = sorted(patch.touched())
        options_scan = baselines.scan_options(task, base.pytest_config)
        rescanned = scan_paths(ws.repo, touched, options_scan)
        after_inventory = base.inventory.replace_files(rescanned, touched)
        classes = classify_patch(task, patch, ws.repo, base, rescanned)
        findings += production_findings(task, patch, classes, ws.repo)
        focus = Focus(
            changed=tuple(c.path for c in patch.files),
            test_sources=frozenset(p for p, c in classes.items() if c.kind == TEST)
            | frozenset(it.file for it in base.inventory.items if it.kind in ("test", "case")),
        )
        clock.lap("census")
        wants_coverage = options.coverage and task.options.coverage.enabled
        # The patched run uses the instrumentation the SHA was measured with, and is compared
        # with the SHA's outcomes under it: like with like. None: no instrumentation works at
        # the SHA, so the run is plain and coverage is not measurable.
        instrument = base.instrumentation if wants_coverage else None
        before = base.instrumented_outcomes if instrument is not None else base.outcomes
        after_dir = ws.new_dir("after")
        after = suite.run(ws.repo, after_dir, instrument=instrument, focus=focus)
        fill_broken(after, before)
        clock.lap("tests")
        coverage_result = None
        if wants_coverage:
            coverage_result = coverage_gate_result(
                task, patch, classes, after, ws.repo, after_dir, base, findings, failing, before
            )
            clock.lap("coverage")
        matrix_result = None
        if plan is not None and not after.build_failed and not after.timed_out:
            matrix_result = matrix.grade_matrix(
                task,
                ws.repo,
                ws.new_dir("matrix"),
                matrix=plan,
                patch_id=patch.sha256,
                workers=options.matrix_workers or None,
            )
            clock.lap("matrix")
    clock.lap("cleanup")  # removing the patched workspace (its build trees) is not pristine's
    pristine = run_pristine(task, data, classes, suite, base)
    clock.lap("pristine")
    runs = {"after": after.run.run}
    if pristine is not None:
        runs["pristine"] = pristine.run.run

    infra = sorted(p for p, c in classes.items() if c.kind in (INFRA, GRADER))
    diff = diff_inventories(base.inventory, after_inventory, task.allowlist, infra)
    compiler = after.build.compiler_command if after.build else ""
    artifacts = save_artifacts(
        options.artifacts, base.inventory, after_inventory, diff, patch, task.sha, compiler
    )
    findings += run_findings(base, after)
    flaky = set(base.flaky)
    drift = drift_gate.drift_facts(
        before=before,
        after=after.outcomes,
        failing=failing,
        census=diff,
        classes=classes,
        flaky=flaky,
        pristine=None,
    )
    drift.ids = dict(after.run.ids)
    drift.unstable_ids = sorted(
        set(base.unstable_ids) | set(identity.unstable(base.run.ids, after.run.ids, after.outcomes))
    )
    drift.pristine = pristine_facts(pristine, base, task, drift, flaky, failing)
    if drift.pristine.disagreement:
        findings.append(
            Finding(
                gate="drift",
                kind="pristine-disagreement",
                message="; ".join(drift.pristine.disagreement[:5]),
            )
        )
    tampered = any(f.kind in ("report-tamper", "report-hook-added") for f in findings)
    gaming = sum(1 for f in findings if f.kind in GAMING_KINDS)
    grader_edited = any(c.kind == GRADER for c in classes.values())
    drift_result = drift_gate.decide(
        drift,
        drift_gate.drift_input(
            drift,
            allow_test_edits=task.allow_test_edits,
            grader_edited=grader_edited,
            tampered=tampered,
            gaming=gaming,
            gate_mode=task.options.mode == "gate",
        ),
    )
    goldens_red = drift_gate.goldens_red(before, after.outcomes, failing, flaky)
    census_result = census_gate.decide(
        diff,
        census_gate.census_input(
            diff,
            task.allow_test_edits,
            goldens_red,
            len(drift_gate.failing_lost(after.outcomes, failing)),
        ),
        artifacts,
    )
    gates = Gates(
        census=census_result,
        drift=drift_result,
        coverage=coverage_result,
        matrix=matrix_result,
        build=after.build,
    )
    decided = [
        ("drift", drift_result),
        ("census", census_result),
        ("coverage", coverage_result),
        ("matrix", matrix_result),
    ]
    outcomes = [
        policy.GateOutcome(name, g.row, g.status, g.effect) for name, g in decided if g is not None
    ]
    reasons = [
        Reason(gate=name, row=g.row, detail=g.detail) for name, g in decided if g is not None
    ]
    grade_value, label = policy.final_grade(outcomes)
    if (
        drift_result.status == "tests-authored"
        and drift.pristine.disagreement
        and grade_value == "accept"
    ):
        grade_value = "accept-with-review"
        reasons.append(
            Reason(
                gate="drift",
                row="pristine-disagreement",
                detail="the SHA's own tests disagree with the patched tests",
            )
        )
    killed = after.run.run.killed_reason
    if killed and killed != "timeout":
        # A limit ended the patched run: name it, whatever the tables made of what was left.
        reasons.insert(
            0,
            Reason(gate="runner", row=killed, detail=f"the patched test run was killed: {killed}"),
        )
        if grade_value != "reject":
            grade_value, label = "reject", "failed"
    if after.timed_out:
        grade_value, label = "reject", "timeout"
        reasons.insert(
            0,
            Reason(
                gate="grade",
                row="timeout",
                detail=f"the patched test run did not finish in {task.timeout}s",
            ),
        )
    clock.lap("gates")
    return Verdict(
        task=task.name,
        agent=agent,
        language=task.language,
        repo_sha=task.sha,
        patch_sha256=patch.sha256,
        fingerprint=fp,
        grade=grade_value,
        label=label,
        reasons=reasons,
        findings=findings,
        gates=gates,
        runs=runs,
        started_at=datetime.now(UTC).isoformat(timespec="seconds"),
    )


def coverage_gate_result(
    task: Task,
    patch: Patch,
    classes: dict[str, Classified],
    after: SuiteRun,
    tree: Path,
    scratch: Path,
    base: baselines.Baseline,
    findings: list[Finding],
    failing: list[str],
    before: dict,
) -> CoverageGate:
    """Seed 001: join the patched run's line hits with the production hunks."""
    production = [c for c in patch.files if classes[c.path].kind == PRODUCTION]
    headers = frozenset(
        c.path
        for c in production
        if task.language == "cpp" and sourcefiles.is_cpp(c.path, safe_read(tree, c.path))
    )
    sources = coverage_gate.patched_sources(production, task.language, headers)
    red = drift_gate.goldens_red(before, after.outcomes, failing, set(base.flaky))
    hits: dict = {}
    found, why = True, ""
    measurable = base.instrumentation is not None
    if sources and measurable:
        data, why = collect_hits(after.coverage, tree, scratch, [c.path for c in sources])
        found = data is not None
        hits = data or {}
    texts = {
        c.path: _text(safe_read(tree, c.path)) or ""
        for c in sources
        if task.language == "cpp" and not c.path.endswith(".py")
    }
    facts = coverage_gate.score(sources, hits, texts)
    facts.language = task.language
    facts.one_run = True
    facts.instrumentation = base.instrumentation.describe() if measurable else ""
    facts.trials = list(base.coverage_trials)
    if task.language == "cpp" and base.instrumentation is not None:
        facts.flags = list(base.instrumentation.flags)
        if KEEP_INLINE in facts.flags:
            facts.notes.append(TEST_TU_NOTE)
        if facts.flags != list(task.options.coverage.cxx_flags):
            facts.notes.append(
                "fell back to a lesser flag set: the pinned one fails at the SHA ("
                + "; ".join(base.coverage_trials[:-1])
                + ")"
            )
    facts.test_hunks = {
        c.path: list(c.added_lines) for c in patch.files if classes[c.path].kind != PRODUCTION
    }
    facts.pragmas_added = [f"{f.file}:{f.line}" for f in findings if f.kind == "pragma-added"]
    gate = coverage_gate.decide(
        facts,
        touches_source=bool(sources),
        goldens_red=red,
        data_found=found,
        measurable=measurable,
    )
    if gate.row == "no-data" and why:
        gate.detail = why
    return gate


def production_findings(
    task: Task, patch: Patch, classes: dict[str, Classified], tree: Path
) -> list[Finding]:
    out: list[Finding] = []
    for change in patch.files:
        if classes[change.path].kind != PRODUCTION or not change.added:
            continue
        if change.path.endswith(".py"):
            text = _text(safe_read(tree, change.path))
            out += python_findings(change.path, text, list(change.added))
        elif task.language == "cpp":
            from patchwitness.suspicious import cpp_findings

            out += cpp_findings(change.path, list(change.added))
    return out


def run_findings(base: baselines.Baseline, after: SuiteRun) -> list[Finding]:
    out = [Finding(gate="drift", kind="report-tamper", message=t) for t in after.tamper]
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


def run_pristine(
    task: Task, data: bytes, classes: dict[str, Classified], suite: Suite, base: baselines.Baseline
) -> SuiteRun | None:
    """The SHA's own tests and test infrastructure over the patched production code."""
    reverted = sorted(p for p, c in classes.items() if c.kind in (TEST, INFRA, GRADER))
    if not reverted or not wants_pristine(task):
        return None
    with history.checkout(task) as ws:
        ws.apply(data)
        for rel in reverted:
            original = show_at(task.repo, task.sha, rel)
            target = ws.repo / rel
            if target.is_symlink() or target.exists():
                target.unlink()
            if original is not None:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(original)
        result = suite.run(ws.repo, ws.new_dir("pristine"))
        fill_broken(result, base.outcomes)
        return result


def wants_pristine(task: Task) -> bool:
    policy_ = task.options.pristine
    if policy_ == "auto":
        return task.allow_test_edits or task.language == "python"
    return policy_ == "always"


def pristine_facts(
    pristine: SuiteRun | None,
    base: baselines.Baseline,
    task: Task,
    drift,
    flaky: set[str],
    failing: list[str],
) -> PristineFacts:
    if pristine is None:
        edited = bool(drift.test_files_edited or drift.infra_files_edited)
        if edited:
            return PristineFacts(
                ran=False,
                skipped=f"pristine = {task.options.pristine}: the "
                "test edit already decides this task",
            )
        return PristineFacts(ran=False, identical_tree=True)
    f2p, p2f, _ = drift_gate.transitions(base.outcomes, pristine.outcomes, failing, flaky)
    disagreement = []
    for name, patched, clean in (
        ("fail_to_pass", drift.fail_to_pass, f2p),
        ("pass_to_fail", drift.pass_to_fail, p2f),
    ):
        for nodeid in sorted(set(patched) - set(clean)):
            disagreement.append(f"{name} only with the patched tests: {nodeid}")
        for nodeid in sorted(set(clean) - set(patched)):
            disagreement.append(f"{name} only with the SHA's tests: {nodeid}")
    return PristineFacts(
        ran=True,
        identical_tree=False,
        fail_to_pass=f2p,
        pass_to_fail=p2f,
        disagreement=disagreement,
    )


def save_artifacts(
    where: Path | None,
    before: Inventory,
    after: Inventory,
    diff,
    patch: Patch,
    sha: str = "",
    compiler_command: str = "",
) -> dict[str, str]:
    """Seed 000's failure artifact: before.json, after.json, and the report with the unexpected
    keys, the patch sha256, the SHA and the compiler command line."""
    if where is None:
        return {}
    where.mkdir(parents=True, exist_ok=True)
    paths = {
        "before": where / "before.json",
        "after": where / "after.json",
        "report": where / "census_report.json",
    }
    paths["before"].write_text(json.dumps(before.to_json(), indent=1))
    paths["after"].write_text(json.dumps(after.to_json(), indent=1))
    report = diff.report() | {
        "patch_sha256": patch.sha256,
        "repo_sha": sha,
        "compiler_command": compiler_command,
    }
    paths["report"].write_text(json.dumps(report, indent=2))
    return {k: str(v) for k, v in paths.items()}
