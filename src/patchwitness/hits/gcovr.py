"""C++ line hits from gcov, read with gcovr's JSON (never by hand-parsing gcov text).

gcovr runs through the runner: it executes gcov on .gcda files that code under grade wrote.
The repository's own gcovr configuration never applies (`--config` points at an empty file the
grader owns) and exclusion markers are off (`--no-markers`), so a marker the patch adds excludes
nothing. Paths are relative to the worktree root and matched exactly.

A failure of gcovr itself is kept apart from a run that wrote no data (`Read.tool_failed`): the
first is the grader's trouble and can only make coverage not measurable, the second is the run's.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from patchwitness.facts import FileLines
from patchwitness.hits import Hits
from patchwitness.runner import Limits, Request, Runner

if TYPE_CHECKING:
    from coverage.python import PythonParser


@dataclass(frozen=True)
class Read:
    """gcovr's JSON report of one instrumented build, or why there is none. `tool_failed`: the
    build holds data and gcovr could not read it."""

    report: dict | None
    why: str = ""
    tool_failed: bool = False


@dataclass(frozen=True)
class GcovBuild:
    """A run's build tree, compiled with gcov's flags: its .gcda files are the hits."""

    build: Path

    def read_hits(
        self,
        tree: Path,
        scratch: Path,
        wanted: list[str],
        runner: Runner,
        statements: Mapping[str, PythonParser | None] | None,
    ) -> Hits:
        read = run_gcovr(tree, self.build, scratch, runner)
        if read.report is None:
            return Hits(None, read.why, read.tool_failed)
        return Hits(hits_from_json(read.report))

    def unmeasured(self, wanted: list[str]) -> list[str]:
        return []


def has_notes(build: Path) -> bool:
    return any(build.rglob("*.gcno"))


def run_gcovr(tree: Path, build: Path, scratch: Path, runner: Runner, timeout: float = 600) -> Read:
    """gcovr's JSON report for one instrumented build, or the reason it has none."""
    if not has_notes(build):
        return Read(None, "the build wrote no .gcno files: it was not instrumented")
    if not any(build.rglob("*.gcda")):
        return Read(None, "no .gcda files: nothing instrumented ever ran")
    config = scratch / "gcovr.cfg"
    config.write_text("")
    output = scratch / "gcovr.json"
    # The grader's own interpreter, by a path without symlinks or `..` (the sandbox binds paths
    # as they are spelled: a venv reached through `bench/../.venv` would not be there).
    prefix = Path(sys.prefix).resolve()
    command = [
        str(prefix / "bin" / "python"),
        "-m",
        "gcovr",
        "--config",
        str(config),
        "--root",
        str(tree),
        "--no-markers",
        # An inline function defined at different lines in two translation units (a macro that
        # switches a block above it, a header built with and without a feature) is one function
        # on two lines to gcovr, which stops by default. Kept apart, each definition keeps its
        # own lines, and the line counts this module reads are the same either way.
        "--merge-mode-functions",
        "separate",
        "--json",
        str(output),
        str(build),
    ]
    # gcov writes its .gcov files where the objects are; a compiled extension's objects sit in
    # the tree itself, which is then writable (for one path the sandbox's read-only bind wins).
    writable = [scratch, build]
    inside = build == tree or tree in build.parents
    readable = [*([] if inside else [tree]), prefix, Path(sys.base_prefix).resolve()]
    result = runner.run(
        Request(
            command=command,
            cwd=tree,
            timeout=timeout,
            writable=writable,
            readable=readable,
            home=scratch,
            limits=Limits(memory_mb=8192, processes=512),
        )
    )
    if not result.ok or not output.exists():
        tail = result.stderr[-300:].decode("utf-8", "replace").strip()
        return Read(None, f"gcovr failed: {tail}", tool_failed=True)
    try:
        return Read(json.loads(output.read_text()))
    except ValueError:
        return Read(None, "gcovr's JSON does not parse", tool_failed=True)


def hits_from_json(report: dict) -> dict[str, FileLines]:
    """Sum the counts of every line entry (a line may appear once per function or instance),
    and of its branches, outcome by outcome."""
    out: dict[str, FileLines] = {}
    for entry in report.get("files", []):
        counts: dict[int, int] = {}
        throws: dict[int, int] = {}
        branches: dict[int, dict[tuple[int, int], int]] = {}
        for line in entry.get("lines", []):
            if line.get("gcovr/noncode"):
                continue
            number = int(line["line_number"])
            counts[number] = counts.get(number, 0) + int(line.get("count", 0))
            taken = branches.setdefault(number, {})
            for branch in line.get("branches", ()):
                if branch.get("throw"):
                    # An exception edge: no decision of the source's own, but a `try` around it
                    # decides by it (phases/pinning.py).
                    throws[number] = throws.get(number, 0) + int(branch.get("count", 0))
                    continue
                key = (int(branch.get("source_block_id", 0)), int(branch.get("branchno", 0)))
                taken[key] = taken.get(key, 0) + int(branch.get("count", 0))
        out[str(entry["file"])] = FileLines(hits=counts, ways=_decisions(branches), throws=throws)
    return out


def _decisions(branches: dict[int, dict[tuple[int, int], int]]) -> dict[int, list[list[int]]]:
    """Per line, the outcomes of each decision: gcov's branches grouped by the block they leave
    (a condition's true and false edges leave one block)."""
    out: dict[int, list[list[int]]] = {}
    for number, taken in branches.items():
        blocks: dict[int, list[int]] = {}
        for (block, _), count in sorted(taken.items()):
            blocks.setdefault(block, []).append(count)
        ways = [counts for counts in blocks.values() if len(counts) >= 2]
        if ways:
            out[number] = ways
    return out
