"""What a gate is to the judge and to every report. Pure.

A gate's module (`gates/NAME.py`) holds its pure `judge(facts, rules, decided)`: it reads the
facts of one grade (`GradeFacts`), decides by the gate's decision table as the policy `rules`
holds it, and returns the gate's own model (status, row, effect, detail and facts), or None when
the gate has nothing to judge (no coverage was collected, the task has no flag matrix).
`decided` holds what the gates before it answered, in the registry's order, for a gate that
builds on another's facts (special-casing reads the hidden tests' facts that drift derived).

The declaration here is what the judge and the reports need without loading the gate: its
default table, its row of the final table (when it rejects, the label then, and how early that
row stands), and whether it is cheap: a cheap gate is judged on the facts gathered so far before
collect spends a flag matrix or a pristine run that could not change the verdict.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from patchwitness.facts import GradeFacts
    from patchwitness.model import Label
    from patchwitness.policy import FinalInput, Policy, Row


@dataclass(frozen=True)
class Gate:
    name: str
    table: list[Row]  # the default decision table; a policy may hold another
    rejects_when: str  # the final table's row for "this gate rejects", in words
    label_doc: str  # the label that row gives, in words
    label: Callable[[FinalInput], Label]
    # Orders the gates' rows in the final table (lower first): a gate whose rejection says
    # more about the patch stands earlier.
    precedence: int
    cheap: bool = True

    def judge(self, facts: GradeFacts, rules: Policy, decided: Mapping[str, Any]) -> Any:
        module = importlib.import_module(f"patchwitness.gates.{self.name}")
        return module.judge(facts, rules, decided)
