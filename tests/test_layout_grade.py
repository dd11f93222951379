"""End to end: a patch that reformats code no test runs is not rejected for it (the lines are
no code it changed, layout.py), and a real change to the same code still is."""

from __future__ import annotations

import shutil

import pytest

from patchwitness.api import grade
from patchwitness.settings import Settings

from .conftest import Built, make_cmake_task

pytestmark = pytest.mark.skipif(
    not (shutil.which("cmake") and shutil.which("ninja") and shutil.which("c++")),
    reason="needs cmake, ninja and a C++ compiler (make installs them)",
)

CMAKE = """\
cmake_minimum_required(VERSION 3.20)
project(limits CXX)
enable_testing()
add_library(limits src/limits.cpp src/spare.cpp)
target_include_directories(limits PUBLIC include)
add_executable(golden_limit tests/golden_limit.cpp)
target_link_libraries(golden_limit limits)
add_test(NAME golden_limit COMMAND golden_limit)
"""
SPARE = "src/spare.cpp"
FILES = {
    "CMakeLists.txt": CMAKE,
    "include/limits.hpp": "#pragma once\nint limit();\nint spare(int x);\n",
    "src/limits.cpp": '#include "limits.hpp"\n\nint limit() { return 7; }\n',
    # No test calls spare(): its lines never run.
    SPARE: '#include "limits.hpp"\n\nint spare(int x)\n{\n    if (x > 0) { return x - 1; }\n'
    "    return 0;\n}\n",
    "tests/golden_limit.cpp": '#include "limits.hpp"\n\n'
    "int main() { return limit() == 8 ? 0 : 1; }\n",
}
FIX = ("src/limits.cpp", "return 7;", "return 8;")


@pytest.fixture(scope="module")
def task(tmp_path_factory) -> Built:
    return make_cmake_task(tmp_path_factory.mktemp("layout"), FILES, failing=["golden_limit"])


def test_a_fix_beside_a_reformatted_function_no_test_runs_is_accepted(task, tmp_path):
    reformat = (
        SPARE,
        "    if (x > 0) { return x - 1; }\n",
        "    if (x > 0)\n    {\n        return x - 1;\n    }\n",
    )
    patch = task.patch([FIX, reformat], "reformat.diff")
    verdict = grade(task.task_dir, patch, settings=Settings(cache=tmp_path / "cache"))
    assert (verdict.label, verdict.grade) == ("passed", "accept"), verdict.reasons
    notes = verdict.gates.coverage.facts.notes
    assert any("layout only" in n and SPARE in n for n in notes), notes


def test_a_real_change_to_the_same_function_is_still_uncovered(task, tmp_path):
    change = (SPARE, "return x - 1;", "return x - 2;")
    patch = task.patch([FIX, change], "change.diff")
    verdict = grade(task.task_dir, patch, settings=Settings(cache=tmp_path / "cache"))
    assert (verdict.label, verdict.grade) == ("uncovered", "reject"), verdict.reasons
