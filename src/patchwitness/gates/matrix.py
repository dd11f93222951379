"""The flag-matrix gate: does every golden agree under every envelope? Pure.

Input: the cells of the SHA (the baseline) and of the patched tree, and the resource tolerance.
A cell red at the SHA is the noise floor: it is reported with the advice to fix the subject, and
the patch is judged on transitions. A required cell the patched run lacks fails closed. Goldens
listed as `targets` (the task's failing ids, red at the SHA by design) are not noise: a target
that passes under one envelope and fails under another is the matrix's finding; so is a ctest
test red under every envelope at the SHA (a known failure of the suite, reported by drift).

A cell a sanitizer made red is judged by its findings when the patch's line map is known
(carried.py): a finding the SHA's run had already, at the same place once mapped, makes no cell
red (the cell is noise: the run stopped at the SHA's own finding), and a new one does, whatever
the cell was at the SHA.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field

from patchwitness import carried, policy
from patchwitness.facts import GradeFacts, MatrixCollected, MovedLines
from patchwitness.model import DEFERRED, Cell, MatrixFacts, MatrixGate
from patchwitness.policy import Policy

RUNTIME_RED = ("run_fail", "sanitizer", "digest_mismatch", "timeout")
FIX_THE_SUBJECT = (
    "cells red at the SHA are the noise floor: the matrix is grading the subject, not the "
    "patch; fix the subject (or the manifest) before scoring patches"
)


# The one cell a CMake envelope leaves when it never built and no test is known.
BUILD_CELL = "(build)"
# The note of every cell of a CMake envelope whose build failed.
NOT_BUILT = "the project did not build under this envelope"
COMPILE_RED = ("compile_fail", "werror_fail")


def cell_id(golden: str, envelope: str) -> str:
    """`tests/golden/golden_ring.cpp@rel`: one (golden, envelope) cell."""
    return f"{golden}@{envelope}"


class Resources(BaseModel):
    """A cell's run is a resource finding when it exceeds the baseline's by both the ratio and
    the absolute margin: a ratio alone flags a 3 MB golden growing to 7 MB. The manifest's
    `resources` section holds these."""

    model_config = DEFERRED

    rss_ratio: float = Field(default=2.0, ge=1.0)
    rss_mb: float = Field(default=64.0, ge=0.0)
    cpu_ratio: float = Field(default=2.0, ge=1.0)
    cpu_s: float = Field(default=1.0, ge=0.0)


@dataclass(frozen=True)
class MatrixInput:
    cells: int = 0
    missing: int = 0
    debug_release: int = 0
    sanitizer_only: int = 0
    user_only: int = 0
    werror_only: int = 0
    digest_changed: int = 0
    regressed: int = 0
    resources: int = 0
    optional_red: int = 0
    noise: int = 0
    targets_red: int = 0


def _red(cell: Cell | None) -> bool:
    return cell is not None and cell.status != "pass"


def _not_built(cell: Cell | None) -> bool:
    return cell is not None and (
        cell.status in COMPILE_RED or (cell.status == "timeout" and cell.note == NOT_BUILT)
    )


def envelope_never_built(at_sha: dict[str, Cell], cell: Cell, sha_cells: list[Cell]) -> bool:
    """The cell's envelope did not build this golden at the SHA while another required envelope
    did, and it still does not: the envelope's own failure (a project that needs its own
    dialect, a user's default options the project does not build with), which no patch can be
    judged on. A golden that builds nowhere at the SHA (a test of code the fix must add) is not
    this: it is owed a build wherever it builds after the patch."""
    if not (_not_built(cell) and _not_built(_baseline_cell(at_sha, cell))):
        return False
    return any(
        c.required and c.envelope != cell.envelope and c.golden == cell.golden and not _not_built(c)
        for c in sha_cells
    )


def _baseline_cell(baseline: dict[str, Cell], cell: Cell) -> Cell | None:
    # A CMake envelope that never built at the SHA left one (build) cell for all its tests.
    return baseline.get(cell_id(cell.golden, cell.envelope)) or baseline.get(
        cell_id(BUILD_CELL, cell.envelope)
    )


def known_red(baseline: list[Cell] | None) -> set[str]:
    """CMake-mode tests red under every required envelope at the SHA: the suite's known
    failures, which the drift gate reports, not envelope noise. Like targets, they are judged
    on agreement: green under one envelope after the patch means green under all."""
    groups = _by_golden(c for c in baseline or [] if c.mode == "cmake" and c.required)
    return {g for g, cells in groups.items() if cells and all(_red(c) for c in cells)}


def with_missing(patched: list[Cell], baseline: list[Cell] | None) -> list[Cell]:
    """Every baseline cell the patched run did not produce, as a missing cell (fail closed)."""
    have = {cell_id(c.golden, c.envelope) for c in patched}
    out = list(patched)
    for cell in baseline or []:
        if cell.golden == BUILD_CELL or cell_id(cell.golden, cell.envelope) in have:
            continue
        out.append(
            Cell(
                patch=patched[0].patch if patched else "patched",
                golden=cell.golden,
                envelope=cell.envelope,
                status="missing",
                required=cell.required,
                envelope_kind=cell.envelope_kind,
                cxxflags=cell.cxxflags,
                mode=cell.mode,
                baseline_status=cell.status,
                note="the patched run did not produce this cell",
            )
        )
    return out


def new_red(
    cells: list[Cell],
    baseline: list[Cell] | None,
    targets: set[str],
    findings: carried.AtSha | None = None,
) -> list[Cell]:
    """Red cells the patch is answerable for. Without a baseline every red cell counts. With the
    SHA's `findings`, a sanitizer's cell counts exactly when one of its findings is new."""
    if baseline is None:
        return [c for c in cells if _red(c)]
    at_sha = {cell_id(c.golden, c.envelope): c for c in baseline}
    passing = {c.golden for c in cells if c.status == "pass" and c.required}
    out = []
    for cell in cells:
        if not _red(cell):
            continue
        new_finding = findings.judge(cell) if findings is not None else None
        if new_finding is not None:
            if new_finding:
                out.append(cell)
            continue
        before = _baseline_cell(at_sha, cell)
        if envelope_never_built(at_sha, cell, baseline):
            continue
        if cell.golden in targets:
            # Red at the SHA by design; the patch owes it green wherever it is green anywhere.
            if cell.golden in passing:
                out.append(cell)
        elif before is None or before.status == "pass":
            out.append(cell)
    return out


def noise(
    cells: list[Cell],
    baseline: list[Cell] | None,
    targets: set[str],
    findings: carried.AtSha | None = None,
) -> list[Cell]:
    """Required cells red at the SHA and still red, and cells red only by the SHA's own
    sanitizer findings (targets too: the run stopped at a finding it had before the patch): what
    the patch cannot be judged on."""
    if baseline is None:
        return []
    at_sha = {cell_id(c.golden, c.envelope): c for c in baseline}
    out = []
    for cell in cells:
        if not (cell.required and _red(cell)):
            continue
        new_finding = findings.judge(cell) if findings is not None else None
        before = _baseline_cell(at_sha, cell)
        if new_finding is False or (
            new_finding is None
            and (cell.golden not in targets or envelope_never_built(at_sha, cell, baseline))
            and _red(before)
        ):
            out.append(cell)
    return out


def carried_findings(cells: list[Cell], findings: carried.AtSha | None) -> list[str]:
    """Each finding of a red cell that the SHA had already, named with its place after the
    patch: `golden@ubsan2: KIND at PATH:LINE`."""
    if findings is None:
        return []
    out = []
    for cell in cells:
        for found in cell.sanitizer_findings:
            if _red(cell) and findings.had(found):
                text = (
                    f"{cell_id(cell.golden, cell.envelope)}: {found.get('kind', '')} at "
                    f"{found.get('location') or '?'}"
                )
                if text not in out:
                    out.append(text)
    return out


def _by_golden(cells: Iterable[Cell]) -> dict[str, list[Cell]]:
    out: dict[str, list[Cell]] = {}
    for cell in cells:
        out.setdefault(cell.golden, []).append(cell)
    return out


def red_everywhere(cells: list[Cell], targets: set[str]) -> list[str]:
    """Targets (the task's failing tests) red under every required envelope after the patch.
    `new_red` does not count them (a target is owed green only where it is green somewhere),
    so without this the matrix would call all-green a run in which it never saw the fix work."""
    groups = _by_golden(c for c in cells if c.required and c.golden in targets)
    return [g for g, group in groups.items() if group and all(_red(c) for c in group)]


def debug_release_goldens(cells: list[Cell], red: list[Cell]) -> list[str]:
    """Goldens green under a required debug envelope and newly red at run time under a release
    one: the seed's 'debug passes, release fails'."""
    out = []
    for golden, group in _by_golden(cells).items():
        debug_green = any(
            c.required and c.envelope_kind == "debug" and c.status == "pass" for c in group
        )
        release_red = any(
            c.golden == golden and c.envelope_kind == "release" and c.status in RUNTIME_RED
            for c in red
        )
        if debug_green and release_red:
            out.append(golden)
    return out


def user_only_goldens(cells: list[Cell], red: list[Cell]) -> list[str]:
    """Goldens green under every required envelope of the tests' own build and newly red under
    a user's default build (the compiler's dialect, no build type)."""
    out = []
    for golden, group in _by_golden(cells).items():
        theirs = [c for c in group if c.required and c.envelope_kind != "user"]
        user_red = any(c.golden == golden and c.envelope_kind == "user" for c in red)
        if theirs and all(c.status == "pass" for c in theirs) and user_red:
            out.append(golden)
    return out


def sanitizer_only_goldens(cells: list[Cell], red: list[Cell]) -> list[str]:
    out = []
    for golden, group in _by_golden(cells).items():
        plain = [c for c in group if c.required and c.envelope_kind != "sanitizer"]
        sanitizer_red = any(c.golden == golden and c.envelope_kind == "sanitizer" for c in red)
        if plain and all(c.status == "pass" for c in plain) and sanitizer_red:
            out.append(golden)
    return out


def resource_findings(
    cells: list[Cell], baseline: list[Cell] | None, tolerance: Resources
) -> list[str]:
    """Peak RSS and CPU of each clean required cell against the same cell at the SHA. Both the
    ratio and the absolute margin must be exceeded."""
    if baseline is None:
        return []
    at_sha = {cell_id(c.golden, c.envelope): c for c in baseline}
    out = []
    for cell in cells:
        before = at_sha.get(cell_id(cell.golden, cell.envelope))
        if not cell.required or before is None or cell.status != "pass":
            continue
        if before.status != "pass":
            continue  # a red run at the SHA measured something else
        name = cell_id(cell.golden, cell.envelope)
        if before.peak_rss_kb > 0 and cell.peak_rss_kb > 0:
            grew = cell.peak_rss_kb - before.peak_rss_kb
            if (
                cell.peak_rss_kb > tolerance.rss_ratio * before.peak_rss_kb
                and grew > tolerance.rss_mb * 1024
            ):
                out.append(
                    f"{name}: peak RSS {cell.peak_rss_kb // 1024} MB vs "
                    f"{before.peak_rss_kb // 1024} MB at the SHA (tolerance "
                    f"{tolerance.rss_ratio:g}x and {tolerance.rss_mb:g} MB)"
                )
        if cell.mode != "cmake" and (
            cell.cpu_s > tolerance.cpu_ratio * before.cpu_s
            and cell.cpu_s - before.cpu_s > tolerance.cpu_s
        ):
            out.append(
                f"{name}: CPU {cell.cpu_s:.2f} s vs {before.cpu_s:.2f} s at the SHA "
                f"(tolerance {tolerance.cpu_ratio:g}x and {tolerance.cpu_s:g} s)"
            )
    return out


def transitions(cells: list[Cell], baseline: list[Cell] | None) -> list[str]:
    if baseline is None:
        return []
    at_sha = {cell_id(c.golden, c.envelope): c for c in baseline}
    out = []
    for cell in cells:
        before = _baseline_cell(at_sha, cell)
        was = before.status if before is not None else "absent"
        if was != cell.status:
            out.append(f"{cell_id(cell.golden, cell.envelope)}: {was} -> {cell.status}")
    return out


def _names(cells: Iterable[Cell], limit: int = 6) -> str:
    items = [f"{cell_id(c.golden, c.envelope)} {c.status}" for c in cells]
    more = f" (+{len(items) - limit} more)" if len(items) > limit else ""
    return ", ".join(items[:limit]) + more


def _findings(cells: Iterable[Cell]) -> str:
    seen = []
    for cell in cells:
        for f in cell.sanitizer_findings:
            text = f"{cell.envelope}: {f.get('kind', '')} at {f.get('location', '?')}"
            if text not in seen:
                seen.append(text)
    return ("; sanitizer: " + "; ".join(seen[:3])) if seen else ""


def detail(
    row: policy.Row,
    facts: MatrixFacts,
    cells: list[Cell],
    red: list[Cell],
    floor: list[Cell],
    targets: set[str] = frozenset(),
) -> str:
    required_red = [c for c in red if c.required]
    if row.id == "cell-missing":
        return "fail closed, missing: " + ", ".join(facts.missing[:6])
    if row.id == "debug-green-release-red":
        goldens = debug_release_goldens(cells, required_red)
        group = [c for c in cells if c.golden in goldens]
        red_here = [c for c in required_red if c.golden in goldens]
        return (
            f"debug passes, release fails ({_names(red_here)}): UB or an NDEBUG-dependent "
            "assert; read the sanitizer traces before retrying" + _findings(group)
        )
    if row.id == "sanitizer-only":
        goldens = sanitizer_only_goldens(cells, required_red)
        group = [c for c in required_red if c.golden in goldens]
        return (
            f"debug and release pass, a sanitizer fails ({_names(group)}): the goldens ran a "
            "bug the optimizer has not exploited yet" + _findings(group)
        )
    if row.id == "user-build-red":
        goldens = user_only_goldens(cells, required_red)
        group = [c for c in required_red if c.golden in goldens]
        return (
            f"the tests' build passes and a user's default build fails ({_names(group)}): the "
            "fix holds only in the dialect or build type the tests use" + _findings(group)
        )
    if row.id == "werror-only":
        group = [c for c in required_red if c.status == "werror_fail"]
        return f"fails only under warnings-as-errors ({_names(group)}): a spec violation"
    if row.id == "digest-changed":
        group = [c for c in required_red if c.status == "digest_mismatch"]
        return f"digest changed ({_names(group)}): exit 0 is not an I/O contract"
    if row.id == "regressed":
        return f"green at the SHA, red after the patch: {_names(required_red)}"
    if row.id == "resources":
        return "resource envelope: " + "; ".join(facts.resource_findings[:3])
    if row.id == "target-red-everywhere":
        goldens = red_everywhere(cells, targets)
        group = [c for c in cells if c.required and c.golden in goldens]
        return (
            f"the tests the patch must fix pass under no envelope ({_names(group)}): the plain "
            "run's green is not confirmed; read the envelopes' output" + _findings(group)
        )
    if row.id == "optional-red":
        return "optional envelopes only: " + ", ".join(facts.optional_red[:6])
    if row.id == "baseline-red":
        known = f"; the SHA's own sanitizer findings: {facts.carried[0]}" if facts.carried else ""
        return f"red at the SHA and after the patch: {_names(floor)}{known}; {FIX_THE_SUBJECT}"
    if row.id == "all-green":
        required = [c for c in cells if c.required]
        green = sum(1 for c in required if c.status == "pass")
        if green == len(required):
            return f"all {green} required cell(s) pass"
        # Red cells that are no transition: a test red at the SHA and still red (drift's
        # business), agreeing under every envelope.
        return (
            f"{green} of {len(required)} required cell(s) pass; the others are red at the SHA "
            "as well and agree under every envelope (drift judges those tests)"
        )
    return row.when


def decide(
    patched: list[Cell],
    baseline: list[Cell] | None,
    tolerance: Resources | None = None,
    *,
    targets: Iterable[str] = (),
    table: Sequence[policy.Row] = policy.MATRIX_TABLE,
    moved: Mapping[str, MovedLines] | None = None,
) -> MatrixGate:
    """Judge the patched cells against the SHA's and pick the first matching table row. `moved`:
    the patch's line map (None: not known, a sanitizer's cell is judged by its status)."""
    tolerance = tolerance or Resources()
    goals = set(targets) | known_red(baseline)
    cells = with_missing(patched, baseline)
    findings = (
        carried.at_sha(baseline, moved) if baseline is not None and moved is not None else None
    )
    red = new_red(cells, baseline, goals, findings)
    required_red = [c for c in red if c.required]
    floor = noise(cells, baseline, goals, findings)
    facts = MatrixFacts(
        cells=cells,
        baseline=list(baseline or []),
        baseline_red=[
            cell_id(c.golden, c.envelope)
            for c in baseline or []
            if c.required and _red(c) and c.golden not in goals
        ],
        transitions=transitions(cells, baseline),
        resource_findings=resource_findings(cells, baseline, tolerance),
        missing=[
            cell_id(c.golden, c.envelope) for c in cells if c.required and c.status == "missing"
        ],
        new_red=[cell_id(c.golden, c.envelope) for c in red],
        optional_red=[cell_id(c.golden, c.envelope) for c in red if not c.required],
        carried=carried_findings(cells, findings),
        tolerance=tolerance.model_dump(),
    )
    if facts.baseline_red:
        facts.advice.append(FIX_THE_SUBJECT)
    inputs = MatrixInput(
        cells=len(cells),
        missing=len(facts.missing),
        debug_release=len(debug_release_goldens(cells, required_red)),
        sanitizer_only=len(sanitizer_only_goldens(cells, required_red)),
        user_only=len(user_only_goldens(cells, required_red)),
        werror_only=sum(1 for c in required_red if c.status == "werror_fail"),
        digest_changed=sum(1 for c in required_red if c.status == "digest_mismatch"),
        regressed=len(required_red),
        resources=len(facts.resource_findings),
        optional_red=len(facts.optional_red),
        noise=len(floor),
        targets_red=len(red_everywhere(cells, set(targets))),
    )
    row = policy.first_row(table, inputs)
    return MatrixGate(
        status=row.status,
        row=row.id,
        effect=row.effect,
        detail=detail(row, facts, cells, red, floor, set(targets)),
        facts=facts,
    )


def judge_collected(collected: MatrixCollected, rules: Policy) -> MatrixGate:
    gate = decide(
        [c.model_copy() for c in collected.cells],
        [c.model_copy() for c in collected.baseline],
        Resources.model_validate(collected.resources),
        targets=collected.targets,
        table=rules.table("matrix"),
        moved=collected.moved,
    )
    gate.facts.mode = collected.mode
    gate.facts.manifest_sha256 = collected.manifest_sha256
    gate.facts.envelopes = dict(collected.envelopes)
    gate.facts.werror_exceptions = dict(collected.werror_exceptions)
    return gate


def judge(
    facts: GradeFacts, rules: Policy, decided: Mapping[str, Any] | None = None
) -> MatrixGate | None:
    """None when the grade ran no flag matrix (a Python task, a matrix skipped or turned off)."""
    return judge_collected(facts.matrix, rules) if facts.matrix is not None else None
