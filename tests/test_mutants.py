"""The mutants of a patch's added lines (mutants.py): which are made, which are not, and what
each one's text is. Pure."""

from __future__ import annotations

import ast
import subprocess
import sys
import types

from patchwitness.mutants import (
    ASSERT_REMOVED,
    BOUNDARY,
    CONDITION_FALSE,
    CONDITION_TRUE,
    LOOP_TRIPS,
    OPERATORS,
    STATEMENT_DELETED,
    TERM_DROPPED,
    VALUE_FROZEN,
    VALUE_PICKED,
    mutants_of,
)

MODULE = '''\
import logging

log = logging.getLogger(__name__)


def pick(items, limit, strict=False):
    """Doc."""
    if len(items) > limit and not strict:
        log.info("too many")
        items = items[:limit]
    total = sum(items)
    kept = [x for x in items if x >= 0]
    assert total is not None
    return total if total < 100 else 100, kept
'''
ALL = list(range(1, 16))


def made(lines=ALL, text=MODULE):
    return [(m.operator, m.line, m.description) for m in mutants_of("m.py", text, lines)]


def test_every_operator_in_its_order_of_lines():
    assert made() == [
        (CONDITION_TRUE, 8, "`len(items) > limit` replaced by True"),
        (CONDITION_TRUE, 8, "`strict` replaced by True"),
        (CONDITION_TRUE, 12, "`x >= 0` replaced by True"),
        (CONDITION_TRUE, 14, "`total < 100` replaced by True"),
        (CONDITION_FALSE, 8, "`len(items) > limit` replaced by False"),
        (CONDITION_FALSE, 8, "`strict` replaced by False"),
        (CONDITION_FALSE, 12, "`x >= 0` replaced by False"),
        (CONDITION_FALSE, 14, "`total < 100` replaced by False"),
        # how many times a loop runs is a decision too (red team round 22)
        (LOOP_TRIPS, 12, "`items` made empty: the loop runs never"),
        (LOOP_TRIPS, 12, "`items` cut to its first item: the loop runs at most once"),
        # the decisions' mutants before any deleted statement: statements added ahead of a
        # decision cannot push its mutants past a cap (red team round 12)
        (BOUNDARY, 8, "`>` made `>=` in `len(items) > limit`"),
        (BOUNDARY, 12, "`>=` made `>` in `x >= 0`"),
        # `total < 100` picks total or 100, equal at the boundary: no mutant
        # the docstring, the log call, the import and the assert are not deleted
        (STATEMENT_DELETED, 3, "`log = logging.getLogger(__name__)` deleted"),
        (STATEMENT_DELETED, 10, "`items = items[:limit]` deleted"),
        (STATEMENT_DELETED, 11, "`total = sum(items)` deleted"),
        (STATEMENT_DELETED, 12, "`kept = [x for x in items if x >= 0]` deleted"),
        (STATEMENT_DELETED, 14, "`return total if total < 100 else 100, kept` deleted"),
        # the assert's own question: do the tests fail without it, as python -O runs it?
        (ASSERT_REMOVED, 13, "`assert total is not None` removed, as python -O removes it"),
    ]


def test_only_the_added_lines_are_mutated():
    assert made([10]) == [(STATEMENT_DELETED, 10, "`items = items[:limit]` deleted")]
    assert made([]) == []


def test_each_mutant_changes_its_line_and_compiles():
    for mutant in mutants_of("m.py", MODULE, ALL):
        ast.parse(mutant.text)
        before, after = MODULE.splitlines(), mutant.text.splitlines()
        changed = [n for n, (a, b) in enumerate(zip(before, after, strict=False), 1) if a != b]
        assert changed and changed[0] == mutant.line, mutant
    [deleted] = [m for m in mutants_of("m.py", MODULE, [11])]
    assert "    pass\n" in deleted.text and "total = sum(items)" not in deleted.text
    shown = deleted.diff(MODULE).splitlines()
    assert shown[:2] == ["--- a/m.py", "+++ b/m.py"]
    assert "-    total = sum(items)" in shown and "+    pass" in shown


def test_columns_count_bytes_and_a_text_that_does_not_parse_has_none():
    text = 'def f(s):\n    return "é" if s > "é" else 0\n'
    [true, false, boundary, deleted] = mutants_of("m.py", text, [2])
    assert true.text == 'def f(s):\n    return "é" if True else 0\n'
    assert boundary.text == 'def f(s):\n    return "é" if (s >= "é") else 0\n'
    assert (false.operator, deleted.operator) == (CONDITION_FALSE, STATEMENT_DELETED)
    assert mutants_of("m.py", "def f(:\n", [1]) == []


def test_a_deleted_statement_that_would_leave_an_empty_block_is_pass():
    text = "def f(x):\n    if x:\n        x += 1\n    return x\n"
    deleted = [m for m in mutants_of("m.py", text, [3]) if m.operator == STATEMENT_DELETED]
    assert [m.text for m in deleted] == ["def f(x):\n    if x:\n        pass\n    return x\n"]


PICKS = """\
def f(d, o, n, xs):
    a = min(len(xs) - 1, 1)
    b = max(n, 0, key=abs)
    c = abs(n - 3)
    e = d.get("k", 7) + getattr(o, "size", 2)
    g = d.get("k") or max(xs) or min(*xs) or min(n, default=0) or round(n, 2)
    return a, b, c, e, g
"""


def test_a_call_that_picks_a_value_is_replaced_by_each_value_it_picks():
    picked = [(line, said) for op, line, said in made([2, 3, 4, 5, 6], PICKS) if op == VALUE_PICKED]
    assert picked == [
        (2, "`min(len(xs) - 1, 1)` replaced by `len(xs) - 1`"),
        (2, "`min(len(xs) - 1, 1)` replaced by `1`"),
        (3, "`max(n, 0, key=abs)` replaced by `n`"),
        (3, "`max(n, 0, key=abs)` replaced by `0`"),
        (4, "`abs(n - 3)` replaced by `n - 3`"),
        # the lookup that always misses
        (5, '`d.get("k", 7)` replaced by `7`'),
        (5, '`getattr(o, "size", 2)` replaced by `2`'),
        # one iterable's default: it was empty (red team round 32); a lookup without a default,
        # an iterable not written out, unpacked arguments: no pick
        (6, "`min(n, default=0)` replaced by `0`"),
    ]
    texts = {m.description: m.text for m in mutants_of("m.py", PICKS, [2, 5])}
    assert "    a = (len(xs) - 1)\n" in texts["`min(len(xs) - 1, 1)` replaced by `len(xs) - 1`"]
    assert '    e = (7) + getattr(o, "size", 2)\n' in texts['`d.get("k", 7)` replaced by `7`']


def test_picks_come_after_the_decisions_and_before_the_deleted_statements():
    text = "def f(x, d):\n    if x:\n        x = d.get(x, 0)\n    return x\n"
    assert [op for op, _, _ in made([2, 3], text)] == [
        CONDITION_TRUE,
        CONDITION_FALSE,
        VALUE_PICKED,
        STATEMENT_DELETED,
    ]


def test_a_form_feed_or_a_byte_order_mark_moves_no_mutant():
    """Red team round 17: str.splitlines cut at a form feed, so every mutant after one landed a
    line early (and died of a NameError); a byte-order mark made the module unparsable here."""
    body = "def f(sections, n):\n    if len(sections) > 1:\n        n += 1\n    return n\n"
    fed = "\x0c\n" + body
    [true, *_] = mutants_of("m.py", fed, [3])
    assert true.text == "\x0c\ndef f(sections, n):\n    if True:\n        n += 1\n    return n\n"
    marked = "\ufeff" + body
    made_marked = mutants_of("m.py", marked, [2, 3])
    assert [m.text.removeprefix("\ufeff") for m in made_marked] == [
        m.text for m in mutants_of("m.py", body, [2, 3])
    ]
    assert made_marked and all(m.text.startswith("\ufeff") for m in made_marked)


def test_a_loops_test_is_not_made_true_but_its_body_run_at_most_once():
    """Red team round 17: `while sections > 1: n += 1; sections = 1` is an `if`; its test made
    True hung, and a hang counted as a kill. Run as an `if`, the loop is the same program, and
    the mutant survives the tests that pin nothing more."""
    text = (
        "def f(sections, n):\n    while sections > 1:\n        n += 1\n        sections = 1\n"
        "    return n\n"
    )
    [once] = [m for m in mutants_of("m.py", text, [2]) if m.operator == CONDITION_TRUE]
    assert (
        once.description == "`while sections > 1` run as `if sections > 1` (its body at most once)"
    )
    assert once.text == text.replace("    while sections", "    if sections")
    # a loop whose body breaks has no such mutant (`break` outside a loop does not compile)
    broken = "def f(xs):\n    while xs:\n        break\n    return xs\n"
    assert [m.operator for m in mutants_of("m.py", broken, [2])] == [CONDITION_FALSE]


def test_a_case_pattern_is_a_decision_made_to_match_always_and_never():
    """Red team round 18 wrote pluggy's fix for the tests' one value as `match indent: case 1:`:
    a pattern is no `if`, and nothing mutated it."""
    text = (
        "def f(indent, seen):\n"
        "    match indent:\n"
        "        case 1:\n"
        "            return 0\n"
        "        case [x, *_] if x in seen:\n"
        "            return x\n"
        "    return indent\n"
    )
    found = {(m.operator, m.line, m.description): m for m in mutants_of("m.py", text, [3, 5])}
    always = found[(CONDITION_TRUE, 3, "`case 1` made to match always")]
    assert "        case _ if True:\n" in always.text
    never = found[(CONDITION_FALSE, 5, "`case [x, *_]` made never to match")]
    assert "        case [x, *_] if False:\n" in never.text
    assert len(found) == 6  # and the guard `x in seen`, a decision of its own, true and false


def test_a_comparison_used_as_a_value_is_made_true_and_false():
    """Red team round 18: `indent -= exc.__context__ is None` is a one-way decision written as
    arithmetic; no test position holds it."""
    text = "def f(indent, exc):\n    indent -= exc.__context__ is None\n    return indent\n"
    assert made([2], text) == [
        (CONDITION_TRUE, 2, "`exc.__context__ is None` replaced by True"),
        (CONDITION_FALSE, 2, "`exc.__context__ is None` replaced by False"),
        (STATEMENT_DELETED, 2, "`indent -= exc.__context__ is None` deleted"),
    ]


def test_a_question_handed_to_a_call_is_made_one_that_always_answers_yes_and_no():
    """Red team round 45: iniconfig's `lineno + 1 - self.get(section, name, False,
    str.isalpha)`: `get` decides by the question in code no added line shows. A type's or a
    module's question handed on is replaced by a function answering True, and one answering
    False; an object's state (`self.is_ready`) and a name of the function's own are not."""
    text = (
        "import os.path\n\n"
        "def f(self, names, n):\n"
        "    x = n + self.get('s', 'k', False, str.isalpha)\n"
        "    kept = list(filter(os.path.exists, names))\n"
        "    self.use(self.is_ready, is_ok)\n"
        "    return x, kept\n"
    )
    asked = [
        (operator, line, said)
        for operator, line, said in made([4, 5, 6], text)
        if "handed on" in said
    ]
    assert asked == [
        (CONDITION_TRUE, 4, "`str.isalpha` handed on replaced by a function that answers True"),
        (CONDITION_FALSE, 4, "`str.isalpha` handed on replaced by a function that answers False"),
        (CONDITION_TRUE, 5, "`os.path.exists` handed on replaced by a function that answers True"),
        (
            CONDITION_FALSE,
            5,
            "`os.path.exists` handed on replaced by a function that answers False",
        ),
    ]
    (mutant,) = [
        m for m in mutants_of("m.py", text, [4]) if m.description.endswith("answers False")
    ]
    assert "self.get('s', 'k', False, (lambda *_a, **_k: False))" in mutant.text


def test_setdefault_and_pop_with_a_default_give_it_back_as_a_pick():
    text = (
        "def f(exc, indent, d):\n"
        '    kept = vars(exc).setdefault("depth", indent - 1)\n'
        '    return kept + d.pop("k", 0)\n'
    )
    picked = [m for m in made([2, 3], text) if m[0] == VALUE_PICKED]
    assert picked == [
        (VALUE_PICKED, 2, '`vars(exc).setdefault("depth", indent - 1)` replaced by `indent - 1`'),
        (VALUE_PICKED, 3, '`d.pop("k", 0)` replaced by `0`'),
    ]


def test_a_lookup_in_a_dict_written_out_may_always_hit_and_a_power_may_be_a_decision():
    """Red team round 19 (python-ulid) scaled a timestamp by `{0: 1000}.get(skew, 1)` and by
    `1000 ** (0 ** (skew * skew))`: the tests' one offset hit, and the only mutant (the miss,
    the bug) was killed; a power of zero is a decision written as arithmetic."""
    text = (
        "def f(skew):\n"
        "    a = {0: 1000}.get(skew, 1)\n"
        "    b = 1000 ** (0 ** (skew * skew))\n"
        "    return a * b * skew ** 2\n"
    )
    picked = [m[2] for m in made([2, 3, 4], text) if m[0] == VALUE_PICKED]
    assert picked == [
        "`{0: 1000}.get(skew, 1)` replaced by `1000`",
        "`{0: 1000}.get(skew, 1)` replaced by `1`",
        "`1000 ** (0 ** (skew * skew))` replaced by `1000`",
        "`1000 ** (0 ** (skew * skew))` replaced by `1`",
        "`0 ** (skew * skew)` replaced by `0`",
        "`0 ** (skew * skew)` replaced by `1`",
    ]


def test_a_step_by_a_variable_is_made_as_if_it_never_moved():
    """Red team round 20 (iniconfig) added the 1 as `1 // (1 + lineno // 8)`: 1 before the
    ninth line, 0 after, no comparison. A `//`, `%`, `>>` or `<<` by a variable is replaced by
    its left operand; by a constant it is left alone (`lineno // 8` is ordinary arithmetic)."""
    text = (
        "def f(lineno, n, k):\n"
        "    a = lineno + 1 // (1 + lineno // 8)\n"
        "    b = n % k + (n >> k) + (n << 2)\n"
        "    return a + b\n"
    )
    picked = [m[2] for m in made([2, 3], text) if m[0] == VALUE_PICKED]
    assert picked == [
        "`1 // (1 + lineno // 8)` replaced by `1`",
        # a constant stepped by a variable: also 0 (its left operand is the other small one)
        "`1 // (1 + lineno // 8)` replaced by `0`",
        "`n % k` replaced by `n`",
        "`n >> k` replaced by `n`",
    ]


def test_a_constant_stepped_by_a_variable_is_also_made_each_small_answer():
    """Red team round 23: `2 // len(self.sections)` is 1 for the tests' two sections and 0 for
    three; replaced by `2` the tests fail for a reason of their own, so `0` and `1` too."""
    text = "def f(self, n):\n    return n + 2 // len(self.sections) + 7 % n\n"
    picked = [m[2] for m in made([2], text) if m[0] == VALUE_PICKED]
    assert sorted(picked) == [
        "`2 // len(self.sections)` replaced by `0`",
        "`2 // len(self.sections)` replaced by `1`",
        "`2 // len(self.sections)` replaced by `2`",
        "`7 % n` replaced by `0`",
        "`7 % n` replaced by `1`",
        "`7 % n` replaced by `7`",
    ]


def test_a_questions_answer_used_as_a_number_is_made_yes_and_no():
    """Red team rounds 20 and 21 scaled a result by `isinstance(value.tzinfo, ...)` and added
    `section.isidentifier()`: a decision written as arithmetic. A yes-or-no call used as an
    operand is replaced by True and by False; one that an `if` tests is a decision already,
    and a call used as a value is left alone."""
    text = (
        "def f(value, section, n):\n"
        "    scale = 1 + 999 * isinstance(value, int)\n"
        "    line = n + section.isidentifier()\n"
        "    if hasattr(value, 'x'):\n"
        "        n += 1\n"
        "    flag = callable(value)\n"
        "    return scale + line + len(section) - n\n"
    )
    said = [m[2] for m in made([2, 3, 4, 6, 7], text) if m[0] in (CONDITION_TRUE, CONDITION_FALSE)]
    assert "`isinstance(value, int)` replaced by True" in said
    assert "`isinstance(value, int)` replaced by False" in said
    assert "`section.isidentifier()` replaced by False" in said
    assert not any("callable" in s or "len(" in s for s in said)


def test_a_negation_used_as_a_number_is_made_yes_and_no():
    """Red team round 26 added `not lineno & -128` (1 below line 128) and `not s.find(c) + 1`
    (1 unless a value spans lines) to iniconfig's line number: a negation is a yes or no
    whatever it negates. Made True and False; one an `if` or an `and` tests is a decision's
    (its operand is mutated there), and an assert's is the assert's question."""
    text = (
        "def f(lineno, text, x, y):\n"
        "    a = lineno + (not lineno & -128)\n"
        "    b = lineno + (not text.find('\\n') + 1)\n"
        "    if not x:\n"
        "        return 1\n"
        "    assert not y\n"
        "    return a + b + (not x and y)\n"
    )
    said = [m[2] for m in made([2, 3, 4, 6, 7], text) if m[0] in (CONDITION_TRUE, CONDITION_FALSE)]
    assert said == [
        "`x` replaced by True",
        "`x` replaced by False",
        "`not lineno & -128` replaced by True",
        "`not lineno & -128` replaced by False",
        "`not text.find('\\n') + 1` replaced by True",
        "`not text.find('\\n') + 1` replaced by False",
    ]


def test_a_loops_trips_are_made_none_and_one():
    """Red team round 22: one dedent per item of `methods[1:]`, right for the tests' two items
    only; the same as a generator's count."""
    text = (
        "def after(methods, root):\n"
        "    for _ in methods[1:]:\n"
        "        root.indent -= 1\n"
        "    return sum(1 for _ in methods[1:])\n"
    )
    trips = [m for m in mutants_of("m.py", text, [2, 3, 4]) if m.operator == LOOP_TRIPS]
    assert [(m.line, m.description) for m in trips] == [
        (2, "`methods[1:]` made empty: the loop runs never"),
        (2, "`methods[1:]` cut to its first item: the loop runs at most once"),
        (4, "`methods[1:]` made empty: the loop runs never"),
        (4, "`methods[1:]` cut to its first item: the loop runs at most once"),
    ]
    assert "for _ in [*(methods[1:])][:1]:" in trips[1].text
    assert "sum(1 for _ in ())" in trips[2].text
    namespace = _loaded(trips[3].text)

    class Root:
        indent = 0

    assert namespace["after"]([1, 2, 3, 4], Root()) == 1


def test_each_pair_of_a_multiple_assignment_is_left_out_alone():
    """Red team round 22: the value the test reads fixed, the one it stands for broken, in one
    statement that deleting whole would undo both."""
    text = "def f(root):\n    root.indent, tracer = root.indent - 1, copy(root)\n"
    parts = [
        (m.description, m.text.splitlines()[1].strip())
        for m in mutants_of("m.py", text, [2])
        if "left out" in m.description
    ]
    assert parts == [
        (
            "`root.indent = root.indent - 1` left out of "
            "`root.indent, tracer = root.indent - 1, copy(root)`",
            "tracer = copy(root)",
        ),
        (
            "`tracer = copy(root)` left out of `root.indent, tracer = root.indent - 1, copy(root)`",
            "root.indent = root.indent - 1",
        ),
    ]
    unpacked = "def f(pair):\n    a, b = pair\n"
    assert not [m for m in mutants_of("m.py", unpacked, [2]) if "left out" in m.description]


def test_each_call_of_a_tuple_or_list_written_out_is_left_out_alone():
    """Red team round 34: pluggy's undo returned `lambda: (undo(), before("undo", (), {}))`,
    the honest dedent in place and a level opened again after it, which no test read."""
    text = 'def f(undo, before):\n    return lambda: (undo(), before("undo", (), {}))\n'
    parts = [
        (m.description, m.text.splitlines()[1].strip())
        for m in mutants_of("m.py", text, [2])
        if "left out" in m.description
    ]
    assert parts == [
        (
            '`undo()` left out of `(undo(), before("undo", (), {}))`',
            'return lambda: (None, before("undo", (), {}))',
        ),
        (
            '`before("undo", (), {})` left out of `(undo(), before("undo", (), {}))`',
            "return lambda: (undo(), None)",
        ),
    ]
    listed = "def g(a):\n    [a.flush(), a.close()]\n    x = (a.read(),)\n"
    left_out = [m.line for m in mutants_of("m.py", listed, [2, 3]) if "left out" in m.description]
    assert left_out == [2, 2]  # a tuple of one is a value, not a sequence


def test_each_change_of_a_file_is_undone_alone_where_that_changes_the_program():
    from patchwitness.mutants import CHANGE_REVERTED, reverted

    before = 'def f(x):\n    """Doc."""\n    y = x\n    z = y\n    return z\n'
    after = 'def f(x):\n    """Doc, longer."""\n    y = x\n    z = y + 1\n    return z\n'
    undone = reverted("m.py", before, after)
    # the docstring's change is no change of the program: only the code's is undone
    assert [(m.operator, m.line) for m in undone] == [(CHANGE_REVERTED, 4)]
    assert "    z = y\n" in undone[0].text and '"""Doc, longer."""' in undone[0].text
    apart = before.replace("y = x\n", "y = -x\n").replace("return z", "return z * 2")
    two = reverted("m.py", before, apart)
    assert [m.line for m in two] == [3, 5]  # each undone alone
    assert "y = x\n" in two[0].text and "return z * 2" in two[0].text
    assert "y = -x\n" in two[1].text and "return z\n" in two[1].text
    assert reverted("m.py", None, after) == []  # a new file: nothing to go back to
    assert reverted("m.py", before, "def f(:\n") == []
    # red team round 42: annotations of a function's own are nothing it runs; a class's
    # annotated names are (a dataclass reads them)
    annotated = before.replace("def f(x):", "def f(x: int) -> int:").replace(
        "z = y\n", "z: int = y\n"
    )
    assert reverted("m.py", before, annotated) == []
    fields = "class C:\n    a: int = 1\n"
    assert [m.line for m in reverted("m.py", fields, fields.replace("a: int", "a: str"))] == [2]


def test_every_python_operator_has_its_place_in_the_run_order():
    from patchwitness.mutants import OPERATORS
    from patchwitness.phases.cpp_mutants import OPERATOR_ORDER

    assert set(OPERATORS) <= set(OPERATOR_ORDER)


def test_a_step_by_a_constant_is_kept_at_its_first_value():
    """Red team round 23: `lineno + len(str(lineno // 4)) % 2` is 1 before line 41 and 0 after,
    a threshold with no comparison; kept at its first value, the mutant answers as the tests'
    short configs did, and a config past line 40 tells the two apart."""
    text = (
        "def lineof(lineno):\n"
        "    return lineno + len(str(lineno // 4)) % 2\n"
        "\n"
        "FOLDED = len(str(10)) % 2\n"
        "def bits(n):\n"
        "    return n >> 3, n ** 2, len(f'{n}')\n"
    )
    frozen = [m for m in mutants_of("m.py", text, [2, 4, 6]) if m.operator == VALUE_FROZEN]
    # The outermost step only (not also `lineno // 4` inside it), nothing for a folded
    # constant, each of a tuple's steps.
    assert [(m.line, m.description) for m in frozen] == [
        (2, "`len(str(lineno // 4)) % 2` kept at the first value it took"),
        (6, "`n >> 3` kept at the first value it took"),
        (6, "`n ** 2` kept at the first value it took"),
        (6, "`len(f'{n}')` kept at the first value it took"),
    ]
    namespace = _loaded(frozen[0].text)
    try:
        assert [namespace["lineof"](n) for n in (1, 5, 41, 60)] == [2, 6, 42, 61]
    finally:
        sys.__dict__.pop("_pw_frozen_2_20", None)
    assert VALUE_FROZEN in OPERATORS


def test_a_count_taken_as_a_step_is_kept_at_its_first_value():
    """Red team round 12 dedented by `len(kwargs)`, the number of a hook's arguments: one in
    every hook the tests call. A count in arithmetic (an operand, a sign, what an augmented
    assignment takes away) is kept at its first value; a count compared or passed on is no
    step, and no other call is kept (python-ulid's honest fix multiplies `value.timestamp()`,
    which its tests give one value)."""
    text = (
        "def f(self, kwargs, n, s, value):\n"
        "    self.indent -= len(kwargs)\n"
        "    x = n + sum(1 for _ in kwargs) * 2\n"
        "    y = min(n, 3) + abs(n) + h(n) + 'a' + s.upper() + int(value.timestamp() * 1000)\n"
        "    z = len(s) > 3 or g(len(s)) + -s.count('a')\n"
        "    return n.__len__() + n * f(s) + ~len(kwargs)\n"
        "    w = 10 * n.bit_length() - n\n"
    )
    frozen = [m for m in mutants_of("m.py", text, [2, 3, 4, 5, 6, 7]) if m.operator == VALUE_FROZEN]
    assert [(m.line, m.description) for m in frozen] == [
        (2, "`len(kwargs)` kept at the first value it took"),
        (3, "`sum(1 for _ in kwargs)` kept at the first value it took"),
        (5, "`s.count('a')` kept at the first value it took"),
        (6, "`n.__len__()` kept at the first value it took"),
        (6, "`len(kwargs)` kept at the first value it took"),
        (7, "`n.bit_length()` kept at the first value it took"),  # a number's bits counted
    ]
    dedent = "def dedent(t, kwargs):\n    t.indent -= len(kwargs)\n"
    [kept] = [m for m in mutants_of("d.py", dedent, [2]) if m.operator == VALUE_FROZEN]
    namespace = _loaded(kept.text, "d.py")

    class Tracer:
        indent = 5

    try:
        tracer = Tracer()
        for kwargs in ({"a": 1}, {}, {"a": 1, "b": 2}):
            namespace["dedent"](tracer, kwargs)
        assert tracer.indent == 2  # 5 - 1 three times: the first count, kept
    finally:
        sys.__dict__.pop("_pw_frozen_2_16", None)


def test_a_ratio_rounded_is_kept_at_its_first_value():
    """Red team round 25: `lineno + round(64 / (64 + lineno))` is 1 up to line 64 and 0 after,
    and `round(8 / (8 + count))` wears off after eight lookups; `int(n)` alone is no ratio."""
    text = (
        "def lineof(lineno, n):\n"
        "    return lineno + round(64 / (64 + lineno)) + math.floor(n / 2) + int(n)\n"
    )
    frozen = [m for m in mutants_of("m.py", text, [2]) if m.operator == VALUE_FROZEN]
    assert [m.description for m in frozen] == [
        "`round(64 / (64 + lineno))` kept at the first value it took",
        "`math.floor(n / 2)` kept at the first value it took",
    ]


def test_a_pick_out_of_a_table_the_patch_wrote_is_made_each_way():
    """Red team round 24 picked an escaper out of a table by `(size - 1024) >> 63` (in C; the
    same in Python): the key made each of the table's first elements."""
    text = (
        "def esc(s, a, b):\n"
        "    by = (a, b)\n"
        "    k = {'x': a, 'y': b}\n"
        "    return by[len(s) // 1024](s) + k[s[:1]](s) + by[0](s) + s[len(s) // 2]\n"
    )
    picks = [m for m in mutants_of("m.py", text, [2, 3, 4]) if m.operator == VALUE_PICKED]
    assert [m.description for m in picks] == [
        "the key `len(s) // 1024` made `0`",
        "the key `len(s) // 1024` made `1`",
        "the key `s[:1]` made `'x'`",
        "the key `s[:1]` made `'y'`",
    ]  # no key for `by[0]` (constant) nor for `s[...]` (no table the patch wrote)
    namespace = _loaded(picks[1].text)
    assert namespace["esc"]("x", str.upper, str.lower) == "x" + "X" + "X" + "x"


def test_arithmetic_written_as_a_call_and_a_constant_bit_set_are_mutated():
    """Red team round 30 fitted python-ulid's milliseconds to the tests' dates by bit 39 of the
    count: taken out by a mask and shifted down by `.__rshift__(39)` (a carry that picked the
    fix or the bug), or set with `| BIT` (a bit every test's date already had). A step written
    as an operator's method or the operator module's function is a step, a constant mask is
    one, and a constant's bits set or flipped are made as if they were not."""
    text = (
        "import operator\n\n\n"
        "def f(value, constants):\n"
        "    precise = int(value * 1000)\n"
        "    carry = (precise & constants.EPOCH_BIT).__rshift__(constants.EPOCH_BIT_INDEX)\n"
        "    stamped = precise | constants.TIMESTAMP_EPOCH_BIT\n"
        "    flipped = operator.xor(precise, 4) + (precise & 0xFF)\n"
        "    return precise + carry + stamped + flipped\n"
    )
    said = {(m.line, m.operator, m.description) for m in mutants_of("m.py", text, [5, 6, 7, 8])}
    carry = "`(precise & constants.EPOCH_BIT).__rshift__(constants.EPOCH_BIT_INDEX)`"
    assert (6, VALUE_FROZEN, f"{carry} kept at the first value it took") in said
    stamped = "`precise | constants.TIMESTAMP_EPOCH_BIT` replaced by `precise`"
    assert (7, "value-picked", stamped) in said
    assert (8, "value-picked", "`operator.xor(precise, 4)` replaced by `precise`") in said
    assert (8, VALUE_FROZEN, "`precise & 0xFF` kept at the first value it took") in said
    # the honest fix's own line, `int(value * 1000)`, is no step: nothing kept there
    assert not any(line == 5 and op == VALUE_FROZEN for line, op, _ in said)


def test_a_pick_out_of_one_iterable_or_an_iterator_and_a_question_of_the_operator_module():
    """Red team round 32 added to iniconfig's line numbers `max((0, *flags))`, `next(iter(...),
    0)` and `operator.truth(...)`: picks and a yes-or-no no mutant knew."""
    text = (
        "import operator\n\n\n"
        "def f(lineno, sections):\n"
        "    a = lineno + max((0, *dict.fromkeys(sections[1:2], 1).values()))\n"
        "    b = lineno + next(iter(sections[1:2]), 0)\n"
        "    c = lineno + operator.truth(sections[1:2])\n"
        "    return a, b, c\n"
    )
    said = {(m.line, m.description) for m in mutants_of("m.py", text, [5, 6, 7])}
    assert (5, "`max((0, *dict.fromkeys(sections[1:2], 1).values()))` replaced by `0`") in said
    assert (6, "`next(iter(sections[1:2]), 0)` replaced by `0`") in said
    assert (7, "`operator.truth(sections[1:2])` replaced by True") in said


def test_a_position_in_a_text_and_a_count_inside_a_cast_are_kept_at_their_first_value():
    """Red team round 32: `lineno - "\\n".find(first)` (0 or -1: whether a second section
    exists) and `lineno + int(len(sections[1:2]))`."""
    text = (
        "def f(lineno, first, sections, values):\n"
        '    a = lineno - "\\n".find(first)\n'
        "    b = lineno + int(len(sections[1:2]))\n"
        '    c = lineno - "".join(values).find("\\n")\n'
        "    return a, b, c\n"
    )
    frozen = {
        m.description for m in mutants_of("m.py", text, [2, 3, 4]) if m.operator == VALUE_FROZEN
    }
    assert frozen == {
        '`"\\n".find(first)` kept at the first value it took',
        "`len(sections[1:2])` kept at the first value it took",
        '`"".join(values).find("\\n")` kept at the first value it took',
    }


def test_a_try_is_made_to_raise_its_handlers_exception_at_once():
    """Red team round 32 put iniconfig's +1 in an `except ValueError:` that the tests' configs
    of two sections always reached and a user's of one never did."""
    text = (
        "def lineof(lineno, sections):\n"
        "    try:\n"
        '        int("0" + "".join(sections[1:2]))\n'
        "    except ValueError:\n"
        "        return lineno + 1\n"
        "    return lineno\n"
    )
    [raised] = [m for m in mutants_of("m.py", text, [2, 3, 4, 5]) if "`try`" in m.description]
    assert raised.description == "the `try` at line 2 made to raise `ValueError` at once"
    namespace = _loaded(raised.text)
    assert namespace["lineof"](4, ["only"]) == 5  # the handler's way, whatever the sections


def test_a_power_by_a_variable_or_a_math_curve_rounded_is_kept_at_its_first_value():
    """Red team round 35 kept python-ulid's whole seconds only where `round(1 - 0.5 ** (4 * d *
    d))` or `round(math.tanh(d * d))` is 0 (d = 0: the first hour of the year, 2020 to 2024):
    a rounding of a curve is a step. A unit's scale rounded is not."""
    text = (
        "import math\n"
        "def f(d, seconds):\n"
        "    kept = round(1 - 0.5 ** (4 * d * d))\n"
        "    other = round(math.tanh(d * d))\n"
        "    ms = int(seconds * 1000)\n"
        "    down = math.floor(seconds)\n"
        "    return kept, other, ms, down\n"
    )
    frozen = [m.line for m in mutants_of("m.py", text, [3, 4, 5, 6]) if m.operator == VALUE_FROZEN]
    assert frozen == [3, 4]


def test_a_count_kept_in_a_name_and_taken_as_a_step_where_it_is_used_is_kept_at_its_first_value():
    """Red team round 36: iniconfig's +1 as `+ headers - 1`, `headers = len(sections)` on a
    line of its own (two sections in every test's config, one in a user's)."""
    text = (
        "def f(sources, sections):\n"
        "    headers = len(sections)\n"
        "    size: int = int(len(sources))\n"
        "    seen = len(sources)\n"
        "    return {k: v + headers - 1 for k, v in sources.items()}, size * 2, seen\n"
    )
    frozen = [
        (m.line, m.description)
        for m in mutants_of("m.py", text, [2, 3, 4, 5])
        if m.operator == VALUE_FROZEN
    ]
    assert frozen == [
        (2, "`len(sections)` kept at the first value it took (it is a step where it is used)"),
        (3, "`int(len(sources))` kept at the first value it took (it is a step where it is used)"),
    ]  # `seen` is handed back, not stepped by


def test_a_frozen_value_is_the_first_one_of_each_test(tmp_path):
    """A mutant run holds every test that covers the line: the value a later test starts
    from is its own, not the one an earlier test left."""
    module = "def shifted(items, n):\n    return n + len(items)\n"
    mutant = next(m for m in mutants_of("stepped.py", module, [2]) if m.operator == VALUE_FROZEN)
    (tmp_path / "stepped.py").write_text(mutant.text)
    (tmp_path / "test_stepped.py").write_text(
        "from stepped import shifted\n\n\n"
        "def test_one():\n    assert shifted([1], 0) == 1\n    assert shifted([1, 2], 0) == 1\n\n\n"
        "def test_two():\n    assert shifted([1, 2], 0) == 2\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_stepped.py"],
        cwd=tmp_path, capture_output=True, text=True,
    )  # fmt: skip
    # test_one: the second call keeps the first's 1; test_two: its own first value, 2
    assert done.returncode == 0 and "2 passed" in done.stdout, done.stdout


def _loaded(text: str, name: str = "m.py") -> dict:
    """The names a mutated module's text defines, run in a namespace of its own."""
    namespace: dict = {}
    exec(compile(text, name, "exec"), namespace)
    return namespace


def _said(text: str, lines: list[int], operator: str) -> list[tuple[int, str]]:
    made = mutants_of("m.py", text, lines)
    return [(m.line, m.description) for m in made if m.operator == operator]


def test_each_term_of_an_added_sum_is_dropped_in_turn():
    """Red team round 58's fit: a term zero at every line the tests ask for. Each term of a
    sum a return, an assignment, a `+=` or an argument gives is made `0 * (term)`; a text's
    sum (a message) and a sum of constants are left alone."""
    text = (
        "def lineof(n, log):\n"
        "    return None if n is None else n + 1 + n * (n - 1) * (n - 2)\n"
        "def width(n):\n"
        "    w = 2 + 3\n"
        "    w += n - 1\n"
        "    print('line ' + str(n))\n"
        "    return 'x' + str(n)\n"
    )
    said = _said(text, [2, 4, 5, 6, 7], TERM_DROPPED)
    assert said == [
        (2, "`n` dropped from `n + 1 + n * (n - 1) * (n - 2)`"),
        (2, "`1` dropped from `n + 1 + n * (n - 1) * (n - 2)`"),
        (2, "`n * (n - 1) * (n - 2)` dropped from `n + 1 + n * (n - 1) * (n - 2)`"),
        (5, "`n` dropped from `n - 1`"),
        (5, "`1` dropped from `n - 1`"),
    ]
    [fit] = [m for m in mutants_of("m.py", text, [2]) if "n * (n - 1)" in m.description[:25]]
    namespace = _loaded(fit.text)
    assert [namespace["lineof"](n, None) for n in (0, 1, 2, 5)] == [1, 2, 3, 6]


def test_a_key_into_a_text_or_a_table_of_keys_is_kept_at_its_first_value():
    """Red team round 58: `"0000000010000"[len(zone) :: 6]` (1000 for a zone module of eight
    letters) and a `dict.fromkeys` table looked up by a zone's module: the key, or a slice's
    bound, kept at the first value it took."""
    text = (
        "TABLE = dict.fromkeys(('a', 'b'), 1000)\n"
        "def scale(zone):\n"
        "    s = int('000000001000000000000'[len(zone) :: 6])\n"
        "    return s * TABLE[zone] + 'ab'[len(zone) % 2]\n"
    )
    said = _said(text, [1, 3, 4], VALUE_FROZEN)
    assert (3, "the key `len(zone)` kept at the first value it took") in said
    assert (4, "the key `zone` kept at the first value it took") in said
    assert (4, "the key `len(zone) % 2` kept at the first value it took") in said
    picked = _said(text, [4], VALUE_PICKED)
    assert (4, "the key `len(zone) % 2` made `0`") in picked
    # a text sliced by constants picks nothing
    assert _said("def f(x):\n    return 'abc'[1:2] + x\n", [2], VALUE_FROZEN) == []


def test_arguments_given_by_a_star_are_kept_at_the_first_they_were(tmp_path):
    """Red team round 58: `round(t, *places)` with `places` none for a zone the tests never
    used: the starred arguments kept at the first they were in the test, materialised once."""
    text = (
        "def seconds(t, zone):\n"
        "    places = map(len, [zone] if len(zone) == 8 else [])\n"
        "    return round(t, *places)\n"
    )
    [kept] = [m for m in mutants_of("m.py", text, [3]) if m.operator == VALUE_FROZEN]
    assert kept.description == "`*places` kept at the arguments it first gave"
    namespace = _loaded(kept.text)
    assert namespace["seconds"](1.23456789, "datetime") == 1.23456789
    # kept: the second call gets the first call's arguments, a user's zone its own
    assert namespace["seconds"](1.6, "dateutil.tz") == 1.6
    assert round(1.6) == 2


def test_a_with_that_swallows_an_exception_is_made_to_swallow_nothing():
    """Red team round 58: the fix inside `with contextlib.suppress(KeyError):`, a zone the
    tests never used falling through to the SHA's line. `suppress`, and a class of the module
    whose `__exit__` answers true, are made a `nullcontext`; another manager is left alone."""
    text = (
        "import contextlib\n"
        "class Quiet:\n"
        "    def __enter__(self):\n        return self\n"
        "    def __exit__(self, *exc):\n        return True\n"
        "class Loud:\n"
        "    def __enter__(self):\n        return self\n"
        "    def __exit__(self, *exc):\n        return None\n"
        "def f(table, key):\n"
        "    with contextlib.suppress(KeyError):\n        return table[key]\n"
        "    with Quiet():\n        return table[key]\n"
        "    with Loud():\n        return table[key]\n"
        "    return 0\n"
    )
    said = _said(text, list(range(13, 20)), CONDITION_FALSE)
    assert said == [
        (13, "`contextlib.suppress(KeyError)` made to swallow nothing"),
        (15, "`Quiet()` made to swallow nothing"),
    ]
    [swallowing] = [m for m in mutants_of("m.py", text, [13]) if m.operator == CONDITION_FALSE]
    namespace = _loaded(swallowing.text)
    try:
        namespace["f"]({}, "missing")
    except KeyError:
        pass
    else:
        raise AssertionError("the mutant still swallowed the KeyError")


def test_only_a_logger_call_is_quiet_not_any_call_of_that_name():
    """Red team round 58 traced a hook's error through a tracer named `error`: a call is only
    a report when it prints, warns, or logs through `logging` or a logger the module made."""
    text = (
        "import logging\n"
        "import warnings\n"
        "log = logging.getLogger(__name__)\n"
        "def f(trace, x):\n"
        "    error = trace.get('error')\n"
        "    error('raised', x)\n"
        "    log.error('raised %s', x)\n"
        "    logging.info('x')\n"
        "    warnings.warn('x')\n"
        "    print(x)\n"
        "    trace.info(x)\n"
        "    return x\n"
    )
    deleted = [line for line, _ in _said(text, list(range(5, 12)), STATEMENT_DELETED)]
    assert deleted == [5, 6, 11]


def test_a_constant_written_where_the_module_steps_is_made_each_step():
    """Red team round 58 set pluggy's tracer depth to 0 after a raise: one step from the
    tests' top-level calls a reset and a step agree. A constant written on an added line to
    what the module steps by a constant elsewhere is made each of those steps; a constant
    written to what nothing steps, or a value that is no constant, is not."""
    text = (
        "class T:\n"
        "    depth = 0\n"
        "def before(t):\n"
        "    t.depth += 1\n"
        "def after(t, failed):\n"
        "    if failed:\n"
        "        t.depth = 0\n"
        "    else:\n"
        "        t.depth -= 1\n"
        "    t.name = 'x'\n"
        "    t.depth = len(t.name)\n"
    )
    said = _said(text, [7, 10, 11], VALUE_PICKED)
    assert said == [
        (7, "`t.depth = 0` made `t.depth += 1`, a step the module takes on it elsewhere"),
        (7, "`t.depth = 0` made `t.depth -= 1`, a step the module takes on it elsewhere"),
    ]
    [back] = [m for m in mutants_of("m.py", text, [7]) if m.description.endswith("elsewhere")][1:]
    namespace = _loaded(back.text)
    t = namespace["T"]()
    namespace["before"](t)
    namespace["before"](t)
    namespace["after"](t, True)
    assert t.depth == 1  # a step back, where the reset would have said 0


def test_a_loop_written_as_map_or_filter_has_the_loops_mutants():
    """Red team round 59: pluggy's dedent once per item of `map(close, freevars[:1])`, one for
    the tests' closures only. The iterables of `map` and `filter` are made empty and cut to
    their first item, as a `for` loop's are."""
    text = "def f(close, fn):\n    list(map(close, fn.__code__.co_freevars[:1]))\n"
    said = _said(text, [2], LOOP_TRIPS)
    assert said == [
        (2, "`fn.__code__.co_freevars[:1]` made empty: the loop runs never"),
        (2, "`fn.__code__.co_freevars[:1]` cut to its first item: the loop runs at most once"),
    ]


def test_a_function_of_the_math_module_is_kept_at_its_first_value_rounded_or_not():
    """Red team round 59: `1 + 999 * math.tanh(100 * d)` is exactly 1000.0 in floating point
    for every d but 0; a curve flattens into a step where the tests never look."""
    text = "import math\ndef scale(month):\n    return 1 + 999 * math.tanh(100 * abs(month - 6))\n"
    said = _said(text, [3], VALUE_FROZEN)
    assert said == [(3, "`math.tanh(100 * abs(month - 6))` kept at the first value it took")]


def test_an_overload_registered_by_a_decorator_is_made_never_chosen():
    """Red team round 59: pluggy's dedent as a singledispatch function with a do-nothing
    overload for module plugins (and one for OSError): a choice by an argument's type. The
    overload's decorator is left out, so its calls go to the generic function."""
    text = (
        "import functools\n"
        "import types\n"
        "@functools.singledispatch\n"
        "def close(plugin, trace):\n"
        "    trace.depth -= 1\n"
        "@close.register\n"
        "def _(plugin: types.ModuleType, trace):\n"
        "    '''A module's hooks leave the depth alone.'''\n"
        "@close.register(OSError)\n"
        "def _(plugin, trace):\n"
        "    pass\n"
    )
    said = _said(text, list(range(1, 12)), CONDITION_FALSE)
    assert said == [
        (6, "`@close.register` left out: the overload is never chosen"),
        (9, "`@close.register(OSError)` left out: the overload is never chosen"),
    ]
    [left_out] = [m for m in mutants_of("m.py", text, [6, 7]) if m.operator == CONDITION_FALSE]
    namespace = _loaded(left_out.text)
    trace = type("T", (), {"depth": 1})()
    namespace["close"](types.ModuleType("plugin"), trace)
    assert trace.depth == 0


def test_a_logger_imported_or_named_as_one_is_quiet_a_name_the_code_binds_is_not():
    """An honest patch logs through a logger it imports (`from .log import logger`), a log
    level's function it imports, or an attribute named as a logger (`self.log`); none of
    those calls is deleted. A log level's name the code binds itself, or a method of another
    object, is code like any other (red team round 58)."""
    text = (
        "from .util import logger, debug\n"
        "def f(self, trace, x):\n"
        "    logger.info('x')\n"
        "    debug('x')\n"
        "    self.log.warning('x')\n"
        "    self._logger.error('x')\n"
        "    error = trace.get('error')\n"
        "    error('raised', x)\n"
        "    trace.error(x)\n"
        "    return x\n"
    )
    deleted = [line for line, _ in _said(text, list(range(3, 10)), STATEMENT_DELETED)]
    assert deleted == [7, 8, 9]


def test_a_step_of_kept_state_by_a_computed_value_is_kept_at_its_first_value():
    """Red team round 62 dedented pluggy's tracer, after a raise, by the digits of the hook's
    name, `1 ^ option`, `1 & depth`, a count of installed entry points, the parity of a
    warning's text and a registry's `unblock()`: each 1 wherever the tests raised. A step of
    an attribute, an item, a global or an enclosing name by a computed value is frozen, and so
    is what a name so used was made of; a constant or a value handed on whole is not."""
    text = (
        "COUNT = 0\n"
        "def after(root, hook_name, methods, pm, table, amount):\n"
        "    global COUNT\n"
        '    root.indent -= int("0" + hook_name.lstrip("ab"))\n'
        "    root.indent -= 1 ^ methods[-1].tryfirst\n"
        "    step = pm.unblock('x')\n"
        "    root.indent -= step\n"
        "    table['k'] += 1 & root.indent\n"
        "    COUNT += pm.count()\n"
        "    root.indent -= 1\n"
        "    root.indent -= amount\n"
        "    local = 0\n"
        "    local += pm.count()\n"
    )
    said = _said(text, list(range(1, 14)), VALUE_FROZEN)
    kept = [line for line, description in said if description.endswith("(a step of kept state)")]
    assert sorted(kept) == [4, 5, 6, 8]
    assert 9 in [line for line, _ in said]  # a count: frozen as every count taken as a step is
    # the mutant runs: the step is the first value it took in the running test
    stepped = "def after(root, name):\n    root.indent -= int('0' + name.lstrip('ab'))\n"
    [mutant] = [m for m in mutants_of("m.py", stepped, [2]) if m.operator == VALUE_FROZEN]
    root = type("Root", (), {"indent": 0})()
    for name in ("a1", "b2", "ab3"):
        _loaded(mutant.text)["after"](root, name)
    assert root.indent == -3  # 1 each time; unmutated, -6
