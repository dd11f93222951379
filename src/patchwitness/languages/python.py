"""A Python task: pytest with the grader's probe, the package under test found by import, and
a compiled extension (when the task builds one) read as C and C++."""

from __future__ import annotations

from collections.abc import Callable

from patchwitness import classify, hidden, special
from patchwitness.names import LanguageName


class Python:
    name = LanguageName.PYTHON
    literal_suffix = ".py"
    source_suffixes = frozenset({".py"})  # executable source (an extension's C is `compiled`)
    classify_rules = classify.PYTHON_RULES
    flag_matrix = False
    warm_trees = False
    pristine_by_default = True
    production_is_cpp = False  # every production file the build compiles is C or C++
    elsewhere_in_a_fresh_tree = True  # a fresh checkout: a cheap one
    # Only the failing tests it checks run there: what the others do elsewhere is read by no
    # gate, and a whole suite again was the largest cost of a grade of a small suite.
    elsewhere_only_failing = True
    pristine_beside = True
    mutants = "each text"  # each written in place of its file in turn (phases/mutants.py)
    compares_with_reference = True
    users_program = False  # calls captured from the tests stand for a user's
    outside = "script"  # the failing test functions called from one (phases/python_outside.py)

    def make_suite(self, task, env, runner):
        from patchwitness.errors import InvalidTask
        from patchwitness.suites.python import PythonSuite

        if not env.versions.get("pytest"):
            why = env.versions.get("pytest_error") or "not installed"
            raise InvalidTask(f"pytest does not import in the task's environment: {why}"[:400])
        return PythonSuite(task, env, runner)

    def run_warnings(self, suite) -> list[str]:
        if suite.env.surface.plugin_variables() is not None:
            return []
        return [
            "pytest plugins load automatically: this pytest cannot be told the environment's "
            "plugins by name, so a plugin a file of the tree declares could load too"
        ]

    def source_map(self, task, suite, base, patch, tree):
        from patchwitness import sourcemap
        from patchwitness.suites.python import PythonSuite

        assert isinstance(suite, PythonSuite)
        return sourcemap.for_python(task, base, suite.env)

    def builds(self, task, base, instrument, tests, tree, suite, harness):
        """A compiled extension runs under the environment a test of the SHA's run saw; the
        grader builds it with its coverage flags, a user without."""
        from patchwitness import sourcemap

        flags = instrument.flags if instrument is not None else ()
        return sourcemap.cpp_builds(
            None,
            frozenset(),
            tree,
            harness.variables,
            extension_flags=flags,
            modules=harness.modules | harness.test_modules,
        )

    def test_sources(self, task) -> frozenset[str]:
        return frozenset()

    def compiled(self, base) -> bool:
        """C and C++ are executable source when the run built the extension with gcov's flags."""
        return bool(base.instrumentation and base.instrumentation.flags)

    def coverage_notes(self, facts, task, base) -> None:
        return None

    def failing_test_source(self, task, base, key: str, read: Callable[[str], str]) -> str:
        if "::" not in key:
            from patchwitness.languages import inventory_test_source

            return inventory_test_source(base, key, read)
        return special.test_source_python(read(hidden.key_file(key)), key)


PYTHON = Python()
