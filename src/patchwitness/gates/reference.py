"""The reference gate: does the patch behave as the task's reference fix? Pure.

Both pass the tests. The grader ran the calls the failing tests made into the functions either
changes, and their neighbours, under both trees (phases/reference.py); a call on which they
disagree is shown with both behaviours, the smallest first. A patch may be better than the
reference (it also fixes a neighbour the reference leaves broken): the gate asks for review by
default, so a person can tell; a policy may make the row reject.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from patchwitness import policy
from patchwitness.facts import GradeFacts
from patchwitness.model import Difference, ReferenceFacts, ReferenceGate
from patchwitness.policy import Policy

__all__ = ["ReferenceInput", "decide", "describe", "reference_input"]


@dataclass(frozen=True)
class ReferenceInput:
    compared: int = 0
    differing: int = 0
    # Compared calls that reached a changed function; -1 when that was not watched.
    reaching: int = -1
    # The patch changes none of the functions the reference fix changes.
    elsewhere: bool = False


def reference_input(facts: ReferenceFacts) -> ReferenceInput:
    return ReferenceInput(
        compared=facts.compared,
        differing=max(facts.differing, len(facts.differences)),
        reaching=-1 if facts.reaching is None else facts.reaching,
        elsewhere=facts.elsewhere,
    )


def decide(
    facts: ReferenceFacts,
    inputs: ReferenceInput,
    table: Sequence[policy.Row] = policy.REFERENCE_TABLE,
) -> ReferenceGate:
    row = policy.first_row(table, inputs)
    detail = row.when
    if row.id == "differs-from-reference":
        detail = describe(facts.differences[0])
        if facts.differing > 1:
            more = f"{facts.compared} calls"
            if facts.neighbours:
                more += f" and {facts.neighbours} neighbours of the failing tests"
            detail += f" (+{facts.differing - 1} more of {more})"
    elif row.id == "not-compared":
        detail = facts.skipped or "no call could be compared"
    elif row.id == "fixed-elsewhere":
        compared = f"{facts.compared} calls agreed, none of which ran a changed function"
        detail = "the patch changes none of the functions the reference fix changes, and " + (
            compared if facts.compared else facts.skipped or "no call could be compared"
        )
    elif row.id == "change-not-reached":
        detail = (
            f"{facts.compared} calls agreed, none of which ran "
            f"{', '.join(facts.targets[:3])}: the change itself was not compared"
        )
    elif row.id == "same-as-reference":
        detail = f"{facts.compared} calls into {', '.join(facts.targets[:3])} agreed"
    if row.id != "differs-from-reference" and facts.neighbours:
        detail += f"; {facts.neighbours} neighbours of the failing tests agreed"
    return ReferenceGate(
        status=row.status, row=row.id, effect=row.effect, detail=detail, facts=facts
    )


def describe(difference: Difference) -> str:
    """`call`: the reference returned X, the patch Y (and what else differed)."""
    said = []
    for name in difference.fields:
        ref, pat = difference.reference.get(name, ""), difference.patch.get(name, "")
        if name == "value":
            said.append(f"the reference returned {ref}, the patch {pat}")
        elif name == "outcome":
            ending = _ending(difference.patch, "the patch")
            said.append(f"{_ending(difference.reference)}, {ending}")
        else:
            said.append(f"{name}: {ref or '(none)'} against {pat or '(none)'}")
    varied = f" [{difference.varied}]" if difference.varied else " [the tests' own call]"
    return f"{difference.call}{varied}: " + "; ".join(said)


def _ending(side: Mapping[str, str], who: str = "the reference") -> str:
    outcome = side.get("outcome", "")
    if outcome == "raised":
        return f"{who} raised {side.get('exception', '')}"
    if outcome == "returned":
        return f"{who} returned {side.get('value', '')}"
    return f"{who}: {outcome}"


def judge(
    facts: GradeFacts, rules: Policy, decided: Mapping[str, Any] | None = None
) -> ReferenceGate | None:
    """None when the task has no reference fix (or the comparison was not asked for)."""
    if facts.reference is None:
        return None
    return decide(facts.reference, reference_input(facts.reference), rules.table("reference"))
