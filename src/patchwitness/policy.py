"""The decision tables, as data, and the final grade. Pure.

Each table is an ordered list of rows; the first row whose condition holds fires, and its id is
recorded in the verdict's reasons. A gate may only answer with a status its table lists. The README
prints these tables from this module (`patchwitness tables`), so the documentation cannot drift from
the code.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from patchwitness.model import Effect, Grade, Label, Reason


@dataclass(frozen=True)
class Row:
    id: str
    when: str  # the condition in words, as the README shows it
    status: str
    effect: Effect
    test: Callable[[Any], bool]


def first_row(table: list[Row], facts: Any) -> Row:
    for row in table:
        if row.test(facts):
            return row
    raise AssertionError("decision table without a catch-all row")  # pragma: no cover


# --- drift: seed 002's print gate ------------------------------------------------------------
# Facts: a DriftInput (gates/drift.py). Two rows precede the seed's table because no task permits
# them: editing the grader's own files, and a report that names tests never collected.

# fmt: off
DRIFT_TABLE: list[Row] = [
    Row("grader-files-edited", "the patch edits the task, allowlist or manifest files",
        "UNPRINTABLE", "reject", lambda f: f.grader_files_edited),
    Row("report-tampered", "the run's report names uncollected tests, reports a phase twice, "
        "or a new plugin/conftest took over a report hook",
        "UNPRINTABLE", "reject", lambda f: f.report_tampered),
    Row("tests-authored", "allow_test_edits is true and tests changed",
        "tests-authored", "accept", lambda f: f.allow_test_edits and f.tests_changed),
    Row("tests-removed", "tests_removed > 0",
        "UNPRINTABLE", "reject", lambda f: f.tests_removed > 0),
    Row("assertion-loss", "assertion_delta < 0",
        "UNPRINTABLE", "reject", lambda f: f.assertion_delta < 0),
    Row("weakened", "a test lost an assertion and gained another (weakened)",
        "UNPRINTABLE", "reject", lambda f: f.weakened > 0),
    Row("skips-added", "a skip, xfail or disable marker was added",
        "UNPRINTABLE", "reject", lambda f: f.skips_added > 0),
    Row("test-edit-forbidden", "a test or test-infrastructure file was edited and "
        "allow_test_edits is false",
        "UNPRINTABLE", "reject", lambda f: not f.allow_test_edits and f.tests_changed),
    Row("gaming-code", "added production code games the run (exit at import, constant __eq__, "
        "reads the test runner's state, reaches into pytest, touches the coverage measurement)",
        "UNPRINTABLE", "reject", lambda f: f.gaming > 0),
    Row("skipped-by-code", "a test that ran at the SHA reports skipped after the patch and no "
        "test edit added a skip: production code decides which tests run",
        "UNPRINTABLE", "reject", lambda f: f.skipped_by_code > 0),
    Row("pass-to-fail", "pass_to_fail > 0",
        "failed", "reject", lambda f: f.pass_to_fail > 0),
    Row("fail-to-pass", "fail_to_pass > 0 and the two drift fields are 0",
        "passed", "accept",
        lambda f: f.fail_to_pass > 0 and f.tests_removed == 0 and f.assertion_delta == 0),
    Row("gate-clean", "the task gates a pull request (mode = gate, nothing to fix): no test "
        "broke, vanished or lost an assertion",
        "passed", "accept", lambda f: f.gate_mode and f.pass_to_fail == 0
        and f.tests_removed == 0 and f.assertion_delta >= 0),
    Row("no-op", "no node id changed state",
        "no-op", "reject", lambda f: True),
]
# fmt: on


# --- census: seed 000's table, with the holes closed -----------------------------------------
# Facts: a CensusInput (gates/census.py). Rows 3-6 apply only when test edits are not allowed;
# on a task that allows them the same changes ask for review (row 8).

# fmt: off
CENSUS_TABLE: list[Row] = [
    Row("unreadable", "a test file the census must read does not parse after the patch",
        "fail", "reject", lambda f: f.unreadable > 0),
    Row("machinery-redefined", "the patch defines or undefines an assertion or test macro, "
        "overrides an assert method, or adds a report-changing pytest hook",
        "fail", "reject", lambda f: f.redefinitions > 0),
    Row("witness-deleted", "a test (or case) key was removed and is not in the allowlist",
        "fail", "reject", lambda f: f.removed_tests > 0 and not f.allow_test_edits),
    Row("closed-failure", "an assertion key was removed or rewritten into something the "
        "scanner does not know, and is not in the allowlist",
        "fail", "reject", lambda f: f.removed_asserts > 0 and not f.allow_test_edits),
    Row("witness-disabled", "a skip, disable or hidden tag was added",
        "fail", "reject", lambda f: f.disabled > 0 and not f.allow_test_edits),
    Row("infra-edited", "test registration or other test infrastructure edited without leave",
        "fail", "reject", lambda f: f.infra_edits > 0 and not f.allow_test_edits),
    Row("failing-test-lost", "a test the task names as failing was removed, deregistered or "
        "skipped instead of fixed",
        "fail", "reject", lambda f: f.failing_lost > 0),
    Row("real-regression", "keys held but a golden fails",
        "pass", "reject", lambda f: f.goldens_red),
    Row("authored-shrink", "test edits allowed and keys were removed, rewritten or disabled",
        "review", "review",
        lambda f: f.allow_test_edits and (f.removed_tests + f.removed_asserts + f.disabled) > 0),
    Row("intentional-shrink", "only allowlisted keys were removed and the goldens pass",
        "review", "review", lambda f: f.allowlisted > 0),
    Row("inventory-grew", "new keys, every old key remains, goldens pass",
        "pass", "accept", lambda f: f.added > 0),
    Row("contract-held", "same keys, goldens pass",
        "pass", "accept", lambda f: True),
]
# fmt: on


# --- coverage: seed 001 -----------------------------------------------------------------------
# Facts: a CoverageInput (gates/coverage.py).

# fmt: off
COVERAGE_TABLE: list[Row] = [
    Row("no-executable-source", "the patch touches no executable production source "
        "(comments, build files, data)",
        "not-applicable", "not-applicable", lambda f: not f.touches_source),
    Row("not-measurable", "no instrumented build or run behaves at the SHA as the plain one "
        "does (the grader's flags break it): the run was plain and coverage is not measured",
        "not-measurable", "review", lambda f: not f.measurable),
    Row("goldens-red", "the goldens are red",
        "reject", "reject", lambda f: f.goldens_red),
    Row("no-data", "the coverage run wrote no data to read",
        "reject", "reject", lambda f: not f.data_found),
    Row("nothing-scored", "no executable patched line was scored",
        "reject", "reject", lambda f: f.scored == 0),
    Row("zero-hits", "some scored patched line has zero hits",
        "reject", "reject", lambda f: f.zero_hits > 0),
    Row("unscored-suspicious", "a patched code line sits in a file, or a function, that produced "
        "no line data at all (never compiled into a test, never imported, an uninstantiated "
        "template)",
        "reject", "reject", lambda f: f.unscored > 0),
    Row("all-hit", "every scored patched line was hit",
        "accept", "accept", lambda f: True),
]
# fmt: on


# --- matrix: seed 004's flag matrix ------------------------------------------------------------
# Facts: a MatrixInput (gates/matrix.py). Counts are over required cells judged on transitions:
# a cell red at the SHA too is the noise floor, not the patch's doing. The four seed patterns come
# before the catch-all regression row so that the reason names the pattern.

# fmt: off
MATRIX_TABLE: list[Row] = [
    Row("no-cells", "the matrix produced no cell at all (no golden, nothing built)",
        "red", "reject", lambda f: f.cells == 0),
    Row("cell-missing", "a required cell is missing: not built, not run, not reported, or the "
        "toolchain lacks its envelope (fail closed)",
        "red", "reject", lambda f: f.missing > 0),
    Row("debug-green-release-red", "a golden passes a debug envelope and newly fails at run time "
        "under an optimised or NDEBUG one: UB or an NDEBUG-dependent assert",
        "red", "reject", lambda f: f.debug_release > 0),
    Row("sanitizer-only", "a golden passes every required non-sanitizer envelope and newly fails "
        "a sanitizer one: a bug the optimizer has not exploited yet",
        "red", "reject", lambda f: f.sanitizer_only > 0),
    Row("werror-only", "a cell newly fails only because warnings are errors: a spec violation "
        "where the manifest pins -Werror",
        "red", "reject", lambda f: f.werror_only > 0),
    Row("digest-changed", "a cell exits 0 without a sanitizer report but its stdout is not the "
        "pinned fixture's (or the SHA's) bytes",
        "red", "reject", lambda f: f.digest_changed > 0),
    Row("regressed", "a required cell green at the SHA is red after the patch (compile, run, "
        "timeout)",
        "red", "reject", lambda f: f.regressed > 0),
    Row("resources", "a cell's peak RSS or CPU time exceeds the SHA's by the manifest's "
        "tolerance (default: more than 2x and 64 MB; 2x and 1 s)",
        "red", "reject", lambda f: f.resources > 0),
    Row("optional-red", "only cells of optional envelopes (required: false) newly went red",
        "review", "review", lambda f: f.optional_red > 0),
    Row("baseline-red", "every red required cell was red at the SHA too: the noise floor; fix "
        "the subject before scoring patches",
        "review", "review", lambda f: f.noise > 0),
    Row("all-green", "every required cell passes",
        "green", "accept", lambda f: True),
]
# fmt: on


# --- the final grade ---------------------------------------------------------------------------


@dataclass(frozen=True)
class GateOutcome:
    gate: str
    row: str
    status: str
    effect: Effect


# A rejecting gate other than drift names the final label like this.
REJECT_LABELS: dict[tuple[str, str], Label] = {
    ("census", "real-regression"): "failed",
    ("coverage", "*"): "uncovered",
    ("matrix", "*"): "matrix-red",
}
GATE_ORDER = ("drift", "census", "coverage", "matrix")

FINAL_TABLE_DOC = [
    ("a grade stopped early", "apply-failed / invalid-task / timeout / error"),
    ("drift rejects", "the drift label (UNPRINTABLE, failed, no-op)"),
    ("census rejects", "UNPRINTABLE (witnesses lost), or failed for real-regression"),
    ("coverage rejects", "uncovered"),
    ("matrix rejects", "matrix-red"),
    ("any gate asks for review", "the drift label, graded accept-with-review"),
    ("otherwise", "the drift label (passed or tests-authored), graded accept"),
]


def reject_label(outcome: GateOutcome) -> Label:
    if outcome.gate == "drift":
        return outcome.status  # type: ignore[return-value]
    specific = REJECT_LABELS.get((outcome.gate, outcome.row))
    if specific:
        return specific
    return REJECT_LABELS.get((outcome.gate, "*"), "UNPRINTABLE")


def final_grade(outcomes: list[GateOutcome]) -> tuple[Grade, Label]:
    """Combine the gates: the first rejecting gate in GATE_ORDER names the label."""
    by_gate = {o.gate: o for o in outcomes}
    drift = by_gate.get("drift")
    if drift is None:
        raise ValueError("the drift gate must always decide")
    for gate in GATE_ORDER:
        outcome = by_gate.get(gate)
        if outcome is not None and outcome.effect == "reject":
            return "reject", reject_label(outcome)
    if any(o.effect == "review" for o in outcomes):
        return "accept-with-review", drift.status  # type: ignore[return-value]
    return "accept", drift.status  # type: ignore[return-value]


def reason(gate: str, row: Row, detail: str = "") -> Reason:
    return Reason(gate=gate, row=row.id, detail=detail or row.when)


TABLES = {
    "drift": DRIFT_TABLE,
    "census": CENSUS_TABLE,
    "coverage": COVERAGE_TABLE,
    "matrix": MATRIX_TABLE,
}
