"""What the SHA's project builds or imports as the code under test (classify.SourceMap), read
from the SHA's files, its test run and its environment.

Python: the packages and top-level modules the SHA's own test run imported from the tree, and the
regular packages (`__init__.py`) at the run's import roots; and every name a new top-level module
must not take: the standard library's and the installed packages' (the test runner and its
dependencies among them), as the task's interpreter lists them. C++: which headers the patch adds
would shadow a header outside the tree, on the include paths the compiler searches.
"""

from __future__ import annotations

import functools
import re
import shlex
import sysconfig
from collections.abc import Iterable
from pathlib import Path

from patchwitness import sourcefiles
from patchwitness.classify import PY_EXT, STARTUP_HOOKS, TEST_DIRS, SourceMap
from patchwitness.patch import Patch
from patchwitness.pytest_config import PytestConfig
from patchwitness.runner import run_tool
from patchwitness.workspace import files_at


def python_roots(files: Iterable[str]) -> tuple[str, ...]:
    """The tree's import roots as a run sees them: the tree, and its `src/` when the SHA has one
    (suites/python.py puts both on PYTHONPATH)."""
    return ("", "src") if any(f.startswith("src/") for f in files) else ("",)


def _root_and_rest(path: str, roots: tuple[str, ...]) -> tuple[str, list[str]] | None:
    for root in sorted(roots, key=len, reverse=True):
        prefix = root + "/" if root else ""
        if path.startswith(prefix):
            return root, path[len(prefix) :].split("/")
    return None


def _is_test(path: str, config: PytestConfig) -> bool:
    parts = [p.lower() for p in path.split("/")]
    return (
        config.is_test_file(path)
        or parts[-1] in STARTUP_HOOKS
        or any(p in TEST_DIRS for p in parts[:-1])
        or any(path == t or path.startswith(t.strip("/") + "/") for t in config.testpaths)
    )


# Files at an import root that are the project's packaging or tooling, never its code.
NOT_MODULES = {"setup.py", "noxfile.py", "fabfile.py", "tasks.py", "dodo.py", "conftest.py"}


def _project_module(path: str, config: PytestConfig) -> bool:
    name = path.rsplit("/", 1)[-1]
    return (
        sourcefiles.suffix(name) in PY_EXT
        and name[: -len(sourcefiles.suffix(name))].isidentifier()
        and name not in NOT_MODULES | STARTUP_HOOKS
        and not _is_test(path, config)
    )


def python_source_map(
    files: list[str],
    loaded: Iterable[str],
    config: PytestConfig,
    taken: frozenset[str],
    extension_sources: bool,
) -> SourceMap:
    """Pure: the SHA's file list, the tree files its run loaded, its pytest configuration, the
    names the environment takes."""
    roots = python_roots(files)
    packages: set[str] = set()
    modules: set[str] = set()
    for path in loaded:
        if sourcefiles.suffix(path) not in PY_EXT or _is_test(path, config):
            continue
        found = _root_and_rest(path, roots)
        if found is None:
            continue
        root, rest = found
        prefix = root + "/" if root else ""
        if len(rest) == 1:
            modules.add(path)
        elif rest[0].isidentifier():
            packages.add(prefix + rest[0])
    for path in files:
        found = _root_and_rest(path, roots)
        if found is None:
            continue
        root, rest = found
        prefix = root + "/" if root else ""
        if len(rest) == 2 and rest[1] == "__init__.py" and rest[0].isidentifier():
            package = prefix + rest[0]
            if not _is_test(package + "/__init__.py", config) and rest[0].lower() not in TEST_DIRS:
                packages.add(package)
        elif len(rest) == 1 and _project_module(path, config):
            # A module of the project at an import root (a single-module project, a script
            # the tests run): production whether or not the test process imported it.
            modules.add(path)
    own = {p.rsplit("/", 1)[-1] for p in packages} | {
        m.rsplit("/", 1)[-1].split(".", 1)[0] for m in modules
    }
    return SourceMap(
        python_roots=roots,
        python_packages=frozenset(packages),
        python_modules=frozenset(modules),
        taken_names=frozenset(taken - own),
        extension_sources=extension_sources,
    )


def for_python(task, base, env) -> SourceMap:
    loaded = base.surface.loaded if base.surface is not None and base.surface.loaded else ()
    surface = env.surface
    return python_source_map(
        files_at(task.repo, task.sha),
        loaded,
        base.pytest_config,
        surface.stdlib | surface.installed,
        bool(task.options.python.build),
    )


# -- C++: headers that shadow one outside the tree ----------------------------------------------

_SEARCH = re.compile(r"#include <\.\.\.> search starts here:\n(.*?)End of search list", re.DOTALL)


@functools.cache
def compiler_include_dirs() -> tuple[str, ...]:
    """The directories the C++ compiler searches for `<...>` includes, as it prints them."""
    try:
        done = run_tool(["c++", "-x", "c++", "-E", "-v", "-"], cwd=Path("/"), stdin=b"")
    except OSError:
        return ()
    match = _SEARCH.search(done.stderr.decode("utf-8", "replace"))
    if match is None:
        return ()
    return tuple(line.strip() for line in match.group(1).splitlines() if line.strip())


@functools.cache
def c_library_functions() -> frozenset[str]:
    """The functions the C library the compiler links exports (`nm -D --defined-only`): a
    global function of the same name in production code replaces it for the whole program."""
    try:
        where = run_tool(["c++", "-print-file-name=libc.so.6"], cwd=Path("/"))
        path = where.stdout.decode().strip()
        if not path.startswith("/"):
            return frozenset()
        listed = run_tool(["nm", "-D", "--defined-only", path], cwd=Path("/"))
    except OSError:
        return frozenset()
    names = set()
    for line in listed.stdout.decode("utf-8", "replace").splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in ("T", "W", "i"):
            names.add(parts[2].split("@", 1)[0])
    # Reserved names too (`__towupper_l`): libstdc++ calls some through the PLT, and a
    # program's own definition takes those calls where it is exported (red team round 53).
    return frozenset(names)


def include_flags(commands: Iterable[str]) -> tuple[set[str], set[str]]:
    """(-I/-iquote directories, -isystem/-idirafter directories) of compile command lines."""
    local: set[str] = set()
    system: set[str] = set()
    for command in commands:
        try:
            argv = shlex.split(command)
        except ValueError:
            continue
        for index, arg in enumerate(argv):
            for flag, into in (("-I", local), ("-iquote", local), ("-isystem", system)):
                if arg == flag and index + 1 < len(argv):
                    into.add(argv[index + 1])
                elif arg.startswith(flag) and len(arg) > len(flag):
                    into.add(arg[len(flag) :])
            if arg == "-idirafter" and index + 1 < len(argv):
                system.add(argv[index + 1])
    return local, system


def include_names(path: str, include_dirs: Iterable[str]) -> set[str]:
    """The names an `#include <...>` may reach `path` by: relative to every include directory
    of the tree it sits under (`include/gtest/gtest.h` -> `gtest/gtest.h`), and relative to any
    directory called `include` on its way (the common layout, when no build says more)."""
    names = set()
    for folder in include_dirs:
        prefix = folder.rstrip("/") + "/" if folder.strip("/.") else ""
        if path.startswith(prefix):
            names.add(path[len(prefix) :])
    parts = path.split("/")
    for index, part in enumerate(parts[:-1]):
        if part == "include":
            names.add("/".join(parts[index + 1 :]))
    return {n for n in names if n}


def cpp_shadows(
    patch: Patch, tree: Path, commands: Iterable[str] = (), extra_system: Iterable[str] = ()
) -> dict[str, str]:
    """New headers of the patch that take the name of a header outside the tree: path -> the
    header (`<gtest/gtest.h>`). Include directories come from the build's compile commands
    when there are some."""
    local, system = include_flags(commands)
    roots = (str(tree).rstrip("/") + "/", "$TREE/")
    in_tree = {d[len(r) :] for d in local | system for r in roots if d.startswith(r)}
    in_tree |= {"" for d in local | system if d in (str(tree), "$TREE")}
    outside = [
        d
        for d in (*compiler_include_dirs(), *system, *local, *extra_system)
        if d.startswith("/") and not d.startswith(roots[0])
    ]
    out: dict[str, str] = {}
    for change in patch.files:
        if change.status != "added" or not _header_like(change.path, tree):
            continue
        for name in sorted(include_names(change.path, in_tree)):
            if any((Path(d) / name).is_file() for d in outside):
                out[change.path] = f"<{name}>"
                break
    return out


def _header_like(path: str, tree: Path) -> bool:
    found = sourcefiles.suffix(path)
    if found:
        return found in sourcefiles.CPP and found not in {".c", ".cc", ".cpp", ".cxx", ".c++"}
    try:
        head = (tree / path).read_bytes()[: sourcefiles.HEAD_BYTES]
    except OSError:
        return False
    return sourcefiles.looks_like_cpp(head) or bool(head)


# -- C++: how the tests' build differs from a user's ---------------------------------------------

_PREDEFINED = re.compile(r"^#define ([A-Za-z_]\w*) ?(.*)$", re.MULTILINE)
# Flags that decide which macros a compile predefines; everything else (include paths, outputs,
# warnings) does not, and a path of the tree or the build is never handed to the compiler here.
_MACRO_FLAGS = ("-D", "-U", "-std=", "-f", "-m", "-O", "-pthread", "-ansi", "-g")


def macro_flags(flags: str) -> tuple[str, ...]:
    try:
        argv = shlex.split(flags)
    except ValueError:
        return ()
    return tuple(
        a for a in argv if a.startswith(_MACRO_FLAGS) and "$TREE" not in a and "$BUILD" not in a
    )


# The system headers every unit reaches: what they define from the build's definitions
# (glibc's <features.h> turns -D_FILE_OFFSET_BITS=64 into __USE_FILE_OFFSET64) tells the
# builds apart as much as the definitions themselves.
SYSTEM_PRELUDE = b"#include <cstdio>\n#include <cstdlib>\n#include <cstring>\n#include <cstdint>\n"


@functools.cache
def predefined(flags: tuple[str, ...] = ()) -> dict[str, str]:
    """The object-like macros the C++ compiler defines under `flags` (() : its defaults), with
    those the C and C library headers derive from them; the compiler's alone where the headers
    do not compile under those flags."""
    for prelude in (SYSTEM_PRELUDE, b""):
        command = ["c++", *flags, "-dM", "-E", "-x", "c++", "-"]
        try:
            done = run_tool(command, cwd=Path("/"), stdin=prelude)
        except OSError:
            return {}
        if done.returncode == 0:
            text = done.stdout.decode("utf-8", "replace")
            return {m.group(1): m.group(2).strip() or "1" for m in _PREDEFINED.finditer(text)}
    return {}


def header_names(path: str, search: Iterable[str]) -> set[str]:
    """The names `#include <...>` reaches an absolute header by, from each search directory."""
    out = set()
    for folder in search:
        prefix = folder.rstrip("/") + "/"
        if path.startswith(prefix):
            out.add(path[len(prefix) :])
    return out


_OBJECT_DEFINE = re.compile(r"^\s*#\s*define\s+([A-Za-z_]\w*)(?:[ \t]+(.*?))?\s*$")


def conditional_defines(text: str) -> list[tuple[object, str, str]]:
    """(the innermost conditional arm, name, value) of each object-like macro `text` defines
    inside a conditional; one defined whatever the build is the same in every build."""
    from patchwitness import preprocessor

    arms = preprocessor.conditionals(text)
    out = []
    for number, line in enumerate(sourcefiles.lines(preprocessor.strip_comments(text)), 1):
        found = _OBJECT_DEFINE.match(line)
        around = [a for a in arms if a.first <= number <= a.last] if found else []
        if around:
            inner = max(around, key=lambda a: a.first)
            out.append((inner, found.group(1), (found.group(2) or "").strip() or "1"))
    return out


def derive(defines: list[tuple[object, str, str]], macros: dict[str, str], has_include) -> None:
    """Add to `macros` the macros of `defines` (conditional_defines) whose arm these macros
    select (read twice: a macro may depend on one defined before it)."""
    from patchwitness import preprocessor

    for _ in range(2):
        for arm, name, value in defines:
            if preprocessor.arm_is_taken(arm, macros, has_include):
                macros[name] = value


def cpp_builds(
    graph,
    tests: frozenset[str],
    tree: Path,
    variables: Iterable[str],
    extension_flags: tuple[str, ...] = (),
    modules: Iterable[str] = (),
):
    """What the tests' build has that a user's default build of the project does not
    (cpp_reads.Builds), read off the SHA's build graph (buildgraph.BuildGraph). Without a graph
    (a Python task's compiled extension): a user builds it with the interpreter's own CFLAGS
    (optimised, NDEBUG), the grader with those and its coverage flags (`extension_flags`,
    `--coverage -O0`) added."""
    from patchwitness import preprocessor
    from patchwitness.cpp_reads import Builds, called_names, defined_functions, used_namespaces

    search = compiler_include_dirs()
    system = functools.partial(_found_in, tuple(search))
    if graph is None:
        user = macro_flags(sysconfig.get_config_var("CFLAGS") or "-O2 -DNDEBUG")
        graded = (predefined(user), predefined((*user, *macro_flags(" ".join(extension_flags)))))
        return Builds(
            tests=graded,
            user=predefined(user),
            system_header=system,
            variables=frozenset(variables),
            modules=frozenset(modules),
            library_functions=c_library_functions(),
        )
    local, isystem = include_flags(graph.compiles.values())
    search = (*search, *(d for d in (*local, *isystem) if d.startswith("/")))
    macros: set[str] = set()
    headers: set[str] = set()
    # Only the tests compile a header-only library's headers: its own headers are still the
    # project's, not the tests' (GSL's GSL_SUPPRESS, which an honest patch writes, was read as
    # a test framework's macro). A file of the tree counts when it is a test file or sits in a
    # folder of one.
    folders = {str(Path(t).parent) for t in tests} - {"", "."}
    project: list[str] = []
    for path in sorted(graph.test_only(tests)):
        own = not path.startswith("/") and path not in tests
        if own and not any(path.startswith(folder + "/") for folder in folders):
            project.append(path)
            continue
        where = Path(path) if path.startswith("/") else tree / path
        try:
            macros |= preprocessor.defined_names(where.read_text(errors="replace"))
        except OSError:
            continue
        if path.startswith("/"):
            headers |= header_names(path, search)
    flag_sets = sorted({macro_flags(f) for f in graph.compiles.values()})[:8]
    graded = [dict(predefined(f)) for f in flag_sets]
    user = dict(predefined())
    # What the project's headers define under a condition on the build: GSL's
    # GSL_USE_STD_BYTE is 0 under the tests' -std=c++14 and 1 under a user's gnu++17. Each
    # build gets the values its own macros select, so the project's macros that differ
    # between them are watched as the compiler's are.
    defines = []
    for path in project:
        try:
            defines += conditional_defines((tree / path).read_text(errors="replace"))
        except OSError:
            continue
    dialect, newer = next_dialect(flag_sets)
    for build in (*graded, user, *([newer] if newer else [])):
        derive(defines, build, system)
    root = str(tree).rstrip("/") + "/"
    outside = tuple(d for d in search if not d.startswith(root) and d != root.rstrip("/"))
    texts = []
    for path in sorted(tests):
        try:
            texts.append((tree / path).read_text(errors="replace"))
        except OSError:
            continue
    return Builds(
        tests=tuple(graded),
        user=user,
        test_macros=frozenset(macros),
        test_headers=frozenset(headers),
        system_header=system,
        outside_header=functools.partial(_found_in, outside),
        variables=frozenset(variables),
        library_functions=c_library_functions(),
        test_functions=defined_functions(texts),
        test_namespaces=used_namespaces(texts),
        test_calls=called_names(texts),
        newer=newer,
        newer_dialect=dialect,
    )


# The C++ standards by their `__cplusplus`, and the dialect a user asks for each.
STANDARDS = ((201103, "gnu++11"), (201402, "gnu++14"), (201703, "gnu++17"), (202002, "gnu++20"))
STANDARDS += ((202302, "gnu++23"),)


def next_dialect(flag_sets: Iterable[tuple[str, ...]]) -> tuple[str, dict[str, str]]:
    """The dialect one above the tests' (`flag_sets`) and the compiler's default, and the macros
    it predefines (a copy, the caller's to extend); ("", {}) when the compiler knows none: one
    question to the compiler, as a dialect it does not know predefines nothing."""
    dialect = newer_dialect([*flag_sets, ()], predefined())
    newer = dict(predefined(("-std=" + dialect,))) if dialect else {}
    return (dialect, newer) if newer else ("", {})


def strict_dialect() -> str:
    """The compiler's default standard as ISO C++, without GNU extensions (`c++17` where the
    default is gnu++17); "" when the compiler does not say."""
    year = _cplusplus(predefined())
    known = [d for v, d in STANDARDS if v == year]
    return known[0].replace("gnu++", "c++") if known else ""


def newer_dialect(flag_sets: Iterable[tuple[str, ...]], user: dict[str, str]) -> str:
    """The dialect one above the newest the tests compile in and the compiler's default ("" when
    no standard is newer): the standard a user of the project moves to next. Pure: whether the
    compiler knows it is the caller's one question."""
    newest = _cplusplus(user)
    for flags in flag_sets:
        for flag in flags:
            if flag.startswith(("-std=", "--std=")):
                year = re.search(r"\+\+(\d\w)", flag)
                known = {d[-2:]: v for v, d in STANDARDS}
                if year and year.group(1) in known:
                    newest = max(newest, known[year.group(1)])
    above = [d for v, d in STANDARDS if v > newest]
    return above[0] if above else ""


def _cplusplus(macros: dict[str, str]) -> int:
    try:
        return int(macros.get("__cplusplus", "0").rstrip("L"))
    except ValueError:
        return 0


def _found_in(search: tuple[str, ...], header: str) -> bool:
    return any((Path(d) / header).is_file() for d in search)
