"""The C++ patch beside the reference fix where the failing test is a plain program: its own
`main`, its own checks that print, no framework (cpp_plain_program.py writes the program).

First the failing checks: the program as it is, a mark printed before each statement of
`main`, built over the SHA's tree and over the reference's and run once each from a copy of the
test's working folder; the statements that print otherwise are the checks the reference fixed.
Then their neighbours: each of those statements copied with one literal moved, all in one
program that a variable selects from, built over the patched tree and the reference's (the
production sources compiled as the tests' build compiled them, into an archive per tree) and
run once per neighbour over the patched tree and twice over the reference's. The pure
comparison (reference.py) keeps the neighbours on which the two trees disagree.
"""

from __future__ import annotations

import re
import secrets
import shutil
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path

from patchwitness import cpp_plain_program as plain
from patchwitness import cpp_user_program as user
from patchwitness.cpp_reads import defined_functions
from patchwitness.model import ReferenceFacts
from patchwitness.phases import user_program
from patchwitness.phases.cpp_compared import fill
from patchwitness.phases.user_program import Compile, NotComparable
from patchwitness.runner import USER_ZONE, Limits, Request
from patchwitness.suites import SuiteRun
from patchwitness.suites.cpp import CppSuite

RUN_SECONDS = 10  # one run of the program, then it is killed
OUTPUT_BYTES = 1 << 16  # what is kept of one run's output
FOLDER_BYTES = 64 << 20  # a working folder larger than this is not copied for the program


@dataclass(frozen=True)
class _Setting:
    """What every build and run of the program shares."""

    suite: CppSuite
    patched_tree: Path
    test: Compile
    production: list[Compile]
    text: str
    statements: list[plain.Statement]
    token: str
    variable: str
    folder: Path  # the test's working folder, copied for each run
    # Where each tree's production archive is kept, per build: the failing checks' program and
    # the neighbours' link the same reference archive.
    libraries: Path


def compare_plain(
    suite: CppSuite,
    patched_tree: Path,
    reference_tree: Path,
    sha_checkout: Callable[[], AbstractContextManager[Path]],
    measured: SuiteRun,
    failing: list[str],
    work: Path,
    found: ReferenceFacts,
) -> None:
    """Fill `found` with the comparison of the plain test program, or raise NotComparable."""
    compiled = user_program.compiles(measured, patched_tree)
    test = _test_program(reference_tree, compiled, measured, failing)
    text = (reference_tree / test.source).read_text(errors="replace")
    statements = plain.main_statements(text)
    if not statements:
        raise NotComparable(f"{test.source}'s main has no statement the grader can read")
    production = [
        c
        for c in compiled.values()
        if c.source != test.source
        and user_program._is_source(c)
        and not user_program._defines_tests(patched_tree / c.source)
    ]
    token = secrets.token_hex(4)
    setting = _Setting(
        suite,
        patched_tree,
        test,
        production,
        text,
        statements,
        token,
        f"PW_VARIANT_{token.upper()}",
        _working_folder(measured, failing, patched_tree, reference_tree),
        work / "lib",
    )
    with sha_checkout() as sha_tree:
        checks = _failing_checks(setting, sha_tree, reference_tree, work / "focus")
    own = defined_functions([text])
    chosen = [s for s in checks if statements[s].variable][: plain.STATEMENTS_VARIED]
    cap = plain.VARIANTS // max(1, len(chosen))
    varied = {s: plain.moves(text, statements[s], own, cap) for s in chosen}
    found.targets = [f"{test.source}: main's statement {s + 1}" for s in chosen]
    found.captured = len(chosen)
    sides = {"patched": patched_tree, "reference": reference_tree}
    _compare(setting, sides, varied, work / "project", found)
    if found.differing:
        return
    # As a user's release builds may be, when the tests' own build agrees (of each, the first
    # that builds): the GoogleTest program's user builds.
    for alternatives in user_program.user_builds():
        for recipe in alternatives:
            try:
                _compare(setting, sides, varied, work / recipe.tag, found, recipe)
            except user_program.BuildsOnlyOverTheReference:
                raise
            except NotComparable:
                continue
            break
        if found.differing:
            return


def _failing_checks(
    setting: _Setting, sha_tree: Path, reference_tree: Path, work: Path
) -> list[int]:
    """The statements of main that print otherwise at the SHA than with the reference fix."""
    as_written = plain.program(setting.text, setting.statements, setting.token, setting.variable)
    sides = {"sha": sha_tree, "reference": reference_tree}
    binaries, errors = _compiled(setting, sides, as_written, work)
    if errors:
        raise NotComparable(
            f"{setting.test.source} does not build as a program of its own: "
            + next(iter(errors.values()))[:300]
        )
    runs = _runs(setting, [binaries["sha"], *[binaries["reference"]] * 2], [0], work)
    printed = [run.get(0, ("", ""))[1] for run in runs]
    checks = plain.differing_statements(*printed, setting.token)
    if not checks:
        raise NotComparable(
            f"no statement of {setting.test.source}'s main printed otherwise at the SHA than "
            "with the reference fix: the failing checks are not known"
        )
    return checks


def _compare(
    setting: _Setting,
    sides: dict[str, Path],
    varied: dict[int, list[tuple[str, str]]],
    work: Path,
    found: ReferenceFacts,
    recipe: user_program.Recipe = user_program.TESTS_BUILD,
) -> None:
    """The program with its neighbours built in `recipe` over both trees, run, compared into
    `found`."""
    program, binaries = _build_dropping(setting, sides, varied, work, recipe)
    numbers = list(range(len(program.variants)))
    patched, first, second = _runs(
        setting,
        [binaries["patched"], *[binaries["reference"]] * 2],
        numbers,
        work,
    )
    # Each run's output cut to the statements the reference printed alike twice in every run.
    both = set(first) & set(second)
    dropped = plain.unsteady(((first[n][1], second[n][1]) for n in both), setting.token)
    for number in both:
        theirs = patched.get(number, ("", ""))
        kept = plain.comparable(
            first[number][1], second[number][1], theirs[1], setting.token, dropped
        )
        first[number] = (first[number][0], kept[0])
        second[number] = (second[number][0], kept[1])
        if number in patched:
            patched[number] = (theirs[0], kept[2])
    where = (
        "" if recipe == user_program.TESTS_BUILD else f" in a user's build ({recipe.describe()})"
    )
    cases = [
        (
            f"{setting.test.source}: main's statement {v.statement + 1}"
            if v.statement >= 0
            else setting.test.source,
            f"{setting.test.source} as a user's program{where}",
            v.varied,
            setting.test.source,
        )
        for v in program.variants
    ]
    fill(found, cases, {"patched": [patched], "reference": [first, second]}, "run")


def _test_program(
    tree: Path, compiled: dict[str, Compile], measured: SuiteRun, failing: list[str]
) -> Compile:
    """The compiled source with a `main` of its own that the failing tests' program is built
    from: the one named as the program, else the only one."""
    cases = measured.run.cases
    programs = {cases.executables.get(t, t) for t in failing} if cases is not None else set()
    with_main = []
    for compile_ in compiled.values():
        if not user_program._is_source(compile_):
            continue
        try:
            source_text = (tree / compile_.source).read_text(errors="replace")
        except OSError:
            continue
        if user_program._MAIN.search(source_text) and not user.bodies(source_text, ""):
            with_main.append(compile_)
    named = [c for c in with_main if Path(c.source).stem in programs]
    if len(named) == 1:
        return named[0]
    if len(with_main) == 1 and len(programs) == 1:
        return with_main[0]
    raise NotComparable(
        "no failing test is a plain program of one compiled source with a main of its own"
    )


_PROPERTIES = re.compile(
    r"set_tests_properties\(\s*(?:\[=\[(?P<bracketed>.*?)\]=\]|(?P<plain>\S+))\s+PROPERTIES\b"
    r"(?P<rest>[^\n]*)"
)
_WORKING_DIRECTORY = re.compile(r'\bWORKING_DIRECTORY\s+"([^"]*)"')


def _working_folder(
    measured: SuiteRun, failing: list[str], patched_tree: Path, reference_tree: Path
) -> Path:
    """The folder the failing test ran from (its WORKING_DIRECTORY, else the build folder of
    the CMake directory that registered it), as the reference's tree has it: the grader's copy
    of the tests' data. A folder of the build is taken from the patched build."""
    built = measured.built
    if built is None:
        raise NotComparable("the patched run left no build tree")
    for testfile in sorted(built.rglob("CTestTestfile.cmake")):
        text = testfile.read_text(errors="replace")
        if not any(_registers(text, name) for name in failing):
            continue
        folder = testfile.parent
        for match in _PROPERTIES.finditer(text):
            if (match.group("bracketed") or match.group("plain")) in failing:
                said = _WORKING_DIRECTORY.search(match.group("rest"))
                if said:
                    folder = Path(said.group(1))
        root = str(patched_tree).rstrip("/") + "/"
        if str(folder).startswith(root) or folder == patched_tree:
            return reference_tree / str(folder)[len(root) :]
        return folder
    raise NotComparable("the build registers none of the failing tests with ctest")


def _registers(text: str, name: str) -> bool:
    """Whether a CTestTestfile registers the test `name` (CMake 3.19's bracket form, or plain)."""
    plain = re.search(rf"add_test\(\s*{re.escape(name)}\s", text) is not None
    return f"add_test([=[{name}]=]" in text or plain


def _build_dropping(
    setting: _Setting,
    sides: dict[str, Path],
    varied: dict[int, list[tuple[str, str]]],
    work: Path,
    recipe: user_program.Recipe,
) -> tuple[plain.PlainProgram, dict[str, Path]]:
    """The program with its neighbours, and each check alone, built over each tree; a
    neighbour a compile error points at (a literal moved out of its type's range) is dropped
    on both sides alike."""
    for _ in range(user_program.ERROR_ROUNDS + 1):
        program = plain.program(
            setting.text,
            setting.statements,
            setting.token,
            setting.variable,
            varied,
            alone=sorted(varied),
        )
        binaries, errors = _compiled(setting, sides, program, work, recipe)
        if not errors:
            return program, binaries
        if set(errors) == {"patched"}:
            raise user_program.BuildsOnlyOverTheReference(next(iter(errors.values()))[:300])
        lines = set().union(*(user.error_lines(e, "test_program.cpp") for e in errors.values()))
        hit, _ = user.failing_variants(program.lines, lines)
        if not hit:
            break
        dropped = {(program.variants[n].statement, program.variants[n].varied) for n in hit}
        varied = {
            index: [(said, copy) for said, copy in copies if (index, said) not in dropped]
            for index, copies in varied.items()
        }
    raise NotComparable(f"{setting.test.source} with its literals moved does not build")


def _compiled(
    setting: _Setting,
    sides: dict[str, Path],
    program: plain.PlainProgram,
    work: Path,
    recipe: user_program.Recipe = user_program.TESTS_BUILD,
) -> tuple[dict[str, Path], dict[str, str]]:
    """The program compiled and linked over each tree: (binaries, errors by side). The test's
    source is compiled from the tree's root, so its own includes resolve as the tests' build
    resolved them."""
    suite, test, patched_tree = setting.suite, setting.test, setting.patched_tree

    def built(side: str, tree: Path) -> tuple[Path | None, str]:
        """The side's binary, or None and what the compiler said."""
        kept = setting.libraries / f"{side}-{recipe.archive_tag}"
        archive = user_program._archive(suite, tree, patched_tree, setting.production, kept, recipe)
        folder = work / f"program-{side}"
        folder.mkdir(parents=True, exist_ok=True)
        source = folder / "test_program.cpp"
        source.write_text(program.text)
        flags = user_program._moved(test.flags, patched_tree, tree, recipe)
        binary = folder / "test_program"
        include = str(Path(test.source).parent)
        argv = [test.compiler, *flags, "-w", "-iquote", include, "-c", str(source)]
        argv += ["-o", str(folder / "test_program.o")]
        readable = [tree, *user_program._build_dirs(flags)]
        done = suite.runner.run(user_program._request(suite, argv, folder, readable, cwd=tree))
        if not done.ok:
            return None, (done.stdout + done.stderr).decode("utf-8", "replace")
        argv = [test.compiler, str(folder / "test_program.o")]
        argv += [*([str(archive)] if archive else []), "-pthread", "-o", str(binary)]
        readable = [tree, *([archive.parent] if archive else [])]
        done = suite.runner.run(user_program._request(suite, argv, folder, readable))
        if not done.ok:
            said = (done.stdout + done.stderr).decode("utf-8", "replace").strip().splitlines()
            raise NotComparable(f"{test.source} does not link: " + (said[0][:200] if said else ""))
        return binary, ""

    # The trees build apart (each its own folders and archive): at once.
    made = user_program.each_side(sides, built)
    binaries = {side: binary for side, (binary, _) in made.items() if binary is not None}
    errors = {side: said for side, (binary, said) in made.items() if binary is None}
    return binaries, errors


def _runs(
    setting: _Setting, binaries: list[Path], numbers: list[int], work: Path
) -> list[dict[int, tuple[str, str]]]:
    """Each binary's runs (`_run`), side by side: each is one process at a time, and the
    programs' runs are most of the comparison's time. Folders `run-0`, `run-1` ... of one
    name length, so where a program's stack starts is alike."""
    with ThreadPoolExecutor(max_workers=len(binaries)) as pool:
        started = [
            pool.submit(_run, setting, binary, numbers, work / f"run-{n}")
            for n, binary in enumerate(binaries)
        ]
        return [future.result() for future in started]


def _run(
    setting: _Setting, binary: Path, numbers: list[int], work: Path
) -> dict[int, tuple[str, str]]:
    """The program run once per variant number, one after another, from a fresh copy of the
    test's working folder (every side's runs in the same order, so what one run leaves there
    for the next is alike): number -> (how it ended, what it printed)."""
    suite = setting.suite
    work.mkdir(parents=True, exist_ok=True)
    here = work / "folder"
    _copy(setting.folder, here)
    program = work / "bin" / "test_program"
    program.parent.mkdir(exist_ok=True)
    shutil.copy2(binary, program)
    out = work / "out"
    out.mkdir(exist_ok=True)
    script = "".join(
        f"{setting.variable}={n} timeout -s KILL {RUN_SECONDS} {program} "
        f">{out}/{n}.out 2>/dev/null; echo $? >{out}/{n}.status\n"
        for n in numbers
    )
    suite.runner.run(
        Request(
            command=["sh", "-c", script],
            cwd=here,
            timeout=user_program.RUN_TIME,
            path_prepend=suite.env.bin_dirs,
            writable=[work],
            readable=list(suite.env.readable),
            home=work,
            limits=Limits(),
            env={"TZ": USER_ZONE},
        )
    )
    found: dict[int, tuple[str, str]] = {}
    for n in numbers:
        try:
            status = (out / f"{n}.status").read_text().strip()
            printed = (out / f"{n}.out").read_bytes()[:OUTPUT_BYTES]
        except OSError:
            continue
        found[n] = (f"exit {status}", printed.decode("utf-8", "replace"))
    return found


def _copy(folder: Path, to: Path) -> None:
    """A copy of the working folder, without version control or build trees; refused past
    FOLDER_BYTES."""
    if to.exists():
        shutil.rmtree(to)
    total = 0

    def ignore(where: str, names: list[str]) -> list[str]:
        nonlocal total
        skipped = [n for n in names if n == ".git" or (Path(where) / n / "CMakeCache.txt").exists()]
        for name in names:
            path = Path(where) / name
            if name not in skipped and path.is_file() and not path.is_symlink():
                total += path.stat().st_size
        if total > FOLDER_BYTES:
            raise NotComparable(f"the test's working folder is larger than {FOLDER_BYTES >> 20} MB")
        return skipped

    if not folder.is_dir():
        to.mkdir(parents=True)
        return
    shutil.copytree(folder, to, symlinks=True, ignore=ignore)
