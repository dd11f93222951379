"""Judging a results database again under a policy, without running anything.

Every verdict of a bag is stored with the facts it was judged from. `rejudge` reads those facts,
judges them (the current default policy, or one a file gives), writes the new verdicts in place,
and returns what changed. It opens no workspace and starts no process: a policy can be tried on a
week of grades in seconds.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from patchwitness.judge import judge
from patchwitness.policy import DEFAULT_POLICY, Policy
from patchwitness.store import ResultsDB


@dataclass(frozen=True)
class Change:
    task: str
    agent: str
    old_label: str
    new_label: str
    old_grade: str
    new_grade: str

    def line(self) -> str:
        line = f"{self.task} / {self.agent}: {self.old_label} -> {self.new_label}"
        if self.old_grade != self.new_grade:
            line += f" ({self.old_grade} -> {self.new_grade})"
        return line


@dataclass
class Rejudged:
    judged: int = 0
    without_facts: int = 0  # verdicts stored without facts (or with facts of another version)
    changes: list[Change] | None = None


def rejudge(db_path: Path, policy: Policy = DEFAULT_POLICY, write: bool = True) -> Rejudged:
    db = ResultsDB(db_path)
    out = Rejudged(changes=[])
    try:
        for row_id, old, facts in list(db.judged()):
            if facts is None:
                out.without_facts += 1
                continue
            new = judge(facts, policy)
            # What the bag itself added beside the gates (a missing patch) stays.
            new.reasons = [r for r in old.reasons if r.gate == "bag"] + new.reasons
            out.judged += 1
            if (new.label, new.grade) != (old.label, old.grade):
                out.changes.append(
                    Change(old.task, old.agent, old.label, new.label, old.grade, new.grade)
                )
            if write:
                db.replace_verdict(row_id, new)
    finally:
        db.close()
    return out
