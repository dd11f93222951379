"""Which class each file of a patch belongs to: production, test, test infrastructure or grader.
Pure.

Test infrastructure counts as test files (DESIGN.md): conftest.py, the pytest/tox/coverage sections
of shared config files, interpreter start-up hooks, CMake test registration, test data and golden
fixtures. Grader-owned files (the task directory, allowlists, manifests) are their own class: a
patch that edits them is tampering with the grader, whatever the task allows.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from dataclasses import dataclass, field

from patchwitness import sourcefiles
from patchwitness.patch import FileChange
from patchwitness.pytest_config import PytestConfig, is_test_section, section_of_line

PRODUCTION, TEST, INFRA, GRADER = "production", "test", "infra", "grader"

TEST_DIRS = {"test", "tests", "testing", "__tests__", "unittests", "unit_tests", "goldens"}
DATA_DIRS = {
    "testdata",
    "test_data",
    "fixtures",
    "golden",
    "goldens",
    "__snapshots__",
    "snapshots",
    "expected",
}
PY_EXT = sourcefiles.PY
# Documents a test may name (a README it doctests) without the document becoming test data.
DOC_EXT = {".md", ".rst", ".adoc"}

# Files that change how the interpreter or the test runner starts, wherever they sit.
STARTUP_HOOKS = {"conftest.py", "sitecustomize.py", "usercustomize.py"}
RUNNER_CONFIG = {
    "pytest.ini",
    ".pytest.ini",
    ".coveragerc",
    "noxfile.py",
    "CTestCustom.cmake",
    "CTestConfig.cmake",
    "gcovr.cfg",
    ".gcovr.cfg",
    "CTestTestfile.cmake",
}
SHARED_CONFIG = {"pyproject.toml", "setup.cfg", "tox.ini"}
CPP_TEST_NAMES = ("*_test.*", "test_*.*", "*_tests.*", "*_unittest.*", "golden_*.*", "*_golden.*")


@dataclass(frozen=True)
class Classified:
    path: str
    kind: str
    why: str


@dataclass
class ClassifyContext:
    """What the classifier may know besides the change itself."""

    language: str = "python"
    pytest: PytestConfig = field(default_factory=PytestConfig)
    test_globs: list[str] = field(default_factory=list)
    infra_globs: list[str] = field(default_factory=list)
    production_globs: list[str] = field(default_factory=list)
    grader_globs: list[str] = field(default_factory=list)
    files_with_tests: set[str] = field(default_factory=set)
    # Sources that build only test programs (the repository's CMake test targets).
    test_sources: frozenset[str] = frozenset()
    # Quoted strings of the test files that look like paths: test file -> strings.
    test_strings: dict[str, set[str]] = field(default_factory=dict)
    cmake_registration: Callable[[str], set[int]] | None = None


def _glob(path: str, patterns: list[str]) -> bool:
    for pattern in patterns:
        if fnmatch.fnmatch(path, pattern):
            return True
        if pattern.endswith("/**") and (path + "/").startswith(pattern[:-2]):
            return True
    return False


def _dirs(path: str) -> list[str]:
    return [p.lower() for p in path.split("/")[:-1]]


def classify(
    change: FileChange,
    old_text: str | None,
    new_text: str | None,
    ctx: ClassifyContext,
) -> Classified:
    for path in sorted(change.paths):
        found = _classify_path(path, change, old_text, new_text, ctx)
        if found.kind != PRODUCTION:
            return found
    return Classified(change.path, PRODUCTION, "production code")


def _classify_path(
    path: str, change: FileChange, old_text: str | None, new_text: str | None, ctx: ClassifyContext
) -> Classified:
    name = path.rsplit("/", 1)[-1]
    suffix = sourcefiles.suffix(path)
    cpp = sourcefiles.is_cpp(path, new_text if new_text is not None else old_text)
    code = suffix in PY_EXT or cpp
    if _glob(path, ctx.grader_globs):
        return Classified(path, GRADER, "grader-owned file (task, allowlist or manifest)")
    if _glob(path, ctx.production_globs):
        return Classified(path, PRODUCTION, "task.toml paths.production")
    if _glob(path, ctx.infra_globs):
        return Classified(path, INFRA, "task.toml paths.infra")
    if _glob(path, ctx.test_globs):
        return Classified(path, TEST, "task.toml paths.test")
    if name in STARTUP_HOOKS or suffix == ".pth":
        return Classified(path, INFRA, f"{name} changes how tests start")
    if name in RUNNER_CONFIG:
        return Classified(path, INFRA, f"{name} configures the test runner")
    if name in SHARED_CONFIG and _touches_test_section(name, change, old_text, new_text):
        return Classified(path, INFRA, f"edits a test section of {name}")
    if (name == "CMakeLists.txt" or suffix == ".cmake") and _touches_cmake_tests(
        change, old_text, new_text, ctx
    ):
        return Classified(path, INFRA, "edits CMake test registration")
    if suffix in PY_EXT and ctx.pytest.is_test_file(path):
        return Classified(path, TEST, "matches the repository's pytest python_files")
    if path in ctx.files_with_tests:
        return Classified(path, TEST, "holds tests")
    if cpp and path in ctx.test_sources:
        return Classified(path, TEST, "builds only a CMake test program")
    dirs = _dirs(path)
    if code and any(d in TEST_DIRS for d in dirs):
        return Classified(path, TEST, "test support code in a test directory")
    if cpp and any(fnmatch.fnmatch(name, pat) for pat in CPP_TEST_NAMES):
        return Classified(path, TEST, "named like a C++ test source")
    if not code and any(d in TEST_DIRS | DATA_DIRS for d in dirs):
        return Classified(path, INFRA, "test data or golden fixture")
    if not code and suffix not in DOC_EXT and name not in SHARED_CONFIG | {"CMakeLists.txt"}:
        named = named_by_tests(path, ctx.test_strings)
        if named is not None:
            return Classified(path, INFRA, f"test data: {named} names it")
    return Classified(path, PRODUCTION, "production code")


def named_by_tests(path: str, strings: dict[str, set[str]]) -> str | None:
    """The first test file that names `path` in a string: the whole repository path, or a tail
    of it that starts at a directory boundary (`"resources/out.xml"`, `"golden.txt"`), since a
    test opens its data relative to its working directory."""
    for test_file, found in sorted(strings.items()):
        for text in found:
            name = text.removeprefix("./")
            while name.startswith("../"):
                name = name[3:]
            if name and (path == name or path.endswith("/" + name)):
                return test_file
    return None


def _touches_test_section(
    name: str, change: FileChange, old_text: str | None, new_text: str | None
) -> bool:
    if old_text is None or new_text is None:
        # The whole file appears or disappears: it touches a test section if it has one.
        text = new_text if new_text is not None else old_text
        if text is None:
            return False
        lines = range(1, text.count("\n") + 2)
        return any(is_test_section(name, section_of_line(name, text, n)) for n in lines)
    for number in change.removed_lines:
        if is_test_section(name, section_of_line(name, old_text, number)):
            return True
    return any(
        is_test_section(name, section_of_line(name, new_text, n)) for n in change.added_lines
    )


def _touches_cmake_tests(
    change: FileChange, old_text: str | None, new_text: str | None, ctx: ClassifyContext
) -> bool:
    lines_of = ctx.cmake_registration
    if lines_of is None:
        from patchwitness.census.cmake import registration_lines

        lines_of = registration_lines
    if old_text is not None and set(change.removed_lines) & lines_of(old_text):
        return True
    return new_text is not None and bool(set(change.added_lines) & lines_of(new_text))
