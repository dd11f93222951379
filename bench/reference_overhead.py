"""What comparing a patch with the task's reference fix costs a grade (issue 24's budget).

Two grades of the same honest patch, paired in one run and repeated: without the comparison
(`Settings(reference=False)`) and with it, the task holding the honest patch as its
`reference.diff`. Printed as the extra seconds per grade and as a ratio against the grade
without it, with the calls captured and compared (the input size):

    reference = (time(with) - time(without)) / time(without)      budget: at most 1 grade

The first grade with the reference makes the reference's own run (its grade, and the calls
it captures), once per task: it is printed apart from the following ones, which read it from
the cache as every later patch of a bag does. On the demo task `checkout-coupon-tax` (its
honest patch) and on a generated suite (40 files x 50 tests; --quick: 8 x 25).

    .venv/bin/python bench/reference_overhead.py [--quick] [--reps N]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import heading, line, median, private_cache, secs
from grade_overhead import Case, make_demo_case, make_suite_case

from patchwitness.api import grade
from patchwitness.settings import Settings


def measure(case: Case, settings: Settings, reps: int) -> tuple[object, dict[str, list]]:
    """The first grade with the reference (it runs the reference's tests), then each mode's
    verdicts, interleaved rep by rep so that the machine's load falls on both."""
    shutil.copy(case.patch, case.task_dir / "reference.diff")
    without = settings.but(reference=False)
    grade(case.task_dir, case.patch, settings=without)  # the baseline, cached for all
    first = grade(case.task_dir, case.patch, settings=settings)
    out: dict[str, list] = {"without": [], "with": []}
    for _ in range(reps):
        out["without"].append(grade(case.task_dir, case.patch, settings=without))
        out["with"].append(grade(case.task_dir, case.patch, settings=settings))
    return first, out


def report(case: Case, first, verdicts: dict[str, list]) -> None:
    took = {mode: median([v.wall_clock_s for v in vs]) for mode, vs in verdicts.items()}
    last = verdicts["with"][-1]
    gate = last.gates.reference
    heading(f"{case.name}: {last.grade} / {last.label}, reference {gate.row if gate else '-'}")
    if gate is not None:
        f = gate.facts
        line(
            f"input: {len(f.targets)} function(s) changed, {f.captured} call(s) captured, "
            f"{f.compared} compared ({f.nondeterministic} left out as nondeterministic)"
        )
    base = took["without"]
    line(f"grade without the comparison: {secs(base)}")
    extra = took["with"] - base
    line(
        f"with it: {secs(took['with'])}: +{secs(max(extra, 0.0))} = {extra / base:.2f} grades "
        "(budget <= 1 grade)"
    )
    once = first.timings.phases.get("reference", 0.0)
    later = median([v.timings.phases.get("reference", 0.0) for v in verdicts["with"]])
    line(f"the reference phase: {secs(once)} on the task's first grade, {secs(later)} after it")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a smaller generated suite")
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args(argv)
    files, tests = (8, 25) if args.quick else (40, 50)
    with tempfile.TemporaryDirectory(prefix="pw-reference-") as tmp, private_cache(Path(tmp) / "c"):
        root = Path(tmp)
        settings = Settings()
        suite = make_suite_case(root / "suite", files, tests)
        suite.name += f", {files * tests} tests"
        for case in (make_demo_case(root / "demo"), suite):
            first, verdicts = measure(case, settings, args.reps)
            report(case, first, verdicts)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
