"""Run the real-repository evaluation: materialize every case, grade its patches through
`bag run` (the path a user takes), time a plain run of the test command beside it, and print the
repository x patch table with the two counts that matter.

    .venv/bin/python -m realworld.evaluate [--case NAME] [--sources DIR] [--work DIR] [--jobs N]
    (from bench/; `make bench` runs it through bench/run.py)

Exit status 0 only when no honest patch was rejected, no cheat was accepted, and every label is
right for the right reason (a special-case patch only when the special-casing gate flagged it).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from patchwitness.settings import Settings
from realworld.case import PINNING_ROWS, SHAPES, Case, PatchCase
from realworld.cases import all_cases
from realworld.materialize import Materialized, materialize
from realworld.sources import Unavailable, git

ACCEPTED = ("accept", "accept-with-review")
T = TypeVar("T")


@dataclass
class Outcome:
    patch: PatchCase
    label: str
    grade: str
    reasons: list[str]
    first_reject: str
    findings: list[str]
    wall_s: float
    # The special-casing gate's row (`gates.special.row`) and what it said; "" when the gate did
    # not run (the detector read no literal in the failing tests).
    special_row: str = ""
    special_detail: str = ""
    # The reference gate's row and what it said, the seconds its phase took, and how many calls
    # it ran under both trees (the comparison's input size).
    reference_row: str = ""
    reference_detail: str = ""
    reference_s: float = 0.0
    reference_compared: int = 0

    @property
    def differs(self) -> bool:
        return self.reference_row == "differs-from-reference"

    @property
    def special_flagged(self) -> bool:
        return self.special_row.startswith("special-cased")

    @property
    def pinning_flagged(self) -> list[str]:
        """The rows that said the tests do not pin this patch."""
        return [r for r in self.reasons if r in PINNING_ROWS]

    @property
    def found_out(self) -> bool:
        """A finding for a patch that fits the tests only: a gate rejected it, or asked for
        review because the tests do not pin it or it singles out their values."""
        return (
            self.grade not in ACCEPTED
            or bool(self.pinning_flagged)
            or self.special_flagged
            or self.differs
        )

    @property
    def honest_rejected(self) -> bool:
        return self.patch.honest and self.grade not in ACCEPTED

    @property
    def cheat_accepted(self) -> bool:
        # A special-case is accepted with review by design: it is judged by special_flagged;
        # a fits-tests patch likewise, by pinning_flagged (counted per shape).
        return (
            not self.patch.honest
            and not self.patch.special
            and not self.patch.fits_tests
            and self.grade in ACCEPTED
        )

    @property
    def wrong_reason(self) -> str:
        if self.label not in self.patch.labels:
            return f"label {self.label}, expected {'/'.join(self.patch.labels)}"
        if self.patch.special and not self.special_flagged:
            return f"not flagged as special-cased (gates.special: {self.special_row or 'none'})"
        rows = self.patch.required_rows
        if rows and not set(rows) & set(self.reasons):
            return f"rows {', '.join(self.reasons)}; expected one of {', '.join(rows)}"
        return ""


@dataclass
class CaseResult:
    case: Case
    outcomes: list[Outcome] = field(default_factory=list)
    plain_s: float | None = None
    skipped: str = ""
    sha: str = ""
    at_a_time: int = 1  # grades run side by side: each shares the machine, the plain run did not


def first_reject(verdict) -> str:
    """The gate and row that decided a rejection, as `gate:row`."""
    for reason in verdict.reasons:
        gate = getattr(verdict.gates, reason.gate, None)
        effect = getattr(gate, "effect", None)
        if effect == "reject" or reason.gate in ("grade", "runner"):
            return f"{reason.gate}:{reason.row}"
    return ""


def grade_case(
    done: Materialized, db: Path, jobs: int, settings: Settings, console: Console
) -> list[Outcome]:
    from patchwitness.bag import run_bag
    from patchwitness.executors import LocalExecutor
    from patchwitness.store import ResultsDB

    engine = LocalExecutor(workers=jobs)
    run_bag(done.bag, done.patches, db, settings=settings, executor=engine, console=console)
    store = ResultsDB(db)
    verdicts = {v.agent: v for v in store.verdicts() if v.task == done.case.name}
    store.close()
    out = []
    for patch in done.case.patches:
        verdict = verdicts.get(patch.name)
        if verdict is None:
            continue
        special = verdict.gates.special
        reference = verdict.gates.reference
        out.append(
            Outcome(
                patch=patch,
                label=verdict.label,
                grade=verdict.grade,
                reasons=[f"{r.gate}:{r.row}" for r in verdict.reasons],
                first_reject=first_reject(verdict) if verdict.grade == "reject" else "",
                findings=[f.kind for f in verdict.findings],
                wall_s=verdict.wall_clock_s,
                special_row=special.row if special is not None else "",
                special_detail=special.detail if special is not None else "",
                reference_row=reference.row if reference is not None else "",
                reference_detail=reference.detail if reference is not None else "",
                reference_s=verdict.timings.phases.get("reference", 0.0),
                reference_compared=reference.facts.compared if reference is not None else 0,
            )
        )
    return out


def plain_run(done: Materialized, scratch: Path, settings: Settings) -> float:
    """The peer: a fresh clone of the SHA with the first honest patch applied, its environment
    (built once by the grader and cached) first on PATH, then the task's build and test commands,
    run the plain way."""
    from patchwitness.task import load_task

    task = load_task(done.task_dir)
    honest = next(p for p in done.case.patches if p.honest)
    tree = scratch / "plain"
    plain_tree(done, tree, done.patch_file(honest.name).read_bytes())
    variables = plain_env(task, tree, scratch / "plain-build", settings)
    commands = plain_commands(task)
    start = time.perf_counter()
    for command in commands:
        subprocess.run(
            command, shell=True, cwd=tree / task.options.cwd, env=variables, capture_output=True
        )
    return time.perf_counter() - start


def plain_tree(done: Materialized, tree: Path, patch: bytes) -> None:
    """A fresh clone of the SHA at `tree`, `patch` applied by `git apply` (RuntimeError when git
    refuses it)."""
    subprocess.run(["rm", "-rf", str(tree)], check=True)
    tree.parent.mkdir(parents=True, exist_ok=True)
    git(tree.parent, "clone", "--quiet", "--no-checkout", str(done.repo), str(tree))
    git(tree, "checkout", "--quiet", "--detach", done.sha)
    if patch.strip():
        applied = subprocess.run(["git", "apply", "-"], cwd=tree, input=patch, capture_output=True)
        if applied.returncode != 0:
            raise RuntimeError(f"git apply: {applied.stderr.decode(errors='replace')[-300:]}")


def plain_env(task, tree: Path, build: Path, settings: Settings) -> dict[str, str]:
    """The user's variables for a run in `tree`: this process's, less the test runner's and the
    grader's own (PYTEST_*, PW_*), the task's environment (built once by the grader and cached)
    first on PATH, and for Python the tree (and its `src/`) on PYTHONPATH."""
    from patchwitness import environment

    env = environment.prepare(task, settings.runner, settings.cache) if task.options.setup else None
    variables = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "PW_"))}
    variables.pop("PYTHONPATH", None)
    bins = env.bin_dirs if env is not None else []
    variables["PATH"] = os.pathsep.join([*bins, os.environ.get("PATH", "")])
    variables["PW_BUILD"] = str(build)
    if task.language == "python":
        paths = [str(tree)] + ([str(tree / "src")] if (tree / "src").is_dir() else [])
        variables["PYTHONPATH"] = os.pathsep.join(paths)
    return variables


def plain_commands(task) -> list[str]:
    commands = []
    if task.language == "cpp":
        commands += [task.options.cpp.configure, task.options.cpp.build]
    if task.language == "python" and task.options.python.build:
        commands.append(task.options.python.build)
    return [*commands, task.test_cmd]


def evaluate(
    cases: list[Case],
    work: Path,
    sources: Path | None,
    jobs: int,
    settings: Settings,
    console: Console,
) -> list[CaseResult]:
    from patchwitness.cachedir import cache_root

    results = []
    for case in cases:
        result = CaseResult(case)
        results.append(result)
        console.rule(f"{case.name}: {case.source.describe()}")
        try:
            done = materialize(case, work, sources, cache_root() / "bench-sdists")
        except Unavailable as exc:
            result.skipped = str(exc)
            console.print(f"[yellow]skipped[/]: {exc}")
            continue
        result.sha = done.sha
        result.at_a_time = jobs or os.cpu_count() or 1
        result.outcomes = grade_case(done, work / "results.db", jobs, settings, console)
        # A Python suite's plain run is a second or two and varies run to run: the median of
        # three fresh clones. A C++ one is a cold build, run once.
        reps = 3 if case.language == "python" else 1
        result.plain_s = statistics.median(
            plain_run(done, work / case.name, settings) for _ in range(reps)
        )
    return results


def render(results: list[CaseResult], console: Console) -> int:
    shown = [r for r in results if not r.skipped]
    patches = list(dict.fromkeys(p.name for r in shown for p in r.case.patches))
    table = Table(
        title="patches x real repositories: label, and the gate:row that rejected "
        "(or special:special-cased)"
    )
    table.add_column("patch (kind)")
    for result in shown:
        table.add_column(f"{result.case.name}\n{result.case.language}", overflow="fold")
    kinds = {p.name: p.kind for r in shown for p in r.case.patches}
    for name in patches:
        row = [f"{name}\n({kinds[name]})"]
        for result in shown:
            cells = {o.patch.name: o for o in result.outcomes}
            o = cells.get(name)
            if o is None:
                row.append("?" if name in {p.name for p in result.case.patches} else "")
                continue
            mark = " !!" if o.honest_rejected or o.cheat_accepted or o.wrong_reason else ""
            why = o.first_reject or (f"special:{o.special_row}" if o.special_flagged else "")
            why = why or " ".join(o.pinning_flagged)
            row.append(f"{o.label}{mark}\n{why}".strip())
        table.add_row(*row)
    console.print(table)
    outcomes = [o for r in results for o in r.outcomes]
    honest = [o for o in outcomes if o.patch.honest]
    cheats = [
        o for o in outcomes if not o.patch.honest and not o.patch.special and not o.patch.fits_tests
    ]
    specials = [o for o in outcomes if o.patch.special]
    rejected = [o for o in honest if o.honest_rejected]
    accepted = [o for o in cheats if o.cheat_accepted]
    wrong = [(r.case.name, o) for r in results for o in r.outcomes if o.wrong_reason]
    flagged = [o for o in specials if o.special_flagged]
    false_flags = [
        (r.case.name, o)
        for r in results
        for o in r.outcomes
        if o.patch.honest and o.special_flagged
    ]
    # A patch without a verdict is a grader crash (its trace is in the results database's
    # crashes table): it counts against the grader, never silently out of the totals.
    missing = sum(1 for r in results if not r.skipped for p in r.case.patches) - len(outcomes)
    console.print(f"patches without a verdict (grader crashes, marked ?): {missing}")
    console.print(f"honest patches rejected: {len(rejected)} of {len(honest)}")
    console.print(f"cheats accepted: {len(accepted)} of {len(cheats)}")
    console.print(
        f"special-casing detector: flagged {len(flagged)} of {len(specials)} special-case patches"
    )
    console.print(f"falsely flagged: {len(false_flags)} of {len(honest)} honest patches")
    for case, o in false_flags:
        console.print(f"  {case}/{o.patch.name}: {o.special_detail}")
    pinned_honest = [(r.case.name, o) for r in results for o in r.outcomes if o.patch.honest]
    pinned_honest = [(case, o) for case, o in pinned_honest if o.pinning_flagged]
    console.print(f"honest patches the pinning gate flagged: {len(pinned_honest)} of {len(honest)}")
    for case, o in pinned_honest:
        console.print(f"  {case}/{o.patch.name}: {', '.join(o.pinning_flagged)}")
    # Every review an honest patch got, whatever the gate: what a reviewer reads for nothing.
    reviewed = [
        (r.case.name, o)
        for r in results
        for o in r.outcomes
        if o.patch.honest and o.grade == "accept-with-review"
    ]
    console.print(
        f"honest patches accepted with review (any gate): {len(reviewed)} of {len(honest)}"
    )
    for case, o in reviewed:
        console.print(f"  {case}/{o.patch.name}: {'; '.join(o.reasons)[:300]}")
    fitting = [o for o in outcomes if o.patch.fits_tests]
    for shape in SHAPES:
        of_shape = [o for o in fitting if o.patch.shape == shape]
        if of_shape:
            found = [o for o in of_shape if o.found_out]
            console.print(
                f"fits-tests patches, {shape}: a finding for {len(found)} of {len(of_shape)}"
            )
            for o in of_shape:
                if not o.found_out:
                    console.print(f"  no finding: {o.patch.name} ({o.label}, {o.grade})")
    render_reference(results, console)
    console.print(f"labels right for the wrong reason, or wrong: {len(wrong)}")
    for case, o in wrong:
        console.print(f"  {case}/{o.patch.name}: {o.wrong_reason}")
    for result in results:
        if result.skipped:
            console.print(f"skipped {result.case.name}: {result.skipped}")
            continue
        grades = [o.wall_s for o in result.outcomes]
        if grades and result.plain_s:
            grades.sort()
            middle = grades[len(grades) // 2]
            console.print(
                f"ratio {result.case.name} grade/plain run: {middle / result.plain_s:.2f}x "
                f"(median grade {middle:.1f} s over {len(grades)} patches / plain run "
                f"{result.plain_s:.1f} s; {result.at_a_time} grades at a time against a lone "
                "plain run)"
            )
    bad = bool(rejected or accepted or wrong or missing)
    return 1 if bad else 0


WITNESS = 400  # characters of a witness printed: the call, what was varied, both answers


def render_reference(results: list[CaseResult], console: Console) -> None:
    """The patches beside each case's reference fix (its honest-1): the wrong-but-green ones it
    found with a witness (the first difference: the call, what was varied, both trees'
    answers), those it did not (with the gate's row and detail), the honest ones it flagged
    (their witness is the only reason shown: whether they differ honestly is the reader's to
    judge), and what the comparison cost per grade."""
    wrong_total = found_total = honest_total = flagged_total = 0
    for result in results:
        graded = [o for o in result.outcomes if o.reference_row]
        if not graded:
            continue
        wrong = [o for o in graded if wrong_but_green(o)]
        honest = [o for o in graded if o.patch.honest]
        found = [o for o in wrong if o.differs]
        flagged = [o for o in honest if o.differs]
        wrong_total, found_total = wrong_total + len(wrong), found_total + len(found)
        honest_total, flagged_total = honest_total + len(honest), flagged_total + len(flagged)
        console.print(
            f"reference fix, {result.case.name}: differs for {len(found)} of {len(wrong)} "
            f"wrong-but-green patches; flagged {len(flagged)} of {len(honest)} honest"
        )
        for o in wrong:
            said = "found" if o.differs else f"not found ({o.reference_row})"
            console.print(f"  {o.patch.name}: {said}: {witness(o)}")
        for o in flagged:
            console.print(f"  honest {o.patch.name} differs: {witness(o)}")
        # Wrong-but-green patches another gate rejected before the comparison: out of the
        # counts (the gate never saw them), named so that none goes missing.
        for o in result.outcomes:
            if not o.reference_row and wrong_but_green(o):
                console.print(f"  {o.patch.name}: not reached ({o.first_reject or o.grade})")
        render_reference_cost(graded, console)
    if wrong_total or honest_total:
        console.print(
            f"reference fix, all cases: differs for {found_total} of {wrong_total} "
            f"wrong-but-green patches; flagged {flagged_total} of {honest_total} honest patches"
        )


def wrong_but_green(o: Outcome) -> bool:
    """A patch that passes the tests by design without being the fix (fits-tests,
    special-case), or any other patch but an honest one the grader accepted."""
    return o.patch.fits_tests or o.patch.special or (o.grade in ACCEPTED and not o.patch.honest)


def witness(o: Outcome) -> str:
    """The gate's detail on one line, cut to WITNESS characters; escaped, since a witness is
    code and data and its brackets are not the console's markup."""
    said = " ".join(o.reference_detail.split())
    if len(said) > WITNESS:
        said = said[: WITNESS - 3] + "..."
    return escape(said)


def render_reference_cost(graded: list[Outcome], console: Console) -> None:
    """The comparison's seconds per grade (median, max) against the median grade without it
    (the grade's wall clock less the phase), with its input: the calls run under both trees."""
    spent = sorted(o.reference_s for o in graded)
    rest = sorted(o.wall_s - o.reference_s for o in graded)
    calls = sorted(o.reference_compared for o in graded)
    other = rest[len(rest) // 2]
    if other <= 0:
        return
    middle = spent[len(spent) // 2]
    console.print(
        f"  the comparison: median {middle:.1f} s, max {spent[-1]:.1f} s per grade = "
        f"{middle / other:.2f} grades (median grade without it {other:.1f} s); "
        f"{len(graded)} grades, calls compared per grade: median {calls[len(calls) // 2]}, "
        f"max {calls[-1]}"
    )


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="realworld", description=__doc__)
    parser.add_argument("--case", action="append", help="only this case (repeatable)")
    parser.add_argument("--small", action="store_true", help="only the cases CI can run")
    parser.add_argument("--sources", type=Path, help="directory of local repository copies")
    parser.add_argument("--work", type=Path, help="keep the work here (default: a temp dir)")
    parser.add_argument("--jobs", type=int, default=0, help="parallel grades")
    parser.add_argument("--sandbox", default="auto", help="auto | bwrap | none")
    parser.add_argument("--quick", action="store_true", help="same as --small")
    parser.add_argument("--list", action="store_true", help="list the cases")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    from patchwitness import sandbox

    args = parse(argv)
    console = Console(stderr=False, width=200 if not sys.stdout.isatty() else None)
    cases = all_cases()
    if args.list:
        for case in cases:
            console.print(
                f"{case.name:24} {case.language:6} {case.source.describe()}  "
                f"{', '.join(case.traits)}"
            )
        return 0
    if args.case:
        cases = [c for c in cases if c.name in args.case]
    if args.small or args.quick:
        cases = [c for c in cases if c.small]
    # Two runs of each suite at its SHA find flaky tests, as a bag does.
    settings = Settings(runner=sandbox.make_runner(args.sandbox), baseline_runs=2)
    results = in_work_dir(
        args.work,
        "pw-realworld-",
        lambda work: evaluate(cases, work, args.sources, args.jobs, settings, console),
    )
    return render(results, console)


def in_work_dir(work: Path | None, prefix: str, run: Callable[[Path], T]) -> T:
    """`run` in the work directory the user named (kept, and resumed from), else in a
    temporary one removed afterwards."""
    if work is not None:
        work.mkdir(parents=True, exist_ok=True)
        return run(work.resolve())
    with tempfile.TemporaryDirectory(prefix=prefix) as temporary:
        return run(Path(temporary))


if __name__ == "__main__":
    sys.exit(main())
