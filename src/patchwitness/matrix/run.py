"""Running the whole matrix over one tree: the SHA's first (the baseline), then the patch's.

Cells run in parallel up to the core count (threads; each cell is a compile and a run through the
runner, which waits on child processes and so releases the GIL). In goldens mode every cell is
independent; in CMake mode each envelope is one configure + build + ctest.

The reference digest of a golden is its fixture (an expected-output file beside it, read at the
SHA, never from a patched tree); without one, it is the digest most of the SHA's passing cells
agree on, and a patched cell is held to that same digest.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

from patchwitness.errors import InvalidTask
from patchwitness.matrix import cache as cache_mod
from patchwitness.matrix import tools as tools_mod
from patchwitness.matrix.cells import CellSpec, cell_id, probe, run_cell, settle
from patchwitness.matrix.cmake import Tally, cmake_cells
from patchwitness.matrix.manifest import Matrix, load
from patchwitness.matrix.tools import Tools
from patchwitness.model import Cell
from patchwitness.runner import UNCONFINED, Runner
from patchwitness.task import Task
from patchwitness.workspace import show_at

BASELINE = "baseline"


def default_workers() -> int:
    return os.cpu_count() or 1


def cell_specs(matrix: Matrix) -> list[CellSpec]:
    return [CellSpec(matrix, g, e) for g in matrix.goldens for e in matrix.envelopes]


def probe_envelopes(
    matrix: Matrix, workers: int, runner: Runner = UNCONFINED, base: Path | None = None
) -> dict[str, str | None]:
    """Which envelopes this toolchain can build and run (None) and why not (a reason)."""
    base = base or cache_mod.root()
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        reasons = pool.map(lambda e: probe(matrix, e, base, runner), matrix.envelopes)
        return {e.name: why for e, why in zip(matrix.envelopes, reasons, strict=True)}


# --- reference digests --------------------------------------------------------------------------


def fixture_digests(task: Task | None, matrix: Matrix) -> dict[str, tuple[str, str]]:
    """golden -> (sha256, "fixture:PATH") for goldens with an expected-output file at the SHA."""
    out: dict[str, tuple[str, str]] = {}
    if task is None:
        return out
    for golden in matrix.goldens:
        data = show_at(task.repo, task.sha, golden.fixture)
        if data is None:
            if golden.expected:
                raise InvalidTask(f"expected-output file {golden.expected} is not at the SHA")
            continue
        out[golden.source] = (hashlib.sha256(data).hexdigest(), f"fixture:{golden.fixture}")
    return out


def agreed_digest(cells: list[Cell]) -> str | None:
    """The stdout digest most clean runs agree on; ties go to the earlier envelope."""
    clean = [c.stdout_sha256 for c in cells if c.status == "pass" and c.stdout_sha256]
    if not clean:
        return None
    counts = Counter(clean)
    best = max(counts.values())
    return next(d for d in clean if counts[d] == best)


def settle_digests(
    cells: list[Cell],
    fixtures: dict[str, tuple[str, str]],
    baseline: list[Cell] | None,
) -> list[Cell]:
    by_golden: dict[str, list[Cell]] = {}
    for cell in cells:
        by_golden.setdefault(cell.golden, []).append(cell)
    for golden, group in by_golden.items():
        expected, source = _reference(golden, group, fixtures, baseline)
        for cell in group:
            settle(cell, expected, source)
    return cells


def _reference(
    golden: str,
    group: list[Cell],
    fixtures: dict[str, tuple[str, str]],
    baseline: list[Cell] | None,
) -> tuple[str | None, str]:
    if golden in fixtures:
        return fixtures[golden]
    for cell in baseline or []:
        if cell.golden == golden and cell.expected_sha256:
            return cell.expected_sha256, "baseline"
    return agreed_digest(group), "envelopes"


def mark_baseline(cells: list[Cell], baseline: list[Cell] | None) -> list[Cell]:
    if baseline is None:
        return cells
    at_sha = {cell_id(c.golden, c.envelope): c.status for c in baseline}
    for cell in cells:
        cell.baseline_status = at_sha.get(cell_id(cell.golden, cell.envelope))
    return cells


# --- the two entry points ---------------------------------------------------------------------


def goldens_cells(
    matrix: Matrix,
    tree: Path,
    scratch: Path,
    *,
    patch: str,
    fixtures: dict[str, tuple[str, str]],
    baseline: list[Cell] | None,
    tools: Tools = tools_mod.DEFAULT,
) -> list[Cell]:
    """Goldens mode over one tree, settled against fixtures or the baseline's digests."""
    workers = tools.workers or default_workers()
    cache = tools.compiles or cache_mod.CompileCache()
    runner = tools.runner
    tree, scratch = tree.resolve(), scratch.resolve()
    unavailable = probe_envelopes(matrix, workers, runner, cache.base)
    done = Tally(len(matrix.goldens) * len(matrix.envelopes), "cells", tools.progress)

    def one(spec: CellSpec) -> Cell:
        why = unavailable.get(spec.envelope.name)
        cell = run_cell(
            spec, tree, scratch, cache=cache, patch=patch, unavailable=why, runner=runner
        )
        done.one()
        return cell

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        cells = list(pool.map(one, cell_specs(matrix)))
    return mark_baseline(settle_digests(cells, fixtures, baseline), baseline)


def matrix_cells(
    task: Task,
    tree: Path,
    scratch: Path,
    matrix: Matrix | None = None,
    *,
    patch: str,
    baseline: list[Cell] | None,
    tools: Tools = tools_mod.DEFAULT,
) -> list[Cell]:
    """Every cell of the task's matrix over `tree`; `tools.progress` hears "k of n" as cells
    (envelopes, in CMake mode) finish."""
    matrix = matrix or load(task)
    workers = tools.workers or default_workers()
    scratch.mkdir(parents=True, exist_ok=True)
    if matrix.mode == "cmake":
        base = tools.compiles.base if tools.compiles is not None else None
        unavailable = probe_envelopes(matrix, workers, tools.runner, base)
        cells = cmake_cells(
            task,
            matrix,
            tree,
            scratch,
            patch=patch,
            baseline=baseline,
            tools=replace(tools, workers=workers),
            unavailable=unavailable,
        )
        return mark_baseline(cells, baseline)
    fixtures = fixture_digests(task, matrix)
    return goldens_cells(
        matrix, tree, scratch, patch=patch, fixtures=fixtures, baseline=baseline, tools=tools
    )


def baseline_cells(
    task: Task,
    tree: Path,
    scratch: Path,
    matrix: Matrix | None = None,
    tools: Tools = tools_mod.DEFAULT,
) -> list[Cell]:
    """The matrix over the unpatched SHA (`tree` must be a checkout of it): the noise floor."""
    return matrix_cells(task, tree, scratch, matrix, patch=BASELINE, baseline=None, tools=tools)


def patched_cells(
    task: Task,
    tree: Path,
    scratch: Path,
    baseline: list[Cell] | None,
    matrix: Matrix | None = None,
    *,
    patch: str = "patched",
    tools: Tools = tools_mod.DEFAULT,
) -> list[Cell]:
    """The matrix over the patched tree, held to the baseline's digests and marked with each
    cell's status at the SHA."""
    return matrix_cells(task, tree, scratch, matrix, patch=patch, baseline=baseline, tools=tools)
