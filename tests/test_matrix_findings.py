"""End to end on a CMake project with undefined behaviour of its own at the SHA: the flag matrix
matches the patched run's sanitizer findings with the SHA's through the patch's line map, so a
finding the SHA had (moved by the lines a fix adds above it) is no patch's doing, and a new one
still is."""

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

CMAKE = """\
cmake_minimum_required(VERSION 3.20)
project(bytes CXX)
set(CMAKE_CXX_STANDARD 17)
enable_testing()
foreach(name golden_sum golden_word)
  add_executable(${name} tests/${name}.cpp)
  target_include_directories(${name} PRIVATE include)
  add_test(NAME ${name} COMMAND ${name})
endforeach()
"""

# The project's own UB: a word read in place through a reference its tests bind to a misaligned
# address. UBSan reports it in every test at the SHA; checksum has the task's bug (`+ 1`).
BYTES = """\
#pragma once

#include <cstdint>

namespace bytes {

// The low byte of the little-endian word at p, read in place.
inline int low_byte_at(const unsigned char* p) {
  const std::uint32_t& word = *reinterpret_cast<const std::uint32_t*>(p);
  return static_cast<int>(word & 0xffu);
}

inline int checksum(const unsigned char* data, int n) {
  int sum = 0;
  for (int i = 0; i + 4 <= n; i += 4) {
    sum += low_byte_at(data + i);
  }
  return sum + 1;
}

}  // namespace bytes
"""

GOLDEN_SUM = """\
#include <cstdio>

#include "bytes.hpp"

int main() {
  alignas(4) unsigned char buffer[13] = {0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0};
  int sum = bytes::checksum(buffer + 1, 12);
  std::printf("sum=%d\\n", sum);
  return sum == 6 ? 0 : 1;
}
"""

GOLDEN_WORD = """\
#include "bytes.hpp"

int main() {
  alignas(4) unsigned char buffer[5] = {0, 1, 0, 0, 0};
  return bytes::low_byte_at(buffer + 1) == 1 ? 0 : 1;
}
"""

FILES = {
    "CMakeLists.txt": CMAKE,
    "include/bytes.hpp": BYTES,
    "tests/golden_sum.cpp": GOLDEN_SUM,
    "tests/golden_word.cpp": GOLDEN_WORD,
}
H = "include/bytes.hpp"
# The fix names the word's size in lines added above the finding, which moves it by three.
FIX = [
    (
        H,
        "namespace bytes {\n\n",
        "namespace bytes {\n\n// The bytes one word spans.\nconstexpr int word_size = 4;\n\n",
    ),
    (H, "i + 4 <= n; i += 4", "i + word_size <= n; i += word_size"),
    (H, "return sum + 1;", "return sum;"),
]
# The same fix, and a misaligned read of its own on a line it adds, reached first.
NEW_UB = [
    *FIX,
    (
        H,
        "  int sum = 0;\n",
        "  const std::uint32_t& first = *reinterpret_cast<const std::uint32_t*>(data);\n"
        "  int sum = static_cast<int>(first & 0u);\n",
    ),
]


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Built:
    root = tmp_path_factory.mktemp("matrix-findings")
    sha = build.make_repo(root / "repo", FILES)
    task_dir = root / "tasks" / "checksum"
    build.write_task(
        task_dir,
        sha=sha,
        test_cmd='ctest --test-dir "$PW_BUILD"',
        allow_test_edits=False,
        failing=["golden_sum"],
        toml='language = "cpp"\nrepo = "../../repo"\ntimeout = 120\n',
    )
    return Built(root, root / "repo", sha, task_dir, dict(FILES))


def _grade(project: Built, edits, name: str):
    return grade(project.task_dir, project.patch(edits, f"{name}.diff"), settings=Settings())


def test_a_fix_above_the_shas_own_finding_is_not_matrix_red(project):
    verdict = _grade(project, FIX, "fix")
    matrix = verdict.gates.matrix
    assert matrix is not None
    assert verdict.label == "passed", verdict.reasons
    assert matrix.row == "baseline-red", matrix.detail
    sanitizer = {c.envelope: c for c in matrix.facts.cells if c.golden == "golden_sum"}
    assert sanitizer["dbg"].status == "pass"
    assert sanitizer["ubsan2"].status == "sanitizer"
    # The finding moved by the three lines the fix added; at the SHA it was three lines up.
    moved = sanitizer["ubsan2"].sanitizer_findings[0]["location"]
    before = next(
        c for c in matrix.facts.baseline if (c.golden, c.envelope) == ("golden_sum", "ubsan2")
    ).sanitizer_findings[0]["location"]
    assert before.startswith(f"{H}:9:") and moved.startswith(f"{H}:12:")
    assert any(
        f.startswith("golden_sum@ubsan2: reference binding to misaligned address")
        for f in matrix.facts.carried
    )
    assert matrix.facts.new_red == []


def test_a_fix_that_adds_undefined_behaviour_of_its_own_is_still_matrix_red(project):
    verdict = _grade(project, NEW_UB, "new-ub")
    matrix = verdict.gates.matrix
    assert matrix is not None
    assert verdict.label == "matrix-red", verdict.reasons
    assert matrix.row == "sanitizer-only", matrix.detail
    assert "golden_sum@ubsan2" in matrix.facts.new_red
