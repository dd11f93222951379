"""The census gate: inventory diff plus goldens, through the census table. Pure.

`census_facts` turns the census's diff of two inventories into the facts collect stores: what was
removed and added, never what it means; `judge` reads their meaning (`census/meaning.py`) and
`decide` applies the table to it, so a stored grade is judged, and read, again."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from patchwitness import policy
from patchwitness.census import meaning
from patchwitness.census.items import CensusDiff, is_test, kind_of
from patchwitness.facts import GradeFacts
from patchwitness.gates import drift
from patchwitness.model import CensusFacts, CensusGate
from patchwitness.policy import Policy


@dataclass(frozen=True)
class CensusInput:
    allow_test_edits: bool = False
    unreadable: int = 0
    redefinitions: int = 0
    removed_tests: int = 0
    removed_asserts: int = 0
    disabled: int = 0
    infra_edits: int = 0
    goldens_red: bool = False
    allowlisted: int = 0
    added: int = 0
    failing_lost: int = 0


def census_input(
    diff: CensusFacts, allow_test_edits: bool, goldens_red: bool, failing_lost: int = 0
) -> CensusInput:
    removed_tests = sum(1 for k in diff.unexpected_removals if is_test(kind_of(k)))
    return CensusInput(
        allow_test_edits=allow_test_edits,
        unreadable=len(diff.unreadable),
        redefinitions=len(diff.macro_redefinitions),
        removed_tests=removed_tests,
        removed_asserts=len(diff.unexpected_removals) - removed_tests,
        disabled=len(diff.disabled),
        infra_edits=len(diff.infra_edits),
        goldens_red=goldens_red,
        allowlisted=len(diff.allowlisted_removals),
        added=len(diff.added),
        failing_lost=failing_lost,
    )


def census_facts(diff: CensusDiff, artifacts: dict[str, str] | None = None) -> CensusFacts:
    """What the census saw of the patch; what it means is read when the grade is judged."""
    return CensusFacts(
        before=diff.before,
        after=diff.after,
        before_assertions=diff.before_assertions,
        after_assertions=diff.after_assertions,
        removed=diff.removed,
        added=diff.added,
        infra_edits=diff.infra_edits,
        unreadable=diff.unreadable,
        test_files_changed=diff.test_files_changed,
        artifacts=artifacts or {},
    )


def decide(
    facts: CensusFacts,
    inputs: CensusInput,
    table: Sequence[policy.Row] = policy.CENSUS_TABLE,
) -> CensusGate:
    row = policy.first_row(table, inputs)
    detail = row.when
    if row.id in ("witness-deleted", "closed-failure"):
        detail = "removed: " + ", ".join(facts.unexpected_removals[:5])
    elif row.id == "machinery-redefined":
        detail = "redefined: " + ", ".join(facts.macro_redefinitions[:5])
    elif row.id == "witness-disabled":
        detail = "disabled: " + ", ".join(facts.disabled[:5])
    elif row.id == "infra-edited":
        detail = "infrastructure edited: " + ", ".join(facts.infra_edits[:5])
    elif row.id == "unreadable":
        detail = "cannot read: " + ", ".join(facts.unreadable[:5])
    return CensusGate(status=row.status, row=row.id, effect=row.effect, detail=detail, facts=facts)


def judge(facts: GradeFacts, rules: Policy, decided: Mapping[str, Any] | None = None) -> CensusGate:
    assert facts.after is not None
    lost = drift.failing_lost(facts.after.outcomes, facts.task.failing)
    # A regression is a test that passed at the SHA and fails now; a failing test the patch
    # did not fix is drift's business (no-op), not a regression.
    regressed = drift.goldens_red(
        facts.baseline.outcomes, facts.after.outcomes, [], set(facts.baseline.flaky)
    )
    census = meaning.read(facts.census, facts.task.allowlist)
    inputs = census_input(census, facts.task.allow_test_edits, regressed, len(lost))
    return decide(census, inputs, rules.table("census"))
