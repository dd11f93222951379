"""The SHA's own tests over the patched code: the patch's test files and test infrastructure put
back to the SHA in a fresh checkout. It decides a purely additive test edit, and checks a
tests-authored one."""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor

from patchwitness import history, languages
from patchwitness.additive import TestEdit
from patchwitness.classify import GRADER, INFRA, TEST, Classified
from patchwitness.facts import PristineCollected
from patchwitness.model import Outcome
from patchwitness.phases.context import GradeContext
from patchwitness.phases.run import suite_facts
from patchwitness.settings import Settings
from patchwitness.suites import Suite, SuiteRun, fill_broken
from patchwitness.task import Task
from patchwitness.workspace import put_back


def reverted_paths(classes: dict[str, Classified]) -> list[str]:
    """What the pristine run puts back to the SHA: the patch's tests and test infrastructure."""
    return sorted(p for p, c in classes.items() if c.kind in (TEST, INFRA, GRADER))


def is_additive(test_edit: str, task: Task) -> bool:
    return test_edit == TestEdit.ADDITIVE and not task.allow_test_edits


def wants_pristine(task: Task) -> bool:
    choice = task.options.pristine
    if choice == "auto":
        return task.allow_test_edits or languages.of(task).pristine_by_default
    return choice == "always"


def start_early(ctx: GradeContext, reverted: list[str]) -> Future[SuiteRun] | None:
    """`run_pristine`, started now, beside the patched run, for a language whose pristine run
    is no cold build: the caller starts it for a patch whose test edit is purely additive,
    which its pristine run always judges (no other gate's rejection skips it); the two runs
    share nothing but the machine's cores. Other patches wait, so that a run whose verdict is
    already decided is never spent."""
    if not languages.of(ctx.task).pristine_beside or not reverted:
        return None
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pristine")
    try:
        return pool.submit(run_pristine, ctx.task, ctx.data, reverted, ctx.suite, ctx.settings)
    finally:
        pool.shutdown(wait=False)


def run_pristine(
    task: Task, data: bytes, reverted: list[str], suite: Suite, settings: Settings
) -> SuiteRun:
    with history.checkout(task, settings.cache) as ws:
        ws.apply(data, allow_binary=task.options.patch.allow_binary)
        put_back(ws.repo, task.repo, task.sha, reverted)
        return suite.run(ws.repo, ws.new_dir("pristine"))


def collect_pristine(
    ctx: GradeContext,
    reverted: list[str],
    early: Future[SuiteRun] | None,
    plain_outcomes: dict[str, Outcome],
) -> PristineCollected:
    """The pristine run's facts (`early`: the same run, started beside the patched one)."""
    ctx.clock.say("the pristine run (the SHA's tests over the patched code)")
    if early is not None:
        run = early.result()
    else:
        run = run_pristine(ctx.task, ctx.data, reverted, ctx.suite, ctx.settings)
    fill_broken(run, plain_outcomes)
    ctx.clock.lap("pristine")
    return PristineCollected(run=suite_facts(run))
