"""The compiler flag matrix (seed 004): every golden rebuilt and rerun under every envelope.

Entry points for the grade:

    from patchwitness import matrix

    if matrix.applies(task):
        plan = matrix.prepare(task)            # validates the manifest; sets task.manifest_sha256
        ...
        gate = matrix.grade_matrix(task, tree, scratch, matrix=plan, patch_id=patch.sha256)

`grade_matrix` runs the SHA's matrix first (or takes `baseline=` cells the caller kept, or reuses
the ones it cached itself under `cache_root()/matrix/baselines`), then the patched tree's, and
returns the gate. The modules: `manifest` (matrix.json), `cells` (one compile + run), `cache`
(compiles keyed by their real inputs), `cmake` (CMake mode), `run` (all cells, in parallel),
`sanitizers` (reports in stderr), `commands` (a shell script per cell), `promote` (the seed's
promotion rule). The decision itself is `gates/matrix.py`, pure.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from pathlib import Path

from patchwitness import __version__, history, runner
from patchwitness.cachedir import cache_root
from patchwitness.gates import matrix as matrix_gate
from patchwitness.matrix import run
from patchwitness.matrix.cache import CACHE_VERSION, CompileCache
from patchwitness.matrix.cells import compiler_id
from patchwitness.matrix.manifest import Matrix, load
from patchwitness.model import Cell, MatrixGate
from patchwitness.task import Task

__all__ = [
    "Matrix",
    "applies",
    "baseline_key",
    "dump_cells",
    "grade_matrix",
    "load_cells",
    "obtain_baseline",
    "prepare",
]

ShaTreeFactory = Callable[[], AbstractContextManager[Path]]


def applies(task: Task) -> bool:
    """The matrix grades C++ tasks whose task.toml does not turn it off."""
    return task.language == "cpp" and task.options.matrix.enabled


def prepare(task: Task, extra_envelopes: Sequence[str] = ()) -> Matrix:
    """Read and validate the manifest (InvalidTask on any problem) and set
    `task.manifest_sha256`. Call it before the fingerprint is made."""
    return load(task, extra_envelopes)


def dump_cells(cells: Sequence[Cell]) -> list[dict]:
    return [c.model_dump(mode="json") for c in cells]


def load_cells(data: Sequence[dict]) -> list[Cell]:
    return [Cell.model_validate(d) for d in data]


def baseline_key(task: Task, plan: Matrix) -> str:
    """What the SHA's cells depend on; never a path. Keep baseline cells under this key."""
    from patchwitness.cpp import toolchain_versions

    compilers = sorted({compiler_id(plan.compiler(e)) for e in plan.envelopes})
    parts = {
        "grader": __version__,
        "cache": CACHE_VERSION,
        "sha": task.sha,
        "manifest": plan.sha256,
        "envelopes": [e.name for e in plan.envelopes],
        "compilers": compilers,
        "sandbox": runner.confinement().name,
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
def sha_checkout(task: Task) -> Iterator[Path]:
    """A fresh checkout of the task's SHA, removed afterwards."""
    with history.checkout(task) as ws:
        yield ws.repo


def _cache_file(key: str) -> Path:
    return cache_root() / "matrix" / "baselines" / f"{key}.json"


def _read_cached(key: str) -> list[Cell] | None:
    try:
        return load_cells(json.loads(_cache_file(key).read_text()))
    except (OSError, ValueError):
        return None


def _write_cached(key: str, cells: list[Cell]) -> None:
    # A timed-out cell may be the machine's load, not the SHA: never pin it as the noise floor.
    if any(c.status == "timeout" for c in cells):
        return
    path = _cache_file(key)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(fd, "w") as handle:
        json.dump(dump_cells(cells), handle)
    os.replace(tmp, path)


def obtain_baseline(
    task: Task,
    plan: Matrix,
    *,
    sha_tree_factory: ShaTreeFactory | None = None,
    workers: int | None = None,
    cache: CompileCache | None = None,
    reuse: bool = True,
) -> list[Cell]:
    """The SHA's cells: from the baseline cache when the key matches, else computed in a fresh
    checkout (or the one `sha_tree_factory` provides) and cached."""
    key = baseline_key(task, plan)
    if reuse:
        cached = _read_cached(key)
        if cached is not None:
            return cached
    factory = sha_tree_factory or (lambda: sha_checkout(task))
    with factory() as tree, tempfile.TemporaryDirectory(prefix="pw-matrix-sha-") as scratch:
        cells = run.baseline_cells(
            task, Path(tree), Path(scratch), plan, workers=workers, cache=cache
        )
    if reuse:
        _write_cached(key, cells)
    return cells


def grade_matrix(
    task: Task,
    tree: Path,
    scratch: Path,
    *,
    baseline: list[Cell] | None = None,
    sha_tree_factory: ShaTreeFactory | None = None,
    matrix: Matrix | None = None,
    patch_id: str = "patched",
    workers: int | None = None,
    cache: CompileCache | None = None,
) -> MatrixGate:
    """The matrix gate for the patched `tree`: baseline first, then the patched cells, then the
    table. `scratch` is a private directory for builds (it may be deleted afterwards)."""
    plan = matrix or prepare(task)
    if baseline is None:
        baseline = obtain_baseline(
            task, plan, sha_tree_factory=sha_tree_factory, workers=workers, cache=cache
        )
    cells = run.patched_cells(
        task, tree, scratch, baseline, plan, patch=patch_id, workers=workers, cache=cache
    )
    targets = task.failing_ids if plan.mode == "cmake" else ()
    gate = matrix_gate.decide(cells, baseline, plan.resources, targets=targets)
    describe(gate, plan)
    return gate


def describe(gate: MatrixGate, plan: Matrix) -> MatrixGate:
    """The manifest's facts the reader needs beside the cells."""
    gate.facts.mode = plan.mode
    gate.facts.manifest_sha256 = plan.sha256
    gate.facts.envelopes = {e.name: list(e.cxxflags) for e in plan.envelopes}
    gate.facts.werror_exceptions = {
        e.name: e.werror_exception for e in plan.envelopes if e.werror_exception
    }
    return gate
