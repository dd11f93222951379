"""Line hits from an instrumented run: coverage.py for Python, gcov (through gcovr) for C++.

Each collector turns one run's data into `FileLines` per repository-relative path; the coverage
gate (gates/coverage.py) joins them with the patch.
"""

from __future__ import annotations

from pathlib import Path

from patchwitness.gates.coverage import FileLines


def collect(
    instrumented: object, tree: Path, scratch: Path, wanted: list[str]
) -> tuple[dict[str, FileLines] | None, str]:
    """Hits from whatever the suite left behind: coverage.py data or a gcov-instrumented build.
    Returns (hits, "") or (None, why there are none)."""
    from patchwitness.hits import gcovr, python

    if isinstance(instrumented, python.Instrumentation):
        hits = python.read_hits(instrumented, tree, wanted)
        return (hits, "") if hits is not None else (None, "coverage.py wrote no data")
    if isinstance(instrumented, Path):
        report, why = gcovr.run_gcovr(tree, instrumented, scratch)
        return (gcovr.hits_from_json(report), "") if report is not None else (None, why)
    return None, "the run was not instrumented"
