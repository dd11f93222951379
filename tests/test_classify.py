"""File classes: production, test, test infrastructure, grader, documentation, unrecognised.
Row by row of the classifier's rules (classify.rules_of), on paths and source maps alone."""

from __future__ import annotations

import pytest

from patchwitness.classify import (
    CPP_RULES,
    DOC,
    GRADER,
    INFRA,
    PRODUCTION,
    PYTHON_RULES,
    TEST,
    UNRECOGNISED,
    Classified,
    ClassifyContext,
    SourceMap,
    classify,
    loaded_by_the_run,
    rules_of,
)
from patchwitness.patch import FileChange
from patchwitness.pytest_config import PytestConfig

# A Python project with a src layout: the package `shop` and a top-level module `tool.py`.
SHOP = SourceMap(
    python_roots=("", "src"),
    python_packages=frozenset({"src/shop"}),
    python_modules=frozenset({"tool.py"}),
    taken_names=frozenset({"json", "readline", "pytest", "_pytest", "pluggy"}),
)


def change(path, added=((1, "x\n"),), removed=(), status="modified", **kw):
    return FileChange(path=path, status=status, added=tuple(added), removed=tuple(removed), **kw)


def ctx(**kw) -> ClassifyContext:
    return ClassifyContext(source=SHOP, **kw)


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("src/shop/money.py", PRODUCTION),
        ("src/shop/sub/new_module.py", PRODUCTION),
        ("src/shop/prices.json", PRODUCTION),
        ("tool.py", PRODUCTION),
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
        ("pytest.toml", INFRA),
        (".pytest.toml", INFRA),
        ("docs/index.md", DOC),
        ("README.rst", DOC),
        ("CHANGES", DOC),
        ("docs/conf.txt", DOC),
        # not source the project imports, nor a test, infrastructure or documentation
        ("setup.py", UNRECOGNISED),
        ("scripts/release.py", UNRECOGNISED),
        ("src/newpkg/__init__.py", UNRECOGNISED),
        ("helper.py", UNRECOGNISED),
        ("src/shop/__pycache__/money.cpython-311.pyc", UNRECOGNISED),
        ("src/shop/money.pyc", UNRECOGNISED),
        ("src/shop-1.0.dist-info/entry_points.txt", UNRECOGNISED),
        ("src/shop.egg-info/PKG-INFO", UNRECOGNISED),
        ("entry_points.txt", UNRECOGNISED),
        ("requirements.txt", UNRECOGNISED),
        (".gitattributes", UNRECOGNISED),
        ("Makefile", UNRECOGNISED),
        ("src/codec.cpp", UNRECOGNISED),  # C++ in a Python task without a compiled extension
    ],
)
def test_python_classes(path, kind):
    status = "added" if path.endswith(("new_module.py", "__init__.py", "helper.py")) else "modified"
    assert classify(change(path, status=status), "", "", ctx()).kind == kind


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("src/codec.cpp", PRODUCTION),
        ("include/lib/codec.hpp", PRODUCTION),
        ("tests/codec_test.cc", TEST),
        ("src/golden_ring.cpp", TEST),
        ("test/main.cpp", TEST),
        ("CTestCustom.cmake", INFRA),
        ("cmake/warnings.cmake", PRODUCTION),
        ("README.md", DOC),
        ("tools/gen.py", UNRECOGNISED),
    ],
)
def test_cpp_classes(path, kind):
    found = classify(change(path), "", "", ClassifyContext(rules=CPP_RULES))
    assert found.kind == kind, found


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("readline.py", "shadows"),
        ("src/json/__init__.py", "shadows"),
        ("src/pytest.py", "shadows"),
        ("src/brandnew.py", "new top-level module"),
    ],
)
def test_a_new_module_outside_the_package_is_unrecognised(path, why):
    found = classify(change(path, status="added"), None, "x = 1\n", ctx())
    assert found.kind == UNRECOGNISED and why in found.why


def test_a_header_that_shadows_a_system_header_is_unrecognised():
    source = SourceMap(cpp_shadows={"include/gtest/gtest.h": "<gtest/gtest.h>"})
    context = ClassifyContext(rules=CPP_RULES, source=source)
    found = classify(change("include/gtest/gtest.h", status="added"), None, "", context)
    assert found.kind == UNRECOGNISED and "<gtest/gtest.h>" in found.why
    other = classify(change("include/lib/new.h", status="added"), None, "", context)
    assert other.kind == PRODUCTION


def test_a_compiled_extensions_sources_are_production_only_when_the_task_builds_one():
    built = SourceMap(python_packages=frozenset({"src/shop"}), extension_sources=True)
    c = change("src/shop/_speedups.c")
    assert classify(c, "", "", ClassifyContext(source=built)).kind == PRODUCTION
    assert classify(c, "", "", ctx()).kind == UNRECOGNISED


def test_symlinks_are_judged_by_where_they_sit():
    among_tests = change("tests/test_alias.py", status="added", symlink=True, mode="120000")
    assert classify(among_tests, None, "../src/shop/money.py", ctx()).kind == TEST
    elsewhere = change("src/shop/alias.py", status="added", symlink=True, mode="120000")
    found = classify(elsewhere, None, "money.py", ctx())
    assert found.kind == UNRECOGNISED and "symlink" in found.why


def test_a_file_git_ignores_is_unrecognised_whatever_it_is():
    """Red team round 22: pluggy's .gitignore names src/pluggy/_version.py; a fix written there
    runs in the grade and is left out of every commit of the change."""
    inside = change("src/shop/_version.py", status="added")
    assert classify(inside, None, "X = 1\n", ctx()).kind == PRODUCTION
    found = classify(inside, None, "X = 1\n", ctx(ignored=frozenset({"src/shop/_version.py"})))
    assert found.kind == UNRECOGNISED and "git ignores it" in found.why
    test = change("tests/test_new.py", status="added")
    assert classify(test, None, "", ctx(ignored=frozenset({"tests/test_new.py"}))).kind == (
        UNRECOGNISED
    )


def test_binary_content_is_unrecognised_even_inside_the_package():
    found = classify(change("src/shop/table.bin", binary=True), "", "", ctx())
    assert found.kind == UNRECOGNISED


def test_what_the_run_loaded_is_judged_again():
    doc = Classified("README.md", DOC, "documentation")
    assert loaded_by_the_run(doc, frozenset({"README.md"})).kind == INFRA
    assert loaded_by_the_run(doc, frozenset()).kind == DOC
    assert loaded_by_the_run(doc, None).kind == DOC
    odd = Classified("helper.py", UNRECOGNISED, "a new top-level module")
    again = loaded_by_the_run(odd, frozenset({"helper.py"}))
    assert again.kind == UNRECOGNISED and "loaded" in again.why
    prod = Classified("src/shop/money.py", PRODUCTION, "a module")
    assert loaded_by_the_run(prod, frozenset({"src/shop/money.py"})) == prod


def test_every_rule_decides_something():
    """Each rule answers for at least one path above: none is dead."""
    names = {rule.__name__ for rules in (PYTHON_RULES, CPP_RULES) for rule in rules_of(rules)}
    assert names == {
        "ignored_by_git",
        "task_globs",
        "symlink",
        "bytecode_or_metadata",
        "test_infrastructure",
        "tests",
        "test_data",
        "python_production",
        "cpp_production",
        "outside_the_package",
        "documentation",
        "build_files",
        "unrecognised",
    }


def test_python_files_from_the_repository_config():
    context = ctx(pytest=PytestConfig(python_files=("check_*.py",)))
    assert classify(change("src/shop/check_math.py"), "", "", context).kind == TEST
    assert classify(change("src/shop/test_math.py"), "", "", context).kind == PRODUCTION


def test_file_holding_tests_is_a_test_file():
    context = ClassifyContext(rules=CPP_RULES, files_with_tests={"src/selftest.cc"})
    assert classify(change("src/selftest.cc"), "", "", context).kind == TEST


def test_a_source_that_builds_only_a_test_program_is_a_test_file():
    ctx = ClassifyContext(rules=CPP_RULES, test_sources=frozenset({"xmltest.cpp"}))
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
        ("data/mygolden.txt", {"golden.txt"}, UNRECOGNISED),
        ("data/golden.txt", {"data/golden.txt.bak"}, UNRECOGNISED),
        # source files and documents are never test data by being named
        ("src/table.cpp", {"src/table.cpp"}, PRODUCTION),
        ("README.md", {"README.md"}, DOC),
        ("resources/other.xml", {"resources/utf8test.xml"}, UNRECOGNISED),
    ],
)
def test_a_file_the_tests_name_is_test_data(path, strings, kind):
    ctx = ClassifyContext(rules=CPP_RULES, test_strings={"xmltest.cpp": strings})
    found = classify(change(path), "", "", ctx)
    assert found.kind == kind
    if kind == INFRA:
        assert "xmltest.cpp" in found.why


def test_task_globs_override():
    context = ClassifyContext(
        grader_globs=["eval/**"],
        production_globs=["tests/fake_prod.py"],
        infra_globs=["tools/*.sh"],
        test_globs=["spec/**"],
    )
    assert classify(change("eval/matrix.json"), "", "", context).kind == GRADER
    assert classify(change("tests/fake_prod.py"), "", "", context).kind == PRODUCTION
    assert classify(change("tools/run.sh"), "", "", context).kind == INFRA
    assert classify(change("spec/thing.rb"), "", "", context).kind == TEST


PYPROJECT_OLD = '[project]\nname = "x"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'


def test_pyproject_edit_outside_test_sections_is_unrecognised():
    new = PYPROJECT_OLD.replace('name = "x"', 'name = "y"')
    c = change("pyproject.toml", added=[(2, 'name = "y"\n')], removed=[(2, 'name = "x"\n')])
    found = classify(c, PYPROJECT_OLD, new, ClassifyContext())
    assert found.kind == UNRECOGNISED and "configuration" in found.why


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
    assert classify(c, tox_old, tox_new, ClassifyContext()).kind == UNRECOGNISED


def test_new_pyproject_with_pytest_section_is_infra():
    c = change("pyproject.toml", status="added", added=[(1, "[tool.pytest.ini_options]\n")])
    assert classify(c, None, "[tool.pytest.ini_options]\n", ClassifyContext()).kind == INFRA


def test_cmake_registration_lines_use_the_scanner():
    ctx = ClassifyContext(
        rules=CPP_RULES, cmake_registration=lambda text: {3} if "add_test" in text else set()
    )
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


@pytest.mark.parametrize(
    ("added", "kind"),
    [
        ("add_library(a a.cc b.cc)\n", PRODUCTION),
        ("target_link_libraries(a PRIVATE m)\n", PRODUCTION),
        ("target_link_libraries(a INTERFACE checks_objects)\n", UNRECOGNISED),
        ("# a comment\n", PRODUCTION),
        ("target_compile_options(a INTERFACE --std=c++14)\n", UNRECOGNISED),
        ("add_compile_definitions(FIXED)\n", UNRECOGNISED),
        ("if(NOT CMAKE_BUILD_TYPE)\n", UNRECOGNISED),
        ("set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES x.cmake)\n", UNRECOGNISED),
        ("target_sources(a PRIVATE c.cc)\n", PRODUCTION),
        # sources handed on to every program that links the target (red team round 12)
        ("target_sources(a INTERFACE src/checks.cpp)\n", UNRECOGNISED),
        ("target_sources(a PUBLIC $<BUILD_INTERFACE:src/checks.cpp>)\n", UNRECOGNISED),
        ("add_library(h INTERFACE src/checks.cpp)\n", UNRECOGNISED),
    ],
)
def test_a_cmake_edit_is_understood_only_as_sources_and_links(added, kind):
    old = "project(x)\nadd_library(a a.cc)\n"
    new = old + added
    c = change("CMakeLists.txt", added=[(3, added)])
    context = ClassifyContext(rules=CPP_RULES, cmake_registration=lambda text: set())
    found = classify(c, old, new, context)
    assert found.kind == kind, found


def test_a_file_the_production_build_reads_is_compiled_source_whatever_its_name():
    """Red team round 33 put a fit in a new `tinyxml2_letters.inc` that the library included:
    production by what the build reads, it was no C++ to the mutants or to coverage."""
    from patchwitness.classify import READ_BY_THE_BUILD, Classified, compiled_source

    assert compiled_source(Classified("letters.inc", PRODUCTION, READ_BY_THE_BUILD), None)
    assert compiled_source(Classified("src/a.cpp", PRODUCTION, "source"), None)
    assert not compiled_source(Classified("notes.inc", PRODUCTION, "listed by the task"), None)
