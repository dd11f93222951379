"""From facts to a verdict: every gate's table, then the final table. Pure: runs nothing.

    verdict = judge(facts)                    # the default policy
    verdict = judge(facts, load_policy(path))  # another one, on facts stored long ago

`collect` gathers the facts; this module is the only place that decides. The same facts judged
under the same policy always give the same verdict, so a results database can be judged again
(`patchwitness rejudge`) without running a line of the code under grade.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from patchwitness import policy as tables
from patchwitness.classify import GRADER, INFRA, TEST
from patchwitness.facts import GradeFacts
from patchwitness.gates import registry
from patchwitness.gates import special as special_gate
from patchwitness.model import (
    DriftGate,
    Finding,
    Gates,
    Outcome,
    Reason,
    SkippedGate,
    SpecialGate,
    Verdict,
)
from patchwitness.names import GateName
from patchwitness.policy import FinalInput, Gate, GateOutcome, Policy, default_policy

# Final rows that are endings of their own, or add to what the gates said, and so give a reason.
ANNOUNCED_FIRST = ("timeout", "killed")
ANNOUNCED_LAST = ("gate-not-run", "pristine-disagreement")


def judge(facts: GradeFacts, policy: Policy | None = None) -> Verdict:
    policy = policy or default_policy()
    if facts.stop is not None or facts.after is None:
        return stopped(facts)
    decided = decide_gates(facts, policy)
    drift = decided[GateName.DRIFT]
    special = decided.get(GateName.SPECIAL)
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
            **decided,
            build=facts.after.build,
            skipped=[SkippedGate(gate=g, why=why) for g, why in facts.skipped.items()],
        ),
        runs=facts.runs,
        timings=facts.timings,
        started_at=facts.started_at,
        wall_clock_s=facts.timings.total_s,
    )


def decide_gates(
    facts: GradeFacts, policy: Policy, only: Callable[[Gate], bool] = lambda gate: True
) -> dict[str, Any]:
    """Every gate's answer (None where it had nothing to judge), in the registry's order: a
    gate may read what the gates before it decided."""
    decided: dict[str, Any] = {}
    for gate in registry():
        if only(gate):
            decided[gate.name] = gate.judge(facts, policy, decided)
    return decided


def rejecting(facts: GradeFacts, policy: Policy | None = None) -> str:
    """The first of the cheap gates (every gate but the flag matrix) that already rejects the
    facts gathered so far, as `gate (row)`; '' when none does. Collect asks before it spends a
    pristine run or a flag matrix on a patch whose verdict they cannot change."""
    if facts.stop is not None or facts.after is None:
        return ""
    decided = decide_gates(facts, policy or default_policy(), lambda gate: gate.cheap)
    for name, gate in decided.items():
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
                gate=GateName.DRIFT,
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
        gate=GateName.DRIFT,
        kind="tests-added",
        message="tests added, not counted: " + (", ".join(shown) or "none collected") + more,
    )


def test_files(facts: GradeFacts) -> list[str]:
    return sorted(f.path for f in facts.files if f.kind in (TEST, INFRA, GRADER))
