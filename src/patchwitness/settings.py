"""What a grade is told from outside the task: how code under grade runs (the runner and its
sandbox), where the cache lives, which gates run, and the policy that judges. One frozen object,
made once (the CLI, a bag, a test) and passed down; no module reads a global instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from patchwitness.cachedir import cache_root
from patchwitness.policy import DEFAULT_POLICY, Policy
from patchwitness.runner import Runner


class BaselineCache(Protocol):
    """Where baselines are kept (baseline.py's disk cache, a bag's results database)."""

    def get(self, key: str) -> Any: ...

    def put(self, baseline: Any) -> None: ...


@dataclass(frozen=True)
class Settings:
    runner: Runner = field(default_factory=Runner)
    cache: Path = field(default_factory=cache_root)
    # Gates that may be turned off (coverage needs an instrumented run; the matrix rebuilds).
    coverage: bool = True
    matrix: bool = True
    # Whether the tests pin the patch (the pinning gate, with coverage): the decisions of the
    # added lines, read from the coverage run itself, and the mutants of those lines, which
    # cost runs of their own.
    decisions: bool = True
    mutants: bool = True
    # Whether a task's reference fix (reference.diff) is compared with the patch: the calls
    # its failing tests make, and their neighbours, under both trees.
    reference: bool = True
    # Run the expensive gates (flag matrix, pristine run) even when a cheaper gate has already
    # rejected the patch; by default they are skipped, and the verdict says why.
    all_gates: bool = False
    # Runs of the suite at the SHA (more than one finds flaky tests).
    baseline_runs: int = 1
    # C++: keep a build of the SHA per (SHA, recipe, flags) and rebuild only what each patch
    # dirties (warm.py); False builds everything from nothing for every patch.
    warm: bool = True
    # Matrix cells in parallel (0: one per core); a bag that grades in parallel sets 1.
    matrix_workers: int = 0
    # Where `grade` saves the census artifacts (before.json, after.json, the report).
    artifacts: Path | None = None
    # Where baselines are kept: None is the disk cache under `cache`.
    baselines: BaselineCache | None = None
    policy: Policy = DEFAULT_POLICY

    @property
    def sandbox(self) -> str:
        return self.runner.name

    def but(self, **changes) -> Settings:
        """A copy with some fields changed."""
        return replace(self, **changes)
