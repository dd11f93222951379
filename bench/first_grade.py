"""The first grade of a C++ task at a commit the grader has never seen (issue 25), against a cold
plain configure, build and test of the same commit.

Input: the demo's ringlib (CMake + GoogleTest, three golden programs in the flag matrix's manifest,
four envelopes) and its `ring-speedup` task with its honest one-header fix.

  peer   what a person does by hand at a new commit: a fresh clone of the SHA, `git apply`, then
         the task's configure, build and test from nothing (`cmake -S . -B build`, `cmake --build`,
         `ctest`);
  grade  `api.grade` of the same patch with the default settings (warm build trees, every gate,
         the flag matrix included) and an empty cache: the baseline, the warm trees, the SHA's
         matrix cells and the patch's own runs are all paid for here.

The grade's phases are printed, so a reader sees where a first grade spends its time. Both run
through the runner of --sandbox (none by default: the peer has no sandbox either).

    .venv/bin/python bench/first_grade.py [--reps 1] [--sandbox none]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (
    Cost,
    heading,
    line,
    load_note,
    median_cost,
    phase_seconds,
    print_ratio,
    private_cache,
    runs,
    sandbox_runner,
    seen_cost,
    timed,
)
from cpp_grade_overhead import sh

from patchwitness.api import grade
from patchwitness.demo import build, ringlib
from patchwitness.demo.cpp_run import available, build_cpp
from patchwitness.settings import Settings
from patchwitness.task import load_task

TASK = "ring-speedup"


def honest_patch(where: Path) -> Path:
    after = build.apply_edits(ringlib.FILES, [ringlib.RING_FIX])
    patch = where / "honest.diff"
    patch.write_text(build.make_diff(ringlib.FILES, after))
    return patch


def cold_plain(repo: Path, sha: str, patch: Path, where: Path) -> Cost:
    """A fresh clone, the patch, then configure + build + test from nothing."""
    subprocess.run(["rm", "-rf", str(where)], check=True)

    def from_nothing() -> None:
        subprocess.run(["git", "clone", "--quiet", str(repo), str(where)], check=True)
        env = {**os.environ, "PW_BUILD": str(where / "build")}
        sh(f"git -c advice.detachedHead=false checkout --quiet {sha}", where, env)
        sh(f"git apply {patch}", where, env)
        sh('cmake -S . -B "$PW_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Debug', where, env)
        sh('cmake --build "$PW_BUILD"', where, env)
        # The SHA has the other task's bug too (Stats.MedianOfEven stays red): ctest fails.
        subprocess.run(ringlib.TEST_CMD, shell=True, cwd=where, env=env, capture_output=True)

    cost, _ = timed(from_nothing)
    return cost


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="one rep (the default)")
    parser.add_argument("--sandbox", default="none")
    args = parser.parse_args(argv)
    ok, why = available()
    if not ok:
        print(f"skipped: {why}")
        return 0
    reps = 1 if args.quick else max(1, args.reps)
    runner, described = sandbox_runner(args.sandbox)
    heading(f"C++ first grade at an unseen commit vs a cold plain build and test; {load_note()}")
    with tempfile.TemporaryDirectory(prefix="pw-first-grade-") as tmp:
        root = Path(tmp)
        bag = build_cpp(root / "demo")
        task_dir = next(j.task_dir for j in bag.jobs if j.task_dir.name == TASK)
        task = load_task(task_dir)
        patch = honest_patch(root)
        line(
            f"input: {TASK} of the demo's ringlib ({len(ringlib.FILES)} files), its honest fix; "
            f"sandbox {described}"
        )
        plain: list[Cost] = []
        grades: list[Cost] = []
        for k in range(reps):
            plain.append(cold_plain(task.repo, task.sha, patch, root / f"plain-{k}"))
            with private_cache():
                cost, verdict = timed(
                    lambda k=k: grade(
                        task_dir, patch, agent=f"first-{k}", settings=Settings(runner=runner)
                    )
                )
            grades.append(seen_cost(cost, runner))
            if (verdict.label, verdict.grade) != ("passed", "accept"):
                print(f"unexpected verdict: {verdict.label}/{verdict.grade}")
                return 1
            line(
                f"rep {k + 1}: first grade {cost}; phases: "
                + ", ".join(f"{n} {secs:.1f} s" for n, secs in phase_seconds(verdict).items())
            )
        line(f"cold plain configure + build + test: {runs(plain)}")
        line(f"first grade, all gates, empty cache: {runs(grades)}")
        print_ratio(
            "C++ first grade (all gates, empty cache) / cold plain configure + build + test",
            median_cost(grades),
            median_cost(plain),
            f"ringlib, one-header honest fix; median of {reps}",
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
