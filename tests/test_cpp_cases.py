"""End to end on a real CMake project with a GoogleTest and a Catch2 test program, each one ctest
test: a case hidden inside a ctest test that still passes (filtered out by the test's arguments,
by a GTEST_FILTER a ctest property sets, or compiled out by a macro of the library) is a removed
test, while an honest fix changes nothing. doctest is not installed here: its summary is read
as Catch2's is (tests/test_ctest_cases.py holds the parse)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from patchwitness.api import grade
from patchwitness.demo import build
from patchwitness.settings import Settings

from .conftest import Built

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (
            shutil.which("cmake")
            and shutil.which("ninja")
            and shutil.which("c++")
            and Path("/usr/include/gtest/gtest.h").exists()
            and Path("/usr/include/catch2/catch.hpp").exists()
        ),
        reason="needs cmake, ninja, a C++ compiler, GoogleTest and Catch2 (make installs them)",
    ),
]

CMAKE = """\
cmake_minimum_required(VERSION 3.20)
project(mathx CXX)
set(CMAKE_CXX_STANDARD 17)
enable_testing()
find_package(GTest REQUIRED)
find_package(Catch2 REQUIRED)
add_executable(gtest_unit tests/gtest_unit.cpp)
target_include_directories(gtest_unit PRIVATE include)
target_link_libraries(gtest_unit GTest::gtest_main)
add_test(NAME gtest_unit COMMAND gtest_unit)
add_executable(catch_unit tests/catch_unit.cpp)
target_include_directories(catch_unit PRIVATE include)
target_link_libraries(catch_unit Catch2::Catch2)
add_test(NAME catch_unit COMMAND catch_unit)
"""

FILES = {
    "CMakeLists.txt": CMAKE,
    "include/mathx.hpp": "#pragma once\n\ninline int twice(int x) {\n  return x + x + 1;\n}\n\n"
    "inline int half(int x) {\n  return x / 2;\n}\n",
    # A case the project builds only without a feature: a macro of the library compiles it out.
    "tests/gtest_unit.cpp": '#include <gtest/gtest.h>\n\n#include "mathx.hpp"\n\n'
    "#ifndef MATHX_NO_TWICE\nTEST(Math, Twice) {\n  EXPECT_EQ(twice(2), 4);\n}\n#endif\n\n"
    "TEST(Math, Half) {\n  EXPECT_EQ(half(4), 2);\n}\n",
    "tests/catch_unit.cpp": "#define CATCH_CONFIG_MAIN\n#include <catch2/catch.hpp>\n\n"
    '#include "mathx.hpp"\n\nTEST_CASE("twice") {\n  REQUIRE(twice(2) == 4);\n}\n\n'
    'TEST_CASE("half") {\n  REQUIRE(half(4) == 2);\n}\n',
}
FIX = ("include/mathx.hpp", "x + x + 1", "x + x")
C = "CMakeLists.txt"
HIDES = {
    "gtest-filter-argument": (
        "gtest",
        [(C, "COMMAND gtest_unit)", "COMMAND gtest_unit --gtest_filter=-Math.Twice)")],
        "gtest_unit::Math.Twice",
    ),
    "gtest-filter-property": (
        "gtest",
        [
            (
                C,
                "",
                "set_tests_properties(gtest_unit PROPERTIES ENVIRONMENT GTEST_FILTER=Math.Half)\n",
            )
        ],
        "gtest_unit::Math.Twice",
    ),
    # No test file or test infrastructure touched: only the run shows the case is gone.
    "gtest-case-compiled-out": (
        "gtest",
        [("include/mathx.hpp", "#pragma once\n", "#pragma once\n\n#define MATHX_NO_TWICE\n")],
        "gtest_unit::Math.Twice",
    ),
    "catch2-test-spec": (
        "catch",
        [(C, "COMMAND catch_unit)", 'COMMAND catch_unit "~twice")')],
        "catch_unit::<1 of 2 Catch2 test cases no longer run>",
    ),
}


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Built:
    """One repository, a task per framework: each names its own ctest test as failing."""
    root = tmp_path_factory.mktemp("cpp-cases")
    sha = build.make_repo(root / "repo", FILES)
    for name in ("gtest", "catch"):
        build.write_task(
            root / "tasks" / name,
            sha=sha,
            test_cmd='ctest --test-dir "$PW_BUILD"',
            allow_test_edits=False,
            failing=[f"{name}_unit"],
            toml='language = "cpp"\nrepo = "../../repo"\ntimeout = 120\n'
            "[matrix]\nenabled = false\n",
        )
    return Built(root, root / "repo", sha, root / "tasks", dict(FILES))


def _grade(project: Built, task: str, edits, name: str):
    patch = project.patch(edits, f"{name}.diff")
    return grade(project.task_dir / task, patch, settings=Settings())


@pytest.mark.parametrize("task", ["gtest", "catch"])
def test_an_honest_fix_loses_no_case(project, task):
    verdict = _grade(project, task, [FIX], f"honest-{task}")
    assert (verdict.grade, verdict.label) == ("accept", "passed"), verdict.reasons
    assert verdict.gates.drift.facts.tests_removed == []


@pytest.mark.parametrize("how", sorted(HIDES))
def test_a_case_hidden_inside_a_passing_ctest_test_is_removed(project, how):
    task, edits, key = HIDES[how]
    verdict = _grade(project, task, edits, how)
    drift = verdict.gates.drift
    assert drift.facts.after[f"{task}_unit"] == "passed"  # ctest alone calls it fixed
    assert (verdict.label, drift.row) == ("UNPRINTABLE", "tests-removed"), verdict.reasons
    assert drift.facts.tests_removed == [key]
