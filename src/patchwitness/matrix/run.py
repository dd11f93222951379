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
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from patchwitness.environment import Environment
from patchwitness.errors import InvalidTask
from patchwitness.matrix import cache as cache_mod
from patchwitness.matrix.cells import CellSpec, cell_id, probe, run_cell, settle
from patchwitness.matrix.cmake import Tally, cmake_cells
from patchwitness.matrix.manifest import Matrix, load
from patchwitness.model import Cell
from patchwitness.runner import UNCONFINED, Runner
from patchwitness.task import Task
from patchwitness.workspace import files_at, show_at

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


def cmake_fixture_finder(task: Task):
    """For CMake mode: `<test>.expected` anywhere in the tree at the SHA, when exactly one."""

    def find(tests: list[str]) -> dict[str, tuple[str, str]]:
        by_name: dict[str, list[str]] = {}
        for path in files_at(task.repo, task.sha):
            if path.endswith(".expected"):
                by_name.setdefault(path.rsplit("/", 1)[-1][: -len(".expected")], []).append(path)
        out = {}
        for test in tests:
            paths = by_name.get(test, [])
            if len(paths) == 1:
                data = show_at(task.repo, task.sha, paths[0]) or b""
                out[test] = (hashlib.sha256(data).hexdigest(), f"fixture:{paths[0]}")
        return out

    return find


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
    workers: int | None = None,
    cache: cache_mod.CompileCache | None = None,
    runner: Runner = UNCONFINED,
    done: Tally | None = None,
) -> list[Cell]:
    """Goldens mode over one tree, settled against fixtures or the baseline's digests."""
    workers = workers or default_workers()
    cache = cache or cache_mod.CompileCache()
    tree, scratch = tree.resolve(), scratch.resolve()
    unavailable = probe_envelopes(matrix, workers, runner, cache.base)

    def one(spec: CellSpec) -> Cell:
        why = unavailable.get(spec.envelope.name)
        cell = run_cell(
            spec, tree, scratch, cache=cache, patch=patch, unavailable=why, runner=runner
        )
        if done is not None:
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
    workers: int | None = None,
    cache: cache_mod.CompileCache | None = None,
    runner: Runner = UNCONFINED,
    env: Environment | None = None,
    slot=None,
    progress: Callable[[str], None] | None = None,
) -> list[Cell]:
    matrix = matrix or load(task)
    workers = workers or default_workers()
    scratch.mkdir(parents=True, exist_ok=True)
    if matrix.mode == "cmake":
        base = cache.base if cache is not None else None
        cells = cmake_cells(
            task,
            matrix,
            tree,
            scratch,
            patch=patch,
            baseline=baseline,
            workers=workers,
            unavailable=probe_envelopes(matrix, workers, runner, base),
            fixtures=cmake_fixture_finder(task),
            runner=runner,
            env=env,
            slot=slot,
            done=Tally(len(matrix.envelopes), "envelopes", progress),
        )
        return mark_baseline(cells, baseline)
    return goldens_cells(
        matrix,
        tree,
        scratch,
        patch=patch,
        fixtures=fixture_digests(task, matrix),
        baseline=baseline,
        workers=workers,
        cache=cache,
        runner=runner,
        done=Tally(len(matrix.goldens) * len(matrix.envelopes), "cells", progress),
    )


def baseline_cells(
    task: Task,
    tree: Path,
    scratch: Path,
    matrix: Matrix | None = None,
    *,
    workers: int | None = None,
    cache: cache_mod.CompileCache | None = None,
    runner: Runner = UNCONFINED,
    env: Environment | None = None,
) -> list[Cell]:
    """The matrix over the unpatched SHA (`tree` must be a checkout of it): the noise floor."""
    return matrix_cells(
        task,
        tree,
        scratch,
        matrix,
        patch=BASELINE,
        baseline=None,
        workers=workers,
        cache=cache,
        runner=runner,
        env=env,
    )


def patched_cells(
    task: Task,
    tree: Path,
    scratch: Path,
    baseline: list[Cell] | None,
    matrix: Matrix | None = None,
    *,
    patch: str = "patched",
    workers: int | None = None,
    cache: cache_mod.CompileCache | None = None,
    runner: Runner = UNCONFINED,
    env: Environment | None = None,
    slot=None,
    progress: Callable[[str], None] | None = None,
) -> list[Cell]:
    """The matrix over the patched tree, held to the baseline's digests and marked with each
    cell's status at the SHA. `progress` hears "k of n" as cells (envelopes) finish."""
    return matrix_cells(
        task,
        tree,
        scratch,
        matrix,
        patch=patch,
        baseline=baseline,
        workers=workers,
        cache=cache,
        runner=runner,
        env=env,
        slot=slot,
        progress=progress,
    )
