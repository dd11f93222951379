"""The repository's own pytest configuration, read the way pytest reads it. Pure.

Test files are found by `python_files` and `testpaths` from the same config file pytest would pick
(pytest 9's pytest.toml and .pytest.toml with their [pytest] table, pytest.ini, then
pyproject.toml's [tool.pytest] or [tool.pytest.ini_options], then tox.ini's [pytest], then
setup.cfg's [tool:pytest]), not by assuming `test_*.py`. Which file pytest really read is the
run's to say (the probe reports it); this reading is what the census and the classifier need
before anything runs.
"""

from __future__ import annotations

import configparser
import fnmatch
import shlex
import tomllib
from dataclasses import dataclass, field

CONFIG_FILES = (
    "pytest.toml",
    ".pytest.toml",
    "pytest.ini",
    ".pytest.ini",
    "pyproject.toml",
    "tox.ini",
    "setup.cfg",
)

# Sections of shared config files that configure testing; an edit inside them is an edit to test
# infrastructure, an edit elsewhere in the file is not.
TEST_SECTIONS = {
    "pyproject.toml": ("tool.pytest", "tool.coverage", "tool.tox", "tool.hatch.envs"),
    "setup.cfg": ("tool:pytest", "coverage:", "pytest"),
    "tox.ini": ("pytest", "tox", "testenv", "coverage:"),
}


@dataclass(frozen=True)
class PytestConfig:
    source: str | None = None
    python_files: tuple[str, ...] = ("test_*.py", "*_test.py")
    python_classes: tuple[str, ...] = ("Test",)
    python_functions: tuple[str, ...] = ("test",)
    testpaths: tuple[str, ...] = ()
    addopts: tuple[str, ...] = field(default_factory=tuple)

    def is_test_file(self, path: str) -> bool:
        name = path.rsplit("/", 1)[-1]
        if not any(_match(path, name, pat) for pat in self.python_files):
            return False
        if not self.testpaths:
            return True
        return any(_under(path, tp) for tp in self.testpaths)

    def is_test_function(self, name: str) -> bool:
        return any(_prefix_or_glob(name, p) for p in self.python_functions)

    def is_test_class(self, name: str) -> bool:
        return any(_prefix_or_glob(name, p) for p in self.python_classes)


def _match(path: str, name: str, pattern: str) -> bool:
    if "/" in pattern:
        return fnmatch.fnmatch(path, pattern) or fnmatch.fnmatch(path, "*/" + pattern)
    return fnmatch.fnmatch(name, pattern)


def _under(path: str, testpath: str) -> bool:
    testpath = testpath.strip("/").removeprefix("./")
    if testpath in ("", "."):
        return True
    if any(ch in testpath for ch in "*?["):
        return fnmatch.fnmatch(path, testpath) or fnmatch.fnmatch(path, testpath + "/*")
    return path == testpath or path.startswith(testpath + "/")


def _prefix_or_glob(name: str, pattern: str) -> bool:
    if any(ch in pattern for ch in "*?["):
        return fnmatch.fnmatch(name, pattern)
    return name.startswith(pattern)


def _split(value: object) -> tuple[str, ...]:
    if isinstance(value, list):
        return tuple(str(v) for v in value)
    if isinstance(value, str):
        return tuple(value.split())
    return ()


def _ini_section(text: str, section: str) -> dict[str, str] | None:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    if not parser.has_section(section):
        return None
    return dict(parser.items(section))


def _from_mapping(source: str, values: dict) -> PytestConfig:
    default = PytestConfig()
    addopts = values.get("addopts", ())
    if isinstance(addopts, str):
        try:
            addopts = tuple(shlex.split(addopts))
        except ValueError:
            addopts = tuple(addopts.split())
    return PytestConfig(
        source=source,
        python_files=_split(values.get("python_files")) or default.python_files,
        python_classes=_split(values.get("python_classes")) or default.python_classes,
        python_functions=_split(values.get("python_functions")) or default.python_functions,
        testpaths=_split(values.get("testpaths")),
        addopts=tuple(addopts),
    )


def read_pytest_config(files: dict[str, str]) -> PytestConfig:
    """Pick the config pytest would pick from the root's config files (name -> text)."""
    for name in CONFIG_FILES:
        text = files.get(name)
        if text is None:
            continue
        if name in ("pytest.toml", ".pytest.toml"):
            try:
                table = tomllib.loads(text).get("pytest", {})
            except tomllib.TOMLDecodeError:
                table = {}
            return _from_mapping(name, table if isinstance(table, dict) else {})
        if name in ("pytest.ini", ".pytest.ini"):
            return _from_mapping(name, _ini_section(text, "pytest") or {})
        if name == "pyproject.toml":
            try:
                data = tomllib.loads(text)
            except tomllib.TOMLDecodeError:
                continue
            tool = data.get("tool", {}).get("pytest", {})
            native = {k: v for k, v in tool.items() if k != "ini_options"}
            section = native or tool.get("ini_options")
            if section is not None:
                return _from_mapping(name, section)
        if name == "tox.ini":
            section = _ini_section(text, "pytest")
            if section is not None:
                return _from_mapping(name, section)
        if name == "setup.cfg":
            section = _ini_section(text, "tool:pytest")
            if section is not None:
                return _from_mapping(name, section)
    return PytestConfig()


def section_of_line(filename: str, text: str, line: int) -> str | None:
    """The [section] header a 1-based line of an INI or TOML file sits under, if any."""
    current = None
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if stripped.startswith("[") and "]" in stripped:
            current = stripped.strip("[]").strip()
        if number == line:
            return current
    return current


def is_test_section(filename: str, section: str | None) -> bool:
    prefixes = TEST_SECTIONS.get(filename.rsplit("/", 1)[-1])
    if prefixes is None or section is None:
        return False
    return any(section == p or section.startswith(p) for p in prefixes)
