"""The real-repository evaluation (bench/realworld) on what CI can reach: a public project from its
PyPI sdist, a bug injected, and honest and cheating patches written as programmatic edits. Every
honest patch must be accepted and every cheat rejected, each label for the right reason."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH))

from realworld.case import (  # noqa: E402
    CHEAT,
    FITS_TESTS,
    HONEST,
    SHAPES,
    Case,
    PatchCase,
    SdistSource,
)
from realworld.cases import all_cases  # noqa: E402
from realworld.edits import EditError, Replace, Sub  # noqa: E402
from realworld.evaluate import CaseResult, Outcome, main, render_reference  # noqa: E402

# Cases bench/README's yardsticks no longer run (their copies are large, their classes covered
# by the others): they carry no fits-tests patches yet.
WITHOUT_SHAPES = {"cli11", "cli11-progname", "nlohmann-json"}


def test_every_case_is_well_formed():
    cases = all_cases()
    assert {c.language for c in cases} == {"python", "cpp"}
    assert any(c.small for c in cases), "CI needs a case it can download"
    for case in cases:
        names = [p.name for p in case.patches]
        assert len(names) == len(set(names)), case.name
        if case.variant_of:
            # A variant keeps its base's source and bug for one trait of the task (leave to
            # write tests): its base holds the full set of kinds.
            assert case.variant_of in {c.name for c in cases}, case.name
            continue
        kinds = {p.kind for p in case.patches}
        assert {"honest", "honest-test", "no-op", "blind", "fix-blind"} <= kinds, case.name
        assert sum(p.kind == CHEAT for p in case.patches) >= 8, case.name
        if case.language == "cpp":
            assert "ub" in kinds, case.name
        # one patch of every shape that fits the tests and nothing else (the pinning gate's
        # evidence), on every case but those the yardsticks no longer run
        shapes = sorted(p.shape for p in case.patches if p.kind == FITS_TESTS)
        if case.name not in WITHOUT_SHAPES:
            assert shapes == sorted(SHAPES), case.name


def test_an_edit_that_does_not_fit_its_source_fails_loudly(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\nx = 1\n")
    with pytest.raises(EditError, match="expected"):
        Replace("a.py", "x = 1\n", "x = 2\n").apply(tmp_path)  # found twice, expected once
    with pytest.raises(EditError, match="matched 0"):
        Sub("a.py", r"^y = \d$", "y = 3").apply(tmp_path)
    with pytest.raises(EditError, match="no such file"):
        Replace("b.py", "x", "y").apply(tmp_path)


def test_a_patch_case_knows_its_right_labels():
    honest = PatchCase("h", HONEST, ())
    cheat = PatchCase("c", CHEAT, (), rows=("drift:tests-removed",))
    assert honest.honest and honest.labels == ("passed",)
    assert not cheat.honest and cheat.labels == ("UNPRINTABLE",)
    with pytest.raises(ValueError):
        PatchCase("x", "clever", ())
    case = Case("c", "python", SdistSource("p", "1"), (), (), "pytest", (honest, cheat))
    assert case.patch("c") is cheat
    fits = PatchCase("f", FITS_TESTS, (), shape="partial")
    assert fits.fits_tests and not fits.honest and "passed" in fits.labels
    with pytest.raises(ValueError, match="shape"):
        PatchCase("f", FITS_TESTS, ())
    with pytest.raises(ValueError, match="shape"):
        PatchCase("h", HONEST, (), shape="partial")


def test_the_reference_block_counts_the_wrong_patches_found_and_the_honest_flagged():
    from rich.console import Console

    honest = PatchCase("honest-1", HONEST, ())
    fits = PatchCase("fits", FITS_TESTS, (), shape="partial")
    other = PatchCase("fits-2", FITS_TESTS, (), shape="env-gated")
    case = Case("c", "python", SdistSource("p", "1"), (), (), "pytest", (honest, fits, other))

    def outcome(patch, row, detail=""):
        return Outcome(patch, "passed", "accept", [], "", [], 4.0, "", "", row, detail, 1.0)

    result = CaseResult(case)
    result.outcomes = [
        outcome(honest, "same-as-reference"),
        outcome(fits, "differs-from-reference", "f([1]) [x]: the reference returned 1"),
        outcome(other, "same-as-reference"),
    ]
    console = Console(record=True, width=200)
    render_reference([result], console)
    shown = console.export_text()
    assert "differs for 1 of 2 wrong-but-green patches; flagged 0 of 1 honest" in shown
    assert "fits: found: f([1]) [x]: the reference returned 1" in shown  # brackets kept
    assert "fits-2: not found (same-as-reference)" in shown
    assert "median 1.0 s, max 1.0 s per grade = 0.33 grades" in shown
    assert result.outcomes[1].found_out and not result.outcomes[2].found_out


def test_the_reference_block_names_the_wrong_patches_it_never_reached_and_cuts_witnesses():
    from realworld.evaluate import WITNESS
    from rich.console import Console

    honest = PatchCase("honest-1", HONEST, ())
    fits = PatchCase("fits", FITS_TESTS, (), shape="partial")
    early = PatchCase("fits-2", FITS_TESTS, (), shape="env-gated")
    case = Case("c", "python", SdistSource("p", "1"), (), (), "pytest", (honest, fits, early))
    long_detail = "f(x)\n" + "y" * (2 * WITNESS)
    result = CaseResult(case)
    result.outcomes = [
        Outcome(honest, "passed", "accept", [], "", [], 4.0, "", "", "same-as-reference"),
        Outcome(
            fits,
            "passed",
            "accept",
            [],
            "",
            [],
            4.0,
            "",
            "",
            "differs-from-reference",
            long_detail,
            1.0,
            12,
        ),
        # Rejected by another gate before the comparison: no reference row.
        Outcome(early, "failed", "reject", ["pinning:unpinned"], "pinning:unpinned", [], 3.0),
    ]
    console = Console(record=True, width=1000)
    render_reference([result], console)
    shown = console.export_text()
    assert "fits-2: not reached (pinning:unpinned)" in shown
    found = next(line for line in shown.splitlines() if line.startswith("  fits: found: "))
    assert found.endswith("...") and "\n" not in found
    assert len(found) == len("  fits: found: ") + WITNESS
    assert "calls compared per grade: median" in shown and "max 12" in shown


def test_a_variant_takes_its_base_fix_as_its_reference():
    from realworld.materialize import reference_edits

    cases = {c.name: c for c in all_cases()}
    variant = cases["iniconfig-tests"]
    assert reference_edits(variant) == reference_edits(cases["iniconfig"])
    assert reference_edits(variant)


@pytest.mark.slow
def test_the_pypi_case_is_graded_right(tmp_path, capsys):
    # The cases whose source is a PyPI sdist: the only source a clean machine can download (the
    # GitHub cases need a local copy, DEVELOPERS.md). `make bench` runs them all.
    cases = ["--case", "iniconfig", "--case", "iniconfig-tests"]
    code = main([*cases, "--work", str(tmp_path / "work"), "--jobs", "2"])
    shown = capsys.readouterr().out
    assert "skipped" not in shown, shown
    assert "patches without a verdict (grader crashes, marked ?): 0" in shown
    # Never vacuous: both counts are over patches that were graded.
    assert re.search(r"honest patches rejected: 0 of [1-9]", shown), shown
    assert re.search(r"cheats accepted: 0 of [1-9]", shown), shown
    assert "labels right for the wrong reason, or wrong: 0" in shown
    # The case's upstream fix is its reference: every patch was compared with it.
    assert re.search(r"reference fix, iniconfig: differs for [1-9]", shown), shown
    assert "flagged 0 of" in shown.split("reference fix, all cases:", 1)[1], shown
    assert code == 0, shown
