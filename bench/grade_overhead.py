"""Grading overhead (issue 2, "Done when"): one `grade` against two plain runs of the test command.

A grade with a fresh baseline (`Settings(baselines=NoCache())`) runs the task's test command twice,
at the SHA and over the patched tree, plus the checkouts, the census, classification, the
coverage measurement, the gates and the verdict. Its peer is what a person would do by hand: run
the same command, the plain way, once in a checkout of the SHA and once in a checkout with the
patch applied, with the same interpreter and the same environment (the task's environment, built
once by `environment.prepare` and cached, its `bin/` first on PATH). So

    overhead = time(grade, fresh baseline) / (time(plain run at the SHA) + time(plain run patched))

and, for the usual case where the baseline is cached and shared by every patch of a task,

    cached overhead = time(grade, cached baseline) / time(plain run patched),

and the same with `Settings(coverage=False)`: what measuring line hits costs the patched run.

Measured on (a) the demo task `checkout-coupon-tax` with its honest patch, (b) a generated suite
of 2,000 tests (40 files x 50 tests with real asserts on a small module) with a one-line honest fix
and one failing test at the SHA, and (c) a small real suite: pytoolz/toolz 1.0.0 from its PyPI
sdist (180 tests), `take_nth` made to start at its second item, and the one-line fix (skipped
with a note when the sdist cannot be had; not in --quick), each without a sandbox (what
`api.grade` does unless told) and with the CLI's `--sandbox auto` (bwrap where it works). Each
figure is the median of --reps repetitions (3 by default). The cached grades are paired: each is
taken right after a plain run of the patched tree, and that ratio is the one the goal (at most
1.3x) reads. CPU time is printed beside the wall clock where it can be seen: not
for sandboxed runs, whose CPU time bwrap keeps from the grader's rusage.

    .venv/bin/python bench/grade_overhead.py [--quick] [--reps N] [--sandbox none,auto]
        [--files 40 --tests 50] [--cache DIR] [--no-toolz]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
from collections.abc import Callable
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
    runs,
    sandbox_runner,
    secs,
    seen_cost,
    timed,
)

from patchwitness import environment
from patchwitness.api import grade
from patchwitness.baseline import NoCache
from patchwitness.demo import build
from patchwitness.demo.run import build_demo
from patchwitness.model import Verdict
from patchwitness.runner import UNCONFINED, Runner
from patchwitness.settings import Settings
from patchwitness.task import Task, load_task

SETUP = 'python3 -m venv "$PW_ENV" && "$PW_ENV/bin/python" -m pip install --quiet pytest'
DEMO_TASK = "checkout-coupon-tax"

# The module under test of the generated suite. `tax` holds the one-line bug (and only one test
# calls it); everything else is correct and exercised by 1,999 passing tests.
CALC = '''\
"""A small module for a generated test suite: integer and string helpers."""

RATE_PERCENT = 20  # the bug: the tax rate is 25 percent


def tax(cents):
    return cents * RATE_PERCENT // 100


def clamp(value, low, high):
    if low > high:
        raise ValueError("low > high")
    return min(max(value, low), high)


def gcd(a, b):
    a, b = abs(a), abs(b)
    while b:
        a, b = b, a % b
    return a


def lcm(a, b):
    return 0 if a == 0 or b == 0 else abs(a * b) // gcd(a, b)


def fib(n):
    if n < 0:
        raise ValueError("negative")
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def is_prime(n):
    if n < 2:
        return False
    i = 2
    while i * i <= n:
        if n % i == 0:
            return False
        i += 1
    return True


def digit_sum(n):
    return sum(int(d) for d in str(abs(n)))


def collatz_steps(n):
    if n < 1:
        raise ValueError("positive only")
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def to_base(n, base):
    if not 2 <= base <= 36:
        raise ValueError("base out of range")
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    if n == 0:
        return "0"
    sign, n, out = ("-" if n < 0 else ""), abs(n), []
    while n:
        n, r = divmod(n, base)
        out.append(digits[r])
    return sign + "".join(reversed(out))


def roman(n):
    table = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
             (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]
    out = []
    for value, numeral in table:
        while n >= value:
            out.append(numeral)
            n -= value
    return "".join(out)


def reverse_words(text):
    return " ".join(reversed(text.split()))
'''
FIX = ("calc/__init__.py", "RATE_PERCENT = 20  # the bug", "RATE_PERCENT = 25  # the bug")
PYPROJECT = (
    '[project]\nname = "calc"\nversion = "0"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
)
WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "zeta",
    "eta",
    "theta",
    "iota",
    "kappa",
    "lambda",
]


def _correct() -> dict[str, Callable]:
    space: dict = {}
    exec(compile(CALC.replace(FIX[1], FIX[2]), "calc", "exec"), space)
    return space


def _test_body(rng: random.Random, calc: dict[str, Callable]) -> list[str]:
    """Two or three asserts with expected values computed from the correct module."""
    out: list[str] = []
    for _ in range(rng.randint(2, 3)):
        pick = rng.randrange(9)
        if pick == 0:
            v, lo = rng.randint(-500, 500), rng.randint(-100, 0)
            hi = lo + rng.randint(0, 200)
            call = f"clamp({v}, {lo}, {hi})"
            expected = calc["clamp"](v, lo, hi)
        elif pick == 1:
            a, b = rng.randint(-999, 999), rng.randint(-999, 999)
            call, expected = f"gcd({a}, {b})", calc["gcd"](a, b)
        elif pick == 2:
            a, b = rng.randint(0, 99), rng.randint(0, 99)
            call, expected = f"lcm({a}, {b})", calc["lcm"](a, b)
        elif pick == 3:
            n = rng.randint(0, 60)
            call, expected = f"fib({n})", calc["fib"](n)
        elif pick == 4:
            n = rng.randint(0, 5000)
            call, expected = f"is_prime({n})", calc["is_prime"](n)
        elif pick == 5:
            n = rng.randint(1, 3000)
            call, expected = f"collatz_steps({n})", calc["collatz_steps"](n)
        elif pick == 6:
            n, base = rng.randint(-(10**6), 10**6), rng.randint(2, 36)
            call, expected = f"to_base({n}, {base})", calc["to_base"](n, base)
        elif pick == 7:
            n = rng.randint(1, 3999)
            call, expected = f"roman({n})", calc["roman"](n)
        else:
            text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6)))
            call, expected = f"reverse_words({text!r})", calc["reverse_words"](text)
        out.append(f"    assert {call} == {expected!r}\n")
    if rng.random() < 0.1:
        out.append("    with pytest.raises(ValueError):\n        to_base(1, 1)\n")
    return out


def suite_files(test_files: int, tests_per_file: int) -> tuple[dict[str, str], str]:
    """The repository of the generated suite and the node id of its one failing test."""
    rng = random.Random(2000)
    calc = _correct()
    files = {"pyproject.toml": PYPROJECT, "calc/__init__.py": CALC, "tests/__init__.py": ""}
    names = [
        "clamp",
        "collatz_steps",
        "fib",
        "gcd",
        "is_prime",
        "lcm",
        "reverse_words",
        "roman",
        "to_base",
    ]
    header = f"import pytest\n\nfrom calc import {', '.join(names)}, tax\n\n"
    failing = ""
    for f in range(test_files):
        rel = f"tests/test_calc_{f:02d}.py"
        body = [header]
        for t in range(tests_per_file):
            if f == 0 and t == 0:
                body.append("\ndef test_tax_rate():\n    assert tax(1000) == 250\n\n")
                failing = f"{rel}::test_tax_rate"
                continue
            body.append(f"\ndef test_case_{t:03d}():\n{''.join(_test_body(rng, calc))}\n")
        files[rel] = "".join(body)
    return files, failing


@dataclass
class Case:
    name: str
    task_dir: Path
    patch: Path
    tests: int = 0
    test_files: int = 0
    files: int = 0
    expected: tuple[str, str] = ("passed", "accept")


def make_suite_case(root: Path, test_files: int, tests_per_file: int) -> Case:
    files, failing = suite_files(test_files, tests_per_file)
    repo = root / "repos" / "calc"
    sha = build.make_repo(repo, files, "generated suite")
    task_dir = root / "tasks" / "calc-tax-rate"
    toml = (
        'language = "python"\nrepo = "../../repos/calc"\ntimeout = 600\n'
        f"setup = '{SETUP}'\nsetup_depends_on = []\n"
    )
    build.write_task(
        task_dir, sha=sha, test_cmd="python -m pytest -q", allow_test_edits=False,
        failing=[failing], toml=toml,
    )  # fmt: skip
    patch = root / "patches" / "honest.diff"
    patch.parent.mkdir(parents=True, exist_ok=True)
    patch.write_text(build.make_diff(files, build.apply_edits(files, [FIX])))
    name = f"generated suite ({test_files} files x {tests_per_file} tests)"
    return Case(name, task_dir, patch)


def make_demo_case(root: Path) -> Case:
    bag = build_demo(root / "demo", language="python")
    job = next(j for j in bag.jobs if j.agent == "honest" and j.task_dir.name == DEMO_TASK)
    return Case(f"demo {DEMO_TASK} / honest", job.task_dir, job.patch)


# (c) A small real suite. The bug: every other item from the second, not the first.
TOOLZ_MODULE = "toolz/itertoolz.py"
TOOLZ_RIGHT = "    return itertools.islice(seq, 0, None, n)\n"
TOOLZ_WRONG = "    return itertools.islice(seq, 1, None, n)\n"


def make_toolz_case(root: Path) -> Case | None:
    """pytoolz/toolz's PyPI sdist as a task, through bench/realworld's materializer (the sdist
    downloaded once into the grader's cache, as the realworld cases' are); None, with a note,
    when it cannot be had."""
    from realworld.case import HONEST, PatchCase, SdistSource
    from realworld.case import Case as RealCase
    from realworld.edits import Replace
    from realworld.materialize import materialize
    from realworld.sources import Unavailable

    from patchwitness.cachedir import cache_root

    fix = Replace(TOOLZ_MODULE, TOOLZ_WRONG, TOOLZ_RIGHT)
    case = RealCase(
        name="toolz",
        language="python",
        source=SdistSource("toolz", "1.0.0"),
        bug=(Replace(TOOLZ_MODULE, TOOLZ_RIGHT, TOOLZ_WRONG),),
        failing=("toolz/tests/test_itertoolz.py::test_take_nth",),
        test_cmd="python -m pytest -q toolz",
        task_toml=f"setup = '{SETUP}'\n",
        patches=(PatchCase("honest-1", HONEST, (fix,)),),
        reference=False,  # a task as most are written: failing tests, no reference fix
    )
    try:
        done = materialize(case, root / "toolz", None, cache_root() / "bench-sdists")
    except (Unavailable, RuntimeError) as exc:
        line(f"toolz: skipped ({exc})")
        return None
    return Case(
        "pytoolz/toolz 1.0.0 (PyPI sdist) / honest", done.task_dir, done.patch_file("honest-1")
    )


def _git(*args: str, cwd: Path | None = None) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def checkout(task: Task, where: Path, patch: Path | None) -> Path:
    """A plain checkout of the SHA (with the patch applied when given), as a person makes one."""
    _git("clone", "--quiet", "--no-checkout", str(task.repo), str(where))
    _git("-c", "advice.detachedHead=false", "checkout", "--quiet", task.sha, cwd=where)
    if patch is not None:
        _git("apply", str(patch.resolve()), cwd=where)
    return where


def plain_run(task: Task, env: environment.Environment, tree: Path) -> Cost:
    """The task's test command, run the plain way: the task environment first on PATH."""
    variables = dict(os.environ)
    for name in ("PYTEST_ADDOPTS", "PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV"):
        variables.pop(name, None)
    variables["PATH"] = os.pathsep.join([*env.bin_dirs, os.environ.get("PATH", "")])
    if env.path is not None:
        variables["VIRTUAL_ENV"] = str(env.path)
    # The same import path the grader gives the run (its worktree, and src/ when there is one).
    paths = [str(tree)] + ([str(tree / "src")] if (tree / "src").is_dir() else [])
    variables["PYTHONPATH"] = os.pathsep.join(paths)
    took, done = timed(
        lambda: subprocess.run(
            task.test_cmd,
            shell=True,
            cwd=tree / task.options.cwd,
            env=variables,
            capture_output=True,
            timeout=task.timeout,
        )
    )
    if done.returncode not in (0, 1):
        raise RuntimeError(f"plain run failed ({done.returncode}): {done.stdout[-500:]!r}")
    return took


@dataclass
class Samples:
    plain_sha: list[Cost] = field(default_factory=list)
    plain_patched: list[Cost] = field(default_factory=list)
    fresh: list[Cost] = field(default_factory=list)
    cached: list[Cost] = field(default_factory=list)
    plain_paired: list[Cost] = field(default_factory=list)  # taken right before each cached grade
    uncovered: list[Cost] = field(default_factory=list)
    fresh_phases: list[dict[str, float]] = field(default_factory=list)
    cached_phases: list[dict[str, float]] = field(default_factory=list)
    uncovered_phases: list[dict[str, float]] = field(default_factory=list)
    labels: set[str] = field(default_factory=set)


def _phases(samples: list[dict[str, float]]) -> str:
    names = list(dict.fromkeys(name for sample in samples for name in sample))
    return ", ".join(f"{n} {secs(median(s.get(n, 0.0) for s in samples))}" for n in names)


def _grade(case: Case, settings: Settings) -> tuple[Cost, Verdict]:
    cost, verdict = timed(
        lambda: grade(case.task_dir, case.patch, agent="honest", settings=settings)
    )
    # Under bwrap the test runs' CPU time never reaches this process's rusage: wall clock only.
    return seen_cost(cost, settings.runner), verdict


def measure(case: Case, reps: int, scratch: Path, settings: Settings) -> Samples:
    """`settings` carries the runner (the sandbox) and the cache; each grade varies it by the
    baseline cache and the coverage gate only."""
    task = load_task(case.task_dir)
    cost, env = timed(lambda: environment.prepare(task, settings.runner, settings.cache))
    line(f"task environment (environment.prepare, built once, then cached): {cost}")
    # A first grade warms what every later one shares (imports, page cache, the environment),
    # and tells how many tests there are.
    fresh = settings.but(baselines=NoCache())
    _, verdict = _grade(case, fresh)
    drift = verdict.gates.drift.facts if verdict.gates and verdict.gates.drift else None
    case.tests = len(drift.after) if drift else 0
    listing = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", task.sha],
        cwd=task.repo, capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    case.files = len(listing)
    case.test_files = sum(1 for p in listing if Path(p).name.startswith("test_"))
    line(
        f"input: {case.tests:,} tests in {case.test_files} test files ({case.files} files in the "
        f"repository); first grade: {verdict.label}/{verdict.grade}"
    )
    if (verdict.label, verdict.grade) != case.expected:
        for reason in verdict.reasons:
            line(f"   reason {reason.gate}/{reason.row}: {reason.detail[:300]}")
    samples = Samples()
    for rep in range(reps):
        sha_tree = checkout(task, scratch / f"plain-{rep}-sha", None)
        patched_tree = checkout(task, scratch / f"plain-{rep}-patched", case.patch)
        samples.plain_sha.append(plain_run(task, env, sha_tree))
        samples.plain_patched.append(plain_run(task, env, patched_tree))
        cost, verdict = _grade(case, fresh)
        samples.fresh.append(cost)
        samples.fresh_phases.append(dict(verdict.timings.phases))
        samples.labels.add(f"{verdict.label}/{verdict.grade}")
    uncovered = settings.but(coverage=False)
    # Put both baselines in the (private) cache: one without coverage is keyed apart (it skips the
    # instrumented run at the SHA), and would otherwise be computed inside the first timed grade.
    _grade(case, settings)
    _grade(case, uncovered)
    for rep in range(reps):
        samples.plain_paired.append(plain_run(task, env, scratch / f"plain-{rep}-patched"))
        cost, verdict = _grade(case, settings)
        samples.cached.append(cost)
        samples.cached_phases.append(dict(verdict.timings.phases))
        samples.labels.add(f"{verdict.label}/{verdict.grade}")
        # The same without the coverage gate: what measuring line hits costs the patched run.
        cost, verdict = _grade(case, uncovered)
        samples.uncovered.append(cost)
        samples.uncovered_phases.append(dict(verdict.timings.phases))
    return samples


def report(case: Case, samples: Samples, reps: int, sandbox: str) -> None:
    size = f"{case.tests:,} tests, {case.test_files} test files, median of {reps}"
    name = f"{case.name}, sandbox {sandbox}"
    both = [a + b for a, b in zip(samples.plain_sha, samples.plain_patched, strict=True)]
    plain_two, plain_one = median_cost(both), median_cost(samples.plain_patched)
    line(f"plain run at the SHA: {runs(samples.plain_sha)}")
    line(f"plain run, patched:   {runs(samples.plain_patched)}")
    line(f"grade, fresh baseline: {runs(samples.fresh)}")
    line(f"   phases (median wall): {_phases(samples.fresh_phases)}")
    line(f"plain run, patched, paired with each cached grade: {runs(samples.plain_paired)}")
    line(f"grade, cached baseline: {runs(samples.cached)}")
    line(f"   phases (median wall): {_phases(samples.cached_phases)}")
    line(f"grade, cached baseline, coverage=False: {runs(samples.uncovered)}")
    line(f"   phases (median wall): {_phases(samples.uncovered_phases)}")
    want = f"{case.expected[0]}/{case.expected[1]}"
    verdicts = ", ".join(sorted(samples.labels))
    line(f"verdicts: {verdicts}" + ("" if samples.labels == {want} else f" (EXPECTED {want})"))
    fresh, cached = median_cost(samples.fresh), median_cost(samples.cached)
    print_ratio(f"grade(fresh baseline)/two plain runs [{name}]", fresh, plain_two, size)
    print_ratio(f"grade(cached baseline)/one plain run [{name}]", cached, plain_one, size)
    pairs = [g.wall / p.wall for g, p in zip(samples.cached, samples.plain_paired, strict=True)]
    line(
        "grade(cached baseline)/the plain run just before it, pair by pair: "
        + ", ".join(f"{r:.2f}x" for r in pairs)
        + f" (median {median(pairs):.2f}x)"
    )
    uncovered = median_cost(samples.uncovered)
    print_ratio(
        f"grade(cached baseline, no coverage)/one plain run [{name}]", uncovered, plain_one, size
    )


def choose_runner(mode: str) -> tuple[Runner, str]:
    """The runner `patchwitness grade --sandbox MODE` confines the test runs with; limits only
    (what `api.grade` uses unless told) when that mode cannot run here."""
    try:
        return sandbox_runner(mode)
    except ValueError as exc:
        return UNCONFINED, f"{UNCONFINED.name} (sandbox {mode!r} unavailable: {exc})"


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="a 40-test suite, one repetition, no sandbox"
    )
    parser.add_argument("--reps", type=int, default=0, help="repetitions (default 3, quick 1)")
    parser.add_argument(
        "--sandbox",
        default="none,auto",
        help="comma list of modes to measure: none (the API's default), auto or bwrap (the CLI's)",
    )
    parser.add_argument("--files", type=int, default=40, help="test files of the generated suite")
    parser.add_argument("--tests", type=int, default=50, help="tests per generated file")
    parser.add_argument("--cache", type=Path, help="keep PATCHWITNESS_CACHE here (default: temp)")
    parser.add_argument("--no-toolz", action="store_true", help="skip the real suite (c)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    reps = args.reps or (1 if args.quick else 3)
    files, per_file = (4, 10) if args.quick else (args.files, args.tests)
    modes = ["none"] if args.quick else [m.strip() for m in args.sandbox.split(",") if m.strip()]
    print(f"grade overhead: {os.cpu_count()} cores, python {sys.version.split()[0]}; {load_note()}")
    with private_cache(args.cache), tempfile.TemporaryDirectory(prefix="pw-bench-grade-") as tmp:
        root = Path(tmp)
        cases = [make_demo_case(root), make_suite_case(root, files, per_file)]
        if not (args.quick or args.no_toolz):
            toolz = make_toolz_case(root)
            cases += [toolz] if toolz is not None else []
        for mode in modes:
            chosen, confinement = choose_runner(mode)
            # Made inside private_cache: Settings.cache defaults to PATCHWITNESS_CACHE.
            settings = Settings(runner=chosen)
            for case in cases:
                heading(f"{case.name}; sandbox {mode}: {confinement}")
                scratch = root / "plain" / mode / case.task_dir.name
                scratch.mkdir(parents=True)
                report(case, measure(case, reps, scratch, settings), reps, chosen.name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
