"""Which line gcov scores a patched C++ line by (issue 14). Pure: the line data below is what gcov
reported (through gcovr) for this very file, compiled with the coverage flags and run once."""

from __future__ import annotations

import pytest

from patchwitness.linemap import CODE, INIT, SCOPE, CppLines, map_lines, sha_line

SHAPES = """\
#include <string>
#include <stdexcept>

int kind(char c) {
  switch (c) {
    case 'a':
    case 'E':
      return 1;
    case 'b': {
      int z = 2;
      return z;
    }
    default:
      break;
  }
  return 0;
}

int choose(int x) {
  int y;
  if (x > 0 &&
      x < 10) {
    y = 1;
  } else {
    y = 2;
  }
  const std::string s =
      std::to_string(x) +
      "!";
  [[maybe_unused]] int unused;
  return y + static_cast<int>(
      s.size());
}

template <class T>
T never(T x) {
  return x + 1;
}

struct Point {
  int x;
  int y;
  int sum() const {
    return x + y;
  }
};

int main() {
  int a = kind('a') + kind('b') + kind('z');
  a += choose(3) + choose(-1);
  Point p{1, 2};
  return a + p.sum() > 0 ? 0 : 1;
}
"""
# gcov's lines for SHAPES (g++ 12, --coverage -O0 -fno-inline -fkeep-inline-functions).
DATA = {4, 5, 6, 8, 9, 10, 11, 13, 14, 16, 19, 21, 23, 25, 28, 29, 31, 32, 33, 43, 44}
DATA |= {48, 49, 50, 51, 52}

MAPPED = [
    (7, 8, "a case label: the first statement after it"),
    (12, 11, "the brace closing a case's block: its last statement"),
    (15, 14, "the brace closing the switch"),
    (17, 16, "the brace closing a function"),
    (20, 21, "a declaration without an initializer: the next statement"),
    (22, 21, "the second line of a condition: the statement's first line"),
    (24, 25, "} else {: the first statement of the else branch"),
    (26, 25, "the brace closing the else branch"),
    (27, 28, "the first line of a statement gcov reports on its next line"),
    (30, 31, "an attribute on a declaration: the next statement"),
    (45, 44, "the brace closing a member function"),
]


@pytest.mark.parametrize(("line", "by", "why"), MAPPED, ids=[m[2] for m in MAPPED])
def test_lines_without_data_are_scored_by_their_statement_or_block(line, by, why):
    scored = map_lines(SHAPES, [line], DATA)[line]
    assert (scored.line, scored.suspicious) == (by, False), why


def test_lines_with_data_are_scored_by_themselves():
    assert {n: s.line for n, s in map_lines(SHAPES, [8, 21, 44], DATA).items()} == {
        8: 8,
        21: 21,
        44: 44,
    }


def test_a_template_nobody_instantiates_stays_suspicious():
    for line in (36, 37, 38):
        scored = map_lines(SHAPES, [line], DATA)[line]
        assert scored.suspicious and scored.line is None


@pytest.mark.parametrize("line", [1, 3, 35, 40, 41, 42, 46])
def test_declarations_outside_functions_and_directives_are_no_code(line):
    scored = map_lines(SHAPES, [line], DATA)[line]
    assert scored.line is None and not scored.suspicious


def test_a_function_without_any_data_is_suspicious_even_when_others_have_some():
    text = "int used() {\n  return 1;\n}\n\nint unused(int x) {\n  if (x)\n    return 2;\n"
    text += "  return 3;\n}\n"
    scored = map_lines(text, [6, 7, 8], {1, 2})
    assert all(s.suspicious for s in scored.values())


def test_a_body_behind_digraph_braces_is_code():
    """Red team round 53: `inline int example_1() <% return 10; %>` read as a declaration at
    namespace scope with no code, and no test ran it."""
    text = "int used() {\n  return 1;\n}\n\ninline int unused() <% return 10; %>\n"
    scored = map_lines(text, [5], {2})[5]
    assert scored.suspicious and scored.line is None


BRACES = """\
namespace lib {
struct S : Base<int> {
  S() : a_{1}, b_(2) {
    int table[] = {1, 2,
                   3};
    auto f = [&](int x) { return x; };
    do {
      ++a_;
    } while (a_ < 3);
  }
  int a_;
  int b_;
};
}  // namespace lib
extern "C" {
int g();
}
"""


def test_the_brace_tree_tells_scopes_code_and_initializers_apart():
    lines = CppLines(BRACES)

    def kinds(blocks):
        out = []
        for block in blocks:
            out.append((lines.line_of(block.open), block.kind))
            out += kinds(block.children)
        return out

    assert kinds(lines.blocks) == [
        (1, SCOPE),
        (2, SCOPE),
        (3, INIT),
        (3, CODE),
        (4, INIT),
        (6, CODE),
        (7, CODE),
        (15, SCOPE),
    ]


def test_a_multi_line_initializer_is_one_statement():
    lines = CppLines(BRACES)
    assert lines.statement_lines(5) == (4, 5)


# nlohmann/json's shape: the namespace is opened after a macro, and the switch sits in a `for`
# whose head holds semicolons. Both once made every block below them an initializer list, so a
# `case` label added there was "no code" and an honest fix scored nothing (uncovered).
MACRO_NAMESPACE = """\
#define LIB_NAMESPACE_BEGIN inline namespace v1 {
namespace lib {
LIB_NAMESPACE_BEGIN
namespace detail {
template <typename T>
class serializer {
 public:
  int dump(const char* s, int n) {
    int out = 0;
    for (int i = 0; i < n; ++i) {
      switch (s[i]) {
        case 'a':
        case 'b':
        {
          out += 2;
          break;
        }
        default:
          out += 1;
      }
    }
    return out;
  }
};
}  // namespace detail
}
}
"""


def test_blocks_after_a_macro_namespace_and_a_for_head_are_code():
    lines = CppLines(MACRO_NAMESPACE)
    kinds = [(lines.line_of(b.open), b.kind) for b in lines.opened_blocks()]
    assert kinds[:3] == [(8, CODE), (10, CODE), (11, CODE)]
    # the `case 'b':` label (13) is scored by the first statement of the block it opens
    assert map_lines(MACRO_NAMESPACE, [13], {9, 10, 11, 15, 16, 19, 22})[13].line == 15


# -- between the SHA and the patched text --------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "removed", "added", "at_sha"),
    [
        (8, [], [3, 4, 5], 5),  # three lines added above: the line moved down by three
        (2, [], [3, 4, 5], 2),  # above the addition: unmoved
        (4, [], [3, 4, 5], None),  # a line the patch added has no line at the SHA
        (6, [5], [5], 6),  # one line rewritten: the lines after it stay where they were
        (4, [5], [5], 4),
        (2, [2, 3], [], 4),  # two lines deleted above: the line moved up by two
        (9, [4], [2, 3], 8),  # one deleted below two added: down by one
    ],
)
def test_a_patched_line_is_mapped_to_the_shas_line(line, removed, added, at_sha):
    assert sha_line(line, removed, added) == at_sha


def test_every_untouched_line_maps_to_the_line_it_was():
    sha = [f"line {n}" for n in range(1, 21)]
    removed = [4, 5, 11]
    patched = [*sha[:3], "new a", *sha[5:10], "new b", "new c", *sha[11:]]
    added = [4, 10, 11]
    for number, text in enumerate(patched, start=1):
        old = sha_line(number, removed, added)
        assert (old is None) == text.startswith("new")
        if old is not None:
            assert sha[old - 1] == text
