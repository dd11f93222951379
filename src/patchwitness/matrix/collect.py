"""The flag matrix's share of collecting a grade: the SHA's cells (cached) and the patched tree's.

    from patchwitness.matrix import collect as matrix

    if matrix.applies(task, settings.matrix):
        plan = matrix.load_plan(task)             # validates the manifest (InvalidTask)
        tools = matrix.Tools.of(settings, env)
        collected = matrix.collect(task, plan, tree, scratch, tools, patch_id=patch.sha256)

`collect` runs the SHA's matrix first (or takes `baseline=` cells the caller kept, or reuses the
ones cached under `cache/matrix/baselines`), then the patched tree's, and returns the cells with
the manifest's facts. Judging them is `gates.matrix.judge_collected` (pure); `gate` does
both, for `patchwitness matrix`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from patchwitness import atomic, history, languages, locks
from patchwitness.build_id import grader_build
from patchwitness.facts import MatrixCollected, MovedLines
from patchwitness.matrix import run
from patchwitness.matrix import tools as tools_mod
from patchwitness.matrix.cache import CACHE_VERSION, CompileCache
from patchwitness.matrix.cells import compiler_id
from patchwitness.matrix.manifest import Matrix, load
from patchwitness.matrix.tools import Tools
from patchwitness.model import Cell, MatrixGate
from patchwitness.runner import Runner
from patchwitness.suites.cpp import toolchain_versions
from patchwitness.task import Task

if TYPE_CHECKING:
    from patchwitness.patch import Patch


def applies(task: Task, wanted: bool = True) -> bool:
    """The matrix grades C++ tasks whose task.toml (and the settings: `wanted`) do not turn it
    off."""
    return wanted and languages.of(task).flag_matrix and task.options.matrix.enabled


def load_plan(task: Task, extra_envelopes: Sequence[str] = ()) -> Matrix:
    """The task's manifest, read and validated (InvalidTask on any problem)."""
    return load(task, extra_envelopes)


def moved_lines(patch: Patch) -> dict[str, MovedLines]:
    """The patch's line map, per patched path: what the gate matches the SHA's sanitizer
    findings through. A file the patch deletes has no line after it."""
    return {
        change.path: MovedLines(
            sha_path=None if change.status == "added" else change.path,
            removed=change.removed_lines,
            added=change.added_lines,
        )
        for change in patch.files
        if change.status != "removed"
    }


def dump_cells(cells: Sequence[Cell]) -> list[dict]:
    return [c.model_dump(mode="json") for c in cells]


def load_cells(data: Sequence[dict]) -> list[Cell]:
    return [Cell.model_validate(d) for d in data]


def cells_key(task: Task, plan: Matrix, runner: Runner) -> str:
    """What the SHA's cells depend on; never a path. The SHA's cells are cached under it."""
    compilers = sorted({compiler_id(plan.compiler(e)) for e in plan.envelopes})
    parts = {
        "grader": grader_build(),
        "cache": CACHE_VERSION,
        "sha": task.sha,
        "manifest": plan.sha256,
        "envelopes": [e.name for e in plan.envelopes],
        "compilers": compilers,
        "sandbox": runner.name,
        "cmake": (
            {
                "versions": toolchain_versions(),
                "cpp": task.options.cpp.model_dump(),
                "test_cmd": task.test_cmd,
                "cwd": task.options.cwd,
                "setup": task.options.setup,
                "timeout": task.timeout,
            }
            if plan.mode == "cmake"
            else None
        ),
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:24]


@contextlib.contextmanager
def sha_checkout(task: Task, cache: Path | None = None) -> Iterator[Path]:
    """A fresh checkout of the task's SHA, removed afterwards."""
    with history.checkout(task, cache) as ws:
        yield ws.repo


def _cache_file(tools: Tools, key: str) -> Path:
    base = tools.compiles.base if tools.compiles is not None else CompileCache().base
    return base / "baselines" / f"{key}.json"


def _read_cached(path: Path) -> list[Cell] | None:
    try:
        return load_cells(json.loads(path.read_text()))
    except (OSError, ValueError):
        return None


def _write_cached(path: Path, cells: list[Cell]) -> None:
    # A timed-out cell may be the machine's load, not the SHA: never pin it as the noise floor.
    if any(c.status == "timeout" for c in cells):
        return
    atomic.write_json(path, dump_cells(cells), indent=None)


def obtain_baseline(
    task: Task,
    plan: Matrix,
    tools: Tools = tools_mod.DEFAULT,
    *,
    reuse: bool = True,
    compute: Callable[[], list[Cell]] | None = None,
) -> list[Cell]:
    """The SHA's cells: from the baseline cache when the key matches, else computed and cached:
    by `compute` (a warm slot's envelope snapshots, phases/matrix.py), else in a fresh
    checkout."""
    compute = compute or (lambda: _compute_baseline(task, plan, tools))
    path = _cache_file(tools, cells_key(task, plan, tools.runner))
    if not reuse:
        return compute()
    cached = _read_cached(path)
    if cached is not None:
        return cached
    # Two workers grading patches of one task both miss at first: the second waits for the
    # first's cells instead of building every envelope again beside it.
    with locks.held(path.with_suffix(".lock")):
        cached = _read_cached(path)
        if cached is not None:
            return cached
        cells = compute()
        _write_cached(path, cells)
    return cells


def _compute_baseline(task: Task, plan: Matrix, tools: Tools) -> list[Cell]:
    with (
        sha_checkout(task, tools.cache) as tree,
        tempfile.TemporaryDirectory(prefix="pw-matrix-sha-") as scratch,
    ):
        quiet = replace(tools, slot=None, progress=None)  # the SHA's cells: no warm slot, no news
        cells = run.baseline_cells(task, Path(tree), Path(scratch), plan, quiet)
    return cells


def collect(
    task: Task,
    plan: Matrix,
    tree: Path,
    scratch: Path,
    tools: Tools = tools_mod.DEFAULT,
    *,
    baseline: list[Cell] | None = None,
    patch_id: str = "patched",
    patch: Patch | None = None,
) -> MatrixCollected:
    """The SHA's cells and the patched `tree`'s, with what the gate needs beside them.
    `scratch` is a private directory for builds (it may be deleted afterwards). In CMake mode
    the task's failing tests are targets, red at the SHA by design (the grade names them by the
    baseline's keys: phases/matrix.py). `patch`:
    what made `tree`, whose line map the gate matches sanitizer findings through."""
    if baseline is None:
        baseline = obtain_baseline(task, plan, tools)
    cells = run.patched_cells(
        task,
        tree,
        scratch,
        baseline,
        plan,
        patch=patch_id,
        tools=tools,
    )
    return MatrixCollected(
        cells=cells,
        baseline=baseline,
        resources=plan.resources.model_dump(),
        targets=list(task.failing_ids) if plan.mode == "cmake" else [],
        mode=plan.mode,
        moved=moved_lines(patch) if patch is not None else None,
        manifest_sha256=plan.sha256,
        envelopes={e.name: list(e.cxxflags) for e in plan.envelopes},
        werror_exceptions={
            e.name: e.werror_exception for e in plan.envelopes if e.werror_exception
        },
    )


def gate(
    task: Task,
    plan: Matrix,
    tree: Path,
    scratch: Path,
    tools: Tools = tools_mod.DEFAULT,
    **collect_args,
) -> MatrixGate:
    """Collect the matrix for `tree` and judge it by the default policy (`patchwitness matrix`)."""
    from patchwitness.gates.matrix import judge_collected
    from patchwitness.policy import DEFAULT_POLICY

    return judge_collected(
        collect(task, plan, tree, scratch, tools, **collect_args), DEFAULT_POLICY
    )
