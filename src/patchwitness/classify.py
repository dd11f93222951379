"""What each file of a patch is to the run: production, test, test infrastructure, grader,
documentation, or unrecognised. Pure.

The classes are decided by an allowlist, not by a list of what is dangerous. A file is production
only when it is source the SHA's project builds or imports as the code under test (`SourceMap`):
a module inside the package under test, a C++ source or header of the project that shadows no
header of the system or a framework. Tests, test infrastructure (conftest.py, the test runner's
configuration, CMake test registration, test data and golden fixtures) and documentation keep
their classes. Everything else is `unrecognised`, with the reason: packaging metadata, bytecode,
a symlink, the configuration of a tool, a module outside the package under test or one whose name
shadows a module of the standard library, the test runner or what is installed. What the grader
cannot classify is not evidence of a fix.

After the patched run, `loaded_by_the_run` takes a second look: a file of the patch the run
imported or opened that is not production source (a document a test reads, a data file, a module
outside the package) is test infrastructure, whatever its name.

Grader-owned files (the task directory, allowlists, manifests) are their own class: a patch that
edits them is tampering with the grader, whatever the task allows.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from patchwitness import sourcefiles
from patchwitness.patch import FileChange
from patchwitness.pytest_config import PytestConfig, is_test_section, section_of_line


class FileKind(StrEnum):
    """What a file of the patch is to the run (its value is what the verdict says)."""

    PRODUCTION = "production"
    TEST = "test"
    INFRA = "infra"
    GRADER = "grader"
    DOC = "doc"
    UNRECOGNISED = "unrecognised"


PRODUCTION, TEST, INFRA, GRADER = (
    FileKind.PRODUCTION,
    FileKind.TEST,
    FileKind.INFRA,
    FileKind.GRADER,
)
DOC, UNRECOGNISED = FileKind.DOC, FileKind.UNRECOGNISED
KINDS = tuple(FileKind)

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
# A compiled extension's sources, production inside the package of a task that builds one.
EXTENSION_EXT = sourcefiles.CPP | {".pyx", ".pxd", ".pxi"}
DOC_EXT = {".md", ".rst", ".adoc"}
DOC_NAMES = (
    "readme*",
    "changes*",
    "changelog*",
    "history*",
    "news*",
    "authors*",
    "contributors*",
    "license*",
    "copying*",
    "notice*",
)
DOC_DIRS = {"doc", "docs"}

# Files that change how the interpreter or the test runner starts, wherever they sit.
STARTUP_HOOKS = {"conftest.py", "sitecustomize.py", "usercustomize.py"}
RUNNER_CONFIG = {
    "pytest.toml",
    ".pytest.toml",
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
# What the interpreter or importlib.metadata reads besides source: never a fix.
METADATA_DIRS = (".dist-info", ".egg-info", ".egg")
METADATA_NAMES = {"entry_points.txt", "PKG-INFO", "METADATA", "RECORD", "top_level.txt"}
BYTECODE_EXT = {".pyc", ".pyo"}


@dataclass(frozen=True)
class Classified:
    path: str
    kind: str
    why: str


@dataclass(frozen=True)
class SourceMap:
    """What the SHA's project builds or imports as the code under test.

    Python: the run's import roots (the tree and its `src/`), the package directories and the
    top-level modules of the project (those the SHA's run imported, and regular packages at an
    import root), and the names a new top-level module must not take (the standard library's,
    the installed packages', the test runner's). C++: which new headers shadow one outside the
    tree (path -> the header they shadow), read from the build's include paths."""

    python_roots: tuple[str, ...] = ("", "src")
    python_packages: frozenset[str] = frozenset()
    python_modules: frozenset[str] = frozenset()
    taken_names: frozenset[str] = frozenset()
    extension_sources: bool = False
    cpp_shadows: Mapping[str, str] = field(default_factory=dict)

    def own_names(self) -> frozenset[str]:
        """The top-level names of the project's own packages and modules."""
        packages = {p.rsplit("/", 1)[-1] for p in self.python_packages}
        modules = {m.rsplit("/", 1)[-1].split(".", 1)[0] for m in self.python_modules}
        return frozenset(packages | modules)

    def package_of(self, path: str) -> str | None:
        """The production package directory `path` sits in, if any."""
        for package in self.python_packages:
            if path.startswith(package + "/"):
                return package
        return None

    def top_level_name(self, path: str) -> str | None:
        """The module name `path` would take at an import root (`src/readline.py` ->
        `readline`, `json/__init__.py` -> `json`); None when it sits deeper."""
        for root in sorted(self.python_roots, key=len, reverse=True):
            prefix = root + "/" if root else ""
            if not path.startswith(prefix):
                continue
            rest = path[len(prefix) :]
            parts = rest.split("/")
            if len(parts) == 1 and sourcefiles.suffix(rest) in PY_EXT | BYTECODE_EXT | {".so"}:
                return parts[0].split(".", 1)[0]
            if len(parts) >= 2 and parts[0].isidentifier():
                return parts[0]
        return None


@dataclass
class ClassifyContext:
    """What the classifier may know besides the change itself."""

    # What the task's language says production source is, and its build files (languages/).
    rules: LanguageRules = field(default_factory=lambda: PYTHON_RULES)
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
    source: SourceMap = field(default_factory=SourceMap)
    # Files the patch adds that git's ignore rules leave out of a commit (Patch.ignored).
    ignored: frozenset[str] = frozenset()


@dataclass(frozen=True)
class _File:
    """One path of a change, with what the rules read of it."""

    path: str
    change: FileChange
    old_text: str | None
    new_text: str | None

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]

    @property
    def suffix(self) -> str:
        return sourcefiles.suffix(self.path)

    @property
    def dirs(self) -> list[str]:
        return [p.lower() for p in self.path.split("/")[:-1]]

    @property
    def cpp(self) -> bool:
        text = self.new_text if self.new_text is not None else self.old_text
        return sourcefiles.is_cpp(self.path, text)

    @property
    def code(self) -> bool:
        return self.suffix in PY_EXT or self.cpp


def _glob(path: str, patterns: list[str]) -> bool:
    for pattern in patterns:
        if fnmatch.fnmatch(path, pattern):
            return True
        if pattern.endswith("/**") and (path + "/").startswith(pattern[:-2]):
            return True
    return False


def classify(
    change: FileChange,
    old_text: str | None,
    new_text: str | None,
    ctx: ClassifyContext,
) -> Classified:
    return _classify(_File(change.path, change, old_text, new_text), ctx)


# Each rule answers (kind, why) or None; the first that answers decides. In order: what the task
# says, what no task permits, what tests and their infrastructure are, what production source is,
# documentation, and the rest (unrecognised).
Rule = Callable[[_File, ClassifyContext], tuple[str, str] | None]


def _classify(f: _File, ctx: ClassifyContext) -> Classified:
    for rule in rules_of(ctx.rules):
        found = rule(f, ctx)
        if found is not None:
            return Classified(f.path, found[0], found[1])
    raise AssertionError("the classifier has no catch-all rule")  # pragma: no cover


def task_globs(f: _File, ctx: ClassifyContext) -> tuple[str, str] | None:
    if _glob(f.path, ctx.grader_globs):
        return GRADER, "grader-owned file (task, allowlist or manifest)"
    if _glob(f.path, ctx.production_globs):
        return PRODUCTION, "task.toml paths.production"
    if _glob(f.path, ctx.infra_globs):
        return INFRA, "task.toml paths.infra"
    if _glob(f.path, ctx.test_globs):
        return TEST, "task.toml paths.test"
    return None


def symlink(f: _File, ctx: ClassifyContext) -> tuple[str, str] | None:
    if not f.change.symlink:
        return None
    if _in_test_dir(f) or (f.suffix in PY_EXT and ctx.pytest.is_test_file(f.path)):
        return TEST, "a symlink among the tests: what it points at is run as a test"
    return UNRECOGNISED, "a symlink: a second path to a file, which the run may load as either"


def bytecode_or_metadata(f: _File, ctx: ClassifyContext) -> tuple[str, str] | None:
    parts = f.path.split("/")
    if "__pycache__" in parts or f.suffix in BYTECODE_EXT:
        return UNRECOGNISED, "bytecode: the interpreter may load it in place of the source"
    if any(p.endswith(METADATA_DIRS) for p in parts[:-1]) or f.suffix in {".egg-link"}:
        return UNRECOGNISED, (
            "packaging metadata: importlib.metadata reads it (entry points load plugins)"
        )
    if f.name in METADATA_NAMES:
        return UNRECOGNISED, "packaging metadata"
    if f.change.binary:
        return UNRECOGNISED, "binary content: the grader does not read it"
    return None


def test_infrastructure(f: _File, ctx: ClassifyContext) -> tuple[str, str] | None:
    if f.name in STARTUP_HOOKS or f.suffix == ".pth":
        return INFRA, f"{f.name} changes how tests start"
    if f.name in RUNNER_CONFIG:
        return INFRA, f"{f.name} configures the test runner"
    if f.name in SHARED_CONFIG and _touches_test_section(f):
        return INFRA, f"edits a test section of {f.name}"
    if (f.name == "CMakeLists.txt" or f.suffix == ".cmake") and _touches_cmake_tests(f, ctx):
        return INFRA, "edits CMake test registration"
    return None


def tests(f: _File, ctx: ClassifyContext) -> tuple[str, str] | None:
    if f.suffix in PY_EXT and ctx.pytest.is_test_file(f.path):
        return TEST, "matches the repository's pytest python_files"
    if f.path in ctx.files_with_tests:
        return TEST, "holds tests"
    if f.cpp and f.path in ctx.test_sources:
        return TEST, "builds only a CMake test program"
    if f.code and _in_test_dir(f):
        return TEST, "test support code in a test directory"
    if f.cpp and any(fnmatch.fnmatch(f.name, pat) for pat in CPP_TEST_NAMES):
        return TEST, "named like a C++ test source"
    return None


def test_data(f: _File, ctx: ClassifyContext) -> tuple[str, str] | None:
    if f.code:
        return None
    if any(d in TEST_DIRS | DATA_DIRS for d in f.dirs):
        return INFRA, "test data or golden fixture"
    if f.suffix not in DOC_EXT and f.name not in SHARED_CONFIG | {"CMakeLists.txt"}:
        named = named_by_tests(f.path, ctx.test_strings)
        if named is not None:
            return INFRA, f"test data: {named} names it"
    return None


def python_production(f: _File, ctx: ClassifyContext) -> tuple[str, str] | None:
    source = ctx.source
    if f.path in source.python_modules:
        return PRODUCTION, "a module of the project under test"
    package = source.package_of(f.path)
    if package is None:
        return None
    if f.suffix in PY_EXT:
        return PRODUCTION, f"a module of the package under test ({package})"
    if f.suffix in EXTENSION_EXT:
        if source.extension_sources:
            return PRODUCTION, f"a source of the package's compiled extension ({package})"
        return None
    if not f.code:
        return PRODUCTION, f"a data file of the package under test ({package})"
    return None


def cpp_production(f: _File, ctx: ClassifyContext) -> tuple[str, str] | None:
    if not f.cpp:
        return None
    shadowed = ctx.source.cpp_shadows.get(f.path)
    if shadowed is not None:
        return UNRECOGNISED, (
            f"a new header that shadows {shadowed}: every file that includes it gets this one"
        )
    return PRODUCTION, "a C++ source or header of the project"


def outside_the_package(f: _File, ctx: ClassifyContext) -> tuple[str, str] | None:
    """Python source the project does not import as the code under test (and, in a Python
    task, C or C++ source outside the package's extension: a C++ task's rules claim all of it
    before this one)."""
    if f.suffix not in PY_EXT and not f.cpp:
        return None
    name = ctx.source.top_level_name(f.path)
    if name is not None and name in ctx.source.taken_names:
        return UNRECOGNISED, (
            f"a module named {name!r} shadows one of the standard library, the test runner or "
            "an installed package"
        )
    if f.change.status == "added" and name is not None:
        return UNRECOGNISED, "a new top-level module: no part of the package under test"
    return UNRECOGNISED, "source outside the package under test: the project does not import it"


def documentation(f: _File, ctx: ClassifyContext) -> tuple[str, str] | None:
    if f.code:
        return None
    if f.suffix in DOC_EXT or any(fnmatch.fnmatch(f.name.lower(), n) for n in DOC_NAMES):
        return DOC, "documentation"
    parts = f.path.split("/")
    if len(parts) > 1 and parts[0].lower() in DOC_DIRS:
        return DOC, "documentation (the docs directory)"
    return None


# What a fix may change in a project's CMake: which sources a target builds and what it links.
# A command that sets options, definitions, a dialect or properties, or runs anything, changes
# how the code compiles in some configuration the grader's builds may never be: not understood.
UNDERSTOOD_CMAKE = frozenset(
    {"add_library", "add_executable", "target_sources", "target_link_libraries"}
)


def build_files(f: _File, ctx: ClassifyContext) -> tuple[str, str] | None:
    """A C++ project's CMake files: an edit that only changes which sources a target builds or
    links is the production build; any other command it adds, removes or changes is a build
    configuration the grader does not understand (a change to how the tests build is also found
    by comparing the builds, after the run)."""
    if not (f.name == "CMakeLists.txt" or f.suffix == ".cmake"):
        return None
    touched = _cmake_commands(f.old_text, f.change.removed_lines) | _cmake_commands(
        f.new_text, f.change.added_lines
    )
    other = sorted(touched - UNDERSTOOD_CMAKE)
    if other:
        return UNRECOGNISED, f"a CMake edit of {', '.join(other[:3])}: build configuration"
    return PRODUCTION, "the project's build (which sources a target builds and links)"


def _cmake_commands(text: str | None, lines: list[int]) -> set[str]:
    """The commands that the given lines of a CMake file belong to; a line outside any command
    (a comment, a blank) adds none. The whole file, added or removed, when `lines` is all."""
    if text is None or not lines:
        return set()
    from patchwitness.census.cmake import commands

    wanted = set(lines)
    return {_cmake_meaning(c.name, c.args) for c in commands(text) if wanted & set(c.lines)}


# Sources a target hands on to whatever links it: compiled into every consumer, the test
# programs included, and into no user who only includes the headers (red team round 12:
# `target_sources(GSL INTERFACE ...)` put a translation unit into every test of a header-only
# library).
_PROPAGATED = {"INTERFACE", "PUBLIC"}


def _cmake_meaning(name: str, args: tuple[str, ...]) -> str:
    """A command's name, or `name INTERFACE` when it hands sources or what it links on to the
    target's consumers (an object library linked INTERFACE puts its objects there too)."""
    if name in ("target_sources", "add_library", "target_link_libraries") and (
        _PROPAGATED & set(args)
    ):
        return f"{name} INTERFACE"
    return name


def ignored_by_git(f: _File, ctx: ClassifyContext) -> tuple[str, str] | None:
    """A new file the repository's .gitignore names: the grade runs it, a commit of the change
    leaves it out, whatever the file is."""
    if f.path in ctx.ignored:
        return UNRECOGNISED, "git ignores it: a commit of the change leaves it out"
    return None


def unrecognised(f: _File, ctx: ClassifyContext) -> tuple[str, str] | None:
    if f.name in SHARED_CONFIG:
        return UNRECOGNISED, f"{f.name}: packaging or tool configuration the run may read"
    return UNRECOGNISED, (
        "not source the project builds or imports, nor a test, test infrastructure or documentation"
    )


@dataclass(frozen=True)
class LanguageRules:
    """The rules a language adds to the chain: what its production source is (before the
    rules for source outside the project and documentation), and its build files (after)."""

    source: tuple[Rule, ...]
    build: tuple[Rule, ...] = ()


PYTHON_RULES = LanguageRules(source=(python_production,))
CPP_RULES = LanguageRules(source=(cpp_production,), build=(build_files,))


def rules_of(language: LanguageRules) -> tuple[Rule, ...]:
    return (
        ignored_by_git,
        task_globs,
        symlink,
        bytecode_or_metadata,
        test_infrastructure,
        tests,
        test_data,
        *language.source,
        outside_the_package,
        documentation,
        *language.build,
        unrecognised,
    )


def loaded_by_the_run(found: Classified, loaded: frozenset[str] | None) -> Classified:
    """A document the patched run opened is test data (a README a test doctests or reads is
    test infrastructure, whatever it is called); an unrecognised file it loaded stays
    unrecognised, and says so. Production source and tests are loaded by design."""
    if loaded is None or found.path not in loaded:
        return found
    if found.kind == DOC:
        return Classified(found.path, INFRA, "test data: the test run read this document")
    if found.kind == UNRECOGNISED:
        return Classified(found.path, UNRECOGNISED, f"{found.why}; the test run loaded it")
    return found


READ_BY_THE_BUILD = "the production build reads it"


def compiled_source(found: Classified, text: str | bytes | None) -> bool:
    """Whether a production file is C or C++ the build compiles: by its name or content, or,
    whatever its name (`table.inc`, `ops.def`), because a production translation unit reads
    it (red team round 33 put a fit in a new `.inc` the library included: no gate read it as
    source)."""
    return found.why == READ_BY_THE_BUILD or sourcefiles.is_cpp(found.path, text)


def read_by_the_build(
    found: Classified, production: frozenset[str], tests: frozenset[str], shadows: Mapping[str, str]
) -> Classified:
    """C++: a file of the patch that is no source by its name (`ops.def`, `table.inc`) but that
    the compiles read: production when a production translation unit reads it, test
    infrastructure when only the tests' do. A header that shadows another stays unrecognised."""
    if found.kind not in (DOC, UNRECOGNISED) or found.path in shadows:
        return found
    if found.path in production:
        return Classified(found.path, PRODUCTION, READ_BY_THE_BUILD)
    if found.path in tests:
        return Classified(found.path, INFRA, "only the tests' build reads it")
    return found


def _in_test_dir(f: _File) -> bool:
    return any(d in TEST_DIRS for d in f.dirs)


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


def _touches_test_section(f: _File) -> bool:
    name, change, old_text, new_text = f.name, f.change, f.old_text, f.new_text
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


def _touches_cmake_tests(f: _File, ctx: ClassifyContext) -> bool:
    lines_of = ctx.cmake_registration
    if lines_of is None:
        from patchwitness.census.cmake import registration_lines

        lines_of = registration_lines
    change = f.change
    if f.old_text is not None and set(change.removed_lines) & lines_of(f.old_text):
        return True
    return f.new_text is not None and bool(set(change.added_lines) & lines_of(f.new_text))
