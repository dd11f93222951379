"""Bag throughput (issue 7, "Tests and speed"): grades per hour, and what the baseline cache saves.

The input is the demo bag (`patchwitness.demo.run.build_demo(root, language="python")`): the shop
repository's tasks times its agents, every (task, agent) pair graded (a missing patch is graded as
an empty one, as `patchwitness bag run` does). Each run is `patchwitness.bag.run_bag` into a SQLite
database with a `LocalExecutor` of N workers and the default baseline runs (3 per task):

  cold     an empty database: every task's baseline is computed (3 suite runs each), then every
           patch is graded;
  cached   a copy of the cold run's database with the verdicts deleted: the baselines are read back
           from the database, every patch is graded again;
  resume   the full database again: every verdict is already stored, so the run only discovers the
           bag, loads the tasks and checks the database.

The task environment (a venv with pytest, built once per setup command into $PATCHWITNESS_CACHE)
is built before the first timed run and reported apart: it is shared by every run and every bag.
Headline figures are ratios measured in the same run: 2 workers vs 1, cached vs cold, resume vs
cold. PATCHWITNESS_CACHE points at a temporary directory unless --cache says otherwise.

    .venv/bin/python bench/bag_throughput.py [--quick] [--workers 1,2] [--baseline-runs 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (
    Cost,
    heading,
    line,
    load_note,
    median,
    median_cost,
    print_ratio,
    private_cache,
    sandbox_runner,
    secs,
    seen_cost,
    timed,
)
from _common import (
    runs as listed,
)

from patchwitness import environment
from patchwitness.bag import BagRun, discover, prepare_task, run_bag
from patchwitness.demo.run import DemoBag, build_demo, mismatches
from patchwitness.executors import LocalExecutor
from patchwitness.settings import Settings
from patchwitness.store import ResultsDB
from patchwitness.task import load_task

QUICK_AGENTS = ("honest", "blind-rewriter")


@dataclass
class Bag:
    root: Path
    bag: Path
    patches: Path
    demo: DemoBag
    tasks: int = 0
    agents: int = 0
    jobs: int = 0
    patch_files: int = 0

    @property
    def size(self) -> str:
        return (
            f"{self.tasks} tasks x {self.agents} agents = {self.jobs} grades, "
            f"{self.patch_files} patches"
        )


@dataclass
class Run:
    kind: str
    workers: int
    costs: list[Cost] = field(default_factory=list)
    graded: int = 0
    skipped: int = 0
    labels: Counter[str] = field(default_factory=Counter)
    wall: list[float] = field(default_factory=list)  # per-verdict wall clock
    unexpected: int = 0

    @property
    def per_hour(self) -> float:
        took = median_cost(self.costs).wall
        return self.graded / took * 3600 if took > 0 else float("nan")


def make_bag(root: Path, quick: bool) -> Bag:
    demo = build_demo(root / "demo", language="python")
    bag = Bag(root, root / "demo" / "bag", root / "demo" / "patches", demo)
    if quick:  # fewer agents: remove the others' patch directories
        for agent_dir in bag.patches.iterdir():
            if agent_dir.is_dir() and agent_dir.name not in QUICK_AGENTS:
                shutil.rmtree(agent_dir)
    tasks, agents, jobs = discover(bag.bag, bag.patches)
    bag.tasks, bag.agents, bag.jobs = len(tasks), len(agents), len(jobs)
    bag.patch_files = sum(1 for job in jobs if job.patch is not None)
    return bag


def warm_environment(bag: Bag, settings: Settings) -> Cost:
    """Build the shared task environment once; every task of the demo bag uses the same one."""
    tasks = sorted(p for p in bag.bag.iterdir() if (p / "repo.lock").is_file())
    took = Cost(0.0, 0.0)
    for task_dir in tasks:
        cost, _ = timed(
            lambda task_dir=task_dir: environment.prepare(
                load_task(task_dir), settings.runner, settings.cache
            )
        )
        took += cost
    return took


def copy_without_verdicts(source: Path, target: Path) -> None:
    """A consistent copy of a WAL database (sqlite's backup API), minus every verdict."""
    src = sqlite3.connect(source)
    dst = sqlite3.connect(target)
    try:
        src.backup(dst)
        dst.execute("DELETE FROM verdicts")
        dst.commit()
    finally:
        src.close()
        dst.close()


def count_rows(db: Path, table: str) -> int:
    conn = sqlite3.connect(db)
    try:
        return int(conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
    finally:
        conn.close()


def one(bag: Bag, db: Path, workers: int, settings: Settings, run: Run) -> BagRun:
    """One `run_bag` with `workers` local workers; `settings` carries the runner (the sandbox)
    and the baseline runs per task."""
    executor = LocalExecutor(workers)
    took, result = timed(
        lambda: run_bag(bag.bag, bag.patches, db, settings=settings, executor=executor)
    )
    # Under bwrap the sandboxed test runs are not children the pool workers wait for, so their
    # CPU is invisible to getrusage: only the wall clock is reported then.
    run.costs.append(seen_cost(took, settings.runner))
    run.graded, run.skipped = result.graded, result.skipped
    run.labels = Counter(v.label for v in result.verdicts)
    run.wall = [v.wall_clock_s or 0.0 for v in result.verdicts]
    run.unexpected = len(mismatches(bag.demo, result.verdicts))
    return result


def baseline_phase(
    bag: Bag, root: Path, settings: Settings, reps: int
) -> tuple[list[Cost], list[Cost]]:
    """What run_bag's first phase costs: prepare_task for every task into an empty database (the
    baselines computed), then again into the same database (the baselines read back)."""
    tasks = sorted(p for p in bag.bag.iterdir() if (p / "repo.lock").is_file())
    settings = settings.but(matrix_workers=1)  # as run_bag hands it to prepare_task
    cold: list[Cost] = []
    cached: list[Cost] = []
    for rep in range(reps):
        db = ResultsDB(root / f"phase-{rep}.db")
        for costs in (cold, cached):
            took = Cost(0.0, 0.0)
            for task_dir in tasks:
                spent, info = timed(
                    lambda task_dir=task_dir, db=db: prepare_task(task_dir, None, settings, db)
                )
                if "error" in info or "crash" in info:
                    why = info.get("error") or info.get("trace") or info["crash"]
                    raise RuntimeError(f"{task_dir.name}: {why}")
                took += spent
            costs.append(seen_cost(took, settings.runner))
        db.close()
    return cold, cached


def describe(run: Run, bag: Bag) -> None:
    labels = " ".join(f"{k}:{v}" for k, v in sorted(run.labels.items()))
    times = listed(run.costs)
    per_grade = f"; median grade {secs(median(run.wall))}" if run.wall else ""
    rate = f"; {run.per_hour:,.0f} grades/hour{per_grade}" if run.graded else ""
    line(
        f"{run.kind}, {run.workers} worker(s): {times}; graded {run.graded}, skipped "
        f"{run.skipped}{rate}"
    )
    if labels:
        line(f"   labels: {labels}" + (f"; UNEXPECTED {run.unexpected}" if run.unexpected else ""))


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help=f"agents {', '.join(QUICK_AGENTS)}")
    parser.add_argument("--workers", default="1,2", help="worker counts, comma-separated")
    parser.add_argument("--baseline-runs", type=int, default=3, help="suite runs per baseline")
    parser.add_argument("--reps", type=int, default=1, help="repetitions of each run")
    parser.add_argument("--sandbox", default="auto", help="auto | bwrap | none (as the CLI)")
    parser.add_argument("--cache", type=Path, help="keep PATCHWITNESS_CACHE here (default: temp)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    workers = [int(w) for w in args.workers.split(",") if w.strip()]
    runs = args.baseline_runs
    print(f"bag throughput: {os.cpu_count()} cores, python {sys.version.split()[0]}", flush=True)
    with private_cache(args.cache), tempfile.TemporaryDirectory(prefix="pw-bench-bag-") as tmp:
        root = Path(tmp)
        chosen, described = sandbox_runner(args.sandbox)
        # Made inside private_cache: Settings.cache defaults to PATCHWITNESS_CACHE.
        settings = Settings(runner=chosen, baseline_runs=runs)
        line(f"sandbox: {described}")
        bag = make_bag(root, args.quick)
        heading(f"demo bag (python): {bag.size}; {runs} baseline runs per task")
        took = warm_environment(bag, settings)
        line(f"task environment (built once, shared by every run, not timed below): {took}")
        cold: dict[int, Run] = {}
        cached: dict[int, Run] = {}
        for w in workers:  # each cached run right after its cold run: the load drifts less
            cold[w], cached[w] = Run("cold", w), Run("cached", w)
            for rep in range(args.reps):
                one(bag, root / f"cold-{w}-{rep}.db", w, settings, cold[w])
                db = root / f"cached-{w}-{rep}.db"
                copy_without_verdicts(root / f"cold-{w}-{rep}.db", db)
                one(bag, db, w, settings, cached[w])
            describe(cold[w], bag)
            describe(cached[w], bag)
            line(f"   ({load_note()})")
        phase_cold, phase_cached = baseline_phase(bag, root, settings, args.reps)
        top = max(workers)
        resume = Run("resume", top)
        for rep in range(args.reps):
            one(bag, root / f"cold-{top}-{rep}.db", top, settings, resume)
        describe(resume, bag)
        db = root / f"cold-{top}-0.db"
        baselines = count_rows(db, "baselines")
        line(
            f"database after the runs: {baselines} baseline(s) for {bag.tasks} tasks, "
            f"{count_rows(db, 'verdicts')} verdicts, {db.stat().st_size / 1e3:.0f} kB"
        )
        if baselines < bag.tasks:
            line(
                "   tasks at the same SHA with the same commands, setup and census options share "
                "one baseline (keyed never by a path), so a cold run computes it once"
            )
        size = f"{bag.size}, median of {args.reps}"
        one_w = min(workers)
        for w in workers:
            if w == one_w:
                continue
            for kind, table in (("cold", cold), ("cached", cached)):
                print_ratio(
                    f"{w} workers/{one_w} worker ({kind}) [demo bag]",
                    median_cost(table[w].costs),
                    median_cost(table[one_w].costs),
                    size,
                )
                line(
                    f"   grades/hour ({kind}): {table[one_w].per_hour:,.0f} with {one_w}, "
                    f"{table[w].per_hour:,.0f} with {w} ({bag.jobs} grades)"
                )
        for w in workers:
            print_ratio(
                f"cached/cold ({w} worker(s)) [demo bag]",
                median_cost(cached[w].costs),
                median_cost(cold[w].costs),
                size,
            )
            saved = median_cost(cold[w].costs).wall - median_cost(cached[w].costs).wall
            line(
                f"   baseline cache saves {secs(saved)} per bag run with {w} worker(s) "
                f"({runs} suite runs per baseline)"
            )
        line(
            f"baseline phase alone (bag.prepare_task for every task, one process): cold "
            f"{median_cost(phase_cold)}, cached {median_cost(phase_cached)}"
        )
        print_ratio(
            "baseline phase cached/cold [demo bag]",
            median_cost(phase_cached),
            median_cost(phase_cold),
            f"{bag.tasks} tasks, {runs} suite runs per baseline, median of {args.reps}",
        )
        print_ratio(
            f"resume/cold ({top} worker(s)) [demo bag]",
            median_cost(resume.costs),
            median_cost(cold[top].costs),
            size,
        )
        bad = sum(r.unexpected for r in (*cold.values(), *cached.values()))
        if bad:
            line(f"UNEXPECTED labels in {bad} verdict(s): see the demo's EXPECTED table")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
