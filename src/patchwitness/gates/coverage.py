"""The coverage gate: did the existing tests execute every patched executable line? Pure.

The hit readers (hits/python.py, hits/gcovr.py) turn a run into `FileLines` per repository-relative
path; hits/hunk.py records what they show of each line of the hunk (C++ lines without data of
their own through linemap.py); `score` turns that into counts here, at judging time, so a stored
grade is scored again by the code that judges it; `decide` applies the table. Paths are matched
exactly, never by basename.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from patchwitness import policy
from patchwitness.facts import FileLines, FileSeen, GradeFacts, LineSeen
from patchwitness.gates import drift
from patchwitness.hits.hunk import observe
from patchwitness.model import CoverageFacts, CoverageGate
from patchwitness.patch import FileChange
from patchwitness.policy import Policy

ZERO_HIT_LIMIT = 50


@dataclass(frozen=True)
class CoverageInput:
    touches_source: bool = True
    measurable: bool = True
    goldens_red: bool = False
    data_found: bool = True
    scored: int = 0
    zero_hits: int = 0
    unscored: int = 0


def in_hunk(seen: LineSeen) -> bool:
    """A line the gate scores: an added line that is code or that the tool lists, and the
    executable lines around a hole."""
    return seen.hole or seen.hits is not None or seen.code


def score_seen(files: Sequence[FileSeen]) -> CoverageFacts:
    """Score each hunk line by its own hit count, or (C++) by the line gcov reports for its
    statement or block, recorded in `mapped`. A line the data cannot speak for (no data for its
    file; a statement that produced no code) is `unscored_suspicious`."""
    facts = CoverageFacts()
    zero: list[str] = []
    for file in files:
        lines = [s for s in file.lines if in_hunk(s)]
        facts.hunk_lines[file.path] = [s.line for s in lines]
        if not file.data:
            facts.unscored_suspicious += [f"{file.path}:{s.line}" for s in lines if not s.no_code]
            continue
        for s in lines:
            where = f"{file.path}:{s.line}"
            count = s.hits
            if count is None:
                if s.suspicious or (s.by is None and not s.no_code and s.statement):
                    # Its block produced no line data, or (not mapped) a C++ statement that
                    # produced no code: an uninstantiated template or an inline never emitted.
                    facts.unscored_suspicious.append(where)
                    continue
                if s.by is None:
                    continue  # not executable: a declaration, a brace
                count = s.by_hits
                facts.mapped[where] = f"{file.path}:{s.by}"
            facts.scored_executable_lines += 1
            if count == 0:
                zero.append(where)
    facts.zero_hit_count = len(zero)
    facts.zero_hit_lines = zero[:ZERO_HIT_LIMIT]
    return facts


def score(
    changes: list[FileChange],
    data: dict[str, FileLines],
    texts: dict[str, str] | None = None,
) -> CoverageFacts:
    """`score_seen` of what `data` shows of `changes` (with C++ files' text in `texts`)."""
    return score_seen(observe(changes, data, texts))


def scored(collected_facts: CoverageFacts, seen: Sequence[FileSeen] | None) -> CoverageFacts:
    """The collected coverage facts with their lines scored from `seen`; as they are when there
    is nothing seen (an older grade, scored when it was collected)."""
    facts = collected_facts.model_copy(deep=True)
    if seen is None:
        return facts
    fresh = score_seen(seen)
    for name in SCORED_FIELDS:
        setattr(facts, name, getattr(fresh, name))
    return facts


# What `score_seen` decides, of all that `CoverageFacts` holds.
SCORED_FIELDS = (
    "hunk_lines",
    "scored_executable_lines",
    "zero_hit_lines",
    "zero_hit_count",
    "mapped",
    "unscored_suspicious",
)


def decide(
    facts: CoverageFacts,
    *,
    touches_source: bool,
    goldens_red: bool,
    data_found: bool,
    measurable: bool = True,
    table: Sequence[policy.Row] = policy.COVERAGE_TABLE,
) -> CoverageGate:
    inputs = CoverageInput(
        touches_source=touches_source,
        measurable=measurable,
        goldens_red=goldens_red,
        data_found=data_found,
        scored=facts.scored_executable_lines,
        zero_hits=facts.zero_hit_count,
        unscored=len(facts.unscored_suspicious),
    )
    row = policy.first_row(table, inputs)
    detail = row.when
    if row.id == "zero-hits":
        detail = f"{facts.zero_hit_count} patched line(s) never ran: " + ", ".join(
            facts.zero_hit_lines[:5]
        )
    elif row.id == "unscored-suspicious":
        detail = "no line data for: " + ", ".join(facts.unscored_suspicious[:5])
    elif row.id == "not-measurable" and facts.trials:
        detail = f"{row.when}: " + "; ".join(facts.trials)
    elif row.id == "all-hit":
        detail = f"all {facts.scored_executable_lines} scored patched line(s) ran"
    return CoverageGate(
        status=row.status, row=row.id, effect=row.effect, detail=detail, facts=facts
    )


def judge(
    facts: GradeFacts, rules: Policy, decided: Mapping[str, Any] | None = None
) -> CoverageGate | None:
    collected = facts.coverage
    if collected is None:
        return None
    gate = decide(
        scored(collected.facts, collected.seen),
        touches_source=collected.touches_source,
        goldens_red=drift.goldens_red_in_coverage_run(facts),
        data_found=collected.data_found,
        # A coverage tool that fails is never the patch's doing: nothing was measured.
        measurable=collected.measurable and not collected.tool_failure,
        table=rules.table("coverage"),
    )
    if gate.row == "no-data" and collected.why_no_data:
        gate.detail = collected.why_no_data
    if gate.row == "not-measurable" and collected.tool_failure:
        gate.detail = "the coverage tool failed on the patched run's data: " + (
            collected.tool_failure
        )
    return gate
