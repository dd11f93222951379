"""The tests at the SHA, once per task (baseline.py keeps them), and the hidden tests at the SHA
when the task has them."""

from __future__ import annotations

from dataclasses import dataclass

from patchwitness import baseline as baselines
from patchwitness.phases.context import Clock
from patchwitness.settings import Settings
from patchwitness.suites import Suite
from patchwitness.task import Task


@dataclass(frozen=True)
class Baselines:
    base: baselines.Baseline
    secret: baselines.Baseline | None  # the hidden tests at the SHA


def obtain(task: Task, suite: Suite, settings: Settings, clock: Clock) -> Baselines:
    clock.say("the tests at the SHA (once per task)")
    base = baselines.obtain(task, suite, settings)
    secret = None
    if task.hidden:
        clock.say("the hidden tests at the SHA (once per task)")
        secret = baselines.obtain_hidden(task, suite, settings, base)
    clock.lap("baseline")
    return Baselines(base, secret)
