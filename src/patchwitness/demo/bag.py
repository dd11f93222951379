"""A built demo bag: what the Python and the C++ halves of the demo each produce."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from patchwitness.bag import Job


@dataclass
class DemoBag:
    """The demo's root, one job per (task, agent) patch, and each job's expected
    (label, grade)."""

    root: Path
    jobs: list[Job] = field(default_factory=list)
    expected: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)
