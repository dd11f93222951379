"""A C++ task: the project's CMake build and ctest, the build graph read off the SHA's build,
the compiler flag matrix, warm build trees."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from patchwitness import classify, sourcefiles, special, testfiles
from patchwitness.names import LanguageName

if TYPE_CHECKING:
    from patchwitness.suites import Suite
    from patchwitness.suites.cpp import CppSuite


class Cpp:
    name = LanguageName.CPP
    literal_suffix = ".cpp"
    # Executable source a test can run: C and C++, and a Python script the project ships.
    source_suffixes = sourcefiles.CPP | frozenset({".py"})
    classify_rules = classify.CPP_RULES
    flag_matrix = True
    warm_trees = True
    pristine_by_default = False
    production_is_cpp = True  # every production file the build compiles is C or C++
    elsewhere_in_a_fresh_tree = False  # the patched build again: a fresh one is a cold build
    elsewhere_only_failing = False  # a ctest test holds many cases: the whole suite, they first
    pristine_beside = False  # its pristine run is a cold build: it waits for the verdict
    mutants = "one schema"  # all in one text, rebuilt once (phases/cpp_mutants.py)
    compares_with_reference = True  # through a user's program (phases/cpp_reference.py)
    users_program = True  # GoogleTest bodies without the framework (cpp_user_program.py)
    outside = "program"  # the failing cases' bodies as that program (phases/cpp_outside.py)

    def make_suite(self, task, env, runner):
        from patchwitness.suites.cpp import CppSuite

        return CppSuite(task, env, runner)

    def run_warnings(self, suite) -> list[str]:
        return []

    def source_map(self, task, suite, base, patch, tree):
        from patchwitness import sourcemap
        from patchwitness.classify import SourceMap

        graph = base.graph
        commands = graph.compiles.values() if graph is not None else ()
        return SourceMap(cpp_shadows=sourcemap.cpp_shadows(patch, tree, commands))

    def builds(self, task, base, instrument, tests, tree, suite, harness):
        """How the tests' build differs from a user's, read off the SHA's build graph."""
        from patchwitness import sourcemap

        graph = base.graph_for(instrument) or base.graph
        tests = tests | testfiles.cmake_test_sources(task.repo, task.sha)
        return sourcemap.cpp_builds(graph, tests, tree, suite.run_variables())

    def test_sources(self, task) -> frozenset[str]:
        return frozenset(testfiles.cmake_test_sources(task.repo, task.sha))

    def compiled(self, base) -> bool:
        return True

    def coverage_notes(self, facts, task, base) -> None:
        if base.instrumentation is None:
            return
        from patchwitness.suites.cpp import KEEP_INLINE, TEST_TU_NOTE

        facts.flags = list(base.instrumentation.flags)
        if KEEP_INLINE in facts.flags:
            facts.notes.append(TEST_TU_NOTE)
        if facts.flags != list(task.options.coverage.cxx_flags):
            facts.notes.append(
                "fell back to a lesser flag set: the pinned one fails at the SHA ("
                + "; ".join(base.coverage_trials[:-1])
                + ")"
            )

    def failing_test_source(self, task, base, key: str, read: Callable[[str], str]) -> str:
        from patchwitness.languages import inventory_test_source

        found = inventory_test_source(base, key, read)
        if found:
            return found
        # A ctest name for a whole test program (HelpersTest, utils_tests): its cases cannot be
        # told apart, so every literal of its source files counts.
        from patchwitness.census.items import is_test

        programs = {it.file for it in base.inventory.items if is_test(it.kind)}
        programs |= testfiles.cmake_test_sources(task.repo, task.sha)
        return "\n".join(read(f) for f in special.program_sources(key, programs))


def cpp_suite(suite: Suite) -> CppSuite:
    """The C++ suite a warm slot or an envelope needs (imported here: a Python grade never
    loads the C++ half of the grader)."""
    from patchwitness.suites.cpp import CppSuite

    assert isinstance(suite, CppSuite)
    return suite


CPP = Cpp()
