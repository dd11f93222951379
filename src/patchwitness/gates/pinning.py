"""The pinning gate: do the tests constrain the patch, or only run it? Pure.

The coverage gate asks whether the tests ran every patched line. This one asks whether they
pinned it. A decision the patch adds (a condition, a conditional expression, an operand of a
short circuit) that went the same way every time a test reached it leaves the other way
untested, and a fix gated on something always so under the tests (the harness, the test build,
an earlier call in the same process) looks exactly like that. A mutant of an added line (a
condition made constant, a statement deleted, a boundary moved) that every test still passes
is code the tests do not constrain. Both ask for review by default; a policy may make a row
reject.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from patchwitness import policy
from patchwitness.facts import GradeFacts, MutantsCollected, PinningCollected
from patchwitness.model import THREW, Decision, PinningFacts, PinningGate
from patchwitness.mutants import ASSERT_REMOVED
from patchwitness.policy import Policy

__all__ = ["PinningInput", "decide", "pinning_facts", "pinning_input"]

SHOWN = 3  # one-way decisions named in the gate's detail


@dataclass(frozen=True)
class PinningInput:
    decisions: int = 0
    one_way: int = 0
    measured: bool = True
    survivors: int = 0
    unrun: int = 0
    asserts_needed: int = 0


def pinning_facts(
    collected: PinningCollected, mutants: MutantsCollected | None = None, why_not: str = ""
) -> PinningFacts:
    """`why_not`: why no mutant ran, when collect left them out."""
    mutants = mutants or MutantsCollected(skipped=why_not or "not asked for")
    return PinningFacts(
        decisions=len(collected.decisions),
        one_way=[d for d in collected.decisions if d.one_way],
        measured=collected.measured,
        why_not=collected.why_not,
        mutants_run=len(mutants.mutants),
        survivors=[m for m in mutants.mutants if m.survived and m.operator != ASSERT_REMOVED],
        asserts_needed=[
            m for m in mutants.mutants if m.operator == ASSERT_REMOVED and not m.survived
        ],
        mutants_made=mutants.made,
        mutants_skipped=mutants.skipped or _capped(mutants),
        mutants_unrun=_unrun(mutants),
    )


def _unrun(mutants: MutantsCollected) -> int:
    """Mutants whose hold the tests were never asked about: left unrun by a cap or by a schema
    that could not run (`refused`), or run against the failing tests alone and outliving them.
    A mutant that could not run is not known to be pinned: the gate fails closed."""
    if mutants.skipped:
        return 0
    never = max(0, mutants.made - len(mutants.mutants))
    return never + sum(1 for m in mutants.mutants if m.unconfirmed)


def _capped(mutants: MutantsCollected) -> str:
    said = []
    if mutants.refused:
        said.append(
            f"{mutants.made - len(mutants.mutants)} mutants could not run: {mutants.refused}"
        )
    elif mutants.made > len(mutants.mutants):
        said.append(f"{len(mutants.mutants)} of {mutants.made} mutants run (the cap)")
    unasked = sum(1 for m in mutants.mutants if m.unconfirmed)
    if unasked:
        said.append(f"{unasked} outlived the failing tests and were not run past them (the cap)")
    return "; ".join(said)


def pinning_input(facts: PinningFacts) -> PinningInput:
    return PinningInput(
        decisions=facts.decisions,
        one_way=len(facts.one_way),
        measured=facts.measured,
        survivors=len(facts.survivors),
        unrun=facts.mutants_unrun,
        asserts_needed=len(facts.asserts_needed),
    )


def decide(
    facts: PinningFacts, inputs: PinningInput, table: Sequence[policy.Row] = policy.PINNING_TABLE
) -> PinningGate:
    row = policy.first_row(table, inputs)
    detail = row.when
    if row.id == "unpinned":
        detail = "; ".join(
            f"{m.file}:{m.line}: {m.description}, and every test passed"
            for m in facts.survivors[:SHOWN]
        )
        if len(facts.survivors) > SHOWN:
            detail += f" (+{len(facts.survivors) - SHOWN} more)"
        if facts.one_way:
            detail += "; one way only: " + describe(facts.one_way[0])
    elif row.id == "needs-asserts":
        detail = "; ".join(
            f"{m.file}:{m.line}: {m.description}, and a failing test failed"
            for m in facts.asserts_needed[:SHOWN]
        )
    elif row.id == "one-way-branch":
        detail = "; ".join(describe(d) for d in facts.one_way[:SHOWN])
        if len(facts.one_way) > SHOWN:
            detail += f" (+{len(facts.one_way) - SHOWN} more)"
    elif row.id == "partly-pinned":
        detail = f"{facts.mutants_skipped}: the tests' hold on those lines is not known"
    elif row.id == "not-measured" and facts.why_not:
        detail = facts.why_not
    return PinningGate(status=row.status, row=row.id, effect=row.effect, detail=detail, facts=facts)


def describe(decision: Decision) -> str:
    """`file:line: `text` was always true (never false)`, or for C++ the outcomes never taken."""
    place = f"{decision.file}:{decision.line}: `{decision.text}`"
    if decision.went in (["true"], ["false"]):
        return f"{place} was {decision.went[0]} every time the tests reached it"
    if decision.never == [THREW]:
        return f"{place}: its block threw in no test (its handler never ran)"
    return f"{place}: {len(decision.never)} of {len(decision.went) + len(decision.never)} " + (
        "branch outcomes never taken by any test"
    )


def judge(
    facts: GradeFacts, rules: Policy, decided: Mapping[str, Any] | None = None
) -> PinningGate | None:
    """None when the decisions were not collected (coverage was not asked for, or a grade
    collected before this gate existed)."""
    if facts.pinning is None:
        return None
    found = pinning_facts(facts.pinning, facts.mutants, facts.skipped.get("mutants", ""))
    return decide(found, pinning_input(found), rules.table("pinning"))
