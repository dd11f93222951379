"""What the flag matrix runs with, from the settings: the runner, the cache root, the task's
environment, how many cells at once, the compile cache, a warm slot, and who hears progress."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from patchwitness.environment import Environment
from patchwitness.matrix.cache import CompileCache
from patchwitness.runner import UNCONFINED, Runner
from patchwitness.settings import Settings


@dataclass(frozen=True)
class Tools:
    """What the matrix runs with: the runner, the cache root, the task's environment (CMake
    mode runs its setup's tools), cells in parallel, and the compile cache."""

    runner: Runner = UNCONFINED
    cache: Path | None = None
    env: Environment | None = None
    workers: int | None = None
    compiles: CompileCache | None = None
    slot: object | None = None  # a warm slot (warm.py) whose envelope builds CMake mode reuses
    # The slot's repository holds the SHA itself: each envelope's snapshot is its build as it
    # is, whatever the grade's patch added (warm.restore_build).
    at_sha: bool = False
    progress: Callable[[str], None] | None = None  # hears "k of n" as the patched cells finish

    @classmethod
    def of(cls, settings: Settings, env: Environment | None = None) -> Tools:
        return cls(
            runner=settings.runner,
            cache=settings.cache,
            env=env,
            workers=settings.matrix_workers or None,
            compiles=CompileCache(settings.cache / "matrix"),
        )


DEFAULT = Tools()  # the runner unconfined, the default caches, one cell per core
