"""Line hits from an instrumented run: coverage.py for Python, gcov (through gcovr) for C++.

Each collector turns one run's data into `FileLines` per repository-relative path; the coverage
gate (gates/coverage.py) joins them with the patch.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from patchwitness.facts import FileLines
from patchwitness.runner import Runner

if TYPE_CHECKING:
    from coverage.python import PythonParser


@dataclass(frozen=True)
class Hits:
    """What one run's coverage data gave: line hits per file, or (`files` None) why there are
    none. `tool_failed`: the run left data and the coverage tool could not read it, which says
    nothing about the code under grade; otherwise the run left no data to read."""

    files: dict[str, FileLines] | None
    why: str = ""
    tool_failed: bool = False


def collect(
    instrumented: object,
    tree: Path,
    scratch: Path,
    wanted: list[str],
    runner: Runner,
    statements: Mapping[str, PythonParser | None] | None = None,
) -> Hits:
    """Hits from whatever the suite left behind: coverage.py data or a gcov-instrumented build.
    `statements`: Python files already parsed (from their text before the run), for the line
    probes."""
    from patchwitness.hits import gcovr, python

    if isinstance(instrumented, python.Instrumentation):
        py = [w for w in wanted if w.endswith(".py")]
        native = [w for w in wanted if not w.endswith(".py")]
        hits: dict[str, FileLines] = {}
        if py:
            found = python.read_hits(instrumented, tree, py, statements)
            if found is None:
                return Hits(None, "coverage.py wrote no data")
            hits.update(found)
        if native and instrumented.gcov:
            # The compiled extension, built with gcov's flags in the worktree itself.
            read = gcovr.run_gcovr(tree, tree, scratch, runner)
            if read.report is None:
                return Hits(None, read.why, read.tool_failed)
            hits.update(gcovr.hits_from_json(read.report))
        return Hits(hits)
    if isinstance(instrumented, Path):
        read = gcovr.run_gcovr(tree, instrumented, scratch, runner)
        if read.report is None:
            return Hits(None, read.why, read.tool_failed)
        return Hits(gcovr.hits_from_json(read.report))
    return Hits(None, "the run was not instrumented")


def unmeasured(instrumented: object, wanted: list[str]) -> list[str]:
    """The wanted files the run's instrumentation could not see (a Python file run as a script,
    under line probes): neither hit nor unrun."""
    from patchwitness.hits import python

    if isinstance(instrumented, python.Instrumentation):
        return python.script_runs(instrumented, wanted)
    return []
