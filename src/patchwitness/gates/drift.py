"""The assertion-drift gate: the four numbers, the extras, and the print label. Pure."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from patchwitness import policy
from patchwitness.census import meaning
from patchwitness.census.items import split_key
from patchwitness.classify import GRADER, INFRA, TEST
from patchwitness.facts import ChangedFile, GradeFacts
from patchwitness.model import (
    RAN,
    SKIPPED,
    Cases,
    CensusFacts,
    DriftFacts,
    DriftGate,
    HiddenFacts,
    Outcome,
    PristineFacts,
)
from patchwitness.outcomes import cases as test_cases
from patchwitness.policy import Policy
from patchwitness.suspicious import GAMING_KINDS


@dataclass(frozen=True)
class DriftInput:
    """The facts the drift table reads, reduced to what its conditions need."""

    allow_test_edits: bool = False
    tests_changed: bool = False
    grader_files_edited: bool = False
    report_tampered: bool = False
    tests_removed: int = 0
    assertion_delta: int = 0
    weakened: int = 0
    skips_added: int = 0
    pass_to_fail: int = 0
    fail_to_pass: int = 0
    # Listed failing ids that do not pass after the patch (with hidden tests, the hidden run's).
    still_failing: int = 0
    gaming: int = 0
    gate_mode: bool = False
    skipped_by_code: int = 0
    # A purely additive test edit judged by the pristine run: the transitions above are the
    # pristine run's, and the edit itself is not forbidden.
    judged_by_pristine: bool = False
    # Hidden tests (hidden.py): conflicts with them, and FAIL_TO_PASS ids the hidden run left red.
    hidden_conflicts: int = 0


def skipped_after(
    before: dict[str, Outcome],
    after: dict[str, Outcome],
    flaky: set[str] = frozenset(),  # type: ignore[assignment]
) -> list[str]:
    """Tests that ran at the SHA and report skipped (or xfailed) after the patch."""
    return sorted(
        k for k, o in before.items() if o in RAN and after.get(k) in SKIPPED and k not in flaky
    )


def transitions(
    before: dict[str, Outcome],
    after: dict[str, Outcome],
    failing: list[str],
    flaky: set[str] = frozenset(),  # type: ignore[assignment]
) -> tuple[list[str], list[str], list[str]]:
    """(fail_to_pass, pass_to_fail, still_failing). A flaky id never counts on its own.

    pass_to_fail: passed before, anything but passed after (failed, error, missing, skipped,
    xfailed, or gone). fail_to_pass: listed as failing, passed after (xpassed is not passed).
    """
    f2p = [i for i in failing if after.get(i) == "passed" and i not in flaky]
    still = [i for i in failing if after.get(i) != "passed"]
    p2f = sorted(
        i
        for i, o in before.items()
        if o == "passed" and after.get(i) != "passed" and i not in flaky
    )
    return f2p, p2f, still


RED = ("failed", "error", "missing")


def goldens_red(
    before: dict[str, Outcome],
    after: dict[str, Outcome],
    failing: list[str],
    flaky: set[str] = frozenset(),
) -> bool:  # type: ignore[assignment]
    """The census's 'a golden fails': a test that should pass is present and red after the patch.

    A test that vanished or was skipped is not a failing golden; it is the census's business.
    """
    should_pass = {i for i, o in before.items() if o == "passed"} | set(failing)
    return any(after.get(i) in RED for i in should_pass - set(flaky))


def failing_lost(after: dict[str, Outcome], failing: list[str]) -> list[str]:
    """Listed failing ids that are gone or skipped after the patch: not fixed, made to vanish."""
    return [i for i in failing if after.get(i) in (None, "skipped", "xfailed")]


def drift_facts(
    *,
    before: dict[str, Outcome],
    after: dict[str, Outcome],
    failing: list[str],
    census: CensusFacts,
    classes: Mapping[str, ChangedFile],
    flaky: set[str] = frozenset(),  # type: ignore[assignment]
    pristine: PristineFacts | None = None,
    cases: tuple[Cases, Cases] | None = None,
) -> DriftFacts:
    """`cases`: the cases inside the ctest tests at the SHA and after the patch; a case that no
    longer runs inside a ctest test that still passes is a removed test, named `TEST::CASE`."""
    f2p, p2f, still = transitions(before, after, failing, flaky)
    weakened = sorted({f"{w.file}::{w.scope}" for w in census.weakened})
    vanished = test_cases.lost(*cases, after) if cases is not None else []
    return DriftFacts(
        failing_ids=list(failing),
        fail_to_pass=f2p,
        pass_to_fail=p2f,
        still_failing=still,
        tests_removed=sorted(set(before) - set(after)) + vanished,
        tests_added=sorted(set(after) - set(before)),
        skipped_after=skipped_after(before, after, flaky),
        assertion_delta=census.after_assertions - census.before_assertions,
        weakened=weakened,
        skips_added=[_skip_label(k) for k in census.disabled],
        test_hash_changed=bool(census.test_files_changed),
        test_files_edited=sorted(p for p, c in classes.items() if c.kind == TEST),
        infra_files_edited=sorted(p for p, c in classes.items() if c.kind in (INFRA, GRADER)),
        flaky=sorted(flaky),
        before=dict(sorted(before.items())),
        after=dict(sorted(after.items())),
        pristine=pristine or PristineFacts(),
    )


def _skip_label(key: str) -> str:
    _, file, scope, name, _ = split_key(key)
    return f"{file}::{scope} {name}" if scope else f"{file} {name}"


def drift_input(
    facts: DriftFacts,
    *,
    allow_test_edits: bool,
    grader_edited: bool = False,
    tampered: bool = False,
    gaming: int = 0,
    gate_mode: bool = False,
) -> DriftInput:
    judged = facts.judged_by == "pristine"
    f2p = facts.pristine.fail_to_pass if judged else facts.fail_to_pass
    p2f = facts.pristine.pass_to_fail if judged else facts.pass_to_fail
    # The patched run's, even when the pristine run judges: only leave to edit tests reads it,
    # and a task with that leave is never judged by the pristine run.
    still = facts.still_failing
    skipped = 0 if facts.skips_added else len(facts.skipped_after)
    hidden = facts.hidden
    if hidden is not None:
        # The failing tests are the hidden ones; a regression in either run counts.
        f2p = hidden.fail_to_pass
        p2f = [*p2f, *hidden.pass_to_fail]
        still = hidden.still_failing
        skipped += len(hidden.skipped_after)
    return DriftInput(
        allow_test_edits=allow_test_edits,
        tests_changed=bool(
            facts.test_files_edited or facts.infra_files_edited or facts.test_hash_changed
        ),
        grader_files_edited=grader_edited,
        report_tampered=tampered,
        tests_removed=len(facts.tests_removed),
        # The tests an additive edit added are not counted: their assertions neither.
        assertion_delta=min(facts.assertion_delta, 0) if judged else facts.assertion_delta,
        weakened=len(facts.weakened),
        skips_added=len(facts.skips_added),
        pass_to_fail=len(p2f),
        fail_to_pass=len(f2p),
        still_failing=len(still),
        gaming=gaming,
        gate_mode=gate_mode,
        # A skip no test edit added (the census saw none): the run was told to skip by code.
        skipped_by_code=skipped,
        judged_by_pristine=judged,
        hidden_conflicts=len(hidden.conflicts) if hidden is not None else 0,
    )


def detail(row_id: str, facts: DriftFacts) -> str:
    """The row's reason with the ids that made it fire."""

    def few(ids: list[str]) -> str:
        return ", ".join(ids[:5]) + (f" (+{len(ids) - 5} more)" if len(ids) > 5 else "")

    hidden = facts.hidden

    match row_id:
        case "tests-removed":
            return f"tests removed: {few(facts.tests_removed)}"
        case "assertion-loss":
            return f"assertion_delta = {facts.assertion_delta}"
        case "weakened":
            return f"weakened: {few(facts.weakened)}"
        case "skips-added":
            return f"skips added: {few(facts.skips_added)}"
        case "test-edit-forbidden":
            return (
                f"edited without leave: {few(facts.test_files_edited + facts.infra_files_edited)}"
            )
        case "hidden-tests-conflict":
            assert hidden is not None
            return f"conflicts with the hidden tests: {few(hidden.conflicts)}"
        case "skipped-by-code":
            skipped = facts.skipped_after + (hidden.skipped_after if hidden else [])
            return f"skipped without a skip marker: {few(skipped)}"
        case "pass-to-fail":
            p2f = facts.pristine.pass_to_fail if facts.judged_by == "pristine" else None
            said = f"pass_to_fail: {few(p2f if p2f is not None else facts.pass_to_fail)}"
            if hidden is not None and hidden.pass_to_fail:
                said += f"; in the hidden run: {few(hidden.pass_to_fail)}"
            return said
        case "still-failing" if hidden is not None:
            return (
                f"hidden fail_to_pass: {few(hidden.fail_to_pass)}; "
                f"still failing: {few(hidden.still_failing)}"
            )
        case "still-failing":
            return (
                f"fail_to_pass: {few(facts.fail_to_pass)}; "
                f"still failing: {few(facts.still_failing)}"
            )
        case "fail-to-pass":
            if hidden is not None:
                return f"fail_to_pass in the hidden run: {few(hidden.fail_to_pass)}"
            f2p = facts.pristine.fail_to_pass if facts.judged_by == "pristine" else None
            return f"fail_to_pass: {few(f2p if f2p is not None else facts.fail_to_pass)}"
        case "no-op" if hidden is not None:
            return "no FAIL_TO_PASS test passes in the hidden run and nothing else changed state"
        case "no-op":
            return "no listed failing id passes and nothing else changed state"
    return ""


def decide(
    facts: DriftFacts, inputs: DriftInput, table: Sequence[policy.Row] = policy.DRIFT_TABLE
) -> DriftGate:
    row = policy.first_row(table, inputs)
    said = detail(row.id, facts) or row.when
    if inputs.judged_by_pristine:
        said += " (judged by the pristine run: the tests the patch added are not counted)"
    return DriftGate(status=row.status, row=row.id, effect=row.effect, detail=said, facts=facts)


# -- the gate: judged from a grade's facts ------------------------------------------------------

TAMPER_KINDS = ("report-tamper", "report-hook-added")


def classes(facts: GradeFacts) -> dict[str, ChangedFile]:
    return {f.path: f for f in facts.files}


def judge(facts: GradeFacts, rules: Policy, decided: Mapping[str, Any] | None = None) -> DriftGate:
    assert facts.after is not None
    flaky = set(facts.baseline.flaky)
    drift = drift_facts(
        before=facts.baseline.outcomes,
        after=facts.after.outcomes,
        failing=facts.task.failing,
        census=meaning.read(facts.census, facts.task.allowlist),
        classes=classes(facts),
        flaky=flaky,
        cases=_cases(facts),
    )
    drift.ids = dict(facts.after.run.ids)
    drift.unstable_ids = sorted(
        set(facts.baseline.unstable_ids)
        | {k for k in facts.after.outcomes if facts.baseline.ids.get(k, k) != drift.ids.get(k, k)}
    )
    drift.test_edit = facts.test_edit
    drift.pristine = pristine_facts(facts, drift)
    drift.hidden = hidden_facts(facts)
    if _judged_by_pristine(facts, rules, drift.pristine):
        drift.judged_by = "pristine"
    found = facts.findings
    inputs = drift_input(
        drift,
        allow_test_edits=facts.task.allow_test_edits,
        grader_edited=any(f.kind == GRADER for f in facts.files),
        tampered=any(f.kind in TAMPER_KINDS for f in found),
        gaming=sum(1 for f in found if f.kind in GAMING_KINDS),
        gate_mode=facts.task.mode == "gate",
    )
    return decide(drift, inputs, rules.table("drift"))


def _cases(facts: GradeFacts) -> tuple[Cases, Cases] | None:
    """The cases inside the ctest tests at the SHA and after the patch, when both were recorded.
    Not with hidden tests: the patched run then holds the grader's test files, the SHA's not."""
    assert facts.after is not None
    before, after = facts.baseline.cases, facts.after.run.cases
    if before is None or after is None or facts.task.hidden:
        return None
    return before, after


def test_additions(facts: GradeFacts, rules: Policy) -> str:
    return facts.task.test_additions or rules.test_additions


def _judged_by_pristine(facts: GradeFacts, rules: Policy, pristine: PristineFacts) -> bool:
    """A purely additive test edit, on a task that forbids test edits, under a policy that judges
    additions: the SHA's own tests over the patched code decide."""
    return (
        facts.test_edit == "additive"
        and not facts.task.allow_test_edits
        and test_additions(facts, rules) == "judge"
        and pristine.ran
    )


def pristine_facts(facts: GradeFacts, drift: DriftFacts) -> PristineFacts:
    run = facts.pristine.run
    if run is None:
        edited = bool(drift.test_files_edited or drift.infra_files_edited)
        if edited:
            why = facts.pristine.skipped or "the test edit already decides this task"
            return PristineFacts(ran=False, skipped=why)
        return PristineFacts(ran=False, identical_tree=True)
    # The pristine run is plain: compared with the SHA's plain run.
    before = facts.baseline.plain_outcomes or facts.baseline.outcomes
    f2p, p2f, _ = transitions(before, run.outcomes, facts.task.failing, set(facts.baseline.flaky))
    disagreement = []
    for name, patched, clean in (
        ("fail_to_pass", drift.fail_to_pass, f2p),
        ("pass_to_fail", drift.pass_to_fail, p2f),
    ):
        for nodeid in sorted(set(patched) - set(clean)):
            disagreement.append(f"{name} only with the patched tests: {nodeid}")
        for nodeid in sorted(set(clean) - set(patched)):
            disagreement.append(f"{name} only with the SHA's tests: {nodeid}")
    return PristineFacts(
        ran=True,
        identical_tree=False,
        fail_to_pass=f2p,
        pass_to_fail=p2f,
        disagreement=disagreement,
    )


def hidden_facts(facts: GradeFacts) -> HiddenFacts | None:
    collected = facts.hidden
    if collected is None:
        return None
    from patchwitness import hidden as hidden_tests  # it reads this module's outcome names

    after = collected.run.outcomes if collected.run is not None else None
    return hidden_tests.hidden_facts(collected, after, set(facts.baseline.flaky))


def goldens_red_in_coverage_run(facts: GradeFacts) -> bool:
    """Red goldens in the run coverage was read from: the hidden run when there is one (its
    FAIL_TO_PASS and PASS_TO_PASS tests), else the patched run."""
    assert facts.after is not None
    collected = facts.hidden
    if collected is not None and collected.run is not None:
        checked = set(collected.pass_to_pass) | set(collected.failing)
        return goldens_red(
            {k: o for k, o in collected.baseline.items() if k in checked},
            collected.run.outcomes,
            collected.failing,
            set(facts.baseline.flaky),
        )
    return goldens_red(
        facts.baseline.outcomes,
        facts.after.outcomes,
        facts.task.failing,
        set(facts.baseline.flaky),
    )
