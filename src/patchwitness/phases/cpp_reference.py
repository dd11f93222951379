"""The C++ patch beside the reference fix: a user's program, built against each tree.

The failing GoogleTest cases' bodies become one program (cpp_user_program.py), with neighbours
of their literals. It is compiled as the patched build compiled the test file (its compile
command from `compile_commands.json`, without instrumentation, sanitizers or -Werror, and
without the framework), linked with the production translation units of that build made into
an archive (only what the program calls is linked in), once over the patched tree and once over
the reference's. Each program runs outside the harness: its own name, an empty working folder,
none of ctest's or GoogleTest's variables. The reference's program runs twice (a case it does
not answer the same way twice is left out), and the pure comparison (reference.py) keeps the
cases on which the two disagree.
"""

from __future__ import annotations

import json
import re
import secrets
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

from patchwitness import cpp_user_program as user
from patchwitness import reference as differ
from patchwitness.model import Difference, ReferenceFacts
from patchwitness.runner import Limits, Request
from patchwitness.suites import SuiteRun
from patchwitness.suites.cpp import CppSuite

BUILD_TIME = 300.0  # one compile of the program or of one production source
RUN_TIME = 600.0  # one run of the whole program (each case has its own alarm)
PRODUCTION_SOURCES = 64  # a program linked from more sources than this is not built here
ERROR_ROUNDS = 3  # compiles that drop the variants the errors point at, at most
SHOWN = 5
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
_OUTPUT_FLAGS = {"-o", "-MF", "-MT", "-MQ"}
_BARE = {"-c", "-MD", "-MMD"}
_MAIN = re.compile(r"^\s*(?:int|auto)\s+main\s*\(", re.MULTILINE)


class NotComparable(Exception):
    """Why no program could be built or run: the comparison is skipped with this reason."""


@dataclass(frozen=True)
class Compile:
    """One source's compile, from compile_commands.json: the compiler and its flags."""

    source: str  # relative to the tree
    compiler: str
    flags: tuple[str, ...]


def compare_cpp(
    suite: CppSuite,
    patched_tree: Path,
    reference_tree: Path,
    measured: SuiteRun,
    failing: list[str],
    work: Path,
    found: ReferenceFacts,
) -> None:
    """Fill `found` with the comparison, or its `skipped` reason."""
    try:
        _compare(suite, patched_tree, reference_tree, measured, failing, work, found)
    except NotComparable as why:
        found.skipped = str(why)


def _compare(
    suite: CppSuite,
    patched_tree: Path,
    reference_tree: Path,
    measured: SuiteRun,
    failing: list[str],
    work: Path,
    found: ReferenceFacts,
) -> None:
    names = _failing_cases(measured, failing)
    compiles = _compiles(measured, patched_tree)
    chosen = _test_file(reference_tree, compiles, names)
    if chosen is None:
        raise NotComparable(
            "no failing GoogleTest case is a plain TEST of a compiled test file: "
            + (", ".join(sorted(names)[:3]) or "the failing tests name no GoogleTest case")
        )
    test, text, bodies = chosen
    driven = [b for b in bodies if b.name in names and b.runnable]
    every: list[user.Variant] = []
    for body in driven:
        every.extend(user.variants(text, body))
    every = every[: user.VARIANTS + len(driven)]
    found.targets = [b.name for b in driven]
    found.captured = len(driven)
    token = secrets.token_hex(4)
    production = [c for c in compiles.values() if c.source != test.source and _is_source(c)]
    production = [c for c in production if not _defines_tests(patched_tree / c.source)]
    if len(production) > PRODUCTION_SOURCES:
        raise NotComparable(
            f"the build has {len(production)} production sources (more than "
            f"{PRODUCTION_SOURCES}): no user's program is built for so many"
        )
    sides = {"patched": patched_tree, "reference": reference_tree}
    program, binaries = _build(
        suite, sides, patched_tree, test, text, bodies, every, production, work, token
    )
    # Every run from a folder of the same name length, the program at the same place in it:
    # what a body reads out of bounds depends on where the stack starts.
    runs = {
        "patched": [_run(suite, binaries["patched"], work / "runs" / "0")],
        "reference": [_run(suite, binaries["reference"], work / "runs" / str(n)) for n in (1, 2)],
    }
    _fill(found, program, runs)


def _failing_cases(measured: SuiteRun, failing: list[str]) -> set[str]:
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


def _compiles(measured: SuiteRun, tree: Path) -> dict[str, Compile]:
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
    """A compile's flags as a user's build would have them: no outputs, no instrumentation,
    no sanitizer and no warning made an error."""
    out: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        if arg in _OUTPUT_FLAGS:
            skip = True
            continue
        if arg in _BARE or arg == file or arg in _DROPPED or arg.startswith(_DROPPED_PREFIX):
            continue
        if arg.startswith(("-o", "-MF")) and len(arg) > 3:
            continue
        out.append(arg)
    return out


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


def _test_file(
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


def _build(
    suite: CppSuite,
    sides: dict[str, Path],
    patched_tree: Path,
    test: Compile,
    text: str,
    bodies: list[user.Body],
    every: list[user.Variant],
    production: list[Compile],
    work: Path,
    token: str,
) -> tuple[user.Program, dict[str, Path]]:
    """The program, compiled and linked over each tree. A variant a compile error points at is
    dropped (a literal moved into a constant expression), on both sides alike."""
    names = user.Names.drawn(token)
    archives = {
        side: _archive(suite, tree, patched_tree, production, work / f"lib-{side}")
        for side, tree in sides.items()
    }
    kept = list(every)
    for _ in range(ERROR_ROUNDS + 1):
        program = user.program(text, bodies, names, kept)
        errors: dict[str, str] = {}
        objects: dict[str, Path] = {}
        for side, tree in sides.items():
            folder = work / f"program-{side}"
            folder.mkdir(parents=True, exist_ok=True)
            source = folder / "user_program.cpp"
            source.write_text(program.text)
            obj = folder / "user_program.o"
            flags = _moved(test.flags, patched_tree, tree)
            include = str(tree / Path(test.source).parent)
            argv = [
                test.compiler,
                *flags,
                "-w",
                "-iquote",
                include,
                "-c",
                str(source),
                "-o",
                str(obj),
            ]
            done = suite.runner.run(_request(suite, argv, folder, [tree, *_build_dirs(flags)]))
            if done.ok:
                objects[side] = obj
            else:
                errors[side] = (done.stdout + done.stderr).decode("utf-8", "replace")
        if not errors:
            break
        lines = set().union(*(user.error_lines(e, "user_program.cpp") for e in errors.values()))
        # An error in the support or a header is an instantiation one of the variants asked
        # for: the variants named go first; an error that names none fails the program.
        hit, _ = user.failing_variants(program, lines)
        if not hit:
            first = next(iter(errors.values())).strip().splitlines()[:1]
            raise NotComparable(
                "the failing tests' file does not build as a program without its framework: "
                + (first[0][:200] if first else "no compiler output")
            )
        kept = [v for i, v in enumerate(kept) if i not in hit]
        if not any(not v.varied for v in kept):
            raise NotComparable("no failing test's body builds outside its framework")
    else:
        raise NotComparable("the program still did not build after dropping what failed")
    binaries: dict[str, Path] = {}
    for side, tree in sides.items():
        binary = work / f"program-{side}" / "user_program"
        archive = archives[side]
        argv = [test.compiler, str(objects[side]), *([str(archive)] if archive else [])]
        argv += ["-pthread", "-o", str(binary)]
        readable = [tree, *([archive.parent] if archive else [])]
        done = suite.runner.run(_request(suite, argv, binary.parent, readable))
        if not done.ok:
            said = (done.stdout + done.stderr).decode("utf-8", "replace").strip().splitlines()
            raise NotComparable(
                "the user's program does not link: " + (said[0][:200] if said else "")
            )
        binaries[side] = binary
    return program, binaries


def _archive(
    suite: CppSuite, tree: Path, patched_tree: Path, production: list[Compile], folder: Path
) -> Path | None:
    """The production sources compiled over `tree` into one static archive, or None."""
    if not production:
        return None
    folder.mkdir(parents=True, exist_ok=True)
    objects = []
    for index, compile_ in enumerate(production):
        flags = _moved(compile_.flags, patched_tree, tree)
        obj = folder / f"{index}.o"
        argv = [compile_.compiler, *flags, "-w", "-c", str(tree / compile_.source), "-o", str(obj)]
        done = suite.runner.run(_request(suite, argv, folder, [tree, *_build_dirs(flags)]))
        if not done.ok:
            raise NotComparable(f"{compile_.source} does not build as a user builds it")
        objects.append(str(obj))
    archive = folder / "libproduction.a"
    done = suite.runner.run(_request(suite, ["ar", "rcs", str(archive), *objects], folder, []))
    if not done.ok:
        raise NotComparable("the production objects could not be archived")
    return archive


def _moved(flags: tuple[str, ...], patched_tree: Path, tree: Path) -> list[str]:
    """Flags that name the patched tree, pointed at `tree` (the build tree stays the patched
    run's: what its configure generated is the same for both)."""
    old, new = str(patched_tree), str(tree)
    if old == new:
        return list(flags)
    return [f.replace(old, new) for f in flags]


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


def _request(suite: CppSuite, argv: list[str], cwd: Path, readable: list[Path]) -> Request:
    return Request(
        command=argv,
        cwd=cwd,
        timeout=BUILD_TIME,
        path_prepend=suite.env.bin_dirs,
        writable=[cwd],
        readable=[*readable, *suite.env.readable],
        home=cwd,
    )


def _run(suite: CppSuite, binary: Path, folder: Path) -> dict[int, tuple[str, str]]:
    """One run of the program from an empty folder of its own, as a user would start it."""
    folder.mkdir(parents=True, exist_ok=True)
    program = folder / "user_program"
    shutil.copy2(binary, program)
    done = suite.runner.run(
        Request(
            command=[str(program)],
            cwd=folder,
            timeout=RUN_TIME,
            path_prepend=suite.env.bin_dirs,
            writable=[folder],
            readable=list(suite.env.readable),
            home=folder,
            limits=Limits(),
        )
    )
    return user.read_report(done.stdout)


def _fill(found: ReferenceFacts, program: user.Program, runs: dict[str, list[dict]]) -> None:
    calls = []
    reference: dict[str, dict] = {}
    patched: dict[str, dict] = {}
    first, second = runs["reference"]
    for index, variant in enumerate(program.variants):
        key = str(index)
        calls.append(
            {
                "id": key,
                "target": variant.test,
                "shown": f"the body of {variant.test} (case {index})",
                "varied": variant.varied,
                "test": variant.test,
            }
        )
        if index in first:
            ending, out = first[index]
            steady = second.get(index) == first[index]
            reference[key] = {"outcome": ending, "stdout": out, "steady": steady}
        if index in runs["patched"][0]:
            ending, out = runs["patched"][0][index]
            patched[key] = {"outcome": ending, "stdout": out}
    compared = differ.compare(calls, reference, patched)
    found.compared = compared.compared
    found.nondeterministic = compared.nondeterministic
    found.unrunnable = compared.unrunnable
    found.differing = len(compared.differing)
    outputs = {
        key: (reference[key]["stdout"], patched.get(key, {}).get("stdout", "")) for key in reference
    }
    found.differences = [_difference(w, outputs) for w in compared.differing[:SHOWN]]
    if not found.compared:
        found.skipped = (
            f"no case of the user's program was compared: {compared.nondeterministic} answered "
            f"otherwise twice under the reference, {compared.unrunnable} did not run there"
        )


def _difference(witness: differ.Witness, outputs: dict[str, tuple[str, str]]) -> Difference:
    """The witness, its outputs cut to the first observation on which they differ."""
    ref, pat = dict(witness.reference), dict(witness.patch)
    key = witness.call.rsplit("(case ", 1)[-1].rstrip(")")
    if "stdout" in witness.fields and key in outputs:
        ref["stdout"], pat["stdout"] = user.first_difference(*outputs[key])
    return Difference(
        target=witness.target,
        call=witness.call,
        varied=witness.varied,
        test=witness.test,
        fields=list(witness.fields),
        reference=ref,
        patch=pat,
    )
