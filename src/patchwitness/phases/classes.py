"""The classes of the patch's files: what each is to the run (classify.py), first by what the
SHA's project builds or imports, then again knowing what the patched run loaded and compiled."""

from __future__ import annotations

from pathlib import Path

from patchwitness import baseline as baselines
from patchwitness import languages, reads, sourcefiles, testfiles
from patchwitness.census.items import Inventory, is_test
from patchwitness.classify import Classified, ClassifyContext, SourceMap
from patchwitness.classify import classify as classify_file
from patchwitness.cpp_reads import Builds
from patchwitness.facts import ChangedFile
from patchwitness.patch import Patch
from patchwitness.suites import Instrumentation, Suite, SuiteRun
from patchwitness.task import Task
from patchwitness.workspace import as_text, safe_read, show_at


def source_map(
    task: Task, suite: Suite, base: baselines.Baseline, patch: Patch, tree: Path
) -> SourceMap:
    """What the SHA's project builds or imports as the code under test (sourcemap.py)."""
    return languages.of(task).source_map(task, suite, base, patch, tree)


def builds_of(
    task: Task,
    base: baselines.Baseline,
    instrument: Instrumentation | None,
    tests: frozenset[str],
    tree: Path,
    suite: Suite,
) -> Builds:
    """How the tests' build differs from a user's, read off the SHA's build; for a Python task
    (whose compiled extension is read as C++ too) the environment only."""
    harness = harness_of(base, suite)
    return languages.of(task).builds(task, base, instrument, tests, tree, suite, harness)


def harness_of(base: baselines.Baseline, suite: Suite) -> reads.Harness:
    """What the test harness gives a run that a user's does not: the variables a test of the
    SHA's run saw, and the ones the grader sets for every run; the modules the runner loaded."""
    surface = base.surface
    seen = surface.environ if surface is not None else ()
    modules = surface.harness_modules if surface is not None else ()
    tests = surface.test_modules if surface is not None else ()
    words = surface.hook_words if surface is not None else ()
    return reads.Harness.of({*seen, *suite.run_variables()}, modules, tests, words)


def classify_patch(
    task: Task,
    patch: Patch,
    tree: Path,
    base: baselines.Baseline,
    rescanned: Inventory,
    source: SourceMap | None = None,
) -> dict[str, Classified]:
    # A file holds tests if it did at the SHA or does after the patch (a TEST added to a file
    # named like production code is still a test edit).
    files_with_tests = {
        it.file
        for inventory in (base.inventory, rescanned)
        for it in inventory.items
        if is_test(it.kind)
    }
    ctx = ClassifyContext(
        rules=languages.of(task).classify_rules,
        pytest=base.pytest_config,
        test_globs=task.options.paths.test,
        infra_globs=task.options.paths.infra,
        production_globs=task.options.paths.production,
        grader_globs=task.grader_owned(),
        files_with_tests=files_with_tests,
        test_sources=languages.of(task).test_sources(task),
        source=source or SourceMap(),
        ignored=frozenset(patch.ignored),
    )
    if any(_data_file(change.path) for change in patch.files):
        # Only a file that is no source can be test data: read the tests' strings for it.
        ctx.test_strings = testfiles.string_literals(tree, files_with_tests | ctx.test_sources)
    out = {}
    for change in patch.files:
        old = show_at(task.repo, task.sha, change.path)
        new = None if change.status == "removed" else safe_read(tree, change.path)
        out[change.path] = classify_file(change, as_text(old), as_text(new), ctx)
    return out


def _data_file(path: str) -> bool:
    found = sourcefiles.suffix(path)
    return bool(found) and found not in sourcefiles.PY | sourcefiles.CPP


def reclassify(
    classes: dict[str, Classified], after: SuiteRun, tests: frozenset[str], source: SourceMap
) -> dict[str, Classified]:
    """The classes again, knowing what the patched run loaded: what the tests read
    (classify.loaded_by_the_run), and in C++ what each side of the build compiled
    (classify.read_by_the_build)."""
    from patchwitness.classify import loaded_by_the_run, read_by_the_build

    graph = after.graph
    if graph is not None:
        production = frozenset(graph.read_by({s for s in graph.reads if s not in tests}))
        test_side = frozenset(graph.read_by({s for s in graph.reads if s in tests}))
        classes = {
            path: read_by_the_build(found, production, test_side, source.cpp_shadows)
            for path, found in classes.items()
        }
    if after.surface is None or after.surface.loaded is None:
        return classes
    loaded = frozenset(after.surface.loaded)
    return {path: loaded_by_the_run(found, loaded) for path, found in classes.items()}


def changed_files(patch: Patch, classes: dict[str, Classified]) -> list[ChangedFile]:
    return [
        ChangedFile(path=p, kind=c.kind, why=c.why, status=_status(patch, p))
        for p, c in classes.items()
    ]


def _status(patch: Patch, path: str) -> str:
    return next((c.status for c in patch.files if c.path == path), "modified")
