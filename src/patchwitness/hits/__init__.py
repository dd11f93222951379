"""Line hits from an instrumented run: coverage.py for Python, gcov (through gcovr) for C++.

Each collector turns one run's data into `FileLines` per repository-relative path; the coverage
gate (gates/coverage.py) joins them with the patch.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

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


class RunCoverage(Protocol):
    """What an instrumented run left behind, for its language's reader: coverage.py's data or
    line probes (hits/python.py), or a gcov-instrumented build (hits/gcovr.py)."""

    def read_hits(
        self,
        tree: Path,
        scratch: Path,
        wanted: list[str],
        runner: Runner,
        statements: Mapping[str, PythonParser | None] | None,
    ) -> Hits: ...

    def unmeasured(self, wanted: list[str]) -> list[str]: ...


def collect(
    instrumented: RunCoverage | None,
    tree: Path,
    scratch: Path,
    wanted: list[str],
    runner: Runner,
    statements: Mapping[str, PythonParser | None] | None = None,
) -> Hits:
    """Hits from whatever the suite left behind. `statements`: Python files already parsed (from
    their text before the run), for the line probes."""
    if instrumented is None:
        return Hits(None, "the run was not instrumented")
    return instrumented.read_hits(tree, scratch, wanted, runner, statements)


def unmeasured(instrumented: RunCoverage | None, wanted: list[str]) -> list[str]:
    """The wanted files the run's instrumentation could not see (a Python file run as a script,
    under line probes): neither hit nor unrun."""
    return [] if instrumented is None else instrumented.unmeasured(wanted)
