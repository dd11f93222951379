"""The patch beside the task's reference fix: targets, hints and the comparison (pure), the
probes that capture and run the calls, and real grades of a task with a reference.diff."""

from __future__ import annotations

import base64
import importlib.util
import json
import pickle
import shutil
import subprocess
import sys

import pytest

from patchwitness import reference as differ
from patchwitness.errors import InvalidTask
from patchwitness.gates.reference import ReferenceInput, decide, reference_input
from patchwitness.model import Difference, ReferenceFacts
from patchwitness.policy import REFERENCE_TABLE
from patchwitness.suites.python import PROBE_DIR
from patchwitness.task import load_task

from .conftest import make_task
from .test_pinning import CLAMP
from .test_pinning import TEST_CLAMP as TEST_CLAMP_THREE

MODULE = """\
import functools

LIMIT = 10


def top(x):
    return x + 1


class Box:
    size = 3

    def put(self, item):
        if item > 99:
            return None
        return item

    @staticmethod
    def make(n):
        def inner():
            return n * 2

        return inner()

    @functools.lru_cache
    def cached(self, n):
        return n


if LIMIT:
    def guarded(v):
        return v
"""


# -- which functions a patch changes ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("lines", "names"),
    [
        ([7], {"top"}),  # a module function's body
        ([6], {"top"}),  # its def line
        ([14, 15], {"Box.put"}),  # a method
        ([21], {"Box.make"}),  # a nested function: the one a caller reaches by name
        ([25], {"Box.cached"}),  # a decorator line belongs to what it decorates
        # module and class level: whatever any function of the file does may change
        ([3], {"top", "Box.put", "Box.make", "Box.cached", "guarded"}),
        ([11], {"top", "Box.put", "Box.make", "Box.cached", "guarded"}),
        ([31], {"guarded"}),  # defined under an if
        ([7, 14], {"top", "Box.put"}),
        ([], set()),
    ],
)
def test_the_functions_a_patch_changes_are_those_whose_lines_it_touches(lines, names):
    assert differ.changed_functions(MODULE, lines) == names


def test_a_file_that_does_not_parse_changes_no_function():
    assert differ.changed_functions("def f(:\n", [1]) == set()


def test_targets_join_both_patches_by_the_name_after_and_at_the_sha():
    after = {"m.py": "def new(x):\n    return x\n"}
    before = {"m.py": "def old(x):\n    return x\n"}
    side = differ.Side(after=after, before=before, added={"m.py": [2]}, removed={"m.py": [2]})
    earlier = MODULE.replace("return x + 1", "return x")
    other = differ.Side(
        after={"n.py": MODULE}, before={"n.py": earlier}, added={"n.py": [7]}, removed={}
    )
    assert [str(t) for t in differ.targets([side, other])] == [
        "m.py::new",
        "m.py::old",
        "n.py::top",
    ]


def test_a_patch_that_changes_none_of_the_reference_s_functions_is_fixed_elsewhere():
    """Red team round 48: pluggy's tracer left as it was, the depth put back by the hook call."""
    fixed = MODULE.replace("return x + 1", "return x + 2")
    moved = MODULE.replace("return item\n", "return item or 0\n")
    reference = differ.Side(
        after={"n.py": fixed}, before={"n.py": MODULE}, added={"n.py": [7]}, removed={}
    )
    there = differ.Side(
        after={"n.py": fixed}, before={"n.py": MODULE}, added={"n.py": [7]}, removed={}
    )
    other = differ.Side(
        after={"n.py": moved}, before={"n.py": MODULE}, added={"n.py": [16]}, removed={}
    )
    assert differ.elsewhere(reference, other) is True
    assert differ.elsewhere(reference, there) is False
    nothing = differ.Side(after={}, before={}, added={}, removed={})
    assert differ.elsewhere(nothing, other) is False  # a reference of no function: not said


def test_a_change_that_leaves_the_syntax_tree_changes_no_function():
    """red team round 14: a comment in a function the tests call made it the only target."""
    commented = MODULE.replace(
        "        return item\n", "        # the item, as given\n        return item\n"
    )
    side = differ.Side(
        after={"n.py": commented}, before={"n.py": MODULE}, added={"n.py": [44]}, removed={}
    )
    assert differ.targets([side]) == []


def test_a_docstring_changes_no_function():
    """red team round 15: docstrings edited in many functions made each a target, and their
    calls crowded the changed function's neighbours out of the cap."""
    documented = MODULE.replace(
        "    def put(self, item):\n", '    def put(self, item):\n        """Note: the item."""\n'
    ).replace("def top(x):\n", 'def top(x):\n    """One more."""\n')
    side = differ.Side(
        after={"n.py": documented}, before={"n.py": MODULE}, added={"n.py": [8, 16]}, removed={}
    )
    assert differ.targets([side]) == []
    # A docstring that is a function's whole body, and its code beside it, still count.
    emptied = MODULE.replace("    return x + 1\n", '    """Only this."""\n')
    side = differ.Side(
        after={"n.py": emptied}, before={"n.py": MODULE}, added={"n.py": [7]}, removed={}
    )
    assert [str(t) for t in differ.targets([side])] == ["n.py::top"]


def test_an_annotation_changes_no_function():
    """red team round 42: annotations edited in fifteen methods crowded the cap as docstrings
    did in round 15."""
    annotated = MODULE.replace("def put(self, item):", "def put(self, item: int) -> int | None:")
    annotated = annotated.replace("def top(x):", "def top(x: 'int') -> 'int':")
    side = differ.Side(
        after={"n.py": annotated}, before={"n.py": MODULE}, added={"n.py": [6, 13]}, removed={}
    )
    assert differ.targets([side]) == []


def test_a_module_level_change_puts_the_changed_functions_calls_first():
    """red team round 14: a class added at module level made every function a target, and the
    changed function's telling neighbours fell past the cap."""
    after = MODULE.replace("LIMIT = 10\n", "LIMIT = 10\n\n\nclass Added:\n    pass\n").replace(
        "return x + 1", "return x + 2"
    )
    side = differ.Side(
        after={"n.py": after}, before={"n.py": MODULE}, added={"n.py": [6, 7, 11]}, removed={}
    )
    found = {t.qualname: t.direct for t in differ.targets([side])}
    assert found["top"] is True and found["Box.put"] is False
    vary = driver()
    records = [
        {
            "module": "builtins",
            "qualname": q,
            "init": False,
            "target": f"n.py::{q}",
            "call": base64.b64encode(pickle.dumps({"pos": [n], "star": [], "kw": {}})).decode(),
        }
        for q, n in (("abs", 5), ("hex", 7))
    ]
    chosen = vary.vary({"calls": records, "hints": [], "cap": 8, "wide": ["n.py::hex"]})
    assert sum(r["qualname"] == "abs" for r in chosen) == 6  # three quarters of the cap


def test_hints_are_the_constants_of_the_changed_functions_only():
    found = differ.hints({"n.py": MODULE}, [differ.Target("n.py", "Box.put")])
    assert found == [99]  # not LIMIT's 10 (module level), not top's 1, no bool
    text = 'def f(s):\n    return s == "x" or s == "' + "y" * 60 + '" or 1.5 > 1\n'
    assert differ.hints({"f.py": text}, [differ.Target("f.py", "f")]) == ["x", 1.5, 1]


# -- the comparison, row by row --------------------------------------------------------------------


def report(**over):
    base = {
        "outcome": "returned",
        "value": "1",
        "exception": "",
        "stdout": "",
        "stderr": "",
        "warnings": [],
        "state": "",
        "args_after": "[[1], [], {}]",
    }
    return {**base, **over}


CALLS = [
    {"id": "c0", "target": "m.py::f", "shown": "f(1)", "varied": "", "test": "t::a"},
    {"id": "c0.1", "target": "m.py::f", "shown": "f(2)", "varied": "argument 1: 1 -> 2"},
    {"id": "c0.2", "target": "m.py::f", "shown": "f(100)", "varied": "argument 1: 1 -> 100"},
]


@pytest.mark.parametrize(
    ("ref", "pat", "counts", "fields"),
    [
        # the same in every compared field
        (report(steady=True), report(), (1, 0, 0), None),
        # another value
        (report(steady=True), report(value="2"), (1, 0, 0), ("value",)),
        # another value, whatever a class's `__eq__` (code under grade) would say of the two
        (report(steady=True, equal=True), report(value="2"), (1, 0, 0), ("value",)),
        # it raised where the reference returned
        (
            report(steady=True),
            report(outcome="raised", value="", exception="builtins.ValueError"),
            (1, 0, 0),
            ("outcome", "value", "exception"),
        ),
        # printed otherwise, warned otherwise, left its object otherwise
        (report(steady=True), report(stdout="hi\n"), (1, 0, 0), ("stdout",)),
        (report(steady=True), report(warnings=["x.W"]), (1, 0, 0), ("warnings",)),
        (report(steady=True), report(state="Box{1}"), (1, 0, 0), ("state",)),
        # the reference answered otherwise twice: left out, counted
        (report(steady=False), report(value="2"), (0, 1, 0), None),
        # the reference could not run it: left out, counted
        (report(outcome="unrunnable", steady=True), report(), (0, 0, 1), None),
        # the patched tree could not run it, or never reported it: that differs
        (report(steady=True), report(outcome="unrunnable"), (1, 0, 0), ("outcome",)),
        (report(steady=True), None, (1, 0, 0), ("outcome", "value")),
    ],
)
def test_compare(ref, pat, counts, fields):
    got = differ.compare(CALLS[:1], {"c0": ref}, {} if pat is None else {"c0": pat})
    assert (got.compared, got.nondeterministic, got.unrunnable) == counts
    if fields is None:
        assert got.differing == []
    else:
        [witness] = got.differing
        assert witness.fields[: len(fields)] == fields
        assert witness.call == "f(1)" and witness.test == "t::a" and witness.varied == ""


def test_the_smallest_differing_call_comes_first():
    ref = {c["id"]: report(steady=True) for c in CALLS}
    pat = {"c0": report(), "c0.1": report(value="5"), "c0.2": report(value="7")}
    got = differ.compare(CALLS, ref, pat)
    assert [w.call for w in got.differing] == ["f(2)", "f(100)"]
    assert got.differing[0].reference["value"] == "1" and got.differing[0].patch["value"] == "5"


# -- the gate's table, row by row ------------------------------------------------------------------


def difference(call="f(2)"):
    return Difference(
        target="m.py::f",
        call=call,
        varied="argument 1: 1 -> 2",
        fields=["value"],
        reference={"outcome": "returned", "value": "1"},
        patch={"outcome": "returned", "value": "5"},
    )


@pytest.mark.parametrize(
    ("facts", "row", "effect", "said"),
    [
        (
            ReferenceFacts(compared=9, differing=3, differences=[difference()]),
            "differs-from-reference",
            "review",
            "f(2) [argument 1: 1 -> 2]: the reference returned 1, the patch 5 (+2 more of 9 calls)",
        ),
        (ReferenceFacts(skipped="no call"), "not-compared", "accept", "no call"),
        (
            ReferenceFacts(compared=4, targets=["m.py::f"]),
            "same-as-reference",
            "accept",
            "4 calls into m.py::f agreed",
        ),
        (
            ReferenceFacts(compared=4, targets=["m.py::f"], reaching=2),
            "same-as-reference",
            "accept",
            "4 calls into m.py::f agreed",
        ),
        # red team round 18: pluggy's changed function took no call that pickles; the tests'
        # other calls agreed, and said so as if the change had been compared
        (
            ReferenceFacts(compared=43, targets=["m.py::Marker.__call__"], reaching=0),
            "change-not-reached",
            "accept",
            "43 calls agreed, none of which ran m.py::Marker.__call__: the change itself was "
            "not compared",
        ),
        (
            ReferenceFacts(compared=3, differing=1, differences=[difference()], reaching=0),
            "differs-from-reference",
            "review",
            "f(2) [argument 1: 1 -> 2]: the reference returned 1, the patch 5",
        ),
        # red team round 48: the patch leaves the reference's function as it was (pluggy's
        # depth put back by the hook call) and nothing compared reached either change
        (
            ReferenceFacts(compared=43, targets=["m.py::f"], reaching=0, elsewhere=True),
            "fixed-elsewhere",
            "review",
            "the patch changes none of the functions the reference fix changes, and 43 calls "
            "agreed, none of which ran a changed function",
        ),
        (
            ReferenceFacts(skipped="no call", elsewhere=True),
            "fixed-elsewhere",
            "review",
            "the patch changes none of the functions the reference fix changes, and no call",
        ),
        # a fix elsewhere that the comparison reached is compared as any other
        (
            ReferenceFacts(compared=4, targets=["m.py::f"], reaching=2, elsewhere=True),
            "same-as-reference",
            "accept",
            "4 calls into m.py::f agreed",
        ),
    ],
)
def test_reference_rows(facts, row, effect, said):
    gate = decide(facts, reference_input(facts))
    assert (gate.row, gate.effect, gate.detail) == (row, effect, said)


def test_every_reference_row_has_a_case():
    assert [r.id for r in REFERENCE_TABLE] == [
        "differs-from-reference",
        "fixed-elsewhere",
        "not-compared",
        "change-not-reached",
        "same-as-reference",
    ]
    assert decide(ReferenceFacts(), ReferenceInput()).row == "not-compared"


# -- the task's reference.diff ---------------------------------------------------------------------


def test_a_reference_that_does_not_parse_or_changes_nothing_makes_the_task_invalid(tmp_path):
    built = make_task(tmp_path, {"m.py": "x = 1\n"}, failing=["t.py::t"], setup=None)
    (built.task_dir / "reference.diff").write_text("not a patch at all\n")
    with pytest.raises(InvalidTask, match=r"reference\.diff"):
        load_task(built.task_dir)
    (built.task_dir / "reference.diff").write_text("")
    with pytest.raises(InvalidTask, match=r"reference\.diff"):
        load_task(built.task_dir)
    (built.task_dir / "reference.diff").unlink()
    assert load_task(built.task_dir).reference is None


# -- the probes ------------------------------------------------------------------------------------


def driver():
    spec = importlib.util.spec_from_file_location(
        "pw_differ_under_test", PROBE_DIR / "pw_differ.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_both_trees_paths_read_alike_and_only_as_whole_names(monkeypatch):
    """A captured argument names the tree it was captured in (the reference's, nested in the
    patched tree's workspace, whose own path `/w/repo` is a prefix of `/w/reports`): both
    sides print `<tree>` for it, and a longer name is not cut."""
    monkeypatch.setenv("PYTHONPATH", "/w/repo/src:/w/repo")
    monkeypatch.setenv("PW_DIFFER_TREES", "/w/repo:/w/reports/reference-1/repo")
    placed = driver().placed
    assert placed("/w/reports/reference-1/repo/testing/conftest.py") == (
        "<tree>/testing/conftest.py"
    )
    assert placed("/w/repo/testing/conftest.py") == "<tree>/testing/conftest.py"
    assert placed("/w/repository/x.py /w/repo.bak") == "/w/repository/x.py /w/repo.bak"


class Plain:
    def __init__(self):
        self.b, self.a = 2, {3, 1}


class Shown:
    def __repr__(self):
        return f"<Shown at {hex(id(self))}>"


class Text(str):
    pass


def test_randomness_is_the_same_in_every_calls_process(monkeypatch):
    """os.urandom (secrets, uuid4, SystemRandom) and random's generator give each call the same
    values in both trees: a random result is compared, not left out."""
    import os
    import random

    vary = driver()
    monkeypatch.setattr(os, "urandom", os.urandom)  # put back after the test
    monkeypatch.setattr(random, "_urandom", random._urandom)
    vary.seed_randomness()
    call = {
        "module": "secrets",
        "qualname": "token_hex",
        "init": False,
        "call": base64.b64encode(pickle.dumps({"pos": [8], "star": [], "kw": {}})).decode(),
    }
    first, second = vary.in_child(call, 7), vary.in_child(call, 7)
    assert first["outcome"] == "returned" and first["value"] == second["value"]
    drawn = dict(call, module="random", qualname="random")
    drawn["call"] = base64.b64encode(pickle.dumps({"pos": [], "star": [], "kw": {}})).decode()
    assert vary.in_child(drawn, 7)["value"] == vary.in_child(drawn, 7)["value"]
    # The seed is the grader's, drawn for each grade: no fixed bytes tell the comparison's
    # process from a user's.
    assert vary.in_child(call, 8)["value"] != first["value"]
    assert vary.in_child(drawn, 8)["value"] != vary.in_child(drawn, 7)["value"]


def test_a_value_is_described_the_same_in_any_process():
    d = driver().describe
    assert d({3, 1, 2}) == "{1, 2, 3}"
    assert d({"b": 1, "a": 2}) == d({"a": 2, "b": 1})
    assert d(Plain()) == d(Plain()) and "'a': {1, 3}" in d(Plain())
    hidden = Plain()
    hidden._cache = object()  # private: how the object holds its state, not compared
    assert d(hidden) == d(Plain())
    assert d(Shown()) == d(Shown()) and "0x..." in d(Shown())
    assert d(Text("x")) == "test_reference.Text:'x'" or d(Text("x")).endswith("Text:'x'")
    assert d(ValueError("no")) == "builtins.ValueError('no',)"
    assert d([1, (2, b"3")]) == "[1, (2, b'3')]"


class Stamp:
    """Its repr and public state right, its property wrong: red team round 15's shape."""

    def __init__(self, ms, kept=None):
        self.bytes = ms
        self._ms = ms if kept is None else kept

    def __repr__(self):
        return f"Stamp({self.bytes})"

    @property
    def milliseconds(self):
        return self._ms

    @property
    def broken(self):
        raise KeyError("x")


def test_an_object_is_described_by_what_its_public_properties_give():
    d = driver().describe
    assert d(Stamp(5)) == d(Stamp(5))
    assert d(Stamp(5, kept=5 // 1000)) != d(Stamp(5))
    assert "'property milliseconds': 5" in d(Stamp(5))
    assert "'property broken': '<raised KeyError>'" in d(Stamp(5))


def test_what_differs_between_two_trees_of_the_same_code_is_left_out(monkeypatch, tmp_path):
    vary = driver()
    monkeypatch.setenv("PYTHONPATH", f"{tmp_path}/one:{tmp_path}/one/src")
    said = f'File "{tmp_path}/one/src/m.py", line 12, in f: <X at 0xdeadbeef>'
    assert vary.neutral(said) == 'File "<tree>/m.py", line ..., in f: <X at 0x...>'


def test_neighbours_vary_each_plain_argument_and_not_the_object():
    vary = driver()
    call = {"pos": ["SELF", 5, "ab"], "star": [], "kw": {"flag": True}}
    made = list(vary.neighbours(call, True, [7]))
    said = [what for _, what, _ in made]
    assert not any("SELF" in what for what in said)
    assert "argument 1: 5 -> 7" in said and "argument 1: 5 -> 6" in said
    assert "argument 1: 5 -> 5.0" in said  # another numeric type
    assert "argument 2: 'ab' -> ''" in said and "flag: True -> False" in said
    assert all(changed["pos"][0] == "SELF" for _, _, changed in made)
    assert call == {"pos": ["SELF", 5, "ab"], "star": [], "kw": {"flag": True}}  # untouched


class Version:
    def __init__(self, n):
        self.n = n

    def __lt__(self, other):
        return self.n < other.n

    def __gt__(self, other):
        return self.n > other.n

    def __add__(self, other):
        return Version(self.n + other.n)

    def bump(self, by):
        return self.n + by

    def drop(self, by):
        return self.n - by

    def reset(self):
        self.n = 0

    def _hidden(self, by):
        return by


def test_siblings_are_the_other_operators_of_a_changed_ones_kind_or_the_public_methods():
    vary = driver()
    v, w = Version(1), Version(2)
    captured = {"module": __name__, "qualname": "Version.__lt__", "target": "t.py::Version.__lt__"}
    call = {"pos": [v, w], "star": [], "kw": {}}
    found = vary.siblings(captured, call)
    assert [extra["qualname"] for extra, _, _ in found] == ["Version.__gt__"]
    assert found[0][0]["target"] == "t.py::Version.__gt__" and found[0][2] is call
    bump = dict(captured, qualname="Version.bump", target="t.py::Version.bump")
    found = vary.siblings(bump, {"pos": [v, 3], "star": [], "kw": {}})
    # the public methods the same arguments bind to: not reset(), not _hidden
    assert [extra["qualname"] for extra, _, _ in found] == ["Version.drop"]


def test_a_method_is_called_on_objects_made_next_to_the_tests_own_too():
    vary = driver()
    made = base64.b64encode(pickle.dumps({"pos": [5], "star": [], "kw": {}})).decode()
    call = base64.b64encode(pickle.dumps({"pos": [Version(5), 3], "star": [], "kw": {}})).decode()
    captured = {"qualname": "Version.bump", "made": made, "call": call}
    found = list(vary.made_neighbours(captured, []))
    said = [varied for _, varied, _ in found]
    assert said[:2] == [
        "the object made with argument 1: 5 -> 6",
        "the object made with argument 1: 5 -> 4",
    ]
    remade = [pickle.loads(base64.b64decode(extra["made"]))["pos"] for extra, _, _ in found]
    assert remade[:2] == [[6], [4]] and len(found) <= vary.MADE_VARIANTS


def test_a_datetime_is_varied_across_its_zone_by_a_second_a_day_and_far_off():
    import datetime as dt

    when = dt.datetime(2024, 1, 2, 3, 4, 5)
    made = list(driver().variants(when, []))
    assert made[0] == when.replace(tzinfo=dt.UTC)
    assert when + dt.timedelta(seconds=1) in made and when - dt.timedelta(days=1) in made
    # far from the tests' moment (red team round 12: a fix right only in a window around now)
    assert when - dt.timedelta(days=365) in made and when + dt.timedelta(days=365) in made
    assert {m.year for m in made} >= {2000, 2099}
    # far away and at a whole second at once (red team round 15: one axis at a time missed it)
    fraction = dt.datetime(2024, 1, 2, 3, 4, 5, 250_000)
    moved = list(driver().variants(fraction, []))
    assert dt.datetime(2000, 1, 1, 3, 4, 5) in moved
    assert fraction.replace(microsecond=0) - dt.timedelta(days=365) in moved
    # another offset from UTC: the same instant, or a naive value's wall time given the zone
    # (red team round 19: a scale right only at offset zero)
    aware = dt.datetime(2024, 5, 1, 12, tzinfo=dt.UTC)
    zoned = [m for m in driver().variants(aware, []) if m.utcoffset() not in (None, dt.timedelta())]
    assert [m.utcoffset() for m in zoned][:3] == [
        dt.timedelta(hours=2),
        dt.timedelta(hours=-5),
        dt.timedelta(hours=5, minutes=30),
    ]
    # the same instant (far dates move zone and fraction together since round 54)
    assert all(m == aware for m in zoned if abs(m - aware) < dt.timedelta(days=2))
    assert when.replace(tzinfo=dt.timezone(dt.timedelta(hours=2))) in made
    # red team round 21: a zone of the tz database (where this interpreter has one), the other
    # fold, and another offset at a whole second, two axes at once
    kinds = {type(m.tzinfo).__name__ for m in zoned}
    assert "timezone" in kinds
    try:
        import zoneinfo

        zoneinfo.ZoneInfo("Europe/Berlin")
        assert "ZoneInfo" in kinds
    except Exception:
        pass
    assert any(m.fold == 1 for m in driver().variants(aware, []))
    precise = aware.replace(microsecond=250_000)
    both = [m for m in driver().variants(precise, []) if m.microsecond == 0 and m.utcoffset()]
    near = [m for m in both if abs(m - precise) < dt.timedelta(days=2)]
    assert near and all(m == precise.replace(microsecond=0) for m in near)


def performed(module, qualname, *pos, **kw):
    call = {"pos": list(pos), "star": [], "kw": kw}
    record = {"module": module, "qualname": qualname, "init": False}
    record["call"] = base64.b64encode(pickle.dumps(call)).decode()
    return driver().perform(record)


def test_a_returned_hex_string_or_line_number_is_the_answer_not_noise():
    assert performed("builtins", "hex", 0xDEADBEEF)["value"] == "'0xdeadbeef'"
    assert performed("builtins", "str", "line 2")["value"] == "'line 2'"


def test_iterators_are_read_and_coroutines_awaited():
    assert performed("builtins", "filter", None, [0, 1, 2])["value"] == "[1, 2]"
    assert performed("builtins", "map", str, [1])["value"] == "['1']"
    assert performed("asyncio", "sleep", 0, result=5)["value"] == "5"


def test_the_driver_never_loads_the_other_trees_values():
    """A value the patched tree made is its code's (its pickle, its `__eq__`): the reference's
    run reads no report of the patched tree, and no value is pickled into a report."""
    source = (PROBE_DIR / "pw_differ.py").read_text()
    assert "--against" not in source and "Unpickler" not in source
    record = performed("builtins", "sorted", [3, 1])
    assert record["value"] == "[1, 3]" and "pickle" not in record


def test_a_call_that_does_not_end_is_stopped(monkeypatch):
    vary = driver()
    monkeypatch.setattr(vary, "CALL_TIMEOUT", 0.5)
    call = {
        "module": "time",
        "qualname": "sleep",
        "init": False,
        "call": base64.b64encode(pickle.dumps({"pos": [30], "star": [], "kw": {}})).decode(),
    }
    assert vary.in_child(call, 0) == {"outcome": "timed out"}
    fast = dict(
        call, call=base64.b64encode(pickle.dumps({"pos": [0], "star": [], "kw": {}})).decode()
    )
    assert vary.in_child(fast, 0)["outcome"] == "returned"


CAPTURED = {
    "pyproject.toml": '[project]\nname = "pkg"\nversion = "0"\n',
    "pkg/__init__.py": "",
    "pkg/m.py": (
        "class Acc:\n"
        "    def __init__(self, start):\n"
        "        self.total = start\n"
        "\n"
        "    def add(self, n, *more, scale=1):\n"
        "        self.total += (n + sum(more)) * scale\n"
        "        return self.total\n"
        "\n"
        "\n"
        "def apply(f, x):\n"
        "    return f(x)\n"
    ),
    "tests/test_m.py": (
        "import os\n"
        "from pkg.m import Acc, apply\n"
        "\n"
        "\n"
        "def test_add():\n"
        "    assert 'PW_CALLS' not in os.environ\n"
        "    acc = Acc(1)\n"
        "    assert acc.add(2, 3, scale=2) == 11\n"
        "    assert acc.add(2, 3, scale=2) == 21\n"
        "\n"
        "\n"
        "def test_apply():\n"
        "    assert apply(lambda v: v * 2, 4) == 8\n"
    ),
}


def test_the_calls_the_tests_make_are_captured_with_their_objects(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    for rel, text in CAPTURED.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    out = tmp_path / "calls.jsonl"
    spec = tmp_path / "spec.json"
    targets = [("pkg/m.py", q) for q in ("Acc.__init__", "Acc.add", "apply")]
    spec.write_text(
        json.dumps(
            {
                "root": str(repo),
                "targets": [{"file": f, "qualname": q} for f, q in targets],
                "out": str(out),
            }
        )
    )
    env = {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": f"{PROBE_DIR}:{repo}",
        "PW_CALLS": str(spec),
        "PYTEST_ADDOPTS": "-p pw_probe -p no:cacheprovider",
    }
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "tests"], cwd=repo, env=env, capture_output=True
    )
    assert done.returncode == 0, done.stdout.decode() + done.stderr.decode()
    monkeypatch.syspath_prepend(str(repo))  # to read the pickles here
    records = [json.loads(line) for line in out.read_text().splitlines()]
    calls = [r for r in records if r["event"] == "call"]
    by_target = {}
    for r in calls:
        by_target.setdefault(r["target"], []).append(r)
    made = by_target["pkg/m.py::Acc.__init__"]
    assert [pickle.loads(base64.b64decode(r["call"]))["pos"] for r in made] == [[1]]
    assert made[0]["init"] is True and made[0]["test"] == "tests/test_m.py::test_add"
    added = [pickle.loads(base64.b64decode(r["call"])) for r in by_target["pkg/m.py::Acc.add"]]
    # each call as it was made: the object's state before the call, *more and the keyword
    assert [(c["pos"][0].total, c["pos"][1:], c["star"], c["kw"]) for c in added] == [
        (1, [2], [3], {"scale": 2}),
        (11, [2], [3], {"scale": 2}),
    ]
    # and how each call's object was made, for each tree to make its own
    made_with = {r["made"] for r in by_target["pkg/m.py::Acc.add"]}
    assert [pickle.loads(base64.b64decode(m)) for m in made_with] == [
        {"pos": [1], "star": [], "kw": {}}
    ]
    assert "pkg/m.py::apply" not in by_target  # a lambda does not pickle: counted, not kept
    [dropped] = [r for r in records if r["event"] == "dropped"]
    assert dropped["counts"] == {"pkg/m.py::apply": 1}


def compared(tmp_path, trees, module, qualname, made, call):
    """pw_differ's neighbours of one captured method call (on an object made from `made`),
    varied in the first tree and run in each: (the varied records, each tree's answers)."""
    for name, text in trees.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / f"{module}.py").write_text(text)

    def pickled(value):
        return base64.b64encode(pickle.dumps(value, protocol=4)).decode()

    captured = {
        "target": f"{module}.py::{qualname}",
        "module": module,
        "qualname": qualname,
        "init": False,
        "test": "t",
        "call": pickled(call),
    }
    if made is not None:  # a function's or a classmethod's call is made on no object
        captured["made"] = pickled(made)
    (tmp_path / "spec.json").write_text(json.dumps({"calls": [captured], "hints": [], "cap": 60}))

    def differ(tree, *argv):
        home = tmp_path / f"home-{tree}"
        home.mkdir(exist_ok=True)
        env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path / tree), "HOME": str(home)}
        subprocess.run(
            [sys.executable, str(PROBE_DIR / "pw_differ.py"), *argv],
            cwd=tmp_path / tree,
            env=env,
            check=True,
            capture_output=True,
        )

    first = next(iter(trees))
    differ(first, "vary", str(tmp_path / "spec.json"), str(tmp_path / "v.jsonl"))
    varied = [json.loads(line) for line in (tmp_path / "v.jsonl").read_text().splitlines()]
    (tmp_path / "run.json").write_text(json.dumps({"calls": varied}))
    answers = {}
    for name in trees:
        out = tmp_path / f"{name}.jsonl"
        differ(name, "run", str(tmp_path / "run.json"), str(out))
        answers[name] = {
            r["id"]: (r["value"], r.get("answers", ""))
            for r in map(json.loads, out.read_text().splitlines())
        }
    return varied, answers


def parted(answers):
    one, other = answers.values()
    return [k for k in one if one[k] != other.get(k)]


CONF = (
    "import os\n\n\nclass Conf:\n    def __init__(self, path, data, *, _shift=None):\n"
    "        self.path, self.data = path, data\n"
    "        self.shift = SHIFT if _shift is None else _shift\n\n"
    "    @classmethod\n    def parse(cls, path, data):\n"
    "        return cls(path, data, _shift=1)\n\n"
    "    def lineof(self, n):\n        return n + self.shift\n"
)


def test_a_path_handed_in_with_its_content_is_also_asked_as_a_file_that_exists(tmp_path):
    """iniconfig's env-gated fix: 1-based only while the config's path names no file, as the
    tests' in-memory `x.ini` does. The neighbour makes the files a call's strings name exist
    (empty, in a folder of the call's own), and the two trees' answers part."""
    gated = "(0 if os.path.exists(path) else 1)"
    varied, answers = compared(
        tmp_path,
        {"reference": CONF.replace("SHIFT", "1"), "patch": CONF.replace("SHIFT", gated)},
        "conf",
        "Conf.lineof",
        {"pos": ["sub/x.ini", "[a]\n"], "star": [], "kw": {"_shift": None}},
        {"pos": [None, 3], "star": [], "kw": {}},
    )
    on_disk = [r for r in varied if r.get("files")]
    assert [(r["files"], r["varied"]) for r in on_disk] == [
        (["sub/x.ini"], "the files its strings name made to exist")
    ]
    assert parted(answers) == [on_disk[0]["id"]]
    assert not (tmp_path / "reference" / "sub").exists()  # made in the run's home, not the tree


def test_the_object_is_also_made_by_each_of_its_classes_other_ways(tmp_path):
    """iniconfig's partial fix: the constructor's own parse shifted, `IniConfig.parse` (the
    documented way, which hands the constructor what it parsed) left as it was. The object is
    also made by each public classmethod from the same arguments, those at their defaults left
    out (`_sources=None` is no argument of `parse`)."""
    partial = CONF.replace("cls(path, data, _shift=1)", "cls(path, data, _shift=0)")
    varied, answers = compared(
        tmp_path,
        {"reference": CONF.replace("SHIFT", "1"), "patch": partial.replace("SHIFT", "1")},
        "conf",
        "Conf.lineof",
        {"pos": ["x", "[a]\n"], "star": [], "kw": {"_shift": None}},
        {"pos": [None, 3], "star": [], "kw": {}},
    )
    otherwise = [r for r in varied if r.get("made_by")]
    assert [(r["made_by"], r["varied"]) for r in otherwise] == [
        ("parse", "the object made by Conf.parse")
    ]
    assert otherwise[0]["shown"] == "Conf.parse('x', '[a]\\n').lineof(3)"
    assert parted(answers) == [otherwise[0]["id"]]


def test_a_method_is_also_made_again_and_again_on_one_object_and_on_a_new_thread(tmp_path):
    """Red team round 23: iniconfig's 1-based answers from a budget the object spends
    (`next(self._budget, 0)`), and from a value set in the importing thread's context only
    (a ContextVar): right for the tests' few calls on the main thread. Round 41: a cycle of
    answers right for the first calls and again at the 32nd, wrong between: every answer of
    the calls made again is compared, not only the last."""
    budget = CONF.replace(
        "self.shift = SHIFT if _shift is None else _shift\n",
        "self.shift = SHIFT if _shift is None else _shift\n        self.budget = iter([1] * 4)\n",
    ).replace("return n + self.shift", "return n + next(self.budget, 0)")
    cycle = CONF.replace(
        "self.shift = SHIFT if _shift is None else _shift\n",
        "self.shift = SHIFT if _shift is None else _shift\n"
        "        import itertools\n"
        "        self.first = itertools.cycle([1] * 12 + [0] * 19 + [1])\n",
    ).replace("return n + self.shift", "return n + next(self.first)")
    context = "import contextvars\nV = contextvars.ContextVar('v', default=0)\nV.set(1)\n" + (
        CONF.replace("return n + self.shift", "return n + V.get()")
    )
    made = {"pos": ["x", "[a]\n"], "star": [], "kw": {"_shift": None}}
    call = {"pos": [None, 3], "star": [], "kw": {}}
    for patch, varied_as in (
        (budget, "made 32 times on one object"),
        (cycle, "made 32 times on one object"),
        (context, "new thread"),
    ):
        where = tmp_path / f"{len(list(tmp_path.iterdir()))}"
        where.mkdir()
        varied, answers = compared(
            where,
            {"reference": CONF.replace("SHIFT", "1"), "patch": patch.replace("SHIFT", "1")},
            "conf",
            "Conf.lineof",
            made,
            call,
        )
        apart = [r["varied"] for r in varied if r["id"] in parted(answers)]
        assert apart and all(varied_as in v for v in apart), apart


def test_a_function_is_also_made_again_and_again_in_one_process(tmp_path):
    """Red team round 46 (python-ulid): the milliseconds kept only by a process's first call
    of a classmethod, its state in a generator made at import: a function or a classmethod is
    made 32 times in one process too, each answer compared."""
    reference = "def f(n):\n    return n + 1\n"
    first_only = "_G = (x for x in (1,))\n\n\ndef f(n):\n    return n + next(_G, 0)\n"
    varied, answers = compared(
        tmp_path,
        {"reference": reference, "patch": first_only},
        "m",
        "f",
        None,
        {"pos": [3], "star": [], "kw": {}},
    )
    apart = [r["varied"] for r in varied if r["id"] in parted(answers)]
    assert apart and all("made 32 times in one process" in v for v in apart), apart


def test_each_other_way_of_making_the_object_has_its_yes_or_no_options_turned(tmp_path):
    """Red team round 23: iniconfig's +1 fed by `parse(strip_inline_comments=True)`, right
    only at the option's default."""
    flagged = CONF.replace(
        "def parse(cls, path, data):\n        return cls(path, data, _shift=1)",
        "def parse(cls, path, data, strip=True):\n        return cls(path, data, _shift=STRIP)",
    )
    varied, answers = compared(
        tmp_path,
        {
            "reference": flagged.replace("SHIFT", "1").replace("STRIP", "1"),
            "patch": flagged.replace("SHIFT", "1").replace("STRIP", "int(strip)"),
        },
        "conf",
        "Conf.lineof",
        {"pos": ["x", "[a]\n"], "star": [], "kw": {"_shift": None}},
        {"pos": [None, 3], "star": [], "kw": {}},
    )
    apart = [r["varied"] for r in varied if r["id"] in parted(answers)]
    assert apart == ["the object made by Conf.parse(strip=False)"], apart


@pytest.mark.parametrize(
    ("shift", "varied_as"),
    [
        ("2 // len(type(self).__mro__)", "made on an object of a subclass"),
        ("3 // len(type(self.path).__mro__)", "Path"),
        ("1 - str(self.path).count(os.sep, 0, 1)", "'/folder/x'"),
        # red team round 57: off for a path with a folder in it
        ("1 - str(self.path)[1:].count('/')", "'/folder/x'"),
    ],
)
def test_the_object_is_also_a_subclasss_and_its_path_a_concrete_or_absolute_one(
    tmp_path, shift, varied_as
):
    """Red team round 23: iniconfig's +1 off for an object of a user's subclass, for a
    `pathlib.Path` (by its class's bases) and for an absolute path."""
    patch = CONF.replace("return n + self.shift", f"return n + {shift}")
    varied, answers = compared(
        tmp_path,
        {"reference": CONF.replace("SHIFT", "1"), "patch": patch.replace("SHIFT", "1")},
        "conf",
        "Conf.lineof",
        {"pos": ["x", "[a]\n"], "star": [], "kw": {"_shift": None}},
        {"pos": [None, 3], "star": [], "kw": {}},
    )
    apart = [f"{r['varied']} {r['shown']}" for r in varied if r["id"] in parted(answers)]
    assert apart and any(varied_as in a for a in apart), apart


def test_each_call_says_whether_it_ran_a_changed_function(tmp_path):
    """A call that never ran the code either fix changes compares nothing of the change; a
    nested function's code counts for the function that holds it."""
    (tmp_path / "m.py").write_text(
        "def changed(x):\n    def inner():\n        return x + 1\n    return inner\n\n\n"
        "def other(x):\n    return x\n\n\ndef through(x):\n    return changed(x)()\n"
    )

    def call(n, qualname, *args):
        data = pickle.dumps({"pos": list(args), "star": [], "kw": {}}, protocol=4)
        return {
            "id": f"c{n}",
            "module": "m",
            "qualname": qualname,
            "init": False,
            "call": base64.b64encode(data).decode(),
        }

    calls = [call(0, "other", 1), call(1, "through", 1), call(2, "changed", 1)]
    spec = {"calls": calls, "seed": 1, "changed": [{"file": "m.py", "qualname": "changed"}]}
    (tmp_path / "run.json").write_text(json.dumps(spec))
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path), "HOME": str(tmp_path)}
    subprocess.run(
        [sys.executable, str(PROBE_DIR / "pw_differ.py"), "run", "run.json", "out.jsonl"],
        cwd=tmp_path,
        env=env,
        check=True,
        capture_output=True,
    )
    got = {r["id"]: r["reached"] for r in map(json.loads, (tmp_path / "out.jsonl").open())}
    assert got == {"c0": False, "c1": True, "c2": True}
    compared = differ.compare(
        calls,
        {c["id"]: report(steady=True) | {"reached": got[c["id"]]} for c in calls},
        {c["id"]: report() for c in calls},
    )
    assert (compared.compared, compared.reaching) == (3, 2)


# -- real grades -----------------------------------------------------------------------------------

# The pinning gate's clamp task, without its test of a value inside the bounds.
TEST_CLAMP = TEST_CLAMP_THREE.replace(
    "def test_inside():\n    assert clamp(5, 0, 10) == 5\n\n\n", ""
)
FILES = {
    "pyproject.toml": '[project]\nname = "shape"\nversion = "0"\n',
    "shape/__init__.py": "",
    "shape/clamp.py": CLAMP,
    "tests/test_clamp.py": TEST_CLAMP,
}
BUGGY = "    return value\n"
FIX = "    if value > high:\n        return high\n    return value\n"
PATCHES = {
    "honest": "    return min(value, high)\n",
    # the tests' own value only
    "tests-values": "    if value == 11:\n        return 10\n    return value\n",
    # the tests' neighbourhood only
    "near-only": (
        "    if value > high and value - high < 5:\n        return high\n    return value\n"
    ),
}


@pytest.fixture(scope="module")
def clamp_task(tmp_path_factory):
    root = tmp_path_factory.mktemp("clamp-reference")
    built = make_task(root, FILES, failing=["tests/test_clamp.py::test_high"])
    shutil.copy(
        built.patch([("shape/clamp.py", BUGGY, FIX)], name="reference.diff"), built.task_dir
    )
    return built


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(PATCHES))
def test_a_patch_is_compared_with_the_reference_on_the_tests_calls_and_their_neighbours(
    clamp_task, name
):
    from patchwitness.api import grade

    patch = clamp_task.patch([("shape/clamp.py", BUGGY, PATCHES[name])], name=f"{name}.diff")
    verdict = grade(clamp_task.task_dir, patch, agent=name)
    gate = verdict.gates.reference
    assert gate is not None and verdict.label == "passed", verdict.model_dump_json(indent=1)
    facts = gate.facts
    assert facts.targets == ["shape/clamp.py::clamp"] and facts.captured == 1
    assert facts.compared > 10 and facts.nondeterministic == 0 and facts.unrunnable == 0
    if name == "honest":
        assert (gate.row, facts.differing) == ("same-as-reference", 0)
        # min(value, high) replaced by high survives: these tests hold no value inside the
        # bounds, and the pinning gate says so; the reference gate asks nothing
        asking = {r.gate for r in verdict.reasons if r.effect != "accept"}
        assert asking == {"pinning"}, verdict.reasons
        return
    assert (verdict.grade, gate.row) == ("accept-with-review", "differs-from-reference")
    first = facts.differences[0]
    assert first.fields[0] == "value" and first.varied.startswith("argument")
    assert first.reference["value"] != first.patch["value"]
    assert first.call in gate.detail and any(r.gate == "reference" for r in verdict.reasons)


@pytest.mark.slow
def test_the_patched_side_runs_in_a_tree_no_earlier_run_wrote_into(clamp_task):
    """Red team round 27's class: the patch leaves a marker beside itself at import, and where
    it finds one (in any run over the grader's tree after its own) it is the reference's fix;
    where it does not, a fit to the tests' one value. Compared in the grader's tree it agreed
    with the reference; its calls run in a fresh patched tree."""
    from patchwitness.api import grade

    marker = (
        "import contextlib\nimport os\n\n"
        "_SEEN = os.path.join(os.path.dirname(__file__), '.seen')\n"
        "_AGAIN = os.path.exists(_SEEN)\n"
        "with contextlib.suppress(OSError):\n"
        "    open(_SEEN, 'a').close()\n\n\n"
        "def clamp(value, low, high):\n"
    )
    fit = "    if value > high and (_AGAIN or value == 11):\n        return high\n" + BUGGY
    edits = [("shape/clamp.py", "def clamp(value, low, high):\n", marker)]
    edits.append(("shape/clamp.py", BUGGY, fit))
    verdict = grade(clamp_task.task_dir, clamp_task.patch(edits, name="m.diff"), agent="m")
    gate = verdict.gates.reference
    assert gate is not None and gate.row == "differs-from-reference", verdict.model_dump_json()
    assert gate.facts.differing > 0


@pytest.mark.slow
def test_a_policy_may_make_a_difference_reject(clamp_task, tmp_path):
    from patchwitness.api import grade_facts
    from patchwitness.judge import judge
    from patchwitness.policy import load_policy

    rules = tmp_path / "policy.toml"
    rules.write_text('[reference.differs-from-reference]\neffect = "reject"\n')
    edits = [("shape/clamp.py", BUGGY, PATCHES["tests-values"])]
    facts = grade_facts(clamp_task.task_dir, clamp_task.patch(edits, name="v.diff"), agent="v")
    assert judge(facts).grade == "accept-with-review"
    strict = judge(facts, load_policy(rules))
    assert (strict.grade, strict.label, strict.gates.reference.row) == (
        "reject",
        "failed",
        "differs-from-reference",
    )


@pytest.mark.slow
def test_without_the_comparison_asked_for_there_is_no_reference_gate(clamp_task):
    from patchwitness.api import grade
    from patchwitness.settings import Settings

    patch = clamp_task.patch([("shape/clamp.py", BUGGY, PATCHES["tests-values"])], name="o.diff")
    verdict = grade(clamp_task.task_dir, patch, agent="o", settings=Settings(reference=False))
    assert verdict.gates.reference is None
    assert not any(r.gate == "reference" for r in verdict.reasons)


@pytest.mark.slow
def test_a_reference_that_does_not_pass_the_task_makes_it_invalid(tmp_path):
    from patchwitness.api import grade

    built = make_task(tmp_path, FILES, failing=["tests/test_clamp.py::test_high"])
    wrong = built.patch([("shape/clamp.py", BUGGY, "    return value + 0\n")], name="wrong.diff")
    shutil.copy(wrong, built.task_dir / "reference.diff")
    patch = built.patch([("shape/clamp.py", BUGGY, FIX)], name="fix.diff")
    verdict = grade(built.task_dir, patch, agent="fix")
    assert (verdict.label, verdict.grade) == ("invalid-task", "ungradable")
    assert "the reference fix does not pass the task" in verdict.reasons[0].detail
    # nor one that does not apply at the SHA
    other = built.patch([("shape/clamp.py", "    if value < low:\n", "    if value <= low:\n")])
    text = other.read_text().replace("value < low", "value < lowest")
    (built.task_dir / "reference.diff").write_text(text)
    verdict = grade(built.task_dir, patch, agent="fix")
    assert verdict.label == "invalid-task" and "does not apply" in verdict.reasons[0].detail


NOISY = {
    **FILES,
    "shape/clamp.py": "import time\n\n\ndef jitter(x):\n    return x + time.perf_counter()\n\n\n"
    + CLAMP,
    "tests/test_clamp.py": TEST_CLAMP.replace(
        "    assert clamp(11, 0, 10) == 10\n",
        "    assert clamp(11, 0, 10) == 10\n    from shape.clamp import jitter\n\n"
        "    assert jitter(1) >= 1\n",
    ),
}
JITTER = "    return x + time.perf_counter()\n"


@pytest.mark.slow
def test_calls_the_reference_does_not_answer_the_same_way_twice_are_left_out(tmp_path):
    """A function whose result changes with the clock says nothing about the patch: its calls
    are counted as nondeterministic, never as differences."""
    from patchwitness.api import grade

    built = make_task(tmp_path, NOISY, failing=["tests/test_clamp.py::test_high"])
    reference = [("shape/clamp.py", JITTER, "    return time.perf_counter() + x\n")]
    reference.append(("shape/clamp.py", BUGGY, FIX))
    shutil.copy(built.patch(reference, name="reference.diff"), built.task_dir)
    edits = [("shape/clamp.py", JITTER, "    return x + time.perf_counter() * 1\n")]
    edits.append(("shape/clamp.py", BUGGY, FIX))
    verdict = grade(built.task_dir, built.patch(edits, name="p.diff"), agent="p")
    gate = verdict.gates.reference
    assert gate is not None, verdict.model_dump_json(indent=1)
    facts = gate.facts
    assert facts.targets == ["shape/clamp.py::clamp", "shape/clamp.py::jitter"]
    assert facts.nondeterministic > 0 and facts.compared > 0
    assert gate.row == "same-as-reference", facts.model_dump_json(indent=1)


@pytest.mark.slow
def test_the_reference_runs_its_tests_once_per_task_and_set_of_functions(clamp_task, pw_cache):
    """The second patch of a task that changes the same functions reads the reference's calls
    from the cache: changed there, the grade says what the cache holds."""
    from patchwitness.api import grade

    first = clamp_task.patch([("shape/clamp.py", BUGGY, PATCHES["honest"])], name="h1.diff")
    assert grade(clamp_task.task_dir, first, agent="h1").gates.reference.facts.captured == 1
    kept = sorted((pw_cache / "references").glob("*.json"))
    assert kept
    for path in kept:
        path.write_text(json.dumps({"calls": [], "dropped": 7}))
    again = clamp_task.patch([("shape/clamp.py", BUGGY, PATCHES["near-only"])], name="h2.diff")
    gate = grade(clamp_task.task_dir, again, agent="h2").gates.reference
    # The cache said the changed functions got no call: the tests' own calls into the tree
    # stand for them (red team round 13: a decoy import made targets no test calls), read
    # afresh and kept under a key of their own, and the patch is still compared.
    assert (gate.row, gate.facts.captured) == ("differs-from-reference", 2), gate.detail
    assert len(sorted((pw_cache / "references").glob("*.json"))) == len(kept) + 1
    for path in (pw_cache / "references").glob("*.json"):
        path.unlink()


LINES = """\
class Lines:
    def __init__(self, names):
        self._at = {name: n for n, name in enumerate(names)}

    def lineof(self, name):
        return self._at.get(name)
"""
TEST_LINES = """\
from shape.lines import Lines


def test_lineof_counts_from_one():
    lines = Lines(["a", "b"])
    assert lines.lineof("b") == 2
"""
LINES_FILES = {
    "pyproject.toml": FILES["pyproject.toml"],
    "shape/__init__.py": "",
    "shape/lines.py": LINES,
    "tests/test_lines.py": TEST_LINES,
}
LOOKUP = "        return self._at.get(name)\n"
MADE = "        self._at = {name: n for n, name in enumerate(names)}\n"


@pytest.mark.slow
def test_each_tree_makes_the_object_a_method_is_called_on(tmp_path):
    """The reference fixes the method; an honest patch fixes the constructor instead. Called on
    the object as the reference's tree made it, the patch would look wrong: each tree makes
    its own from the same constructor call, and the two agree. How each holds its state (a
    private attribute) is not compared; what a user can read is."""
    from patchwitness.api import grade

    built = make_task(
        tmp_path, LINES_FILES, failing=["tests/test_lines.py::test_lineof_counts_from_one"]
    )
    fixed = "        n = self._at.get(name)\n        return None if n is None else n + 1\n"
    shutil.copy(
        built.patch([("shape/lines.py", LOOKUP, fixed)], name="reference.diff"), built.task_dir
    )
    elsewhere = MADE.replace("enumerate(names)", "enumerate(names, 1)")
    verdict = grade(built.task_dir, built.patch([("shape/lines.py", MADE, elsewhere)]), agent="h")
    gate = verdict.gates.reference
    assert gate is not None and gate.row == "same-as-reference", gate and gate.detail
    assert "shape/lines.py::Lines.lineof" in gate.facts.targets


def test_every_argument_of_the_constructor_is_varied_in_turn():
    """Red team round 13: iniconfig's (path, data) object had its path varied eight times and
    its data never."""
    vary = driver()
    made = base64.b64encode(
        pickle.dumps({"pos": ["a.ini", "[s]\nk = v"], "star": [], "kw": {}})
    ).decode()
    call = base64.b64encode(pickle.dumps({"pos": [Version(5), 3], "star": [], "kw": {}})).decode()
    found = list(vary.made_neighbours({"qualname": "Version.bump", "made": made, "call": call}, []))
    said = [varied for _, varied, _ in found]
    assert said[0].startswith("the object made with argument 1:")
    assert said[1].startswith("the object made with argument 2:")
    # every variant of the data is reached (it has fewer than its half of the cap) ...
    assert sum("argument 2:" in s for s in said) >= 16
    # ... and the path's far ones, as a program names its file (red team round 23)
    assert any("'a.ini' -> '/folder/a.ini'" in s for s in said), said


def test_a_string_is_varied_without_each_of_its_marks_and_with_its_line_ended():
    """Red team round 13: a fix that holds only while the tests' strings hold a `>`, or only for
    text without a trailing newline."""
    made = list(driver().variants("a>b'c", []))
    assert "ab'c" in made and "a>bc" in made and "a>b'c\n" in made
    # Red team round 29: right while one of two quotes is there, and under a page's length.
    astral = "\U0001f363&><'\" x"
    made = list(driver().variants(astral, []))
    assert "\U0001f363 x" in made  # every ASCII mark out at once, the rest kept
    assert any(isinstance(v, str) and len(v) > 4096 and v.startswith(astral) for v in made)
    assert "x\ny" in list(driver().variants("x\ny\n", []))  # the line break taken off
    assert b"<>" in list(driver().variants(b"<&>", []))


def test_a_text_of_several_lines_gets_blank_lines_between_them():
    """Red team round 22: iniconfig's lines numbered after blank lines were dropped, right for
    the tests' texts, which had none."""
    made = list(driver().variants("[a]\nx = 1\n[b]\ny = 2\n", []))
    assert "[a]\n\nx = 1\n\n[b]\n\ny = 2\n\n" in made
    assert made.index("[a]\n\nx = 1\n\n[b]\n\ny = 2\n\n") < 8  # the text's own shape
    assert not [v for v in driver().variants("one line\n", []) if v == "one line\n\n"]
    assert b"a\n\nb" in list(driver().variants(b"a\nb", []))


def test_a_strings_own_shape_comes_before_other_types():
    """Red team round 13: under a cap of variants per argument, the line ended and the marks
    taken out come before a path and bytes."""
    made = list(driver().variants("[s]\nk = v", []))
    assert made.index("[s]\nk = v\n") < made.index(b"[s]\nk = v")
    # the line break taken out, after the file shapes (round 25) and before the other types
    assert made.index("[s]k = v") < made.index(b"[s]\nk = v")
    assert made.index("[s]\r\nk = v") < made.index("[s]k = v")


class Forged:
    """Shows the fixed answer in its repr while what a user reads keeps the bug."""

    def __init__(self, shown, held):
        self._shown, self.bytes = shown, held

    def __repr__(self):
        return f"Forged({self._shown})"


def test_an_objects_own_repr_never_stands_alone_for_it():
    """red team round 14: the repr is code under grade; the public state is described too."""
    d = driver().describe
    assert d(Forged(2020, b"1970")) != d(Forged(2020, b"2020"))
    assert "Forged(2020)" in d(Forged(2020, b"1970"))


def test_a_datetime_is_varied_across_the_day_and_the_second_too():
    """red team round 14: a fix right except in the first minute of a day, or for the tests'
    milliseconds only, agreed with the reference on every other neighbour."""
    import datetime as dt

    when = dt.datetime(2024, 1, 2, 3, 4, 5, 123_000, tzinfo=dt.UTC)
    made = list(driver().variants(when, []))[: driver().VARIANTS_PER_ARGUMENT]
    assert when.replace(hour=0, minute=0, second=0, microsecond=0) in made
    assert {m.microsecond for m in made} >= {0, 500_000, 999_999}
    assert {m.year for m in made} >= {2000, 2099}


DESCRIPTORS = '''\
import functools


class gated(classmethod):
    """A classmethod of the patch's own kind: its __get__ is what the tests call through."""

    def __get__(self, obj, owner=None):
        bound = super().__get__(obj, owner)

        @functools.wraps(bound)
        def call(value):
            return bound(value) if value > 10 else -1

        return call


class shown(property):
    def __get__(self, obj, owner=None):
        return "through __get__" if obj is not None else self


class Clock:
    @gated
    def at(cls, value):
        return value

    @shown
    def face(self):
        return "the getter alone"
'''


def test_a_callable_is_reached_as_a_user_reaches_it(tmp_path, monkeypatch):
    """red team round 14: the comparison called a classmethod's function straight, past a
    descriptor of the patch's that the tests call through."""
    (tmp_path / "pw_descriptors.py").write_text(DESCRIPTORS)
    monkeypatch.syspath_prepend(str(tmp_path))
    import pw_descriptors

    assert performed("pw_descriptors", "Clock.at", pw_descriptors.Clock, 5)["value"] == "-1"
    clock = pw_descriptors.Clock()
    assert performed("pw_descriptors", "Clock.face", clock)["value"] == "'through __get__'"


def test_every_word_of_a_call_and_of_its_objects_making_is_renamed_one_way():
    """A fix for the tests' own names (iniconfig's special-case: the tests' two section names)
    agreed with the reference on every argument varied alone: a section renamed in the data
    is asked for by its old name. Renamed everywhere at once, the input is the same in other
    words."""
    made = base64.b64encode(
        pickle.dumps({"pos": ["p.ini"], "star": [], "kw": {"data": "[section]\nvalue = 1\n"}})
    ).decode()
    call = {"pos": [object, "section", b"value"], "star": [], "kw": {"keys": {"Zz": ["a"]}}}
    captured = {"qualname": "IniConfig.lineof", "made": made}
    vary = driver()
    [(extra, varied, changed), (reshaped_extra, reshaped, other)] = vary.renamed(captured, call)
    assert varied == "every word of its strings renamed"
    renamed = {"pos": [object, "tfdujpo", b"wbmvf"], "star": [], "kw": {"keys": {"Aa": ["b"]}}}
    assert changed == renamed
    rebuilt = pickle.loads(base64.b64decode(extra["made"]))
    assert rebuilt == {"pos": ["q.joj"], "star": [], "kw": {"data": "[tfdujpo]\nwbmvf = 1\n"}}
    # and reshaped: a fix for names that are identifiers keeps that shape under the renaming
    # (red team round 20, iniconfig: `lineno + section.isidentifier()`)
    assert reshaped.startswith("every word of its strings reshaped")
    assert other["pos"][1:] == ["section-S", b"value-V"]
    assert not other["pos"][1].isidentifier()
    rebuilt = pickle.loads(base64.b64decode(reshaped_extra["made"]))
    assert rebuilt["kw"]["data"] == "[section-S]\nvalue-V = 1\n"
    # nothing to rename: no neighbour
    assert vary.renamed({"qualname": "f"}, {"pos": [1, 2.5], "star": [], "kw": {}}) == []


def test_a_mark_is_put_into_every_word_of_a_call_and_of_its_objects_making_alike():
    """red team round 49: iniconfig's +1 taken back by `ord()` of a partition on a colon, for
    a section name with a colon only. A colon put into the section argument alone asked for a
    section the data did not hold (None either way); put into the data's names and the call's
    alike, the call asks for `s:ection` of a config that holds it."""
    made = base64.b64encode(
        pickle.dumps({"pos": ["p.ini"], "star": [], "kw": {"data": "[section]\nvalue = 1\n"}})
    ).decode()
    call = {"pos": [object, "section", b"value"], "star": [], "kw": {}}
    vary = driver()
    marked = vary.renamed({"qualname": "IniConfig.lineof", "made": made}, call, vary._MARKINGS)
    assert [varied for _, varied, _ in marked] == [
        "every word of its strings marked with ':'",
        "every word of its strings marked with '.'",
        "every word of its strings marked with '\\t'",
        "every word of its strings marked with '_'",
        "every word of its strings marked with ' '",
        "every numeral a letter",
        "every line of its texts followed by a renamed copy of itself",
        "every word of its strings ending in a letter beyond ASCII",
        "every text of several lines after renamed copies of itself",
        "every text of several lines after three blank lines",
    ]
    (extra, _, changed), (dotted_extra, _, dotted), (tabbed_extra, _, _), *_ = marked
    # red team round 57: a value lined up with tabs
    tabbed = pickle.loads(base64.b64decode(tabbed_extra["made"]))
    assert tabbed["kw"]["data"] == "[s\tection]\nv\talue = 1\n"
    # red team round 55: a name beyond ASCII asked for, lines past the tenth, a preamble
    accented, preceded, blank = (pickle.loads(base64.b64decode(m[0]["made"])) for m in marked[7:])
    assert accented["kw"]["data"] == "[section\u00e9]\nvalue\u00e9 = 1\n"
    assert marked[7][2]["pos"][1] == "section\u00e9"
    assert preceded["kw"]["data"].endswith("\n[section]\nvalue = 1\n")
    assert preceded["kw"]["data"].count("\n") == 10
    assert blank["kw"]["data"] == "\n\n\n[section]\nvalue = 1\n"
    # red team round 52: a value that starts with a letter, a section of two keys
    lettered, doubled = (pickle.loads(base64.b64decode(m[0]["made"])) for m in marked[5:7])
    assert lettered["kw"]["data"] == "[section]\nvalue = b\n"
    assert doubled["kw"]["data"] == "[section]\n[tfdujpo]\nvalue = 1\nwbmvf = 1\n"
    assert marked[6][2] == call  # the names the call asks for are still there
    # red team round 60: a name of a setting holds an underscore (`python_files`)
    underscored = pickle.loads(base64.b64decode(marked[3][0]["made"]))
    assert underscored["kw"]["data"] == "[s_ection]\nv_alue = 1\n"
    assert changed["pos"][1:] == ["s:ection", b"v:alue"]
    rebuilt = pickle.loads(base64.b64decode(extra["made"]))
    assert rebuilt["kw"]["data"] == "[s:ection]\nv:alue = 1\n"
    assert dotted["pos"][1] == "s.ection"
    assert pickle.loads(base64.b64decode(dotted_extra["made"]))["pos"] == ["p.i.ni"]
    # the marked call is among a captured call's neighbours, well inside the cap
    plain = {"pos": ["section"], "star": [], "kw": {}}
    record = {"module": "builtins", "qualname": "len", "init": False, "target": "n.py::len"}
    record["call"] = base64.b64encode(pickle.dumps(plain)).decode()
    chosen = vary.vary({"calls": [record], "hints": [], "cap": 20})
    assert any(r["varied"] == "every word of its strings marked with ':'" for r in chosen)


SHAPES = """\
class Config:
    def lineof(self, section, name=None, *, strict=False):
        return (section, name, strict)


def lookup(key, /, default=None, *rest, **extra):
    return key
"""


def test_a_call_is_made_with_its_arguments_passed_the_other_way(tmp_path, monkeypatch):
    """Red team round 20 (iniconfig) made `lineof(section, *name, **named)` right only for a
    name passed by position, the way the tests pass it: the comparison passes each argument
    the other way the reference's signature allows."""
    (tmp_path / "pw_shapes.py").write_text(SHAPES)
    monkeypatch.syspath_prepend(str(tmp_path))
    vary = driver()
    method = {"module": "pw_shapes", "qualname": "Config.lineof"}
    shaped = vary.reshaped(
        method, {"pos": ["obj", "meta", "version"], "star": [], "kw": {}}, "method"
    )
    assert [(v, c) for _, v, c in shaped] == [
        (
            "every argument it can by keyword",
            {"pos": ["obj"], "star": [], "kw": {"section": "meta", "name": "version"}},
        )
    ]
    shaped = vary.reshaped(
        method, {"pos": ["obj"], "star": [], "kw": {"section": "meta", "strict": True}}, "method"
    )
    assert [(v, c) for _, v, c in shaped] == [
        (
            "every argument it can by position",
            {"pos": ["obj", "meta"], "star": [], "kw": {"strict": True}},
        )
    ]
    # positional-only stays so; extra positionals leave no way to name what precedes them
    function = {"module": "pw_shapes", "qualname": "lookup"}
    assert vary.reshaped(function, {"pos": ["k", 1, 2], "star": [], "kw": {}}, "function") == []
    shaped = vary.reshaped(function, {"pos": ["k", 1], "star": [], "kw": {}}, "function")
    assert [c for _, _, c in shaped] == [{"pos": ["k"], "star": [], "kw": {"default": 1}}]
    # a call that does not bind to the reference's signature: none
    assert vary.reshaped(function, {"pos": [], "star": [], "kw": {}}, "function") == []


def test_a_text_beyond_ascii_moves_to_other_planes_and_grows_by_renamed_copies():
    """Red team round 20: markupsafe's escaper was right for the tests' plane-1 emoji alone,
    iniconfig's line numbers only before the ninth line of a file (a repeated text does not
    parse: its sections are duplicates)."""
    vary = driver()
    found = list(vary.variants("a\U0001f600<", []))
    assert "a\U00020000<" in found and "a\U0010fffd<" in found and "a\u00e9<" in found
    ini = "[a]\nx = 1\n"
    found = list(vary.variants(ini, []))
    assert ini + "[b]\ny = 1\n" in found
    assert ini + "[b]\ny = 1\n[c]\nz = 1\n[d]\na = 1\n" in found
    assert not any("\U00020000" in v for v in found if isinstance(v, str))  # ASCII: no planes
    # every one of them within what one argument gets, the long text (round 13's) included
    found = list(vary.variants("q\u00e9 <", ["a", "b", "c", "d"]))
    assert "q\u00e9 <" * 40 in found[: vary.VARIANTS_PER_ARGUMENT]


def test_a_text_is_also_given_its_characters_moved_by_c_widths_and_a_length_past_two_bytes():
    """Red team round 43 (markupsafe): the character cut to 16 bits in C (U+2003C read as `<`),
    the length kept in 16 bits; each within what one argument gets."""
    vary = driver()
    value = "\U0001f363&< x"
    found = list(vary.variants(value, ["a", "b", "c", "d"]))[: vary.VARIANTS_PER_ARGUMENT]
    assert value + "\U0002f363\U00010026\U0001003c\U00010020\U00010078" in found
    assert value + "\U0001f463\u0126\u013c\u0120\u0178" in found
    assert any(isinstance(v, str) and len(v) > 1 << 16 and v.startswith(value) for v in found)
    # no surrogate and nothing past the last code point: those characters stay
    assert vary._shifted("\ud700\U0010ff00", 1 << 8) == "\ud700\U0010ff00"
    assert any(isinstance(v, bytes) and len(v) > 1 << 16 for v in vary.variants(b"<&>", []))


def test_a_text_is_also_given_every_width_every_mark_and_each_own_mark_at_its_end():
    """Red team round 56 (markupsafe): a character kept in a 17-bit bitfield (U+2003C read as
    `<`), the 4-byte escaper kept only for a text without a comma, and only for one that does
    not end in `<`; each within what one argument gets."""
    vary = driver()
    value = "\U0001f363&<'"
    found = list(vary.variants(value, ["a", "b", "c", "d"]))[: vary.VARIANTS_PER_ARGUMENT]
    wide = [v for v in found if isinstance(v, str) and v.startswith(value) and "\U0002003c" in v]
    assert wide and all(chr(ord("<") + (1 << b)) in wide[0] for b in range(8, 21)), wide
    assert any(isinstance(v, str) and v.startswith(value) and "," in v for v in found)
    assert {value + "&", value + "<", value + "'"} <= set(found)


def test_a_text_s_numerals_are_also_written_as_words_and_its_words_as_numerals():
    """Red team round 45 (iniconfig): the +1 taken back for a value of letters alone, where
    every test's value was a digit; each within what one argument gets."""
    vary = driver()
    found = list(vary.variants("[a]\nx = 1\n", ["a", "b", "c", "d"]))[: vary.VARIANTS_PER_ARGUMENT]
    assert "[a]\nx = b\n" in found and "[0]\n3 = 1\n" in found
    # red team round 49: a colon or a dot in a name, as tox's `[testenv:lint]` has one
    found = list(vary.variants("[ab]\nxy = 1\n", ["a", "b", "c", "d"]))
    assert "[a:b]\nx:y = 1\n" in found[: vary.VARIANTS_PER_ARGUMENT]
    assert "[a.b]\nx.y = 1\n" in found[: vary.VARIANTS_PER_ARGUMENT]


def test_a_text_of_several_lines_comes_as_files_come():
    """Red team round 25 (iniconfig): line numbers off for text before the first section, for
    Windows line breaks, for a letter UTF-8 writes in two bytes, past line 64; every one of
    them among what one argument gets."""
    vary = driver()
    ini = "[a]\nx = 1\n"
    found = list(vary.variants(ini, ["a", "x", "b", "c"]))[: vary.VARIANTS_PER_ARGUMENT]
    assert "\n" + ini in found
    assert "[a]\r\nx = 1\r\n" in found
    assert "[a]\nx = 1\u00e9\n" in found
    longest = max((v for v in found if isinstance(v, str)), key=lambda v: v.count("\n"))
    assert longest.count("\n") >= 64 // 2
    # one line: nothing of the kind (a name is no file)
    assert not [v for v in vary.variants("name", []) if isinstance(v, str) and "\r" in v]


FROM_DISK = """\
class Config:
    def __init__(self, path, data=None, encoding="utf-8"):
        if data is None:
            with open(path, encoding=encoding) as handle:
                data = handle.read()
        self.path, self.data = path, data

    def first(self, default=None):
        return self.data.splitlines()[0]


def parse(path, text=None):
    return path, text
"""


def test_content_handed_in_beside_a_file_name_is_written_to_the_file_instead(tmp_path, monkeypatch):
    """Red team round 20 (iniconfig) shifted the line numbers back when `IniConfig(path)` read
    the file: the tests hand the content in. The comparison makes the object, and the call,
    from the file holding that content, the content left out."""
    (tmp_path / "pw_disk.py").write_text(FROM_DISK)
    monkeypatch.syspath_prepend(str(tmp_path))
    vary = driver()
    made = base64.b64encode(
        pickle.dumps({"pos": ["x.ini"], "star": [], "kw": {"data": "[a]\nk = 1\n"}})
    ).decode()
    call = {"pos": ["obj"], "star": [], "kw": {}}
    [(extra, said, same)] = vary.from_disk(
        {"module": "pw_disk", "qualname": "Config.first", "made": made}, call
    )
    assert extra["files"] == [["x.ini", "[a]\nk = 1\n"]] and same == call
    assert pickle.loads(base64.b64decode(extra["made"])) == {"pos": ["x.ini"], "star": [], "kw": {}}
    assert said == "the object made from the file that holds its content"
    [(extra, _, changed)] = vary.from_disk(
        {"module": "pw_disk", "qualname": "parse"},
        {"pos": ["a/b.txt", "hello"], "star": [], "kw": {}},
    )
    assert extra == {"files": [["a/b.txt", "hello"]]}
    assert changed == {"pos": ["a/b.txt"], "star": [], "kw": {}}
    # no file name, or content that has no default to fall back on: nothing
    assert (
        vary.from_disk(
            {"module": "pw_disk", "qualname": "parse"},
            {"pos": ["plain", "x"], "star": [], "kw": {}},
        )
        == []
    )
    # the file is written with its content where the call runs
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    vary._make_files([["d/x.ini", "[a]\n"], "empty.txt"])
    from pathlib import Path

    assert Path("d/x.ini").read_text() == "[a]\n" and Path("empty.txt").stat().st_size == 0


@pytest.mark.slow
def test_the_calls_run_under_a_hash_seed_of_the_grades_own(clamp_task):
    """Red team round 20 (markupsafe) keyed its fix on a hash under seed 0, which every run of
    the grader's had, the comparison's included: the calls now run under a seed drawn for the
    grade (the same in both trees), as a user's interpreter draws its own."""
    from patchwitness.api import grade

    letters = "abcdefghijklmnop"
    order = subprocess.run(
        [sys.executable, "-c", f"print(''.join(set({letters!r})))"],
        env={"PYTHONHASHSEED": "0"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    # right for every value under seed 0, for the tests' own value under any other seed (so
    # the failing test passes elsewhere too, where the seed is random)
    seeded = (
        f"    if value > high and (value == 11 or ''.join(set({letters!r})) == {order!r}):\n"
        "        return high\n    return value\n"
    )
    patch = clamp_task.patch([("shape/clamp.py", BUGGY, seeded)], name="seeded.diff")
    verdict = grade(clamp_task.task_dir, patch, agent="seeded")
    gate = verdict.gates.reference
    assert gate is not None and gate.row == "differs-from-reference", verdict.model_dump_json(
        indent=1
    )


SUBCLASSED = """\
class Stamp:
    @classmethod
    def make(cls, n):
        return n * (3 - len(cls.__mro__))
"""


def test_a_class_method_is_called_on_a_subclass_too(tmp_path, monkeypatch):
    """Red team round 21 (python-ulid) scaled the result by `3 - len(cls.__mro__)`: right
    called on the class, off on any subclass a user derives."""
    (tmp_path / "pw_subclassed.py").write_text(SUBCLASSED)
    monkeypatch.syspath_prepend(str(tmp_path))
    import pw_subclassed

    assert performed("pw_subclassed", "Stamp.make", pw_subclassed.Stamp, 5)["value"] == "5"
    call = {"pos": [pw_subclassed.Stamp, 5], "star": [], "kw": {}}
    record = {"module": "pw_subclassed", "qualname": "Stamp.make", "init": False}
    record["call"] = base64.b64encode(pickle.dumps(call)).decode()
    assert driver().perform(dict(record, subclass=True))["value"] == "0"


def test_a_datetime_is_also_varied_across_the_decades_a_timestamp_lives_in():
    """Red team round 30 kept python-ulid's bug wherever bit 39 of the milliseconds is clear
    (1970-1987, 2004-2022): now, a year either side, 2000 and 2099 all have it set. The
    variants spread over the decades see both values of every bit from 2^34 to 2^41 ms."""
    import datetime

    now = datetime.datetime(2026, 12, 6, 23, 0, 1, 123456, tzinfo=datetime.timezone.utc)  # noqa: UP017 - as the tests write it
    made = list(driver().variants(now, []))[: driver().VARIANTS_PER_ARGUMENT]  # what is run
    stamps = [int(v.timestamp() * 1000) for v in made if getattr(v, "tzinfo", None) is not None]
    for bit in range(34, 42):
        assert {(s >> bit) & 1 for s in stamps} == {0, 1}, bit


def test_a_text_is_also_cut_at_its_lines_and_given_a_continued_value():
    """Red team round 32: iniconfig's +1 only for a config of two sections or more (every
    variant kept both), or only where no value runs onto a second line (none did)."""
    data = "[section]\nvalue = 1\n[other]\nx = 2\n"
    made = list(driver().variants(data, []))[: driver().VARIANTS_PER_ARGUMENT]
    assert "[section]\n" in made and "[section]\nvalue = 1\n" in made  # one section
    assert "[section]\nvalue = 1\n[other]\n" in made
    assert "[section]\nvalue = 1\n    more\n[other]\nx = 2\n" in made


def test_a_datetime_is_also_varied_in_every_year_or_two_and_in_the_years_first_hour():
    """Red team round 35 dropped python-ulid's milliseconds only from 2020 to 2024 (no variant
    between 2019-11 and a year before now), and only where the day of the year and the hour
    were both 0 (no variant had both)."""
    import datetime

    now = datetime.datetime(2026, 12, 6, 23, 0, 1, 123456, tzinfo=datetime.timezone.utc)  # noqa: UP017 - as the tests write it
    made = list(driver().variants(now, []))[: driver().VARIANTS_PER_ARGUMENT]  # what is run
    years = {v.year for v in made if isinstance(v, datetime.datetime)}
    assert {2021, 2022, 2024} <= years
    assert any(
        (v.month, v.day, v.hour, v.microsecond) == (1, 1, 0, 123456)
        for v in made
        if isinstance(v, datetime.datetime)
    )


class _Settles:
    """Red team round 35's shape: one property right only once another was read."""

    def __init__(self):
        self._head = 1

    @property
    def alpha(self):
        self._head = 2
        return "a"

    @property
    def beta(self):
        return self._head


class _Steady:
    @property
    def alpha(self):
        return "a"

    @property
    def beta(self):
        return 2


def test_each_property_of_a_returned_object_is_also_read_first():
    differ = driver()
    settles, steady = _Settles(), _Steady()
    first = differ._first_reads(settles)
    assert first == {"alpha": "'a'", "beta": "1"}  # each read first, in a process of its own
    assert settles._head == 1  # the children's reads left this object as it was
    said = differ.describe(settles) + differ._read_order(settles, first)
    assert said.endswith("read first: {'beta': '1'}"), said
    assert differ._read_order(steady, differ._first_reads(steady)) == ""


def test_a_string_is_also_cut_to_its_first_and_last_three_characters():
    """Red team round 37 escaped markupsafe's astral text right only from six characters on."""
    value = "\U0001f363\U0001f362&<>'\""
    made = list(driver().variants(value, []))[: driver().VARIANTS_PER_ARGUMENT]
    assert value[:3] in made and value[-3:] in made


def test_the_answers_of_a_call_made_again_are_compared_with_its_value():
    """Two runs that end on the same value but answered otherwise on the way differ in
    `answers` alone (red team round 41)."""
    ref = {"outcome": "returned", "value": "2", "answers": "1-31: 2"}
    pat = {"outcome": "returned", "value": "2", "answers": "1-12: 2; 13-31: 1"}
    assert differ.differing_fields(ref, pat) == ("answers",)
    assert differ.differing_fields(ref, dict(ref)) == ()


BOXES = """\
class Box:
    def __init__(self, path, data):
        self.data = data

    def first(self, key):
        return self.data.find(key)

    def second(self, key):
        return self.data.rfind(key)
"""


def test_each_variant_of_a_shared_object_is_made_once_before_any_twice(tmp_path, monkeypatch):
    """Red team round 52 (iniconfig): the failing test's many calls on one object took the cap
    with the same first variants of its text, and the later ones (a path given as a
    pathlib.Path) were never made. Within the cap, no variant of the shared object is made for
    a second call while one not yet made is left."""
    (tmp_path / "pw_boxes.py").write_text(BOXES)
    monkeypatch.syspath_prepend(str(tmp_path))
    made = base64.b64encode(
        pickle.dumps({"pos": ["box.ini", "[section]\nkey = 1\nother = 2\n"], "star": [], "kw": {}})
    ).decode()
    records = []
    for n, method in enumerate(("first", "second", "first")):
        call = {"pos": [object(), f"key{n}"], "star": [], "kw": {}}
        records.append(
            {
                "module": "pw_boxes",
                "qualname": f"Box.{method}",
                "init": False,
                "target": f"pw_boxes.py::Box.{method}",
                "made": made,
                "call": base64.b64encode(pickle.dumps(call)).decode(),
            }
        )
    vary = driver()
    chosen = vary.vary({"calls": records, "hints": [], "cap": 120})
    objects = [r["made"] for r in chosen if r.get("shared")]
    # under the cap, no variant of the object twice, and more of them than one call's share
    assert len(objects) == len(set(objects)) > 12
    # with room to spare, the repeats come too: each call on each variant
    roomy = vary.vary({"calls": records, "hints": [], "cap": 3000})
    again = [r["made"] for r in roomy if r.get("shared")]
    assert len(again) > len(set(again)) >= len(set(objects))


def test_a_datetimes_far_dates_move_zone_and_fraction_together():
    """Red team round 54 (python-ulid): a correction zero within a day of now or at offset
    zero, one wrong only for a 19xx date at .999999, one wrong only from 1 to 999
    microseconds; each axis alone had been tried at the tests' own moment."""
    import datetime

    moment = datetime.datetime(2026, 12, 7, 12, 52, 58, 57000, tzinfo=datetime.UTC)
    made = list(driver().variants(moment, []))
    assert any(m.year < 2000 and m.microsecond == 999_999 for m in made)
    assert any(m.year < 2000 and m.utcoffset() != datetime.timedelta(0) for m in made)
    assert any(0 < m.microsecond < 1000 for m in made)
    assert len(made) <= driver().VARIANTS_PER_ARGUMENT


def test_a_datetime_is_also_of_a_users_own_class_in_a_zone_of_its_own_and_at_a_months_end():
    """Red team round 58 (python-ulid): the scale picked by the length of the zone class's
    module name (the standard library's and zoneinfo's are all eight letters) and of the
    datetime class's name, and a fit wrong only from the 28th to the 30th."""
    import datetime

    moment = datetime.datetime(2026, 12, 7, 12, 52, 58, 57000, tzinfo=datetime.UTC)
    made = list(driver().variants(moment, []))
    assert any(type(m) is not datetime.datetime and m == moment for m in made)
    modules = {type(m.tzinfo).__module__ for m in made if m.tzinfo is not None}
    assert modules - {"datetime", "zoneinfo", "builtins"}
    own = [m for m in made if type(m.tzinfo).__module__ not in ("datetime", "zoneinfo")]
    assert {m.utcoffset() for m in own} >= {datetime.timedelta(0), datetime.timedelta(hours=3)}
    assert {m.day for m in made} >= {28, 29, 30}
    assert len(made) <= driver().VARIANTS_PER_ARGUMENT
    # each is shown the same way in every process (no address in its text), and crosses to
    # the processes that run it as itself
    assert all("0x" not in repr(m) for m in made)
    import pickle
    import sys

    module = driver()
    sys.modules[module.__name__] = module  # as the driver's own `__main__` is
    try:
        for m in module.variants(moment, []):
            back = pickle.loads(pickle.dumps(m))
            assert (type(back), repr(back), back) == (type(m), repr(m), m)
    finally:
        del sys.modules[module.__name__]


def test_a_datetimes_spread_holds_every_month_of_the_year():
    """Red team round 59 (python-ulid): a scale wrong in June alone, where no date fell."""
    import datetime

    moment = datetime.datetime(2026, 12, 7, 12, 52, 58, 57000, tzinfo=datetime.UTC)
    made = list(driver().variants(moment, []))
    assert {m.month for m in made} == set(range(1, 13))
    assert len(made) <= driver().VARIANTS_PER_ARGUMENT


def test_a_function_whose_locals_are_only_renamed_is_no_target():
    """Red team round 60 (iniconfig): two functions' locals renamed made each a target, whose
    calls crowded the changed function's neighbours out of the cap. Locals renamed alike are
    one program; a parameter renamed (a caller may name it) or a changed body is not."""
    from patchwitness.reference import _shapes

    before = (
        "def parse(line):\n    key_name, value = line.split('=')\n"
        "    for part in key_name:\n        pass\n    return key_name.strip(), value\n"
    )
    renamed = before.replace("key_name", "key")
    parameter = before.replace("line", "text")
    changed = before.replace(".strip()", ".lower()")
    shapes = {name: _shapes(text)[0]["parse"] for name, text in
              [("before", before), ("renamed", renamed), ("parameter", parameter),
               ("changed", changed)]}  # fmt: skip
    assert shapes["renamed"] == shapes["before"]
    assert shapes["parameter"] != shapes["before"]
    assert shapes["changed"] != shapes["before"]
