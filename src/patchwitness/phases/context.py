"""What every phase of a grade may read: the task, the patch, the settings, the suite, the SHA's
baseline, and the clock the phases report their time to."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from patchwitness.model import Timings

if TYPE_CHECKING:
    from patchwitness import warm
    from patchwitness.baseline import Baseline
    from patchwitness.matrix.collect import Matrix
    from patchwitness.settings import Settings
    from patchwitness.suites import Instrumentation, Suite
    from patchwitness.task import Task
    from patchwitness.workspace import Workspace


@dataclass
class Clock:
    """The time each phase of a grade took, and (for a person watching) what it does now."""

    started: float = field(default_factory=time.monotonic)
    phases: dict[str, float] = field(default_factory=dict)
    _last: float = field(default_factory=time.monotonic)
    progress: Callable[[str], None] | None = None

    def say(self, doing: str) -> None:
        if self.progress is not None:
            self.progress(doing)

    def lap(self, name: str) -> None:
        now = time.monotonic()
        self.phases[name] = round(self.phases.get(name, 0.0) + now - self._last, 3)
        self._last = now

    def timings(self) -> Timings:
        return Timings(total_s=round(time.monotonic() - self.started, 3), phases=self.phases)


@dataclass(frozen=True)
class GradeContext:
    """One grade's inputs, fixed once the baseline is known."""

    task: Task
    data: bytes  # the patch as submitted
    settings: Settings
    clock: Clock
    suite: Suite
    base: Baseline
    secret: Baseline | None  # the hidden tests at the SHA
    plan: Matrix | None  # the flag matrix, when it grades this task
    # The failing tests, as the baseline names them (none with hidden tests: the hidden run's).
    failing: tuple[str, ...] = ()

    @property
    def steady_failing(self) -> list[str]:
        """The failing tests less the ones the SHA's runs found flaky: what a run may ask."""
        flaky = set(self.base.flaky)
        return [k for k in self.failing if k not in flaky]

    @property
    def wants_coverage(self) -> bool:
        return self.settings.coverage and self.task.options.coverage.enabled

    @property
    def instrument(self) -> Instrumentation | None:
        """The instrumentation the SHA was measured with, which the patched run uses too so that
        like is compared with like; None when coverage is off or nothing worked at the SHA."""
        return self.base.instrumentation if self.wants_coverage else None

    def kept_for_the_reference(self, *parts: str | bytes) -> Path:
        """Where what the reference's runs gave is kept, once per task: keyed by the SHA's
        baseline (grader, SHA, commands, environment), the reference, the hidden tests and
        `parts` (what the runs were asked)."""
        digest = hashlib.sha256()
        task = self.task
        for part in (self.base.key, task.reference or b"", task.hidden_tests or b"", *parts):
            digest.update(part if isinstance(part, bytes) else part.encode())
            digest.update(b"\0")
        return self.settings.cache / "references" / f"{digest.hexdigest()}.json"


@dataclass(frozen=True)
class Tree:
    """Where the patched tree lives: a workspace, and the warm build slot behind it, if any."""

    ws: Workspace
    slot: warm.Slot | None
