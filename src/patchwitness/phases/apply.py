"""The patch applied by git over the checked-out SHA, the census taken again over the files it
touched, their classes, and what kind of test edit the patch is."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from patchwitness import atomic, warm
from patchwitness import baseline as baselines
from patchwitness.additive import TestEdit, kind_of_test_edit
from patchwitness.census.items import CensusDiff, Inventory, diff_inventories, is_test
from patchwitness.census.scan import scan_paths
from patchwitness.classify import GRADER, INFRA, PRODUCTION, TEST, Classified, SourceMap
from patchwitness.facts import ChangedFile
from patchwitness.gates import census as census_gate
from patchwitness.model import CensusFacts
from patchwitness.patch import Patch
from patchwitness.phases.classes import changed_files, classify_patch, source_map
from patchwitness.phases.context import GradeContext, Tree


@dataclass(frozen=True)
class Applied:
    patch: Patch
    classes: dict[str, Classified]
    source: SourceMap  # what the SHA's project builds or imports as the code under test
    after: Inventory  # the census after the patch
    census: CensusFacts
    test_edit: TestEdit
    test_edit_why: str
    # The test files: the patch's, and those holding the SHA's tests.
    test_sources: frozenset[str]

    @property
    def files(self) -> list[ChangedFile]:
        return changed_files(self.patch, self.classes)


def apply(ctx: GradeContext, tree: Tree) -> Applied:
    task, base, ws = ctx.task, ctx.base, tree.ws
    patch = ws.apply(ctx.data, allow_binary=task.options.patch.allow_binary)
    if tree.slot is not None:
        warm.note_added(tree.slot, [c.path for c in patch.files if c.status != "modified"])
    ctx.clock.lap("apply")
    ctx.clock.say("the census of the touched files")
    touched = sorted(patch.touched())
    rescanned = scan_paths(ws.repo, touched, baselines.scan_options(task, base.pytest_config))
    after = base.inventory.replace_files(rescanned, touched)
    source = source_map(task, ctx.suite, base, patch, ws.repo)
    classes = classify_patch(task, patch, ws.repo, base, rescanned, source)
    infra = sorted(p for p, c in classes.items() if c.kind in (INFRA, GRADER))
    production = sorted(p for p, c in classes.items() if c.kind == PRODUCTION)
    diff = diff_inventories(base.inventory, after, task.allowlist, infra, production)
    where = ctx.settings.artifacts
    artifacts = save_artifacts(where, base.inventory, after, diff, patch, task.sha)
    kind, why = kind_of_test_edit(patch, classes, diff, after, ws.repo)
    tests = frozenset(p for p, c in classes.items() if c.kind == TEST) | frozenset(
        it.file for it in base.inventory.items if is_test(it.kind)
    )
    ctx.clock.lap("census")
    census = census_gate.census_facts(diff, artifacts)
    return Applied(patch, classes, source, after, census, kind, why, tests)


def save_artifacts(
    where: Path | None,
    before: Inventory,
    after: Inventory,
    diff: CensusDiff,
    patch: Patch,
    sha: str = "",
) -> dict[str, str]:
    """The census's failure artifact: before.json, after.json, and the report with the unexpected
    keys, the patch sha256 and the SHA (the compiler command line is added after the build)."""
    if where is None:
        return {}
    paths = {
        "before": where / "before.json",
        "after": where / "after.json",
        "report": where / "census_report.json",
    }
    atomic.write_json(paths["before"], before.to_json(), indent=1)
    atomic.write_json(paths["after"], after.to_json(), indent=1)
    report = diff.report() | {"patch_sha256": patch.sha256, "repo_sha": sha}
    atomic.write_json(paths["report"], report)
    return {k: str(v) for k, v in paths.items()}


def add_compiler_command(artifacts: dict[str, str], command: str) -> None:
    path = Path(artifacts["report"])
    report = json.loads(path.read_text())
    report["compiler_command"] = command
    atomic.write_json(path, report)
