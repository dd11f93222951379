"""Grading a bag of tasks times agents into the results database.

BAG is a directory of task directories; PATCHES holds AGENT/TASK.diff, or is a SWE-bench
predictions file (one agent per model, its patches written beside the database: swebench.py).
A run has two phases:
every task's baseline first (once per task, with the suite run several times to find flaky tests),
then every (task, agent) patch, each in its own fresh workspace, in parallel on the chosen
executor. Each verdict is stored with its facts the moment it exists; a re-run skips what is
already stored for the same (task, agent, patch sha256, fingerprint). A grade that crashes (a
grader bug) is reported and stored apart, never as a verdict, so the next run grades it again.
"""

from __future__ import annotations

import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from patchwitness.api import grade_facts
from patchwitness.errors import GradeStop
from patchwitness.executors import Executor, LocalExecutor, make_executor
from patchwitness.facts import GradeFacts, TaskFacts
from patchwitness.judge import judge
from patchwitness.model import Reason, Verdict
from patchwitness.patch import sha256_of
from patchwitness.settings import Settings
from patchwitness.store import DBBaselineCache, ResultsDB
from patchwitness.workspace import sweep_stale


@dataclass(frozen=True)
class Job:
    task_dir: Path
    patch: Path | None  # None: the agent submitted nothing for this task
    agent: str
    repo: Path | None = None


@dataclass(frozen=True)
class Crash:
    """A grade that raised: a bug of the grader's, reported, never a verdict."""

    task: str
    agent: str
    patch_sha256: str
    error: str
    trace: str


@dataclass
class BagRun:
    verdicts: list[Verdict] = field(default_factory=list)
    crashes: list[Crash] = field(default_factory=list)
    skipped: int = 0
    graded: int = 0
    tasks: int = 0
    agents: int = 0


def task_dirs(bag: Path) -> list[Path]:
    """The bag's tasks: its directories holding repo.lock. A hidden directory is no task: an
    import killed midway leaves its staging directory (.NAME.importing) there."""
    return sorted(
        p for p in Path(bag).iterdir() if not p.name.startswith(".") and (p / "repo.lock").is_file()
    )


def discover(
    bag: Path, patches: Path, db_path: Path | None = None
) -> tuple[list[Path], list[str], list[Job]]:
    """Tasks (directories holding repo.lock), agents (directories of PATCHES, or the models of
    a predictions file), and one job per (task, agent), a missing patch included. A predictions
    file's patches are written beside the database `db_path`; predictions for instances that are
    not tasks of the bag are left out (the caller reports them)."""
    tasks = task_dirs(bag)
    if Path(patches).is_file():
        from patchwitness import swebench

        if db_path is None:
            raise ValueError("a predictions file needs the results database: its patches go beside")
        root = swebench.predictions_dir(db_path)
        predictions = swebench.read_predictions(patches)
        agents, triples = swebench.prediction_patches(tasks, predictions, root)
        return tasks, agents, [Job(*triple) for triple in triples]
    agents = sorted(p.name for p in Path(patches).iterdir() if p.is_dir())
    jobs = []
    for task in tasks:
        for agent in agents:
            patch = Path(patches) / agent / f"{task.name}.diff"
            jobs.append(Job(task, patch if patch.is_file() else None, agent))
    return tasks, agents, jobs


def patch_bytes(job: Job) -> bytes:
    return job.patch.read_bytes() if job.patch is not None else b""


# -- work done in worker processes ------------------------------------------------------------


def prepare_task(task_dir: Path, repo: Path | None, settings: Settings, db: ResultsDB) -> dict:
    """Load the task, build its environment and baseline into the database, and return what the
    parent needs: name, fingerprint digest, held-out flag, or the reason it cannot be graded."""
    from patchwitness import baseline as baselines
    from patchwitness import failure_log
    from patchwitness.phases.prepare import prepare
    from patchwitness.task import load_task

    try:
        task = load_task(task_dir, repo)
        prepared = prepare(task, settings)
        suite, fp = prepared.suite, prepared.fingerprint
        cache = DBBaselineCache(db, task.name, task.sha)
        base = baselines.obtain(task, suite, settings.but(baselines=cache))
        if task.hidden:
            baselines.obtain_hidden(task, suite, settings.but(baselines=cache), base)
    except GradeStop as stop:
        return {
            "name": Path(task_dir).name,
            "error": failure_log.detail(stop, settings.artifacts),
            "label": stop.label,
            "grade": stop.grade,
        }
    except Exception as exc:  # a grader bug: the task's patches are crashes, not verdicts
        return {
            "name": Path(task_dir).name,
            "crash": f"{exc.__class__.__name__}: {exc}",
            "trace": traceback.format_exc(),
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


def grade_job(job: Job, settings: Settings, db: ResultsDB) -> tuple[Verdict, GradeFacts] | Crash:
    """One grade, in a worker: its verdict and facts, or the crash that stopped it."""
    try:
        facts = grade_facts(
            job.task_dir,
            job.patch,
            repo=job.repo,
            agent=job.agent,
            settings=settings.but(baselines=DBBaselineCache(db)),
        )
        verdict = judge(facts, settings.policy)
    except Exception as exc:
        return Crash(
            job.task_dir.name,
            job.agent,
            sha256_of(patch_bytes(job)),
            f"{exc.__class__.__name__}: {exc}",
            traceback.format_exc(),
        )
    if job.patch is None:
        verdict.reasons.insert(
            0,
            Reason(
                gate="bag",
                row="missing-patch",
                detail="no patch submitted for this task: graded as empty",
            ),
        )
    return verdict, facts


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
    settings: Settings | None = None,
    executor: Executor | None = None,
    console: Console | None = None,
) -> BagRun:
    """Grade every (task, agent) of the bag into the database. `settings.baseline_runs` runs of
    each suite at its SHA find flaky tests (a bag's default is 3, set by the caller)."""
    settings = (settings or Settings(baseline_runs=3)).but(matrix_workers=1)
    sweep_stale()
    db = ResultsDB(db_path)
    db.conn  # noqa: B018 - create the schema here, before worker processes race to it
    executor = executor or LocalExecutor()
    tasks, agents, jobs = discover(bag, patches, db_path)
    result = BagRun(tasks=len(tasks), agents=len(agents))
    with _progress(console) as progress:
        prepared = _prepare(tasks, settings, db, executor, progress)
        todo = []
        for job in jobs:
            info = prepared[job.task_dir]
            if "crash" in info:
                crash = Crash(
                    info["name"], job.agent, sha256_of(patch_bytes(job)), info["crash"], ""
                )
                db.put_crash(
                    crash.task, crash.agent, crash.patch_sha256, crash.error, info["trace"]
                )
                result.crashes.append(crash)
                continue
            if "error" in info:
                facts = _stopped_for_task(job, info)
                verdict = judge(facts, settings.policy)
                db.put_verdict(verdict, facts)
                result.verdicts.append(verdict)
                continue
            sha = sha256_of(patch_bytes(job))
            if db.has_verdict(info["name"], job.agent, sha, info["fingerprint"]):
                result.skipped += 1
                continue
            todo.append(job)
        _grade(
            todo,
            settings,
            db,
            executor,
            progress,
            result,
            f"grading {len(tasks)} tasks x {len(agents)} agents",
        )
    db.close()
    return result


def _prepare(
    tasks: list[Path], settings: Settings, db: ResultsDB, executor: Executor, progress: Progress
) -> dict[Path, dict]:
    runs = settings.baseline_runs
    bar = progress.add_task(f"baselines ({runs} runs each)", total=len(tasks), labels="")
    prepared: dict[Path, dict] = {}
    calls = [(task, None, settings, db) for task in tasks]
    homes = [str(task) for task in tasks]  # a task's grades go where its baseline was made
    for index, info in executor.run(prepare_task, calls, homes):
        prepared[tasks[index]] = info
        progress.update(bar, advance=1)
    return prepared


def _grade(
    jobs: list[Job],
    settings: Settings,
    db: ResultsDB,
    executor: Executor,
    progress: Progress,
    result: BagRun,
    title: str,
) -> None:
    labels: Counter[str] = Counter()
    bar = progress.add_task(title, total=len(jobs), labels="")
    calls = [(job, settings, db) for job in jobs]
    for _, done in executor.run(grade_job, calls, [str(job.task_dir) for job in jobs]):
        if isinstance(done, Crash):
            db.put_crash(done.task, done.agent, done.patch_sha256, done.error, done.trace)
            result.crashes.append(done)
            labels["CRASH"] += 1
            progress.update(bar, advance=1, labels=_counts(labels))
            continue
        verdict, facts = done
        db.put_verdict(verdict, facts)  # stored the moment it exists
        result.verdicts.append(verdict)
        result.graded += 1
        progress.update(bar, advance=1, labels=_tally(labels, verdict))


def _tally(labels: Counter[str], verdict: Verdict) -> str:
    """Count the verdict's label; the label counts so far, for the progress bar."""
    labels[verdict.label] += 1
    return _counts(labels)


def _counts(labels: Counter[str]) -> str:
    return " ".join(f"{k}:{v}" for k, v in sorted(labels.items()))


def _stopped_for_task(job: Job, info: dict) -> GradeFacts:
    from patchwitness.collect import stopped_facts

    stop = GradeStop(info["error"])
    stop.label, stop.grade = info["label"], info["grade"]
    task = TaskFacts(name=info["name"], language="", repo_sha="")
    return stopped_facts(task, job.agent, patch_bytes(job), stop, str(job.patch or ""))


def grade_jobs(
    jobs: list[Job],
    *,
    workers: int = 0,
    settings: Settings | None = None,
    console: Console | None = None,
    executor: str = "local",
) -> list[Verdict | Crash]:
    """Grade a list of jobs without a database (the demo's path), in job order."""
    engine = make_executor(executor, workers=workers)
    settings = settings or Settings(matrix_workers=1)
    results: dict[int, Verdict | Crash] = {}
    labels: Counter[str] = Counter()
    calls = [(job, settings) for job in jobs]
    try:
        with _progress(console) as progress:
            bar = progress.add_task("grading", total=len(jobs), labels="")
            for index, done in engine.run(_grade_one, calls):
                results[index] = done
                if isinstance(done, Crash):
                    labels["CRASH"] += 1
                    progress.update(bar, advance=1, labels=_counts(labels))
                else:
                    progress.update(bar, advance=1, labels=_tally(labels, done))
    finally:
        engine.close()
    return [results[i] for i in range(len(jobs))]


def _grade_one(job: Job, settings: Settings) -> Verdict | Crash:
    try:
        facts = grade_facts(
            job.task_dir, job.patch, repo=job.repo, agent=job.agent, settings=settings
        )
        return judge(facts, settings.policy)
    except Exception as exc:
        return Crash(
            job.task_dir.name,
            job.agent,
            sha256_of(patch_bytes(job)),
            f"{exc.__class__.__name__}: {exc}",
            traceback.format_exc(),
        )
