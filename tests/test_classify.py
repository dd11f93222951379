"""File classes: production, test, test infrastructure, grader."""

from __future__ import annotations

import pytest

from patchwitness.classify import GRADER, INFRA, PRODUCTION, TEST, ClassifyContext, classify
from patchwitness.patch import FileChange
from patchwitness.pytest_config import PytestConfig


def change(path, added=((1, "x\n"),), removed=(), status="modified", old_path=None):
    return FileChange(
        path=path, old_path=old_path, status=status, added=tuple(added), removed=tuple(removed)
    )


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("src/shop/money.py", PRODUCTION),
        ("tests/test_money.py", TEST),
        ("pkg/money_test.py", TEST),
        ("tests/helpers.py", TEST),
        ("tests/conftest.py", INFRA),
        ("conftest.py", INFRA),
        ("src/sitecustomize.py", INFRA),
        ("src/evil.pth", INFRA),
        ("pytest.ini", INFRA),
        (".coveragerc", INFRA),
        ("noxfile.py", INFRA),
        ("tests/data/expected.json", INFRA),
        ("fixtures/golden.txt", INFRA),
        ("docs/index.md", PRODUCTION),
        ("src/codec.cpp", PRODUCTION),
        ("tests/codec_test.cc", TEST),
        ("src/golden_ring.cpp", TEST),
        ("test/main.cpp", TEST),
        ("CTestCustom.cmake", INFRA),
    ],
)
def test_builtin_classes(path, kind):
    assert classify(change(path), "", "", ClassifyContext()).kind == kind


def test_python_files_from_the_repository_config():
    ctx = ClassifyContext(pytest=PytestConfig(python_files=("check_*.py",)))
    assert classify(change("pkg/check_math.py"), "", "", ctx).kind == TEST
    assert classify(change("pkg/test_math.py"), "", "", ctx).kind == PRODUCTION


def test_file_holding_tests_is_a_test_file():
    ctx = ClassifyContext(files_with_tests={"src/selftest.cc"})
    assert classify(change("src/selftest.cc"), "", "", ctx).kind == TEST


def test_a_source_that_builds_only_a_test_program_is_a_test_file():
    ctx = ClassifyContext(language="cpp", test_sources=frozenset({"xmltest.cpp"}))
    assert classify(change("xmltest.cpp"), "", "", ctx).kind == TEST
    assert classify(change("tinyxml2.cpp"), "", "", ctx).kind == PRODUCTION


@pytest.mark.parametrize(
    ("path", "strings", "kind"),
    [
        ("resources/utf8testverify.xml", {"resources/utf8testverify.xml"}, INFRA),
        ("resources/utf8testverify.xml", {"./resources/utf8testverify.xml"}, INFRA),
        ("data/golden.txt", {"golden.txt"}, INFRA),
        ("data/golden.txt", {"../data/golden.txt"}, INFRA),
        # a tail must start at a directory boundary, and the names must be equal
        ("data/mygolden.txt", {"golden.txt"}, PRODUCTION),
        ("data/golden.txt", {"data/golden.txt.bak"}, PRODUCTION),
        # source files and documents are never test data by being named
        ("src/table.cpp", {"src/table.cpp"}, PRODUCTION),
        ("README.md", {"README.md"}, PRODUCTION),
        ("resources/other.xml", {"resources/utf8test.xml"}, PRODUCTION),
    ],
)
def test_a_file_the_tests_name_is_test_data(path, strings, kind):
    ctx = ClassifyContext(language="cpp", test_strings={"xmltest.cpp": strings})
    found = classify(change(path), "", "", ctx)
    assert found.kind == kind
    if kind == INFRA:
        assert "xmltest.cpp" in found.why


def test_task_globs_override():
    ctx = ClassifyContext(
        grader_globs=["eval/**"],
        production_globs=["tests/fake_prod.py"],
        infra_globs=["tools/*.sh"],
        test_globs=["spec/**"],
    )
    assert classify(change("eval/matrix.json"), "", "", ctx).kind == GRADER
    assert classify(change("tests/fake_prod.py"), "", "", ctx).kind == PRODUCTION
    assert classify(change("tools/run.sh"), "", "", ctx).kind == INFRA
    assert classify(change("spec/thing.rb"), "", "", ctx).kind == TEST


PYPROJECT_OLD = '[project]\nname = "x"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'


def test_pyproject_edit_outside_test_sections_is_production():
    new = PYPROJECT_OLD.replace('name = "x"', 'name = "y"')
    c = change("pyproject.toml", added=[(2, 'name = "y"\n')], removed=[(2, 'name = "x"\n')])
    assert classify(c, PYPROJECT_OLD, new, ClassifyContext()).kind == PRODUCTION


def test_pyproject_edit_inside_pytest_section_is_infra():
    new = PYPROJECT_OLD + 'addopts = "-k not slow"\n'
    c = change("pyproject.toml", added=[(6, 'addopts = "-k not slow"\n')])
    assert classify(c, PYPROJECT_OLD, new, ClassifyContext()).kind == INFRA


def test_setup_cfg_and_tox_sections():
    old = "[metadata]\nname = x\n\n[tool:pytest]\naddopts = -q\n"
    new = old.replace("-q", "-q --deselect t.py::a")
    c = change(
        "setup.cfg",
        added=[(5, "addopts = -q --deselect t.py::a\n")],
        removed=[(5, "addopts = -q\n")],
    )
    assert classify(c, old, new, ClassifyContext()).kind == INFRA
    tox_old = "[tox]\nenvlist = py\n[flake8]\nmax = 1\n"
    tox_new = tox_old.replace("max = 1", "max = 2")
    c = change("tox.ini", added=[(4, "max = 2\n")], removed=[(4, "max = 1\n")])
    assert classify(c, tox_old, tox_new, ClassifyContext()).kind == PRODUCTION


def test_new_pyproject_with_pytest_section_is_infra():
    c = change("pyproject.toml", status="added", added=[(1, "[tool.pytest.ini_options]\n")])
    assert classify(c, None, "[tool.pytest.ini_options]\n", ClassifyContext()).kind == INFRA


def test_cmake_registration_lines_use_the_scanner():
    ctx = ClassifyContext(cmake_registration=lambda text: {3} if "add_test" in text else set())
    old = "project(x)\nadd_library(a a.cc)\nadd_test(NAME t COMMAND t)\n"
    edit_test = change("CMakeLists.txt", added=[(3, "# gone\n")], removed=[(3, "add_test\n")])
    assert classify(edit_test, old, "project(x)\nadd_library(a a.cc)\n# gone\n", ctx).kind == INFRA
    edit_lib = change(
        "CMakeLists.txt",
        added=[(2, "add_library(a b.cc)\n")],
        removed=[(2, "add_library(a a.cc)\n")],
    )
    new = old.replace("a.cc)", "b.cc)")
    assert classify(edit_lib, old, new, ctx).kind == PRODUCTION


def test_rename_takes_the_stronger_class():
    c = change("src/moved.py", old_path="tests/test_moved.py", status="renamed")
    assert classify(c, "", "", ClassifyContext()).kind == TEST
