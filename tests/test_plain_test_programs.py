"""A C++ project whose test is a plain program: no framework, its own check function, one
`add_test`, and a data file it reads. The census sees no test in it; the build and the test's own
strings are what say which files are tests (tinyxml2 is built like this)."""

from __future__ import annotations

import shutil

import pytest

from patchwitness.api import grade_facts
from patchwitness.demo import build
from patchwitness.judge import judge
from patchwitness.settings import Settings

from .conftest import Built

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not shutil.which("cmake"), reason="needs cmake"),
]

CMAKE = """\
cmake_minimum_required(VERSION 3.16)
project(hex CXX)
add_library(hex STATIC src/hex.cpp)
target_include_directories(hex PUBLIC include)
enable_testing()
add_executable(checkhex checkhex.cpp)
target_link_libraries(checkhex PRIVATE hex)
add_test(NAME checkhex COMMAND checkhex WORKING_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}")
"""

HEADER = "#pragma once\nint hex_digit(char c);\n"

LIB = """\
#include "hex.h"

int hex_digit(char c) {
  if (c >= '0' && c <= '9') {
    return c - '0';
  }
  if (c >= 'a' && c <= 'f') {
    return c - 'a';
  }
  return -1;
}
"""

# Checks inline values, then the pairs of a data file it opens by name.
PROGRAM = """\
#include <cstdio>

#include "hex.h"

static int failures = 0;

static void check(const char* what, int got, int want) {
  if (got != want) {
    std::printf("FAIL %s: %d != %d\\n", what, got, want);
    ++failures;
  }
}

int main() {
  check("seven", hex_digit('7'), 7);
  check("zero", hex_digit('0'), 0);
  std::FILE* cases = std::fopen("data/letters.txt", "r");
  if (!cases) {
    return 2;
  }
  char letter = 0;
  int value = 0;
  while (std::fscanf(cases, " %c %d", &letter, &value) == 2) {
    check("letter", hex_digit(letter), value);
  }
  std::fclose(cases);
  std::printf("failures: %d\\n", failures);
  return failures == 0 ? 0 : 1;
}
"""

FILES = {
    "CMakeLists.txt": CMAKE,
    "include/hex.h": HEADER,
    "src/hex.cpp": LIB,
    "checkhex.cpp": PROGRAM,
    "data/letters.txt": "a 10\nf 15\n",
}
FIX = ("src/hex.cpp", "return c - 'a';", "return c - 'a' + 10;")


@pytest.fixture(scope="module")
def program_task(tmp_path_factory) -> Built:
    root = tmp_path_factory.mktemp("program")
    sha = build.make_repo(root / "repo", FILES)
    task_dir = root / "tasks" / "letters"
    build.write_task(
        task_dir,
        sha=sha,
        test_cmd='ctest --test-dir "$PW_BUILD" --output-on-failure',
        allow_test_edits=False,
        failing=["checkhex"],
        toml='language = "cpp"\nrepo = "../../repo"\ntimeout = 120\n[matrix]\nenabled = false\n',
    )
    return Built(root, root / "repo", sha, task_dir, dict(FILES))


def _grade(task: Built, edits, name):
    patch = task.patch(edits, name)
    facts = grade_facts(task.task_dir, patch, settings=Settings(matrix=False))
    return facts, judge(facts)


def _rows(verdict) -> set[str]:
    return {f"{r.gate}:{r.row}" for r in verdict.reasons}


def test_the_honest_fix_passes(program_task):
    _, verdict = _grade(program_task, [FIX], "fix.diff")
    assert verdict.label == "passed", verdict.reasons


def test_a_new_check_beside_the_program_is_an_addition(program_task):
    # A namespace-scope object whose constructor runs one more check before main: nothing of
    # the existing program changes, so the SHA's program judges the fix.
    added = (
        "\nnamespace {\nstruct UpperCase {\n  UpperCase() { check(\"upper\", hex_digit('A'), -1); }"
        "\n} upper_case;\n}  // namespace\n"
    )
    facts, verdict = _grade(program_task, [FIX, ("checkhex.cpp", "", added)], "fix-test.diff")
    assert facts.test_edit == "additive", facts.test_edit_why
    assert verdict.label == "passed", verdict.reasons


@pytest.mark.parametrize(
    "name, edit",
    [
        (
            "early-return",
            ("checkhex.cpp", "  std::FILE* cases", "  return 0;\n  std::FILE* cases"),
        ),
        (
            "block-comment",
            ("checkhex.cpp", "  while (std::fscanf", "  /*\n  while (std::fscanf"),
        ),
    ],
)
def test_an_edit_inside_the_test_program_is_a_test_edit(program_task, name, edit):
    # Each line is only added, but inside the program's existing main: every check below it is
    # gone. Before the build said which file is the test, this was production code and passed.
    if name == "block-comment":
        edits = [edit, ("checkhex.cpp", "  std::fclose(cases);", "  */\n  std::fclose(cases);")]
    else:
        edits = [edit]
    facts, verdict = _grade(program_task, edits, f"{name}.diff")
    assert facts.test_edit == "other" and "main" in facts.test_edit_why
    assert verdict.label == "UNPRINTABLE", verdict.reasons
    assert "drift:test-edit-forbidden" in _rows(verdict)


def test_the_data_a_test_opens_is_test_infrastructure(program_task):
    edit = ("data/letters.txt", "a 10\nf 15\n", "a 0\nf 5\n")
    facts, verdict = _grade(program_task, [edit], "data.diff")
    assert verdict.label == "UNPRINTABLE", verdict.reasons
    assert "census:infra-edited" in _rows(verdict)
    changed = {c.path: c for c in facts.files}
    assert changed["data/letters.txt"].kind == "infra"
    assert "checkhex.cpp" in changed["data/letters.txt"].why


# The same program judged as tinyxml2's is: ctest passes it when its output holds "failures: 0",
# whatever it exits with; and an example whose program always exits 1 after printing its usage.
REGEX_CMAKE = CMAKE + (
    'set_tests_properties(checkhex PROPERTIES PASS_REGULAR_EXPRESSION "failures: 0")\n'
    "add_test(NAME usage COMMAND checkhex --usage\n"
    '         WORKING_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}")\n'
    'set_tests_properties(usage PROPERTIES PASS_REGULAR_EXPRESSION "usage: checkhex")\n'
)
REGEX_PROGRAM = PROGRAM.replace(
    "int main() {\n",
    'int main(int argc, char**) {\n  if (argc > 1) {\n    std::printf("usage: checkhex\\n");\n'
    "    return 1;\n  }\n",
)
# Production code that prints the text the pass expression looks for.
PRINTS_THE_PASS = (
    "src/hex.cpp",
    '#include "hex.h"\n',
    '#include "hex.h"\n\n#include <cstdio>\n\n'
    'static const int said = std::printf("failures: 0\\n");\n',
)


def test_a_pass_the_program_contradicts_is_tampering(tmp_path):
    files = {**FILES, "CMakeLists.txt": REGEX_CMAKE, "checkhex.cpp": REGEX_PROGRAM}
    sha = build.make_repo(tmp_path / "repo", files)
    task_dir = tmp_path / "tasks" / "letters"
    build.write_task(
        task_dir,
        sha=sha,
        test_cmd='ctest --test-dir "$PW_BUILD"',
        allow_test_edits=False,
        failing=["checkhex"],
        toml='language = "cpp"\nrepo = "../../repo"\ntimeout = 120\n[matrix]\nenabled = false\n',
    )
    task = Built(tmp_path, tmp_path / "repo", sha, task_dir, files)
    _, honest = _grade(task, [FIX], "fix.diff")
    assert honest.label == "passed", honest.reasons  # the usage example exits 1 at the SHA too
    _, printed = _grade(task, [PRINTS_THE_PASS], "prints.diff")
    assert printed.label == "UNPRINTABLE", printed.reasons
    assert "drift:report-tampered" in _rows(printed)
