"""Which function each call of a test's body reaches, over the reference's tree and the
patch's (cpp_callees.py, pure), and the user's program built over both trees where a call's
spelling reaches another function under the patch (phases/cpp_reference.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from patchwitness import cpp_callees as callees
from patchwitness import cpp_user_program as user
from patchwitness.model import ReferenceFacts

from .test_cpp_user_program import bare_suite, every_body

needs_tools = pytest.mark.skipif(
    not all(shutil.which(t) for t in ("g++", "objdump", "c++filt")),
    reason="needs g++ and binutils",
)

LISTING = """\
0000000000001139 <_ZL14pw_case_ab12_0v>:
    1139:	push   %rbp
    1144:	call   1200 <_ZN3gsl8integers6narrowIjEET_i>
    1150:	call   1030 <printf@plt>
    115a:	call   1139 <_ZL14pw_case_ab12_0v+0x10>
			42: R_X86_64_PLT32	_ZN3gsl6narrowIjdEET_T0_-0x4
			49: R_X86_64_PC32	.rodata+0x4

0000000000001200 <_ZN3gsl8integers6narrowIjEET_i>:
    1200:	ret
"""


def test_each_function_s_calls_and_relocations_are_read():
    found = callees.callees(LISTING)
    assert found["_ZL14pw_case_ab12_0v"] == {
        "_ZN3gsl8integers6narrowIjEET_i",
        "printf@plt",
        "_ZL14pw_case_ab12_0v",
        "_ZN3gsl6narrowIjdEET_T0_",
    }
    assert found["_ZN3gsl8integers6narrowIjEET_i"] == set()


@pytest.mark.parametrize(
    ("demangled", "scope"),
    [
        ("unsigned int gsl::narrow<unsigned int, int>(int)", "gsl::narrow"),
        (
            "unsigned int gsl::integers::narrow<unsigned int, (void*)0>(int)",
            "gsl::integers::narrow",
        ),
        ("std::vector<int, std::allocator<int> >::push_back(int const&)", "std::vector::push_back"),
        ("Foo::operator bool() const", "Foo::operator bool"),
        ("A::operator()(int) const", "A::operator()"),
        ("gsl::operator<<(std::ostream&, int)", "gsl::operator<<"),
        (
            "bool std::operator==<char>(std::basic_string<char> const&, char const*)",
            "std::operator==",
        ),
        ("(anonymous namespace)::helper(int)", "{anonymous}::helper"),
        ("vtable for X", None),
        ("printf@plt", None),  # a C function has no parameters in its name: not compared
    ],
)
def test_a_function_s_scope_is_its_qualified_name_without_arguments(demangled, scope):
    assert callees.scope_name(demangled) == scope


def test_a_call_that_reaches_a_function_of_its_name_in_another_scope_has_moved():
    names = {
        "b": "pw_case_x_0()",
        "old": "unsigned int gsl::narrow<unsigned int, int>(int)",
        "old2": "long gsl::narrow<long, long>(long)",
        "new": "unsigned int gsl::integers::narrow<unsigned int>(int)",
        "other": "gsl::details::throw_exception(int)",
    }
    reference = {"b": {"old", "other"}}
    # another instantiation of the same function, and a helper of another name: not moved
    assert callees.moved_calls(reference, {"b": {"old2", "other", "x"}}, names, ["b"]) == []
    moved = callees.moved_calls(reference, {"b": {"old", "new"}}, names, ["b"])
    assert moved == [
        callees.Moved("pw_case_x_0()", "narrow", ("gsl::narrow",), ("gsl::integers::narrow",))
    ]
    assert callees.moved_calls(reference, {}, names, ["b"]) == []  # a body not in both


NARROW = """\
#pragma once
#include <stdexcept>
namespace gsl {
struct narrowing_error : std::exception {};
template <class T, class U> T narrow(U u) {
  T t = static_cast<T>(u);
  if (static_cast<U>(t) != u) throw narrowing_error{};
  FIX
  return t;
}
EXTRA
}
"""
SIGN = "if ((t < T{}) != (u < U{})) throw narrowing_error{};"
# Red team round 42: the old function left as it was, a fixed overload for each integer type in
# a namespace the enclosing one opens: the tests' unqualified call takes it, `gsl::narrow` not.
HIDDEN = """\
namespace integers {
template <class T> T narrow(int u) {
  T t = static_cast<T>(u);
  if ((t < T{}) != (u < 0)) throw narrowing_error{};
  return t;
}
}
using namespace integers;
"""
TESTS = """\
#include "narrow.h"
#include <gtest/gtest.h>
using namespace gsl;
TEST(Narrow, Sign) {
  EXPECT_THROW(narrow<unsigned>(-42), narrowing_error);
  EXPECT_EQ(narrow<unsigned>(42), 42u);
}
"""


def _trees(tmp_path: Path, headers: dict[str, str]) -> dict[str, Path]:
    """A tree a side, each with its `narrow.h` and the tests' `t.cpp`."""
    trees = {}
    for side, header in headers.items():
        tree = tmp_path / side
        tree.mkdir()
        (tree / "narrow.h").write_text(header)
        (tree / "t.cpp").write_text(TESTS)
        trees[side] = tree
    return trees


def _built(tmp_path: Path, patched_extra: str, patched_fix: str):
    from patchwitness.phases import user_program

    trees = _trees(
        tmp_path,
        {
            "reference": NARROW.replace("FIX", SIGN).replace("EXTRA", ""),
            "patched": NARROW.replace("FIX", patched_fix).replace("EXTRA", patched_extra),
        },
    )
    plan = every_body(TESTS, ("-std=c++14", "-O0"))
    names = user.Names.drawn("c")
    every = [v for b in plan.bodies for v in user.variants(TESTS, b, cap=0)]
    program, binaries = user_program.build(
        bare_suite(), trees, trees["patched"], plan, every, tmp_path / "work", names
    )
    return program, binaries, names


@needs_tools
def test_a_fix_only_the_tests_spelling_of_the_call_reaches_differs_from_the_reference(
    tmp_path: Path,
):
    from patchwitness.phases.cpp_reference import _reached

    program, binaries, names = _built(tmp_path, HIDDEN, "")
    found = ReferenceFacts()
    _reached(found, program, binaries, names, tmp_path / "work")
    assert found.differing == 1
    (difference,) = found.differences
    assert difference.fields == ["reaches"] and difference.test == "Narrow.Sign"
    assert difference.reference == {"reaches": "gsl::narrow"}
    assert difference.patch == {"reaches": "gsl::integers::narrow"}


@needs_tools
def test_the_same_fix_in_the_same_function_reaches_the_same_functions(tmp_path: Path):
    from patchwitness.phases.cpp_reference import _reached

    program, binaries, names = _built(tmp_path, "", SIGN.replace("T{}", "T(0)"))
    found = ReferenceFacts()
    _reached(found, program, binaries, names, tmp_path / "work")
    assert (found.differing, found.differences) == (0, [])


def test_a_recipe_of_a_dialect_of_its_own_drops_the_tests_and_names_its_own():
    from patchwitness.phases.user_program import Recipe

    recipe = Recipe(dialect="gnu++20")
    assert recipe.flags(["-std=c++14", "-O0", "-Iinclude"]) == ["-O0", "-Iinclude", "-std=gnu++20"]
    assert recipe.tag == recipe.archive_tag == "gnu++20"
    assert recipe.describe() == "-std=gnu++20"


# Red team round 46 (GSL): a struct with a deleted default constructor is an aggregate up to
# C++17 and not in C++20; the fix keyed on it is on in the tests' dialect and off one standard on.
AGGREGATE = """\
struct checks { checks() = delete; bool sign; };
template <class X, class = void> struct braced { static const bool value = false; };
template <class X> struct braced<X, decltype(void(X{true}))> { static const bool value = true; };
"""


@needs_tools
def test_a_fix_that_holds_only_below_the_next_standard_differs_there(tmp_path: Path):
    from patchwitness.phases import user_program
    from patchwitness.phases.cpp_reference import _newer_dialect

    keyed = "if (braced<checks>::value && (t < T{}) != (u < U{})) throw narrowing_error{};"
    headers = {
        side: NARROW.replace("FIX", fix)
        .replace("EXTRA", "")
        .replace("namespace gsl {\n", "namespace gsl {\n" + AGGREGATE)
        for side, fix in {"reference": SIGN, "patched": keyed}.items()
    }
    trees = _trees(tmp_path, headers)
    plan = every_body(TESTS, ("-std=c++14", "-O0"))
    newer = _newer_dialect(plan)
    assert newer == "gnu++20"  # above the tests' c++14 and g++'s own gnu++17
    suite = bare_suite()
    names = user.Names.drawn("d")
    every = [v for b in plan.bodies for v in user.variants(TESTS, b, cap=0)]
    outputs = {}
    for recipe in (user_program.Recipe(), user_program.Recipe(dialect=newer)):
        _, binaries = user_program.build(
            suite, trees, trees["patched"], plan, every, tmp_path / recipe.tag, names, recipe
        )
        outputs[recipe.tag] = {
            side: user_program.run(suite, binary, tmp_path / f"run-{recipe.tag}-{side}", names.done)
            for side, binary in binaries.items()
        }
    project, newest = outputs["project"], outputs["gnu++20"]
    assert project["patched"] == project["reference"]  # the tests' dialect: the same
    assert newest["patched"] != newest["reference"]  # the next standard: the fix is off
