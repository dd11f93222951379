"""What asking whether the tests pin the patch costs a grade (issue 23's budget).

Three grades of the same honest patch, paired in one run and repeated: without the pinning
gate (`Settings(decisions=False, mutants=False)`), with the one-way decisions only (read from
the coverage run itself), and with the mutants too. Printed as ratios against the grade without
it, with the mutants made and run, and beside them the run elsewhere (the failing tests first,
in other surroundings) against the patched run of the same grade:

    one-way check   = time(grade, decisions) / time(grade, neither)      budget: under 1.10x
    mutants         = (time(all) - time(decisions)) / time(grade, neither)  budget: 1 grade
    run elsewhere   = time(elsewhere phase) / time(the patched run)       budget: 1 extra run

On the demo task `checkout-coupon-tax` (its honest patch), on a generated suite (40 files x
50 tests; --quick: 8 x 25) whose one-line fix has one mutant, and on the demo's C++ `stats-fix`
(ringlib: CMake and GoogleTest) with an honest fix that holds a comparison, so that its mutants
(one schema, one rebuild) run: the C++ budget is 2 grades. The baseline is cached and shared by
all three, as for every patch of a bag after its first.

    .venv/bin/python bench/pinning_overhead.py [--quick] [--reps N]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import heading, line, median, private_cache, secs
from grade_overhead import Case, make_demo_case, make_suite_case

from patchwitness.api import grade
from patchwitness.settings import Settings

MODES = {
    "neither": {"decisions": False, "mutants": False},
    "decisions": {"decisions": True, "mutants": False},
    "all": {"decisions": True, "mutants": True},
}


def measure(case: Case, settings: Settings, reps: int) -> dict[str, list]:
    """Each mode's verdicts, interleaved rep by rep so that the machine's load falls on all."""
    out: dict[str, list] = {mode: [] for mode in MODES}
    grade(case.task_dir, case.patch, settings=settings)  # the baseline, cached for all
    for _ in range(reps):
        for mode, changes in MODES.items():
            verdict = grade(case.task_dir, case.patch, settings=settings.but(**changes))
            out[mode].append(verdict)
    return out


def report(case: Case, verdicts: dict[str, list]) -> None:
    took = {mode: median([v.wall_clock_s for v in vs]) for mode, vs in verdicts.items()}
    last = verdicts["all"][-1]
    pinning = last.gates.pinning
    made = pinning.facts.mutants_made if pinning else 0
    ran = pinning.facts.mutants_run if pinning else 0
    heading(f"{case.name}: {last.grade} / {last.label}, pinning {pinning.row if pinning else '-'}")
    base = took["neither"]
    line(f"grade without the pinning gate: {secs(base)}")
    ratio = took["decisions"] / base
    line(f"one-way check (decisions): {secs(took['decisions'])} = {ratio:.2f}x (budget < 1.10x)")
    extra = took["all"] - took["decisions"]
    line(
        f"mutants ({ran} run of {made}): +{secs(max(extra, 0.0))} = {extra / base:.2f} grades "
        f"(budget <= {2 if 'C++' in case.name else 1} grade(s), "
        f"{'C++' if 'C++' in case.name else 'Python'})"
    )
    phases = [v.timings.phases for v in verdicts["all"]]
    elsewhere = median([p.get("elsewhere", 0.0) for p in phases])
    tests = median([p.get("tests", 0.0) for p in phases])
    if tests:
        ratio = elsewhere / tests
        line(
            f"run elsewhere / patched run: {secs(elsewhere)} / {secs(tests)} = {ratio:.2f}x "
            "(budget <= 1 run)"
        )


# The demo's median fix, written with a comparison (the count's parity): mutants to run.
CPP_BUG = "  const std::size_t lower = values.size() / 2;\n"
CPP_FIX = (
    "  const std::size_t lower =\n"
    "      values.size() % 2 == 0 ? values.size() / 2 - 1 : values.size() / 2;\n"
)


def make_cpp_case(root: Path) -> Case | None:
    """The demo's C++ stats-fix task and an honest fix with mutants; None without a C++
    toolchain (said on stderr)."""
    from patchwitness.demo.cpp_run import available, build_cpp

    ok, why = available()
    if not ok:
        print(f"C++ case skipped: {why}", file=sys.stderr)
        return None
    from patchwitness.demo import build, ringlib

    bag = build_cpp(root)
    job = next(j for j in bag.jobs if j.agent == "honest" and j.task_dir.name == "stats-fix")
    files = dict(ringlib.FILES)
    assert CPP_BUG in files["src/stats.cpp"], "the demo's stats.cpp moved: update CPP_BUG"
    patch = root / "patches" / "with-mutants.diff"
    patch.write_text(
        build.make_diff(files, build.apply_edits(files, [("src/stats.cpp", CPP_BUG, CPP_FIX)]))
    )
    return Case("demo stats-fix (C++) / a fix with a comparison", job.task_dir, patch)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a smaller generated suite")
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args(argv)
    files, tests = (8, 25) if args.quick else (40, 50)
    with tempfile.TemporaryDirectory(prefix="pw-pinning-") as tmp, private_cache(Path(tmp) / "c"):
        root = Path(tmp)
        settings = Settings()
        suite = make_suite_case(root / "suite", files, tests)
        suite.name += f", {files * tests} tests"
        cases = [make_demo_case(root / "demo"), suite]
        cpp = make_cpp_case(root / "cpp")
        if cpp is not None:
            cases.append(cpp)
        for case in cases:
            report(case, measure(case, settings, args.reps))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
