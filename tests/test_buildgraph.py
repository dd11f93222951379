"""What a C++ build was made of, read from its build tree; and how two builds differ."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from patchwitness import buildgraph
from patchwitness.buildgraph import BuildGraph

TREE, BUILD = Path("/w/repo"), Path("/w/build")


def test_compile_flags_drop_the_compiler_the_source_and_the_outputs():
    command = (
        "/usr/bin/c++ -I/w/repo/include -DX=1 -std=gnu++14 -o o.o -MD -MF o.d -c /w/repo/a.cpp"
    )
    assert (
        buildgraph.compile_flags(command, "/w/repo/a.cpp") == "-I/w/repo/include -DX=1 -std=gnu++14"
    )


def test_compile_commands_are_relative_to_the_tree():
    text = (
        '[{"directory": "/w/build", "command": "c++ -I/w/repo/include -I/w/build/gen '
        '-o x.o -c /w/repo/src/a.cpp", "file": "/w/repo/src/a.cpp"},'
        '{"directory": "/w/build", "command": "c++ -c /usr/src/gtest/gtest-all.cc", '
        '"file": "/usr/src/gtest/gtest-all.cc"}]'
    )
    assert buildgraph.parse_compile_commands(text, TREE, BUILD) == {
        "src/a.cpp": "-I$TREE/include -I$BUILD/gen"
    }


def test_deps_name_each_sources_reads():
    text = (
        "CMakeFiles/lib.dir/src/a.cpp.o: #deps 3, deps mtime 1 (VALID)\n"
        "    /w/repo/src/a.cpp\n    /usr/include/stdio.h\n    /w/repo/include/a.h\n\n"
        "CMakeFiles/gt.dir/gtest-all.cc.o: #deps 2 (VALID)\n"
        "    /usr/src/gtest/gtest-all.cc\n    /usr/include/gtest/gtest.h\n"
    )
    assert buildgraph.parse_deps(text, TREE) == {
        "src/a.cpp": ("/usr/include/stdio.h", "include/a.h")
    }


def test_ctest_digests_ignore_comments_and_cmake_line_numbers():
    one = (
        "# CMake generated Testfile for\n# Source directory: /w/repo\n"
        'add_test(t "/w/build/t")\n'
        'set_tests_properties(t PROPERTIES  _BACKTRACE_TRIPLES "/w/repo/CMakeLists.txt;9;x")\n'
    )
    moved = one.replace(";9;", ";12;").replace("/w/", "/elsewhere/")
    assert buildgraph.ctest_digest(one, TREE, BUILD) == buildgraph.ctest_digest(
        moved, Path("/elsewhere/repo"), Path("/elsewhere/build")
    )
    included = one + 'include("/w/build/filter.cmake")\n'
    assert buildgraph.ctest_digest(one, TREE, BUILD) != buildgraph.ctest_digest(
        included, TREE, BUILD
    )


GRAPH = BuildGraph(
    compiles={"src/a.cpp": "-std=gnu++14", "tests/t.cpp": "-std=gnu++14"},
    reads={
        "src/a.cpp": ("include/a.h", "/usr/include/stdio.h"),
        "tests/t.cpp": ("include/a.h", "/usr/include/gtest/gtest.h", "tests/helper.h"),
    },
    ctest={"CTestTestfile.cmake": "abc"},
)


def test_what_only_the_tests_read():
    tests = frozenset({"tests/t.cpp"})
    assert GRAPH.test_only(tests) == {"/usr/include/gtest/gtest.h", "tests/helper.h"}
    assert GRAPH.loaded() == {"src/a.cpp", "tests/t.cpp", "include/a.h", "tests/helper.h"}
    assert GRAPH.standards(tests) == {"gnu++14"}
    assert BuildGraph.from_json(GRAPH.to_json()) == GRAPH


@pytest.mark.parametrize(
    ("after", "test_edit", "changed"),
    [
        (GRAPH, False, []),
        (
            BuildGraph(compiles={**GRAPH.compiles, "src/a.cpp": "-std=gnu++14 -DFIXED"}),
            True,
            ["src/a.cpp"],
        ),
        (BuildGraph(compiles={**GRAPH.compiles, "tests/t.cpp": "-DGTEST_FILTER"}), False, ["t"]),
        (BuildGraph(compiles={**GRAPH.compiles, "tests/t.cpp": "-DGTEST_FILTER"}), True, []),
        (
            BuildGraph(compiles=GRAPH.compiles, ctest={"CTestTestfile.cmake": "def"}),
            False,
            ["ctest"],
        ),
        (BuildGraph(compiles=GRAPH.compiles, ctest={"CTestTestfile.cmake": "def"}), True, []),
        (BuildGraph(compiles={**GRAPH.compiles, "src/new.cpp": "-DNEW"}), False, []),
    ],
)
def test_changes(after, test_edit, changed):
    before = BuildGraph(compiles=GRAPH.compiles, ctest=GRAPH.ctest)
    after = BuildGraph(compiles=after.compiles, ctest=after.ctest or GRAPH.ctest)
    found = buildgraph.changes(before, after, test_edit, frozenset({"tests/t.cpp"}))
    assert len(found) == len(changed)
    for text, word in zip(found, changed, strict=True):
        assert word in text


@pytest.mark.skipif(shutil.which("ninja") is None, reason="needs cmake and ninja")
def test_a_real_build_is_read(tmp_path):
    tree, build = tmp_path / "repo", tmp_path / "build"
    (tree / "include").mkdir(parents=True)
    (tree / "include/a.h").write_text("int a();\n")
    (tree / "a.cpp").write_text('#include "a.h"\nint a() { return 1; }\n')
    (tree / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.16)\nproject(x CXX)\nenable_testing()\n"
        "add_library(a a.cpp)\ntarget_include_directories(a PUBLIC include)\n"
        "add_test(NAME t COMMAND true)\n"
    )
    env = {"CMAKE_EXPORT_COMPILE_COMMANDS": "ON", "PATH": "/usr/bin:/bin"}
    subprocess.run(
        ["cmake", "-S", tree, "-B", build, "-G", "Ninja"], env=env, check=True, capture_output=True
    )
    subprocess.run(["cmake", "--build", build], env=env, check=True, capture_output=True)
    graph = buildgraph.read_graph(build, tree)
    assert graph.compiles == {"a.cpp": "-I$TREE/include"}
    assert "include/a.h" in graph.reads["a.cpp"]
    assert list(graph.ctest) == ["CTestTestfile.cmake"]
