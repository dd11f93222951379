"""The task's environment and suite, the flag matrix's plan, and the fingerprint of the run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from patchwitness import fingerprint, languages
from patchwitness.environment import prepare as prepare_environment
from patchwitness.model import Fingerprint

if TYPE_CHECKING:
    from patchwitness.matrix.collect import Matrix
    from patchwitness.settings import Settings
    from patchwitness.suites import Suite
    from patchwitness.task import Task


@dataclass(frozen=True)
class Prepared:
    suite: Suite
    plan: Matrix | None
    fingerprint: Fingerprint


def prepare(task: Task, settings: Settings) -> Prepared:
    plan = matrix_plan(task, settings)
    suite = make_suite(task, settings)
    return Prepared(suite, plan, make_fingerprint(task, suite, settings, plan))


def make_suite(task: Task, settings: Settings) -> Suite:
    env = prepare_environment(task, settings.runner, settings.cache)
    return languages.of(task).make_suite(task, env, settings.runner)


def matrix_plan(task: Task, settings: Settings) -> Matrix | None:
    if not (settings.matrix and languages.of(task).flag_matrix):
        return None
    from patchwitness.matrix import collect as matrix

    return matrix.load_plan(task) if matrix.applies(task) else None


def make_fingerprint(
    task: Task, suite: Suite, settings: Settings, plan: Matrix | None
) -> Fingerprint:
    versions = suite.versions()
    manifests = {"task": task.files_sha256[:16]}
    if plan is not None:
        manifests["matrix"] = plan.sha256[:16]
    warnings = list(settings.runner.warnings)  # the runner's own list is shared by its grades
    if settings.sandbox == "none" and not warnings:
        warnings.append("no sandbox: the code under grade ran with resource limits only")
    warnings += languages.of(task).run_warnings(suite)
    return fingerprint.build(
        test_cmd=task.test_cmd,
        timeout_s=task.timeout,
        sandbox=settings.sandbox,
        versions=versions,
        compiler=versions.get("compiler"),
        gcov=versions.get("gcov"),
        manifests=manifests,
        warnings=warnings,
    )
