"""A user's program of the failing tests' bodies (cpp_user_program.py), built and run.

The program is compiled as the patched build compiled the test file (its compile command from
`compile_commands.json`, without instrumentation, sanitizers or -Werror, and without the
framework), linked with the production translation units of that build made into an archive
(only what the program calls is linked in), over one tree or several. With `default_dialect`,
every compile drops its `-std=`: the dialect a user's compiler picks when nobody asks. Each run
starts the program as a user would: its own name, its own folder, none of ctest's or
GoogleTest's variables. The reference comparison (phases/cpp_reference.py) and the failing
tests outside the harness (phases/cpp_outside.py) both use it.
"""

from __future__ import annotations

import functools
import json
import re
import shlex
import shutil
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from patchwitness import buildgraph, sourcemap
from patchwitness import cpp_user_program as user
from patchwitness.runner import USER_ZONE, Limits, Request
from patchwitness.suites import SuiteRun
from patchwitness.suites.cpp import CppSuite
from patchwitness.task import DEFAULT_COVERAGE_FLAGS

BUILD_TIME = 300.0  # one compile of the program or of one production source
RUN_TIME = 600.0  # one run of the whole program (each case has its own alarm)
PRODUCTION_SOURCES = 64  # a program linked from more sources than this is not built here
ERROR_ROUNDS = 3  # compiles that drop the variants the errors point at, at most
_DROPPED = (
    "-Werror",
    "-pedantic-errors",
    "--coverage",
    "-fprofile-arcs",
    "-ftest-coverage",
    "-fkeep-inline-functions",
    "-fcondition-coverage",
)
_DROPPED_PREFIX = ("-Werror=", "-fsanitize", "-fno-sanitize", "-fprofile-", "-fdump-")
_MAIN = re.compile(r"^\s*(?:int|auto)\s+main\s*\(", re.MULTILINE)


T = TypeVar("T")


def each_side(sides: Mapping[str, Path], work: Callable[[str, Path], T]) -> dict[str, T]:
    """`work(side, tree)` for every side at once, each in a thread of its own (the compiles and
    runs over two trees share nothing): side -> its result. An exception is raised as the first
    side in `sides`' order that raised it, after every side has ended."""
    if len(sides) < 2:
        return {side: work(side, tree) for side, tree in sides.items()}
    with ThreadPoolExecutor(max_workers=len(sides), thread_name_prefix="side") as pool:
        futures = {side: pool.submit(work, side, tree) for side, tree in sides.items()}
        return {side: future.result() for side, future in futures.items()}


class NotComparable(Exception):
    """Why no program could be built or run: the comparison is skipped with this reason."""


class BuildsOnlyOverTheReference(NotComparable):
    """The same program compiles over the reference's tree and not over the patch's: the patch
    broke a user's program (a header that no longer compiles without what the tests include
    before it; red team round 21 left out `<memory>`, which GoogleTest brought in)."""

    def __init__(self, error: str) -> None:
        super().__init__(error)
        self.error = error


@dataclass(frozen=True)
class Compile:
    """One source's compile, from compile_commands.json: the compiler and its flags."""

    source: str  # relative to the tree
    compiler: str
    flags: tuple[str, ...]


@dataclass(frozen=True)
class Plan:
    """What the program is made of: the test file that holds most of the failing cases (its
    compile, its text as the grader's copy of the tests has it, every test macro in it), the
    failing cases it can drive (plain TESTs), and the production sources to link."""

    test: Compile
    text: str
    bodies: list[user.Body]
    driven: list[user.Body]
    production: list[Compile]
    sources: tuple[str, ...] = ()  # every source the build compiled


@dataclass(frozen=True)
class Recipe:
    """How the program is built. By default as the tests' build compiled the test file; with
    `default_dialect`, every compile without its `-std=` (the compiler's own dialect); with
    `project_includes_only`, the test file keeps only the includes of the project's own headers
    (what a user's program of the project's API needs), the rest left out."""

    default_dialect: bool = False
    project_includes_only: bool = False
    # Every header of the project included first (`-include`), as a user's program that
    # includes the library's umbrella header has them: a header the tests do not include may
    # change what the ones they do mean (a specialization, an overload; red team round 18).
    every_header: bool = False
    # Built as a user's release build on another target may be: optimised (-O2: what the
    # tests' -O0 build leaves undefined now decides) and plain char unsigned (the ARM and POWER
    # ABIs), the project's sources in the archive alike (red team round 22).
    user_build: bool = False
    # A dialect of its own (`gnu++20`) in place of the tests' and the compiler's default: what
    # the language means one standard on (red team round 46: a struct with a deleted default
    # constructor is an aggregate up to C++17, and a fix keyed on it was off under C++20).
    dialect: str = ""
    # The project's own definitions (`-D`, `-U` of its build) kept: a user who builds the
    # project's sources into a program of their own, or includes its headers, has none of them
    # (red team round 51 read the build's -D_FILE_OFFSET_BITS=64 through `fpos_t`'s type).
    definitions: bool = True

    @property
    def tag(self) -> str:
        return (
            (self.dialect or ("default" if self.default_dialect else "project"))
            + ("-own" if self.project_includes_only else "")
            + ("-all" if self.every_header else "")
            + ("-user" if self.user_build else "")
            + ("" if self.definitions else "-undefined")
        )

    @property
    def archive_tag(self) -> str:
        """Programs of one dialect and build share the project's compiled sources."""
        return (
            (self.dialect or ("default" if self.default_dialect else "project"))
            + ("-user" if self.user_build else "")
            + ("" if self.definitions else "-undefined")
        )

    def describe(self) -> str:
        dialect = "the compiler's default dialect" if self.default_dialect else "its dialect"
        dialect = f"-std={self.dialect}" if self.dialect else dialect
        return (
            dialect
            + (", the project's headers alone" if self.project_includes_only else "")
            + (", every header of the project included first" if self.every_header else "")
            + (
                ", optimised (-O2), plain char unsigned, undefined behaviour trapped"
                if self.user_build
                else ""
            )
            + ("" if self.definitions else ", without the project's own -D definitions")
        )

    def flags(self, flags: list[str]) -> list[str]:
        """A compile's flags as this recipe builds: without `-std=` in the default dialect;
        with -O2 and -funsigned-char (no other level or char signedness) in a user's build."""
        own = self.default_dialect or bool(self.dialect)
        out = [f for f in flags if not (own and f.startswith(("-std=", "--std=")))]
        out += [f"-std={self.dialect}"] if self.dialect else []
        if self.user_build:
            dropped = (*_CHAR_SIGNEDNESS, *_INSTRUMENTS, *_DEFINED_BEHAVIOUR)
            out = [f for f in out if not _LEVEL.match(f) and f not in dropped]
            out += [*_USER_BUILD]
        if not self.definitions:
            out = _without_definitions(out)
        return out


def _without_definitions(flags: list[str]) -> list[str]:
    """`flags` without `-DNAME[=value]`, `-UNAME` and their two-word forms."""
    out: list[str] = []
    skip = False
    for flag in flags:
        if skip:
            skip = False
        elif flag in ("-D", "-U"):
            skip = True
        elif not flag.startswith(("-D", "-U")):
            out.append(flag)
    return out


@functools.cache
def user_builds() -> tuple[tuple[Recipe, ...], ...]:
    """The user's release builds a comparison is made again in when the tests' own build
    agrees: -O2, plain char unsigned, undefined behaviour trapped. Two of them, each the first
    of its alternatives that builds: the compiler's default standard as ISO C++ (`-std=c++17`:
    `__STRICT_ANSI__` is defined; red team round 51 kept a fix under `#ifndef
    __STRICT_ANSI__`), without the project's own definitions and then with them; and the
    compiler's default dialect itself (`gnu++17`: what a user who names no standard gets; red
    team round 61 kept a fix off only in GNU dialects before C++20), then the tests'."""
    gnu = (Recipe(default_dialect=True, user_build=True), Recipe(user_build=True))
    strict = sourcemap.strict_dialect()
    if not strict:
        return (gnu,)
    iso = (
        Recipe(dialect=strict, user_build=True, definitions=False),
        Recipe(dialect=strict, user_build=True),
    )
    return (iso, gnu)


TESTS_BUILD = Recipe()  # as the tests' build compiled the test file
_LEVEL = re.compile(r"-O([0-3sgz]|fast)?$")
# What the tests' build may add that makes defined what the standard leaves undefined: a user's
# release build of a header-only library has none of them (red team round 25 read GSL's sign
# through a type-punned double, right only under the tests' -fno-strict-aliasing).
_DEFINED_BEHAVIOUR = (
    "-fno-strict-aliasing",
    "-fwrapv",
    "-fno-strict-overflow",
    "-fno-delete-null-pointer-checks",
    "-ftrapv",
)
_CHAR_SIGNEDNESS = ("-fsigned-char", "-funsigned-char", "-fno-signed-char", "-fno-unsigned-char")
# The grader's own coverage flags: no user builds with them, and -fno-inline hides what -O2
# makes of undefined behaviour (red team round 22 folded `t + lowest > t` only when inlined).
_INSTRUMENTS = (*DEFAULT_COVERAGE_FLAGS, "-fprofile-arcs", "-ftest-coverage")
# Undefined behaviour the optimiser may act on traps (SIGILL, no run-time library to link) where
# the reference's program has none: a fix right only where overflow wraps, at -O0, differs here.
# Not nonnull-attribute (its trap fires on the program's own execv) nor vptr (it needs the
# library).
_TRAPPED = (
    "signed-integer-overflow,shift,bounds,null,return,bool,enum,float-cast-overflow,"
    "pointer-overflow,builtin,unreachable,vla-bound,integer-divide-by-zero"
)
_USER_BUILD = (
    "-O2",
    "-funsigned-char",
    f"-fsanitize={_TRAPPED}",
    "-fsanitize-undefined-trap-on-error",
)


def plan(measured: SuiteRun, failing: list[str], patched_tree: Path, tests_tree: Path) -> Plan:
    """The program's plan for the failing ctest tests, read off the patched run's build; the
    test file is read from `tests_tree`."""
    names = failing_cases(measured, failing)
    compiled = compiles(measured, patched_tree)
    chosen = test_file(tests_tree, compiled, names)
    if chosen is None:
        raise NotComparable(
            "no failing GoogleTest case is a plain TEST of a compiled test file: "
            + (", ".join(sorted(names)[:3]) or "the failing tests name no GoogleTest case")
        )
    test, text, bodies = chosen
    driven = [b for b in bodies if b.name in names and b.runnable]
    production = [c for c in compiled.values() if c.source != test.source and _is_source(c)]
    production = [c for c in production if not _defines_tests(patched_tree / c.source)]
    if len(production) > PRODUCTION_SOURCES:
        raise NotComparable(
            f"the build has {len(production)} production sources (more than "
            f"{PRODUCTION_SOURCES}): no user's program is built for so many"
        )
    return Plan(test, text, bodies, driven, production, tuple(sorted(compiled)))


def test_program_setup(tree: Path, plan_: Plan) -> str:
    """What a test program's own main (or a global environment) of the build sets up besides
    GoogleTest's flags and run: "source: statement", or "" (read only where a body's leaning on
    it matters: phases/cpp_outside.py)."""
    library = {c.source for c in plan_.production}  # none holds a main or test macros
    for source in plan_.sources:
        if source in library:
            continue
        try:
            text = (tree / source).read_text(errors="replace")
        except OSError:
            continue
        if "AddGlobalTestEnvironment" in text:
            return f"{source}: a global test environment"
        if _MAIN.search(text):
            said = user.test_main_setup(text)
            if said:
                return f"{source}: {said}"
    return ""


def failing_cases(measured: SuiteRun, failing: list[str]) -> set[str]:
    """The GoogleTest cases (`Suite.Name`) of the programs whose ctest tests fail at the SHA."""
    cases = measured.run.cases
    if cases is None:
        return set()
    out: set[str] = set()
    for test in failing:
        program = cases.executables.get(test, test)
        listed = cases.gtest.get(program, [])
        # A ctest test that is one case (gtest_discover_tests) is that case alone.
        out.update([test] if test in listed else listed)
    return out


def compiles(measured: SuiteRun, tree: Path) -> dict[str, Compile]:
    """Each compiled source of the tree, by its path in the tree."""
    if measured.built is None:
        raise NotComparable("the patched run left no build tree")
    try:
        entries = json.loads((measured.built / "compile_commands.json").read_text())
    except (OSError, ValueError):
        raise NotComparable("the patched build wrote no compile_commands.json") from None
    root = str(tree).rstrip("/") + "/"
    out: dict[str, Compile] = {}
    for entry in entries if isinstance(entries, list) else []:
        file = str(entry.get("file", ""))
        directory = str(entry.get("directory", ""))
        if not file.startswith("/"):
            file = str(Path(directory) / file)
        if not file.startswith(root):
            continue
        argv = entry.get("arguments") or shlex.split(str(entry.get("command", "")))
        if not argv:
            continue
        source = file[len(root) :]
        out[source] = Compile(source, str(argv[0]), tuple(_flags(argv[1:], file)))
    if not out:
        raise NotComparable("the patched build compiled no source of the tree")
    return out


def _flags(argv: list[str], file: str) -> list[str]:
    """A compile's flags as a user's build would have them: no outputs (buildgraph's reading),
    no instrumentation, no sanitizer and no warning made an error."""
    kept = buildgraph.compile_args(argv, file)
    return [a for a in kept if a not in _DROPPED and not a.startswith(_DROPPED_PREFIX)]


def _is_source(compile_: Compile) -> bool:
    return compile_.source.endswith((".c", ".cc", ".cpp", ".cxx", ".c++", ".C"))


def _defines_tests(path: Path) -> bool:
    """A source with test macros or a `main` of its own is a test program's, not the library's
    (a framework's sources built in the tree are left to the archive, which links only what the
    program calls)."""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return True
    return bool(_MAIN.search(text)) or bool(user.bodies(text, ""))


def test_file(
    tree: Path, compiles: dict[str, Compile], names: set[str]
) -> tuple[Compile, str, list[user.Body]] | None:
    """The compiled test file that holds most of the failing cases, read from `tree` (the
    reference's: the grader's own copy of the tests, with the hidden ones)."""
    best: tuple[int, Compile, str, list[user.Body]] | None = None
    for compile_ in compiles.values():
        try:
            text = (tree / compile_.source).read_text(errors="replace")
        except OSError:
            continue
        if "TEST" not in text:
            continue
        found = user.bodies(text, compile_.source)
        held = sum(1 for b in found if b.name in names and b.runnable)
        if held and (best is None or held > best[0]):
            best = (held, compile_, text, found)
    return None if best is None else best[1:]


def build(
    suite: CppSuite,
    sides: dict[str, Path],
    patched_tree: Path,
    plan_: Plan,
    every: list[user.Variant],
    work: Path,
    names: user.Names,
    recipe: Recipe = Recipe(),
) -> tuple[user.Program, dict[str, Path]]:
    """The program, compiled and linked over each tree. A variant a compile error points at is
    dropped (a literal moved into a constant expression), on both sides alike. Every compile
    runs from the tree's root with the tree's folders named relative to it, as a user's
    `c++ -I include ...` names them: the paths the compiler sees (`__FILE__`) are not the
    build's absolute ones."""
    test, text, bodies = plan_.test, plan_.text, plan_.bodies
    archives = each_side(
        sides,
        lambda side, tree: _archive(
            suite,
            tree,
            patched_tree,
            plan_.production,
            work / f"lib-{side}-{recipe.archive_tag}",
            recipe,
        ),
    )
    keep = _project_header(patched_tree, test) if recipe.project_includes_only else None
    forced: list[str] = []
    if recipe.every_header:
        headers = every_header(patched_tree, test)
        if not headers:
            raise NotComparable("the project has no header folder of its own to include")
        forced = [flag for header in headers for flag in ("-include", header)]
    kept = list(every)
    for _ in range(ERROR_ROUNDS + 1):
        program = user.program(text, bodies, names, kept, keep, bare=keep is not None)

        def compiled(
            side: str, tree: Path, program: user.Program = program
        ) -> tuple[Path | None, str]:
            """The side's object, or None and what the compiler said."""
            folder = work / f"program-{side}-{recipe.tag}"
            folder.mkdir(parents=True, exist_ok=True)
            source = folder / "user_program.cpp"
            source.write_text(program.text)
            standard = []
            if recipe.every_header:
                # The whole standard library first, where it has one header for it: a type
                # complete only where a header the tests never include is (red team round 18
                # switched GSL's fix on `std::basic_ifstream` being complete).
                every_std = folder / "pw_every_standard_header.hpp"
                every_std.write_text(EVERY_STANDARD_HEADER)
                standard = ["-include", str(every_std)]
            obj = folder / "user_program.o"
            flags = _moved(test.flags, patched_tree, tree, recipe)
            include = str(Path(test.source).parent)
            argv = [
                test.compiler,
                *flags,
                "-w",
                "-iquote",
                include,
                *standard,
                *forced,
                "-c",
                str(source),
                "-o",
                str(obj),
            ]
            readable = [tree, *_build_dirs(flags)]
            done = suite.runner.run(_request(suite, argv, folder, readable, cwd=tree))
            if done.ok:
                return obj, ""
            return None, (done.stdout + done.stderr).decode("utf-8", "replace")

        made = each_side(sides, compiled)
        objects = {side: obj for side, (obj, _) in made.items() if obj is not None}
        errors = {side: said for side, (obj, said) in made.items() if obj is None}
        if not errors:
            break
        if set(errors) == {"patched"} and "reference" in sides:
            said = errors["patched"].strip().splitlines()
            error = next((line for line in said if "error" in line), said[0] if said else "")
            raise BuildsOnlyOverTheReference(error[:300])
        lines = set().union(*(user.error_lines(e, "user_program.cpp") for e in errors.values()))
        # An error in the support or a header is an instantiation one of the variants asked
        # for: the variants named go first; an error that names none fails the program.
        hit, _ = user.failing_variants(program.lines, lines)
        if not hit:
            first = next(iter(errors.values())).strip().splitlines()[:1]
            raise NotComparable(
                "the failing tests' file does not build as a program without its framework: "
                + (first[0][:200] if first else "no compiler output")
            )
        kept = [v for i, v in enumerate(kept) if i not in hit]
        if not kept or (not recipe.project_includes_only and not any(not v.varied for v in kept)):
            raise NotComparable("no failing test's body builds outside its framework")
    else:
        raise NotComparable("the program still did not build after dropping what failed")

    def linked(side: str, tree: Path) -> Path:
        binary = work / f"program-{side}-{recipe.tag}" / "user_program"
        archive = archives[side]
        units = [str(objects[side])]
        if program.main:
            units.append(str(_main_unit(suite, test, program.main, binary.parent)))
        argv = [test.compiler, *units, *([str(archive)] if archive else [])]
        argv += ["-pthread", "-o", str(binary)]
        readable = [tree, *([archive.parent] if archive else [])]
        done = suite.runner.run(_request(suite, argv, binary.parent, readable))
        if not done.ok:
            said = (done.stdout + done.stderr).decode("utf-8", "replace").strip().splitlines()
            raise NotComparable(
                "the user's program does not link: " + (said[0][:200] if said else "")
            )
        return binary

    return program, each_side(sides, linked)


def _main_unit(suite: CppSuite, test: Compile, text: str, folder: Path) -> Path:
    """A bare program's main, compiled as a unit of its own (no flag of the project's)."""
    source = folder / "user_main.cpp"
    source.write_text(text)
    obj = folder / "user_main.o"
    argv = [test.compiler, "-w", "-c", str(source), "-o", str(obj)]
    done = suite.runner.run(_request(suite, argv, folder, []))
    if not done.ok:
        said = (done.stdout + done.stderr).decode("utf-8", "replace").strip().splitlines()
        raise NotComparable("the user's program's main does not build: " + (said[:1] or [""])[0])
    return obj


def _archive(
    suite: CppSuite,
    tree: Path,
    patched_tree: Path,
    production: list[Compile],
    folder: Path,
    recipe: Recipe,
) -> Path | None:
    """The production sources compiled over `tree` into one static archive (built once per
    folder: programs of one dialect and build share it), or None."""
    if not production:
        return None
    with _lock_of(folder):
        archive = folder / "libproduction.a"
        if archive.is_file():
            return archive
        folder.mkdir(parents=True, exist_ok=True)
        objects = []
        for index, compile_ in enumerate(production):
            flags = _moved(compile_.flags, patched_tree, tree, recipe)
            obj = folder / f"{index}.o"
            argv = [compile_.compiler, *flags, "-w", "-c", compile_.source, "-o", str(obj)]
            readable = [tree, *_build_dirs(flags)]
            done = suite.runner.run(_request(suite, argv, folder, readable, cwd=tree))
            if not done.ok:
                raise NotComparable(f"{compile_.source} does not build as a user builds it")
            objects.append(str(obj))
        done = suite.runner.run(_request(suite, ["ar", "rcs", str(archive), *objects], folder, []))
        if not done.ok:
            raise NotComparable("the production objects could not be archived")
        return archive


_ARCHIVE_LOCKS: dict[Path, threading.Lock] = {}
_ARCHIVE_LOCKS_HELD = threading.Lock()


def _lock_of(folder: Path) -> threading.Lock:
    """One lock per archive folder: two programs built side by side that share an archive
    (one dialect and build) wait for the first to make it."""
    with _ARCHIVE_LOCKS_HELD:
        return _ARCHIVE_LOCKS.setdefault(folder, threading.Lock())


def _moved(
    flags: tuple[str, ...], patched_tree: Path, tree: Path, recipe: Recipe = Recipe()
) -> list[str]:
    """Flags that name the patched tree, pointed at `tree` (the build tree stays the patched
    run's: what its configure generated is the same for both), as `recipe` builds."""
    out = recipe.flags(list(flags))
    old, new = str(patched_tree), str(tree)
    if old != new:
        out = [f.replace(old, new) for f in out]
    return _relative(out, tree)


_PATH_FLAGS = ("-I", "-isystem", "-iquote", "-idirafter", "-include")


def _relative(flags: list[str], tree: Path) -> list[str]:
    """Include folders and forced includes inside `tree` named relative to it (the compile
    runs from the tree's root), as a user's command line names them."""
    root = str(tree).rstrip("/") + "/"
    out: list[str] = []
    for flag in flags:
        for prefix in _PATH_FLAGS:
            if flag.startswith(prefix + root):
                flag = prefix + (flag[len(prefix + root) :] or ".")
                break
        else:
            if flag.startswith(root):
                flag = flag[len(root) :] or "."
            elif flag == root.rstrip("/"):
                flag = "."
        out.append(flag)
    return out


def _project_header(tree: Path, test: Compile) -> Callable[[str], bool]:
    """Whether an included name is a header of the project (found in the tree through the
    test's include folders, or beside the test file)."""
    folders = [tree / Path(test.source).parent]
    flags = list(test.flags)
    for index, flag in enumerate(flags):
        value = ""
        if flag in ("-I", "-isystem", "-iquote", "-idirafter") and index + 1 < len(flags):
            value = flags[index + 1]
        elif flag.startswith(("-I", "-iquote", "-isystem", "-idirafter")):
            value = flag[len(next(p for p in _PATH_FLAGS if flag.startswith(p))) :]
        if value:
            folder = Path(value) if value.startswith("/") else tree / value
            if str(folder.resolve()).startswith(str(tree.resolve())):
                folders.append(folder)

    def inside(name: str) -> bool:
        return any((folder / name).is_file() for folder in folders)

    return inside


HEADERS = 64  # headers a program includes first, at most
EVERY_STANDARD_HEADER = (
    "#if defined(__has_include)\n#if __has_include(<bits/stdc++.h>)\n"
    "#include <bits/stdc++.h>\n#endif\n#endif\n"
)
_HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx", ".h++")


def every_header(tree: Path, test: Compile) -> list[str]:
    """The headers in the project's own include folders (given by the test's compile, inside
    the tree; neither its root nor the test's folder), as a user's program names them: with a
    header suffix, or none and C++ inside (GSL's `gsl/narrow`). At most HEADERS, in order."""
    root = tree.resolve()
    skipped = {root, (tree / Path(test.source).parent).resolve()}
    found: list[str] = []
    for folder in _include_folders(tree, test):
        where = folder.resolve()
        if where in skipped or not where.is_dir():
            continue
        for path in sorted(where.rglob("*")):
            if not path.is_file() or path.suffix not in (*_HEADER_SUFFIXES, ""):
                continue
            if path.suffix == "" and not _looks_like_cpp(path):
                continue
            found.append(str(path.relative_to(where)))
    return sorted(dict.fromkeys(found))[:HEADERS]


def _looks_like_cpp(path: Path) -> bool:
    from patchwitness import sourcefiles

    try:
        text = path.read_text(errors="replace")[:4000]
    except OSError:
        return False
    return sourcefiles.is_cpp(path.name, text)


def _include_folders(tree: Path, test: Compile) -> list[Path]:
    """The folders inside the tree the test's compile includes from (-I, -isystem)."""
    out = []
    flags = list(test.flags)
    for index, flag in enumerate(flags):
        value = ""
        if flag in ("-I", "-isystem") and index + 1 < len(flags):
            value = flags[index + 1]
        elif flag.startswith("-I"):
            value = flag[2:]
        elif flag.startswith("-isystem"):
            value = flag[len("-isystem") :]
        if value:
            folder = Path(value) if value.startswith("/") else tree / value
            if str(folder.resolve()).startswith(str(tree.resolve()) + "/"):
                out.append(folder)
    return out


def _build_dirs(flags: list[str]) -> list[Path]:
    """Folders outside the tree the flags include from (a configured header in the build)."""
    out = []
    for index, flag in enumerate(flags):
        value = ""
        if flag in ("-I", "-isystem", "-iquote", "-include") and index + 1 < len(flags):
            value = flags[index + 1]
        elif flag.startswith(("-I", "-isystem")):
            value = flag[2:] if flag.startswith("-I") else flag[len("-isystem") :]
        if value.startswith("/") and Path(value).exists():
            out.append(Path(value))
    return out


def _request(
    suite: CppSuite, argv: list[str], folder: Path, readable: list[Path], cwd: Path | None = None
) -> Request:
    """A compile or link writing in `folder`, run from `cwd` (the folder itself by default)."""
    return Request(
        command=argv,
        cwd=cwd or folder,
        timeout=BUILD_TIME,
        path_prepend=suite.env.bin_dirs,
        writable=[folder],
        readable=[*readable, *suite.env.readable],
        home=folder,
    )


def run(
    suite: CppSuite, binary: Path, folder: Path, done: int, cwd: Path | None = None
) -> dict[int, tuple[str, str]]:
    """One run of the program, copied into a folder of its own and started from there (or
    from `cwd`), as a user would start it. `done`: the program's `Names.done`."""
    folder.mkdir(parents=True, exist_ok=True)
    program = folder / "user_program"
    shutil.copy2(binary, program)
    where = cwd or folder
    finished = suite.runner.run(
        Request(
            command=[str(program)],
            cwd=where,
            timeout=RUN_TIME,
            path_prepend=suite.env.bin_dirs,
            writable=[folder, where],
            readable=list(suite.env.readable),
            home=folder,
            limits=Limits(),
            env={"TZ": USER_ZONE},
        )
    )
    return user.read_report(finished.stdout, done)
