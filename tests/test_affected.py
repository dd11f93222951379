"""Which tests a new commit can change (affected.py), from the import graphs (python_imports.py):
row by row, and every doubt runs everything."""

from __future__ import annotations

import pytest

from patchwitness.affected import Rerun, plan, unread
from patchwitness.python_imports import graph

TREE = {
    "src/pkg/__init__.py": "",
    "src/pkg/a.py": "def a():\n    return 1\n",
    "src/pkg/b.py": "from .a import a\n\ndef b():\n    return a() + 1\n",
    "src/pkg/c.py": "def c():\n    return 3\n",
    "src/pkg/loose.py": "X = 1\n",
    "tests/conftest.py": "import pytest\n",
    "tests/test_a.py": "from pkg.a import a\n\ndef test_a():\n    assert a() == 1\n",
    "tests/test_b.py": "from pkg import b\n\ndef test_b():\n    assert b.b() == 2\n",
    "tests/test_c.py": "import pkg.c\n\ndef test_c():\n    assert pkg.c.c() == 3\n",
    "setup.py": "from setuptools import setup\nsetup()\n",
}
TESTS = ("tests/test_a.py", "tests/test_b.py", "tests/test_c.py")


def decide(changes: dict[str, str | None], runner=("pytest", "os"), unread_files=()) -> Rerun:
    after = dict(TREE)
    for path, text in changes.items():
        if text is None:
            after.pop(path, None)
        else:
            after[path] = text
    return plan(list(changes), graph(TREE), graph(after), TESTS, runner, unread_files)


@pytest.mark.parametrize(
    ("changes", "files"),
    [
        # a module: the tests that import it, through another module too
        ({"src/pkg/a.py": "def a():\n    return 2\n"}, ("tests/test_a.py", "tests/test_b.py")),
        ({"src/pkg/c.py": "def c():\n    return 4\n"}, ("tests/test_c.py",)),
        # a test file: its own tests
        (
            {"tests/test_c.py": TREE["tests/test_c.py"] + "\ndef test_d():\n    pass\n"},
            ("tests/test_c.py",),
        ),
        # nothing changed: nothing runs again
        ({}, ()),
    ],
)
def test_the_tests_whose_files_or_imports_changed_run_again(changes, files):
    assert decide(changes) == Rerun(files=files)


def test_an_import_the_commit_adds_is_seen_through_the_new_commits_graph():
    """`c` now imports `loose`, and `loose` changed: test_c reaches it only at the new commit."""
    decided = decide(
        {
            "src/pkg/c.py": "from pkg.loose import X\n\ndef c():\n    return 3 * X\n",
            "src/pkg/loose.py": "X = 2\n",
        }
    )
    assert decided == Rerun(files=("tests/test_c.py",))


def test_an_import_the_commit_removes_is_seen_through_the_old_commits_graph():
    """`b` no longer imports `a`, and `a` changed: test_b reached it before the commit."""
    decided = decide(
        {
            "src/pkg/b.py": "def b():\n    return 2\n",
            "src/pkg/a.py": "def a():\n    return 5\n",
        }
    )
    assert decided.files == ("tests/test_a.py", "tests/test_b.py")


@pytest.mark.parametrize(
    ("changes", "why"),
    [
        ({"data/table.csv": "1,2\n"}, "data/table.csv changed and is no Python module"),
        ({"tests/conftest.py": "import os\n"}, "a conftest is loaded before every test"),
        ({"src/pkg/loose.py": "X = 2\n"}, "no test file imports it"),
        ({"setup.py": "print()\n"}, "no test file imports it"),
        # every test file reaches the change
        ({"src/pkg/__init__.py": "from .c import c\n"}, "every test file may load"),
    ],
)
def test_what_the_graph_cannot_vouch_for_runs_everything(changes, why):
    decided = decide(changes)
    assert why in decided.everything and decided.files == ()


def test_a_module_the_test_runner_loaded_first_runs_everything():
    """pluggy under pytest: the runner imported the changed package before any test."""
    decided = decide({"src/pkg/c.py": "def c():\n    return 4\n"}, runner=("pytest", "pkg"))
    assert "the test runner loads pkg first" in decided.everything


def test_a_module_a_conftest_loads_runs_everything():
    tree = {**TREE, "tests/conftest.py": "from pkg.c import c\n"}
    after = {**tree, "src/pkg/c.py": "def c():\n    return 4\n"}
    decided = plan(["src/pkg/c.py"], graph(tree), graph(after), TESTS, ())
    assert "tests/conftest.py loads it" in decided.everything


@pytest.mark.parametrize(
    "opening",
    [
        "import importlib\nm = importlib.import_module('pkg.c')\n",
        "m = __import__('pkg.c')\n",
        "import subprocess\n",
        "pytest_plugins = ['pkg.c']\n",
        "def test_x(pytester):\n    pass\n",
        "def broken(:\n",
    ],
)
def test_a_test_that_loads_code_no_import_shows_runs_again_whenever_anything_changes(opening):
    tree = {**TREE, "tests/test_a.py": opening + TREE["tests/test_a.py"]}
    after = {**tree, "src/pkg/c.py": "def c():\n    return 4\n"}
    decided = plan(["src/pkg/c.py"], graph(tree), graph(after), TESTS, ())
    assert decided == Rerun(files=("tests/test_a.py", "tests/test_c.py"))


def test_import_forms_resolve_to_every_file_they_may_load():
    found = graph(
        {
            "src/pkg/__init__.py": "",
            "src/pkg/sub/__init__.py": "",
            "src/pkg/sub/deep.py": "from .. import c\nfrom ..c import name\n",
            "src/pkg/c.py": "",
            "app.py": "import pkg.sub.deep as d\n",
        }
    )
    assert found.edges["app.py"] == {
        "src/pkg/__init__.py",
        "src/pkg/sub/__init__.py",
        "src/pkg/sub/deep.py",
    }
    assert found.edges["src/pkg/sub/deep.py"] == {"src/pkg/__init__.py", "src/pkg/c.py"}
    assert found.open == frozenset()


LOADED = ("src/pkg/a.py", "tests/test_a.py", "data/read.csv")


@pytest.mark.parametrize(
    ("modified", "loaded", "escaped", "expected"),
    [
        # a file the run never opened, changed in place
        ((".pre-commit-config.yaml",), LOADED, (), {".pre-commit-config.yaml"}),
        # ... but the run opened this one
        (("data/read.csv",), LOADED, (), set()),
        # what the import system reads, or compiled code, is never unread
        (("src/pkg/z.py", "pkg.pth", "lib.so", "stub.pyi", "m.pyc"), LOADED, (), set()),
        # the run never said what it opened, or how it ran code elsewhere
        (("notes.txt",), None, (), set()),
        (("notes.txt",), LOADED, None, set()),
        # it started a process (or loaded a library by ctypes): that one's reads are unseen
        (("notes.txt",), LOADED, ("subprocess.Popen",), set()),
        (("notes.txt",), LOADED, ("ctypes.dlopen",), set()),
        # it loaded a compiled module of the tree, which reads what it likes
        (("notes.txt",), (*LOADED, "src/pkg/_speedups.so"), (), set()),
    ],
)
def test_a_file_is_unread_only_when_the_run_said_it_never_opened_it(
    modified, loaded, escaped, expected
):
    assert unread(modified, loaded, escaped) == expected


def test_an_unread_file_leaves_the_selection_to_the_rest_of_the_commit():
    alone = decide({".github/workflows/test.yml": "on: push\n"})
    assert "no Python module" in alone.everything
    unread_only = decide(
        {".github/workflows/test.yml": "on: push\n"},
        unread_files={".github/workflows/test.yml"},
    )
    assert unread_only == Rerun(files=())
    with_code = decide(
        {".github/workflows/test.yml": "on: push\n", "src/pkg/c.py": "def c():\n    return 4\n"},
        unread_files={".github/workflows/test.yml"},
    )
    assert with_code == Rerun(files=("tests/test_c.py",))
