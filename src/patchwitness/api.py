"""The public Python API: grade one patch against one task.

    from patchwitness.api import grade
    verdict = grade(Path("tasks/fix-total"), Path("agent.diff"), agent="claude")

Facts flow one way: task + patch -> collect (workspace, runner, suites) -> GradeFacts -> judge
(gates, policy) -> Verdict. `grade_facts` stops after collecting, for callers that keep the facts
(a bag's results database, so `rejudge` can judge them again). A grade never raises for anything
the task, the patch or the code under grade does: every such ending is a verdict with a label
(apply-failed, invalid-task, timeout) and a reason. An exception is a grader bug, and is not a
verdict.

The machinery (collect, the facts, the judge) is imported by the call that uses it, not with this
module: a command that only reads its arguments before it grades starts without it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from patchwitness.errors import GradeStop
from patchwitness.policy import DEFAULT_POLICY, Policy
from patchwitness.settings import Settings

if TYPE_CHECKING:
    from patchwitness.facts import GradeFacts
    from patchwitness.model import Verdict
    from patchwitness.task import Task


def grade(
    task_dir: Path,
    patch_path: Path,
    *,
    repo: Path | None = None,
    agent: str = "agent",
    settings: Settings | None = None,
    progress: Callable[[str], None] | None = None,
    beside: Callable[[], object] | None = None,
) -> Verdict:
    """Grade the patch file at `patch_path` against the task at `task_dir`. `progress` and
    `beside`: as for `grade_facts`."""
    settings = settings or Settings()
    facts = grade_facts(
        task_dir,
        patch_path,
        repo=repo,
        agent=agent,
        settings=settings,
        progress=progress,
        beside=beside,
    )
    return _judge(facts, settings.policy)


def grade_facts(
    task_dir: Path,
    patch_path: Path | None,
    *,
    repo: Path | None = None,
    agent: str = "agent",
    settings: Settings | None = None,
    progress: Callable[[str], None] | None = None,
    beside: Callable[[], object] | None = None,
) -> GradeFacts:
    """Collect a grade's facts. `patch_path` None grades an empty patch (a bag's missing one).
    `progress` hears each phase as it starts. `beside` is called while the patched suite runs,
    for what the caller needs after the grade; its result and errors are not kept, and a grade
    that ends before the run never calls it."""
    from patchwitness.collect import collect
    from patchwitness.task import load_task

    settings = settings or Settings()
    name = Path(task_dir).name
    shown = str(patch_path or "")
    try:
        data = Path(patch_path).read_bytes() if patch_path is not None else b""
    except OSError as exc:
        return _stopped_facts(name, agent, b"", GradeStop(f"cannot read the patch: {exc}"))
    try:
        task = load_task(Path(task_dir), repo)
    except GradeStop as stop:
        return _stopped_facts(name, agent, data, stop, shown)
    return collect(
        task,
        data,
        agent=agent,
        settings=settings,
        patch_path=shown,
        progress=progress,
        beside=beside,
    )


def stopped(name: str, agent: str, data: bytes, stop: GradeStop, patch_path: str = "") -> Verdict:
    """The verdict of a grade that ended before any gate could judge."""
    return _judge(_stopped_facts(name, agent, data, stop, patch_path))


def _stopped_facts(
    name: str, agent: str, data: bytes, stop: GradeStop, patch_path: str = ""
) -> GradeFacts:
    from patchwitness.collect import stopped_facts
    from patchwitness.facts import TaskFacts

    task = TaskFacts(name=name, language="", repo_sha="")
    return stopped_facts(task, agent, data, stop, patch_path)


def grade_task(
    task: Task,
    data: bytes,
    *,
    agent: str = "agent",
    settings: Settings | None = None,
    patch_path: str = "",
) -> Verdict:
    """Grade patch bytes against an already loaded task."""
    from patchwitness.collect import collect

    settings = settings or Settings()
    facts = collect(task, data, agent=agent, settings=settings, patch_path=patch_path)
    return _judge(facts, settings.policy)


def _judge(facts: GradeFacts, policy: Policy = DEFAULT_POLICY) -> Verdict:
    # A grade's collect has imported the judge beside its test run.
    from patchwitness.judge import judge

    return judge(facts, policy)
