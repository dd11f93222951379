"""C++ grade overhead (issue 11): a one-header patch, all gates, against the plain incremental
rebuild and test of the same patch.

Input: the demo's ringlib (CMake + GoogleTest, three golden programs in the flag matrix's
manifest, four envelopes) and its `ring-speedup` task, whose honest fix changes one header
(`include/ringlib/ring.hpp`) that the tests and every golden include. Each measured patch is that
fix plus a comment line of its own (`// variant k`), so no two patches share a header: every
patch makes the compiler work again, in the grade's warm build trees and compile cache as in the
peer's build tree.

  peer   what a person does by hand: a checkout of the SHA configured and built once (not timed),
         then per patch: `git checkout .`, `git apply`, and the task's build and test command
         (`cmake --build build && ctest --test-dir build`): ninja rebuilds what the header dirties;
  grade  `api.grade` with the default settings (warm build trees, every gate, the flag matrix
         included), after one warm-up grade of another variant (the task's baseline, the SHA's
         warm trees and matrix cells are made there, once per task, not per patch).

`--case NAME` measures a bench/realworld C++ case instead (gsl, tinyxml2, cli11: a real project
at its pinned commit, found as bench/realworld finds it, --sources DIR or $PW_SNAPSHOTS): each
patch is the case's upstream fix (honest-1) with a comment line of its own appended to the file
it edits, and the peer's tree is configured and built by the task's own commands.

Both through the runner of --sandbox (none by default: the peer has no sandbox either).

    .venv/bin/python bench/cpp_grade_overhead.py [--quick] [--reps 3] [--sandbox none]
                                                 [--case gsl [--sources DIR]]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
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

from patchwitness.api import grade
from patchwitness.demo import build, ringlib
from patchwitness.demo.cpp_run import available, build_cpp
from patchwitness.settings import Settings
from patchwitness.task import load_task

TASK = "ring-speedup"
HEADER = "include/ringlib/ring.hpp"


def variant_patch(where: Path, k: int) -> Path:
    """The honest one-header fix, with a comment line that makes this patch's header unique."""
    after = build.apply_edits(ringlib.FILES, [ringlib.RING_FIX])
    after[HEADER] = after[HEADER] + f"// variant {k}\n"
    patch = where / f"variant-{k}.diff"
    patch.write_text(build.make_diff(ringlib.FILES, after))
    return patch


def sh(command: str, cwd: Path, env: dict[str, str] | None = None) -> None:
    done = subprocess.run(
        command, shell=True, cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"{command!r} failed ({done.returncode}): {done.stdout[-800:]}")


@dataclass(frozen=True)
class Plain:
    """The peer's checkout of the SHA, configured and built once (not timed), and the task's
    build and test commands it runs after each patch."""

    tree: Path
    env: dict[str, str]
    build: str
    test: str


def plain_checkout(
    repo: Path, sha: str, where: Path, env: dict[str, str], configure: str, build: str, test: str
) -> Plain:
    subprocess.run(["git", "clone", "--quiet", str(repo), str(where)], check=True)
    sh(f"git -c advice.detachedHead=false checkout --quiet {sha}", where)
    sh(configure, where, env)
    sh(build, where, env)
    return Plain(where, env, build, test)


def plain_incremental(plain: Plain, patch: Path) -> Cost:
    sh("git checkout --quiet .", plain.tree)
    sh(f"git apply {patch}", plain.tree)

    def build_and_test() -> None:
        sh(plain.build, plain.tree, plain.env)
        # A test command may fail at the SHA for another task's bug (the demo's
        # Stats.MedianOfEven stays red): its exit status is not the measure.
        subprocess.run(plain.test, shell=True, cwd=plain.tree, env=plain.env, capture_output=True)

    cost, _ = timed(build_and_test)
    return cost


def measure(
    task_dir: Path,
    variant: Callable[[int], Path],
    plain: Plain,
    reps: int,
    runner,
    described: str,
    size: str,
) -> int:
    """A warm-up grade of variant 0, then per variant 1..reps the peer and the grade, each
    grade expected to accept; the ratio of the medians."""
    settings = Settings(runner=runner)
    warm, first = timed(lambda: grade(task_dir, variant(0), agent="warm-up", settings=settings))
    line(
        f"input: {described}; warm-up grade (baseline, warm trees, SHA matrix cells, "
        f"reference): {warm} -> {first.label}/{first.grade}"
    )
    plains: list[Cost] = []
    grades: list[Cost] = []
    for k in range(1, reps + 1):
        patch = variant(k)
        plains.append(plain_incremental(plain, patch))
        cost, verdict = timed(
            lambda p=patch: grade(task_dir, p, agent=f"v{p.stem}", settings=settings)
        )
        grades.append(seen_cost(cost, runner))
        if (verdict.label, verdict.grade) != ("passed", "accept"):
            print(f"unexpected verdict for {patch.name}: {verdict.label}/{verdict.grade}")
            return 1
        line(
            f"variant {k}: grade {cost} ({verdict.label}); phases: "
            + ", ".join(f"{name} {secs:.2f} s" for name, secs in phase_seconds(verdict).items())
        )
    line(f"plain incremental rebuild + test: {runs(plains)}")
    line(f"grade, all gates, warm: {runs(grades)}")
    print_ratio(
        "C++ grade (warm, all gates) / plain incremental rebuild and test",
        median_cost(grades),
        median_cost(plains),
        f"{size}; median of {reps}",
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one measured patch")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--sandbox", default="none")
    parser.add_argument("--case", help="a bench/realworld C++ case instead of the demo")
    parser.add_argument("--sources", type=Path, help="directory of local repository copies")
    args = parser.parse_args(argv)
    ok, why = available()
    if not ok:
        print(f"skipped: {why}")
        return 0
    reps = 1 if args.quick else args.reps
    runner, described = sandbox_runner(args.sandbox)
    if args.case:
        return realworld_case(args.case, args.sources, reps, runner, described)
    heading(f"C++ grade vs plain incremental rebuild and test; {load_note()}")
    with tempfile.TemporaryDirectory(prefix="pw-cpp-bench-") as tmp, private_cache():
        root = Path(tmp)
        bag = build_cpp(root / "demo")
        task_dir = next(j.task_dir for j in bag.jobs if j.task_dir.name == TASK)
        task = load_task(task_dir)
        patches = root / "patches"
        patches.mkdir()
        where = root / "plain"
        env = {**os.environ, "PW_BUILD": str(where / "build")}
        plain = plain_checkout(
            task.repo,
            task.sha,
            where,
            env,
            'cmake -S . -B "$PW_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Debug',
            'cmake --build "$PW_BUILD"',
            ringlib.TEST_CMD,
        )
        manifest = json.loads(ringlib.MATRIX_MANIFEST)
        size = f"{len(manifest['goldens'])} goldens x {len(manifest['envelopes'])} envelopes"
        return measure(
            task_dir,
            lambda k: variant_patch(patches, k),
            plain,
            reps,
            runner,
            f"{TASK}, a one-header patch ({HEADER}) of the demo's ringlib; sandbox {described}",
            f"one-header patch; ringlib: one GoogleTest program, {size}",
        )


def realworld_case(name: str, sources: Path | None, reps: int, runner, described: str) -> int:
    """The same measure on a bench/realworld C++ case: its upstream fix, one variant per patch."""
    from realworld.cases import all_cases
    from realworld.edits import Append
    from realworld.evaluate import plain_env
    from realworld.materialize import make_diff, materialize
    from realworld.sources import Unavailable

    case = next((c for c in all_cases() if c.name == name and c.language == "cpp"), None)
    if case is None:
        print(f"no C++ case named {name!r} in bench/realworld")
        return 2
    fix = next(p for p in case.patches if p.name == "honest-1")
    edited = fix.edits[0].path
    heading(f"C++ grade vs plain incremental rebuild and test, {name}; {load_note()}")
    with tempfile.TemporaryDirectory(prefix="pw-cpp-bench-") as tmp, private_cache():
        root = Path(tmp)
        try:
            done = materialize(case, root / "work", sources, root / "sdists")
        except Unavailable as exc:
            print(f"skipped: {exc}")
            return 0
        task = load_task(done.task_dir)

        def variant(k: int) -> Path:
            patch = root / f"variant-{k}.diff"
            edits = (*fix.edits, Append(edited, f"// variant {k}\n"))
            patch.write_bytes(make_diff(done.repo, done.sha, edits, root / "scratch"))
            return patch

        where = root / "plain"
        env = plain_env(task, where, where / "build", Settings(runner=runner))
        cpp = task.options.cpp
        plain = plain_checkout(
            done.repo, done.sha, where, env, cpp.configure, cpp.build, task.test_cmd
        )
        return measure(
            done.task_dir,
            variant,
            plain,
            reps,
            runner,
            f"{name} ({case.source.describe()}), its upstream fix of {edited} plus a comment "
            f"line per patch; sandbox {described}",
            f"{name}: its upstream fix of {edited}",
        )


if __name__ == "__main__":
    raise SystemExit(main())
