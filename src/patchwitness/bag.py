"""Grading a bag of tasks times agents into the results database.

BAG is a directory of task directories; PATCHES holds AGENT/TASK.diff. A run has two phases:
every task's baseline first (once per task, with the suite run several times to find flaky tests),
then every (task, agent) patch, each in its own fresh workspace, in parallel on the chosen
executor. Each verdict is stored the moment it exists; a re-run skips what is already stored for the
same (task, agent, patch sha256, fingerprint).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from patchwitness import runner
from patchwitness.api import GradeOptions, grade, grade_task, stopped
from patchwitness.errors import GradeStop
from patchwitness.executors import Executor, LocalExecutor, make_executor
from patchwitness.model import Reason, Verdict
from patchwitness.patch import sha256_of
from patchwitness.store import DBBaselineCache, ResultsDB
from patchwitness.workspace import sweep_stale


@dataclass(frozen=True)
class Job:
    task_dir: Path
    patch: Path | None  # None: the agent submitted nothing for this task
    agent: str
    repo: Path | None = None


@dataclass
class BagRun:
    verdicts: list[Verdict] = field(default_factory=list)
    skipped: int = 0
    graded: int = 0
    tasks: int = 0
    agents: int = 0


def discover(bag: Path, patches: Path) -> tuple[list[Path], list[str], list[Job]]:
    """Tasks (directories holding repo.lock), agents (directories of PATCHES), and one job per
    (task, agent), a missing patch included."""
    tasks = sorted(p for p in Path(bag).iterdir() if (p / "repo.lock").is_file())
    agents = sorted(p.name for p in Path(patches).iterdir() if p.is_dir())
    jobs = []
    for task in tasks:
        for agent in agents:
            patch = Path(patches) / agent / f"{task.name}.diff"
            jobs.append(Job(task, patch if patch.is_file() else None, agent))
    return tasks, agents, jobs


# -- work done in worker processes ------------------------------------------------------------


def prepare_task(task_dir: Path, repo: Path | None, runs: int, db: ResultsDB) -> dict:
    """Load the task, build its environment and baseline into the database, and return what the
    parent needs: name, fingerprint digest, held-out flag, or the reason it cannot be graded."""
    from patchwitness import api
    from patchwitness import baseline as baselines
    from patchwitness.task import load_task

    try:
        task = load_task(task_dir, repo)
        api.load_repo_allowlist(task)
        suite = api.make_suite(task)
        fp = api.make_fingerprint(task, suite)
        cache = DBBaselineCache(db, task.name, task.sha)
        base = baselines.obtain(task, suite, cache, runs, runner.confinement().name)
    except GradeStop as stop:
        return {
            "name": Path(task_dir).name,
            "error": str(stop),
            "label": stop.label,
            "grade": stop.grade,
        }
    except Exception as exc:  # still a clean ending: the task's patches get an error verdict
        return {
            "name": Path(task_dir).name,
            "error": f"{exc.__class__.__name__}: {exc}",
            "label": "error",
            "grade": "ungradable",
        }
    db.put_task(
        task.name, str(task.dir), task.sha, task.language, task.options.held_out, task.files_sha256
    )
    return {
        "name": task.name,
        "fingerprint": fp.digest,
        "flaky": base.flaky,
        "held_out": task.options.held_out,
    }


def grade_job(job: Job, runs: int, db: ResultsDB) -> Verdict:
    options = GradeOptions(baseline_runs=runs, cache=DBBaselineCache(db), matrix_workers=1)
    if job.patch is not None:
        return grade(job.task_dir, job.patch, repo=job.repo, agent=job.agent, options=options)
    from patchwitness.task import load_task

    try:
        task = load_task(job.task_dir, job.repo)
    except GradeStop as stop:
        return stopped(job.task_dir.name, job.agent, b"", stop)
    verdict = grade_task(task, b"", agent=job.agent, options=options)
    verdict.reasons.insert(
        0,
        Reason(
            gate="bag",
            row="missing-patch",
            detail="no patch submitted for this task: graded as empty",
        ),
    )
    return verdict


# -- the parent --------------------------------------------------------------------------------


def _progress(console: Console | None) -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[labels]}"),
        console=console,
        disable=console is None,
    )


def run_bag(
    bag: Path,
    patches: Path,
    db_path: Path,
    *,
    executor: Executor | None = None,
    baseline_runs: int = 3,
    console: Console | None = None,
) -> BagRun:
    sweep_stale()
    db = ResultsDB(db_path)
    db.conn  # noqa: B018 - create the schema here, before worker processes race to it
    executor = executor or LocalExecutor(sandbox_mode=runner.confinement().name)
    tasks, agents, jobs = discover(bag, patches)
    result = BagRun(tasks=len(tasks), agents=len(agents))
    with _progress(console) as progress:
        prepared = _prepare(tasks, baseline_runs, db, executor, progress)
        todo = []
        for job in jobs:
            info = prepared[job.task_dir]
            if "error" in info:
                verdict = _stopped_for_task(job, info)
                db.put_verdict(verdict)
                result.verdicts.append(verdict)
                continue
            sha = sha256_of(job.patch.read_bytes() if job.patch is not None else b"")
            if db.has_verdict(info["name"], job.agent, sha, info["fingerprint"]):
                result.skipped += 1
                continue
            todo.append(job)
        _grade(
            todo,
            baseline_runs,
            db,
            executor,
            progress,
            result,
            f"grading {len(tasks)} tasks x {len(agents)} agents",
        )
    db.close()
    return result


def _prepare(
    tasks: list[Path], runs: int, db: ResultsDB, executor: Executor, progress: Progress
) -> dict[Path, dict]:
    bar = progress.add_task(f"baselines ({runs} runs each)", total=len(tasks), labels="")
    prepared: dict[Path, dict] = {}
    calls = [(task, None, runs, db) for task in tasks]
    for index, info in executor.run(prepare_task, calls):
        prepared[tasks[index]] = info
        progress.update(bar, advance=1)
    return prepared


def _grade(
    jobs: list[Job],
    runs: int,
    db: ResultsDB,
    executor: Executor,
    progress: Progress,
    result: BagRun,
    title: str,
) -> None:
    labels: Counter[str] = Counter()
    bar = progress.add_task(title, total=len(jobs), labels="")
    for _, verdict in executor.run(grade_job, [(job, runs, db) for job in jobs]):
        db.put_verdict(verdict)  # stored the moment it exists
        result.verdicts.append(verdict)
        result.graded += 1
        progress.update(bar, advance=1, labels=_tally(labels, verdict))


def _tally(labels: Counter[str], verdict: Verdict) -> str:
    """Count the verdict's label; the label counts so far, for the progress bar."""
    labels[verdict.label] += 1
    return " ".join(f"{k}:{v}" for k, v in sorted(labels.items()))


def _stopped_for_task(job: Job, info: dict) -> Verdict:
    stop = GradeStop(info["error"])
    stop.label, stop.grade = info["label"], info["grade"]
    data = job.patch.read_bytes() if job.patch is not None else b""
    return stopped(info["name"], job.agent, data, stop, str(job.patch or ""))


def grade_jobs(
    jobs: list[Job],
    *,
    workers: int = 0,
    options: GradeOptions | None = None,
    console: Console | None = None,
    sandbox_mode: str | None = None,
    executor: str = "local",
) -> list[Verdict]:
    """Grade a list of jobs without a database (the demo's path), in job order."""
    mode = sandbox_mode or runner.confinement().name
    engine = make_executor(executor, workers=workers, sandbox_mode=mode)
    options = options or GradeOptions(matrix_workers=1)
    results: dict[int, Verdict] = {}
    labels: Counter[str] = Counter()
    calls = [(job, options) for job in jobs]
    try:
        with _progress(console) as progress:
            bar = progress.add_task("grading", total=len(jobs), labels="")
            for index, verdict in engine.run(_grade_with_options, calls):
                results[index] = verdict
                progress.update(bar, advance=1, labels=_tally(labels, verdict))
    finally:
        engine.close()
    return [results[i] for i in range(len(jobs))]


def _grade_with_options(job: Job, options: GradeOptions) -> Verdict:
    assert job.patch is not None
    return grade(job.task_dir, job.patch, repo=job.repo, agent=job.agent, options=options)
