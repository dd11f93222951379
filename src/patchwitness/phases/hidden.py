"""The hidden tests (a task's test_patch.diff, never shown to the patch) over the patched tree,
as SWE-bench applies them: what they are at the SHA, whether the patch conflicts with them, and
their run, alone or carried by the visible run when one run can do both (hidden.py reads
outcomes; this is the I/O)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

from patchwitness import baseline as baselines
from patchwitness import hidden
from patchwitness.classify import PRODUCTION, Classified
from patchwitness.errors import ApplyFailed
from patchwitness.facts import BaselineFacts, HiddenCollected
from patchwitness.patch import Patch
from patchwitness.suites import SuiteRun, fill_broken
from patchwitness.task import Task
from patchwitness.workspace import Workspace, put_back, safe_read, write_or_remove

RunSuite = Callable[[str], tuple[SuiteRun, Path]]


def hidden_collected(
    task: Task, patch: Patch, hidden_patch: Patch, secret: baselines.Baseline
) -> HiddenCollected:
    named = (
        None if task.pass_to_pass is None else baselines.resolve_known(secret, task.pass_to_pass)
    )
    p2p, red = hidden.pass_to_pass(secret.outcomes, named)
    failing = baselines.validate_hidden(task, secret)
    return HiddenCollected(
        files=hidden.touched(hidden_patch),
        conflicts=hidden.conflicts(patch, hidden_patch),
        baseline=dict(secret.outcomes),
        failing=failing,
        # A FAIL_TO_PASS test is checked as such, never as one that must stay green.
        pass_to_pass=[k for k in p2p if k not in failing],
        pass_to_pass_red_at_sha=red,
    )


def one_run_will_do(
    collected: HiddenCollected, patch: Patch, classes: dict[str, Classified]
) -> bool:
    """One run can carry the visible and the hidden tests when the patch touched no test and no
    file the hidden tests touch, and the tests name their files (pytest keys): the visible
    transitions are then the ones outside the hidden files, where both runs are the same."""
    if collected.conflicts or any(c.kind != PRODUCTION for c in classes.values()):
        return False
    if patch.touched() & set(collected.files):
        return False
    return all("::" in key for key in collected.baseline)


@contextlib.contextmanager
def hidden_applied(ws: Workspace, task: Task, collected: HiddenCollected) -> Iterator[bool]:
    """The hidden tests over the patched tree, as SWE-bench applies its test patch: every file
    they touch back to its SHA version first, then the patch. Afterwards those files are put
    back as the patch left them (the flag matrix runs the visible tree). Yields False, with the
    reason recorded as a conflict, when they do not apply over the patched tree."""
    assert task.hidden_tests is not None
    kept = {rel: safe_read(ws.repo, rel) for rel in collected.files}
    try:
        put_back(ws.repo, task.repo, task.sha, collected.files)
        try:
            ws.apply(task.hidden_tests, allow_binary=True)  # the grader's own tests
        except ApplyFailed as exc:
            collected.conflicts.append(f"the hidden tests do not apply over the patch: {exc}")
            yield False
        else:
            yield True
    finally:
        for rel, data in kept.items():
            write_or_remove(ws.repo / rel, data)


def run_hidden(
    collected: HiddenCollected,
    ws: Workspace,
    task: Task,
    after: SuiteRun,
    secret: baselines.Baseline,
    run_suite: RunSuite,
) -> tuple[SuiteRun | None, Path | None]:
    """The hidden run after the visible one, unless the patch conflicts with the hidden tests or
    the visible run did not build or finish (its verdict is already the run's)."""
    if collected.conflicts:
        collected.skipped = "the patch conflicts with the hidden tests"
        return None, None
    if after.build_failed or after.timed_out or not after.started:
        collected.skipped = "the patched run did not build or finish"
        return None, None
    with hidden_applied(ws, task, collected) as applied:
        if not applied:
            collected.skipped = "the hidden tests do not apply over the patch"
            return None, None
        run, scratch = run_suite("hidden")
    fill_broken(run, secret.outcomes)
    return run, scratch


def visible_part(run: SuiteRun, files: list[str]) -> SuiteRun:
    """The run as the visible tests saw it: the tests outside the hidden files. The process's
    exit status is the whole run's: the part is not held to it (the whole run is)."""
    outcomes = hidden.project(run.run.outcomes, files)
    test_run = run.run.model_copy(
        update={
            "outcomes": outcomes,
            "collected": [k for k in run.run.collected if k in outcomes],
            "ids": {k: v for k, v in run.run.ids.items() if k in outcomes},
            "reported_exit": None,
        }
    )
    return replace(run, run=test_run)


def project_baseline(baseline: BaselineFacts, files: list[str]) -> BaselineFacts:
    return baseline.model_copy(
        update={
            "outcomes": hidden.project(baseline.outcomes, files),
            "plain_outcomes": hidden.project(baseline.plain_outcomes, files),
        }
    )
