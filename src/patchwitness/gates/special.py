"""The special-casing gate: a fix, or a lookup table of the tests' inputs? Pure.

Collect finds the added production lines that compare an input with, switch on, or map the
literal values of the tests the task names as failing or of its hidden tests (special.py); this
gate reads those findings through its table. It asks for review by default: a value a test uses
can be a real boundary of the fix. A task that knows better (`[policy] special_casing =
"reject"`) makes it reject. When the hidden tests ran and failed the patch, the gate says which
findings they confirmed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from patchwitness import policy
from patchwitness.facts import GradeFacts
from patchwitness.model import Finding, SpecialFacts, SpecialGate
from patchwitness.names import GateName
from patchwitness.policy import Policy
from patchwitness.special import KIND  # the finding the detector writes

__all__ = ["KIND", "SpecialInput", "decide", "special_input"]


@dataclass(frozen=True)
class SpecialInput:
    findings: int = 0
    task_rejects: bool = False  # the task's `[policy] special_casing = "reject"`


def special_input(facts: SpecialFacts, task_setting: str) -> SpecialInput:
    return SpecialInput(findings=len(facts.findings), task_rejects=task_setting == "reject")


def decide(
    facts: SpecialFacts, inputs: SpecialInput, table: Sequence[policy.Row] = policy.SPECIAL_TABLE
) -> SpecialGate:
    row = policy.first_row(table, inputs)
    detail = row.when
    if facts.findings:
        detail = "; ".join(_place(f) for f in facts.findings[:3])
        if len(facts.findings) > 3:
            detail += f" (+{len(facts.findings) - 3} more)"
        if facts.confirmed_by_hidden:
            detail += ". Confirmed by the hidden tests, which fail the patch: " + ", ".join(
                facts.confirmed_by_hidden[:5]
            )
    return SpecialGate(status=row.status, row=row.id, effect=row.effect, detail=detail, facts=facts)


def _place(finding: Finding) -> str:
    return f"{finding.file}:{finding.line}: {finding.message}"


def judge(
    facts: GradeFacts, rules: Policy, decided: Mapping[str, Any] | None = None
) -> SpecialGate | None:
    """None when the detector had no test values to look for (a gate-mode task, a grade
    collected before it existed). The hidden tests' facts are drift's (`decided`)."""
    drift = (decided or {}).get(GateName.DRIFT)
    hidden = drift.facts.hidden if drift is not None else None
    if not facts.special_values_from:
        return None
    found = [f for f in facts.findings if f.kind == KIND]
    confirmed: list[str] = []
    if found and hidden is not None and facts.hidden is not None and facts.hidden.run is not None:
        confirmed = [*hidden.still_failing, *hidden.pass_to_fail]
    special = SpecialFacts(
        findings=found, values_from=list(facts.special_values_from), confirmed_by_hidden=confirmed
    )
    inputs = special_input(special, facts.task.special_casing)
    return decide(special, inputs, rules.table("special"))
