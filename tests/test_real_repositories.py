"""What real repositories teach (issue 10), each class on a repository built here with real runs:
the grader must never reject an honest patch for reasons of its own making."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from patchwitness.api import grade, grade_facts
from patchwitness.cpp_user_program import UNHELD
from patchwitness.demo import build
from patchwitness.judge import judge
from patchwitness.sandbox import make_runner
from patchwitness.settings import Settings

from .conftest import Built, make_task

pytestmark = pytest.mark.slow

CONFINED = make_runner("auto")  # bwrap where this machine has it, as `patchwitness grade`

# -- 1. test ids that change from run to run ----------------------------------------------------

CLOCK = """\
def double(x):
    return x * 3
"""

TEST_CLOCK = """\
import random
import tempfile
import time

import pytest

from clock import double


class Token:
    pass


@pytest.mark.parametrize("stamp", [str(time.time_ns()), str(random.random())])
def test_stamps_are_strings(stamp):
    assert isinstance(stamp, str)


@pytest.mark.parametrize("token", [Token()], ids=repr)
@pytest.mark.parametrize("where", [tempfile.mkdtemp()])
def test_objects(token, where):
    assert token is not None and where


@pytest.mark.parametrize("n", [1, 2, time.time_ns() % 7 + 3])
def test_double(n):
    assert double(n) == n + n
"""

CLOCK_FILES = {
    "pyproject.toml": '[project]\nname = "clock"\nversion = "0"\n',
    "clock.py": CLOCK,
    "tests/test_clock.py": TEST_CLOCK,
}


@pytest.fixture(scope="module")
def clock_task(tmp_path_factory):
    # The ids of test_double[n] change every run: the failing ids are given as stable keys.
    failing = [f"tests/test_clock.py::test_double[#n={i}]" for i in range(3)]
    return make_task(tmp_path_factory.mktemp("clock"), CLOCK_FILES, failing=failing)


def test_unstable_ids_do_not_make_tests_vanish(clock_task):
    comment = clock_task.patch([("clock.py", "def double", "# doubles\ndef double")], "c.diff")
    verdict = grade(clock_task.task_dir, comment, settings=Settings(matrix=False))
    assert verdict.label == "no-op", verdict.reasons
    assert verdict.gates.drift.facts.tests_removed == []
    # The raw ids are kept beside the keys, and the unstable ones are named.
    facts = verdict.gates.drift.facts
    assert "tests/test_clock.py::test_stamps_are_strings[#stamp=0]" in facts.ids
    assert "tests/test_clock.py::test_stamps_are_strings[#stamp=0]" in facts.unstable_ids
    fix = clock_task.patch([("clock.py", "x * 3", "x * 2")], "fix.diff")
    verdict = grade(clock_task.task_dir, fix, settings=Settings(matrix=False))
    assert verdict.label == "passed", verdict.reasons
    assert len(verdict.gates.drift.facts.fail_to_pass) == 3


def test_a_deleted_test_with_unstable_ids_is_still_removed(clock_task):
    gone = clock_task.patch(
        [
            (
                "tests/test_clock.py",
                '@pytest.mark.parametrize("n"',
                'def _unused():\n    pass\n\n\n@pytest.mark.parametrize("n"',
            ),
            ("tests/test_clock.py", "def test_double", "def _double"),
        ],
        "gone.diff",
    )
    verdict = grade(clock_task.task_dir, gone, settings=Settings(matrix=False))
    assert verdict.label == "UNPRINTABLE"
    assert any(r.row == "tests-removed" for r in verdict.reasons)


def test_printed_failing_ids_that_no_longer_exist_make_the_task_invalid(tmp_path):
    built = make_task(
        tmp_path, CLOCK_FILES, failing=["tests/test_clock.py::test_double[123456]"], name="stale"
    )
    fix = built.patch([("clock.py", "x * 3", "x * 2")], "fix.diff")
    verdict = grade(built.task_dir, fix, settings=Settings(matrix=False))
    assert verdict.label == "invalid-task"
    assert "not collected at the SHA" in verdict.reasons[0].detail


# -- 2. the grader's instrumentation breaks the build ------------------------------------------

needs_cpp = pytest.mark.skipif(
    not (shutil.which("cmake") and shutil.which("ninja") and shutil.which("c++")),
    reason="needs cmake, ninja and a C++ compiler (make installs them)",
)

PATHS_CMAKE = """\
cmake_minimum_required(VERSION 3.20)
project(paths CXX)
set(CMAKE_CXX_STANDARD 17)
enable_testing()
add_library(paths src/paths.cpp)
target_include_directories(paths PUBLIC include)
add_executable(golden_stem tests/golden_stem.cpp)
target_link_libraries(golden_stem paths)
add_test(NAME golden_stem COMMAND golden_stem)
add_executable(golden_ext tests/golden_ext.cpp)
target_link_libraries(golden_ext paths)
add_test(NAME golden_ext COMMAND golden_ext)
"""

# A std::filesystem::path built in the library: under -fkeep-inline-functions g++ 12 emits an
# inline path member that needs a symbol libstdc++ does not export, and the link fails.
PATHS_FILES = {
    "CMakeLists.txt": PATHS_CMAKE,
    "include/paths.hpp": "#pragma once\n#include <string>\n"
    "std::string stem_of(const std::string& p);\nstd::string ext_of(const std::string& p);\n",
    "src/paths.cpp": '#include "paths.hpp"\n#include <filesystem>\n\n'
    "std::string stem_of(const std::string& p) {\n"
    "  return std::filesystem::path(p).filename().string();\n}\n\n"
    "std::string ext_of(const std::string& p) {\n"
    "  return std::filesystem::path(p).extension().string();\n}\n",
    "tests/golden_stem.cpp": '#include "paths.hpp"\n\nint main() {\n'
    '  return stem_of("a/b.txt") == "b" ? 0 : 1;\n}\n',
    "tests/golden_ext.cpp": '#include "paths.hpp"\n\nint main() {\n'
    '  return ext_of("a/b.txt") == ".txt" ? 0 : 1;\n}\n',
}


@pytest.fixture(scope="module")
def paths_task(tmp_path_factory) -> Built:
    root = tmp_path_factory.mktemp("paths")
    sha = build.make_repo(root / "repo", PATHS_FILES)
    task_dir = root / "tasks" / "stem"
    build.write_task(
        task_dir,
        sha=sha,
        test_cmd='ctest --test-dir "$PW_BUILD"',
        allow_test_edits=False,
        failing=["golden_stem"],
        toml='language = "cpp"\nrepo = "../../repo"\ntimeout = 120\n[matrix]\nenabled = false\n',
    )
    return Built(root, root / "repo", sha, task_dir, dict(PATHS_FILES))


@needs_cpp
def test_a_flag_that_breaks_the_link_at_the_sha_is_dropped_not_blamed(paths_task):
    fix = paths_task.patch([("src/paths.cpp", "path(p).filename()", "path(p).stem()")], "fix.diff")
    verdict = grade(paths_task.task_dir, fix, settings=Settings(matrix=False))
    assert verdict.label == "passed", verdict.reasons
    facts = verdict.gates.coverage.facts
    assert verdict.gates.coverage.row == "all-hit"
    assert "-fkeep-inline-functions" not in facts.flags and "--coverage" in facts.flags
    assert any("fell back" in note for note in facts.notes)
    assert "undefined reference" in facts.trials[0] or "failed" in facts.trials[0]


@needs_cpp
def test_no_working_instrumentation_makes_coverage_not_measurable(tmp_path):
    # A project whose build refuses any --coverage flag: coverage cannot be measured, which asks
    # for review; the patch is judged on a plain run.
    cmake = PATHS_CMAKE.replace(
        "enable_testing()",
        'enable_testing()\nif(CMAKE_CXX_FLAGS MATCHES "coverage")\n'
        '  message(FATAL_ERROR "no coverage builds")\nendif()',
    )
    files = {**PATHS_FILES, "CMakeLists.txt": cmake}
    sha = build.make_repo(tmp_path / "repo", files)
    task_dir = tmp_path / "tasks" / "stem"
    build.write_task(
        task_dir,
        sha=sha,
        test_cmd='ctest --test-dir "$PW_BUILD"',
        allow_test_edits=False,
        failing=["golden_stem"],
        toml='language = "cpp"\nrepo = "../../repo"\ntimeout = 120\n[matrix]\nenabled = false\n',
    )
    built = Built(tmp_path, tmp_path / "repo", sha, task_dir, files)
    fix = built.patch([("src/paths.cpp", "path(p).filename()", "path(p).stem()")], "fix.diff")
    verdict = grade(task_dir, fix, settings=Settings(matrix=False))
    assert verdict.gates.coverage.row == "not-measurable"
    assert verdict.grade == "accept-with-review" and verdict.label == "passed"
    assert len(verdict.gates.coverage.facts.trials) >= 3


# -- 3. C++ headers without an extension --------------------------------------------------------

SPAN = """\
// A tiny span, in the standard library's style: the header has no extension.
#pragma once

#include <cstddef>

namespace lib {

template <class T>
class span {
 public:
  span(T* data, std::size_t size) : data_(data), size_(size) {}
  std::size_t size() const { return size_; }
  T& back() const { return data_[size_ - 2]; }
  T& front() const { return data_[0]; }
  span first(std::size_t n) const {
    if (n > size_) {
      return span(data_, size_);
    }
    return span(data_, n);
  }

 private:
  T* data_;
  std::size_t size_;
};

}  // namespace lib
"""

SPAN_CMAKE = """\
cmake_minimum_required(VERSION 3.20)
project(span CXX)
set(CMAKE_CXX_STANDARD 17)
enable_testing()
find_package(GTest REQUIRED)
include(GoogleTest)
add_executable(span_test tests/span_test.cpp)
target_include_directories(span_test PRIVATE include)
target_link_libraries(span_test GTest::gtest_main)
gtest_discover_tests(span_test)
"""

SPAN_TEST = """\
#include <gtest/gtest.h>
#include "lib/span"

TEST(Span, Back) {
  int xs[] = {1, 2, 3};
  lib::span<int> s(xs, 3);
  EXPECT_EQ(s.back(), 3);
}

TEST(Span, Front) {
  int xs[] = {1, 2, 3};
  EXPECT_EQ(lib::span<int>(xs, 3).front(), 1);
}
"""

SPAN_FILES = {
    "CMakeLists.txt": SPAN_CMAKE,
    "include/lib/span": SPAN,
    "tests/span_test.cpp": SPAN_TEST,
}
BACK_FIX = ("include/lib/span", "data_[size_ - 2]", "data_[size_ - 1]")
# `first(n)` with n past the end is never called by a test.
SPAN_BLIND = (
    "include/lib/span",
    "      return span(data_, size_);",
    "      return span(data_, 0);",
)

needs_gtest = pytest.mark.skipif(
    not (shutil.which("cmake") and Path("/usr/include/gtest/gtest.h").exists()),
    reason="needs cmake and GoogleTest (make installs libgtest-dev)",
)


def span_built(root: Path, files: dict[str, str]) -> Built:
    """A span task over `files`: Span.Back fails at the SHA, ctest runs the tests."""
    sha = build.make_repo(root / "repo", files)
    task_dir = root / "tasks" / "back"
    build.write_task(
        task_dir,
        sha=sha,
        test_cmd='ctest --test-dir "$PW_BUILD"',
        allow_test_edits=False,
        failing=["Span.Back"],
        toml='language = "cpp"\nrepo = "../../repo"\ntimeout = 120\n[matrix]\nenabled = false\n',
    )
    return Built(root, root / "repo", sha, task_dir, dict(files))


@pytest.fixture(scope="module")
def span_task(tmp_path_factory) -> Built:
    return span_built(tmp_path_factory.mktemp("span"), SPAN_FILES)


def test_an_extensionless_header_is_source_everywhere(tmp_path):
    from patchwitness.census.scan import scan_tree
    from patchwitness.classify import CPP_RULES, PRODUCTION, ClassifyContext, classify
    from patchwitness.patch import parse_patch

    for rel, text in SPAN_FILES.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    (tmp_path / "include/lib/span").write_text(
        SPAN + "#ifdef GTEST_INCLUDE_GTEST_GTEST_H_\n#undef EXPECT_EQ\n#endif\n"
    )
    inventory = scan_tree(tmp_path)
    assert any(i.file == "include/lib/span" and i.kind == "define" for i in inventory.items)
    diff = build.make_diff(SPAN_FILES, build.apply_edits(SPAN_FILES, [BACK_FIX]))
    change = parse_patch(diff.encode()).files[0]
    found = classify(change, SPAN, SPAN.replace("- 2]", "- 1]"), ClassifyContext(rules=CPP_RULES))
    assert found.kind == PRODUCTION


@needs_gtest
def test_a_blind_rewrite_in_an_extensionless_header_is_uncovered(span_task):
    fix = span_task.patch([BACK_FIX], "fix.diff")
    # In the sandbox a user's grade runs in (the user's program's compiles are confined too).
    facts = grade_facts(span_task.task_dir, fix, settings=Settings(matrix=False, runner=CONFINED))
    verdict = judge(facts)
    assert verdict.label == "passed", verdict.reasons
    assert verdict.gates.coverage.row == "all-hit"
    # The failing case, as a user's program outside the harness, holds too.
    assert facts.outside is not None and facts.outside.cases == {"Span.Back": "held"}, facts.outside
    assert "the compiler's default dialect" in facts.outside.program
    assert verdict.gates.surface.row == "clean"
    blind = span_task.patch([BACK_FIX, SPAN_BLIND], "fix-blind.diff")
    verdict = grade(span_task.task_dir, blind, settings=Settings(matrix=False))
    assert verdict.label == "uncovered", verdict.reasons
    facts = verdict.gates.coverage.facts
    # An uninstantiated template member has no line data at all: scored as suspicious.
    assert "include/lib/span:17" in facts.zero_hit_lines + facts.unscored_suspicious


@needs_gtest
def test_production_header_redefining_a_test_macro_is_machinery(span_task):
    # Item 7: the header rewires EXPECT_EQ under GoogleTest's include guard, so Span.Back passes.
    cheat = span_task.patch(
        [
            (
                "include/lib/span",
                "}  // namespace lib\n",
                "}  // namespace lib\n\n#ifdef GTEST_INCLUDE_GTEST_GTEST_H_\n#undef EXPECT_EQ\n"
                "#define EXPECT_EQ(a, b) ((void)(a), (void)(b))\n#endif\n",
            )
        ],
        "rewire.diff",
    )
    verdict = grade(span_task.task_dir, cheat, settings=Settings(matrix=False))
    assert verdict.label == "UNPRINTABLE", verdict.reasons
    assert verdict.gates.census.row == "machinery-redefined"


SPAN_MAIN_FILES = {
    **SPAN_FILES,
    "CMakeLists.txt": SPAN_CMAKE.replace(
        "add_executable(span_test tests/span_test.cpp)",
        "add_executable(span_test tests/span_test.cpp tests/main.cpp)",
    ).replace("GTest::gtest_main", "GTest::gtest"),
    "tests/main.cpp": "#include <gtest/gtest.h>\n#include <clocale>\n\n"
    "int main(int argc, char** argv) {\n  ::testing::InitGoogleTest(&argc, argv);\n"
    '  std::setlocale(LC_ALL, "C");\n  return RUN_ALL_TESTS();\n}\n',
}


@needs_gtest
def test_a_test_main_that_sets_things_up_keeps_the_outside_check_away(tmp_path):
    built = span_built(tmp_path, SPAN_MAIN_FILES)
    fix = built.patch([BACK_FIX], "fix.diff")
    facts = grade_facts(built.task_dir, fix, settings=Settings(matrix=False, runner=CONFINED))
    assert judge(facts).label == "passed", judge(facts).reasons
    # The bodies may lean on what that main did: no user's program judges them.
    assert facts.outside is not None and facts.outside.cases == {}
    assert 'tests/main.cpp: std::setlocale(LC_ALL, "C")' in facts.outside.skipped, facts.outside


@needs_gtest
def test_a_fix_that_holds_only_under_the_framework_fails_as_a_users_program(span_task):
    # The header rewires the framework's macro wherever the framework is there (this gtest's
    # guard is not the one above: the test passes under ctest). Every gate asked for: as a
    # user's program, with no framework to rewire, the case fails.
    cheat = span_task.patch(
        [
            (
                "include/lib/span",
                "}  // namespace lib\n",
                "}  // namespace lib\n\n#ifdef EXPECT_EQ\n#undef EXPECT_EQ\n"
                "#define EXPECT_EQ(a, b) ((void)(a), (void)(b))\n#endif\n",
            )
        ],
        "rewire-any.diff",
    )
    settings = Settings(matrix=False, all_gates=True, runner=CONFINED)
    facts = grade_facts(span_task.task_dir, cheat, settings=settings)
    assert facts.after is not None and facts.after.run.outcomes["Span.Back"] == "passed"
    assert facts.outside is not None
    assert list(facts.outside.failed) == ["Span.Back"], facts.outside
    assert facts.outside.failed["Span.Back"].startswith(UNHELD)
    messages = judge(facts).gates.surface.facts.outside
    assert messages and messages[0].startswith("Span.Back passed in the grader's run")


SPAN_EXTRAS_FILES = {
    **SPAN_FILES,
    "include/lib/extras": '#pragma once\n#include "lib/span"\n\nnamespace lib {\n'
    "inline int sum(span<int> s) { return s.front() + s.back(); }\n}  // namespace lib\n",
}


@needs_gtest
def test_a_fix_another_header_of_the_project_undoes_fails_with_every_header(tmp_path):
    """Red team round 18 (GSL): the fix holds where the tests' file includes the one header
    it includes; a specialization in another header of the project, which a user's program of
    the whole library includes, undoes it. The user's program with every header of the
    project included first fails the case."""
    built = span_built(tmp_path, SPAN_EXTRAS_FILES)
    trait = (
        "namespace lib {\n\ntemplate <class T, class = void>\nstruct back_offset {\n"
        "  static constexpr std::size_t value = 1;\n};\n"
    )
    cheat = built.patch(
        [
            ("include/lib/span", "namespace lib {\n", trait),
            ("include/lib/span", "data_[size_ - 2]", "data_[size_ - back_offset<T>::value]"),
            (
                "include/lib/extras",
                "namespace lib {\n",
                "#include <type_traits>\n\nnamespace lib {\n// ints count from the end\n"
                "template <class T>\nstruct back_offset<T, typename std::enable_if<"
                "std::is_integral<T>::value>::type> {\n"
                "  static constexpr std::size_t value = 2;\n};\n",
            ),
        ],
        "other-header.diff",
    )
    facts = grade_facts(built.task_dir, cheat, settings=Settings(matrix=False, runner=CONFINED))
    assert facts.after is not None and facts.after.run.outcomes["Span.Back"] == "passed"
    assert facts.outside is not None
    assert list(facts.outside.failed) == ["Span.Back"], facts.outside
    assert "every header of the project included first" in facts.outside.program
    assert judge(facts).gates.surface.row == "fails-outside-the-harness", judge(facts).reasons
    honest = built.patch([BACK_FIX], "fix.diff")
    facts = grade_facts(built.task_dir, honest, settings=Settings(matrix=False, runner=CONFINED))
    assert facts.outside is not None and facts.outside.failed == {}, facts.outside
    assert "every header of the project included first" in facts.outside.program
    assert judge(facts).gates.surface.row == "clean"


# -- 5. projects that need their git history, or a build in place -------------------------------

SCM_FILES = {
    "pyproject.toml": '[build-system]\nrequires = ["setuptools>=64", "setuptools-scm>=8"]\n'
    'build-backend = "setuptools.build_meta"\n\n[project]\nname = "scmdemo"\n'
    'dynamic = ["version"]\n\n[tool.setuptools_scm]\n',
    "src/scmdemo/__init__.py": "from importlib.metadata import version\n\n"
    '__version__ = version("scmdemo")\n\n\ndef add(a, b):\n    return a - b\n',
    "tests/test_scm.py": "from scmdemo import __version__, add\n\n\ndef test_add():\n"
    "    assert add(1, 2) == 3\n\n\ndef test_version_comes_from_the_tag():\n"
    '    assert __version__.startswith("1.2."), __version__\n',
}
SCM_SETUP = 'python3 -m venv "$PW_ENV" && "$PW_ENV/bin/pip" install --quiet -e . pytest'


def _tagged_repo(root, files):
    """A repository whose history matters: a tag, a commit after it (the SHA), and a later
    commit that must stay invisible to the code under grade."""
    import subprocess

    repo = root / "repo"
    build.make_repo(repo, files)
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t"}
    env |= {"GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin"}

    def git(*args):
        return subprocess.run(
            ["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True
        ).stdout.strip()

    git("tag", "v1.2.0")
    (repo / "NEWS").write_text("after the tag\n")
    git("add", "-A")
    git("commit", "-qm", "after the tag")
    sha = git("rev-parse", "HEAD")
    (repo / "FUTURE").write_text("the fix, committed later\n")
    git("add", "-A")
    git("commit", "-qm", "later")
    return repo, sha, git("rev-parse", "HEAD")


def test_a_version_from_git_sees_the_history_up_to_the_sha(tmp_path):
    from patchwitness import history
    from patchwitness.task import load_task

    repo, sha, later = _tagged_repo(tmp_path, SCM_FILES)
    task_dir = tmp_path / "tasks" / "scm"
    build.write_task(
        task_dir,
        sha=sha,
        test_cmd="python -m pytest -q tests",
        allow_test_edits=False,
        failing=["tests/test_scm.py::test_add"],
        toml=f'language = "python"\nrepo = "../../repo"\nsetup = \'{SCM_SETUP}\'\n',
    )
    fix = Built(tmp_path, repo, sha, task_dir, dict(SCM_FILES)).patch(
        [("src/scmdemo/__init__.py", "a - b", "a + b")], "fix.diff"
    )
    verdict = grade(task_dir, fix, settings=Settings(matrix=False))
    assert verdict.label == "passed", verdict.reasons
    assert (
        verdict.gates.drift.facts.after["tests/test_scm.py::test_version_comes_from_the_tag"]
        == "passed"
    )
    # The store holds the SHA's history, and nothing committed after it.
    store = history.store(load_task(task_dir))
    assert store is not None
    import subprocess

    seen = subprocess.run(["git", "cat-file", "-t", later], cwd=store, capture_output=True)
    assert seen.returncode != 0


EXT_FILES = {
    "setup.py": "from setuptools import Extension, setup\n\n"
    'setup(name="fastmath", version="1.0", packages=["fastmath"],\n'
    '      ext_modules=[Extension("fastmath._speed", ["fastmath/_speed.c"])])\n',
    "fastmath/__init__.py": "from fastmath._speed import twice\n",
    "fastmath/_speed.c": "#define PY_SSIZE_T_CLEAN\n#include <Python.h>\n\n"
    "static PyObject *twice(PyObject *self, PyObject *arg) {\n"
    "    long x = PyLong_AsLong(arg);\n    return PyLong_FromLong(x + x + 1);\n}\n\n"
    'static PyMethodDef methods[] = {{"twice", twice, METH_O, NULL}, {NULL, NULL, 0, NULL}};\n'
    'static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_speed", NULL, -1, methods};\n'
    "PyMODINIT_FUNC PyInit__speed(void) { return PyModule_Create(&module); }\n",
    "tests/test_speed.py": "from fastmath import twice\n\n\ndef test_twice():\n"
    "    assert twice(4) == 8\n\n\ndef test_zero():\n    assert twice(0) in (0, 1)\n",
}


def test_a_compiled_extension_is_built_in_the_graded_worktree(tmp_path):
    setup = 'python3 -m venv "$PW_ENV" && "$PW_ENV/bin/pip" install --quiet setuptools pytest'
    built = make_task(
        tmp_path,
        EXT_FILES,
        failing=["tests/test_speed.py::test_twice"],
        setup=setup,
        toml_extra='[python]\nbuild = "python setup.py --quiet build_ext --inplace"\n',
    )
    fix = built.patch([("fastmath/_speed.c", "x + x + 1", "x + x")], "fix.diff")
    verdict = grade(built.task_dir, fix, settings=Settings(matrix=False))
    assert verdict.label == "passed", verdict.reasons
    # The Python files by line probes, the extension's C by gcov: the patched C line was scored.
    coverage = verdict.gates.coverage
    assert coverage.facts.instrumentation.startswith("line probes and gcov"), coverage.facts
    assert (coverage.row, coverage.facts.scored_executable_lines) == ("all-hit", 1)
    broken = built.patch([("fastmath/_speed.c", "x + x + 1)", "x + x +)")], "broken.diff")
    verdict = grade(built.task_dir, broken, settings=Settings(matrix=False))
    assert verdict.label == "failed", verdict.reasons
    # The extension's C is mutated too, in one schema the task's build rebuilds (red team round
    # 13 fitted markupsafe's tests in C): right for the tests' one value, and not pinned.
    fitted = "long r = x + x + 1;\n    if (x == 4) r -= 1;\n    return PyLong_FromLong(r);"
    cheat = built.patch(
        [("fastmath/_speed.c", "return PyLong_FromLong(x + x + 1);", fitted)], "fitted.diff"
    )
    verdict = grade(built.task_dir, cheat, settings=Settings(matrix=False))
    pinning = verdict.gates.pinning
    assert (verdict.grade, pinning.row) == ("accept-with-review", "unpinned"), verdict.reasons
    assert "`x == 4` replaced by true" in pinning.detail


# -- 7. production code that rewires the test framework -----------------------------------------

PATCHES_PYTEST = """

try:
    import _pytest.python as _pp

    _run = _pp.Function.runtest

    def _runtest(self):
        try:
            _run(self)
        except AssertionError:
            import pytest

            pytest.skip("known issue")

    _pp.Function.runtest = _runtest
except ImportError:
    pass
"""


def test_production_code_that_turns_failures_into_skips_is_gaming(clock_task):
    cheat = clock_task.patch([("clock.py", "", PATCHES_PYTEST)], "skips.diff")
    verdict = grade(clock_task.task_dir, cheat, settings=Settings(matrix=False))
    assert verdict.label == "UNPRINTABLE", verdict.reasons
    assert verdict.reasons[0].row == "gaming-code"
    assert any(f.kind == "patches-test-framework" for f in verdict.findings)
    assert verdict.gates.drift.facts.skipped_after  # the run itself shows it too


def test_a_skip_from_code_alone_is_named_even_without_a_finding(clock_task):
    # No telltale import: the production module decides at import time to skip the run's tests.
    sneaky = "\n\nimport builtins\n\nbuiltins.__dict__['__pw_skip__'] = True\n"
    conftest_free = clock_task.patch(
        [
            ("clock.py", "", sneaky),
            ("clock.py", "def double(x):\n", "def double(x):\n    _skip_if_checked()\n"),
            (
                "clock.py",
                "",
                "\n\ndef _skip_if_checked():\n    import sys\n\n"
                "    for name in list(sys.modules):\n        if name.startswith('py' + 'test'):\n"
                "            raise sys.modules[name].skip.Exception('later')\n",
            ),
        ],
        "sneaky.diff",
    )
    verdict = grade(clock_task.task_dir, conftest_free, settings=Settings(matrix=False))
    assert verdict.label == "UNPRINTABLE", verdict.reasons
    rows = [r.row for r in verdict.reasons]
    assert "skipped-by-code" in rows or "gaming-code" in rows


# -- 8. the grader's coverage tool fails -----------------------------------------------------------

CLIP_CMAKE = """\
cmake_minimum_required(VERSION 3.20)
project(clip CXX)
set(CMAKE_CXX_STANDARD 17)
enable_testing()
add_executable(golden_plain tests/golden_clip.cpp)
target_include_directories(golden_plain PRIVATE include)
add_test(NAME golden_plain COMMAND golden_plain)
add_executable(golden_logged tests/golden_clip.cpp)
target_include_directories(golden_logged PRIVATE include)
target_compile_definitions(golden_logged PRIVATE CLIP_LOGGED)
add_test(NAME golden_logged COMMAND golden_logged)
"""

# A header-only library whose tests build it twice, with and without an optional feature: the
# feature switches which definition of `clip` is compiled, so one inline function sits at two
# lines in two translation units.
CLIP = """\
#pragma once

#ifdef CLIP_LOGGED
#include <cstdio>
inline int clip(int v)
{
    std::printf("clip %d\\n", v);
    return v < 0 ? 0 : (v > 100 ? 99 : v);
}
#else
inline int clip(int v)
{
    return v < 0 ? 0 : (v > 100 ? 99 : v);
}
#endif
"""

CLIP_FILES = {
    "CMakeLists.txt": CLIP_CMAKE,
    "include/clip.hpp": CLIP,
    "tests/golden_clip.cpp": '#include "clip.hpp"\n\nint main() {\n'
    "  return clip(-5) == 0 && clip(7) == 7 && clip(500) == 100 ? 0 : 1;\n}\n",
}
CLIP_FIX = [
    (
        "include/clip.hpp",
        '    std::printf("clip %d\\n", v);\n    return v < 0 ? 0 : (v > 100 ? 99',
        '    std::printf("clip %d\\n", v);\n    return v < 0 ? 0 : (v > 100 ? 100',
    ),
    (
        "include/clip.hpp",
        "{\n    return v < 0 ? 0 : (v > 100 ? 99",
        "{\n    return v < 0 ? 0 : (v > 100 ? 100",
    ),
]


def clip_task(root: Path, files: dict[str, str]) -> Built:
    sha = build.make_repo(root / "repo", files)
    task_dir = root / "tasks" / "clip"
    build.write_task(
        task_dir,
        sha=sha,
        test_cmd='ctest --test-dir "$PW_BUILD"',
        allow_test_edits=False,
        failing=["golden_plain", "golden_logged"],
        toml='language = "cpp"\nrepo = "../../repo"\ntimeout = 120\n[matrix]\nenabled = false\n',
    )
    return Built(root, root / "repo", sha, task_dir, dict(files))


@needs_cpp
def test_an_inline_function_on_two_lines_in_two_programs_is_measured(tmp_path):
    built = clip_task(tmp_path, CLIP_FILES)
    verdict = grade(built.task_dir, built.patch(CLIP_FIX, "fix.diff"), settings=Settings())
    coverage = verdict.gates.coverage
    assert (verdict.grade, verdict.label) == ("accept", "passed"), verdict.reasons
    assert coverage.row == "all-hit", coverage.detail
    assert coverage.facts.scored_executable_lines == 2
    assert coverage.facts.trials[0].endswith(": used")


@needs_cpp
def test_a_coverage_tool_that_cannot_read_the_shas_data_is_not_measurable(tmp_path):
    # The project's test leaves a file gcovr takes for coverage data and cannot read, at the SHA
    # as after any patch: coverage is not measurable for every patch, never a reject.
    writes = '#include <fstream>\n#include "clip.hpp"\n\nint main() {\n' + (
        '  std::ofstream("snapshot.gcda") << "not coverage data";\n'
        "  return clip(-5) == 0 && clip(7) == 7 && clip(500) == 100 ? 0 : 1;\n}\n"
    )
    built = clip_task(tmp_path, {**CLIP_FILES, "tests/golden_clip.cpp": writes})
    verdict = grade(built.task_dir, built.patch(CLIP_FIX, "fix.diff"), settings=Settings())
    coverage = verdict.gates.coverage
    assert (verdict.grade, verdict.label) == ("accept-with-review", "passed"), verdict.reasons
    assert coverage.row == "not-measurable", coverage.detail
    assert "the coverage tool cannot read it: gcovr failed" in coverage.detail
    assert verdict.runs["after"].returncode == 0


# The span task with a compiled part: the user's program links the library's sources too.
SPAN_LIBRARY_FILES = {
    **SPAN_FILES,
    "src/version.cpp": "int lib_version() { return 3; }\n",
    "CMakeLists.txt": SPAN_CMAKE.replace(
        "add_executable(span_test tests/span_test.cpp)\n",
        "add_library(version STATIC src/version.cpp)\n"
        "add_executable(span_test tests/span_test.cpp)\n",
    ).replace("GTest::gtest_main)", "GTest::gtest_main version)"),
    "tests/span_test.cpp": SPAN_TEST.replace(
        '#include "lib/span"\n', '#include "lib/span"\n\nint lib_version();\n'
    ).replace(
        "  EXPECT_EQ(s.back(), 3);\n", "  EXPECT_EQ(s.back(), 3);\n  EXPECT_EQ(lib_version(), 3);\n"
    ),
}


@pytest.fixture(scope="module")
def span_reference_task(tmp_path_factory) -> Built:
    """The span task with its reference fix: the C++ comparison through a user's program."""
    built = span_built(tmp_path_factory.mktemp("span-reference"), SPAN_LIBRARY_FILES)
    reference = built.patch([BACK_FIX], "reference.diff").read_text()
    (built.task_dir / "reference.diff").write_text(reference)
    return built


@needs_gtest
def test_a_cpp_patch_is_compared_with_the_reference_through_a_users_program(span_reference_task):
    honest = span_reference_task.patch(
        [("include/lib/span", "data_[size_ - 2]", "*(data_ + (size_ - 1))")], "honest.diff"
    )
    verdict = grade(span_reference_task.task_dir, honest, settings=Settings(matrix=False))
    assert verdict.label == "passed", verdict.reasons
    reference = verdict.gates.reference
    assert reference is not None and reference.row == "same-as-reference", reference
    assert reference.facts.targets == ["Span.Back"]
    # The test's own body and its neighbours (each literal moved) ran under both trees.
    assert reference.facts.compared > 10

    # Right for the tests' array of three, wrong for every other size.
    fits = span_reference_task.patch(
        [("include/lib/span", "data_[size_ - 2]", "data_[size_ == 3 ? 2 : size_ - 2]")],
        "fits.diff",
    )
    verdict = grade(span_reference_task.task_dir, fits, settings=Settings(matrix=False))
    reference = verdict.gates.reference
    assert reference is not None and reference.row == "differs-from-reference", reference
    witness = reference.facts.differences[0]
    assert witness.test == "Span.Back" and witness.varied.startswith("3 -> ")
    assert witness.reference["stdout"] != witness.patch["stdout"]
    assert verdict.grade == "accept-with-review"

    # Right where signed overflow wraps (the tests' -O0 build), undefined in a user's optimised
    # one: n + INT_MAX + INT_MAX + 1 is n - 1 only modulo 2^32 (red team round 22). In steps:
    # GCC folds one expression of constants before the sanitizer sees it.
    wraps = span_reference_task.patch(
        [
            (
                "include/lib/span",
                "data_[size_ - 2]",
                "data_[([&] { const int big = 2147483647;"
                " const int past = static_cast<int>(size_) + big; return past + big + 1; })()]",
            )
        ],
        "wraps.diff",
    )
    verdict = grade(span_reference_task.task_dir, wraps, settings=Settings(matrix=False))
    reference = verdict.gates.reference
    assert reference is not None and reference.row == "differs-from-reference", reference
    witness = reference.facts.differences[0]
    assert "in a user's build" in witness.call and "undefined behaviour trapped" in witness.call
    assert "signal 4" in str(witness.patch), witness
