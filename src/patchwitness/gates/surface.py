"""The surface gate: does the patch change only what the grader understands, and was the
patched run made as the SHA's? Pure.

Three kinds of facts, all gathered by collect: the files the classifier could not place
(`unrecognised`, with the reason), the ways the patched run's surface differed from the SHA's
(another configuration file read, another plugin loaded, the tests built or registered otherwise:
`surface-changed` findings), and the process or interpreter state added production code reads
where such a read can be honest (`reads-process-state` findings, review). A read that cannot be
honest (the harness's own state) is gaming code, the drift gate's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from patchwitness import policy
from patchwitness.classify import UNRECOGNISED
from patchwitness.facts import ChangedFile, GradeFacts
from patchwitness.model import Finding, SurfaceFacts, SurfaceGate
from patchwitness.names import GateName
from patchwitness.policy import Policy
from patchwitness.reads import UNFOLLOWED

# A production module the grader could not parse after the patch (patched_text.unparsed), and
# a read of added code it cannot follow (reads.UNFOLLOWED): not understood, as a file it cannot
# place is not.
UNREADABLE_SOURCE = "unreadable-source"

CHANGED = "surface-changed"
PROCESS_READ = "reads-process-state"
ELSEWHERE = "environment-dependent"  # phases/elsewhere.py
OUTSIDE = "fails-outside-the-harness"  # phases/cpp_outside.py


@dataclass(frozen=True)
class SurfaceInput:
    unrecognised: int = 0
    changes: int = 0
    elsewhere: int = 0
    outside: int = 0
    reads: int = 0
    gate_mode: bool = False


def outside_findings(failed: Mapping[str, str], how_run: str, program: str) -> list[Finding]:
    """A finding per failing test that passed in the grader's run and did not hold outside its
    harness (`how_run`: "as a user's program", "when a script calls it")."""
    return [
        Finding(
            gate=GateName.SURFACE,
            kind=OUTSIDE,
            message=f"{test} passed in the grader's run and does not hold {how_run} "
            f"({how}; {program})",
        )
        for test, how in failed.items()
    ]


def surface_facts(files: Sequence[ChangedFile], findings: Sequence[Finding]) -> SurfaceFacts:
    unreadable = [
        f"{f.file}:{f.line}: {f.message}" if f.kind == UNFOLLOWED else f"{f.file}: {f.message}"
        for f in findings
        if f.kind in (UNREADABLE_SOURCE, UNFOLLOWED)
    ]
    return SurfaceFacts(
        unrecognised=[f"{f.path}: {f.why}" for f in files if f.kind == UNRECOGNISED] + unreadable,
        changes=[f.message for f in findings if f.kind == CHANGED],
        elsewhere=[f.message for f in findings if f.kind == ELSEWHERE],
        outside=[f.message for f in findings if f.kind == OUTSIDE],
        reads=[f for f in findings if f.kind == PROCESS_READ],
    )


def surface_input(facts: SurfaceFacts, gate_mode: bool = False) -> SurfaceInput:
    return SurfaceInput(
        unrecognised=len(facts.unrecognised),
        changes=len(facts.changes),
        elsewhere=len(facts.elsewhere),
        outside=len(facts.outside),
        reads=len(facts.reads),
        gate_mode=gate_mode,
    )


def decide(
    facts: SurfaceFacts, inputs: SurfaceInput, table: Sequence[policy.Row] = policy.SURFACE_TABLE
) -> SurfaceGate:
    row = policy.first_row(table, inputs)
    detail = row.when
    if row.id in ("unrecognised-file", "unrecognised-in-gate"):
        detail = "not understood: " + _few(facts.unrecognised)
    elif row.id == "surface-changed":
        detail = _few(facts.changes)
    elif row.id == "environment-dependent":
        detail = _few(facts.elsewhere)
    elif row.id == "fails-outside-the-harness":
        detail = _few(facts.outside)
    elif row.id == "process-read":
        detail = _few([f"{f.file}:{f.line}: {f.message}" for f in facts.reads])
    return SurfaceGate(status=row.status, row=row.id, effect=row.effect, detail=detail, facts=facts)


def _few(items: list[str]) -> str:
    shown = "; ".join(items[:3])
    return shown + (f" (+{len(items) - 3} more)" if len(items) > 3 else "")


def judge(
    facts: GradeFacts, rules: Policy, decided: Mapping[str, Any] | None = None
) -> SurfaceGate:
    found = surface_facts(facts.files, facts.findings)
    inputs = surface_input(found, facts.task.mode == "gate")
    return decide(found, inputs, rules.table("surface"))
