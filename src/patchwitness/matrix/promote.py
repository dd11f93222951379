"""The seed's promotion rule for a new golden.

A golden is worth adding when it tells a known-bad patch from the SHA: it fails at least one
envelope on the bad patch and passes every envelope on the SHA. A golden that fails on the SHA
grades the subject; one that passes everywhere on the bad patch does not witness the bug.

The candidate is a C++ file on disk, placed into a fresh checkout of the SHA and into a fresh
checkout with the bad patch applied, at the same repository path; an expected-output file beside
it (`<stem>.expected`) pins its stdout, else the SHA's runs agree on a digest. The manifest's
compiler, standard, include directories and envelopes are used (CMake-mode tasks: the default
envelopes, with the include directories given).
"""

from __future__ import annotations

import hashlib
import shutil
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath

from patchwitness import history
from patchwitness.errors import InvalidTask
from patchwitness.matrix import run
from patchwitness.matrix.collect import Tools
from patchwitness.matrix.manifest import Golden, Matrix
from patchwitness.model import Cell
from patchwitness.task import Task


@dataclass
class Promotion:
    golden: str
    promotable: bool
    reason: str
    sha_cells: list[Cell] = field(default_factory=list)
    bad_cells: list[Cell] = field(default_factory=list)


def destination(plan: Matrix, candidate: Path, dest: str | None) -> str:
    """Where the candidate goes in the tree: `dest`, else beside the manifest's first golden."""
    if dest:
        return PurePosixPath(dest).as_posix()
    if plan.goldens:
        return (PurePosixPath(plan.goldens[0].source).parent / candidate.name).as_posix()
    return candidate.name


def _place(tree: Path, candidate: Path, rel: str) -> None:
    target = tree / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(candidate, target)


def judge(sha_cells: list[Cell], bad_cells: list[Cell]) -> tuple[bool, str]:
    """Every envelope passes on the SHA (optional envelopes the toolchain lacks aside) and at
    least one fails on the bad patch."""
    sha_red = [c for c in sha_cells if c.status != "pass" and (c.required or c.status != "missing")]
    if sha_red:
        names = ", ".join(f"{c.envelope} {c.status}" for c in sha_red)
        return False, f"red on the SHA ({names}): it would grade the subject, not the patch"
    bad_red = [c for c in bad_cells if c.status not in ("pass", "missing")]
    if not bad_red:
        return False, "passes every envelope on the known-bad patch: it does not witness the bug"
    names = ", ".join(f"{c.envelope} {c.status}" for c in bad_red)
    return True, f"passes every envelope on the SHA and fails on the bad patch ({names})"


def promote(
    task: Task,
    plan: Matrix,
    candidate: Path,
    bad_patch: bytes,
    *,
    dest: str | None = None,
    tools: Tools | None = None,
) -> Promotion:
    tools = tools or Tools()
    if not candidate.is_file():
        raise InvalidTask(f"golden not found: {candidate}")
    rel = destination(plan, candidate, dest)
    fixture = candidate.with_suffix(".expected")
    fixtures = {}
    if fixture.is_file():
        digest = hashlib.sha256(fixture.read_bytes()).hexdigest()
        fixtures[rel] = (digest, f"fixture:{fixture.name}")
    single = replace(plan, mode="goldens", goldens=(Golden(source=rel),))

    def cells(patch: bytes | None, baseline: list[Cell] | None, label: str) -> list[Cell]:
        with history.checkout(task, tools.cache) as ws:
            if patch is not None:
                ws.apply(patch)
            _place(ws.repo, candidate, rel)
            return run.goldens_cells(
                single,
                ws.repo,
                ws.new_dir("promote"),
                patch=label,
                fixtures=fixtures,
                baseline=baseline,
                tools=replace(tools, env=None, slot=None, progress=None),
            )

    sha_cells = cells(None, None, run.BASELINE)
    bad_cells = cells(bad_patch, sha_cells, "bad-patch")
    promotable, reason = judge(sha_cells, bad_cells)
    return Promotion(rel, promotable, reason, sha_cells, bad_cells)
