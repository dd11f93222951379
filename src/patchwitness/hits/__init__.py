"""Line hits from an instrumented run: coverage.py for Python, gcov (through gcovr) for C++.

Each collector turns one run's data into `FileLines` per repository-relative path; the coverage
gate (gates/coverage.py) joins them with the patch.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from patchwitness.facts import FileLines
from patchwitness.runner import Runner

if TYPE_CHECKING:
    from coverage.python import PythonParser


def collect(
    instrumented: object,
    tree: Path,
    scratch: Path,
    wanted: list[str],
    runner: Runner,
    statements: Mapping[str, PythonParser | None] | None = None,
) -> tuple[dict[str, FileLines] | None, str]:
    """Hits from whatever the suite left behind: coverage.py data or a gcov-instrumented build.
    Returns (hits, "") or (None, why there are none). `statements`: Python files already parsed
    (from their text before the run), for the line probes."""
    from patchwitness.hits import gcovr, python

    if isinstance(instrumented, python.Instrumentation):
        py = [w for w in wanted if w.endswith(".py")]
        native = [w for w in wanted if not w.endswith(".py")]
        hits: dict[str, FileLines] = {}
        if py:
            found = python.read_hits(instrumented, tree, py, statements)
            if found is None:
                return None, "coverage.py wrote no data"
            hits.update(found)
        if native and instrumented.gcov:
            # The compiled extension, built with gcov's flags in the worktree itself.
            report, why = gcovr.run_gcovr(tree, tree, scratch, runner)
            if report is None:
                return None, why
            hits.update(gcovr.hits_from_json(report))
        return hits, ""
    if isinstance(instrumented, Path):
        report, why = gcovr.run_gcovr(tree, instrumented, scratch, runner)
        return (gcovr.hits_from_json(report), "") if report is not None else (None, why)
    return None, "the run was not instrumented"


def unmeasured(instrumented: object, wanted: list[str]) -> list[str]:
    """The wanted files the run's instrumentation could not see (a Python file run as a script,
    under line probes): neither hit nor unrun."""
    from patchwitness.hits import python

    if isinstance(instrumented, python.Instrumentation):
        return python.script_runs(instrumented, wanted)
    return []
