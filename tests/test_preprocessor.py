"""The conditional structure of C++ text and the value of `#if` expressions, row by row."""

from __future__ import annotations

import pytest

from patchwitness import preprocessor as pp


@pytest.mark.parametrize(
    ("condition", "macros", "value"),
    [
        ("1", {}, 1),
        ("0", {}, 0),
        ("__cplusplus < 201703L", {"__cplusplus": 201402}, 1),
        ("__cplusplus < 201703L", {"__cplusplus": 201703}, 0),
        ("__cplusplus >= 201103L && !defined(NDEBUG)", {"__cplusplus": 201103}, 1),
        ("defined(EXPECT_THROW)", {"EXPECT_THROW": 1}, 1),
        ("defined EXPECT_THROW", {}, 0),
        ("UNKNOWN", {}, 0),
        ("UNKNOWN == 0", {}, 1),
        ("(1 + 2) * 3 == 9", {}, 1),
        ("0x10 >> 2 == 4", {}, 1),
        ("1 ? 2 : 3", {}, 2),
        ("-1 < 0", {}, 1),
        ("OLD", {"OLD": "(__cplusplus < 201703L)", "__cplusplus": 201402}, 1),
        ("A", {"A": "B", "B": "C", "C": "7"}, 7),
        ("7 / 2 == 3 && 7 % 2 == 1", {}, 1),
        ("~0 == -1", {}, 1),
        ("1 || (1 / 0)", {}, None),  # the evaluator reads every operand: unknown, never a guess
        ("FOO(1)", {}, None),
        ("'a' == 97", {}, None),
        ("1 +", {}, None),
    ],
)
def test_evaluate(condition, macros, value):
    assert pp.evaluate(condition, macros) == value


def test_has_include_is_answered_by_the_caller():
    asks = "__has_include(<gtest/gtest.h>) && 1"
    assert pp.evaluate(asks, {}, lambda h: h == "gtest/gtest.h") == 1
    assert pp.evaluate(asks, {}) == 0
    assert pp.included('__has_include("x.h") || __has_include(<a/b.h>)') == {"x.h", "a/b.h"}


TEXT = """\
#define OLD (__cplusplus < 201703L)
int f() {
#if OLD
  return 1;
#elif defined(FAST)
  return 3;
#else
  return 2;
#endif
}
#ifdef A /* comment */
#  ifndef B
int nested;
#  endif
#endif
"""


def test_conditionals_and_their_arms():
    arms = pp.conditionals(TEXT)
    shape = [(a.line, a.kind, a.condition, a.first, a.last) for a in arms]
    assert shape == [
        (3, "if", "OLD", 4, 4),
        (5, "elif", "defined(FAST)", 6, 6),
        (7, "else", "1", 8, 8),
        (11, "ifdef", "defined(A)", 12, 14),
        (12, "ifndef", "!defined(B)", 13, 13),
    ]
    assert arms[2].earlier == ("OLD", "defined(FAST)")
    assert arms[4].parent == 3


@pytest.mark.parametrize(
    ("line", "macros", "active"),
    [
        (4, {"__cplusplus": 201402}, True),
        (4, {"__cplusplus": 201703}, False),
        (8, {"__cplusplus": 201703}, True),
        (6, {"__cplusplus": 201703, "FAST": 1}, True),
        (13, {"A": 1}, True),
        (13, {"A": 1, "B": 1}, False),
        (13, {}, False),
        (2, {}, True),
    ],
)
def test_active(line, macros, active):
    arms = pp.conditionals(TEXT)
    assert pp.active(line, arms, {**pp.defines(TEXT), **macros}) is active


def test_defines_and_names():
    assert pp.defines(TEXT) == {"OLD": "(__cplusplus < 201703L)"}
    text = "#define F(x) x\n#  define G 1\n"
    assert pp.defined_names(text) == {"F", "G"}
    assert pp.names("defined(X) && Y > __cplusplus") == {"X", "Y", "__cplusplus"}


def test_continued_lines_are_one_directive():
    text = "#if defined(A) && \\\n    defined(B)\nint x;\n#endif\n"
    (arm,) = pp.conditionals(text)
    assert "defined(B)" in arm.condition and arm.first == 3
