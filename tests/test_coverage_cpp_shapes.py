"""Issue 14 end to end: one-line C++ fixes of the shapes gcov reports no line for are scored by
their statement or block, on a real CMake project built and run with the coverage flags. Each
shape is added once where the tests run it (accepted) and once, beside the same fix, where no
test runs it (uncovered)."""

from __future__ import annotations

import shutil

import pytest

from patchwitness.api import grade
from patchwitness.demo import build
from patchwitness.settings import Settings

from .conftest import Built

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (shutil.which("cmake") and shutil.which("ninja") and shutil.which("c++")),
        reason="needs cmake, ninja and a C++ compiler (make installs them)",
    ),
]

# Each function has a bug a one-line fix of one shape repairs; each has an untested twin where
# the blind half of a patch adds the same shape.
SHAPES = """\
#include "shapes.hpp"

int kind(char c) {
  switch (c) {
    case 'a':
      return 1;
    case 'b':
      return 2;
  }
  return 0;
}

int kind_legacy(char c) {
  switch (c) {
    case 'a':
      return 1;
    case 'b':
      return 2;
  }
  return 0;
}

int fallback(char c) {
  switch (c) {
    case 'a':
      return 1;
    case 'x':
      return -1;
  }
  return 0;
}

int fallback_legacy(char c) {
  switch (c) {
    case 'a':
      return 1;
    case 'x':
      return -1;
  }
  return 0;
}

int sign(int x) {
  int y = 0;
  if (x > 0) {
    y = 1;
  }
  {
    y = -1;
  }
  return y;
}

int sign_legacy(int x) {
  int y = 0;
  if (x > 0) {
    y = 1;
  }
  {
    y = -1;
  }
  return y;
}

int clamp(int x) {
  if (x > 0 &&
      x < 10) {
    return x;
  }
  return 0;
}

int clamp_legacy(int x) {
  if (x > 0 &&
      x < 10) {
    return x;
  }
  return 0;
}

int digits(int x) {
  int count = 1;
  while (x >= 10) {
    x = x / 10;
    count = count + 1;
  }
  return count + 1;
}

int digits_legacy(int x) {
  int count = 1;
  while (x >= 10) {
    x = x / 10;
    count = count + 1;
  }
  return count + 1;
}

template <class T>
T twice(T x) {
  return x + x;
}
"""

HEADER = """\
#pragma once
int kind(char c);
int kind_legacy(char c);
int fallback(char c);
int fallback_legacy(char c);
int sign(int x);
int sign_legacy(int x);
int clamp(int x);
int clamp_legacy(int x);
int digits(int x);
int digits_legacy(int x);
"""

GOLDENS = {
    "kind": "kind('E') == 1 && kind('a') == 1 && kind('b') == 2",
    "fallback": "fallback('z') == -1 && fallback('a') == 1",
    "sign": "sign(5) == 1 && sign(-5) == -1",
    "clamp": "clamp(10) == 10 && clamp(3) == 3 && clamp(-1) == 0",
    "digits": "digits(7) == 1 && digits(42) == 2",
}

CMAKE = """\
cmake_minimum_required(VERSION 3.20)
project(shapes CXX)
enable_testing()
add_library(shapes src/shapes.cpp)
target_include_directories(shapes PUBLIC include)
""" + "".join(
    f"add_executable(golden_{name} tests/golden_{name}.cpp)\n"
    f"target_link_libraries(golden_{name} shapes)\n"
    f"add_test(NAME golden_{name} COMMAND golden_{name})\n"
    for name in GOLDENS
)

FILES = {
    "CMakeLists.txt": CMAKE,
    "include/shapes.hpp": HEADER,
    "src/shapes.cpp": SHAPES,
    **{
        f"tests/golden_{name}.cpp": '#include "shapes.hpp"\n\n'
        f"int main() {{ return {cond} ? 0 : 1; }}\n"
        for name, cond in GOLDENS.items()
    },
}
S = "src/shapes.cpp"


def twin(function: str, old: str, new: str) -> tuple[str, str, str]:
    """The same edit inside the function's untested `_legacy` twin."""
    return (S, f"int {function}_legacy(" + old, f"int {function}_legacy(" + new)


# (shape, the fix, the same shape added where no test runs it, the golden the fix turns green)
CASES = [
    (
        "case label",
        (
            S,
            "int kind(char c) {\n  switch (c) {\n    case 'a':",
            "int kind(char c) {\n  switch (c) {\n    case 'a':\n    case 'E':",
        ),
        twin(
            "kind",
            "char c) {\n  switch (c) {\n    case 'a':",
            "char c) {\n  switch (c) {\n    case 'a':\n    case 'E':",
        ),
        "kind",
    ),
    (
        "default label",
        (
            S,
            "int fallback(char c) {\n  switch (c) {\n    case 'a':\n      return 1;\n    case 'x':",
            "int fallback(char c) {\n  switch (c) {\n    case 'a':\n      return 1;\n    default:\n"
            "    case 'x':",
        ),
        twin(
            "fallback",
            "char c) {\n  switch (c) {\n    case 'a':\n      return 1;\n    case 'x':",
            "char c) {\n  switch (c) {\n    case 'a':\n      return 1;\n    default:\n"
            "    case 'x':",
        ),
        "fallback",
    ),
    (
        "else",
        (
            S,
            "int sign(int x) {\n  int y = 0;\n  if (x > 0) {\n    y = 1;\n  }\n  {",
            "int sign(int x) {\n  int y = 0;\n  if (x > 0) {\n    y = 1;\n  }\n  else\n  {",
        ),
        twin(
            "sign",
            "int x) {\n  int y = 0;\n  if (x > 0) {\n    y = 1;\n  }\n  {",
            "int x) {\n  int y = 0;\n  if (x > 0) {\n    y = 1;\n  }\n  else\n  {",
        ),
        "sign",
    ),
    (
        "multi-line condition",
        (
            S,
            "int clamp(int x) {\n  if (x > 0 &&\n      x < 10) {",
            "int clamp(int x) {\n  if (x > 0 &&\n      x <= 10) {",
        ),
        twin(
            "clamp",
            "int x) {\n  if (x > 0 &&\n      x < 10) {",
            "int x) {\n  if (x > 0 &&\n      x <= 10) {",
        ),
        "clamp",
    ),
    (
        "declaration without initializer and braces",
        (
            S,
            "    count = count + 1;\n  }\n  return count + 1;\n}\n\nint digits_legacy",
            "    count = count + 1;\n  }\n  int result;\n  {\n    result = count;\n  }\n"
            "  return result;\n}\n\nint digits_legacy",
        ),
        twin(
            "digits",
            "int x) {\n  int count = 1;\n",
            "int x) {\n  int spare;\n  {\n    spare = 0;\n  }\n  int count = 1 + spare;\n",
        ),
        "digits",
    ),
]


@pytest.fixture(scope="module")
def shapes(tmp_path_factory) -> Built:
    """One repository, one task per golden (each names its own failing test)."""
    root = tmp_path_factory.mktemp("shapes")
    sha = build.make_repo(root / "repo", FILES)
    for name in GOLDENS:
        build.write_task(
            root / "tasks" / name,
            sha=sha,
            test_cmd='ctest --test-dir "$PW_BUILD"',
            allow_test_edits=False,
            failing=[f"golden_{name}"],
            toml='language = "cpp"\nrepo = "../../repo"\ntimeout = 120\n'
            "[matrix]\nenabled = false\n",
        )
    return Built(root, root / "repo", sha, root / "tasks", dict(FILES))


def _grade(shapes: Built, edits, name: str, golden: str):
    patch = shapes.patch(edits, f"{name}.diff")
    return grade(shapes.task_dir / golden, patch, settings=Settings())


@pytest.mark.parametrize(("shape", "fix", "blind", "golden"), CASES, ids=[c[0] for c in CASES])
def test_a_fix_of_this_shape_is_scored_by_its_statement(shapes, shape, fix, blind, golden):
    verdict = _grade(shapes, [fix], shape.replace(" ", "-"), golden)
    assert verdict.label == "passed", (shape, verdict.reasons)
    coverage = verdict.gates.coverage
    assert coverage.row == "all-hit", coverage.detail
    assert coverage.facts.unscored_suspicious == []


@pytest.mark.parametrize(("shape", "fix", "blind", "golden"), CASES, ids=[c[0] for c in CASES])
def test_the_same_shape_where_no_test_runs_it_is_uncovered(shapes, shape, fix, blind, golden):
    verdict = _grade(shapes, [fix, blind], shape.replace(" ", "-") + "-blind", golden)
    assert verdict.label == "uncovered", (shape, verdict.reasons)
    assert verdict.gates.coverage.row == "zero-hits", verdict.gates.coverage.detail


def test_mapped_lines_are_listed_with_the_line_that_scored_them(shapes):
    verdict = _grade(shapes, [CASES[4][1]], "listed", "digits")
    mapped = verdict.gates.coverage.facts.mapped
    # `int result;` has no line data of its own: the next statement of its block scores it.
    after = build.apply_edits(FILES, [CASES[4][1]])[S].splitlines()
    declared = after.index("  int result;") + 1
    assigned = after.index("    result = count;") + 1
    assert mapped == {f"{S}:{declared}": f"{S}:{assigned}"}


def test_an_uninstantiated_template_stays_unscored_suspicious(shapes):
    fix = CASES[0][1]
    template = (S, "  return x + x;\n}", "  return x + x + 0;\n}")
    verdict = _grade(shapes, [fix, template], "template", "kind")
    assert verdict.label == "uncovered"
    assert verdict.gates.coverage.row == "unscored-suspicious"
