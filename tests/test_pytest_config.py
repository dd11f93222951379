"""The repository's pytest configuration, read in pytest's order."""

from __future__ import annotations

from patchwitness.pytest_config import PytestConfig, read_pytest_config


def test_defaults():
    cfg = read_pytest_config({})
    assert cfg.source is None
    assert cfg.is_test_file("tests/test_a.py")
    assert cfg.is_test_file("a_test.py")
    assert not cfg.is_test_file("tests/helpers.py")


def test_pytest_ini_wins_over_pyproject():
    cfg = read_pytest_config(
        {
            "pytest.ini": "[pytest]\npython_files = check_*.py\n",
            "pyproject.toml": '[tool.pytest.ini_options]\npython_files = ["nope_*.py"]\n',
        }
    )
    assert cfg.source == "pytest.ini"
    assert cfg.python_files == ("check_*.py",)


def test_pyproject_without_section_falls_through_to_setup_cfg():
    cfg = read_pytest_config(
        {
            "pyproject.toml": "[project]\nname = 'x'\n",
            "setup.cfg": "[tool:pytest]\ntestpaths = spec\npython_functions = it_*\n",
        }
    )
    assert cfg.source == "setup.cfg"
    assert cfg.testpaths == ("spec",)
    assert cfg.is_test_file("spec/test_a.py")
    assert not cfg.is_test_file("other/test_a.py")
    assert cfg.is_test_function("it_works")
    assert not cfg.is_test_function("test_works")


def test_tox_ini_and_addopts():
    cfg = read_pytest_config({"tox.ini": "[pytest]\naddopts = -q --deselect a.py::b\n"})
    assert cfg.addopts == ("-q", "--deselect", "a.py::b")


def test_prefix_and_glob_matching():
    cfg = PytestConfig(python_classes=("Check", "*Suite"), python_functions=("check",))
    assert cfg.is_test_class("CheckMath")
    assert cfg.is_test_class("MathSuite")
    assert not cfg.is_test_class("TestMath")
    assert cfg.is_test_function("check_one")


def test_testpaths_glob():
    cfg = PytestConfig(testpaths=("pkg/*/tests",))
    assert cfg.is_test_file("pkg/a/tests/test_x.py")
    assert not cfg.is_test_file("pkg/a/test_x.py")


def test_broken_toml_is_skipped():
    cfg = read_pytest_config({"pyproject.toml": "[[[", "tox.ini": "[pytest]\ntestpaths = t\n"})
    assert cfg.source == "tox.ini"
