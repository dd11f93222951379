"""CMake test registration: which commands register tests, and which lines they occupy. Pure.

A patch that removes `add_test(...)`, drops a source from a test executable or flips
`set_tests_properties(... DISABLED TRUE)` deletes witnesses without touching a test source. This
module reads one CMake file and says which commands register tests, which targets they run, which
sources build those targets, and which lines all of that occupies, so that a patch touching any of
those lines can be classified as a test-infrastructure edit.

This is a tokenizer for CMake's command-invocation grammar, not an interpreter: variables are not
expanded, `if()` is not evaluated, `foreach()` is not unrolled. A target named `${name}` is matched
by the same text `${name}` in the same function body (or at top level), which covers the usual
loop of add_executable and add_test over a list. User functions that register tests
(`cxx_test(name ...)`) are found by `wrapper_functions`; a caller that sees the whole repository
collects them from every CMake file and passes them to `test_registration`, so their calls count
as registrations too. Everything stays a pure function of the text it is given.
"""

from __future__ import annotations

import posixpath
import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

# Commands that register tests or turn testing on, lower-case (CMake command names are not
# case-sensitive).
REGISTRATION_COMMANDS = frozenset(
    {
        "add_test",
        "gtest_discover_tests",
        "gtest_add_tests",
        "catch_discover_tests",
        "parseandaddcatchtests",
        "doctest_discover_tests",
        "enable_testing",
        "set_tests_properties",
    }
)
# The commands among those that create tests (what makes a user function a test wrapper).
_REGISTERING = REGISTRATION_COMMANDS - {"enable_testing", "set_tests_properties"}
# Modules whose inclusion provides test registration.
TEST_MODULES = frozenset(
    {"ctest", "googletest", "catch", "parseandaddcatchtests", "doctest", "doctestaddtests"}
)
# Commands that shape a target; when the target is a test target they are test infrastructure.
TARGET_COMMANDS = frozenset(
    {
        "add_executable",
        "target_sources",
        "target_link_libraries",
        "target_compile_definitions",
        "target_compile_options",
        "target_include_directories",
        "target_link_options",
        "set_target_properties",
    }
)
# Keywords of add_executable / target_sources that are not source files.
_SOURCE_KEYWORDS = frozenset(
    {
        "WIN32",
        "MACOSX_BUNDLE",
        "EXCLUDE_FROM_ALL",
        "INTERFACE",
        "PUBLIC",
        "PRIVATE",
        "FILE_SET",
        "TYPE",
        "BASE_DIRS",
        "FILES",
        "HEADERS",
        "CXX_MODULES",
    }
)
# add_test(NAME ...) keywords that end the COMMAND argument list.
_ADD_TEST_KEYWORDS = frozenset(
    {"NAME", "COMMAND", "CONFIGURATIONS", "WORKING_DIRECTORY", "COMMAND_EXPAND_LISTS"}
)

# Bracket comments and bracket arguments first (`#[[` is not a line comment), then line comments,
# quoted arguments (which may span lines), parentheses and unquoted arguments.
_TOKEN = re.compile(
    r"\#\[(?P<ceq>=*)\[.*?\](?P=ceq)\]"
    r"|\#[^\n]*"
    r"|\[(?P<beq>=*)\[.*?\](?P=beq)\]"
    r"|\"(?:[^\"\\]|\\.)*\"?"
    r"|\(|\)"
    r"|(?:[^\s()#\"\\]|\\.)+",
    re.S,
)
_BRACKET_OPEN = re.compile(r"\[(=*)\[")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TARGET_FILE = re.compile(r"\$<TARGET_FILE:([^>]+)>")
_PLAIN_NAME = re.compile(r"[\w.+-]+|\$\{\w+\}")
# `${PYTHON_EXECUTABLE}`, `${CMAKE_COMMAND}`: programs, not targets.
_PROGRAM_VARIABLE = re.compile(r"\$\{\w*(?:_EXECUTABLE|_COMMAND)\}")
_TEST_DIR = re.compile(r"test", re.I)


@dataclass(frozen=True, slots=True)
class Command:
    """One command invocation: lower-case name, arguments with quotes and brackets removed, and
    the 1-based lines of its name and of its closing parenthesis."""

    name: str
    args: tuple[str, ...]
    line: int
    end_line: int

    @property
    def lines(self) -> range:
        return range(self.line, self.end_line + 1)


@dataclass(frozen=True, slots=True)
class CMakeTests:
    """The test registration of one CMake file."""

    registrations: tuple[Command, ...] = ()  # add_test, *_discover_tests, include(CTest), ...
    enable_testing: bool = False  # enable_testing() or include(CTest) is present
    includes: tuple[str, ...] = ()  # test modules included, as written: CTest, GoogleTest, ...
    tests: tuple[str, ...] = ()  # names given to add_test
    targets: tuple[str, ...] = ()  # test targets, in order of first registration
    sources: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # target -> sources
    target_commands: tuple[Command, ...] = ()  # add_executable, target_* of test targets


def commands(text: str) -> list[Command]:
    """Every command invocation of a CMake file, in order; comments are skipped."""
    newlines = [m.start() for m in re.finditer("\n", text)]
    toks = [(m.start(), m.group()) for m in _TOKEN.finditer(text) if m.group()[0] != "#"]
    out: list[Command] = []
    index = 0
    while index < len(toks):
        pos, tok = toks[index]
        if index + 1 < len(toks) and toks[index + 1][1] == "(" and _IDENTIFIER.fullmatch(tok):
            args, end, index = _arguments(toks, index + 2)
            line, end_line = bisect_right(newlines, pos) + 1, bisect_right(newlines, end) + 1
            out.append(Command(tok.lower(), tuple(args), line, end_line))
        else:  # stray text between commands (invalid CMake): skip it
            index += 1
    return out


def _arguments(toks: list[tuple[int, str]], index: int) -> tuple[list[str], int, int]:
    """The arguments from token `index` up to the `)` closing the command: the arguments, the
    offset of that `)` and the index of the token after it. Nested parentheses (in `if()`
    conditions) are kept balanced and left out of the arguments."""
    args: list[str] = []
    depth = 1
    while index < len(toks):
        pos, tok = toks[index]
        index += 1
        if tok == "(":
            depth += 1
        elif tok == ")":
            depth -= 1
            if depth == 0:
                return args, pos, index
        else:
            args.append(_unquote(tok))
    # Unclosed: the command runs to the end of the file, as CMake's own error would report it.
    return args, toks[-1][0], index


def _unquote(tok: str) -> str:
    if tok.startswith('"'):
        return tok[1:-1] if len(tok) > 1 and tok.endswith('"') else tok[1:]
    bracket = _BRACKET_OPEN.match(tok)
    if bracket is not None and tok.endswith("]" + bracket.group(1) + "]"):
        body = tok[bracket.end() : -bracket.end()]
        return body[1:] if body.startswith("\n") else body  # CMake drops a leading newline
    return tok


def wrapper_functions(text: str, known: Iterable[str] = ()) -> set[str]:
    """Lower-case names of the functions and macros defined in `text` that register tests, directly
    or through another wrapper (`function(cxx_test name) ... add_test(...) endfunction()`).

    `known` are wrappers found in other files; a repository-wide caller collects them from every
    CMake file first, then passes them to `test_registration`.
    """
    definitions = list(_definitions(commands(text)))
    wrappers = {name.lower() for name in known}
    while True:  # to a fixed point: a wrapper may call a wrapper defined further down
        found = {name for name, body in definitions if _registers(body, wrappers)}
        if found <= wrappers:
            return found
        wrappers |= found


def _definitions(cmds: list[Command]) -> Iterator[tuple[str, list[Command]]]:
    """(lower-case name, body commands) of every function() and macro() definition."""
    name: str | None = None
    body: list[Command] = []
    for cmd in cmds:
        if cmd.name in ("function", "macro") and cmd.args and name is None:
            name, body = cmd.args[0].lower(), []
        elif cmd.name in ("endfunction", "endmacro") and name is not None:
            yield name, body
            name = None
        elif name is not None:
            body.append(cmd)


def _registers(body: list[Command], wrappers: set[str]) -> bool:
    return any(c.name in _REGISTERING or c.name in wrappers for c in body)


def test_registration(text: str, wrappers: Iterable[str] = ()) -> CMakeTests:
    """The test registration of one CMake file: registering commands, test names, test targets
    and the sources that build them.

    A call of a test wrapper (see `wrapper_functions`; those defined in `text` are found here, those
    defined elsewhere are passed in `wrappers`) is a registration whose first argument names the
    test target, the convention of `cxx_test(name libs srcs...)`-style helpers.
    """
    cmds = commands(text)
    scopes = _scopes(cmds)
    wrapper_names = wrapper_functions(text, wrappers) | {name.lower() for name in wrappers}
    registrations: list[Command] = []
    tests: list[str] = []
    targets: dict[str, set[int]] = {}  # target -> scopes registering it, in registration order
    for cmd, scope in zip(cmds, scopes, strict=True):
        if not _is_registration(cmd, wrapper_names):
            continue
        registrations.append(cmd)
        if cmd.name in wrapper_names:
            name, runs = None, _target_names(list(cmd.args[:1]))
        else:
            name, runs = _registered(cmd)
        if name is not None:
            tests.append(name)
        for target in runs:
            targets.setdefault(target, set()).add(scope)
    target_cmds = [
        cmd
        for cmd, scope in zip(cmds, scopes, strict=True)
        if cmd.name in TARGET_COMMANDS and _is_test_target(cmd.args[:1], scope, targets)
    ]
    includes = tuple(c.args[0] for c in registrations if c.name == "include")
    return CMakeTests(
        registrations=tuple(registrations),
        # include(CTest) calls enable_testing() itself (under BUILD_TESTING, on by default).
        enable_testing=any(c.name == "enable_testing" for c in cmds)
        or any(m.lower() == "ctest" for m in includes),
        includes=includes,
        tests=tuple(tests),
        targets=tuple(targets),
        sources=_sources(target_cmds),
        target_commands=tuple(target_cmds),
    )


def _is_registration(cmd: Command, wrappers: set[str]) -> bool:
    if cmd.name == "include":
        return bool(cmd.args) and _is_test_module(cmd.args[0])
    if cmd.name == "set_property":
        return cmd.args[:1] == ("TEST",)
    if cmd.name == "add_subdirectory":
        # Removing `add_subdirectory(tests)` removes every test below it.
        return bool(cmd.args) and _TEST_DIR.search(cmd.args[0]) is not None
    return cmd.name in REGISTRATION_COMMANDS or cmd.name in wrappers or _mentions_build_testing(cmd)


def _scopes(cmds: list[Command]) -> list[int]:
    """For each command, the index of the function()/macro() definition holding it, or -1."""
    scopes: list[int] = []
    current = -1
    for index, cmd in enumerate(cmds):
        if cmd.name in ("function", "macro") and current == -1:
            current = index
        scopes.append(current)
        if cmd.name in ("endfunction", "endmacro"):
            current = -1
    return scopes


def _is_test_target(first: tuple[str, ...], scope: int, targets: Mapping[str, set[int]]) -> bool:
    # A variable such as `${name}` only means the same target within one function body (function
    # variables are local) or at top level (the usual foreach over test names).
    if not first or first[0] not in targets:
        return False
    return "${" not in first[0] or scope in targets[first[0]]


def _sources(target_cmds: list[Command]) -> dict[str, tuple[str, ...]]:
    sources: dict[str, tuple[str, ...]] = {}
    for cmd in target_cmds:
        if cmd.name in ("add_executable", "target_sources") and not _is_alias(cmd):
            found = tuple(a for a in cmd.args[1:] if a not in _SOURCE_KEYWORDS)
            sources[cmd.args[0]] = sources.get(cmd.args[0], ()) + found
    return sources


def registration_lines(text: str, wrappers: Iterable[str] = ()) -> set[int]:
    """The 1-based lines of every test registration command (wrapper calls included, see
    `test_registration`) and of every command shaping a test target (add_executable,
    target_sources, target_link_libraries, ...)."""
    found = test_registration(text, wrappers)
    return {line for cmd in (*found.registrations, *found.target_commands) for line in cmd.lines}


def _registered(cmd: Command) -> tuple[str | None, list[str]]:
    """(test name, targets run) of one registration command."""
    args = cmd.args
    if cmd.name == "add_test":
        if args[:1] == ("NAME",):
            name = args[1] if len(args) > 1 else None
            command = list(_after(args, "COMMAND"))
            return name, _target_names(command[:1])
        return (args[0] if args else None), _target_names(list(args[1:2]))
    if cmd.name == "gtest_add_tests" and args[:1] == ("TARGET",):
        return None, _target_names(list(args[1:2]))
    if cmd.name in (
        "gtest_discover_tests",
        "gtest_add_tests",
        "catch_discover_tests",
        "doctest_discover_tests",
        "parseandaddcatchtests",
    ):
        return None, _target_names(list(args[:1]))
    return None, []


def _after(args: tuple[str, ...], keyword: str) -> Iterator[str]:
    """The arguments after `keyword` up to the next add_test keyword."""
    if keyword not in args:
        return
    for arg in args[args.index(keyword) + 1 :]:
        if arg in _ADD_TEST_KEYWORDS:
            return
        yield arg


def _target_names(candidates: list[str]) -> list[str]:
    """Target names among command words: plain names, `${var}`, or `$<TARGET_FILE:tgt>`.
    Paths and interpreter invocations with arguments are not targets."""
    names = []
    for word in candidates:
        generator = _TARGET_FILE.fullmatch(word)
        if generator is not None:
            names.append(generator.group(1))
        elif _PLAIN_NAME.fullmatch(word) and not _PROGRAM_VARIABLE.fullmatch(word):
            names.append(word)
    return names


def _is_test_module(module: str) -> bool:
    return module.lower().removesuffix(".cmake") in TEST_MODULES


def _is_alias(cmd: Command) -> bool:
    return cmd.name == "add_executable" and any(a in ("IMPORTED", "ALIAS") for a in cmd.args[1:3])


def _mentions_build_testing(cmd: Command) -> bool:
    # `if(BUILD_TESTING)` turned into `if(FALSE)` switches every test off.
    return any("BUILD_TESTING" in arg for arg in cmd.args)


# -- which source files build only test programs ------------------------------------------------

# Variables that name a directory a source path may start with: the CMake file's own directory
# (True), or the top of the repository (False; a project nested below the root is rare enough that
# the root is the better guess than nothing).
_DIR_VARIABLES = {
    "${CMAKE_CURRENT_SOURCE_DIR}": True,
    "${CMAKE_CURRENT_LIST_DIR}": True,
    "${PROJECT_SOURCE_DIR}": False,
    "${CMAKE_SOURCE_DIR}": False,
}
_LIBRARY_KEYWORDS = frozenset({"STATIC", "SHARED", "MODULE", "OBJECT", "INTERFACE", "UNKNOWN"})


def test_sources(files: Mapping[str, str]) -> set[str]:
    """Repository paths of the source files that build test programs and nothing else.

    `files` maps each CMake file's repository path to its text. A source of a test target (one
    that add_test, a test wrapper or a *_discover_tests runs) is a test source unless some other
    target (a library, a non-test program) is built from it too: a project that compiles its
    library's .cpp into the test executable must not see that .cpp called a test. Paths that
    need a variable other than the source-directory ones, or a generator expression, are left
    out: not knowing a path never makes a file a test."""
    wrappers: set[str] = set()
    for text in files.values():
        wrappers |= wrapper_functions(text)
    tests: set[str] = set()
    others: set[str] = set()
    for path, text in files.items():
        base = path.rsplit("/", 1)[0] if "/" in path else ""
        found = test_registration(text, wrappers)
        for sources in found.sources.values():
            tests.update(_source_paths(base, sources))
        test_targets = set(found.targets)
        for cmd in commands(text):
            if not cmd.args or cmd.args[0] in test_targets or _is_alias(cmd):
                continue
            if cmd.name in ("add_library", "add_executable", "target_sources"):
                args = [a for a in cmd.args[1:] if a not in _LIBRARY_KEYWORDS]
                others.update(_source_paths(base, [a for a in args if a not in _SOURCE_KEYWORDS]))
    return tests - others


def _source_paths(base: str, sources: Iterable[str]) -> Iterator[str]:
    for source in sources:
        top = base
        variable = next((v for v in _DIR_VARIABLES if source.startswith(v)), None)
        if variable is not None:
            source = source[len(variable) :].lstrip("/")
            top = base if _DIR_VARIABLES[variable] else ""
        elif source.startswith("/"):  # an absolute path: outside the repository
            continue
        if "${" in source or "$<" in source or not source:
            continue
        normal = posixpath.normpath(posixpath.join(top, source))
        if not normal.startswith(".."):
            yield normal


# -- the project's own options ------------------------------------------------------------------

_CONDITIONS = frozenset({"if", "elseif", "while"})


def project_options(files: Mapping[str, str]) -> set[str]:
    """The options a project declares (`option`, `cmake_dependent_option`) that choose what its
    code is, not whether its tests exist: what a user's default build leaves at their defaults.

    `files` maps each CMake file's repository path to its text. An option named in the
    condition of an `if()` (or `elseif()`, `while()`) around a command that brings tests (a
    registration, `include(CTest)`, or `add_subdirectory` of a folder whose CMake files register
    tests) is a test switch, kept out: with it at its default a user's build may have no tests
    to run at all."""
    wrappers: set[str] = set()
    for text in files.values():
        wrappers |= wrapper_functions(text)
    registering = {
        path.rsplit("/", 1)[0] if "/" in path else ""
        for path, text in files.items()
        if test_registration(text, wrappers).registrations
    }
    declared: set[str] = set()
    switches: set[str] = set()
    for path, text in files.items():
        base = path.rsplit("/", 1)[0] if "/" in path else ""
        conditions: list[list[str]] = []
        for cmd in commands(text):
            if cmd.name in ("option", "cmake_dependent_option") and cmd.args:
                declared.add(cmd.args[0])
            elif cmd.name in ("if", "while"):
                conditions.append(list(cmd.args))
            elif cmd.name == "elseif" and conditions:
                conditions[-1].extend(cmd.args)
            elif cmd.name in ("endif", "endwhile") and conditions:
                conditions.pop()
            elif _brings_tests(cmd, base, wrappers, registering):
                for args in conditions:
                    switches.update(_names_in(args))
    return declared - switches


def _brings_tests(cmd: Command, base: str, wrappers: set[str], registering: set[str]) -> bool:
    if _is_registration(cmd, wrappers):
        return True
    if cmd.name != "add_subdirectory" or not cmd.args:
        return False
    for folder in _source_paths(base, cmd.args[:1]):
        if any(d == folder or d.startswith(folder + "/") for d in registering):
            return True
    return False


def _names_in(args: Iterable[str]) -> set[str]:
    """The variable names a condition reads: bare words and `${NAME}`."""
    out: set[str] = set()
    for arg in args:
        out.update(re.findall(r"\$\{(\w+)\}", arg))
        if _IDENTIFIER.fullmatch(arg):
            out.add(arg)
    return out
