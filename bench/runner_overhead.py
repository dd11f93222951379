"""What the bwrap sandbox costs per command: sandboxed vs unsandboxed, as ratios.

Two workloads, each run through `runner.run` the same number of times under both confinements,
alternating so that machine load hits both alike:
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


def compare(label: str, runs: int, make: Callable[[], runner.Result], size: str) -> None:
    confinements = {"none": runner.Confinement(), "bwrap": sandbox.configure("bwrap")}
    times: dict[str, list[float]] = {name: [] for name in confinements}
    for conf in confinements.values():  # warm-up: page cache, interpreter, cgroup parents
        runner.set_confinement(conf)
        make()
    for _ in range(runs):
        for name, conf in confinements.items():
            runner.set_confinement(conf)
            times[name].append(timed(make))
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
    sandbox.configure("bwrap")  # fails loudly here when bwrap cannot run
    venv = Path(sys.prefix)
    if venv == Path(sys.base_prefix):
        raise SystemExit("run this with the project's venv python (it provides pytest)")
    print(f"python {sys.version.split()[0]}, venv {venv}, mechanisms in force with bwrap:")
    with tempfile.TemporaryDirectory(prefix="pw-bench-") as tmp:
        root = Path(tmp)
        home = root / "home"
        home.mkdir()
        project = make_suite(root, args.tests)
        base = {"home": home, "timeout": 300, "writable": [project, home]}

        def trivial() -> runner.Result:
            return runner.run(runner.Request(command=["true"], cwd=project, **base))

        def suite() -> runner.Result:
            return runner.run(
                runner.Request(
                    command=["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
                    cwd=project,
                    path_prepend=[str(venv / "bin")],
                    readable=[venv],
                    **base,
                )
            )

        runner.set_confinement(sandbox.configure("bwrap"))
        print("  " + ", ".join(trivial().limits))
        compare("trivial command", args.trivial_runs, trivial, "`true`")
        compare(
            "pytest suite",
            args.suite_runs,
            suite,
            f"1 file, {args.tests} trivial tests, pytest in venv",
        )


if __name__ == "__main__":
    main()
