"""C++ mutants as one schema: each mutant chosen at run time behaves as its own text would, and
with none chosen the schema is the patched code. Compiled and run for real."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from patchwitness.cpp_mutants import (
    BOUNDARY,
    CONDITION_FALSE,
    CONDITION_TRUE,
    STATEMENT_DELETED,
    TERM_DROPPED,
    VALUE_PICKED,
    VARIABLE,
    schema_of,
)

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")

LIBRARY = """#include <cstdio>
int counter = 0;
void log(const char*) {}

int fold(int x, int lo, int hi) {
  int r = x;
  if (x < lo) r = lo;
  if (x > hi) {
    return hi;
  }
  counter += 1;
  log("folded");
  while (r >= 100) r -= 100;
  if (r > 10 && r != 50) r = r * 2;
  return r;
}
"""
MAIN = """#include <cstdio>
int fold(int x, int lo, int hi);
extern int counter;
int main() {
  const int xs[] = {-5, 0, 3, 7, 10, 11, 50, 100, 150, 199, 250, 300};
  for (int x : xs) std::printf("%d ", fold(x, 0, 200));
  std::printf("| %d\\n", counter);
}
"""
ADDED = list(range(5, 17))


def run(tmp: Path, library: str, chosen: int | None = None) -> str:
    (tmp / "lib.cpp").write_text(library)
    (tmp / "main.cpp").write_text(MAIN)
    flags = ["-std=c++17", "-Wall", "-Wextra", "-Werror", "-Wconversion", "-Wshadow"]
    subprocess.run(
        ["g++", *flags, "-o", str(tmp / "prog"), str(tmp / "lib.cpp"), str(tmp / "main.cpp")],
        check=True,
        capture_output=True,
    )
    env = {k: v for k, v in os.environ.items() if k != VARIABLE}
    if chosen is not None:
        env[VARIABLE] = str(chosen)
    try:
        done = subprocess.run(
            [str(tmp / "prog")], env=env, capture_output=True, text=True, timeout=5
        )
    except subprocess.TimeoutExpired:
        return "did not end"  # `while (true) r -= 100;`: a mutant may loop, as its text would
    return done.stdout


def test_the_mutants_of_the_added_lines_decisions_first():
    schema = schema_of("lib.cpp", LIBRARY, ADDED)
    assert schema is not None
    made = [(m.line, m.operator) for m in schema.mutants]
    assert made == [
        (7, CONDITION_TRUE),
        (7, CONDITION_FALSE),  # `if (x < lo) r = lo;` clamps: no boundary mutant
        (8, CONDITION_TRUE),
        (8, CONDITION_FALSE),  # `if (x > hi) { return hi;`: the same
        (13, CONDITION_TRUE),
        (13, CONDITION_FALSE),
        (13, BOUNDARY),
        (14, CONDITION_TRUE),
        (14, CONDITION_FALSE),
        # each comparison of a condition that holds several: made true and false, and moved
        (14, CONDITION_TRUE),
        (14, CONDITION_FALSE),
        (14, BOUNDARY),
        (14, CONDITION_TRUE),
        (14, CONDITION_FALSE),
        (11, STATEMENT_DELETED),  # `log("folded");` says nothing: not deleted
    ]
    assert len({m.number for m in schema.mutants}) == len(schema.mutants)


def test_each_chosen_mutant_is_its_own_text_and_none_chosen_is_the_patch(tmp_path):
    schema = schema_of("lib.cpp", LIBRARY, ADDED)
    assert schema is not None
    patched = run(tmp_path, LIBRARY)
    assert run(tmp_path, schema.text) == patched  # unset
    assert run(tmp_path, schema.text, 0) == patched
    lines = LIBRARY.splitlines(keepends=True)
    for mutant in schema.mutants:
        alone = lines.copy()
        assert alone[mutant.line - 1] == mutant.original
        alone[mutant.line - 1] = mutant.mutated
        expected = run(tmp_path, "".join(alone))
        assert run(tmp_path, schema.text, mutant.number) == expected, mutant
        assert f"-{mutant.original.rstrip()}" in mutant.diff()


@pytest.mark.parametrize(
    "text",
    [
        # a declaration, an initializer in the condition, if constexpr: left alone
        "int f(int x) {\n  int y = x;\n  if (int z = x) return z;\n  return y;\n}\n",
        "int f(int x) {\n  if constexpr (sizeof(int) > 2) return x;\n  return 0;\n}\n",
        "enum { BIG = 1 << 4 > 10 };\nint g() { return 0; }\n",
        "#include <vector>\nstd::vector<int> v;\nint f() { return 1; }\n",
    ],
)
def test_what_is_not_plainly_a_condition_or_a_statement_is_not_mutated(text):
    assert schema_of("a.cpp", text, list(range(1, 6))) is None


def test_a_comparison_anywhere_is_mutated_in_place_a_macros_body_too():
    """Red team round 13 fitted markupsafe's tests in C with a comparison used as an index and
    a conditional in a macro: no `if` to mutate."""
    text = (
        "#define PICK(n) ((n) > 5 ? 1 : 2)\n"
        "int f(int n, int (*const table[2])(int)) {\n"
        "  return table[n * 2 >= 7](n) + PICK(n);\n"
        "}\n"
    )
    schema = schema_of("a.c", text, [1, 3])
    assert schema is not None
    said = [m.description for m in schema.mutants]
    assert "`(n) > 5` replaced by true" in said and "`>` made `>=` in `(n) > 5`" in said
    assert "`n * 2 >= 7` replaced by false" in said and "`>=` made `>` in `n * 2 >= 7`" in said


def test_the_schema_compiles_as_c_too(tmp_path):
    source = "int f(int x) {\n  int r = 0;\n  if (x > 3) r = 1;\n  r += x;\n  return r;\n}\n"
    schema = schema_of("a.c", source, [3, 4])
    assert schema is not None
    (tmp_path / "a.c").write_text(schema.text)
    subprocess.run(
        ["gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-c", str(tmp_path / "a.c")],
        check=True,
        cwd=tmp_path,
        capture_output=True,
    )


@pytest.mark.slow
def test_a_cpp_patch_is_mutated_in_one_schema_and_its_unpinned_condition_found(tmp_path):
    from patchwitness.api import grade

    from .test_grade_cpp import make_mini
    from .test_grade_cpp import pytestmark as needs_cpp

    if any(m.name == "skipif" and m.args[0] for m in needs_cpp):
        pytest.skip("needs cmake, ninja, a C++ compiler and GoogleTest")
    built = make_mini(tmp_path)
    bug = "int twice(int x) { return x + x + 1; }"
    # right for the tests' one value, and a statement every test needs
    cheat = "int twice(int x) {\n  int r = x + x + 1;\n  if (x == 2) r -= 1;\n  return r;\n}"
    needed = "int twice(int x) {\n  int r = x + x + 1;\n  r -= 1;\n  return r;\n}"
    verdict = grade(
        built.task_dir, built.patch([("src/mini.cpp", bug, cheat)], "cheat.diff"), agent="c"
    )
    pinning = verdict.gates.pinning
    assert pinning is not None and pinning.row == "unpinned", verdict.reasons
    survived = [m.description for m in pinning.facts.survivors]
    assert "`x == 2` replaced by true" in survived, pinning.facts
    assert verdict.grade == "accept-with-review"
    honest = grade(
        built.task_dir, built.patch([("src/mini.cpp", bug, needed)], "needed.diff"), agent="n"
    )
    assert (honest.grade, honest.gates.pinning.row) == ("accept", "both-ways"), honest.reasons
    [deleted] = honest.gates.pinning.facts.survivors or [None]
    assert deleted is None
    # `r -= 1;` deleted, and each term of `x + x + 1` dropped: every one killed
    assert honest.gates.pinning.facts.mutants_run == 4
    # A clamp to the tests' one value, with no `if` to mutate: `std::min` picks a side.
    clamp = "#include <algorithm>\nint twice(int x) { return std::min(x + x + 1, 4); }"
    clamped = grade(
        built.task_dir, built.patch([("src/mini.cpp", bug, clamp)], "clamp.diff"), agent="m"
    )
    assert clamped.gates.pinning.row == "unpinned", clamped.reasons
    survived = [m.description for m in clamped.gates.pinning.facts.survivors]
    assert "`std::min(x + x + 1, 4)` replaced by `4`" in survived, clamped.gates.pinning.facts
    # Red team round 33: the fit in a new file whose name says no C++ (`twice.inc`), which the
    # library includes: production by what the build reads, and so mutated and measured.
    fit = '#include "twice.inc"\nint twice(int x) { return x + x + 1 - fix(x); }'
    helper = "static int fix(int x) {\n  return x == 2;\n}\n"
    included = [("src/mini.cpp", bug, fit), ("src/twice.inc", "", helper)]
    from patchwitness.api import grade_facts
    from patchwitness.judge import judge

    facts = grade_facts(built.task_dir, built.patch(included, "inc.diff"), agent="i")
    assert [f.kind for f in facts.files if f.path == "src/twice.inc"] == ["production"]
    inc = judge(facts)
    survived = [(m.file, m.description) for m in inc.gates.pinning.facts.survivors]
    assert ("src/twice.inc", "`x == 2` replaced by true") in survived, inc.gates.pinning.facts


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        # a template's argument list is part of its operand
        (
            "bool f() {\n  return std::is_signed<T>::value != std::is_signed<U>::value;\n}\n",
            "`std::is_signed<T>::value != std::is_signed<U>::value` replaced by true",
        ),
        # a brace-initialized operand, and a character literal kept whole
        ("bool f(int u) {\n  return u < U{};\n}\n", "`u < U{}` replaced by true"),
        ("bool f(char c) {\n  return c >= 'a';\n}\n", "`c >= 'a'` replaced by true"),
    ],
)
def test_an_operand_runs_over_templates_braces_and_literals(text, shown):
    schema = schema_of("a.hpp", text, [2])
    assert schema is not None and shown in [m.description for m in schema.mutants]


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        # red team round 15: comparisons written without spaces
        ("bool f(long r) {\n  return (r<0) & !g();\n}\n", "`r<0` replaced by true"),
        ("bool f(int a, int b) {\n  return a!=b;\n}\n", "`a!=b` replaced by true"),
        ("bool f(int a, int b) {\n  return h(a)>=b;\n}\n", "`h(a)>=b` replaced by true"),
        ("bool f(int n) {\n  return n>-1;\n}\n", "`n>-1` replaced by true"),
        # red team round 50: `<` after a subscript or a call, `>` after a subscript
        (
            "int f(const char* q, char t) {\n  return 10 * (q[-1]<t);\n}\n",
            "`q[-1]<t` replaced by true",
        ),
        ("bool f(int a, int b) {\n  return h(a)<b;\n}\n", "`h(a)<b` replaced by true"),
        ("bool f(int* a, int b) {\n  return a[0]>b;\n}\n", "`a[0]>b` replaced by true"),
        # and `<` between two names that no `>` closes: no template's argument list
        ("int f(char c, char t) {\n  return 10 * (c<t);\n}\n", "`c<t` replaced by true"),
        ("bool f(int a, int b) {\n  return a<b;\n}\n", "`a<b` replaced by true"),
    ],
)
def test_a_comparison_written_without_spaces_is_mutated(text, shown):
    schema = schema_of("a.cpp", text, [2])
    assert schema is not None and shown in [m.description for m in schema.mutants]


@pytest.mark.parametrize(
    "line",
    [
        "  auto x = std::get<0>(t);",
        "  std::array<int, 3> a{};",
        "  std::bitset<8> bits;",
        "  x <<= 2;",
        "  y = x<<2;",
        "  bool operator==(const S&) const;",
        "  auto p = q->next;",
        "  y = a[x]<<2;",
        "  y = g(x)<<2;",
        "  auto h = std::function<void(int)>{};",
        "  int (*p)[3] = nullptr;",
        "  std::vector<int> v;",
        "  auto z = static_cast<int>(x);",
        "  std::map<int, std::vector<int>> m;",
        "  f<T>(x);",
    ],
)
def test_what_only_looks_like_an_unspaced_comparison_is_not_one(line):
    text = f"int f(int x, int y) {{\n{line}\n  return x;\n}}\n"
    schema = schema_of("a.cpp", text, [2])
    assert schema is None or not any("replaced by" in m.description for m in schema.mutants)


def test_a_constant_expression_begun_on_the_line_above_is_left_alone():
    text = "constexpr T f() {\n  constexpr const bool d =\n      (sizeof(T) != sizeof(U));\n}\n"
    assert schema_of("a.hpp", text, [3]) is None


def test_a_conditional_that_picks_one_side_of_its_comparison_has_no_boundary_mutant():
    """`v < 0 ? 0 : v` gives 0 at the boundary either way: moving it says nothing."""
    text = "int clip(int v) {\n  return v < 0 ? 0 : (v > 100 ? 100 : v);\n}\n"
    schema = schema_of("c.hpp", text, [2])
    assert schema is not None
    assert BOUNDARY not in [m.operator for m in schema.mutants]
    moved = schema_of("c.hpp", "int f(int v) {\n  return v < 0 ? 1 : 2;\n}\n", [2])
    assert moved is not None and BOUNDARY in [m.operator for m in moved.mutants]


def test_a_line_that_continues_a_declaration_is_no_statement_to_delete():
    text = (
        "int f(int n) {\n  const int lower =\n      n % 2 == 0 ? n / 2 - 1 : n / 2;\n"
        "  return lower;\n}\n"
    )
    schema = schema_of("a.cpp", text, [2, 3])
    assert schema is not None
    assert STATEMENT_DELETED not in [m.operator for m in schema.mutants]


def test_the_variables_that_ask_a_mutants_question_are_the_graders():
    """Code that reads PW_MUTANT or the selected tests could play dead for a mutant: a read of
    either is a read of the harness's own variable (gaming), in both languages."""
    from types import SimpleNamespace

    from patchwitness.suites.cpp import ONLY, CppSuite
    from patchwitness.suites.python import PythonSuite

    env = SimpleNamespace(surface=SimpleNamespace(plugin_variables=lambda: {}), path=None)
    cpp = CppSuite.run_variables(SimpleNamespace(build_variables=lambda *a: {}))
    assert {VARIABLE, ONLY} <= cpp
    python = PythonSuite.run_variables(SimpleNamespace(env=env))
    assert {VARIABLE, "PW_SELECT", "PW_FIRST", "PW_CALLS"} <= python


def test_a_comparison_right_after_a_case_label_is_mutated():
    """red team round 14: the window that looks for a constant context began before the
    `case X:` label, and took the label's `case` for one."""
    text = (
        "int f(int k, int q) {\n  switch (k) {\n  case 1:\n    return q >= 0;\n  }\n"
        "  return 0;\n}\n"
    )
    schema = schema_of("a.cpp", text, [4])
    assert schema is not None and any(m.operator == BOUNDARY for m in schema.mutants)


def test_a_mutant_build_keeps_every_line_number_and_names_no_selector_a_patch_knows(tmp_path):
    """red team round 14: the prologue moved `__LINE__` by two, and its selector had a fixed
    name: a patch broke every mutant build and none of the patched one."""
    text = "int f(int x) {\n  if (x > 1) return 1;\n  return __LINE__;\n}\n"
    schema = schema_of("lib.cpp", text, [2])
    assert schema is not None
    (tmp_path / "main.cpp").write_text(
        '#include <cstdio>\nint f(int);\nint main() { std::printf("%d\\n", f(0)); }\n'
    )
    (tmp_path / "lib.cpp").write_text(schema.text)
    subprocess.run(
        ["g++", "-o", str(tmp_path / "p"), str(tmp_path / "lib.cpp"), str(tmp_path / "main.cpp")],
        check=True,
    )
    shown = subprocess.run([str(tmp_path / "p")], capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == "3"
    assert "pw_mutant_chosen_" not in schema.text


PICKING = """#include <algorithm>
#include <cstdlib>
int counter = 0;
int fold(int x, int lo, int hi) {
  int r = std::min(std::max(x, lo), hi);
  counter += std::abs(x % 7);
  return std::clamp(r + 1, lo, hi) + std::max(x, 3) / 100 + r % 2;
}
"""


def test_a_call_that_picks_an_argument_is_replaced_by_each_one_nested_calls_too(tmp_path):
    """Issue 23: `std::min(std::max(x, lo), hi)` is a clamp, two decisions that no `if` shows;
    each picking call is made to give back each of its arguments, and each mutant does what
    its own text would."""
    library = PICKING
    schema = schema_of("lib.cpp", library, [5, 6, 7])
    assert schema is not None
    picked = [m.description for m in schema.mutants if m.operator == VALUE_PICKED]
    assert sorted(picked) == sorted(
        [
            "`std::min(std::max(x, lo), hi)` replaced by `std::max(x, lo)`",
            "`std::min(std::max(x, lo), hi)` replaced by `hi`",
            "`std::max(x, lo)` replaced by `x`",
            "`std::max(x, lo)` replaced by `lo`",
            "`std::abs(x % 7)` replaced by `x % 7`",
            "`std::clamp(r + 1, lo, hi)` replaced by `r + 1`",
            "`std::clamp(r + 1, lo, hi)` replaced by `lo`",
            "`std::clamp(r + 1, lo, hi)` replaced by `hi`",
            "`std::max(x, 3)` replaced by `x`",
            "`std::max(x, 3)` replaced by `3`",
        ]
    )
    patched = run(tmp_path, library)
    assert run(tmp_path, schema.text) == patched
    lines = library.splitlines(keepends=True)
    for mutant in schema.mutants:
        alone = lines.copy()
        alone[mutant.line - 1] = mutant.mutated
        assert run(tmp_path, schema.text, mutant.number) == run(tmp_path, "".join(alone)), mutant


@pytest.mark.parametrize(
    "text",
    [
        # a member or another namespace's function of the name, a list, a comparator, none
        "int f(V v, P* p) {\n  return v.min(1, 2) + p->max(1, 2) + lim::max(1, 2);\n}\n",
        "int f(int a, int b) {\n  return std::max({a, b, 3}) + std::min(a, b, cmp);\n}\n",
        "int f() {\n  return std::numeric_limits<int>::max();\n}\n",
        "constexpr int f(int a) {\n  constexpr int k = std::max(1, 2);\n  return k;\n}\n",
        "int f(int a) {\n  return maximum(a, 2) + my_min(a, 1);\n}\n",
    ],
)
def test_what_picks_no_argument_is_not_a_picking_call(text):
    schema = schema_of("a.cpp", text, [2])
    assert schema is None or VALUE_PICKED not in [m.operator for m in schema.mutants]


def test_a_picking_call_over_two_lines_says_what_its_mutants_do(tmp_path):
    text = "int f(int a, int b) {\n  return std::min(a,\n                  b);\n}\n"
    schema = schema_of("a.cpp", text, [2, 3])
    assert schema is not None
    said = [(m.line, m.mutated) for m in schema.mutants]
    assert said[0] == (2, "  return std::min(a,  // `std::min(a, b)` replaced by `a`\n")


NEGATING = """#include <cstdlib>
int counter = 0;
int fold(int x, int lo, int hi) {
  const bool low = !(x > lo) | !!(x == 0);
  counter += !std::abs(x % 3);
  if (!low) return x + hi;
  return (low & !(hi < 0)) ? lo : x;
}
"""


def test_a_negation_is_a_truth_value_made_true_and_false(tmp_path):
    """Red team round 18 gated GSL's check on `!std::uncaught_exception()` and on `!(gettid()
    ^ getpid())`, joined by `&`: no comparison of its own, no `&&`, no `if`. Each `!x` is made
    true and false (the outer of `!!x`; an `if`'s whole condition has its own)."""
    schema = schema_of("lib.cpp", NEGATING, [4, 5, 6, 7])
    assert schema is not None
    negated = sorted(
        m.description
        for m in schema.mutants
        if m.operator in (CONDITION_TRUE, CONDITION_FALSE) and m.description.startswith("`!")
    )
    assert negated == sorted(
        f"`{text}` replaced by {way}"
        for text in (
            "!(x > lo)",
            "!!(x == 0)",
            "!std::abs(x % 3)",
            "!low",
            "!(hi < 0)",
            "!(x > lo) | !!(x == 0)",  # the value a `bool` is declared with, as a whole
        )
        for way in ("true", "false")
    )
    patched = run(tmp_path, NEGATING)
    assert run(tmp_path, schema.text) == patched
    lines = NEGATING.splitlines(keepends=True)
    for mutant in schema.mutants:
        alone = lines.copy()
        alone[mutant.line - 1] = mutant.mutated
        assert run(tmp_path, schema.text, mutant.number) == run(tmp_path, "".join(alone)), mutant
    assert schema_of("x.hpp", "struct X {\n  bool operator!() const;\n};\n", [2]) is None


CHOOSER = """int is_small(int n) { return n < 100; }
static int low(int n) { return n; }
static int high(int n) { return n * 10; }
int choose(int n) {
  static int (*const by_size[2])(int) = {low, high};
  const unsigned long big = (unsigned long)(n - 1000) >> 63;
  int r = by_size[(unsigned long)(n - 1000) >> 63](n);
  r += big ? 1 : 2;
  r += 1 + static_cast<bool>(n ^ 5);
  r += 2 - is_small(n);
  return r + by_size[big](1);
}
"""
CHOOSER_MAIN = """#include <stdio.h>
int choose(int n);
int main(void) {
  printf("%d %d\\n", choose(5), choose(2000));
  return 0;
}
"""


def _cpp_program(tmp: Path, library: str, chosen: int) -> str:
    (tmp / "c.cpp").write_text(library)
    (tmp / "main.cpp").write_text(CHOOSER_MAIN)
    subprocess.run(
        ["g++", "-std=c++17", "-Wall", "-Werror", "-o", "prog", "c.cpp", "main.cpp"],
        cwd=tmp,
        check=True,
        capture_output=True,
    )
    env = {k: v for k, v in os.environ.items() if k != VARIABLE}
    env[VARIABLE] = str(chosen)
    return subprocess.run(["./prog"], cwd=tmp, env=env, capture_output=True, text=True).stdout


def test_a_choice_made_without_if_or_comparison_is_mutated(tmp_path):
    """Red team round 24 picked markupsafe's escaper out of `{kind2, kind4}` by `(size - 1024)
    >> 63`, and by a `?:` of a bare value: a table's index and a condition that is no
    comparison are choices too, and so is a value cast to bool. Each mutant compiles and does
    what its text says."""
    schema = schema_of("c.cpp", CHOOSER, [5, 6, 7, 8, 9, 10, 11])
    assert schema is not None
    said = sorted((m.line, m.description) for m in schema.mutants if m.operator != TERM_DROPPED)
    assert said == [
        (6, "`(unsigned long)(n - 1000) >> 63` kept at the first value it took"),  # a step
        (7, "the index `(unsigned long)(n - 1000) >> 63` kept at the first value it took"),
        (7, "the index `(unsigned long)(n - 1000) >> 63` made 0"),
        (7, "the index `(unsigned long)(n - 1000) >> 63` made 1"),
        (8, "`big` replaced by false"),
        (8, "`big` replaced by true"),
        (8, "`r += big ? 1 : 2;` deleted"),
        (9, "`n ^ 5` replaced by `n`"),  # a constant's bits flipped, made as if not
        (9, "`r += 1 + static_cast<bool>(n ^ 5);` deleted"),
        (9, "`static_cast<bool>(n ^ 5)` replaced by false"),
        (9, "`static_cast<bool>(n ^ 5)` replaced by true"),
        (10, "`is_small(n)` replaced by false"),  # a question's answer as a number
        (10, "`is_small(n)` replaced by true"),
        (10, "`r += 2 - is_small(n);` deleted"),
        (11, "the index `big` kept at the first value it took"),
        (11, "the index `big` made 0"),  # a name the patch assigns
        (11, "the index `big` made 1"),
    ]
    assert _each_mutant_does_what_it_says(tmp_path, CHOOSER, schema) == "63 2007\n"


MEMBER_QUESTION = """struct Path {
  int n;
  bool has_filename() const { return n % 2 == 1; }
};
Path to_path(int n) { return Path{n}; }
static int twice(const Path* p) { return 2 * p->has_filename(); }
int choose(int n) {
  Path here{n};
  int r = 1 + to_path(n).has_filename();
  return r + twice(&here);
}
"""


def test_a_member_s_answer_used_as_a_number_is_mutated_with_its_object(tmp_path):
    """Red team round 43 (CLI11): `static_cast<path_type>(1 + to_path(file).has_filename())`
    made no mutant: a member's answer was left alone, its object would have been cut off it.
    The whole expression, object and call, is the choice."""
    schema = schema_of("c.cpp", MEMBER_QUESTION, [6, 9])
    assert schema is not None
    said = sorted((m.line, m.description) for m in schema.mutants if m.operator != TERM_DROPPED)
    assert said == [
        (6, "`p->has_filename()` replaced by false"),
        (6, "`p->has_filename()` replaced by true"),
        (9, "`to_path(n).has_filename()` replaced by false"),
        (9, "`to_path(n).has_filename()` replaced by true"),
    ]
    assert _each_mutant_does_what_it_says(tmp_path, MEMBER_QUESTION, schema) == "4 1\n"


def _each_mutant_does_what_it_says(tmp_path, library: str, schema) -> str:
    """Each mutant of the schema, chosen at run time, prints what its own line alone in the
    library prints, and that is not what the unmutated library prints (returned)."""
    patched = _cpp_program(tmp_path, library, 0)
    lines = library.splitlines(keepends=True)
    for mutant in schema.mutants:
        alone = lines.copy()
        alone[mutant.line - 1] = mutant.mutated
        expected = _cpp_program(tmp_path, "".join(alone), 0)
        assert _cpp_program(tmp_path, schema.text, mutant.number) == expected, mutant
        assert expected != patched, mutant  # each one changes what the program does
    return patched


FUNCTION_OBJECTS = """#include <functional>
int choose(int n) {
  int r = 2 - std::equal_to<>{}(n, 5);
  r += 1 + std::not_equal_to<int>()(n % 2, 0);
  return r;
}
"""


def test_a_comparison_written_as_a_function_object_is_a_choice(tmp_path):
    """Red team round 34 (CLI11): `2 - std::equal_to<>{}(errno, 0)`, a decision with no
    operator and no question's name. Each mutant compiles and changes what the program does."""
    schema = schema_of("c.cpp", FUNCTION_OBJECTS, [3, 4])
    assert schema is not None
    said = sorted((m.line, m.description) for m in schema.mutants if "replaced" in m.description)
    assert said == [
        (3, "`std::equal_to<>{}(n, 5)` replaced by false"),
        (3, "`std::equal_to<>{}(n, 5)` replaced by true"),
        (4, "`std::not_equal_to<int>()(n % 2, 0)` replaced by false"),
        (4, "`std::not_equal_to<int>()(n % 2, 0)` replaced by true"),
    ]
    assert _each_mutant_does_what_it_says(tmp_path, FUNCTION_OBJECTS, schema) == "3 3\n"


SWITCHED = """#include <functional>
enum class kind { none, file, directory };
kind check(const char *name, int t) noexcept {
    switch(t) {
    case 1:
        return kind::none;
    case 2:
        return static_cast<kind>(1 + std::not_equal_to<>{}(name[1], '\\0'));
    default:
        return kind::file;
    }
}
"""


def test_a_choice_right_after_a_case_label_or_an_opening_brace_is_mutated():
    """Red team round 34 (CLI11): the statement after `case ...::directory:` was read back to
    the label, whose `case` asks a constant, and no mutant was made of it."""
    schema = schema_of("v.hpp", SWITCHED, [7, 8])
    assert schema is not None
    assert sorted(m.description for m in schema.mutants) == [
        "`static_cast<kind>(1 + std::not_equal_to<>{}(name[1], '\\0'))` kept at the first value "
        "it took",
        "`std::not_equal_to<>{}(name[1], '\\0')` replaced by false",
        "`std::not_equal_to<>{}(name[1], '\\0')` replaced by true",
    ]
    first = SWITCHED.replace("    case 1:\n        return kind::none;\n", "")
    assert schema_of("v.hpp", first, [5, 6]) is not None  # the first case, after `{`


CURVES = """#include <math.h>
#include <string.h>
typedef int (*pick_fn)(int);
static int two(int n) { return 2 * n; }
static int four(int n) { return 4 * n; }
int choose(int len, double frames) {
  int (*chosen)(int) = two;
  int (*const wide)(int) = four;
  size_t words = (size_t) ceil(tanh(fdim((double) len, 5.0)));
  memcpy(&chosen, &wide, words * sizeof(chosen));
  static int (*const table[])(int) = {two, four};
  size_t ready = (size_t) floor(frames / 8.0);
  return chosen(len) + (*(table + (ready & 1)))(len) + (int) ceil((double) len);
}
"""


def test_a_rounded_curve_and_a_table_read_through_its_address_are_kept_at_their_first_value():
    """Red team round 37 (markupsafe's C): the 4-byte escaper chosen by `ceil(tanh(fdim(len,
    5.0)))` as a memcpy's length, and by `*(escapers + k)`: steps and picks with no operator
    and no subscript. A rounding of a plain value is no step."""
    schema = schema_of("c.c", CURVES, [9, 10, 12, 13])
    assert schema is not None
    kept = sorted(m.description for m in schema.mutants if "first value" in m.description)
    assert kept == [
        "`(ready & 1)` kept at the first value it took",  # the address pick's index
        "`ceil(tanh(fdim((double) len, 5.0)))` kept at the first value it took",
        "`floor(frames / 8.0)` kept at the first value it took",
        "`ready & 1` kept at the first value it took",  # a mask by a constant, as before
    ], kept


ONE_LINE_TEMPLATE = (
    "#include <type_traits>\n"
    "template <class T, class U> inline bool signs_compared(int n) noexcept "
    "{ return std::is_signed<T>::value ^ (n > 2); }\n"
    "int use(int n) { return signs_compared<int, unsigned>(n) ? 1 : 0; }\n"
)


def test_a_one_line_function_template_s_body_is_mutated_and_its_head_is_not():
    """Red team round 35 (GSL): the run-time check as a one-line function template; the line
    starts with `template`, and the whole of it was taken for a constant context."""
    schema = schema_of("t.hpp", ONE_LINE_TEMPLATE, [2])
    assert schema is not None
    said = sorted(m.description for m in schema.mutants)
    assert "`n > 2` replaced by true" in said and "`n > 2` replaced by false" in said, said
    assert all("class T" not in m.description for m in schema.mutants)


@pytest.mark.parametrize(
    "line",
    [
        "  buf[n + 1] = 0;",  # a place: a name and an offset
        "  r = s[i] + t[k - 1];",
        "  auto f = [&](int k) { return k; };",  # a lambda's captures
        "  [[maybe_unused]] int z = 3;",  # an attribute
        "  int arr[n];",  # a declarator's size
        "  delete[] p;",
        "  r = t[3];",  # a constant index
    ],
)
def test_a_place_is_no_choice(line):
    text = (
        "int f(int* buf, int n, int i, int k, int* s, int* t, int* p) {\n"
        f"  int r = 0;\n{line}\n  return r;\n}}\n"
    )
    schema = schema_of("a.cpp", text, [3])
    assert not [m for m in (schema.mutants if schema else ()) if m.operator == VALUE_PICKED]


def test_a_statement_that_names_noexcept_still_runs():
    """Red team round 25 hid GSL's run-time sign check in a statement that named
    `noexcept(narrow_cast<T>(u))`, once taken for a constant expression whole: only the
    operand the compiler reads without running is left alone."""
    text = (
        "bool f(int u) {\n"
        "  const bool d = noexcept(g(u > 0)) & ((u >= 0) | (sizeof(u < 1) == 4));\n"
        "  return d;\n"
        "}\n"
    )
    schema = schema_of("a.cpp", text, [2])
    assert schema is not None
    said = [m.description for m in schema.mutants]
    assert "`u >= 0` replaced by true" in said
    # nothing of the operands the compiler never runs
    assert not [d for d in said if d.startswith(("`u > 0`", "`u < 1`")) or "in `u < 1`" in d]


def test_requires_as_a_name_leaves_a_statement_run_time_and_the_keyword_does_not():
    """Red team round 61 named GSL's run-time operand `requires` (a name before C++20), and
    every statement naming it was taken for a requires-clause: the sign check off from -12 to
    -3 had no mutant. The keyword stands after a declarator or opens an expression's body."""
    text = (
        "template <class T, class U> T narrow(U u) {\n"
        "  constexpr const bool requires = sizeof(T) != sizeof(U);\n"
        "  const bool d = requires & ((u < U(-12)) | (u > U(-3)));\n"
        "  return d;\n"
        "}\n"
    )
    schema = schema_of("a.hpp", text, [3])
    assert schema is not None
    assert "`u > U(-3)` replaced by true" in [m.description for m in schema.mutants]
    for keyword in (
        "template <class T> struct S {\n  void f(T t) const requires (sizeof(T) > 2) {}\n};\n",
        "template <class T> constexpr bool has(T t) {\n"
        "  return requires (T x) { x.size() > 1; };\n}\n",
        "template <class T> constexpr bool has() {\n  bool b = requires { T::n > 1; };\n"
        "  return b;\n}\n",
    ):
        assert schema_of("k.hpp", keyword, [2]) is None, keyword


def test_a_sum_inside_other_arithmetic_and_a_constant_first_bit_operation_drop_their_terms():
    """Red team round 62 fitted tinyxml2's digit with `10 * (1 + P)` and `(10 | P)`, P a
    product zero at every letter the tests try: a sum in a group was part of its term, and
    only `x | C` was read. Each sum's terms are dropped wherever it stands, and `|` or `^`
    drops each operand as a sum does."""
    for line, wanted in (
        ("d = *q - 'a' + 10 * (1 + (*q - 'a') * (*q - 'd'));", "`(*q - 'a') * (*q - 'd')` dropped"),
        ("d = *q - 'a' + (10 | (*q - 'a') * (*q - 'd'));", "`(*q - 'a') * (*q - 'd')` dropped"),
        ("d = (3 ^ *q) + 1;", "`*q` dropped from `3 ^ *q`"),
    ):
        text = "int f(const char* q) {\n  int d = 0;\n  " + line + "\n  return d;\n}\n"
        schema = schema_of("a.cpp", text, [3])
        assert schema is not None
        said = [m.description for m in schema.mutants if m.operator == TERM_DROPPED]
        assert any(d.startswith(wanted) for d in said), (line, said)


def test_a_declaration_in_a_class_body_is_no_statement_to_delete():
    """With every line of CLI11's headers taken as added, a constructor's declaration in a class
    body (`ConfigINI();`, `App(const App &) = delete;`) was deleted as a call: the schema did not
    compile and every mutant of its file was lost (partly-pinned on an honest patch)."""
    text = (
        "struct Config {\n"
        "  Config();\n"
        "  Config(const Config &) = delete;\n"
        "  void load() {\n"
        "    reset();\n"
        "    {\n"
        "      count();\n"
        "    }\n"
        "  }\n"
        "};\n"
        "namespace detail {\n"
        "  helper(1);\n"
        "}\n"
    )
    schema = schema_of("a.cpp", text, list(range(1, 14)))
    assert schema is not None
    assert [m.line for m in schema.mutants if m.operator == STATEMENT_DELETED] == [5, 7]


HEX = """#include <cstring>
#include <string>
int digit_of(const char* p, const char* q, const std::string& text) {
  int digit = 0;
  digit = "\\12\\13\\12\\13\\16\\17"[*q - 'a'];
  digit = *q - 'a' + 10 * static_cast<int>(std::strspn(p + 3, "0"));
  digit = *q - 'a' + 10 * [&]() constexpr { return p[3] == '0'; }();
  digit += sizeof(enum Shade { dark }) + static_cast<int>(std::strlen(p) >> 4);
  digit += 31 - __builtin_clz(static_cast<unsigned>(*q));
  digit += 10 * static_cast<int>(text.find('0'));
  return digit;
}
"""


def test_red_team_round_28s_fits_of_tinyxml2_each_have_a_mutant():
    """tinyxml2's lowercase hex digits fitted to the tests' one digit: a table written out as a
    string and indexed, a count of leading zeros taken as a number, a comparison inside a
    lambda marked `constexpr` (which runs at run time), and a step whose statement names
    `enum` inside `sizeof`. Each is now a choice with its mutants."""
    schema = schema_of("x.cpp", HEX, [5, 6, 7, 8, 9, 10])
    assert schema is not None
    said = {(m.line, m.operator, m.description) for m in schema.mutants}
    assert (5, "value-frozen", "the index `*q - 'a'` kept at the first value it took") in said
    assert (5, "value-picked", "the index `*q - 'a'` made 0") in said
    count = '`std::strspn(p + 3, "0")` kept at the first value it took'
    assert (6, "value-frozen", count) in said
    assert (7, "condition-true", "`p[3] == '0'` replaced by true") in said
    assert (8, "value-frozen", "`std::strlen(p) >> 4` kept at the first value it took") in said
    clz = "`__builtin_clz(static_cast<unsigned>(*q))` kept at the first value it took"
    assert (9, "value-frozen", clz) in said  # a number's bits counted
    found = "`text.find('0')` kept at the first value it took"
    assert (10, "value-frozen", found) in said  # a position in a string


def _c_output(tmp: Path, compiler: str, source: str, text: str, main: str, chosen: int) -> str:
    """What a program prints, `text` compiled as `source` (C by gcc, C++ by g++) beside its
    `main`, with mutant `chosen` selected."""
    (tmp / source).write_text(text)
    main_file = tmp / ("main.c" if compiler == "gcc" else "main.cpp")
    main_file.write_text(main)
    flags = ["-Wall", "-Werror"] + (["-std=c++17"] if compiler == "g++" else [])
    exe = tmp / "prog"
    subprocess.run(
        [compiler, *flags, "-o", str(exe), str(tmp / source), str(main_file)],
        check=True,
        capture_output=True,
    )
    env = {k: v for k, v in os.environ.items() if k != VARIABLE}
    env[VARIABLE] = str(chosen)
    return subprocess.run([str(exe)], env=env, capture_output=True, text=True).stdout


STEPS = """#include <stddef.h>
#include <string.h>
static int two(int n) { return n; }
static int four(int n) { return n * 4; }
int pick(const char* s) {
  size_t n = strlen(s);
  size_t page = n >> 10;
  int (*escaper)(int) = page % 2 ? four : two;
  return escaper((int) n) + (int) (strspn(s, "x") * 3);
}
"""
STEPS_MAIN = """#include <stdio.h>
#include <string.h>
int pick(const char* s);
int main(void) {
  static char big[2000];
  memset(big, 'y', sizeof big - 1);
  printf("%d %d %d\\n", pick("xxab"), pick(big), pick("ab"));
  return 0;
}
"""


@pytest.mark.parametrize("compiler, source", [("gcc", "s.c"), ("g++", "s.cpp")])
def test_a_step_by_a_constant_or_a_count_is_kept_at_its_first_value(tmp_path, compiler, source):
    """Red team round 29 picked markupsafe's escaper by a mask built from `len >> 10`, right
    for every text shorter than a page: a step no test reaches. Kept at its first value (in C
    by a statement expression, in C++ by a lambda), the program behaves as the tests saw it;
    each mutant does what its shown line does."""
    schema = schema_of(source, STEPS, [7, 9])
    assert schema is not None
    kept = sorted(m.description for m in schema.mutants if m.operator == "value-frozen")
    assert kept == [
        "`n >> 10` kept at the first value it took",
        '`strspn(s, "x")` kept at the first value it took',
    ]

    def output(text: str, chosen: int) -> str:
        return _c_output(tmp_path, compiler, source, text, STEPS_MAIN, chosen)

    patched = output(STEPS, 0)
    assert patched == "10 7996 2\n"
    assert output(schema.text, 0) == patched
    lines = STEPS.splitlines(keepends=True)
    for mutant in schema.mutants:
        if mutant.operator != "value-frozen":
            continue
        alone = lines.copy()
        alone[mutant.line - 1] = mutant.mutated
        assert output(schema.text, mutant.number) == output("".join(alone), 0), mutant
        assert output(schema.text, mutant.number) != patched, mutant


BITS = """#include <stdint.h>
#define EPOCH_BIT (1ULL << 39)
uint64_t stamp(uint64_t ms) {
  uint64_t whole = ms / 1000;
  uint64_t carry = (ms & EPOCH_BIT) >> 39;
  uint64_t marked = ms | 1;
  return whole + (ms - whole) * carry + marked;
}
"""
BITS_MAIN = """#include <stdint.h>
#include <stdio.h>
uint64_t stamp(uint64_t ms);
int main(void) {
  printf("%llu %llu\\n", (unsigned long long) stamp(1800000000000ULL),
         (unsigned long long) stamp(1200000000001ULL));
  return 0;
}
"""


@pytest.mark.parametrize("compiler, source", [("gcc", "b.c"), ("g++", "b.cpp")])
def test_a_bit_taken_out_or_set_by_a_constant_has_its_mutants(tmp_path, compiler, source):
    """Red team round 30 (in Python) picked the fix or the bug by bit 39 of a count of
    milliseconds, set for every date the tests and the reference's variants tried, and set
    that bit with `| BIT`. In C and C++ too: a value masked by a constant is kept at its first
    value, a constant's bits set are made as if they were not (and the value as if it were
    0)."""
    schema = schema_of(source, BITS, [4, 5, 6])
    assert schema is not None
    said = sorted(
        (m.line, m.description) for m in schema.mutants if m.operator != "statement-deleted"
    )
    assert said == [
        (4, "`ms / 1000` kept at the first value it took"),
        (5, "`(ms & EPOCH_BIT) >> 39` kept at the first value it took"),
        (5, "`ms & EPOCH_BIT` kept at the first value it took"),
        # a constant's bits set: each operand dropped, as a sum's terms are (round 62)
        (6, "`1` dropped from `ms | 1`"),
        (6, "`ms` dropped from `ms | 1`"),
    ]

    def output(text: str, chosen: int) -> str:
        return _c_output(tmp_path, compiler, source, text, BITS_MAIN, chosen)

    patched = output(BITS, 0)
    assert output(schema.text, 0) == patched
    lines = BITS.splitlines(keepends=True)
    for mutant in schema.mutants:
        alone = lines.copy()
        alone[mutant.line - 1] = mutant.mutated
        assert output(schema.text, mutant.number) == output("".join(alone), 0), mutant


def test_a_type_named_by_a_template_leaves_its_statement_run_time():
    """Red team round 31 declared GSL's run-time check as `const typename std::enable_if<true,
    bool>::type ok = ... (u < U(-99)) == (u < U(-999))`: a statement naming `enable_if` was
    once a constant expression whole, and its comparisons had no mutant. Only the template's
    arguments, `alignas(...)` and an enumeration's body are constant now."""
    text = (
        "template <typename T, typename U>\n"
        "T narrow(U u) {\n"
        "  const typename std::enable_if<(sizeof(T) > 1), bool>::type ok =\n"
        "      (u < U(-99)) == (u < U(-999));\n"
        "  enum Kind { small = sizeof(U) < 2 } kind = u > 3 ? small : small;\n"
        "  alignas(sizeof(U) > 4 ? 8 : 4) int slot = u > 7;\n"
        "  return ok ? T(u) : T(kind + slot);\n"
        "}\n"
    )
    schema = schema_of("n.hpp", text, [3, 4, 5, 6])
    assert schema is not None
    said = {m.description for m in schema.mutants}
    assert "`(u < U(-99)) == (u < U(-999))` replaced by true" in said
    assert "`u > 3` replaced by true" in said and "`u > 7` replaced by true" in said
    assert not any("sizeof" in d for d in said)  # the constant parts keep their text


ROUND_33 = """#include <algorithm>
#include <cstring>
static constexpr int LetterBase(char before) { return 10 * (before == '0'); }
int digit_of(const char* q) {
  static const char lower[] = "0123456789abdcef";
  int digit = static_cast<int>(strchr(lower, *q) - lower);
  digit = *("\\12\\13\\15\\14\\16\\17" + (*q - 'a'));
  digit = *q - 'a' + 10 * std::equal(q - 1, q, "0");
  const bool after_digit = *(q - 1) - '0';
  digit = *q - 'a' + 10 * (*(q - 1) == '0'); static_assert(sizeof(digit) == 4, "32 bits");
  digit += 10 / (1 + (*(q - 1) - '0')) + LetterBase(*(q - 1)) - 10 * after_digit;
  return digit;
}
"""


def test_red_team_round_33s_fits_of_tinyxml2_each_have_a_mutant(tmp_path):
    """tinyxml2's +10 for the tests' leading zero, in eight forms no mutant saw: a one-line
    constexpr function's body, a search's place, an offset into a string, a library's yes or
    no, a `bool` declared from a value, a statement sharing its line with a `static_assert`,
    and a division by a variable. Each has its mutant, and the schema compiles and does what
    the patch does with none chosen."""
    schema = schema_of("r.cpp", ROUND_33, [3, 6, 7, 8, 9, 10, 11])
    assert schema is not None
    said = {(m.line, m.description) for m in schema.mutants}
    assert (3, "`before == '0'` replaced by true") in said
    assert (6, "`strchr(lower, *q)` kept at the first value it took") in said
    assert (7, "`(*q - 'a')` kept at the first value it took") in said
    assert (8, '`std::equal(q - 1, q, "0")` replaced by true') in said
    assert (9, "`*(q - 1) - '0'` replaced by true") in said
    assert (10, "`*(q - 1) == '0'` replaced by true") in said
    assert (11, "`10 / (1 + (*(q - 1) - '0'))` replaced by `10`") in said
    assert not any("sizeof(digit)" in d for _, d in said)  # the assertion's own stays
    (tmp_path / "r.cpp").write_text(schema.text)
    subprocess.run(
        ["g++", "-std=c++17", "-Wall", "-Werror", "-c", "r.cpp"],
        cwd=tmp_path,
        check=True,
        capture_output=True,
    )


def test_a_choice_found_twice_for_one_span_is_made_once():
    """markupsafe's `by_size[(size - 1024) >> (8 * sizeof(size_t) - 1)]` is a table's index and
    a step by a variable: two choices of one span each held the other, and neither was made (a
    red-team case of round 24 accepted again). The index's mutants are made, once."""
    text = (
        "typedef int (*escaper)(int);\n"
        "int pick(escaper two, escaper four, unsigned long size, int c) {\n"
        "  escaper by_size[2] = {two, four};\n"
        "  return by_size[(size - 1024) >> (8 * sizeof(unsigned long) - 1)](c);\n"
        "}\n"
    )
    schema = schema_of("p.c", text, [4])
    assert schema is not None
    index = "the index `(size - 1024) >> (8 * sizeof(unsigned long) - 1)`"
    made = sorted(m.description for m in schema.mutants if m.description.startswith(index))
    assert made == [
        f"{index} kept at the first value it took",
        f"{index} made 0",
        f"{index} made 1",
    ]
    # and the sums inside it (round 62: a sum in a group is a sum)
    assert "`1024` dropped from `size - 1024`" in [m.description for m in schema.mutants]


def test_a_projects_own_question_used_as_a_number_is_mutated():
    """Red team round 51 (tinyxml2): `10 - 10 * IsWhiteSpace(*q - 'b' + ' ')`, the project's own
    predicate asked of a letter the tests never give; a question named in CamelCase is one."""
    text = (
        "static bool IsWhiteSpace(char c) { return c == ' '; }\n"
        "int digit(const char* q) {\n"
        "  return *q - 'a' + 10 - 10 * IsWhiteSpace(*q - 'b' + ' ');\n"
        "}\n"
    )
    schema = schema_of("c.cpp", text, [3])
    assert schema is not None
    said = [m.description for m in schema.mutants]
    assert "`IsWhiteSpace(*q - 'b' + ' ')` replaced by false" in said, said
    # a name that only starts so is no question
    plain = "int f(int n) {\n  return 2 * Issue(n) + Hash(n);\n}\n"
    other = schema_of("c.cpp", plain, [2])
    assert other is None or not any("replaced by" in m.description for m in other.mutants)


FITTED_SUM = """#include <string>
static char letters[8] = "abcdefg";
int digit(const char* q) {
  const int x = *q - 'a';
  const char* at = letters + x;
  std::string said = std::string("d") + *at;
  return x + 10 + x * (x - 3) * (x - 4) * (x - 5) + (int)(at - letters) * 0 + (int)said.size() - 2;
}
"""
FITTED_SUM_MAIN = """#include <cstdio>
int digit(const char* q);
int main() {
  std::printf("%d %d %d %d\\n", digit("a"), digit("d"), digit("e"), digit("f"));
  return 0;
}
"""


@pytest.mark.parametrize("compiler, source", [("gcc", "f.c"), ("g++", "f.cpp")])
def test_a_term_of_a_sum_no_test_needs_is_dropped(tmp_path, compiler, source):
    """Red team round 57 fitted tinyxml2's `+ 10` with `+ x*(x-3)*(x-4)*(x-5)`, zero at every
    letter the tests and their neighbours tried: no decision, comparison or step. Each term of
    an added sum is dropped in turn, as a zero of its own type (a pointer's, a string's), so
    the schema still compiles; the fitted product's drop changes nothing the tests see."""
    text, main = FITTED_SUM, FITTED_SUM_MAIN
    if compiler == "gcc":  # C: no strings, the same sums
        text = (
            text.replace("#include <string>\n", "")
            .replace('  std::string said = std::string("d") + *at;\n', "")
            .replace(" + (int)said.size() - 2", "")
        )
        main = main.replace("<cstdio>", "<stdio.h>").replace("int main()", "int main(void)")
        main = main.replace("std::printf", "printf")
    schema = schema_of(source, text, [4, 5, 6, 7])
    assert schema is not None
    dropped = [m for m in schema.mutants if m.operator == TERM_DROPPED]
    product = next(m for m in dropped if m.description.startswith("`x * (x - 3)"))
    assert "+ 0 +" in product.mutated

    def output(chosen: int) -> str:
        return _c_output(tmp_path, compiler, source, schema.text, main, chosen)

    patched = output(0)
    assert patched == "10 13 14 15\n"
    assert output(product.number) == patched  # the tests' letters: it survives
    ten = next(m for m in dropped if m.description.startswith("`10` dropped"))
    assert output(ten.number) != patched
    # a pointer's term dropped still compiles and runs: a null pointer of its type
    pointer = next(m for m in dropped if m.description.startswith("`letters` dropped"))
    assert pointer.mutated.count("0 + x") == 1


ROUND_58 = """#include <numeric>
enum class path_type { nonexistent, file, directory };
struct directory_report {
    const char *name;
    int kind = static_cast<int>(path_type::directory) - (name[0] & 1);
    static constexpr int none = 0;
};
#define DIRECTORY_KIND(name) (static_cast<int>(path_type::directory) - ((name)[0] & 1))
inline auto directory_kind(const char *name) noexcept -> enum path_type {
    return static_cast<path_type>(1 + (name[0] != '/'));
}
inline path_type by_gcd(const char *file) {
    return static_cast<path_type>(std::gcd(file[0], 2));
}
inline path_type two_lines(const char *file) {
    return static_cast<path_type>(2 ^ 3 * (file[0]
                                           & 1));
}
inline path_type plain() { return static_cast<path_type>(2); }
"""


def test_red_team_round_58_fits_of_a_paths_first_character_are_each_mutated():
    """Red team round 58 (CLI11) chose a path's type by its first character's parity in a
    member's initializer, a macro's body, a function whose trailing return type is `enum`
    (once read as an enumeration's body: no mutant at all), `std::gcd` and an operator at the
    start of a line. A returned cast that reads a value is kept at its first value; a
    member's initializer and a macro's body hold the value mutants a function's lines do;
    a static member and a constant cast hold none."""
    schema = schema_of("v.hpp", ROUND_58, list(range(3, 20)))
    assert schema is not None
    said = [(m.line, m.description) for m in schema.mutants]
    assert (5, "`name[0] & 1` kept at the first value it took") in said
    assert (8, "`(name)[0] & 1` kept at the first value it took") in said
    assert (10, "`name[0] != '/'` replaced by true") in said
    kept = [line for line, d in said if d.startswith("`static_cast<path_type>(")]
    assert kept == [10, 13, 16]
    assert not any(line in (6, 19) for line, _ in said)
    # the schema keeps the file's lines where they were: the two-line cast's kept copy is flat
    assert schema.text.split("#line 1\n", 1)[1].count("\n") == ROUND_58.count("\n")


def test_round_58_schema_compiles_and_keeps_the_first_answer(tmp_path):
    """The kept cast answers the first call's value to every later call in the process."""
    import shutil
    import subprocess

    compiler = shutil.which("g++")
    if compiler is None:
        pytest.skip("needs g++")
    schema = schema_of("v.hpp", ROUND_58, list(range(3, 20)))
    assert schema is not None
    number = next(m.number for m in schema.mutants if m.line == 13)
    (tmp_path / "v.hpp").write_text(schema.text)
    (tmp_path / "main.cpp").write_text(
        '#include "v.hpp"\n#include <cstdio>\n'
        'int main() {\n  int a = (int) by_gcd("tests");\n  int b = (int) by_gcd("/tmp");\n'
        '  std::printf("%d %d\\n", a, b);\n}\n'
    )
    binary = tmp_path / "main"
    subprocess.run([compiler, "-std=c++17", str(tmp_path / "main.cpp"), "-o", str(binary)],
                   check=True)  # fmt: skip
    plain = subprocess.run([str(binary)], capture_output=True, text=True, env={})
    chosen = subprocess.run(
        [str(binary)], capture_output=True, text=True, env={VARIABLE: str(number)}
    )
    assert plain.stdout.split() == ["2", "1"]
    assert chosen.stdout.split() == ["2", "2"]
