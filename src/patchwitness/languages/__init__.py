"""What a task's language means to a grade, in one place per language.

collect and patched_text ask `of(task)` instead of branching on `task.language`: which suite
runs the tests, what the SHA's project builds or imports as the code under test, how the tests'
build differs from a user's, which gates and phases apply (the flag matrix, warm build trees,
the pristine run beside the patched one), and how a failing test's source is found. A third
language is one more module here and one entry in `LANGUAGES`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from patchwitness.names import LanguageName

if TYPE_CHECKING:
    from patchwitness import baseline as baselines
    from patchwitness.classify import LanguageRules
    from patchwitness.cpp_reads import Builds
    from patchwitness.environment import Environment
    from patchwitness.model import CoverageFacts
    from patchwitness.patch import Patch
    from patchwitness.reads import Harness
    from patchwitness.runner import Runner
    from patchwitness.sourcemap import SourceMap
    from patchwitness.suites import Instrumentation, Suite
    from patchwitness.task import Task


class Language(Protocol):
    name: LanguageName
    literal_suffix: str  # the suffix the special-casing detector reads a test's literals as
    flag_matrix: bool  # the compiler flag matrix grades this language's tasks
    warm_trees: bool  # warm build trees follow a task's grades
    pristine_by_default: bool  # `pristine = "auto"` runs the SHA's tests over the patch
    pristine_beside: bool  # that run may start beside the patched run (no cold build)
    elsewhere_in_a_fresh_tree: bool  # the failing tests elsewhere: in a fresh checkout
    # ... and only they run there (a selection by key); else the whole suite, they first
    elsewhere_only_failing: bool
    # How its added lines are mutated (phases/mutants.py): "each text" in turn, "one schema"
    # rebuilt once, or "" (not mutated).
    mutants: str
    # calls run under the patch and under the reference fix (phases/reference.py)
    compares_with_reference: bool
    # The failing tests' bodies as a user's program (phases/user_program.py): how the reference
    # comparison runs, and a check outside the harness (phases/cpp_outside.py).
    users_program: bool
    # The failing tests outside their harness: "program" (a user's program of the bodies,
    # phases/cpp_outside.py), "script" (the test functions called from a script,
    # phases/python_outside.py).
    outside: str
    production_is_cpp: bool  # every production file is C or C++ (not only those named so)
    source_suffixes: frozenset[str]  # executable source, by name (the coverage gate's)
    classify_rules: LanguageRules  # what production source and build files are (classify.py)

    def make_suite(self, task: Task, env: Environment, runner: Runner) -> Suite: ...

    def run_warnings(self, suite: Suite) -> list[str]: ...

    def source_map(
        self, task: Task, suite: Suite, base: baselines.Baseline, patch: Patch, tree: Path
    ) -> SourceMap: ...

    def builds(
        self,
        task: Task,
        base: baselines.Baseline,
        instrument: Instrumentation | None,
        tests: frozenset[str],
        tree: Path,
        suite: Suite,
        harness: Harness,
    ) -> Builds: ...

    def test_sources(self, task: Task) -> frozenset[str]: ...

    def compiled(self, base: baselines.Baseline) -> bool: ...

    def coverage_notes(
        self, facts: CoverageFacts, task: Task, base: baselines.Baseline
    ) -> None: ...

    def failing_test_source(
        self, task: Task, base: baselines.Baseline, key: str, read: Callable[[str], str]
    ) -> str: ...


def inventory_test_source(base: baselines.Baseline, key: str, read: Callable[[str], str]) -> str:
    """The source of the SHA's test the inventory names `key` (a TEST macro, a test function),
    from its line on; '' when no test of the inventory is so named."""
    from patchwitness import special
    from patchwitness.census.items import is_test

    item = next(
        (
            it
            for it in base.inventory.items
            if is_test(it.kind) and special.names_test(key, it.scope or it.name)
        ),
        None,
    )
    return special.test_source_cpp(read(item.file), item.line) if item is not None else ""


def of(task: Task) -> Language:
    from patchwitness.languages import cpp, python

    languages: dict[LanguageName, Language] = {
        LanguageName.PYTHON: python.PYTHON,
        LanguageName.CPP: cpp.CPP,
    }
    return languages[LanguageName(task.language)]
