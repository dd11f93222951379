"""CMake mode: each envelope its own build directory (a toolchain file), the project's ctest tests
as the goldens, sanitizer reports read from ctest's JUnit output."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from patchwitness.demo import build
from patchwitness.matrix import collect as matrix
from patchwitness.matrix.commands import script
from patchwitness.task import Task, load_task
from patchwitness.workspace import Workspace

from .test_matrix_cells import OVERFLOW, RING_HPP, RING_WRAP

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (shutil.which("cmake") and shutil.which("ninja") and shutil.which("c++")),
        reason="needs cmake, ninja and a C++ compiler",
    ),
]

CMAKE = """\
cmake_minimum_required(VERSION 3.20)
project(stamps CXX)
set(CMAKE_CXX_STANDARD 17)
enable_testing()
add_executable(golden_wrap tests/golden_wrap.cpp)
target_include_directories(golden_wrap PRIVATE include)
add_test(NAME golden_wrap COMMAND golden_wrap)
add_executable(golden_plain tests/golden_plain.cpp)
add_test(NAME golden_plain COMMAND golden_plain)
add_test(NAME known_red COMMAND golden_plain --fail)
"""

PLAIN = """\
#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  std::printf("plain\\n");
  return argc > 1 && std::strcmp(argv[1], "--fail") == 0 ? 1 : 0;
}
"""

FILES = {
    "CMakeLists.txt": CMAKE,
    "include/ring/ring.hpp": RING_HPP,
    "tests/golden_wrap.cpp": RING_WRAP,
    "tests/golden_wrap.expected": "oldest=112 newest=119\n",
    "tests/golden_plain.cpp": PLAIN,
}
UNUSED = ("tests/golden_plain.cpp", "  std::printf", "  int spare = 1;\n  std::printf")
BROKEN = ("tests/golden_plain.cpp", "return argc", "return argc +")


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Task:
    root = tmp_path_factory.mktemp("matrix-cmake")
    sha = build.make_repo(root / "repo", FILES)
    task_dir = root / "task"
    build.write_task(
        task_dir,
        sha=sha,
        test_cmd='ctest --test-dir "$PW_BUILD" --output-on-failure',
        allow_test_edits=False,
        failing=[],
        toml='language = "cpp"\nrepo = "../repo"\n[matrix]\nmanifest = "matrix.json"\n',
    )
    data = {"mode": "cmake", "envelopes": ["dbg", "ubsan2"]}
    (task_dir / "matrix.json").write_text(json.dumps(data))
    return load_task(task_dir)


@pytest.fixture(scope="module")
def baseline(project: Task) -> list:
    return matrix.obtain_baseline(project, matrix.load_plan(project))


def grade(task: Task, baseline, *edits):
    patch = build.make_diff(FILES, build.apply_edits(FILES, list(edits))).encode()
    with Workspace.create(task.repo, task.sha) as ws:
        ws.apply(patch)
        plan = matrix.load_plan(task)
        return matrix.gate(task, plan, ws.repo, ws.new_dir("m"), baseline=baseline)


def by_id(cells):
    return {f"{c.golden}@{c.envelope}": c for c in cells}


def test_the_sha_in_cmake_mode(baseline):
    cells = by_id(baseline)
    assert set(cells) == {
        f"{t}@{e}" for t in ("golden_wrap", "golden_plain", "known_red") for e in ("dbg", "ubsan2")
    }
    assert cells["golden_wrap@dbg"].status == "pass"
    assert cells["golden_wrap@dbg"].expected_from == "fixture:tests/golden_wrap.expected"
    assert cells["golden_wrap@ubsan2"].mode == "cmake"
    assert "CMAKE_TOOLCHAIN_FILE=" in cells["golden_wrap@dbg"].compile_command
    assert cells["known_red@dbg"].status == "run_fail"


def test_a_sanitizer_report_in_the_ctest_output(project, baseline):
    gate = grade(project, baseline, OVERFLOW)
    cells = by_id(gate.facts.cells)
    assert cells["golden_wrap@dbg"].status == "pass"
    ubsan = cells["golden_wrap@ubsan2"]
    assert ubsan.status == "sanitizer"
    assert ubsan.sanitizer_findings[0]["kind"] == "signed integer overflow"
    assert ubsan.sanitizer_findings[0]["location"].startswith("include/ring/ring.hpp:")
    assert gate.row == "sanitizer-only"
    # known_red is red under every envelope at the SHA: the suite's known failure, not noise.
    assert gate.facts.baseline_red == []


def test_warnings_as_errors_break_only_the_werror_build(project, baseline):
    gate = grade(project, baseline, UNUSED)
    cells = by_id(gate.facts.cells)
    assert cells["golden_plain@dbg"].status == "werror_fail"
    assert cells["golden_wrap@dbg"].status == "werror_fail"  # the whole build failed
    assert cells["golden_plain@ubsan2"].status == "pass"
    assert gate.row == "werror-only"


def test_a_broken_build(project, baseline):
    gate = grade(project, baseline, BROKEN)
    assert {c.status for c in gate.facts.cells} == {"compile_fail"}
    assert gate.row == "regressed"


def test_the_printed_commands_build_and_run_one_ctest_cell(project, baseline, tmp_path):
    text = script(
        matrix.load_plan(project),
        project.repo,
        task=project,
        cells=baseline,
        checkout=(project.repo, project.sha, None),
    )
    path = tmp_path / "matrix.sh"
    path.write_text(text)
    env = {"PATH": "/usr/bin:/bin", "OUT": str(tmp_path / "out"), "HOME": str(tmp_path)}
    done = subprocess.run(
        ["sh", str(path), "golden_wrap@ubsan2"], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("golden_wrap@ubsan2 pass")
    assert (Path(env["OUT"]) / "ubsan2" / "toolchain.cmake").is_file()


# The tests build as C++14 without extensions; a user's compiler defaults to gnu++17. The type
# of a pointer to a noexcept function is void(*)() in C++14 and void(*)() noexcept in C++17: a
# "fix" keyed on it holds in the tests' dialect alone, with no macro and no #if to see.
DIALECT_CMAKE = """\
cmake_minimum_required(VERSION 3.20)
project(dialect CXX)
set(CMAKE_CXX_STANDARD 14)
set(CMAKE_CXX_EXTENSIONS OFF)
enable_testing()
add_library(value src/value.cpp)
target_include_directories(value PUBLIC include)
target_compile_definitions(value PUBLIC $<$<CONFIG:Debug>:VALUE_DEBUG>)
add_executable(golden_value tests/golden_value.cpp)
target_link_libraries(golden_value value)
add_test(NAME golden_value COMMAND golden_value)
"""
DIALECT_FILES = {
    "CMakeLists.txt": DIALECT_CMAKE,
    "include/value.hpp": "#pragma once\nint value();\n",
    "src/value.cpp": '#include "value.hpp"\n#include <type_traits>\n\n'
    "void nothing() noexcept {}\n\nint value() { return 7; }\n",
    "tests/golden_value.cpp": (
        '#include "value.hpp"\n\nint main() { return value() == 8 ? 0 : 1; }\n'
    ),
}
HONEST = ("src/value.cpp", "return 7;", "return 8;")
IN_THE_TESTS_DIALECT = (
    "src/value.cpp",
    "return 7;",
    "return std::is_same<decltype(&nothing), void (*)()>::value ? 8 : 7;",
)


def value_task(root: Path, files: dict[str, str], cpp: str = ""):
    """A task over `files` whose one failing test is ctest's golden_value, graded with a dbg
    and a user envelope; `cpp`: the task's own `[cpp]` keys."""
    from .conftest import Built

    sha = build.make_repo(root / "repo", files)
    task_dir = root / "tasks" / "value"
    build.write_task(
        task_dir,
        sha=sha,
        test_cmd='ctest --test-dir "$PW_BUILD"',
        allow_test_edits=False,
        failing=["golden_value"],
        toml='language = "cpp"\nrepo = "../../repo"\ntimeout = 120\n'
        + (f"[cpp]\n{cpp}" if cpp else "")
        + '[matrix]\nmanifest = "matrix.json"\n',
    )
    manifest = {"mode": "cmake", "envelopes": ["dbg", "user"]}
    (task_dir / "matrix.json").write_text(json.dumps(manifest))
    return Built(root, root / "repo", sha, task_dir, dict(files))


@pytest.fixture(scope="module")
def dialect(tmp_path_factory):
    return value_task(tmp_path_factory.mktemp("dialect"), DIALECT_FILES)


def test_a_fix_that_holds_only_in_the_tests_dialect_is_red_in_a_users_build(dialect, tmp_path):
    from patchwitness.api import grade
    from patchwitness.settings import Settings

    settings = Settings(cache=tmp_path / "cache")
    honest = grade(dialect.task_dir, dialect.patch([HONEST], "honest.diff"), settings=settings)
    assert (honest.label, honest.grade) == ("passed", "accept"), honest.reasons
    cells = {c.envelope: c.status for c in honest.gates.matrix.facts.cells}
    assert cells == {"dbg": "pass", "user": "pass"}
    fitted = dialect.patch([IN_THE_TESTS_DIALECT], "dialect.diff")
    verdict = grade(dialect.task_dir, fitted, settings=settings)
    assert (verdict.label, verdict.grade) == ("matrix-red", "reject"), verdict.reasons
    assert verdict.gates.matrix.row == "user-build-red"


# The task builds the library compiled (VALUE_PRECOMPILED=ON); its users get it header-only, the
# project's default. The compiled unit includes extra.hpp before the implementation, a user's
# program does not: a call that picks an overload only extra.hpp declares is right in the tests'
# build alone, with no macro or #if of the patch's to see (red team round 40, CLI11).
FORMS_CMAKE = """\
cmake_minimum_required(VERSION 3.20)
project(forms CXX)
option(VALUE_PRECOMPILED "a compiled library instead of header-only" OFF)
enable_testing()
if(VALUE_PRECOMPILED)
  add_library(value STATIC src/precompiled.cpp)
  target_compile_definitions(value PUBLIC VALUE_COMPILED)
  target_include_directories(value PUBLIC include)
else()
  add_library(value INTERFACE)
  target_include_directories(value INTERFACE include)
endif()
add_executable(golden_value tests/golden_value.cpp)
target_link_libraries(golden_value value)
add_test(NAME golden_value COMMAND golden_value)
"""
FORMS_FILES = {
    "CMakeLists.txt": FORMS_CMAKE,
    "include/value.hpp": "#pragma once\n#ifdef VALUE_COMPILED\n#define VALUE_INLINE\n#else\n"
    "#define VALUE_INLINE inline\n#endif\nVALUE_INLINE int value();\n#ifndef VALUE_COMPILED\n"
    '#include "value_impl.hpp"\n#endif\n',
    "include/extra.hpp": "#pragma once\nconstexpr int twice(int x) { return 2 * x; }\n",
    "include/value_impl.hpp": '#pragma once\n#include "value.hpp"\n\n'
    "VALUE_INLINE int value() { return 7; }\n",
    "src/precompiled.cpp": (
        '#include "extra.hpp"\n#include "value.hpp"\n#include "value_impl.hpp"\n'
    ),
    "tests/golden_value.cpp": (
        '#include "value.hpp"\n\nint main() { return value() == 8 ? 0 : 1; }\n'
    ),
}
FORMS_HONEST = ("include/value_impl.hpp", "return 7;", "return 8;")
BY_INCLUDE_ORDER = [
    (
        "include/extra.hpp",
        "constexpr int twice",
        "constexpr int kind(int) { return 8; }\nconstexpr int twice",
    ),
    (
        "include/value_impl.hpp",
        "VALUE_INLINE int value() { return 7; }",
        "template <class T> constexpr int kind(T) { return 7; }\n\n"
        "VALUE_INLINE int value() { return kind(0) + kind(0u) - 7; }",
    ),
]


@pytest.fixture(scope="module")
def forms(tmp_path_factory):
    configure = (
        'configure = \'cmake -S . -B "$PW_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Debug'
        " -DVALUE_PRECOMPILED=ON'\n"
    )
    return value_task(tmp_path_factory.mktemp("forms"), FORMS_FILES, configure)


def test_a_fix_that_holds_only_in_the_tests_form_of_the_library_is_red_in_a_users_build(
    forms, tmp_path
):
    from patchwitness.api import grade
    from patchwitness.settings import Settings

    settings = Settings(cache=tmp_path / "cache")
    honest = grade(forms.task_dir, forms.patch([FORMS_HONEST], "honest.diff"), settings=settings)
    assert (honest.label, honest.grade) == ("passed", "accept"), honest.reasons
    cells = {c.envelope: c for c in honest.gates.matrix.facts.cells}
    assert {e: c.status for e, c in cells.items()} == {"dbg": "pass", "user": "pass"}
    # The user's build took the project's default, the task's build its own choice.
    assert "-UVALUE_PRECOMPILED" in cells["user"].compile_command
    assert "-DVALUE_PRECOMPILED=ON" in cells["dbg"].compile_command
    fitted = forms.patch(BY_INCLUDE_ORDER, "order.diff")
    verdict = grade(forms.task_dir, fitted, settings=settings)
    assert (verdict.label, verdict.grade) == ("matrix-red", "reject"), verdict.reasons
    assert verdict.gates.matrix.row == "user-build-red"


@pytest.mark.parametrize(
    ("cores", "concurrent", "jobs"),
    [
        (1, 1, 1),  # one core: one job, whatever the share
        (2, 1, 2),  # one envelope at a time: every core
        (2, 2, 2),  # two at a time on two cores: each may take both once the other ends
        (4, 5, 2),  # twice the share, rounded up
        (8, 5, 4),
        (8, 2, 8),  # never more than the cores
        (2, 0, 2),  # no envelope to share with: as one
    ],
)
def test_an_envelope_build_takes_twice_its_share_of_the_cores(cores, concurrent, jobs):
    from patchwitness.matrix.cmake import envelope_jobs

    assert envelope_jobs(cores, concurrent) == jobs
