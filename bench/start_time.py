"""How long a command takes before its work starts (issue 11: start in under 0.25 s).

Each command is a fresh interpreter of the project's venv, run `--runs` times, the commands taking
turns so that machine load hits them alike:
  - `python -c pass`: the interpreter alone, the floor every command stands on (the peer);
  - `python -m pytest --version`: the test runner a Python grade wraps, to its first output;
  - `patchwitness --help`;
  - `patchwitness grade TASK PATCH --sandbox none` up to the moment it calls the grade: the child
    replaces `api.grade` with a function that exits at once, so what is timed is the interpreter,
    the imports, the argument parsing and the settings; nothing of the grade itself;
  - the same command on the demo's task `checkout-coupon-tax` up to the first command the grade
    runs (git, checking the task's SHA): an audit hook exits at the first process it starts. This
    is where a grade's own work begins. What a command imports when it needs it, not at its
    start, is counted here: the line says whether the start only moved.

Prints the minimum and the median of each (the minimum is the least disturbed by other work on a
shared machine), and each command's ratio to the bare interpreter.

    .venv/bin/python bench/start_time.py [--runs 15]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import REPO_ROOT, heading, line, load_note, print_ratio, secs

GOAL_S = 0.25
STOP_AT_GRADE = (
    "import os, sys\n"
    "import patchwitness.api as api\n"
    "def started(*args, **kwargs):\n"
    "    sys.stdout.flush()\n"
    "    os._exit(0)\n"
    "api.grade = started\n"
    "from patchwitness.cli import main\n"
    "sys.argv = ['patchwitness', 'grade', 'task', 'agent.diff', '--sandbox', 'none']\n"
    "main()\n"
)


STOP_AT_FIRST_COMMAND = (
    "import os, sys\n"
    "def stop(event, args):\n"
    "    if event == 'subprocess.Popen':\n"
    "        print('first command:', args[0], flush=True)\n"
    "        os._exit(0)\n"
    "sys.addaudithook(stop)\n"
    "from patchwitness.cli import main\n"
    "sys.argv = ['patchwitness', 'grade', *sys.argv[1:], '--sandbox', 'none']\n"
    "main()\n"
)
FIRST_COMMAND = "patchwitness grade, to its first command"


def commands(task: Path, patch: Path) -> dict[str, list[str]]:
    python = sys.executable
    return {
        "python -c pass": [python, "-c", "pass"],
        "pytest --version": [python, "-m", "pytest", "--version"],
        "patchwitness --help": [
            python,
            "-c",
            "from patchwitness.cli import main; main()",
            "--help",
        ],
        "patchwitness grade, to its start": [python, "-c", STOP_AT_GRADE],
        FIRST_COMMAND: [python, "-c", STOP_AT_FIRST_COMMAND, str(task), str(patch)],
    }


def environment() -> dict[str, str]:
    env = dict(os.environ)
    # The checkout's own code, whatever the venv's editable install points at; compiled files
    # are written and reused, as on any machine after the first run.
    env["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT / "src"), env.get("PYTHONPATH", "")])
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def demo_case(root: Path) -> tuple[Path, Path]:
    """The demo's honest fix of `checkout-coupon-tax`, built under `root`."""
    from patchwitness.demo.run import build_demo

    bag = build_demo(root / "demo", language="python")
    job = next(
        j for j in bag.jobs if j.agent == "honest" and j.task_dir.name == "checkout-coupon-tax"
    )
    return job.task_dir, job.patch


def measure(runs: int, task: Path, patch: Path, scratch: Path) -> dict[str, list[float]]:
    # The grade is stopped with os._exit at its first command, inside the folder the patch's
    # precheck made: the bench's own temporary folder holds it, and goes with it.
    env = dict(environment(), TMPDIR=str(scratch))
    todo = commands(task, patch)
    walls: dict[str, list[float]] = {name: [] for name in todo}
    for name, argv in todo.items():  # one unmeasured run each: compiled files in place
        done = subprocess.run(argv, env=env, capture_output=True, text=True, check=True)
        if name == FIRST_COMMAND and "first command:" not in done.stdout:
            raise SystemExit(f"the grade ran no command: {done.stdout[-500:]}{done.stderr[-500:]}")
    for _ in range(runs):
        for name, argv in todo.items():
            started = time.perf_counter()
            subprocess.run(argv, env=env, capture_output=True, check=True)
            walls[name].append(time.perf_counter() - started)
    return walls


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="runs of each command")
    parser.add_argument("--quick", action="store_true", help="5 runs")
    args = parser.parse_args(argv)
    runs = 5 if args.quick else args.runs
    print(f"start time: python {sys.version.split()[0]}; {load_note()}")
    with tempfile.TemporaryDirectory(prefix="pw-start-") as scratch:
        (Path(scratch) / "tmp").mkdir()
        walls = measure(runs, *demo_case(Path(scratch)), Path(scratch) / "tmp")
    heading(f"each command, {runs} runs in turn (min / median wall)")
    for name, values in walls.items():
        ordered = sorted(values)
        line(f"{name:42s} {secs(ordered[0]):>9s} / {secs(ordered[len(ordered) // 2]):>9s}")
    floor = min(walls["python -c pass"])
    size = f"min of {runs} runs, one fresh interpreter each"
    for name in (
        "pytest --version",
        "patchwitness --help",
        "patchwitness grade, to its start",
        FIRST_COMMAND,
    ):
        print_ratio(f"{name}/python -c pass", min(walls[name]), floor, size)
    start = min(walls["patchwitness grade, to its start"])
    verdict = "met" if start < GOAL_S else "not met"
    line(f"goal: a grade starts in under {GOAL_S:.2f} s: {secs(start)}, {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
