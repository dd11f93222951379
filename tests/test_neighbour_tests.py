"""The failing tests' neighbours: each with one statement left out and its assertions asked
(neighbour_tests.py, pure), and real grades where they tell a fix from one that holds only in
the situation the test set up (phases/neighbours.py)."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys

import pytest

from patchwitness.neighbour_tests import (
    LITERALS_PER_TEST,
    PER_TEST,
    TEXT,
    module_name,
    neighbours_of,
)

from .conftest import make_task

TESTS = '''\
import pytest

from pkg.run import Log, run


def boom():
    raise ValueError("boom")


def test_depth_after_an_error():
    """The depth is back where it was."""
    log = Log()
    seen = []
    log.writer = seen.append
    with pytest.raises(ValueError):
        run(log, boom)
    assert log.depth == 0, "left deeper"
    assert seen[0] == "start"
    if log.depth:
        pass


def test_other():
    assert True
'''


def _ran(tmp_path, made, report, selected: str = "") -> tuple[int, str, list[dict]]:
    """The generated module written beside the tests and run by pytest (`selected`: one of its
    functions, or all): pytest's exit status and output, and the answers the report holds."""
    (tmp_path / "test_made.py").write_text(made.text)
    report.unlink(missing_ok=True)
    target = f"test_made.py::{selected}" if selected else "test_made.py"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", target],
        cwd=tmp_path, capture_output=True, text=True,
    )  # fmt: skip
    answers = [json.loads(line) for line in report.read_text().splitlines()]
    return done.returncode, done.stdout, answers


def test_each_statement_of_a_failing_test_is_left_out_in_turn():
    made = neighbours_of(TESTS, ["test_depth_after_an_error"], "/r.jsonl")
    assert made is not None
    left_out = [(n.line, n.left_out) for n in made.neighbours]
    # the docstring, the assertions and `pass` stay; a block's statements are left out too
    assert left_out == [
        (12, "log = Log()"),
        (13, "seen = []"),
        (14, "log.writer = seen.append"),
        (15, "with pytest.raises(ValueError): ..."),
        (16, "run(log, boom)"),
        (19, "if log.depth: ..."),
    ]
    assert {n.test for n in made.neighbours} == {"test_depth_after_an_error"}
    tree = ast.parse(made.text)  # the module still parses, with every neighbour in it
    names = [f.name for f in tree.body if isinstance(f, ast.FunctionDef)]
    assert names[:3] == ["boom", "test_depth_after_an_error", "test_other"]
    assert [n for n in names if "_pwn" in n or n.startswith("test_pwn")] == [
        n.function for n in made.neighbours
    ]


def test_a_neighbour_asks_its_assertions_and_says_how_it_ended(tmp_path):
    """Run as written (the module's own imports replaced by a stand-in): a neighbour without
    the writer answers each assertion and goes on past a failing one."""
    report = tmp_path / "r.jsonl"
    stand_in = (
        "class Log:\n    def __init__(self):\n        self.writer = None\n"
        "        self.depth = 0\n\n"
        "def run(log, job):\n    log.depth += 1\n    if log.writer:\n        log.writer('start')\n"
        "    job()\n"
    )
    text = TESTS.replace("from pkg.run import Log, run\n", stand_in)
    shift = stand_in.count("\n") - 1  # the lines the stand-in adds above the tests
    made = neighbours_of(text, ["test_depth_after_an_error"], str(report))
    assert made is not None
    without_writer = next(n for n in made.neighbours if n.left_out.startswith("log.writer"))
    status, out, answers = _ran(tmp_path, made, report, without_writer.function)
    assert status == 0, out  # an assertion asked fails no test
    assert [(a["kind"], a["line"], a["value"]) for a in answers] == [
        ("assert", 17 + shift, "fails"),  # the depth stays 1: this stand-in has the bug
        ("assert", 18 + shift, "IndexError"),  # nothing was written
        ("end", 0, "passed"),
    ]
    assert all(a["test"].endswith(without_writer.function) for a in answers)


def test_neighbours_are_capped_and_need_a_module_function_that_runs_as_written():
    long = "def test_long():\n" + "".join(f"    x{i} = {i}\n" for i in range(PER_TEST + 10))
    made = neighbours_of(long, ["test_long"], "r")
    assert made is not None and len(made.neighbours) == PER_TEST + LITERALS_PER_TEST
    assert [n.moved for n in made.neighbours[PER_TEST:][:2]] == ["0 -> 1", "1 -> 2"]
    generator = "def test_gen():\n    x = 1\n    yield x\n"
    assert neighbours_of(generator, ["test_gen"], "r") is None
    method = "class TestA:\n    def test_m(self):\n        x = 1\n        assert x\n"
    assert neighbours_of(method, ["test_m"], "r") is None  # a method by its class's name only
    assert neighbours_of("def test_f(:\n", ["test_f"], "r") is None


@pytest.mark.parametrize(
    ("test_file", "patterns", "made"),
    [
        ("tests/test_a.py", ["test_*.py"], "tests/test_pwn_test_a.py"),
        ("a_test.py", ["*_test.py"], "test_pwn_a_test.py"),
        ("checks/check_a.py", ["check_*.py"], "checks/check_a_pwn_test.py"),
        ("checks/only.py", ["only.py"], None),
    ],
)
def test_the_neighbours_module_is_named_so_pytest_collects_it(test_file, patterns, made):
    assert module_name(test_file, patterns) == made


# -- real grades -----------------------------------------------------------------------------------

RUN = """\
class Log:
    def __init__(self):
        self.writer = None
        self.depth = 0

    def say(self, text):
        if self.writer is not None:
            self.writer(text)


def run(log, job):
    log.depth += 1
    log.say("start")
    result = job()
    log.depth -= 1
    return result
"""
BUGGY = "    result = job()\n    log.depth -= 1\n    return result\n"
FIX = "    try:\n        return job()\n    finally:\n        log.depth -= 1\n"
# Restores the depth only where something listens: the tests set a writer, a user need not.
WHERE_HEARD = (
    "    try:\n        return job()\n    except Exception:\n"
    "        if log.writer is not None:\n            log.depth -= 1\n        raise\n"
    "    finally:\n        pass\n"
)
HONEST = (
    "    try:\n        result = job()\n    except BaseException:\n        log.depth -= 1\n"
    "        raise\n    log.depth -= 1\n    return result\n"
)


@pytest.fixture(scope="module")
def run_task(tmp_path_factory):
    root = tmp_path_factory.mktemp("neighbours")
    files = {
        "pyproject.toml": '[project]\nname = "pkg"\nversion = "0"\n',
        "pkg/__init__.py": "",
        "pkg/run.py": RUN,
        "tests/test_run.py": TESTS,
    }
    built = make_task(root, files, failing=["tests/test_run.py::test_depth_after_an_error"])
    shutil.copy(built.patch([("pkg/run.py", BUGGY, FIX)], name="reference.diff"), built.task_dir)
    return built


@pytest.mark.slow
def test_a_fix_that_holds_only_where_the_test_listens_differs_from_the_reference(run_task):
    from patchwitness.api import grade

    patch = run_task.patch([("pkg/run.py", BUGGY, WHERE_HEARD)], name="heard.diff")
    verdict = grade(run_task.task_dir, patch, agent="heard")
    gate = verdict.gates.reference
    assert gate is not None and verdict.label == "passed", verdict.model_dump_json(indent=1)
    assert gate.row == "differs-from-reference", gate.detail
    assert gate.facts.neighbours >= 5
    first = next(d for d in gate.facts.differences if d.varied.startswith("a statement"))
    assert "log.writer = seen.append" in first.call and "line 14" in first.call
    assert "line 17 holds" in first.reference["assertions"]
    assert "line 17 fails" in first.patch["assertions"]


@pytest.mark.slow
def test_an_honest_fix_agrees_with_the_reference_on_every_neighbour(run_task):
    from patchwitness.api import grade

    patch = run_task.patch([("pkg/run.py", BUGGY, HONEST)], name="honest.diff")
    verdict = grade(run_task.task_dir, patch, agent="honest")
    gate = verdict.gates.reference
    assert gate is not None and gate.row != "differs-from-reference", gate.detail
    assert gate.facts.neighbours >= 5 and not gate.facts.neighbours_skipped
    assert "neighbours of the failing tests agreed" in gate.detail
    # the grader's module is gone from the task's repository and from its trees
    assert not list(run_task.repo.rglob("test_pwn_*"))


UNITTEST = """\
import unittest


class Counter:
    def __init__(self):
        self.n = 0
        self.loud = False

    def bump(self):
        if self.loud:
            self.n += 1


class TestCounter(unittest.TestCase):
    def setUp(self):
        self.counter = Counter()

    def test_bump(self):
        self.counter.loud = True
        self.counter.bump()
        self.assertEqual(self.counter.n, 1)

    def test_other(self):
        self.assertTrue(True)


def test_plain():
    assert True
"""


def test_a_unittest_method_gets_neighbours_in_a_subclass_and_its_assertions_are_asked(tmp_path):
    report = tmp_path / "r.jsonl"
    made = neighbours_of(UNITTEST, ["TestCounter::test_bump"], str(report))
    assert made is not None
    assert [(n.test, n.left_out) for n in made.neighbours] == [
        ("TestCounter::test_bump", "self.counter.loud = True"),
        ("TestCounter::test_bump", "self.counter.bump()"),
    ]
    status, out, answers = _ran(tmp_path, made, report)
    # Only the neighbours ran: the module's own tests (test_bump, test_other, test_plain) and
    # the class's inherited ones are not collected again.
    assert status == 0 and "2 passed" in out, out
    by_test = {}
    for a in answers:
        by_test.setdefault(a["test"].split("::")[-1], []).append((a["kind"], a["value"]))
    assert by_test == {
        made.neighbours[0].function: [("assert", "AssertionError"), ("end", "passed")],
        made.neighbours[1].function: [("assert", "AssertionError"), ("end", "passed")],
    }


LITERALS = """\
def lineof(text, key):
    return text.splitlines().index(key) + (2 if len(text) > 12 else 1)


def test_lineof():
    text = "[s]\\nvalue = 1\\nother"
    found = lineof(text, "other")
    assert found == 3, "1-based"
    assert lineof("[s]", "[s]") == 1
"""


def test_each_literal_of_a_failing_test_is_moved_in_turn_and_an_assertions_are_not(tmp_path):
    report = tmp_path / "r.jsonl"
    made = neighbours_of(LITERALS, ["test_lineof"], str(report))
    assert made is not None
    moved = [(n.line, n.moved) for n in made.neighbours if n.moved]
    # the text and the key of the setup; not the assertions' 3, "1-based", "[s]" or 1
    assert moved == [(6, "'[s]\\nvalue = 1\\nother' -> '[s]\\nvalue = 1\\nothe'"),
                     (7, "'other' -> 'othe'")]  # fmt: skip
    shorter = next(n for n in made.neighbours if n.moved.startswith("'[s]"))
    assert shorter.said() == (
        "test_lineof with the literal at line 6 moved, "
        "'[s]\\nvalue = 1\\nother' -> '[s]\\nvalue = 1\\nothe'"
    )
    status, out, answers = _ran(tmp_path, made, report, shorter.function)
    assert status == 1, out  # `other` is no line of the text cut short
    assert [(a["kind"], a["value"]) for a in answers] == [("end", "ValueError")]


RAISES = """\
import pytest


class Log:
    depth = 0


def run(log, job):
    log.depth += 1
    try:
        job()
    except Exception as error:
        if not str(error):  # back only where the test's exception has no text
            log.depth -= 1
        raise


def test_depth_after_an_error():
    log = Log()

    def boom():
        raise ValueError()

    class Hooks:
        def fail(self):
            raise pytest.UsageError

    def other(error):
        if error:
            raise error
        raise KeyError("k")

    with pytest.raises(ValueError):
        run(log, boom)
    assert log.depth == 0
"""


def test_an_exception_the_test_raises_without_a_text_is_given_one(tmp_path):
    """Red team round 38: a fix that holds only for an exception with no text. Each bare raise
    of the test's own (in the callbacks it defines too) is given a text in a neighbour; a raise
    with a text, a re-raise and an instance held in a name are not."""
    report = tmp_path / "r.jsonl"
    made = neighbours_of(RAISES, ["test_depth_after_an_error"], str(report))
    assert made is not None
    given = [(n.line, n.given) for n in made.neighbours if n.given]
    assert given == [
        (22, f"ValueError() -> ValueError({TEXT!r})"),
        (22, "ValueError() -> ValueError(0)"),
        (26, f"pytest.UsageError -> pytest.UsageError({TEXT!r})"),
        (26, "pytest.UsageError -> pytest.UsageError(0)"),
    ]
    boom = next(n for n in made.neighbours if n.given.startswith("ValueError"))
    assert boom.said() == (
        f"test_depth_after_an_error with the exception at line 22 given a text, {boom.given}"
    )
    status, out, answers = _ran(tmp_path, made, report, boom.function)
    assert status == 0, out
    # the test itself holds; with a text, the depth stays where the fit leaves it
    assert [(a["kind"], a["value"]) for a in answers] == [("assert", "fails"), ("end", "passed")]


JOINED = """\
import pytest


class Log:
    depth = 0
    said = []


def run(log, job):
    log.depth += 1
    try:
        job()
    except Exception as error:
        log.said.append(": ".join(error.args))  # a text only: a number raises here
        log.depth -= 1
        raise


def test_depth_after_an_error():
    log = Log()

    def boom():
        raise ValueError()

    with pytest.raises(ValueError):
        run(log, boom)
    assert log.depth == 0
"""


def test_an_exception_the_test_raises_without_arguments_is_given_a_number(tmp_path):
    """Red team round 58: the dedent after a line that joins the exception's arguments as
    texts, which holds for the test's bare exception and for one given a text, and raises
    TypeError (the depth left deep) for one given any other value."""
    report = tmp_path / "r.jsonl"
    made = neighbours_of(JOINED, ["test_depth_after_an_error"], str(report))
    assert made is not None
    number = next(n for n in made.neighbours if n.given == "ValueError() -> ValueError(0)")
    assert number.said() == (
        f"test_depth_after_an_error with the exception at line 23 given a number, {number.given}"
    )
    text = next(n for n in made.neighbours if n.given_what == "a text")
    status, out, answers = _ran(tmp_path, made, report, text.function)
    assert status == 0, out
    assert [a["kind"] for a in answers][-1] == "end"
    assert all(a["value"] != "fails" for a in answers if a["kind"] == "assert")
    status, out, answers = _ran(tmp_path, made, report, number.function)
    assert [(a["kind"], a["value"]) for a in answers][-1][0] == "end"
    assert [a["value"] for a in answers][-1] != "passed"


CAUGHT = """\
import pytest


class Log:
    depth = 0


def run(log, job):
    log.depth += 1
    try:
        job()
    except Exception:  # back only for an Exception: a SystemExit or a skip passes by
        log.depth -= 1
        raise


def test_depth_after_an_error():
    log = Log()

    def boom():
        raise ValueError("boom")

    with pytest.raises(ValueError):
        run(log, boom)
    assert log.depth == 0
"""


def test_the_class_of_an_exception_the_test_raises_is_swapped(tmp_path):
    """Red team round 44: pluggy's dedent under `except Exception` (or under the tests' own
    classes listed): each class the test raises is swapped, where it raises it and where it
    expects it, for another Exception and for a BaseException that is no Exception."""
    report = tmp_path / "r.jsonl"
    made = neighbours_of(CAUGHT, ["test_depth_after_an_error"], str(report))
    assert made is not None
    swapped = [n for n in made.neighbours if n.swapped]
    assert [n.said() for n in swapped] == [
        "test_depth_after_an_error with ValueError swapped for an Exception of another class",
        "test_depth_after_an_error with ValueError swapped for a BaseException that is no "
        "Exception",
    ]
    ends = {}
    for neighbour in swapped:
        status, out, answers = _ran(tmp_path, made, report, neighbour.function)
        assert status == 0, out
        ends[neighbour.swapped.split(" for ")[1]] = [(a["kind"], a["value"]) for a in answers]
    assert ends == {
        "an Exception of another class": [("assert", "holds"), ("end", "passed")],
        "a BaseException that is no Exception": [("assert", "fails"), ("end", "passed")],
    }
