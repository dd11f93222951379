"""Run the red team's yardstick: materialize each base as bench/realworld does, grade every cheat
through `bag run` (realworld's own `grade_case`), and check each case outside the grader: the
cheat applies with `git apply`, its probe passes on the base's honest fix and fails on the cheat,
and the cheat turns the failing tests green in a plain run.

    .venv/bin/python -m redteam [--case NAME] [--small] [--work DIR] [--jobs N] [--list]
    (from bench/; `make bench` runs it through bench/run.py)

It prints one row per case (base, hole, label, the gate:row that rejected, the probe) and three
counts: cheats accepted (accept, or accept-with-review with no finding of the case's own rows),
cheats rejected for the wrong reason, and broken cases (they prove nothing and are not counted as
either). A cheat accepted with review because a row the case names asked for it (the tests do not
pin the patch) is counted apart, as flagged: a person is told, the label is still the tests'.
Exit status 0 only when every case is rejected for the right reason or flagged, and none is
broken. An accepted case whose class is owned by a gate not built yet (`RedCase.owner`) is still
accepted, and is listed under its owner.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import pkgutil
import sys
from dataclasses import dataclass
from pathlib import Path

from realworld.case import CHEAT, Case, PatchCase, SdistSource
from realworld.cases import all_cases
from realworld.evaluate import ACCEPTED, Outcome, grade_case, in_work_dir, plain_tree
from realworld.materialize import Materialized, make_diff, materialize, reference_edits
from realworld.sources import Unavailable
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from patchwitness.settings import Settings
from redteam.case import RedCase
from redteam.probe import Run, plain_suite, run_probe


def red_cases() -> list[RedCase]:
    import redteam.cases as package

    found: list[RedCase] = []
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"redteam.cases.{info.name}")
        found += getattr(module, "CASES", ())
    return found


def bases() -> dict[str, Case]:
    return {case.name: case for case in all_cases()}


def small(case: RedCase, known: dict[str, Case]) -> bool:
    """What CI can run: a base downloaded from PyPI."""
    return isinstance(known[case.base].source, SdistSource)


@dataclass
class Result:
    case: RedCase
    outcome: Outcome | None = None
    broken: str = ""  # why the case proves nothing; "" when it is sound
    probe_honest: Run | None = None
    probe_cheat: Run | None = None
    plain: Run | None = None
    skipped: str = ""

    @property
    def graded(self) -> bool:
        return self.outcome is not None

    @property
    def accepted(self) -> bool:
        return self.outcome is not None and self.outcome.grade in ACCEPTED and not self.flagged

    @property
    def flagged(self) -> bool:
        """Accepted with review, and a row the case names asked for the review."""
        o = self.outcome
        return (
            o is not None
            and o.grade == "accept-with-review"
            and bool(set(self.case.rows) & set(o.reasons))
        )

    @property
    def right(self) -> bool:
        """Rejected, and one of the rows the case names among the verdict's reasons."""
        o = self.outcome
        return o is not None and o.grade == "reject" and bool(set(self.case.rows) & set(o.reasons))

    @property
    def status(self) -> str:
        if self.skipped:
            return "skipped"
        if self.broken:
            return "BROKEN"
        if self.outcome is None:
            return "no verdict"
        if self.accepted:
            return "ACCEPTED"
        if self.flagged:
            return "flagged"
        return "rejected" if self.right else "wrong reason"


def patch_bytes(case: RedCase, done: Materialized, scratch: Path) -> bytes:
    if case.raw is not None:
        return case.raw(done.repo, done.sha)
    return make_diff(done.repo, done.sha, case.edits, scratch)


def check(
    result: Result,
    done: Materialized,
    patch: bytes,
    honest: Path,
    scratch: Path,
    settings: Settings,
) -> None:
    """The case's own soundness, outside the grader: it applies, its probe tells the honest fix
    from the cheat, and the cheat makes a plain run of the tests green."""
    from patchwitness.task import load_task

    case = result.case
    task = load_task(done.task_dir)
    result.probe_honest = run_probe(case.probe, task, honest, scratch / "probe-honest", settings)
    tree = scratch / "tree"
    try:
        plain_tree(done, tree, patch)
    except RuntimeError as exc:
        result.broken = f"the cheat does not apply: {exc}"
        return
    result.probe_cheat = run_probe(case.probe, task, tree, scratch / "probe-cheat", settings)
    # The plain run writes into the tree (bytecode, build products): a tree of its own.
    plain_tree(done, tree, patch)
    result.plain = plain_suite(
        task, tree, scratch / "plain", settings, case.grader_env, case.grader_limits
    )
    if not result.probe_honest.passed:
        result.broken = f"the probe does not pass on the honest fix: {result.probe_honest.detail}"
    elif not result.probe_cheat.failed:
        result.broken = f"the probe does not fail on the cheat: {result.probe_cheat.detail}"
    elif not result.plain.passed:
        result.broken = f"the failing tests still fail in a plain run: {result.plain.detail}"


def evaluate_base(
    base: Case,
    cases: list[RedCase],
    work: Path,
    sources: Path | None,
    jobs: int,
    settings: Settings,
    console: Console,
) -> list[Result]:
    from patchwitness.cachedir import cache_root

    results = [Result(case) for case in cases]
    console.rule(f"{base.name}: {base.source.describe()}, {len(cases)} cheats")
    try:
        # The base's task and SHA; its own patches are realworld's to grade, not ours, but its
        # fix is the task's reference, as in realworld: the reference gate runs here too.
        done = materialize(
            dataclasses.replace(base, patches=()),
            work,
            sources,
            cache_root() / "bench-sdists",
            reference=reference_edits(base),
        )
    except Unavailable as exc:
        for result in results:
            result.skipped = str(exc)
        console.print(f"[yellow]skipped[/]: {exc}")
        return results
    root = work / base.name
    red = dataclasses.replace(
        done,
        case=dataclasses.replace(
            base, patches=tuple(PatchCase(c.name, CHEAT, (), rows=c.rows) for c in cases)
        ),
        patches=root / "red",
    )
    patches: dict[str, bytes] = {}
    for result in results:
        try:
            patches[result.case.name] = patch_bytes(result.case, done, root / "scratch")
        except Exception as exc:  # a case that cannot even build its patch: broken, say why
            result.broken = f"the patch cannot be built: {exc}"
            continue
        target = red.patch_file(result.case.name)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(patches[result.case.name])
    graded = grade_case(red, work / "redteam.db", jobs, settings, console)
    outcomes = {o.patch.name: o for o in graded}
    # The probe's other half: the base's first honest fix, on a tree of its own.
    honest_fix = next(p for p in base.patches if p.honest)
    honest_tree = root / "honest"
    honest_patch = make_diff(done.repo, done.sha, honest_fix.edits, root / "scratch")
    plain_tree(done, honest_tree, honest_patch)
    for result in results:
        result.outcome = outcomes.get(result.case.name)
        if result.case.name in patches:
            check(
                result,
                done,
                patches[result.case.name],
                honest_tree,
                root / "check" / result.case.name,
                settings,
            )
        console.print(escape(f"{result.case.key}: {result.status} {result.broken}".rstrip()))
    return results


def evaluate(
    cases: list[RedCase],
    work: Path,
    sources: Path | None,
    jobs: int,
    settings: Settings,
    console: Console,
) -> list[Result]:
    known = bases()
    results: list[Result] = []
    for name in dict.fromkeys(c.base for c in cases):
        mine = [c for c in cases if c.base == name]
        results += evaluate_base(known[name], mine, work, sources, jobs, settings, console)
    return results


def _probe_cell(result: Result) -> str:
    honest, cheat = result.probe_honest, result.probe_cheat
    if honest is None:
        return ""
    cells = [f"honest {honest.status}", f"cheat {cheat.status if cheat else '-'}"]
    if cheat is not None and cheat.detail:
        cells.append(cheat.detail)
    return "\n".join(cells)


def render(results: list[Result], console: Console) -> int:
    table = Table(title="red-team cheats: the grader's verdict, and the probe outside the tests")
    for column in ("case", "hole", "label", "rejected by", "probe", "plain run", "status"):
        table.add_column(column, overflow="fold")
    for r in results:
        o = r.outcome
        cells = (
            r.case.key,
            r.case.hole,
            f"{o.label}\n({o.grade})" if o else "",
            (o.first_reject or " ".join(x for x in o.reasons if x in r.case.rows)) if o else "",
            _probe_cell(r),
            r.plain.status if r.plain else "",
            r.status + (f"\n{r.broken}" if r.broken else "") + (r.skipped and f"\n{r.skipped}"),
        )
        table.add_row(*(escape(cell) for cell in cells))
    console.print(table)
    sound = [r for r in results if not r.broken and not r.skipped]
    accepted = [r for r in sound if r.accepted]
    flagged = [r for r in sound if r.flagged]
    wrong = [r for r in sound if r.graded and not r.accepted and not r.flagged and not r.right]
    broken = [r for r in results if r.broken]
    missing = [r for r in sound if not r.graded]
    skipped = [r for r in results if r.skipped]
    console.print(f"cases without a verdict (grader crashes): {len(missing)}")
    console.print(f"cheats accepted: {len(accepted)} of {len(sound)}")
    for r in accepted:
        owner = f"; for {r.case.owner}" if r.case.owner else ""
        said = f"  {r.case.key} ({r.case.hole}): {r.outcome.label} / {r.outcome.grade}{owner}"
        console.print(escape(said))
    console.print(f"flagged for review by a row the case names: {len(flagged)} of {len(sound)}")
    for r in flagged:
        said = ", ".join(x for x in r.outcome.reasons if x in r.case.rows)
        console.print(escape(f"  {r.case.key}: {said}"))
    console.print(f"rejected for the wrong reason: {len(wrong)} of {len(sound)}")
    for r in wrong:
        reasons = ", ".join(r.outcome.reasons)
        console.print(f"  {r.case.key}: rows {reasons}; expected one of {', '.join(r.case.rows)}")
    console.print(f"broken cases: {len(broken)} of {len(results)}")
    for r in broken:
        console.print(f"  {r.case.key}: {r.broken}")
    for r in skipped:
        console.print(f"skipped {r.case.key}: {r.skipped}")
    return 1 if accepted or wrong or broken or missing else 0


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="redteam", description=__doc__)
    parser.add_argument(
        "--case", action="append", help="a base (iniconfig) or one case (iniconfig/NAME)"
    )
    parser.add_argument("--small", action="store_true", help="only PyPI sdist bases (CI)")
    parser.add_argument("--quick", action="store_true", help="same as --small")
    parser.add_argument("--sources", type=Path, help="directory of local repository copies")
    parser.add_argument("--work", type=Path, help="keep the work here (default: a temp dir)")
    parser.add_argument("--jobs", type=int, default=0, help="parallel grades")
    parser.add_argument("--sandbox", default="auto", help="auto | bwrap | none")
    parser.add_argument("--list", action="store_true", help="list the cases")
    return parser.parse_args(argv)


def select(cases: list[RedCase], names: list[str] | None, only_small: bool) -> list[RedCase]:
    known = bases()
    if names:
        cases = [c for c in cases if c.base in names or c.key in names]
    if only_small:
        cases = [c for c in cases if small(c, known)]
    return cases


def main(argv: list[str] | None = None) -> int:
    from patchwitness import sandbox

    args = parse(argv)
    console = Console(stderr=False, width=200 if not sys.stdout.isatty() else None)
    cases = select(red_cases(), args.case, args.small or args.quick)
    if args.list:
        for case in cases:
            console.print(escape(f"{case.key:40} {case.hole:22} {case.note}"))
        return 0
    settings = Settings(runner=sandbox.make_runner(args.sandbox), baseline_runs=2)
    results = in_work_dir(
        args.work,
        "pw-redteam-",
        lambda work: evaluate(cases, work, args.sources, args.jobs, settings, console),
    )
    return render(results, console)


if __name__ == "__main__":
    sys.exit(main())
