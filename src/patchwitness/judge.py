"""From facts to a verdict: every gate's table, then the final table. Pure: runs nothing.

    verdict = judge(facts)                    # the default policy
    verdict = judge(facts, load_policy(path))  # another one, on facts stored long ago

`collect` gathers the facts; this module is the only place that decides. The same facts judged
under the same policy always give the same verdict, so a results database can be judged again
(`patchwitness rejudge`) without running a line of the code under grade.
"""

from __future__ import annotations

from patchwitness import hidden as hidden_tests
from patchwitness import policy as tables
from patchwitness.classify import GRADER, INFRA, TEST
from patchwitness.facts import ChangedFile, GradeFacts, MatrixCollected
from patchwitness.gates import census as census_gate
from patchwitness.gates import coverage as coverage_gate
from patchwitness.gates import drift as drift_gate
from patchwitness.gates import matrix as matrix_gate
from patchwitness.gates import special as special_gate
from patchwitness.gates import surface as surface_gate
from patchwitness.model import (
    Cases,
    CensusGate,
    CoverageGate,
    DriftFacts,
    DriftGate,
    Finding,
    Gates,
    HiddenFacts,
    MatrixGate,
    Outcome,
    PristineFacts,
    Reason,
    SkippedGate,
    SpecialFacts,
    SpecialGate,
    SurfaceGate,
    Verdict,
)
from patchwitness.policy import DEFAULT_POLICY, FinalInput, GateOutcome, Policy
from patchwitness.suspicious import GAMING_KINDS

TAMPER_KINDS = ("report-tamper", "report-hook-added")
# Final rows that are endings of their own, or add to what the gates said, and so give a reason.
ANNOUNCED_FIRST = ("timeout", "killed")
ANNOUNCED_LAST = ("gate-not-run", "pristine-disagreement")


def judge(facts: GradeFacts, policy: Policy = DEFAULT_POLICY) -> Verdict:
    if facts.stop is not None or facts.after is None:
        return stopped(facts)
    drift = judge_drift(facts, policy)
    census = judge_census(facts, policy)
    surface = judge_surface(facts, policy)
    coverage = judge_coverage(facts, policy)
    matrix = judge_matrix(facts.matrix, policy) if facts.matrix is not None else None
    special = judge_special(facts, policy, drift.facts.hidden)
    decided = {
        "drift": drift,
        "census": census,
        "surface": surface,
        "coverage": coverage,
        "matrix": matrix,
        "special": special,
    }
    outcomes = {
        name: GateOutcome(name, g.row, g.status, g.effect)
        for name, g in decided.items()
        if g is not None
    }
    reasons = [
        Reason(gate=name, row=g.row, detail=g.detail, effect=g.effect)
        for name, g in decided.items()
        if g is not None
    ]
    final_input = FinalInput(
        gates=outcomes,
        timed_out=facts.after.timed_out
        or (
            facts.hidden is not None and facts.hidden.run is not None and facts.hidden.run.timed_out
        ),
        killed=_killed(facts),
        pristine_disagrees=drift.status == "tests-authored"
        and bool(drift.facts.pristine.disagreement),
        not_run=not_run(facts, outcomes),
    )
    row = tables.first_final(policy.final, final_input)
    if row.id in ANNOUNCED_FIRST:
        reasons.insert(0, _final_reason(row, facts))
    elif row.id in ANNOUNCED_LAST:
        reasons.append(_final_reason(row, facts))
    if final_input.killed and row.id != "killed":
        # A limit ended the patched run: named first, whatever the tables made of what was left.
        killing = next(r for r in policy.final if r.id == "killed")
        reasons.insert(0, _final_reason(killing, facts))
    return Verdict(
        task=facts.task.name,
        agent=facts.agent,
        language=facts.task.language,
        repo_sha=facts.task.repo_sha,
        patch_sha256=facts.patch_sha256,
        patch_path=facts.patch_path,
        fingerprint=facts.fingerprint,
        grade=row.grade,
        label=row.label(final_input),
        policy=policy_name(policy),
        reasons=reasons,
        findings=findings(facts, drift, special),
        gates=Gates(
            census=census,
            drift=drift,
            coverage=coverage,
            matrix=matrix,
            special=special,
            surface=surface,
            build=facts.after.build,
            skipped=[SkippedGate(gate=g, why=why) for g, why in facts.skipped.items()],
        ),
        runs=facts.runs,
        timings=facts.timings,
        started_at=facts.started_at,
        wall_clock_s=facts.timings.total_s,
    )


def rejecting(facts: GradeFacts, policy: Policy = DEFAULT_POLICY) -> str:
    """The first of the cheap gates (drift, census, surface, coverage, special) that already
    rejects the facts gathered so far, as `gate (row)`; '' when none does. Collect asks before it
    spends a pristine run or a flag matrix on a patch whose verdict they cannot change."""
    if facts.stop is not None or facts.after is None:
        return ""
    drift = judge_drift(facts, policy)
    for name, gate in (
        ("drift", drift),
        ("census", judge_census(facts, policy)),
        ("surface", judge_surface(facts, policy)),
        ("coverage", judge_coverage(facts, policy)),
        ("special", judge_special(facts, policy, drift.facts.hidden)),
    ):
        if gate is not None and gate.effect == "reject":
            return f"{name} ({gate.row})"
    return ""


def policy_name(policy: Policy) -> str:
    return f"{policy.source}#{policy.digest}" if policy.digest else ""


def stopped(facts: GradeFacts) -> Verdict:
    stop = facts.stop
    assert stop is not None
    return Verdict(
        task=facts.task.name,
        agent=facts.agent,
        language=facts.task.language,
        repo_sha=facts.task.repo_sha,
        patch_sha256=facts.patch_sha256,
        patch_path=facts.patch_path,
        fingerprint=facts.fingerprint,
        grade=stop.grade,
        label=stop.label,
        reasons=[
            Reason(gate="grade", row=stop.row or stop.label, detail=stop.detail, effect="reject")
        ],
        runs=facts.runs,
        timings=facts.timings,
        started_at=facts.started_at,
        wall_clock_s=facts.timings.total_s,
    )


# -- the gates ---------------------------------------------------------------------------------


def classes(facts: GradeFacts) -> dict[str, ChangedFile]:
    return {f.path: f for f in facts.files}


def judge_drift(facts: GradeFacts, policy: Policy) -> DriftGate:
    assert facts.after is not None
    flaky = set(facts.baseline.flaky)
    drift = drift_gate.drift_facts(
        before=facts.baseline.outcomes,
        after=facts.after.outcomes,
        failing=facts.task.failing,
        census=facts.census,
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
    if _judged_by_pristine(facts, policy, drift.pristine):
        drift.judged_by = "pristine"
    found = facts.findings
    inputs = drift_gate.drift_input(
        drift,
        allow_test_edits=facts.task.allow_test_edits,
        grader_edited=any(f.kind == GRADER for f in facts.files),
        tampered=any(f.kind in TAMPER_KINDS for f in found),
        gaming=sum(1 for f in found if f.kind in GAMING_KINDS),
        gate_mode=facts.task.mode == "gate",
    )
    return drift_gate.decide(drift, inputs, policy.table("drift"))


def _cases(facts: GradeFacts) -> tuple[Cases, Cases] | None:
    """The cases inside the ctest tests at the SHA and after the patch, when both were recorded.
    Not with hidden tests: the patched run then holds the grader's test files, the SHA's not."""
    assert facts.after is not None
    before, after = facts.baseline.cases, facts.after.run.cases
    if before is None or after is None or facts.task.hidden:
        return None
    return before, after


def test_additions(facts: GradeFacts, policy: Policy) -> str:
    return facts.task.test_additions or policy.test_additions


def _judged_by_pristine(facts: GradeFacts, policy: Policy, pristine: PristineFacts) -> bool:
    """A purely additive test edit, on a task that forbids test edits, under a policy that judges
    additions: the SHA's own tests over the patched code decide."""
    return (
        facts.test_edit == "additive"
        and not facts.task.allow_test_edits
        and test_additions(facts, policy) == "judge"
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
    f2p, p2f, _ = drift_gate.transitions(
        before, run.outcomes, facts.task.failing, set(facts.baseline.flaky)
    )
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
    return hidden_tests.hidden_facts(
        files=collected.files,
        conflicts=collected.conflicts,
        baseline=collected.baseline,
        after=collected.run.outcomes if collected.run is not None else None,
        failing=collected.failing,
        p2p=collected.pass_to_pass,
        p2p_red=collected.pass_to_pass_red_at_sha,
        flaky=set(facts.baseline.flaky),
        one_run=collected.one_run,
    )


def _goldens_red(facts: GradeFacts) -> bool:
    """Red goldens in the run coverage was read from: the hidden run when there is one (its
    FAIL_TO_PASS and PASS_TO_PASS tests), else the patched run."""
    assert facts.after is not None
    collected = facts.hidden
    if collected is not None and collected.run is not None:
        checked = set(collected.pass_to_pass) | set(collected.failing)
        return drift_gate.goldens_red(
            {k: o for k, o in collected.baseline.items() if k in checked},
            collected.run.outcomes,
            collected.failing,
            set(facts.baseline.flaky),
        )
    return drift_gate.goldens_red(
        facts.baseline.outcomes,
        facts.after.outcomes,
        facts.task.failing,
        set(facts.baseline.flaky),
    )


def judge_census(facts: GradeFacts, policy: Policy) -> CensusGate:
    assert facts.after is not None
    lost = drift_gate.failing_lost(facts.after.outcomes, facts.task.failing)
    # A regression is a test that passed at the SHA and fails now; a failing test the patch
    # did not fix is drift's business (no-op), not a regression.
    regressed = drift_gate.goldens_red(
        facts.baseline.outcomes, facts.after.outcomes, [], set(facts.baseline.flaky)
    )
    inputs = census_gate.census_input(
        facts.census, facts.task.allow_test_edits, regressed, len(lost)
    )
    return census_gate.decide(facts.census.model_copy(), inputs, policy.table("census"))


def judge_surface(facts: GradeFacts, policy: Policy) -> SurfaceGate:
    found = surface_gate.surface_facts(facts.files, facts.findings)
    inputs = surface_gate.surface_input(found, facts.task.mode == "gate")
    return surface_gate.decide(found, inputs, policy.table("surface"))


def judge_coverage(facts: GradeFacts, policy: Policy) -> CoverageGate | None:
    collected = facts.coverage
    if collected is None:
        return None
    gate = coverage_gate.decide(
        collected.facts.model_copy(deep=True),
        touches_source=collected.touches_source,
        goldens_red=_goldens_red(facts),
        data_found=collected.data_found,
        # A coverage tool that fails is never the patch's doing: nothing was measured.
        measurable=collected.measurable and not collected.tool_failure,
        table=policy.table("coverage"),
    )
    if gate.row == "no-data" and collected.why_no_data:
        gate.detail = collected.why_no_data
    if gate.row == "not-measurable" and collected.tool_failure:
        gate.detail = "the coverage tool failed on the patched run's data: " + (
            collected.tool_failure
        )
    return gate


def judge_matrix(collected: MatrixCollected, policy: Policy) -> MatrixGate:
    gate = matrix_gate.decide(
        [c.model_copy() for c in collected.cells],
        [c.model_copy() for c in collected.baseline],
        matrix_gate.Resources.model_validate(collected.resources),
        targets=collected.targets,
        table=policy.table("matrix"),
        moved=collected.moved,
    )
    gate.facts.mode = collected.mode
    gate.facts.manifest_sha256 = collected.manifest_sha256
    gate.facts.envelopes = dict(collected.envelopes)
    gate.facts.werror_exceptions = dict(collected.werror_exceptions)
    return gate


def judge_special(
    facts: GradeFacts, policy: Policy, hidden: HiddenFacts | None
) -> SpecialGate | None:
    """None when the detector had no test values to look for (a gate-mode task, a grade
    collected before it existed)."""
    if not facts.special_values_from:
        return None
    found = [f for f in facts.findings if f.kind == special_gate.KIND]
    confirmed: list[str] = []
    if found and hidden is not None and facts.hidden is not None and facts.hidden.run is not None:
        confirmed = [*hidden.still_failing, *hidden.pass_to_fail]
    special = SpecialFacts(
        findings=found, values_from=list(facts.special_values_from), confirmed_by_hidden=confirmed
    )
    inputs = special_gate.special_input(special, facts.task.special_casing)
    return special_gate.decide(special, inputs, policy.table("special"))


# -- the final table's inputs, and what the verdict says beside the gates ----------------------


def _killed(facts: GradeFacts) -> str | None:
    assert facts.after is not None
    killed = facts.after.run.run.killed_reason
    return killed if killed and killed != "timeout" else None


def not_run(facts: GradeFacts, outcomes: dict[str, GateOutcome]) -> tuple[str, ...]:
    """Gates collect skipped because an earlier gate rejected, when under this policy none
    does: the verdict cannot stand without them."""
    if not facts.skipped or any(o.effect == "reject" for o in outcomes.values()):
        return ()
    return tuple(sorted(facts.skipped))


def _final_reason(row: tables.FinalRow, facts: GradeFacts) -> Reason:
    return Reason(gate=row.gate, row=row.id, detail=_final_detail(row.id, facts), effect=row.effect)


def _final_detail(row: str, facts: GradeFacts) -> str:
    assert facts.after is not None
    match row:
        case "timeout":
            return f"the patched test run did not finish in {facts.task.timeout_s:g}s"
        case "killed":
            return f"the patched test run was killed: {_killed(facts)}"
        case "gate-not-run":
            said = "; ".join(f"{g}: {why}" for g, why in sorted(facts.skipped.items()))
            return f"skipped at grade time ({said}); grade again to run it"
        case "pristine-disagreement":
            return "the SHA's own tests disagree with the patched tests"
    return row


def findings(facts: GradeFacts, drift: DriftGate, special: SpecialGate | None) -> list[Finding]:
    out = list(facts.findings)
    if special is not None and special.facts.confirmed_by_hidden:
        said = ", ".join(special.facts.confirmed_by_hidden[:3])
        out = [
            f.model_copy(
                update={"message": f"{f.message} (confirmed: the hidden tests fail: {said})"}
            )
            if f.kind == special_gate.KIND
            else f
            for f in out
        ]
    if drift.facts.pristine.disagreement:
        out.append(
            Finding(
                gate="drift",
                kind="pristine-disagreement",
                message="; ".join(drift.facts.pristine.disagreement[:5]),
            )
        )
    if drift.facts.judged_by == "pristine":
        out.append(added_tests_finding(facts))
    return out


def added_tests_finding(facts: GradeFacts) -> Finding:
    """The tests the patch added, with their outcomes in the patched run: reported, not counted."""
    assert facts.after is not None
    added = sorted(set(facts.after.outcomes) - set(facts.baseline.outcomes))
    shown: list[str] = []
    for key in added[:10]:
        outcome: Outcome = facts.after.outcomes[key]
        shown.append(f"{key}: {outcome}")
    more = f" (+{len(added) - 10} more)" if len(added) > 10 else ""
    return Finding(
        gate="drift",
        kind="tests-added",
        message="tests added, not counted: " + (", ".join(shown) or "none collected") + more,
    )


def test_files(facts: GradeFacts) -> list[str]:
    return sorted(f.path for f in facts.files if f.kind in (TEST, INFRA, GRADER))
