"""CMake mode: the whole project built once per envelope, its ctest tests the goldens.

Each envelope gets its own build directory, configured with the task's pinned configure command
and a *toolchain file* of its own (CMake reads `CMAKE_TOOLCHAIN_FILE` from the environment): the
envelope's flags become `CMAKE_<LANG>_FLAGS_INIT` (compile and link), its link flags the linker
flags, and the per-configuration flags are emptied so that `-DCMAKE_BUILD_TYPE=Release` cannot
put `-O3` after a debug envelope's `-O0`. The build and the tests then run through the C++ suite
itself (`CppSuite.execute`: its ctest shim, its JUnit report and listing, outcomes.ctest's parser),
with the tree read-only and whole test outputs kept, and one cell is kept per (ctest test,
envelope).

ctest runs the test programs, so a cell has no rusage of its own (peak RSS and CPU stay 0 and the
resource envelope does not judge CMake-mode cells), and what it captured is stdout and stderr
interleaved: sanitizer reports are read from it, and a digest is judged only where a fixture
named after the test (`<test>.expected`, found at the SHA) pins those bytes.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shlex
import threading
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from patchwitness import testfiles
from patchwitness.environment import Environment
from patchwitness.gates.matrix import BUILD_CELL, NOT_BUILT
from patchwitness.matrix import sanitizers
from patchwitness.matrix.cells import TAIL, run_environment, werror_only
from patchwitness.matrix.manifest import Envelope, Matrix
from patchwitness.matrix.tools import Tools
from patchwitness.model import Cell, Outcome
from patchwitness.runner import Limits
from patchwitness.suites.cpp import CppRun, CppSuite, Execution
from patchwitness.task import Task
from patchwitness.workspace import files_at, show_at

CONFIGS = ("DEBUG", "RELEASE", "RELWITHDEBINFO", "MINSIZEREL")


@dataclass
class TestReport:
    output: str = ""
    time_s: float = 0.0


@dataclass
class EnvelopeRun:
    envelope: Envelope
    build_status: str | None = None  # compile_fail / werror_fail / timeout when it never built
    build_tail: str = ""
    build_rc: int | None = None
    build_wall_s: float = 0.0
    compile_command: str = ""
    run_command: str = ""
    listed: list[str] = field(default_factory=list)
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    reports: dict[str, TestReport] = field(default_factory=dict)
    timeouts: dict[str, float] = field(default_factory=dict)
    suite_timed_out: bool = False
    build_dir: Path | None = None


# --- the per-envelope files ---------------------------------------------------------------------


def _cmake_string(flags: tuple[str, ...]) -> str:
    text = " ".join(flags)
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


# A user's default build compiles in the compiler's own dialect, whatever -std the project's
# CMake asks for its targets: the launcher drops every spelling of a dialect from the compile line
# (-std=, --std=, --std X, -ansi).
DIALECT_LAUNCHER = """#!/bin/sh
# patchwitness flag matrix: a user's default build, in the compiler's own dialect
drop=""
for a do
  shift
  if [ -n "$drop" ]; then drop=""; continue; fi
  case "$a" in
    -std=*|--std=*|-ansi) ;;
    --std) drop=1 ;;
    *) set -- "$@" "$a" ;;
  esac
done
exec "$@"
"""


def toolchain_file(envelope: Envelope, launcher: Path | None = None) -> str:
    """The envelope as a CMake toolchain file (the issue's "cache/preset file per envelope").
    A user's default build (`envelope.user`) has no build type, and compiles through
    `launcher` (DIALECT_LAUNCHER)."""
    flags = _cmake_string(envelope.cxxflags)
    links = _cmake_string(envelope.ldflags)
    lines = [f"# patchwitness flag matrix: envelope {envelope.name}"]
    if envelope.cxx:
        lines.append(f"set(CMAKE_CXX_COMPILER {_cmake_string((envelope.cxx,))})")
    if envelope.user and launcher is not None:
        lines += [
            "# A user's default build: no build type (no configuration's flags or definitions)",
            "# and the compiler's own dialect.",
            'set(CMAKE_BUILD_TYPE "" CACHE STRING "patchwitness matrix" FORCE)',
            f"set(CMAKE_CXX_COMPILER_LAUNCHER {_cmake_string((str(launcher),))})",
            f"set(CMAKE_C_COMPILER_LAUNCHER {_cmake_string((str(launcher),))})",
        ]
    lines += [
        f"set(CMAKE_CXX_FLAGS_INIT {flags})",
        f"set(CMAKE_C_FLAGS_INIT {flags})",
        f"set(CMAKE_EXE_LINKER_FLAGS_INIT {links})",
        f"set(CMAKE_SHARED_LINKER_FLAGS_INIT {links})",
        "# The envelope alone sets optimisation and NDEBUG: no build type may append its own.",
        f"foreach(config {' '.join(CONFIGS)})",
        '  set(CMAKE_CXX_FLAGS_${config} "" CACHE STRING "patchwitness matrix" FORCE)',
        '  set(CMAKE_C_FLAGS_${config} "" CACHE STRING "patchwitness matrix" FORCE)',
        "endforeach()",
    ]
    return "\n".join(lines) + "\n"


# --- reports ----------------------------------------------------------------------------------


def parse_junit_output(text: str) -> dict[str, TestReport]:
    """Each test's captured output and time from ctest's JUnit report."""
    out: dict[str, TestReport] = {}
    root = ET.fromstring(text)
    for case in root.iter("testcase"):
        system_out = case.find("system-out")
        try:
            seconds = float(case.get("time") or 0.0)
        except ValueError:
            seconds = 0.0
        output = system_out.text or "" if system_out is not None else ""
        out[str(case.get("name"))] = TestReport(output=output, time_s=seconds)
    return out


def parse_timeouts(text: str) -> dict[str, float]:
    """Each test's TIMEOUT property from ctest's JSON listing (ctest's JUnit does not say that
    a test was stopped for time; its run time reaching the limit does)."""
    out: dict[str, float] = {}
    for test in json.loads(text).get("tests", []):
        for prop in test.get("properties", []) or []:
            if prop.get("name") == "TIMEOUT":
                with contextlib.suppress(TypeError, ValueError):
                    out[str(test["name"])] = float(prop.get("value"))
    return out


def _read_reports(done: CppRun, run: EnvelopeRun) -> None:
    combined = done.report()
    run.listed = list(combined.listed)
    run.outcomes = dict(combined.outcomes)
    for text in done.junits:
        try:
            run.reports.update(parse_junit_output(text))
        except ET.ParseError:
            continue
    for text in done.listings:
        try:
            run.timeouts.update(parse_timeouts(text))
        except (ValueError, KeyError, TypeError):
            continue


# --- running one envelope ---------------------------------------------------------------------


def with_defaults(configure: str, options: Iterable[str]) -> str:
    """The configure command with each `-DNAME=VALUE` (`-D NAME:TYPE=VALUE`, quoted or not) of
    the given options made `-UNAME`: the project's default for it, even in a build tree whose
    cache held the task's value."""
    for name in sorted(options):
        pattern = re.compile(
            r"(?<!\S)(?P<q>[\"']?)-D\s*"
            + re.escape(name)
            + r"(?::\w+)?=(?:\"[^\"]*\"|'[^']*'|[^\s\"';&|]*)(?P=q)(?!\S)"
        )
        configure = pattern.sub(f"-U{name}", configure)
    return configure


def envelope_configure(task: Task, envelope: Envelope) -> str:
    """The configure command of an envelope's build. A user's default build takes the project's
    own options at their defaults (a library built the way its users get it: header-only where
    that is the default), whatever the task chose for the tests; test switches stay the task's."""
    configure = task.options.cpp.configure
    if not envelope.user:
        return configure
    return with_defaults(configure, testfiles.cmake_project_options(task.repo, task.sha))


def _commands(task: Task, envelope: Envelope, toolchain: Path) -> tuple[str, str]:
    opts = task.options.cpp
    configure = envelope_configure(task, envelope)
    compile_line = f"CMAKE_TOOLCHAIN_FILE={shlex.quote(str(toolchain))} {configure} && {opts.build}"
    env = run_environment(envelope)
    prefix = " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted(env.items()))
    run_line = f"{prefix} {task.test_cmd}".strip()
    return compile_line, run_line


def warm_name(envelope: Envelope) -> str:
    """The name of an envelope's warm build tree (warm.py)."""
    return f"envelope-{envelope.name}"


def _toolchain(envelope: Envelope, base: Path, slot) -> Path:
    """The envelope's toolchain file: in the warm slot (a build tree bakes its path in), or in
    this run's scratch."""
    folder = slot.root / "toolchains" if slot is not None else base
    folder.mkdir(parents=True, exist_ok=True)
    launcher = None
    if envelope.user:
        launcher = folder / f"{envelope.name}-dialect"
        launcher.write_text(DIALECT_LAUNCHER)
        launcher.chmod(0o755)
    toolchain = folder / f"{envelope.name}.cmake"
    toolchain.write_text(toolchain_file(envelope, launcher))
    return toolchain


def _variables(envelope: Envelope, toolchain: Path) -> dict[str, str]:
    return {"CMAKE_TOOLCHAIN_FILE": str(toolchain), **run_environment(envelope)}


def prime_envelope(suite: CppSuite, envelope: Envelope, slot, scratch: Path) -> bool:
    """Build the warm slot's pristine tree under `envelope` (no test runs) and keep it as the
    snapshot later grades start from."""
    from patchwitness import warm

    name = warm_name(envelope)
    if slot.has_snapshot(name):
        return True
    base = scratch / "prime" / envelope.name
    base.mkdir(parents=True, exist_ok=True)
    toolchain = _toolchain(envelope, base, slot)
    how = Execution(
        variables=_variables(envelope, toolchain),
        limits=Limits(address_space=not envelope.sanitizer),
        tree_writable=False,
        tools=toolchain.parent,
        build=warm.start_build(slot, name),
        test=False,
        configure=envelope_configure(suite.task, envelope),
    )
    done = suite.execute(slot.repo, base, how)
    if done.failed_step:
        return False
    warm.keep_snapshot(slot, name)
    return True


def run_envelope(
    suite: CppSuite,
    envelope: Envelope,
    tree: Path,
    scratch: Path,
    parallel: int,
    slot=None,
    serial_test: threading.Lock | None = None,
    at_sha: bool = False,
) -> EnvelopeRun:
    """Configure, build and test the project under one envelope, through the C++ suite; from
    the warm slot's snapshot for this envelope when there is one (`at_sha`: the tree is the
    slot's SHA, which the snapshot was built from). Envelopes build side by side over the
    read-only tree; their tests take turns with it writable (`serial_test`)."""
    from patchwitness import warm

    task = suite.task
    base = scratch / "cmake" / envelope.name
    base.mkdir(parents=True, exist_ok=True)
    toolchain = _toolchain(envelope, base, slot)
    build = None
    if slot is not None and slot.has_snapshot(warm_name(envelope)):
        build = warm.restore_build(slot, warm_name(envelope), at_sha=at_sha)
    run = EnvelopeRun(envelope, build_dir=build or base / "build")
    run.compile_command, run.run_command = _commands(task, envelope, toolchain)
    how = Execution(
        variables=_variables(envelope, toolchain),
        limits=Limits(address_space=not envelope.sanitizer),
        tree_writable=False,
        tools=toolchain.parent,
        full_output=True,
        parallel=parallel,
        build=build,
        serial_test=serial_test or threading.Lock(),
        configure=envelope_configure(task, envelope),
    )
    done = suite.execute(tree, base, how)
    for step in (done.facts.configure, done.facts.build):
        run.build_wall_s += step.wall_s if step is not None else 0.0
    if done.failed_step:
        assert done.failure is not None
        diagnostics = done.failure_tail()
        run.build_tail = diagnostics[-TAIL:]
        run.build_rc = done.failure.returncode
        if done.failure.timed_out:
            run.build_status = "timeout"
        else:
            run.build_status = "werror_fail" if werror_only(diagnostics) else "compile_fail"
        return run
    build = done.facts.build
    run.build_rc = build.returncode if build is not None else 0
    run.build_tail = (build.stdout_tail + build.stderr_tail)[-TAIL:] if build is not None else ""
    assert done.test is not None
    run.suite_timed_out = done.test.timed_out
    _read_reports(done, run)
    return run


# --- cells ------------------------------------------------------------------------------------


def _cell(run: EnvelopeRun, test: str, patch: str) -> Cell:
    envelope = run.envelope
    return Cell(
        patch=patch,
        golden=test,
        envelope=envelope.name,
        status="missing",
        required=envelope.required,
        envelope_kind=envelope.kind,
        cxxflags=list(envelope.cxxflags),
        werror_exception=envelope.werror_exception,
        mode="cmake",
        compile_rc=run.build_rc,
        compile_stderr_tail=run.build_tail,
        compile_wall_s=round(run.build_wall_s, 3),
        compile_command=run.compile_command,
        run_command=f"{run.run_command} -R {shlex.quote('^' + re.escape(test) + '$')}",
    )


def test_cell(run: EnvelopeRun, test: str, patch: str, roots: list[str]) -> Cell:
    cell = _cell(run, test, patch)
    if run.build_status is not None:
        cell.status = run.build_status  # type: ignore[assignment]
        cell.note = NOT_BUILT
        return cell
    outcome = run.outcomes.get(test)
    report = run.reports.get(test, TestReport())
    cell.stderr_tail = report.output[-TAIL:]
    cell.wall_s = round(report.time_s, 3)
    cell.sanitizer_findings = sanitizers.parse(report.output, roots)
    if outcome is not None and report.output:
        cell.stdout_sha256 = hashlib.sha256(report.output.encode()).hexdigest()
    cell.status = _status(run, test, outcome, report, bool(cell.sanitizer_findings))  # type: ignore[assignment]
    if outcome in (None, "missing", "skipped"):
        cell.note = f"ctest outcome: {outcome or 'not listed'}"
    return cell


def _status(
    run: EnvelopeRun, test: str, outcome: Outcome | None, report: TestReport, reported: bool
) -> str:
    if outcome is None or outcome in ("missing", "skipped"):
        return "timeout" if run.suite_timed_out else "missing"
    if reported:
        return "sanitizer"
    if outcome == "passed":
        return "pass"
    limit = run.timeouts.get(test)
    if limit and report.time_s >= limit * 0.98:
        return "timeout"
    return "run_fail"


def skipped_everywhere(runs: list[EnvelopeRun], test: str) -> bool:
    seen = [r.outcomes.get(test) for r in runs if r.build_status is None]
    return bool(seen) and all(o == "skipped" for o in seen)


class Tally:
    """Work units done out of a total, told to a person watching (`progress`), thread-safe."""

    def __init__(self, total: int, what: str, progress: Callable[[str], None] | None) -> None:
        self.total, self.what, self.progress = total, what, progress
        self.count = 0
        self._lock = threading.Lock()

    def one(self) -> None:
        with self._lock:
            self.count += 1
            count = self.count
        if self.progress is not None:
            self.progress(f"the flag matrix: {count} of {self.total} {self.what} done")


def _counted(run: EnvelopeRun, done: Tally | None) -> EnvelopeRun:
    if done is not None:
        done.one()
    return run


def envelope_jobs(cores: int, concurrent: int) -> int:
    """The compile jobs each of `concurrent` envelope builds may run: twice its share of the
    cores, at most all of them. Envelopes end one after the other, the slowest (a sanitizer's
    at -O2) last; with a bare share it would build alone on one core while the others idle."""
    return max(1, min(cores, -(-2 * cores // max(1, concurrent))))


def cmake_cells(
    task: Task,
    matrix: Matrix,
    tree: Path,
    scratch: Path,
    *,
    patch: str,
    baseline: list[Cell] | None,
    tools: Tools,
    unavailable: dict[str, str | None],
) -> list[Cell]:
    """Every (ctest test, envelope) cell. Tests skipped at the SHA are no golden; a baseline test
    that is not reported after the patch is a missing cell."""
    tree = tree.resolve()
    usable = [e for e in matrix.envelopes if unavailable.get(e.name) is None]
    concurrent = max(1, min(tools.workers or 1, len(usable)))
    parallel = envelope_jobs(os.cpu_count() or 1, concurrent)
    suite = CppSuite(task, tools.env or Environment(key="", path=None), tools.runner)
    slot, done = tools.slot, Tally(len(matrix.envelopes), "envelopes", tools.progress)
    serial_test = threading.Lock()
    with ThreadPoolExecutor(max_workers=concurrent) as pool:
        runs = list(
            pool.map(
                lambda e: _counted(
                    run_envelope(
                        suite, e, tree, scratch.resolve(), parallel, slot, serial_test, tools.at_sha
                    ),
                    done,
                ),
                usable,
            )
        )
    tests = _planned_tests(runs, baseline)
    roots = [str(tree), *(str(r.build_dir) for r in runs if r.build_dir)]
    cells: list[Cell] = []
    by_name = {r.envelope.name: r for r in runs}
    for envelope in matrix.envelopes:
        run = by_name.get(envelope.name)
        for test in tests or [BUILD_CELL]:
            if run is None:
                cell = _cell(EnvelopeRun(envelope), test, patch)
                cell.note = unavailable.get(envelope.name) or "not run"
            else:
                cell = test_cell(run, test, patch, roots)
            cells.append(cell)
    references = fixture_files(task, tests)
    for cell in cells:
        expected = references.get(cell.golden)
        if expected is None:
            continue
        cell.expected_sha256, cell.expected_from = expected
        if cell.status == "pass" and cell.stdout_sha256 != cell.expected_sha256:
            cell.status = "digest_mismatch"
    return cells


def fixture_files(task: Task, tests: list[str]) -> dict[str, tuple[str, str]]:
    """test -> (sha256, "fixture:PATH"): `<test>.expected` anywhere in the tree at the SHA,
    when exactly one."""
    by_name: dict[str, list[str]] = {}
    for path in files_at(task.repo, task.sha):
        if path.endswith(".expected"):
            by_name.setdefault(path.rsplit("/", 1)[-1][: -len(".expected")], []).append(path)
    out = {}
    for test in tests:
        paths = by_name.get(test, [])
        if len(paths) == 1:
            data = show_at(task.repo, task.sha, paths[0]) or b""
            out[test] = (hashlib.sha256(data).hexdigest(), f"fixture:{paths[0]}")
    return out


def _planned_tests(runs: list[EnvelopeRun], baseline: list[Cell] | None) -> list[str]:
    listed = list(dict.fromkeys(t for r in runs for t in r.listed))
    if baseline is None:
        return [t for t in listed if not skipped_everywhere(runs, t)]
    known = [c.golden for c in baseline if c.golden != BUILD_CELL]
    fresh = [t for t in listed if t not in known and not skipped_everywhere(runs, t)]
    return list(dict.fromkeys([*known, *fresh]))
