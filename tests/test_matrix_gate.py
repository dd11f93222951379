"""The flag-matrix gate (seed 004), row by row, on cells written by hand. No compiler runs here:
the gate is a pure function from the SHA's cells and the patched cells to a table row."""

from __future__ import annotations

import pytest
from rich.console import Console

from patchwitness import carried, policy
from patchwitness.facts import MovedLines
from patchwitness.gates import matrix as gate
from patchwitness.gates.matrix import BUILD_CELL, Resources
from patchwitness.model import Cell

KINDS = {
    "dbg": "debug",
    "rel": "release",
    "asan": "sanitizer",
    "ubsan2": "sanitizer",
    "user": "user",
}
ENVELOPES = ("dbg", "rel", "asan", "ubsan2")
G = "eval/golden_ring.cpp"


def cell(
    envelope: str,
    status: str = "pass",
    golden: str = G,
    *,
    required: bool = True,
    rss_kb: int = 20_000,
    cpu_s: float = 0.05,
    mode: str = "goldens",
    patch: str = "patched",
    findings: list[dict[str, str]] | None = None,
) -> Cell:
    return Cell(
        patch=patch,
        golden=golden,
        envelope=envelope,
        status=status,  # type: ignore[arg-type]
        required=required,
        envelope_kind=KINDS.get(envelope, "release"),
        peak_rss_kb=rss_kb,
        cpu_s=cpu_s,
        mode=mode,
        sanitizer_findings=findings or [],
    )


def row(
    statuses: dict[str, str],
    baseline: dict[str, str] | None = None,
    golden: str = G,
    **kwargs,
) -> str:
    """The row for one golden: patched statuses (envelope -> status), baseline all green
    unless given."""
    patched = [cell(e, s, golden) for e, s in statuses.items()]
    base = [cell(e, s, golden, patch="baseline") for e, s in (baseline or {}).items()]
    if baseline is None:
        base = [cell(e, "pass", golden, patch="baseline") for e in statuses]
    return gate.decide(patched, base, **kwargs).row


def green() -> dict[str, str]:
    return dict.fromkeys(ENVELOPES, "pass")


# --- one test per row, in table order ---------------------------------------------------------


def test_no_cells():
    result = gate.decide([], [])
    assert (result.row, result.effect, result.status) == ("no-cells", "reject", "red")


def test_cell_missing_in_the_patched_run_fails_closed():
    statuses = green() | {"asan": "missing"}
    assert row(statuses) == "cell-missing"


def test_a_baseline_cell_the_patched_run_never_produced_is_missing():
    base = [cell(e, patch="baseline") for e in ENVELOPES]
    patched = [cell(e) for e in ("dbg", "rel", "asan")]  # ubsan2 never reported
    result = gate.decide(patched, base)
    assert result.row == "cell-missing"
    assert result.facts.missing == [f"{G}@ubsan2"]
    assert result.effect == "reject"


def test_missing_at_the_sha_too_still_fails_closed():
    # The toolchain lacks a required envelope: the patch cannot be checked, so it is not passed.
    base = [cell(e, patch="baseline") for e in ("dbg", "rel")] + [cell("asan", "missing")]
    patched = [cell("dbg"), cell("rel"), cell("asan", "missing")]
    assert gate.decide(patched, base).row == "cell-missing"


def test_debug_green_release_red():
    result = gate.decide(
        [cell("dbg"), cell("rel", "run_fail"), cell("asan"), cell("ubsan2", "run_fail")],
        [cell(e, patch="baseline") for e in ENVELOPES],
    )
    assert result.row == "debug-green-release-red"
    assert "UB or an NDEBUG-dependent assert" in result.detail
    assert result.effect == "reject"


def test_debug_green_release_digest_changed_is_the_release_pattern():
    assert row(green() | {"rel": "digest_mismatch"}) == "debug-green-release-red"


def test_sanitizer_only():
    finding = {"tool": "UndefinedBehaviorSanitizer", "kind": "signed integer overflow"}
    finding["location"] = "subject/ring.hpp:14:20"
    patched = [cell("dbg"), cell("rel"), cell("asan", "sanitizer", findings=[finding])]
    patched.append(cell("ubsan2", "sanitizer", findings=[finding]))
    result = gate.decide(patched, [cell(e, patch="baseline") for e in ENVELOPES])
    assert result.row == "sanitizer-only"
    assert "signed integer overflow at subject/ring.hpp:14:20" in result.detail


def test_user_build_red():
    """Green wherever the tests' build looked, red in a user's default build: the fix exists
    only in the tests' dialect or build type."""
    every = (*ENVELOPES, "user")
    patched = [cell(e) for e in ENVELOPES] + [cell("user", "run_fail")]
    result = gate.decide(patched, [cell(e, patch="baseline") for e in every])
    assert (result.row, result.effect) == ("user-build-red", "reject")
    assert "a user's default build fails" in result.detail
    # A target red at the SHA, fixed in the tests' build only: owed green there too.
    at_sha = [cell(e, "run_fail", patch="baseline") for e in every]
    assert gate.decide(patched, at_sha, targets=[G]).row == "user-build-red"
    # Red in the user's build at the SHA as well (the project needs its dialect): no finding.
    at_sha = [cell(e, patch="baseline") for e in ENVELOPES]
    at_sha.append(cell("user", "compile_fail", patch="baseline"))
    patched = [cell(e) for e in ENVELOPES] + [cell("user", "compile_fail")]
    assert gate.decide(patched, at_sha).row == "baseline-red"


def test_a_target_in_an_envelope_that_never_built_at_the_sha_is_the_noise_floor():
    """A project that builds only in its own dialect never builds in a user's: the failing test
    red there after an honest fix is the envelope's doing, not the patch's (it was rejected)."""
    at_sha = [cell(e, "run_fail", patch="baseline") for e in ENVELOPES]
    at_sha.append(cell("user", "compile_fail", patch="baseline"))
    for status in ("compile_fail", "werror_fail"):
        patched = [cell(e) for e in ENVELOPES] + [cell("user", status)]
        result = gate.decide(patched, at_sha, targets=[G])
        assert (result.row, result.effect) == ("baseline-red", "review")
    # The patch made the user's build build, and the failing test fails there: owed green.
    patched = [cell(e) for e in ENVELOPES] + [cell("user", "run_fail")]
    assert gate.decide(patched, at_sha, targets=[G]).row == "user-build-red"


def test_a_target_that_built_nowhere_at_the_sha_is_owed_a_users_build():
    """A failing test of code the fix adds compiles nowhere at the SHA: once the patch makes
    it build in the tests' build, it owes the same in a user's."""
    at_sha = [cell(e, "compile_fail", patch="baseline") for e in (*ENVELOPES, "user")]
    patched = [cell(e) for e in ENVELOPES] + [cell("user", "compile_fail")]
    result = gate.decide(patched, at_sha, targets=[G])
    assert (result.row, result.effect) == ("user-build-red", "reject")


def test_werror_only():
    result = gate.decide(
        [cell("dbg", "werror_fail"), cell("rel", "werror_fail"), cell("asan"), cell("ubsan2")],
        [cell(e, patch="baseline") for e in ENVELOPES],
    )
    assert result.row == "werror-only"
    assert "spec violation" in result.detail


def test_digest_changed():
    statuses = dict.fromkeys(ENVELOPES, "digest_mismatch")
    assert row(statuses) == "digest-changed"


def test_regressed_compile_fail():
    assert row(dict.fromkeys(ENVELOPES, "compile_fail")) == "regressed"


@pytest.mark.parametrize("status", ["run_fail", "timeout"])
def test_regressed_everywhere(status):
    assert row(dict.fromkeys(ENVELOPES, status)) == "regressed"


def test_resources_rss():
    base = [cell("dbg", rss_kb=20_000, patch="baseline")]
    result = gate.decide([cell("dbg", rss_kb=300_000)], base)
    assert result.row == "resources"
    assert "peak RSS" in result.facts.resource_findings[0]


def test_resources_need_both_ratio_and_margin():
    base = [cell("dbg", rss_kb=2_000, patch="baseline")]
    # 10x but only ~18 MB more: not a finding under the default (2x and 64 MB).
    assert gate.decide([cell("dbg", rss_kb=20_000)], base).row == "all-green"
    # 70 MB more but only 1.5x: not a finding either.
    base = [cell("dbg", rss_kb=150_000, patch="baseline")]
    assert gate.decide([cell("dbg", rss_kb=225_000)], base).row == "all-green"


def test_resources_cpu_and_the_manifest_tolerance():
    base = [cell("dbg", cpu_s=0.2, patch="baseline")]
    assert gate.decide([cell("dbg", cpu_s=1.5)], base).row == "resources"
    loose = Resources(cpu_ratio=10.0, cpu_s=5.0)
    assert gate.decide([cell("dbg", cpu_s=1.5)], base, loose).row == "all-green"


def test_optional_red_asks_for_review():
    base = [cell(e, patch="baseline") for e in ENVELOPES] + [
        cell("tsan", required=False, patch="baseline")
    ]
    patched = [cell(e) for e in ENVELOPES] + [cell("tsan", "sanitizer", required=False)]
    result = gate.decide(patched, base)
    assert (result.row, result.effect) == ("optional-red", "review")


def test_baseline_red_is_the_noise_floor():
    statuses = green() | {"rel": "run_fail"}
    result = gate.decide(
        [cell(e, s) for e, s in statuses.items()],
        [cell(e, s, patch="baseline") for e, s in statuses.items()],
    )
    assert (result.row, result.effect, result.status) == ("baseline-red", "review", "review")
    assert result.facts.baseline_red == [f"{G}@rel"]
    assert any("fix the subject" in a for a in result.facts.advice)


def test_all_green():
    result = gate.decide([cell(e) for e in ENVELOPES], [cell(e) for e in ENVELOPES])
    assert (result.row, result.effect, result.status) == ("all-green", "accept", "green")


def test_every_row_has_a_test_above():
    tested = {
        "no-cells",
        "cell-missing",
        "debug-green-release-red",
        "sanitizer-only",
        "user-build-red",
        "werror-only",
        "digest-changed",
        "regressed",
        "resources",
        "target-red-everywhere",
        "optional-red",
        "baseline-red",
        "all-green",
    }
    assert {r.id for r in policy.MATRIX_TABLE} == tested


# --- transitions, targets and the noise floor -------------------------------------------------


def test_a_patch_is_judged_on_transitions_beside_the_noise():
    # rel is red at the SHA (noise); the patch breaks asan on another golden: still a reject.
    base = [cell(e, patch="baseline") for e in ENVELOPES]
    base[1] = cell("rel", "run_fail", patch="baseline")
    other = [cell(e, golden="eval/other.cpp", patch="baseline") for e in ENVELOPES]
    patched = [cell("dbg"), cell("rel", "run_fail"), cell("asan"), cell("ubsan2")]
    patched += [cell(e, golden="eval/other.cpp") for e in ("dbg", "rel", "ubsan2")]
    patched.append(cell("asan", "sanitizer", golden="eval/other.cpp"))
    result = gate.decide(patched, base + other)
    assert result.row == "sanitizer-only"
    assert f"{G}@rel" in result.facts.baseline_red
    assert "eval/other.cpp@asan: pass -> sanitizer" in result.facts.transitions


def test_a_fixed_cell_is_a_transition_not_a_problem():
    base = [cell("dbg", "run_fail", patch="baseline"), cell("rel", patch="baseline")]
    result = gate.decide([cell("dbg"), cell("rel")], base)
    assert result.row == "all-green"
    assert result.facts.transitions == [f"{G}@dbg: run_fail -> pass"]


def test_without_a_baseline_every_red_cell_counts():
    assert gate.decide([cell("dbg"), cell("rel", "run_fail")], None).row == (
        "debug-green-release-red"
    )


def test_a_target_green_in_debug_only_is_red():
    # A task's failing id is red at the SHA everywhere; fixed only at -O0, it is not fixed.
    name = "Ring.FindNewest"
    base = [cell(e, "run_fail", name, mode="cmake", patch="baseline") for e in ENVELOPES]
    patched = [cell("dbg", "pass", name, mode="cmake")]
    patched += [cell(e, "run_fail", name, mode="cmake") for e in ("rel", "asan", "ubsan2")]
    result = gate.decide(patched, base, targets=[name])
    assert result.row == "debug-green-release-red"


def test_a_target_red_everywhere_is_never_all_green():
    # The plain run saw the fix (else drift decided first); no envelope did. The matrix cannot
    # confirm it, and cannot blame the patch either (a tree its tests cannot write, a missing
    # tool): review, fail closed, never "every required cell passes".
    name = "Ring.FindNewest"
    base = [cell(e, "run_fail", name, mode="cmake", patch="baseline") for e in ENVELOPES]
    patched = [cell(e, "run_fail", name, mode="cmake") for e in ENVELOPES]
    result = gate.decide(patched, base, targets=[name])
    assert (result.row, result.effect) == ("target-red-everywhere", "review")
    assert name in result.detail
    assert result.facts.baseline_red == []
    # Only required envelopes count: green under each of them, red under optional ones only.
    optional = [cell(e, "pass", name, mode="cmake") for e in ("dbg", "rel")]
    optional += [
        cell(e, "run_fail", name, mode="cmake", required=False) for e in ("asan", "ubsan2")
    ]
    assert gate.decide(optional, base, targets=[name]).row == "optional-red"


def test_a_ctest_test_red_under_every_envelope_at_the_sha_is_a_known_failure():
    # Not a target of this task, red everywhere at the SHA: the suite's known failure, not noise.
    name, other = "Ring.FindNewest", "Stats.Mean"
    base = [cell(e, "run_fail", name, mode="cmake", patch="baseline") for e in ENVELOPES]
    base += [cell(e, "pass", other, mode="cmake", patch="baseline") for e in ENVELOPES]
    patched = [cell(e, "run_fail", name, mode="cmake") for e in ENVELOPES]
    patched += [cell(e, "pass", other, mode="cmake") for e in ENVELOPES]
    assert gate.decide(patched, base).row == "all-green"
    # ...but fixed under dbg alone it disagrees across envelopes: the matrix's finding.
    patched[0] = cell("dbg", "pass", name, mode="cmake")
    assert gate.decide(patched, base).row == "debug-green-release-red"


def test_a_cmake_envelope_that_never_built_at_the_sha_covers_its_tests():
    base = [cell("dbg", patch="baseline", mode="cmake", golden="t1")]
    base.append(cell("rel", "werror_fail", BUILD_CELL, mode="cmake", patch="baseline"))
    patched = [cell("dbg", golden="t1", mode="cmake"), cell("rel", "werror_fail", "t1")]
    result = gate.decide(patched, base)
    assert result.row == "baseline-red"
    assert result.facts.missing == []


def test_resources_are_not_judged_on_red_cells():
    base = [cell("dbg", "run_fail", rss_kb=1_000, patch="baseline")]
    result = gate.decide([cell("dbg", rss_kb=500_000)], base)
    assert result.facts.resource_findings == []


def test_cells_are_json_round_trippable():
    from patchwitness.matrix.collect import dump_cells, load_cells

    cells = [cell("asan", "sanitizer", findings=[{"tool": "x", "kind": "y", "location": "z"}])]
    assert load_cells(dump_cells(cells)) == cells


# --- sanitizer findings the SHA had already ---------------------------------------------------

UB = "reference binding to misaligned address ADDR for type 'T'"


def ub(location: str, kind: str = UB, **extra: str) -> dict[str, str]:
    return {"tool": "UndefinedBehaviorSanitizer", "kind": kind, "location": location, **extra}


def moved_down(by: int, path: str = "include/bytes.hpp", at: int = 3) -> dict[str, MovedLines]:
    """A patch that adds `by` lines at line `at` of `path`."""
    return {path: MovedLines(sha_path=path, added=list(range(at, at + by)))}


def findings_matrix(patched_finding, *, target: bool = True, at_sha: str = "include/bytes.hpp:9:5"):
    """The target (or another test) green in dbg and rel after the patch and stopped by a
    finding under ubsan2; at the SHA the same test was red there with the finding `at_sha`."""
    name = "golden_sum"
    base = [cell(e, "run_fail", name, mode="cmake", patch="baseline") for e in ("dbg", "rel")]
    base.append(
        cell("ubsan2", "sanitizer", name, mode="cmake", patch="baseline", findings=[ub(at_sha)])
    )
    patched = [cell(e, "pass", name, mode="cmake") for e in ("dbg", "rel")]
    patched.append(cell("ubsan2", "sanitizer", name, mode="cmake", findings=[patched_finding]))
    return patched, base, [name] if target else []


def test_a_finding_the_sha_had_moved_by_the_patch_makes_no_cell_red():
    patched, base, targets = findings_matrix(ub("include/bytes.hpp:14:5"))
    result = gate.decide(patched, base, targets=targets, moved=moved_down(5))
    assert (result.row, result.effect) == ("baseline-red", "review")
    assert result.facts.new_red == []
    assert result.facts.carried == [f"golden_sum@ubsan2: {UB} at include/bytes.hpp:14:5"]
    assert "the SHA's own sanitizer findings" in result.detail
    # Without the line map (facts collected before it was kept) the status decides, as before.
    assert gate.decide(patched, base, targets=targets).row == "sanitizer-only"


def test_never_by_raw_file_and_line():
    # At the SHA's very file:line, but the patch added that line: the finding is the patch's.
    patched, base, targets = findings_matrix(ub("include/bytes.hpp:9:5"))
    result = gate.decide(patched, base, targets=targets, moved=moved_down(1, at=9))
    assert result.row == "sanitizer-only"
    # And at the place the SHA's finding moved to, but of another kind: new too.
    other = ub("include/bytes.hpp:10:5", kind="load of misaligned address ADDR for type 'T'")
    patched, base, targets = findings_matrix(other)
    assert gate.decide(patched, base, targets=targets, moved=moved_down(1, at=9)).row == (
        "sanitizer-only"
    )


def test_a_new_finding_makes_a_cell_red_that_was_red_at_the_sha_too():
    # Not a target, red under ubsan2 at the SHA with the old finding, stopped by a new one now:
    # by status alone this was noise.
    patched, base, targets = findings_matrix(ub("src/new.cpp:3:1"), target=False)
    for c in base:
        c.status = "pass" if c.envelope != "ubsan2" else c.status
    result = gate.decide(patched, base, targets=targets, moved={})
    assert (result.row, result.facts.new_red) == ("sanitizer-only", ["golden_sum@ubsan2"])
    assert gate.decide(patched, base, targets=targets).row == "baseline-red"


def test_a_finding_in_a_file_the_patch_created_is_new():
    patched, base, targets = findings_matrix(ub("include/bytes.hpp:9:5"))
    created = {"include/bytes.hpp": MovedLines(sha_path=None, added=[1, 2, 3])}
    assert gate.decide(patched, base, targets=targets, moved=created).row == "sanitizer-only"


def test_a_renamed_file_keeps_its_findings():
    renamed = {"include/b.hpp": MovedLines(sha_path="include/bytes.hpp")}
    patched, base, targets = findings_matrix(ub("include/b.hpp:9:5"))
    assert gate.decide(patched, base, targets=targets, moved=renamed).row == "baseline-red"


def test_findings_outside_the_repository_are_placed_by_their_stack():
    library = "/usr/include/c++/12/bits/stl_vector.h:1224"
    kind = "heap-buffer-overflow"

    def asan(frame: str) -> dict[str, str]:
        return {
            "tool": "AddressSanitizer",
            "kind": kind,
            "location": library,
            "frames": f"{library}\n{frame}\ntests/golden_sum.cpp:6",
            "functions": "std::vector<int>::front()\nfirst()\nmain",
        }

    at_sha = asan("src/first.cpp:4")
    base = [cell("ubsan2", "sanitizer", "golden_sum", mode="cmake", findings=[at_sha])]
    base += [cell(e, "run_fail", "golden_sum", mode="cmake") for e in ("dbg", "rel")]
    move = {"src/first.cpp": MovedLines(sha_path="src/first.cpp", added=[1, 2])}

    def decide(finding):
        patched = [cell(e, "pass", "golden_sum", mode="cmake") for e in ("dbg", "rel")]
        patched.append(cell("ubsan2", "sanitizer", "golden_sum", mode="cmake", findings=[finding]))
        return gate.decide(patched, base, targets=["golden_sum"], moved=move).row

    # The same call, two lines down: the SHA's. The library's own line never moves, so it
    # cannot tell a new caller from the old one; the project's frame does.
    assert decide(asan("src/first.cpp:6")) == "baseline-red"
    assert decide(asan("src/first.cpp:2")) == "sanitizer-only"  # from a line the patch added
    assert decide(asan("src/other.cpp:6")) == "sanitizer-only"
    # Nothing to place a finding by: it matches nothing.
    bare = {"tool": "AddressSanitizer", "kind": kind, "location": ""}
    assert carried.place(bare, {}) is None


# --- the table is published with the others ---------------------------------------------------


def test_the_table_is_registered_and_printed():
    assert policy.TABLES["matrix"] is policy.MATRIX_TABLE
    from patchwitness.report.terminal import render_tables

    console = Console(record=True, width=200)
    render_tables(console)
    text = console.export_text()
    assert "matrix (first matching row wins)" in text
    assert "debug-green-release-red" in text


def test_a_matrix_reject_is_labelled_matrix_red():
    outcomes = [
        policy.GateOutcome("drift", "fail-to-pass", "passed", "accept"),
        policy.GateOutcome("census", "contract-held", "pass", "accept"),
        policy.GateOutcome("matrix", "sanitizer-only", "red", "reject"),
    ]

    def final(items):
        facts = policy.FinalInput(gates={o.gate: o for o in items})
        row = policy.first_final(policy.FINAL_TABLE, facts)
        return row.grade, row.label(facts)

    assert final(outcomes) == ("reject", "matrix-red")
    outcomes[-1] = policy.GateOutcome("matrix", "baseline-red", "review", "review")
    assert final(outcomes) == ("accept-with-review", "passed")
