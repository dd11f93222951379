"""The user's program of the C++ reference comparison: its text (pure), and that it builds and
runs with g++ alone, with no test framework installed or included."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from patchwitness import cpp_user_program as user

TESTS = """\
#include <gtest/gtest.h>
#include <stdexcept>
#include "lib.h"

namespace {
int twice(int x) { return 2 * x; }
}  // namespace

TEST(Lib, Clamp) {
  EXPECT_EQ(lib::clamp(5, 0, 3), 3);
  EXPECT_TRUE(lib::clamp(-1, 0, 3) == 0) << "low end";
  ASSERT_EQ(twice(lib::clamp(2, 0, 3)), 4);
  EXPECT_THROW(lib::clamp(1, 3, 0), std::invalid_argument);
  EXPECT_STREQ(lib::name(), "lib");
  int xs[3] = {1, 2, 3};
  static_assert(sizeof(int) >= 2, "");
  EXPECT_EQ(xs[0], 1);
}

TEST_F(Fixture, Other) {
  EXPECT_EQ(1, 1);
}

INSTANTIATE_TEST_SUITE_P(Some, Param, ::testing::Values(1, 2));
"""

LIB = """\
#pragma once
#include <stdexcept>
namespace lib {
inline int clamp(int v, int lo, int hi) {
  if (lo > hi) throw std::invalid_argument("lo > hi");
  return v < lo ? lo : v > hi ? hi : v;
}
inline const char* name() { return "lib"; }
}  // namespace lib
"""


def test_bodies_are_found_with_their_names_and_kinds():
    found = user.bodies(TESTS, "t.cpp")
    assert [(b.name, b.runnable, b.fixture) for b in found] == [
        ("Lib.Clamp", True, ""),
        ("Fixture.Other", True, "Fixture"),
    ]
    clamp = found[0]
    assert TESTS[clamp.start] == "{" and TESTS[clamp.end - 1] == "}"
    assert TESTS[clamp.head :].startswith("TEST(Lib, Clamp)")


def test_variants_move_one_literal_each_and_leave_constant_contexts_alone():
    clamp = user.bodies(TESTS, "t.cpp")[0]
    made = user.variants(TESTS, clamp, cap=1000)
    assert made[0].varied == "" and made[0].text == TESTS[clamp.start : clamp.end]
    moved = [v.varied for v in made[1:]]
    assert "5 -> 6 (body line 2, column 24)" in moved
    assert "5 -> 0 (body line 2, column 24)" in moved
    assert '"lib" -> "" (body line 6, column 29)' in moved
    # Array bounds and static_assert arguments would make another program, or none: of line
    # 7's two 3s only the initializer's moves.
    assert sum(v.startswith("3 ->") and "(body line 7," in v for v in moved) == 6
    assert not any("body line 8," in v for v in moved)
    # Each variant differs from the body by one literal.
    for variant in made[1:]:
        assert variant.text != made[0].text


def test_variants_are_capped_and_reproducible():
    clamp = user.bodies(TESTS, "t.cpp")[0]
    first = user.variants(TESTS, clamp, seed=1, cap=4)
    again = user.variants(TESTS, clamp, seed=1, cap=4)
    assert len(first) == 5 and first == again


def test_a_call_that_names_some_template_arguments_is_also_spelled_with_every_one_named():
    """Red team round 46 (GSL): `narrow<T, class... Source, U>` checked the sign only when no
    source type was named; the tests call `narrow<unsigned>(n)`, a user may write
    `narrow<unsigned, int>(n)`."""
    text = (
        "TEST(N, A) {\n  int n = -42;\n"
        "  EXPECT_THROW(gsl::narrow<unsigned>(n), gsl::narrowing_error);\n"
        "  EXPECT_EQ(static_cast<int>(3), f<char>(g(1, 2)));\n"
        "  EXPECT_EQ(1, h<int>(1, 2));\n}\n"
    )
    body = user.bodies(text, "t.cpp")[0]
    named = [v for v in user.variants(text, body) if "every template argument named" in v.varied]
    assert [v.varied.split(" (every")[0] for v in named] == [
        "gsl::narrow<unsigned>(n) -> (gsl::narrow<unsigned, decltype(n)>)(n)",
        "f<char>(g(1, 2)) -> (f<char, decltype(g(1, 2))>)(g(1, 2))",
    ]  # not a cast's brackets, not a call of two arguments
    # in parentheses: still one argument of the assertion's macro
    assert "EXPECT_THROW((gsl::narrow<unsigned, decltype(n)>)(n), gsl" in named[0].text


def test_number_string_and_char_neighbours():
    # one more, one less, zero, and one, two and three orders up (red team round 31: a check
    # off only between the tests' magnitude and its thousandfold)
    assert user._number_moves("3") == ["4", "2", "0", "33", "307", "3007"]
    assert user._number_moves("0") == ["1", "3", "7"]
    assert user._number_moves("0x10") == ["17", "15", "0", "163", "1607", "16007"]
    assert user._number_moves("1.5") == ["2.5", "0.75", "0.0", "1500000.0"]
    assert user._string_moves("ab") == ["", "abb", "ab\\xc3\\xa9", "a"]
    assert user._string_moves("") == ["x", "\\xc3\\xa9"]
    assert user._char_moves("a") == ["b", "A"]


def test_the_program_leaves_the_framework_out_and_defines_its_macros_after_the_includes():
    found = user.bodies(TESTS, "t.cpp")
    names = user.Names.drawn("feed")
    made = user.variants(TESTS, found[0], cap=2)
    program = user.program(TESTS, found, names, made)
    text = program.text
    assert "gtest/gtest.h" not in text
    assert "INSTANTIATE_TEST_SUITE_P" not in text and "TEST_F(" not in text
    # The project's headers come before any macro of the program's.
    assert text.index('#include "lib.h"') < text.index("#define EXPECT_EQ")
    assert "namespace pw_user_feed" in text and "PWNS" not in text
    # One function per variant, at the lines the program says.
    lines = text.split("\n")
    for index, (first, last) in enumerate(program.lines):
        assert lines[first - 1] == f"static void pw_case_feed_{index}()"
        assert lines[last - 1].rstrip().endswith("}")
    assert "pw_case_feed_0, pw_case_feed_1, pw_case_feed_2" in text


def test_compile_errors_drop_the_variants_they_point_at():
    found = user.bodies(TESTS, "t.cpp")
    made = user.variants(TESTS, found[0], cap=3)
    program = user.program(TESTS, found, user.Names.drawn("x"), made)
    (a, _), (b, _) = program.lines[1], program.lines[2]
    output = (
        f"user_program.cpp:{a + 1}:5: error: no match\n"
        f"In instantiation of ...\nuser_program.cpp:{b + 2}: required from here\n"
        "other.cpp:3:1: error: not ours\n"
    )
    lines = user.error_lines(output, "user_program.cpp")
    assert lines == {a + 1, b + 2}
    assert user.failing_variants(program.lines, lines) == ({1, 2}, False)
    assert user.failing_variants(program.lines, {3}) == (set(), True)


def test_the_report_is_read_by_lengths_and_a_short_one_stops_cleanly():
    data = b"0 40 6\neq 1 1\n1 134 0\n\n2 -1 3\nab\n\n3 0 99\ncut"
    assert user.read_report(data, 40) == {
        0: (user.CAME_BACK, "eq 1 1"),
        1: ("killed by signal 6", ""),
        2: ("timed out", "ab\n"),
    }
    assert user.read_report(b"garbage\n", 40) == {}


def test_a_case_came_back_only_with_the_drawn_status():
    # The status is the program's, drawn per grade: code under test that ends the process
    # itself with 0 (or any number it guesses) hides no assertion.
    data = b"0 41 12\neq 1 2 false\n1 0 0\n\n2 40 0\n\n"
    report = user.read_report(data, 40)
    assert [report[i][0] for i in (0, 1, 2)] == [user.UNHELD, "exited 0", user.CAME_BACK]
    names = {user.Names.drawn(t).done for t in ("a1b2c3d4", "00000000", "ffffffff", "run")}
    assert all(16 <= d < 112 for d in names) and len(names) > 1


def test_unheld_names_the_tests_whose_own_body_did_not_hold():
    found = user.bodies(TESTS, "t.cpp")
    made = user.variants(TESTS, found[0], cap=2)
    program = user.program(TESTS, found, user.Names.drawn("x"), made)
    held = {0: (user.CAME_BACK, "eq 3 3 true"), 1: (user.UNHELD, "eq 0 3 false")}
    # A moved literal that does not hold is the comparison's, not a failure of the test.
    assert user.unheld(program, held) == {}
    failed = {0: (user.UNHELD, "eq 3 3 true\neq 2 3 false\ntrue true")}
    assert user.unheld(program, failed) == {found[0].name: f"{user.UNHELD}: eq 2 3 false"}
    assert user.unheld(program, {0: ("exited 0", "")}) == {found[0].name: "exited 0"}
    assert user.unheld(program, {}) == {found[0].name: "the program ended before this case"}


def test_first_difference_numbers_the_observation():
    assert user.first_difference("a\nb\nc", "a\nx\nc") == ("#2 b", "#2 x")
    assert user.first_difference("a", "a\nmore") == ("#2 (nothing more)", "#2 more")


needs_gxx = pytest.mark.skipif(not shutil.which("g++"), reason="needs g++")


@needs_gxx
def test_the_program_builds_and_runs_without_any_framework(tmp_path: Path):
    (tmp_path / "lib.h").write_text(LIB)
    found = user.bodies(TESTS, "t.cpp")
    made = user.variants(TESTS, found[0], cap=1000)
    program = user.program(TESTS, found, user.Names.drawn("run"), made)
    source = tmp_path / "user_program.cpp"
    source.write_text(program.text)
    binary = tmp_path / "user_program"
    # No include folder of a framework: the program needs none.
    subprocess.run(
        ["g++", "-std=c++11", "-w", "-iquote", str(tmp_path), str(source), "-o", str(binary)],
        check=True,
        capture_output=True,
    )
    done = subprocess.run([str(binary)], cwd=tmp_path, capture_output=True, check=True)
    report = user.read_report(done.stdout, user.Names.drawn("run").done)
    assert len(report) == len(made)
    ending, printed = report[0]
    assert ending == user.CAME_BACK
    assert printed.split("\n")[:5] == [
        "eq 3 3 true",
        "true true",
        "eq 4 4 true",
        "threw the expected exception",
        'streq "lib" "lib"',
    ]
    by_varied = {v.varied: report[i] for i, v in enumerate(made)}
    # A neighbour the tests never tried: clamp(6, 0, 3) is still 3, clamp(5, 0, 0) is 0.
    assert by_varied["5 -> 6 (body line 2, column 24)"][1].startswith("eq 3 3 true")
    assert by_varied["3 -> 0 (body line 2, column 30)"][1].startswith("eq 0 3 false")
    # A moved literal of an ASSERT that no longer holds ends the body there, as the test would.
    assert by_varied["4 -> 5 (body line 4, column 41)"][1].split("\n")[:3] == [
        "eq 3 3 true",
        "true true",
        "eq 4 5 false",
    ]


def test_integer_types_move_to_other_widths_and_signedness():
    assert user._type_moves("uint32_t") == ["uint16_t", "uint64_t", "int32_t"]
    assert user._type_moves("std::int8_t") == ["std::int16_t", "std::uint8_t"]
    assert user._type_moves("unsigned") == ["unsigned long long", "unsigned short", "int"]
    found = [m.group(0) for m in user._INTEGER_TYPE.finditer("unsigned int a; long int b; int c;")]
    assert found == ["int"]  # a multi-word type is left as written
    body = "TEST(N, Narrow) {\n  EXPECT_THROW(narrow<uint32_t>(int32_t(-1)), narrowing_error);\n}\n"
    moved = [v.varied for v in user.variants(body, user.bodies(body, "t.cpp")[0], cap=100)]
    assert "uint32_t -> uint64_t (body line 2, column 23)" in moved
    assert "int32_t -> int64_t (body line 2, column 33)" in moved


def test_every_integer_type_of_a_body_moves_at_once():
    """Red team round 18 fixed GSL's narrow for signed sources only, and for 32-bit targets
    only: the tests convert signed to unsigned at 32 bits, and a type moved alone never makes a
    conversion the other way or between other widths."""
    body = (
        "TEST(N, Narrow) {\n  int n = -42;\n"
        "  EXPECT_THROW(narrow<uint32_t>(int32_t(-1)), narrowing_error);\n"
        "  EXPECT_THROW(narrow<unsigned>(n), narrowing_error);\n}\n"
    )
    found = user.bodies(body, "t.cpp")[0]
    made = user.variants(body, found, cap=100)
    [swapped] = [v for v in made if v.varied == "every integer type with its other signedness"]
    assert "narrow<int32_t>(uint32_t(-1))" in swapped.text
    assert "unsigned n = -42;" in swapped.text and "narrow<int>(n)" in swapped.text
    assert swapped.moved and made[1] is swapped  # never capped out
    [half] = [v for v in made if v.varied == "every integer type at half its width"]
    assert "narrow<uint16_t>(int16_t(-1))" in half.text and "short n = -42;" in half.text
    [double] = [v for v in made if v.varied == "every integer type at twice its width"]
    assert "narrow<uint64_t>(int64_t(-1))" in double.text
    [byte] = [v for v in made if v.varied == "every integer type at 8 bits"]
    assert "narrow<uint8_t>(int8_t(-1))" in byte.text and "signed char n = -42;" in byte.text
    # red team round 21: the other signedness at another width at once, and character types
    # no test names
    [wide] = [v for v in made if v.varied.endswith("other signedness at twice its width")]
    assert "narrow<int64_t>(uint64_t(-1))" in wide.text
    # (character types: the grid's pairs, below)
    # red team round 25: one signedness moved alone, the two sides of a conversion at two
    # widths (a check skipped where the target is narrower than the source)
    [signed] = [v for v in made if v.varied == "every signed integer type at half its width"]
    assert "narrow<uint32_t>(int16_t(-1))" in signed.text and "narrow<unsigned>(n)" in signed.text
    [other] = [v for v in made if v.varied == "every unsigned integer type at half its width"]
    assert "narrow<uint16_t>(int32_t(-1))" in other.text
    # and both at once: an unsigned source twice the width of a signed target
    [wider] = [v for v in made if v.varied.endswith("the unsigned ones at twice its width")]
    assert "narrow<int32_t>(uint64_t(-1))" in wider.text and "unsigned long long n" in wider.text
    # red team round 31: the check skipped above 64 bits, and for a const-qualified target
    [const] = [v for v in made if v.varied == "every integer type const-qualified"]
    assert "narrow<std::add_const<unsigned>::type>(n)" in const.text
    # every ordered pair of two integer types, the body's signed types moved to the first and
    # its unsigned ones to the second, the copies of one first type to a function: red team
    # round 56 (a 64-bit unsigned target from an int source; an unsigned long source to a long
    # long target), round 46 (two types of one width not each other's twins), round 31 (above
    # 64 bits), rounds 21 and 22 (character types, plain char beside signed char), round 61
    # (a 128-bit target from a standard source, a character type made from an int)
    grid = [v for v in made if "every unsigned one as each other integer type" in v.varied]
    types = len(user.INTEGER_TYPES)
    assert len(user.TYPE_PAIRS) == types * (types - 1)
    assert len(grid) == types
    text = "".join(v.text for v in grid)
    one = "std::common_type<{}>::type"
    for target, source in (
        ("unsigned long", "int"),
        ("long long", "unsigned long"),
        ("unsigned long", "long long"),
        ("unsigned __int128", "__int128"),
        ("unsigned __int128", "int"),
        ("unsigned", "__int128"),
        ("char32_t", "int"),
        ("char32_t", "wchar_t"),
        ("char16_t", "char"),
        ("char", "signed char"),
    ):
        assert f"narrow<{one.format(target)}>({one.format(source)}(-1))" in text, (target, source)
    assert f"{one.format('long long')} n = -42;" in text
    assert all(v.moved and v.text.count("EXPECT_THROW") == 2 * (types - 1) for v in grid)
    # the body, the twelve whole-body moves, the grid's sixteen and its two calls with every
    # template argument named, never capped out; one move alone then fills up
    forced = 1 + len(user._EVERY_TYPE_MOVES) + types + 2
    assert len(user.variants(body, found, cap=3)) == forced
    assert len(user.variants(body, found, cap=forced)) == forced + 1
    # a body of one signedness reads one type of each pair: one copy per type, no repeats
    signed = "TEST(N, Signed) {\n  int32_t n = 300;\n  EXPECT_EQ(narrow<int16_t>(n), 300);\n}\n"
    made = user.variants(signed, user.bodies(signed, "t.cpp")[0], cap=1)
    grid = [v for v in made if "every unsigned one as each other integer type" in v.varied]
    assert len(grid) == types and all(v.text.count("try {") == 1 for v in grid)
    one_type = "TEST(N, One) {\n  EXPECT_EQ(narrow<char>(300), 44);\n}\n"
    alone = user.variants(one_type, user.bodies(one_type, "t.cpp")[0], cap=100)
    assert all("signedness" not in v.varied for v in alone)


def _built_and_run(tmp_path: Path, tests: str, seed: str) -> tuple[user.Program, dict]:
    """The user's program of every body of `tests` (no neighbours), built with g++ and run:
    the program and its report."""
    found = user.bodies(tests, "t.cpp")
    made = [v for b in found for v in user.variants(tests, b, cap=0)]
    names = user.Names.drawn(seed)
    program = user.program(tests, found, names, made)
    source = tmp_path / "user_program.cpp"
    source.write_text(program.text)
    binary = tmp_path / "user_program"
    subprocess.run(["g++", "-w", str(source), "-o", str(binary)], check=True, capture_output=True)
    done = subprocess.run([str(binary)], cwd=tmp_path, capture_output=True, check=True)
    return program, user.read_report(done.stdout, names.done)


@needs_gxx
def test_a_body_that_fails_or_ends_the_process_does_not_come_back_held(tmp_path: Path):
    tests = """\
#include <sys/stat.h>
#include <cstdlib>
#include <stdexcept>
TEST(Run, Holds) { EXPECT_EQ(1 + 1, 2); }
TEST(Run, Fails) { EXPECT_EQ(1 + 1, 3); EXPECT_TRUE(true); }
TEST(Run, Ends) { EXPECT_EQ(1, 2); std::exit(0); }
TEST(Run, Throws) { throw std::runtime_error("no"); }
TEST(Run, Skips) { GTEST_SKIP() << "not here"; EXPECT_EQ(1, 2); }
TEST(Run, WritesToAFile) { struct stat st; fstat(1, &st); EXPECT_TRUE(S_ISREG(st.st_mode)); }
class Counter : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { suite = 10; }
  void SetUp() override { value = suite + 1; }
  void TearDown() override { EXPECT_EQ(value, 12); }
  static int suite;
  int value = 0;
};
int Counter::suite = 0;
TEST_F(Counter, Holds) { EXPECT_EQ(value, 11); ++value; }
TEST_F(Counter, TearsDownUnheld) { EXPECT_FALSE(HasFailure()); }
"""
    program, report = _built_and_run(tmp_path, tests, "c0ffee01")
    assert user.unheld(program, report) == {
        "Run.Fails": f"{user.UNHELD}: eq 2 3 false",
        "Run.Ends": "exited 0: eq 1 2 false",
        "Run.Throws": f"{user.UNHELD}: uncaught St13runtime_error",
        # The fixture's TearDown runs after the body, as GoogleTest runs it.
        "Counter.TearsDownUnheld": f"{user.UNHELD}: eq 11 12 false",
    }
    shown = {v.test: report[i][1] for i, v in enumerate(program.variants)}
    assert shown["Counter.Holds"] == "eq 11 11 true\neq 12 12 true\n"


@pytest.mark.parametrize(
    ("main", "setup"),
    [
        (
            "int main(int argc, char** argv) {\n  ::testing::InitGoogleTest(&argc, argv);\n"
            "  return RUN_ALL_TESTS();\n}\n",
            "",
        ),
        (
            "int main(int argc, char **argv) {\n  testing::InitGoogleTest(&argc, argv);\n"
            '  GTEST_FLAG_SET(death_test_style, "threadsafe");\n  int r = RUN_ALL_TESTS();\n'
            "  return r;\n}\n",
            "",
        ),
        (
            "int main(int argc, char** argv) {\n  testing::InitGoogleTest(&argc, argv);\n"
            '  lib::init("tests");  // the library\'s globals\n  return RUN_ALL_TESTS();\n}\n',
            'lib::init("tests")',
        ),
        (
            "int main() {\n  testing::AddGlobalTestEnvironment(new Env);\n"
            "  return RUN_ALL_TESTS();\n}\n",
            "testing::AddGlobalTestEnvironment(new Env)",
        ),
        ("int main() { return run_my_checks(); }\n", ""),  # no GoogleTest run: not a test main
    ],
)
def test_a_test_main_that_sets_something_up_is_seen(main, setup):
    assert user.test_main_setup("#include <gtest/gtest.h>\n" + main) == setup


def test_a_body_is_cut_after_each_statement_that_asserts():
    text = (
        "TEST(N, Many) {\n"
        "  int n = 1;\n"
        "  EXPECT_EQ(f(n), 2);\n"
        "  if (n) { EXPECT_TRUE(g()); } else { n = 2; }\n"
        "  auto h = [&] { return n; };\n"
        "  EXPECT_THROW(f(std::complex<double>(1, 1)), E);\n"
        "}\n"
    )
    body = user.bodies(text, "t.cpp")[0]
    made = user.prefixes(text, body)
    # One prefix per asserting statement but the last (the whole body is the body itself).
    assert [v.varied for v in made] == ["as far as body line 3", "as far as body line 4"]
    assert made[0].text.endswith("EXPECT_EQ(f(n), 2);\n}")
    assert made[1].text.endswith("else { n = 2; }\n}")
    assert not any(v.moved for v in made)


def test_unheld_reads_a_prefix_that_did_not_hold_as_its_test_failing():
    text = "TEST(N, P) {\n  EXPECT_EQ(f(), 1);\n  EXPECT_THROW(g(), E);\n}\n"
    body = user.bodies(text, "t.cpp")[0]
    made = [*user.variants(text, body, cap=1), *user.prefixes(text, body)]
    program = user.program(text, [body], user.Names.drawn("x"), made)
    report = {
        0: (user.CAME_BACK, ""),
        1: (user.UNHELD, "eq 2 1 false"),  # a moved literal: the comparison's business
        2: (user.UNHELD, "eq 0 1 false"),
    }
    assert user.unheld(program, report) == {
        "N.P": f"{user.UNHELD}: eq 0 1 false (as far as body line 2)"
    }


def test_the_program_s_compiles_name_the_tree_s_folders_relative_to_it():
    from patchwitness.phases.user_program import _relative

    tree = Path("/w/repo")
    flags = ["-I/w/repo/include", "-isystem/w/repo/third", "-I/usr/include/x", "-I", "/w/repo"]
    assert _relative(flags, tree) == ["-Iinclude", "-isystemthird", "-I/usr/include/x", "-I", "."]


@needs_gxx
def test_a_bare_program_completes_no_type_the_code_can_ask_about(tmp_path: Path):
    """Red team round 16: the printing support's <sstream> made std::ostringstream complete in
    the program of the project's headers alone. The bare one includes nothing, and its main is
    a unit of its own."""
    (tmp_path / "lib.h").write_text(
        "#pragma once\n#include <iosfwd>\n#include <type_traits>\nnamespace lib {\n"
        "template <class T, class = void> struct complete : std::false_type {};\n"
        "template <class T> struct complete<T, decltype(void(sizeof(T)))> : std::true_type {};\n"
        "template <class C> bool stream_complete() {\n"
        "  return complete<std::basic_ostringstream<C>>::value;\n}\n"
        "}  // namespace lib\n"
    )
    tests = '#include <gtest/gtest.h>\n#include "lib.h"\n\nTEST(Lib, Bare) {\n'
    tests += "  EXPECT_FALSE(lib::stream_complete<char>());\n}\n"
    found = user.bodies(tests, "t.cpp")
    made = user.variants(tests, found[0], cap=0)
    names = user.Names.drawn("bare0001")
    endings = {}
    for bare in (True, False):
        program = user.program(tests, found, names, made, bare=bare)
        assert bool(program.main) == bare
        units = [tmp_path / f"p{bare}.cpp"]
        units[0].write_text(program.text)
        if bare:
            units.append(tmp_path / "main.cpp")
            units[1].write_text(program.main)
            after = program.text.split('#include "lib.h"', 1)[1]
            assert not [line for line in after.splitlines() if line.startswith("#include")]
        binary = tmp_path / f"p{bare}"
        argv = ["g++", "-w", "-iquote", str(tmp_path), *map(str, units), "-o", str(binary)]
        subprocess.run(argv, check=True, capture_output=True)
        done = subprocess.run([str(binary)], cwd=tmp_path, capture_output=True, check=True)
        endings[bare] = user.read_report(done.stdout, names.done)[0][0]
    assert endings == {True: user.CAME_BACK, False: user.UNHELD}


def every_body(text: str, flags: tuple[str, ...]):
    """A program's plan of every body of the test file `t.cpp` (`text`), compiled by g++ with
    `flags`, with no production source to link."""
    from patchwitness.phases import user_program

    bodies = user.bodies(text, "t.cpp")
    test = user_program.Compile("t.cpp", "g++", flags)
    return user_program.Plan(test=test, text=text, bodies=bodies, driven=bodies, production=[])


def bare_suite() -> SimpleNamespace:
    """What the program's build and run ask of a suite: the runner (unconfined) and no folders."""
    from patchwitness.runner import UNCONFINED

    return SimpleNamespace(runner=UNCONFINED, env=SimpleNamespace(bin_dirs=[], readable=[]))


def test_a_program_that_builds_over_the_reference_and_not_over_the_patch_is_an_answer(
    tmp_path: Path,
):
    """Red team round 21 (GSL) left `#include <memory>` out of a header the tests reach after
    GoogleTest had included it: the user's program did not compile over the patch, the
    comparison was skipped, and a skipped comparison accepts. Over the reference the same
    program compiles: that is the comparison's answer, not a reason to skip it."""

    from patchwitness.phases import user_program

    trees = {}
    for side, header in {
        "patched": "inline int twice(int x) { std::unique_ptr<int> p; return 2 * x; }\n",
        "reference": "#include <memory>\n"
        "inline int twice(int x) { std::unique_ptr<int> p; return 2 * x; }\n",
    }.items():
        tree = tmp_path / side
        tree.mkdir()
        (tree / "lib.h").write_text(header)
        (tree / "t.cpp").write_text(
            '#include "lib.h"\nTEST(Lib, Twice) {\n  EXPECT_EQ(4, twice(2));\n}\n'
        )
        trees[side] = tree
    plan = every_body((trees["reference"] / "t.cpp").read_text(), ("-std=c++14",))
    suite = bare_suite()
    names = user.Names.drawn("t")
    with pytest.raises(user_program.BuildsOnlyOverTheReference) as raised:
        user_program.build(suite, trees, trees["patched"], plan, [], tmp_path / "work", names)
    assert "unique_ptr" in raised.value.error
    # over the reference alone it builds: nothing to say
    _, binaries = user_program.build(
        suite, {"reference": trees["reference"]}, trees["patched"], plan, [], tmp_path / "w2", names
    )
    assert binaries["reference"].is_file()


def test_a_users_release_build_has_none_of_the_tests_build_semantics():
    """The user's build of the comparison: -O2, plain char unsigned, UB trapped, and none of
    what the tests' build adds to make defined what the standard leaves undefined (red team
    round 25 read GSL's sign through a type-punned double, right only under the tests'
    -fno-strict-aliasing)."""
    from patchwitness.phases.user_program import Recipe

    tests = ["-std=c++14", "-O0", "-fsigned-char", "-fno-strict-aliasing", "-fwrapv", "-I", "x"]
    flags = Recipe(default_dialect=True, user_build=True).flags(tests)
    assert "-fno-strict-aliasing" not in flags and "-fwrapv" not in flags
    assert "-O0" not in flags and "-fsigned-char" not in flags and "-std=c++14" not in flags
    assert {"-O2", "-funsigned-char", "-I", "x"} <= set(flags)
    # the tests' own build keeps every flag
    assert Recipe().flags(tests) == tests


def test_each_case_starts_as_a_users_program_does(tmp_path: Path):
    """Red team round 35 (GSL) kept the sign check on only where an alarm was armed or where
    stdout's FILE was in put mode (glibc's _IO_CURRENTLY_PUTTING, 0x800): each what this
    harness's children were. A case now starts with no timer and a stdout nothing wrote
    through; one that does not end is still stopped. Addresses stay fixed (an honest body that
    reads out of bounds must read the same bytes under both trees): asked, that is a read."""
    tests = """\
#include <sys/personality.h>
#include <sys/time.h>
#include <cstdio>
TEST(Start, NoTimer) {
  struct itimerval t;
  getitimer(ITIMER_REAL, &t);
  EXPECT_EQ(t.it_value.tv_sec + t.it_value.tv_usec, 0);
}
TEST(Start, StdoutUntouched) { EXPECT_EQ(*reinterpret_cast<const int*>(stdout) & 0x800, 0); }
TEST(Start, Fixed) { EXPECT_NE(personality(0xffffffff) & ADDR_NO_RANDOMIZE, 0); }
TEST(Start, Hangs) { for (volatile int i = 0;; i = i + 1) {} }
TEST(Start, Later) { EXPECT_EQ(*reinterpret_cast<const int*>(stdout) & 0x800, 0); }
"""
    program, report = _built_and_run(tmp_path, tests, "c0ffee02")
    endings = {v.test: report[i][0] for i, v in enumerate(program.variants)}
    assert endings == {
        "Start.NoTimer": user.CAME_BACK,
        "Start.StdoutUntouched": user.CAME_BACK,
        "Start.Fixed": user.CAME_BACK,
        "Start.Hangs": "timed out",
        "Start.Later": user.CAME_BACK,  # after other cases' reports were written
    }, report


def test_a_users_first_build_is_iso_cxx_without_the_projects_definitions():
    """Red team round 51 (tinyxml2): a fix under `#ifndef __STRICT_ANSI__` (every build of the
    grader's was a GNU dialect), and one that read the project's -D_FILE_OFFSET_BITS=64 through
    `fpos_t`'s type. A user's first build is ISO C++ in the compiler's default standard, without
    the project's -D and -U, then with them; and GNU, then the tests' dialect."""
    from patchwitness import sourcemap
    from patchwitness.phases import user_program

    strict = sourcemap.strict_dialect()
    assert strict.startswith("c++") and not strict.startswith("gnu")
    (first, second), gnu = user_program.user_builds()
    flags = ["-std=gnu++14", "-DX=1", "-D", "Y", "-UZ", "-Iinc", "-O0"]
    assert first.flags(flags)[:2] == ["-Iinc", f"-std={strict}"]
    assert not any(f.startswith(("-D", "-U")) or f in ("X=1", "Y") for f in first.flags(flags))
    assert {"-DX=1", "-D", "Y", "-UZ"} <= set(second.flags(flags))
    # and, built as well, the compiler's own GNU dialect (red team round 61: a fix off only
    # in GNU dialects before C++20), the tests' dialect where that one does not build
    assert [(r.default_dialect, r.dialect, r.user_build) for r in gnu] == [
        (True, "", True),
        (False, "", True),
    ]
    assert "without the project's own -D definitions" in first.describe()


@needs_gxx
def test_a_case_is_waited_for_until_it_ends_and_killed_once_its_time_is_up(tmp_path: Path):
    """The program looks at a case more and more rarely while it runs: one that ends after many
    looks still comes back with its output, and one that never ends is killed at
    CASE_SECONDS."""
    tests = """\
#include <unistd.h>
TEST(Wait, Quick) { EXPECT_EQ(1, 1); }
TEST(Wait, Slow) { usleep(120000); EXPECT_EQ(2, 2); }
TEST(Wait, Forever) { for (;;) pause(); }
TEST(Wait, After) { EXPECT_EQ(3, 4); }
"""
    program, report = _built_and_run(tmp_path, tests, "c0ffee02")
    ended = {v.test: report[i][0] for i, v in enumerate(program.variants)}
    assert ended == {
        "Wait.Quick": user.CAME_BACK,
        "Wait.Slow": user.CAME_BACK,
        "Wait.Forever": "timed out",
        "Wait.After": user.UNHELD,
    }
    shown = {v.test: report[i][1] for i, v in enumerate(program.variants)}
    assert shown["Wait.Slow"] == "eq 2 2 true\n"


def test_each_side_works_at_once_and_raises_the_first_sides_error():
    import threading

    from patchwitness.phases.user_program import each_side

    both_started = threading.Barrier(2, timeout=10)

    def work(side: str, tree: Path) -> str:
        both_started.wait()  # broken (an error) unless the two sides run at the same time
        return f"{side}:{tree.name}"

    sides = {"patched": Path("/p"), "reference": Path("/r")}
    assert each_side(sides, work) == {"patched": "patched:p", "reference": "reference:r"}

    def fails(side: str, tree: Path) -> str:
        raise ValueError(side)

    with pytest.raises(ValueError, match="patched"):
        each_side(sides, fails)
    assert each_side({"patched": Path("/p")}, lambda side, tree: side) == {"patched": "patched"}


def test_programs_built_side_by_side_make_their_shared_archive_once(tmp_path: Path):
    """Two programs of one dialect and build share the production archive; built in two
    threads at once, the second waits for the first's and compiles nothing."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from patchwitness.phases import user_program

    calls: list[str] = []
    guard = threading.Lock()

    class Runner:
        def run(self, request):
            with guard:
                calls.append(request.command[0])
            if request.command[0] == "ar":
                Path(request.command[2]).write_bytes(b"!<arch>\n")
            return SimpleNamespace(ok=True, stdout=b"", stderr=b"")

    suite = SimpleNamespace(runner=Runner(), env=SimpleNamespace(bin_dirs=[], readable=[]))
    production = [user_program.Compile("lib.cpp", "g++", ("-O0",))]
    folder = tmp_path / "lib-project"
    with ThreadPoolExecutor(max_workers=2) as pool:
        made = list(
            pool.map(
                lambda _: user_program._archive(
                    suite, tmp_path, tmp_path, production, folder, user_program.Recipe()
                ),
                range(2),
            )
        )
    assert made == [folder / "libproduction.a"] * 2
    assert calls == ["g++", "ar"]


def test_a_program_the_patch_no_longer_builds_in_the_next_standard_is_an_answer(
    tmp_path: Path,
):
    """Red team round 61 (GSL) named a constant `requires`, a keyword from C++20 on: the
    comparison one standard up did not build over the patch and was dropped unsaid. Where the
    reference's still builds there, a user moving on is broken by the patch: a difference."""
    from patchwitness.model import ReferenceFacts
    from patchwitness.phases import cpp_reference, user_program

    trees = {}
    for side, name in {"patched": "requires", "reference": "needed"}.items():
        tree = tmp_path / side
        tree.mkdir()
        twice = f"inline int twice(int x) {{ int {name} = 2; return {name} * x; }}\n"
        (tree / "lib.h").write_text(twice)
        (tree / "t.cpp").write_text(
            '#include "lib.h"\nTEST(Lib, Twice) {\n  EXPECT_EQ(4, twice(2));\n}\n'
        )
        trees[side] = tree
    plan = every_body((trees["reference"] / "t.cpp").read_text(), ("-std=c++14",))
    every = [user.Variant("Lib.Twice", "", plan.text[plan.driven[0].start : plan.driven[0].end])]
    names = user.Names.drawn("t")
    found = ReferenceFacts()
    with pytest.raises(user_program.BuildsOnlyOverTheReference) as raised:
        cpp_reference._in_newer_dialect(
            bare_suite(), trees, trees["patched"], plan, every, tmp_path / "w", names, found
        )
    assert raised.value.error.startswith("-std=gnu++20: ") and "requires" in raised.value.error
    # the same program over two trees that both build there is compared, and agrees
    trees["patched"] = trees["reference"]
    cpp_reference._in_newer_dialect(
        bare_suite(), trees, trees["patched"], plan, every, tmp_path / "w2", names, found
    )
    assert found.compared == 1 and not found.differing
