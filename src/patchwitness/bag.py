"""Grading many patches: jobs, a local process pool, and a progress bar."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from patchwitness.api import GradeOptions, grade
from patchwitness.model import Verdict


@dataclass(frozen=True)
class Job:
    task_dir: Path
    patch: Path
    agent: str
    repo: Path | None = None


def _init_worker(sandbox_mode: str) -> None:
    from patchwitness import sandbox

    sandbox.configure(sandbox_mode)


def _grade_job(job: Job, options: GradeOptions) -> Verdict:
    return grade(job.task_dir, job.patch, repo=job.repo, agent=job.agent, options=options)


def grade_jobs(
    jobs: list[Job],
    *,
    workers: int = 0,
    options: GradeOptions | None = None,
    console: Console | None = None,
    sandbox_mode: str | None = None,
    on_verdict: Callable[[Job, Verdict], None] | None = None,
) -> list[Verdict]:
    """Grade every job, in parallel up to `workers` (0 = one per core), in job order."""
    from patchwitness import runner

    options = options or GradeOptions()
    workers = workers or os.cpu_count() or 1
    mode = sandbox_mode or runner.confinement().name
    results: dict[int, Verdict] = {}
    labels: Counter[str] = Counter()
    with _progress(console) as progress:
        bar = progress.add_task("grading", total=len(jobs), labels="")
        with ProcessPoolExecutor(
            max_workers=workers, initializer=_init_worker, initargs=(mode,)
        ) as pool:
            futures = {pool.submit(_grade_job, job, options): i for i, job in enumerate(jobs)}
            for future in as_completed(futures):
                index = futures[future]
                verdict = future.result()
                results[index] = verdict
                labels[verdict.label] += 1
                if on_verdict is not None:
                    on_verdict(jobs[index], verdict)
                summary = " ".join(f"{k}:{v}" for k, v in sorted(labels.items()))
                progress.update(bar, advance=1, labels=summary)
    return [results[i] for i in range(len(jobs))]


def _progress(console: Console | None) -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[labels]}"),
        console=console,
        disable=console is None,
        transient=False,
    )
