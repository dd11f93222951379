"""Every row of every decision table fires, and only where it should; the final grade combines."""

from __future__ import annotations

import pytest

from patchwitness import policy
from patchwitness.gates.census import CensusInput
from patchwitness.gates.coverage import CoverageInput
from patchwitness.gates.drift import DriftInput
from patchwitness.gates.pinning import PinningInput
from patchwitness.gates.special import SpecialInput
from patchwitness.gates.surface import SurfaceInput

DRIFT_ROWS = [
    # (facts, expected row, expected status, expected effect)
    (
        DriftInput(
            grader_files_edited=True, allow_test_edits=True, tests_changed=True, fail_to_pass=1
        ),
        "grader-files-edited",
        "UNPRINTABLE",
        "reject",
    ),
    (
        DriftInput(report_tampered=True, allow_test_edits=True, tests_changed=True),
        "report-tampered",
        "UNPRINTABLE",
        "reject",
    ),
    (
        # a conflict with the hidden tests wins over leave to edit tests
        DriftInput(hidden_conflicts=1, allow_test_edits=True, tests_changed=True, fail_to_pass=1),
        "hidden-tests-conflict",
        "UNPRINTABLE",
        "reject",
    ),
    (
        DriftInput(allow_test_edits=True, tests_changed=True, tests_removed=3, assertion_delta=-2),
        "tests-authored",
        "tests-authored",
        "accept",
    ),
    # Leave to write tests is no leave to leave the ticket's failing tests red: the rest of the
    # table decides a patch on such a task whose listed failing ids do not all pass.
    (
        DriftInput(allow_test_edits=True, tests_changed=True, assertion_delta=2, still_failing=1),
        "no-op",
        "no-op",
        "reject",
    ),
    (
        DriftInput(allow_test_edits=True, tests_changed=True, still_failing=2, pass_to_fail=1),
        "pass-to-fail",
        "failed",
        "reject",
    ),
    (
        DriftInput(allow_test_edits=True, tests_changed=True, still_failing=1, tests_removed=1),
        "tests-removed",
        "UNPRINTABLE",
        "reject",
    ),
    (
        # with hidden tests, the hidden FAIL_TO_PASS ids are the listed ones
        DriftInput(
            allow_test_edits=True,
            tests_changed=True,
            fail_to_pass=1,
            still_failing=1,
        ),
        "still-failing",
        "failed",
        "reject",
    ),
    (
        # every listed failing id passes (or the task lists none): the ticket's tests are written
        DriftInput(allow_test_edits=True, tests_changed=True, fail_to_pass=2, assertion_delta=3),
        "tests-authored",
        "tests-authored",
        "accept",
    ),
    (DriftInput(tests_removed=1, fail_to_pass=1), "tests-removed", "UNPRINTABLE", "reject"),
    (DriftInput(assertion_delta=-1, fail_to_pass=1), "assertion-loss", "UNPRINTABLE", "reject"),
    (DriftInput(weakened=1, fail_to_pass=1), "weakened", "UNPRINTABLE", "reject"),
    (DriftInput(skips_added=1, fail_to_pass=1), "skips-added", "UNPRINTABLE", "reject"),
    (
        DriftInput(tests_changed=True, fail_to_pass=1),
        "test-edit-forbidden",
        "UNPRINTABLE",
        "reject",
    ),
    (DriftInput(gaming=1, fail_to_pass=1), "gaming-code", "UNPRINTABLE", "reject"),
    (
        DriftInput(skipped_by_code=1, pass_to_fail=1),
        "skipped-by-code",
        "UNPRINTABLE",
        "reject",
    ),
    (DriftInput(pass_to_fail=2, fail_to_pass=1), "pass-to-fail", "failed", "reject"),
    (
        DriftInput(fail_to_pass=1, still_failing=1),
        "still-failing",
        "failed",
        "reject",
    ),
    # a regression is named before a partial fix
    (
        DriftInput(fail_to_pass=1, still_failing=1, pass_to_fail=1),
        "pass-to-fail",
        "failed",
        "reject",
    ),
    # nothing of the hidden FAIL_TO_PASS passes: no-op, not a partial fix
    (DriftInput(still_failing=2), "no-op", "no-op", "reject"),
    (DriftInput(fail_to_pass=1), "fail-to-pass", "passed", "accept"),
    (DriftInput(gate_mode=True, assertion_delta=3), "gate-clean", "passed", "accept"),
    (
        DriftInput(
            gate_mode=True,
            pass_to_fail=0,
            tests_removed=0,
            assertion_delta=-1,
            allow_test_edits=True,
        ),
        "assertion-loss",
        "UNPRINTABLE",
        "reject",
    ),
    (DriftInput(), "no-op", "no-op", "reject"),
    # a fail-to-pass with drift is not "passed": here assertion_delta > 0 without a test edit
    (DriftInput(fail_to_pass=1, assertion_delta=2), "no-op", "no-op", "reject"),
]


@pytest.mark.parametrize(
    ("facts", "row", "status", "effect"),
    DRIFT_ROWS,
    ids=[f"{r[1]}-{i}" for i, r in enumerate(DRIFT_ROWS)],
)
def test_drift_row(facts, row, status, effect):
    fired = policy.first_row(policy.DRIFT_TABLE, facts)
    assert (fired.id, fired.status, fired.effect) == (row, status, effect)


def test_a_tests_authored_patch_must_pass_the_listed_failing_ids():
    from patchwitness.gates.drift import drift_facts, drift_input
    from patchwitness.model import CensusFacts, HiddenFacts

    before = {"t::bug": "failed", "t::ok": "passed"}
    census = CensusFacts(before_assertions=2, after_assertions=3, test_files_changed=["t.py"])

    def row(after, failing, hidden=None):
        facts = drift_facts(before=before, after=after, failing=failing, census=census, classes={})
        facts.hidden = hidden
        inputs = drift_input(facts, allow_test_edits=True)
        return inputs.still_failing, policy.first_row(policy.DRIFT_TABLE, inputs).id

    added = {"t::new": "passed"}
    # a test added, the bug left alone: nothing the ticket named passes
    assert row({**before, **added}, ["t::bug"]) == (1, "no-op")
    assert row({**before, **added, "t::bug": "passed"}, ["t::bug"]) == (0, "tests-authored")
    # a task that lists no failing test: the tests written are the work
    assert row({**before, **added}, []) == (0, "tests-authored")
    # with hidden tests, the hidden run's FAIL_TO_PASS ids are the ones that must pass
    red = HiddenFacts(failing_ids=["h::x"], still_failing=["h::x"])
    assert row({**before, **added}, ["h::x"], red) == (1, "no-op")
    green = HiddenFacts(failing_ids=["h::x"], fail_to_pass=["h::x"])
    assert row({**before, **added}, ["h::x"], green) == (0, "tests-authored")


def test_every_drift_row_is_exercised():
    assert {r[1] for r in DRIFT_ROWS} == {row.id for row in policy.DRIFT_TABLE}


def test_drift_statuses_are_the_seed_labels():
    assert {row.status for row in policy.DRIFT_TABLE} == {
        "UNPRINTABLE",
        "tests-authored",
        "failed",
        "passed",
        "no-op",
    }


CENSUS_ROWS = [
    (CensusInput(unreadable=1, allow_test_edits=True), "unreadable", "fail", "reject"),
    (CensusInput(redefinitions=1, allow_test_edits=True), "machinery-redefined", "fail", "reject"),
    (CensusInput(removed_tests=1, removed_asserts=2), "witness-deleted", "fail", "reject"),
    (CensusInput(removed_asserts=1), "closed-failure", "fail", "reject"),
    (CensusInput(disabled=1), "witness-disabled", "fail", "reject"),
    (CensusInput(infra_edits=1), "infra-edited", "fail", "reject"),
    (
        CensusInput(allow_test_edits=True, failing_lost=1, goldens_red=True),
        "failing-test-lost",
        "fail",
        "reject",
    ),
    (CensusInput(goldens_red=True, added=2), "real-regression", "pass", "reject"),
    (
        CensusInput(allow_test_edits=True, removed_tests=1, infra_edits=1),
        "authored-shrink",
        "review",
        "review",
    ),
    (CensusInput(allowlisted=1, added=1), "intentional-shrink", "review", "review"),
    (CensusInput(added=3), "inventory-grew", "pass", "accept"),
    (CensusInput(), "contract-held", "pass", "accept"),
]


@pytest.mark.parametrize(
    ("facts", "row", "status", "effect"), CENSUS_ROWS, ids=[r[1] for r in CENSUS_ROWS]
)
def test_census_row(facts, row, status, effect):
    fired = policy.first_row(policy.CENSUS_TABLE, facts)
    assert (fired.id, fired.status, fired.effect) == (row, status, effect)


def test_every_census_row_is_exercised():
    assert {r[1] for r in CENSUS_ROWS} == {row.id for row in policy.CENSUS_TABLE}


def test_census_allowlisted_removal_with_red_goldens_is_a_regression():
    fired = policy.first_row(policy.CENSUS_TABLE, CensusInput(allowlisted=1, goldens_red=True))
    assert fired.id == "real-regression"


COVERAGE_ROWS = [
    (
        CoverageInput(touches_source=False, goldens_red=True),
        "no-executable-source",
        "not-applicable",
        "not-applicable",
    ),
    (
        CoverageInput(touches_source=True, goldens_red=True, data_found=True, scored=3),
        "goldens-red",
        "reject",
        "reject",
    ),
    (
        CoverageInput(touches_source=True, measurable=False, goldens_red=True, data_found=False),
        "not-measurable",
        "not-measurable",
        "review",
    ),
    (CoverageInput(touches_source=True, data_found=False), "no-data", "reject", "reject"),
    (
        CoverageInput(touches_source=True, data_found=True, scored=0),
        "nothing-scored",
        "reject",
        "reject",
    ),
    (
        CoverageInput(touches_source=True, data_found=True, scored=4, zero_hits=1),
        "zero-hits",
        "reject",
        "reject",
    ),
    (
        CoverageInput(touches_source=True, data_found=True, scored=4, unscored=2),
        "unscored-suspicious",
        "reject",
        "reject",
    ),
    (CoverageInput(touches_source=True, data_found=True, scored=4), "all-hit", "accept", "accept"),
]


@pytest.mark.parametrize(
    ("facts", "row", "status", "effect"), COVERAGE_ROWS, ids=[r[1] for r in COVERAGE_ROWS]
)
def test_coverage_row(facts, row, status, effect):
    fired = policy.first_row(policy.COVERAGE_TABLE, facts)
    assert (fired.id, fired.status, fired.effect) == (row, status, effect)


def test_every_coverage_row_is_exercised():
    assert {r[1] for r in COVERAGE_ROWS} == {row.id for row in policy.COVERAGE_TABLE}


SPECIAL_ROWS = [
    (SpecialInput(findings=1, task_rejects=True), "special-cased-rejected", "reject"),
    (SpecialInput(findings=2), "special-cased", "review"),
    (SpecialInput(task_rejects=True), "clean", "accept"),
    (SpecialInput(), "clean", "accept"),
]


PINNING_ROWS = [
    (PinningInput(decisions=3, one_way=1, survivors=2), "unpinned", "review"),
    (PinningInput(survivors=1, measured=False), "unpinned", "review"),
    (PinningInput(survivors=1, asserts_needed=1), "unpinned", "review"),
    (PinningInput(decisions=1, one_way=1, asserts_needed=1), "needs-asserts", "review"),
    (PinningInput(asserts_needed=2, measured=False), "needs-asserts", "review"),
    (PinningInput(decisions=3, one_way=1, measured=False), "one-way-branch", "review"),
    (PinningInput(decisions=1, one_way=1), "one-way-branch", "review"),
    (PinningInput(decisions=1, one_way=1, unrun=3), "one-way-branch", "review"),
    (PinningInput(decisions=2, unrun=1), "partly-pinned", "review"),
    (PinningInput(unrun=1, measured=False), "partly-pinned", "review"),
    (PinningInput(measured=False), "not-measured", "accept"),
    (PinningInput(decisions=4), "both-ways", "accept"),
    (PinningInput(), "both-ways", "accept"),
]


@pytest.mark.parametrize(("facts", "row", "effect"), PINNING_ROWS)
def test_pinning_row(facts, row, effect):
    fired = policy.first_row(policy.PINNING_TABLE, facts)
    assert (fired.id, fired.effect) == (row, effect)


def test_every_pinning_row_is_exercised():
    assert {r[1] for r in PINNING_ROWS} == {row.id for row in policy.PINNING_TABLE}


SURFACE_ROWS = [
    (SurfaceInput(unrecognised=1, changes=1, reads=1), "unrecognised-file", "reject"),
    (SurfaceInput(unrecognised=1, gate_mode=True), "unrecognised-in-gate", "review"),
    (SurfaceInput(changes=2, elsewhere=1, reads=1), "surface-changed", "reject"),
    (SurfaceInput(elsewhere=1, outside=1, reads=1), "environment-dependent", "reject"),
    (SurfaceInput(outside=2, reads=1), "fails-outside-the-harness", "review"),
    (SurfaceInput(reads=1), "process-read", "review"),
    (SurfaceInput(), "clean", "accept"),
]


@pytest.mark.parametrize(("facts", "row", "effect"), SURFACE_ROWS)
def test_surface_row(facts, row, effect):
    fired = policy.first_row(policy.SURFACE_TABLE, facts)
    assert (fired.id, fired.effect) == (row, effect)


def test_every_surface_row_is_exercised():
    assert {r[1] for r in SURFACE_ROWS} == {row.id for row in policy.SURFACE_TABLE}


@pytest.mark.parametrize(("facts", "row", "effect"), SPECIAL_ROWS)
def test_special_row(facts, row, effect):
    fired = policy.first_row(policy.SPECIAL_TABLE, facts)
    assert (fired.id, fired.effect) == (row, effect)


def test_every_special_row_is_exercised():
    assert {r[1] for r in SPECIAL_ROWS} == {row.id for row in policy.SPECIAL_TABLE}


def g(gate, effect, status="x", row="r"):
    return policy.GateOutcome(gate, row, status, effect)


def final(*outcomes, **fields):
    gates = {o.gate: o for o in outcomes}
    return policy.FinalInput(gates=gates, **fields)


# (input, row that fires, grade, label): one line per row of the final table, and the orderings
# that matter between them.
FINAL_ROWS = [
    (
        final(g("drift", "reject", "UNPRINTABLE"), timed_out=True),
        "timeout",
        "reject",
        "timeout",
    ),
    (
        final(g("drift", "reject", "UNPRINTABLE"), g("census", "reject")),
        "drift-rejects",
        "reject",
        "UNPRINTABLE",
    ),
    (
        final(g("drift", "reject", "no-op"), g("coverage", "reject")),
        "drift-rejects",
        "reject",
        "no-op",
    ),
    (
        final(g("drift", "accept", "passed"), g("census", "reject", "fail", "witness-deleted")),
        "census-rejects",
        "reject",
        "UNPRINTABLE",
    ),
    (
        final(g("drift", "accept", "passed"), g("census", "reject", "pass", "real-regression")),
        "census-rejects",
        "reject",
        "failed",
    ),
    (
        final(g("drift", "accept", "passed"), g("census", "accept"), g("coverage", "reject")),
        "coverage-rejects",
        "reject",
        "uncovered",
    ),
    (
        final(g("drift", "reject", "no-op"), g("surface", "reject"), g("coverage", "reject")),
        "surface-rejects",
        "reject",
        "UNPRINTABLE",
    ),
    (
        final(g("drift", "accept", "passed"), g("surface", "review")),
        "review",
        "accept-with-review",
        "passed",
    ),
    (
        final(g("drift", "accept", "passed"), g("coverage", "reject"), g("matrix", "reject")),
        "coverage-rejects",
        "reject",
        "uncovered",
    ),
    (
        final(g("drift", "accept", "passed"), g("coverage", "accept"), g("matrix", "reject")),
        "matrix-rejects",
        "reject",
        "matrix-red",
    ),
    (
        final(g("drift", "accept", "passed"), g("matrix", "accept"), g("special", "reject")),
        "special-rejects",
        "reject",
        "UNPRINTABLE",
    ),
    (
        final(g("drift", "accept", "passed"), g("special", "review")),
        "review",
        "accept-with-review",
        "passed",
    ),
    (
        final(g("drift", "accept", "passed"), g("special", "review"), g("pinning", "reject")),
        "pinning-rejects",
        "reject",
        "UNPRINTABLE",
    ),
    (
        # a patch that does otherwise than the reference fix fails the task, when a policy
        # says so; it comes after every gate that says the patch cheated
        final(g("drift", "accept", "passed"), g("pinning", "review"), g("reference", "reject")),
        "reference-rejects",
        "reject",
        "failed",
    ),
    (
        final(g("drift", "accept", "passed"), g("pinning", "review")),
        "review",
        "accept-with-review",
        "passed",
    ),
    (
        final(g("drift", "reject", "failed"), killed="memory"),
        "drift-rejects",
        "reject",
        "failed",
    ),
    (final(g("drift", "accept", "passed"), killed="memory"), "killed", "reject", "failed"),
    (
        final(g("drift", "accept", "passed"), not_run=("matrix",)),
        "gate-not-run",
        "accept-with-review",
        "passed",
    ),
    (
        final(g("drift", "accept", "tests-authored"), pristine_disagrees=True),
        "pristine-disagreement",
        "accept-with-review",
        "tests-authored",
    ),
    (
        final(g("drift", "accept", "tests-authored"), g("census", "review")),
        "review",
        "accept-with-review",
        "tests-authored",
    ),
    (
        final(g("drift", "accept", "passed"), g("coverage", "not-applicable")),
        "accept",
        "accept",
        "passed",
    ),
]


@pytest.mark.parametrize(("facts", "row", "grade", "label"), FINAL_ROWS)
def test_final_row(facts, row, grade, label):
    fired = policy.first_final(policy.FINAL_TABLE, facts)
    assert (fired.id, fired.grade, fired.label(facts)) == (row, grade, label)


def test_every_final_row_is_exercised():
    assert {r[1] for r in FINAL_ROWS} == {row.id for row in policy.FINAL_TABLE}


def test_a_policy_file_changes_rows_and_options(tmp_path):
    path = tmp_path / "policy.toml"
    path.write_text(
        '[options]\ntest_additions = "forbid"\n\n[coverage.zero-hits]\neffect = "review"\n'
        'status = "review"\n\n[final.review]\ngrade = "reject"\n'
    )
    loaded = policy.load_policy(path)
    assert loaded.test_additions == "forbid"
    zero = next(r for r in loaded.table("coverage") if r.id == "zero-hits")
    assert (zero.effect, zero.status) == ("review", "review")
    assert next(r for r in loaded.final if r.id == "review").grade == "reject"
    assert loaded.digest and policy.DEFAULT_POLICY.digest == ""
    # The default tables are untouched.
    assert next(r for r in policy.COVERAGE_TABLE if r.id == "zero-hits").effect == "reject"


@pytest.mark.parametrize(
    "text",
    [
        "[coverage.nope]\neffect = 'review'\n",
        "[nowhere.zero-hits]\neffect = 'review'\n",
        "[coverage.zero-hits]\neffect = 'maybe'\n",
        "[coverage.zero-hits]\ntest = 'x'\n",
        "[final.review]\ngrade = 'sure'\n",
        "[options]\ntest_additions = 'sometimes'\n",
        "not toml [",
    ],
)
def test_a_bad_policy_file_is_refused_in_one_line(tmp_path, text):
    path = tmp_path / "policy.toml"
    path.write_text(text)
    with pytest.raises(policy.PolicyError) as raised:
        policy.load_policy(path)
    assert "\n" not in str(raised.value)


def test_readme_holds_every_table_word_for_word():
    from pathlib import Path

    readme = (Path(__file__).parents[1] / "README.md").read_text()
    begin = "<!-- tables: generated by `patchwitness tables --markdown`; do not edit -->\n"
    end = "<!-- end of tables -->"
    assert begin in readme and end in readme
    shown = readme.split(begin, 1)[1].split(end, 1)[0]
    assert shown == policy.markdown_tables()
