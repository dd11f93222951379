"""Coverage on the hunk: the pure join, and end to end in both languages."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from patchwitness.api import grade
from patchwitness.demo import build
from patchwitness.facts import FileLines
from patchwitness.gates.coverage import score
from patchwitness.hits.hunk import looks_like_code, patched_sources
from patchwitness.languages.cpp import CPP
from patchwitness.languages.python import PYTHON
from patchwitness.patch import FileChange
from patchwitness.settings import Settings

from .conftest import Built, make_task


def change(path, added=(), holes=(), removed=()):
    return FileChange(
        path=path,
        status="modified",
        added=tuple(added),
        removed=tuple(removed),
        deletion_holes=tuple(holes),
    )


@pytest.mark.parametrize(
    ("text", "path", "code"),
    [
        ("    x = 1\n", "a.py", True),
        ("    # note\n", "a.py", False),
        ("\n", "a.py", False),
        ("  return x;\n", "a.cc", True),
        ("  // note\n", "a.cc", False),
        ("}\n", "a.cc", False),
        ("#include <x>\n", "a.cc", False),
        (" * doc\n", "a.cc", False),
    ],
)
def test_looks_like_code(text, path, code):
    assert looks_like_code(text, path) is code


def test_comment_only_and_data_changes_touch_no_source():
    changes = [
        change("a.py", [(1, "# just a comment\n")]),
        change("data.json", [(1, "{}\n")]),
        change("CMakeLists.txt", [(3, "add_library(x y.cc)\n")]),
    ]
    assert patched_sources(changes, PYTHON.source_suffixes) == []
    assert patched_sources(changes, CPP.source_suffixes) == []
    assert patched_sources([change("a.py", [(1, "x = 2\n")])], PYTHON.source_suffixes)


def test_score_counts_hits_zero_hits_and_non_executable_lines():
    data = {"src/a.py": FileLines({3: 1, 4: 0, 6: 2})}
    facts = score([change("src/a.py", [(3, "x\n"), (4, "y\n"), (5, "z\n")])], data)
    assert facts.scored_executable_lines == 2  # line 5 is not a statement
    assert facts.zero_hit_lines == ["src/a.py:4"]
    assert facts.zero_hit_count == 1


def test_paths_are_matched_exactly_never_by_basename():
    data = {"pkg_a/util.py": FileLines({2: 5}), "pkg_b/util.py": FileLines({2: 0})}
    facts = score([change("pkg_b/util.py", [(2, "y\n")])], data)
    assert facts.zero_hit_lines == ["pkg_b/util.py:2"]
    facts = score([change("pkg_c/util.py", [(2, "y\n")])], data)
    assert facts.unscored_suspicious == ["pkg_c/util.py:2"]
    assert facts.scored_executable_lines == 0


def test_deletion_is_scored_by_the_executable_lines_around_the_hole():
    data = {"a.py": FileLines({2: 1, 7: 0, 9: 1})}

    def hunk(holes):
        return score([change("a.py", holes=holes)], data).hunk_lines["a.py"]

    assert hunk([4]) == [2, 7]
    assert hunk([0]) == [2]
    assert hunk([9]) == [9]
    assert score([change("a.py", holes=[4])], data).zero_hit_lines == ["a.py:7"]


@pytest.mark.parametrize(
    ("text", "statement"),
    [
        ("  return x * 3;\n", True),
        ("  x = y;\n", True),
        ("  ++i;\n", True),
        ("  f(1, 2);\n", True),
        ("  if (x) {\n", True),
        ("int frame(int n);\n", False),
        ("class X {\n", False),
        ("  int y;\n", False),
        ("};\n", False),
        ("// x = 1\n", False),
        ("template <class T>\n", False),
        ("  bool operator==(const X&) const;\n", False),
        ("  obj.run(x);\n", True),
        ("  ns::go();\n", True),
    ],
)
def test_cpp_statement_lines(text, statement):
    from patchwitness.hits.hunk import looks_like_statement

    assert looks_like_statement(text, "a.hpp") is statement


def test_zero_hit_list_is_capped_but_counted():
    data = {"a.py": FileLines({n: 0 for n in range(1, 80)})}
    facts = score([change("a.py", [(n, "x\n") for n in range(1, 80)])], data)
    assert facts.zero_hit_count == 79
    assert len(facts.zero_hit_lines) == 50


# --- end to end: Python ---------------------------------------------------------------------

PY_FILES = {
    "pkg/__init__.py": "",
    "pkg/calc.py": "def double(x):\n    y = x * 2\n    return y\n\n\ndef triple(x):\n"
    "    return x * 3\n",
    "pkg/a/__init__.py": "",
    "pkg/a/util.py": "def used():\n    return 1\n",
    "pkg/b/__init__.py": "",
    "pkg/b/util.py": "def unused():\n    return 2\n",
    "tests/test_calc.py": "from pkg.a.util import used\nfrom pkg.calc import double\n\n\n"
    "def test_double():\n    assert double(2) == 4\n\n\n"
    "def test_used():\n    assert used() == 1\n",
}


@pytest.fixture(scope="module")
def pyrepo(tmp_path_factory) -> Built:
    return make_task(tmp_path_factory.mktemp("cov-py"), PY_FILES, failing=[])


def coverage_of(built, edits, name):
    verdict = grade(
        built.task_dir, built.patch(edits, f"{name}.diff"), agent=name, settings=Settings()
    )
    return verdict, verdict.gates.coverage


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "edits", "row", "zero"),
    [
        ("hit", [("pkg/calc.py", "    y = x * 2\n", "    y = x + x\n")], "all-hit", []),
        (
            "untested-function",
            [("pkg/calc.py", "    return x * 3", "    return x + x + x")],
            "zero-hits",
            ["pkg/calc.py:7"],
        ),
        (
            "pragma-is-scored-anyway",
            [("pkg/calc.py", "    return x * 3", "    return x + x + x  # pragma: no cover")],
            "zero-hits",
            ["pkg/calc.py:7"],
        ),
        (
            "comment-only",
            [("pkg/calc.py", "def triple(x):\n", "def triple(x):\n    # times 3\n")],
            "no-executable-source",
            [],
        ),
        (
            "deletion-only",
            [("pkg/calc.py", "    y = x * 2\n    return y\n", "    return x * 2\n")],
            "all-hit",
            [],
        ),
        (
            "same-basename",
            [("pkg/b/util.py", "return 2", "return 1 + 1")],
            "zero-hits",
            ["pkg/b/util.py:2"],
        ),
        ("same-basename-hit", [("pkg/a/util.py", "return 1", "return 2 - 1")], "all-hit", []),
    ],
)
def test_python_coverage(pyrepo, name, edits, row, zero):
    verdict, gate = coverage_of(pyrepo, edits, name)
    assert gate.row == row, verdict.reasons
    assert gate.facts.zero_hit_lines == zero
    if row == "no-executable-source":
        assert gate.status == "not-applicable" and gate.effect == "not-applicable"
    if name == "pragma-is-scored-anyway":
        assert gate.facts.pragmas_added == ["pkg/calc.py:7"]


@pytest.mark.slow
def test_pure_deletion_of_an_untested_line_is_a_zero_hit(pyrepo):
    edits = [
        (
            "pkg/calc.py",
            "def triple(x):\n    return x * 3\n",
            "def triple(x):\n    x = int(x)\n    return x * 3\n",
        )
    ]
    after = build.apply_edits(PY_FILES, edits)
    repo2 = make_task(pyrepo.root / "second", after, failing=[])
    deletion = repo2.patch([("pkg/calc.py", "    x = int(x)\n", "")], "delete.diff")
    gate = grade(repo2.task_dir, deletion).gates.coverage
    assert gate.row == "zero-hits"
    assert gate.facts.zero_hit_lines == ["pkg/calc.py:7"]


# --- end to end: C++ ------------------------------------------------------------------------

HAVE_CPP = bool(
    shutil.which("cmake")
    and shutil.which("ninja")
    and shutil.which("c++")
    and Path("/usr/include/gtest/gtest.h").exists()
)

CPP_FILES = {
    "CMakeLists.txt": "cmake_minimum_required(VERSION 3.20)\nproject(cov CXX)\n"
    "set(CMAKE_CXX_STANDARD 17)\nenable_testing()\n"
    "add_library(cov src/one/codec.cpp src/two/codec.cpp)\n"
    "target_include_directories(cov PUBLIC include)\n"
    "add_executable(golden_cov tests/golden_cov.cpp)\n"
    "target_link_libraries(golden_cov cov)\n"
    "add_test(NAME golden_cov COMMAND golden_cov)\n",
    "include/cov.hpp": "#pragma once\nint body(int n);\nint frame(int n);\n\n"
    "inline int used_inline(int x) {\n  return x + 1;\n}\n\n"
    "inline int unused_inline(int x) {\n  return x - 1;\n}\n\n"
    "template <class T>\nT twice_t(T x) {\n  return x + x;\n}\n\n"
    "template <class T>\nT never_t(T x) {\n  return x * 3;\n}\n",
    "src/one/codec.cpp": '#include "cov.hpp"\n\nint body(int n) {\n  return n + 1;\n}\n',
    "src/two/codec.cpp": '#include "cov.hpp"\n\nint frame(int n) {\n  // LCOV_EXCL_START\n'
    "  return n * 2;\n  // LCOV_EXCL_STOP\n}\n",
    "tests/golden_cov.cpp": '#include "cov.hpp"\n\nint main() {\n'
    "  return body(1) == 2 && used_inline(1) == 2 && twice_t(2) == 4"
    " ? 0 : 1;\n}\n",
}


@pytest.fixture(scope="module")
def cpprepo(tmp_path_factory) -> Built:
    root = tmp_path_factory.mktemp("cov-cpp")
    sha = build.make_repo(root / "repo", CPP_FILES)
    task_dir = root / "tasks" / "cov"
    build.write_task(
        task_dir,
        sha=sha,
        test_cmd='ctest --test-dir "$PW_BUILD"',
        allow_test_edits=False,
        failing=[],
        toml='language = "cpp"\nrepo = "../../repo"\ntimeout = 120\n'
        "[matrix]\nenabled = false  # the coverage gate is under test here\n",
    )
    return Built(root, root / "repo", sha, task_dir, dict(CPP_FILES))


@pytest.mark.slow
@pytest.mark.skipif(not HAVE_CPP, reason="needs cmake, ninja and a C++ compiler")
@pytest.mark.parametrize(
    ("name", "edits", "row", "zero", "unscored"),
    [
        (
            "source-hit",
            [("src/one/codec.cpp", "return n + 1;", "return 1 + n;")],
            "all-hit",
            [],
            [],
        ),
        (
            "same-basename-cold",
            [("src/two/codec.cpp", "  return n * 2;", "  return n + n;")],
            "zero-hits",
            ["src/two/codec.cpp:5"],
            [],
        ),
        (
            "header-inline-hit",
            [("include/cov.hpp", "return x + 1;", "return 1 + x;")],
            "all-hit",
            [],
            [],
        ),
        (
            "header-inline-cold",
            [("include/cov.hpp", "return x - 1;", "return x + -1;")],
            "zero-hits",
            ["include/cov.hpp:10"],
            [],
        ),
        (
            "template-instantiated",
            [("include/cov.hpp", "return x + x;", "return 2 * x;")],
            "all-hit",
            [],
            [],
        ),
        (
            "template-never-instantiated",
            [("include/cov.hpp", "return x * 3;", "return x + x + x;")],
            "nothing-scored",
            [],
            ["include/cov.hpp:20"],
        ),
        (
            "template-cold-beside-a-hit",
            [
                ("include/cov.hpp", "return x * 3;", "return x + x + x;"),
                ("src/one/codec.cpp", "return n + 1;", "return 1 + n;"),
            ],
            "unscored-suspicious",
            [],
            ["include/cov.hpp:20"],
        ),
        (
            "comment-only",
            [("src/one/codec.cpp", "int body(int n) {\n", "// adds one\nint body(int n) {\n")],
            "no-executable-source",
            [],
            [],
        ),
        (
            "cmake-only",
            [("CMakeLists.txt", "project(cov CXX)\n", "project(cov CXX)\n# note\n")],
            "no-executable-source",
            [],
            [],
        ),
    ],
)
def test_cpp_coverage(cpprepo, name, edits, row, zero, unscored):
    verdict, gate = coverage_of(cpprepo, edits, name)
    assert gate.row == row, (verdict.reasons, gate.facts)
    assert gate.facts.zero_hit_lines == zero
    assert gate.facts.unscored_suspicious == unscored
    assert gate.facts.flags[0] == "--coverage"


@pytest.mark.slow
def test_coverage_command_exit_codes(pyrepo):
    import json
    import subprocess
    import sys

    cases = [
        ([("pkg/calc.py", "    y = x * 2\n", "    y = x + x\n")], 0),
        ([("pkg/calc.py", "    return x * 3", "    return x + x + x")], 1),
        ([("pkg/calc.py", "def triple(x):\n", "def triple(x):\n    # note\n")], 3),
    ]
    for index, (edits, code) in enumerate(cases):
        patch = pyrepo.patch(edits, f"cli-{index}.diff")
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "patchwitness.cli",
                "coverage",
                str(pyrepo.task_dir),
                str(patch),
                "--sandbox",
                "none",
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == code, done.stderr
        report = json.loads(done.stdout)
        assert {"scored_executable_lines", "zero_hit_lines", "zero_hit_count"} <= set(report)
    bad = pyrepo.raw_patch("not a diff\n", "bad.diff")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "patchwitness.cli",
            "coverage",
            str(pyrepo.task_dir),
            str(bad),
            "--sandbox",
            "none",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 4 and "apply-failed" in done.stderr


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("  *out = decode(data);\n", True),
        ("  /* fast path */ return -1;\n", True),
        ("   * a doc line\n", False),
        ("   */\n", False),
        ("  *\n", False),
    ],
)
def test_cpp_lines_that_start_like_comments(text, code):
    assert looks_like_code(text, "a.cpp") is code


def test_a_line_the_tool_lists_is_scored_whatever_it_looks_like():
    data = {"src/a.cpp": FileLines({3: 1, 7: 0})}
    facts = score([change("src/a.cpp", [(3, "  x = 1;\n"), (7, "  *out = decode(data);\n")])], data)
    assert facts.zero_hit_lines == ["src/a.cpp:7"]


def test_python_continuation_lines_take_their_statement_count(tmp_path):
    from patchwitness.hits.python import spread_over_statements

    source = tmp_path / "m.py"
    source.write_text(
        "def f(x):\n    total = (x +\n             2 +\n             3)\n    return total\n"
    )
    assert spread_over_statements(source, {1: 1, 2: 0, 5: 0}) == {1: 1, 2: 0, 3: 0, 4: 0, 5: 0}


@pytest.mark.parametrize(
    ("seen", "scored", "zero", "unscored", "mapped"),
    [
        # its own count
        ({"hits": 0}, 1, ["a.cc:5"], [], {}),
        ({"hits": 3}, 1, [], [], {}),
        # no entry, mapped to the line of its statement
        ({"by": 4, "by_hits": 0}, 1, ["a.cc:5"], [], {"a.cc:5": "a.cc:4"}),
        ({"by": 4, "by_hits": 2}, 1, [], [], {"a.cc:5": "a.cc:4"}),
        # no entry: its block produced no data where code was expected
        ({"suspicious": True}, 0, [], ["a.cc:5"], {}),
        # no entry, nothing to score there (a declaration outside any function)
        ({"no_code": True, "statement": True}, 0, [], [], {}),
        # no entry, not mapped: a statement is suspicious, anything else is not executable
        ({"statement": True}, 0, [], ["a.cc:5"], {}),
        ({}, 0, [], [], {}),
        # not code and not listed: not in the hunk
        ({"code": False}, 0, [], [], {}),
    ],
)
def test_each_way_a_line_is_seen_is_scored(seen, scored, zero, unscored, mapped):
    from patchwitness.facts import FileSeen, LineSeen
    from patchwitness.gates.coverage import score_seen

    facts = score_seen([FileSeen(path="a.cc", lines=[LineSeen(line=5, **seen)])])
    assert facts.scored_executable_lines == scored
    assert facts.zero_hit_lines == zero
    assert facts.unscored_suspicious == unscored
    assert facts.mapped == mapped


def test_a_file_without_data_leaves_its_code_lines_unscored():
    from patchwitness.facts import FileSeen, LineSeen
    from patchwitness.gates.coverage import score_seen

    lines = [LineSeen(line=1), LineSeen(line=2, code=False)]
    facts = score_seen([FileSeen(path="a.py", data=False, lines=lines)])
    assert facts.unscored_suspicious == ["a.py:1"]
    assert facts.hunk_lines == {"a.py": [1]}


TYPING_ONLY = """\
from typing import TYPE_CHECKING
import typing

if TYPE_CHECKING:
    import importlib.metadata

    from ._compat import (
        DistFacade,
    )
    cache: dict[str, int]
    helper = make()
if typing.TYPE_CHECKING:
    import json
else:
    json = None
value = 1
"""


def test_declarations_for_the_type_checker_alone_score_nothing():
    """pluggy's own pull request added imports under `if TYPE_CHECKING:`, which run in no
    program: scored as unrun, the honest change was rejected. Only declarations are excused;
    other code there, and the `else` arm, keep their score."""
    from patchwitness.hits.python import typing_only_lines

    assert typing_only_lines(TYPING_ONLY) == {5, 7, 8, 9, 10, 13}
    added = [(n, TYPING_ONLY.splitlines()[n - 1] + "\n") for n in (5, 7, 11, 13, 15, 16)]
    data = {"src/a.py": FileLines({n: 0 for n in (1, 2, 4, 5, 7, 10, 11, 12, 13, 15)} | {16: 1})}
    facts = score([change("src/a.py", added)], data, {"src/a.py": TYPING_ONLY})
    assert facts.zero_hit_lines == ["src/a.py:11", "src/a.py:15"]
    assert facts.scored_executable_lines == 3
    # a line deleted beside them: the hole's neighbours are not these either (pluggy's #617)
    hole = score([change("src/a.py", holes=[6])], data, {"src/a.py": TYPING_ONLY})
    assert hole.zero_hit_lines == []


def test_no_type_checking_block_excuses_nothing():
    from patchwitness.hits.python import typing_only_lines

    assert typing_only_lines("if CHECKING:\n    import os\n") == set()
    assert typing_only_lines("if not TYPE_CHECKING:\n    import os\n") == set()
    assert typing_only_lines("if TYPE_CHECKING\n") == set()  # unparsable: nothing excused
