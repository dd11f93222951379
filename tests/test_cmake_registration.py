"""CMake test registration: commands, targets, sources and the lines they occupy."""

from __future__ import annotations

import pytest

from patchwitness.census import cmake
from patchwitness.census.cmake import Command, commands, registration_lines, wrapper_functions

# `cmake.test_registration` is called through its module: imported by name, pytest would collect
# it as a test function.

PROJECT = """\
cmake_minimum_required(VERSION 3.20)
project(demo CXX)
include(CTest)   # turns testing on
include(GoogleTest)
#[[ add_test(NAME commented COMMAND x)
    gtest_discover_tests(ghost)
]]
# add_test(NAME hidden COMMAND y)
add_library(core src/core.cc)
add_executable(unit_tests
  tests/a_test.cc   # first
  "tests/b test.cc"
)
target_link_libraries(unit_tests PRIVATE core GTest::gtest_main)
target_sources(unit_tests PRIVATE tests/c_test.cc)
gtest_discover_tests(unit_tests)
ADD_TEST(NAME golden COMMAND $<TARGET_FILE:golden_runner> --golden data/x.txt)
Add_Executable(golden_runner tools/golden.cc)
add_test(short_form short_exe arg)
target_compile_definitions(core PRIVATE FAST)
"""


def test_registrations_tests_targets_and_sources() -> None:
    found = cmake.test_registration(PROJECT)
    assert [(c.name, c.line) for c in found.registrations] == [
        ("include", 3),
        ("include", 4),
        ("gtest_discover_tests", 16),
        ("add_test", 17),
        ("add_test", 19),
    ]
    assert found.enable_testing is True
    assert found.includes == ("CTest", "GoogleTest")
    assert found.tests == ("golden", "short_form")
    assert found.targets == ("unit_tests", "golden_runner", "short_exe")
    assert dict(found.sources) == {
        "unit_tests": ("tests/a_test.cc", "tests/b test.cc", "tests/c_test.cc"),
        "golden_runner": ("tools/golden.cc",),
    }


def test_registration_lines_cover_commands_and_test_target_definitions() -> None:
    # add_library(core) and target_compile_definitions(core) are not test infrastructure, and
    # neither are the commented-out registrations.
    assert registration_lines(PROJECT) == {3, 4, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19}


def test_commands_parse_quotes_brackets_comments_and_nesting() -> None:
    src = (
        'set(MSG "a (paren) # not a comment\n second line")\n'
        "set(RAW [==[ x ) y ]==])\n"
        "if((A AND B) OR C) # trailing\n"
        "endif ()\n"
        "message(STATUS #[[inline]] done)\n"
    )
    assert commands(src) == [
        Command("set", ("MSG", "a (paren) # not a comment\n second line"), 1, 2),
        Command("set", ("RAW", " x ) y "), 3, 3),
        Command("if", ("A", "AND", "B", "OR", "C"), 4, 4),
        Command("endif", (), 5, 5),
        Command("message", ("STATUS", "done"), 6, 6),
    ]


def test_discover_and_add_tests_forms() -> None:
    src = (
        "enable_testing()\n"
        "catch_discover_tests(catch_tests TEST_SPEC [fast])\n"
        "doctest_discover_tests(doc_tests)\n"
        "gtest_add_tests(TARGET old_tests SOURCES a.cc b.cc)\n"
        'gtest_add_tests(legacy_tests "" a.cc)\n'
        "add_test(NAME py COMMAND python3 run.py)\n"
        "add_test(NAME path COMMAND ${CMAKE_CURRENT_BINARY_DIR}/tool --x)\n"
    )
    found = cmake.test_registration(src)
    assert found.enable_testing is True
    assert [c.name for c in found.registrations] == [
        "enable_testing",
        "catch_discover_tests",
        "doctest_discover_tests",
        "gtest_add_tests",
        "gtest_add_tests",
        "add_test",
        "add_test",
    ]
    # A path built from a variable is not a target name; an interpreter name is kept, since the
    # file alone cannot tell a program from a target defined elsewhere.
    assert found.targets == ("catch_tests", "doc_tests", "old_tests", "legacy_tests", "python3")
    assert found.tests == ("py", "path")


def test_foreach_loop_matches_targets_by_their_text() -> None:
    src = (
        "foreach(t IN ITEMS alpha beta)\n"
        "  add_executable(${t} ${t}_test.cc)\n"
        "  target_link_libraries(${t} PRIVATE GTest::gtest_main)\n"
        "  add_test(NAME ${t} COMMAND ${t})\n"
        "endforeach()\n"
    )
    found = cmake.test_registration(src)
    assert found.targets == ("${t}",)
    assert dict(found.sources) == {"${t}": ("${t}_test.cc",)}
    assert registration_lines(src) == {2, 3, 4}


def test_test_switches_and_test_directories_are_registration() -> None:
    src = (
        'option(BUILD_TESTING "tests" ON)\n'
        "if(BUILD_TESTING)\n"
        "  add_subdirectory(tests)\n"
        "  add_subdirectory(src)\n"
        "endif()\n"
        "set_tests_properties(golden PROPERTIES DISABLED TRUE)\n"
        "set_property(TEST golden PROPERTY WILL_FAIL TRUE)\n"
        "set_property(TARGET core PROPERTY CXX_STANDARD 20)\n"
    )
    assert registration_lines(src) == {1, 2, 3, 6, 7}


def test_multi_line_commands_report_every_line() -> None:
    src = (
        "add_executable(\n  t\n  a.cc\n)\n"
        "\n"
        "gtest_discover_tests(\n  t\n  PROPERTIES LABELS unit\n)\n"
    )
    assert registration_lines(src) == {1, 2, 3, 4, 6, 7, 8, 9}


def test_imported_and_alias_executables_have_no_sources() -> None:
    src = "add_executable(t IMPORTED)\nadd_executable(u ALIAS t)\nadd_test(NAME x COMMAND t)\n"
    found = cmake.test_registration(src)
    assert found.targets == ("t",)
    assert dict(found.sources) == {}
    assert registration_lines(src) == {1, 3}


def test_file_without_tests() -> None:
    src = "project(x)\nadd_library(core a.cc)\n"
    found = cmake.test_registration(src)
    assert found.registrations == ()
    assert found.enable_testing is False
    assert registration_lines(src) == set()


WRAPPERS = """\
function(cxx_executable name)
  add_executable(${name} ${ARGN})
endfunction()
function(cxx_test_with_flags name flags)
  cxx_executable(${name} ${ARGN})
  add_test(NAME ${name} COMMAND "$<TARGET_FILE:${name}>")
endfunction()
function(cxx_test name)
  cxx_test_with_flags(${name} "" ${ARGN})
endfunction()
function(py_test name)
  add_test(NAME ${name} COMMAND ${PYTHON_EXECUTABLE} ${name}.py)
endfunction()
function(cxx_library name)
  target_link_libraries(${name} PUBLIC threads)
endfunction()
"""


def test_user_functions_that_register_tests_are_wrapper_functions() -> None:
    assert wrapper_functions(WRAPPERS) == {"cxx_test_with_flags", "cxx_test", "py_test"}
    # A wrapper defined in another file is passed in; one calling it is then a wrapper too.
    assert wrapper_functions("macro(my_test n)\n  cxx_test(${n})\nendmacro()\n", ["CXX_TEST"]) == {
        "my_test"
    }


def test_variables_match_targets_only_inside_the_same_function() -> None:
    found = cmake.test_registration(WRAPPERS)
    # `${name}` registered by add_test inside cxx_test_with_flags is not the `${name}` that
    # cxx_executable or cxx_library build: function variables are local.
    assert found.targets == ("${name}",)
    assert [c.line for c in found.target_commands] == []
    assert registration_lines(WRAPPERS) == {6, 9, 12}


def test_calls_of_wrappers_register_their_first_argument_as_a_target() -> None:
    src = (
        "cxx_test(gtest_unittest gtest_main)\n"
        "add_executable(gtest_unittest test/gtest_unittest.cc)\n"
        "target_link_libraries(gtest_unittest gtest_main)\n"
        "cxx_library(gtest src/gtest-all.cc)\n"
    )
    found = cmake.test_registration(src, wrappers=["cxx_test"])
    assert [c.name for c in found.registrations] == ["cxx_test"]
    assert found.targets == ("gtest_unittest",)
    assert dict(found.sources) == {"gtest_unittest": ("test/gtest_unittest.cc",)}
    assert registration_lines(src, ["cxx_test"]) == {1, 2, 3}
    assert registration_lines(src) == set()


def test_sources_of_test_programs_and_nothing_else():
    files = {
        "CMakeLists.txt": "add_library(xml tinyxml2.cpp tinyxml2.h)\n"
        "add_executable(xmltest xmltest.cpp)\n"
        'add_test(NAME xmltest COMMAND xmltest WORKING_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}")\n'
        "add_subdirectory(tests)\n",
        # a test program that compiles the library's own source: that source stays production
        "tests/CMakeLists.txt": "add_executable(unit unit.cpp ${CMAKE_CURRENT_SOURCE_DIR}/u2.cpp"
        " ${PROJECT_SOURCE_DIR}/tinyxml2.cpp ../shared/helper.cpp ${GENERATED}/x.cpp"
        " /usr/src/gtest/gtest-all.cc)\n"
        "gtest_discover_tests(unit)\n"
        "add_executable(tool tool.cpp)\n",
    }
    assert cmake.test_sources(files) == {
        "xmltest.cpp",
        "tests/unit.cpp",
        "tests/u2.cpp",
        "shared/helper.cpp",
    }


# -- the project's own options ------------------------------------------------------------------

OPTIONS_TOP = """\
cmake_minimum_required(VERSION 3.20)
project(lib CXX)
option(LIB_COMPILED "a compiled library instead of header-only" OFF)
option(LIB_BUILD_TESTS "build the tests" ON)
option(LIB_EXAMPLES "build the examples")
cmake_dependent_option(LIB_EXTRA "extra" ON "LIB_COMPILED" OFF)
if(LIB_COMPILED)
  add_subdirectory(src)
endif()
if(LIB_BUILD_TESTS)
  add_subdirectory(suite)
endif()
if(${LIB_EXAMPLES} AND NOT LIB_OTHER)
  add_subdirectory(examples)
endif()
"""


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        # a switch around a folder that registers tests is the tests'; one around the library's
        # own folder is the project's
        (
            {
                "CMakeLists.txt": OPTIONS_TOP,
                "src/CMakeLists.txt": "add_library(lib lib.cpp)\n",
                "suite/CMakeLists.txt": "add_executable(t t.cpp)\nadd_test(NAME t COMMAND t)\n",
                "examples/CMakeLists.txt": "add_executable(e e.cpp)\n",
            },
            {"LIB_COMPILED", "LIB_EXTRA", "LIB_EXAMPLES"},
        ),
        # a folder whose registration sits one level down still brings tests
        (
            {
                "CMakeLists.txt": OPTIONS_TOP,
                "src/CMakeLists.txt": "add_library(lib lib.cpp)\n",
                "suite/CMakeLists.txt": "add_subdirectory(unit)\n",
                "suite/unit/CMakeLists.txt": "add_test(NAME u COMMAND u)\n",
                "examples/CMakeLists.txt": "add_test(NAME e COMMAND e)\n",
            },
            {"LIB_COMPILED", "LIB_EXTRA"},
        ),
        # an elseif's condition and a nested if's both switch the registration they hold
        (
            {
                "CMakeLists.txt": 'option(A "" OFF)\noption(B "" OFF)\noption(C "" OFF)\n'
                "if(A)\n  set(x 1)\nelseif(B)\n  if(C)\n    enable_testing()\n  endif()\n"
                "endif()\n",
            },
            set(),
        ),
        # a registration with no condition around it switches nothing
        (
            {"CMakeLists.txt": 'option(A "" OFF)\ninclude(CTest)\nif(A)\nendif()\n'},
            {"A"},
        ),
        ({}, set()),
    ],
)
def test_project_options_are_the_declared_options_less_the_test_switches(files, expected):
    assert cmake.project_options(files) == expected
