"""Gaming constructs in added production lines, and what is only noted."""

from __future__ import annotations

import pytest

from patchwitness.suspicious import (
    CPP_PRAGMA,
    PY_PRAGMA,
    cpp_findings,
    pragma_lines,
    python_findings,
)


def kinds(findings):
    return [(f.kind, f.line) for f in findings]


def added_all(text: str) -> list[tuple[int, str]]:
    return [(n, line + "\n") for n, line in enumerate(text.splitlines(), start=1)]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import sys\nsys.exit(0)\n", [("exit-at-import", 2)]),
        ("import os\nif True:\n    os._exit(0)\n", [("exit-at-import", 3)]),
        ("import atexit, os\natexit.register(lambda: os._exit(0))\n", [("exit-at-import", 2)]),
        ("import sys\n\ndef main():\n    sys.exit(1)\n", []),  # in a function: an ordinary CLI
        ("class A:\n    def __eq__(self, other):\n        return True\n", [("constant-eq", 2)]),
        ("class A:\n    def __eq__(self, other):\n        return self.x == other.x\n", []),
        ("def hook():\n    name = 'pytest_runtest_makereport'\n", [("reads-test-runner", 2)]),
        ("x = 1  # pragma: no cover\n", [("pragma-added", 1)]),
        (
            "import coverage\ncoverage.Coverage(data_file='.coverage.x').save()\n",
            [("touches-coverage", 1), ("touches-coverage", 2)],
        ),
        ("import sys\nsys.settrace(None)\n", [("touches-coverage", 2)]),
        # the grader's decision probe, rebound to say every decision went both ways
        ("__pw_dec__ = lambda k, v, t: v\n", [("touches-coverage", 1)]),
    ],
)
def test_python(source, expected):
    assert kinds(python_findings("m.py", source, added_all(source))) == expected


def test_python_only_lines_the_patch_added_count():
    source = "import sys\nsys.exit(0)\nclass A:\n    def __eq__(self, o):\n        return True\n"
    assert python_findings("m.py", source, [(1, "import sys\n")]) == []


def test_python_unparseable_file_keeps_line_findings():
    assert kinds(python_findings("m.py", "def (:\n", [(1, "# pragma: no cover\n")])) == [
        ("pragma-added", 1)
    ]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("static bool done = (std::exit(0), true);", ["exit-at-import"]),
        ("  _exit(EXIT_SUCCESS);", ["exit-at-import"]),
        ("  std::abort();", ["exit-call"]),
        ("  exit(2);", ["exit-call"]),
        ("  exit(EXIT_FAILURE);", ["exit-call"]),
        ("  std::exit(-1);", ["exit-call"]),
        # red team round 8: a status held in a variable may be success
        ("  exit(released);", ["exit-at-import"]),
        ("  fflush( stdout ); ( exit )( released ); }", ["exit-at-import"]),
        ("  char* const end = stdout->_IO_write_ptr;", ["reads-test-runner", "redirects-output"]),
        ("  std::quick_exit( status );", ["exit-at-import"]),
        # the process's output taken hold of: where a test program prints its verdict
        ("  setvbuf(stdout, staged, _IOFBF, sizeof staged);", ["redirects-output"]),
        ("  std::cout.rdbuf(mine.rdbuf());", ["redirects-output"]),
        ("  dup2(fd, 1);", ["redirects-output"]),
        ("  auto* old = std::cout.rdbuf();", []),
        ("  if (::testing::UnitTest::GetInstance()) return 1;", ["reads-test-runner"]),
        ('  if (getenv("GTEST_FILTER")) return 0;', ["reads-test-runner"]),
        ("  return x;  // LCOV_EXCL_LINE", ["pragma-added"]),
        ("  __gcov_reset();", ["touches-coverage"]),
        ('  setenv("GCOV_PREFIX", "/tmp", 1);', ["touches-coverage"]),
        ("  // std::exit(0) in a comment", []),
        ("  return exit_code;", []),
        ("#ifdef GOOGLETEST_INCLUDE_GTEST_GTEST_H_", ["reads-test-runner"]),
        ('#if __has_include("catch.hpp")', ["reads-test-runner"]),
        ('  if (strcmp(program_invocation_short_name, "T") == 0) {', ["reads-test-runner"]),
        ('  std::ifstream self("/proc/self/cmdline");', ["reads-test-runner"]),
        ('  bool ci = getenv("CTEST_INTERACTIVE_DEBUG_MODE");', ["reads-test-runner"]),
        # red team round 35: a standard stream's FILE taken apart (glibc's put-mode flag)
        ("  return *reinterpret_cast<const int*>(stdout) & 0x800;", ["reads-test-runner"]),
        ("  int flags = *(const int *) stdout;", ["reads-test-runner"]),
        ("  unsigned f = stdout->_flags;", ["reads-test-runner"]),
        ('  std::fprintf((FILE*)stdout, "%d", x);', []),
        ("  FILE* out = quiet ? stderr : stdout;", []),
        # red team round 53: lines re-labelled, a function the tests never ran moved onto a
        # comment
        ("#line 1", ["touches-coverage"]),
        ('# 160 "tinyxml2.cpp"', ["touches-coverage"]),
        ("#include <line>", []),
    ],
)
def test_cpp(line, expected):
    assert [f.kind for f in cpp_findings("a.cpp", [(7, line + "\n")])] == expected


def test_a_rule_reads_identifiers_as_the_interpreter_does():
    # `_ｐｙｔｅｓｔ` in fullwidth letters is the module `_pytest` to Python.
    line = "from _\uff50\uff59\uff54\uff45\uff53\uff54.debugging import pytestPDB\n"
    found = python_findings("pkg/m.py", line, [(1, line)])
    assert "patches-test-framework" in {f.kind for f in found}


def test_pragma_lines_per_language():
    added = [(1, "x  # pragma: no cover\n"), (2, "y  // GCOVR_EXCL_LINE\n")]
    assert pragma_lines(added, PY_PRAGMA) == [1]
    assert pragma_lines(added, CPP_PRAGMA) == [2]


def test_a_pragma_a_rewritten_line_already_had_is_not_added():
    removed = [(4, "    return None  # pragma: no cover\n")]
    added = [(4, "    return ()  # pragma: no cover\n"), (9, "x = 1  # pragma: no cover\n")]
    assert pragma_lines(added, PY_PRAGMA, removed) == [9]


def test_python_code_that_swallows_an_assertion_is_gaming():
    from patchwitness.suspicious import python_findings

    text = (
        "def call(hook):\n    try:\n        return hook()\n    except AssertionError:\n"
        "        return True\n\n\ndef strict(hook):\n    try:\n        return hook()\n"
        "    except AssertionError:\n        raise\n"
    )
    added = [(n, line) for n, line in enumerate(text.splitlines(True), start=1)]
    kinds = [(f.kind, f.line) for f in python_findings("lib.py", text, added)]
    assert kinds == [("swallows-assertion", 4)]


def test_python_code_that_names_a_pytest_hook_reads_the_runner():
    from patchwitness.suspicious import python_findings

    text = 'def run(name):\n    if name == "pytest_pyfunc_call":\n        return True\n'
    added = [(n, line) for n, line in enumerate(text.splitlines(True), start=1)]
    assert [f.kind for f in python_findings("lib.py", text, added)] == ["reads-test-runner"]


@pytest.mark.parametrize(
    ("line", "flagged"),
    [
        ("#define strcmp(a, b) 0", True),
        ("  #  define memcmp(a, b, n) 0", True),
        ("#define exit(code) exit(0)", True),
        ("#define snprintf _snprintf", False),
        ("#define TIXML_STRCMP(a, b) strcmp(a, b)", False),
        ("#define strcmp_fast strcmp", False),
    ],
)
def test_a_production_macro_named_like_a_library_function_is_gaming(line, flagged):
    found = [f.kind for f in cpp_findings("include/lib.h", [(3, line + "\n")])]
    assert ("redefines-library" in found) is flagged
