"""What the bwrap sandbox costs per command: sandboxed vs unsandboxed, as ratios.

Two workloads, each run through `Runner.run` the same number of times under both runners
(`runner.UNCONFINED`, limits only, and `sandbox.make_runner("bwrap")`), alternating so that
machine load hits both alike:
  - a trivial command (`true`), 50 runs: the fixed cost of starting a sandbox;
  - a small pytest suite (one file of 200 trivial tests) run by this interpreter's venv, 5 runs.

Prints the input sizes and the ratio of median wall times (sandboxed / unsandboxed). Per-run
cgroups are used in both modes where the machine allows them, so the ratio is the sandbox's alone.

    .venv/bin/python bench/runner_overhead.py [--trivial-runs 50] [--suite-runs 5] [--tests 200]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from patchwitness import runner, sandbox


def timed(fn: Callable[[], runner.Result]) -> float:
    started = time.perf_counter()
    result = fn()
    elapsed = time.perf_counter() - started
    if not result.ok:
        raise SystemExit(f"benchmark command failed: {result.command}\n{result.stderr[-2000:]!r}")
    return elapsed


Workload = Callable[[runner.Runner], runner.Result]


def compare(
    label: str, runs: int, make: Workload, size: str, runners: dict[str, runner.Runner]
) -> None:
    times: dict[str, list[float]] = {name: [] for name in runners}
    for chosen in runners.values():  # warm-up: page cache, interpreter, cgroup parents
        make(chosen)
    for _ in range(runs):
        for name, chosen in runners.items():
            times[name].append(timed(lambda chosen=chosen: make(chosen)))
    plain = statistics.median(times["none"])
    boxed = statistics.median(times["bwrap"])
    print(
        f"{label:<18} {size:<44} runs={runs:<4} median none={plain * 1000:8.1f}ms "
        f"bwrap={boxed * 1000:8.1f}ms  ratio={boxed / plain:5.2f}x"
    )


def make_suite(root: Path, tests: int) -> Path:
    project = root / "suite"
    (project / "tests").mkdir(parents=True)
    body = "\n\n".join(f"def test_{i}():\n    assert {i} + 1 == {i + 1}" for i in range(tests))
    (project / "tests" / "test_many.py").write_text(body + "\n")
    return project


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trivial-runs", type=int, default=50)
    parser.add_argument("--suite-runs", type=int, default=5)
    parser.add_argument("--tests", type=int, default=200)
    args = parser.parse_args()
    # make_runner fails loudly here when bwrap cannot run.
    runners = {"none": runner.UNCONFINED, "bwrap": sandbox.make_runner("bwrap")}
    if Path(sys.prefix) == Path(sys.base_prefix):
        raise SystemExit("run this with the project's venv python (it provides pytest)")
    # The real directory: the sandbox refuses to bind a path that is a symlink (a worktree's
    # .venv often is one), so the sandboxed run would find no python.
    venv = Path(sys.prefix).resolve()
    print(f"python {sys.version.split()[0]}, venv {venv}, mechanisms in force with bwrap:")
    with tempfile.TemporaryDirectory(prefix="pw-bench-") as tmp:
        root = Path(tmp)
        home = root / "home"
        home.mkdir()
        project = make_suite(root, args.tests)
        base = {"home": home, "timeout": 300, "writable": [project, home]}

        def trivial(chosen: runner.Runner) -> runner.Result:
            return chosen.run(runner.Request(command=["true"], cwd=project, **base))

        def suite(chosen: runner.Runner) -> runner.Result:
            return chosen.run(
                runner.Request(
                    command=["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
                    cwd=project,
                    path_prepend=[str(venv / "bin")],
                    readable=[venv],
                    **base,
                )
            )

        print("  " + ", ".join(trivial(runners["bwrap"]).limits))
        compare("trivial command", args.trivial_runs, trivial, "`true`", runners)
        compare(
            "pytest suite",
            args.suite_runs,
            suite,
            f"1 file, {args.tests} trivial tests, pytest in venv",
            runners,
        )


if __name__ == "__main__":
    main()
