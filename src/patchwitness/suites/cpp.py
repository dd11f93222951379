"""The C++ suite: configure, build and run the goldens with the task's pinned recipe.

The recipe comes from task.toml (`[cpp] configure`, `build`) and test_cmd.txt; the default is an
out-of-tree Ninja CMake build in `$PW_BUILD` and ctest. Outcomes never come from ctest's human
output: a `ctest` shim first on PATH runs the same command once to list the tests (the collection)
and once with `--output-junit`, and GoogleTest writes its own XML (`GTEST_OUTPUT`). All reports go
to a directory created for this run, outside the worktree.

`CppSuite.execute` is the one configure-build-test of a CMake project: the suite's runs (plain or
instrumented for coverage) and the flag matrix's CMake envelopes (matrix/cmake.py) both go through
it, with their own variables and limits.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import shlex
import shutil
import threading
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from patchwitness import failure_log
from patchwitness.buildgraph import BuildGraph, read_graph
from patchwitness.environment import Environment
from patchwitness.hits.gcovr import GcovBuild
from patchwitness.model import BuildFacts, Cases, TestRun
from patchwitness.outcomes import cases as test_cases
from patchwitness.outcomes.ctest import CtestReport, combine, parse_junit_outputs
from patchwitness.runner import SANDBOX_HOSTNAME, Limits, Request, Result, Runner, run_tool
from patchwitness.suites import (
    AT_THE_GRADER,
    NO_FOCUS,
    Focus,
    Instrumentation,
    RunSurface,
    SuiteRun,
    Surroundings,
)
from patchwitness.task import Task

CTEST_SHIM = """#!/bin/sh
# patchwitness: list the tests (the collection), then run them with a JUnit report.
real={real}
stamp="$$-$(date +%s%N)"
# Only the tests a question is asked of (a mutant's run), when the grader names them.
"$real" "$@" ${{PW_CTEST_ONLY:+-R "$PW_CTEST_ONLY"}} --show-only=json-v1 \\
  > "$PW_REPORT_DIR/ctest-list-$stamp.json" 2>/dev/null
# A coverage run is serialized: parallel tests would clobber each other's .gcda counters.
serial=""
[ -n "$PW_CTEST_SERIAL" ] && serial="--parallel 1"
exec "$real" "$@" ${{PW_CTEST_ONLY:+-R "$PW_CTEST_ONLY"}} $serial \\
  --output-junit "$PW_REPORT_DIR/ctest-junit-$stamp.xml"
"""
# The variable the shim reads the tests to run from (a ctest regular expression).
ONLY = "PW_CTEST_ONLY"


def only_these(names: tuple[str, ...] | list[str]) -> str:
    """A ctest regular expression (CMake's syntax) matching exactly these test names."""
    return "^(" + "|".join(re.sub(r"([][.*+?^$()|\\{}])", r"\\\1", n) for n in names) + ")$"


# Bytes of a test's output ctest keeps in its JUnit report (its default is 1 kB): the matrix
# reads sanitizer reports from there, and a report in a passing test's output is still a report.
OUTPUT_LIMIT = 1024 * 1024

# In a coverage build, a test source is compiled without -fkeep-inline-functions: the flag emits
# every inline function of the test framework's headers (it doubles a GoogleTest file's compile
# time) and measures nothing the gate reads. Production sources keep it, so an unused inline
# production function still shows as zero-hit, or, emitted nowhere, as unscored-suspicious.
LAUNCHER = """#!/bin/sh
# patchwitness: coverage build compiler launcher (see suites/cpp.py)
src=""
for a in "$@"; do
  case "$a" in *.cc|*.cpp|*.cxx|*.c++|*.C|*.c) src="$a" ;; esac
done
if [ -n "$src" ] && [ -n "$PW_TEST_SOURCES" ] && grep -qxF -- "$src" "$PW_TEST_SOURCES"; then
  for a do
    shift
    [ "$a" = "-fkeep-inline-functions" ] || set -- "$@" "$a"
  done
fi
exec "$@"
"""
TEST_TU_NOTE = "test sources are compiled without -fkeep-inline-functions"
# The variables a coverage build with the launcher gets besides the flags (`_launcher`).
LAUNCHED = frozenset(
    {"CMAKE_CXX_COMPILER_LAUNCHER", "CMAKE_C_COMPILER_LAUNCHER", "PW_TEST_SOURCES"}
)
KEEP_INLINE = "-fkeep-inline-functions"
# Flags a real project's build can fail under (an inline std::filesystem member that needs a
# symbol libstdc++ does not export, when every inline function is emitted), dropped in this
# order until the SHA builds and passes as it does without them.
DROPPABLE = (KEEP_INLINE, "-fno-elide-constructors", "-fno-inline")


def coverage_ladder(flags: list[str]) -> list[Instrumentation]:
    """The pinned flag set, then lesser ones down to plain `--coverage`, without repeats."""
    out: list[Instrumentation] = []
    current = list(flags)
    out.append(Instrumentation("pinned", tuple(current)))
    for flag in DROPPABLE:
        if flag in current:
            current = [f for f in current if f != flag]
            out.append(Instrumentation(f"without {flag}", tuple(current)))
    if "--coverage" in flags and tuple(current) != ("--coverage",):
        out.append(Instrumentation("--coverage only", ("--coverage",)))
    return out


TOOLS = {
    "compiler": ["c++", "--version"],
    "cmake": ["cmake", "--version"],
    "gcov": ["gcov", "--version"],
    "ninja": ["ninja", "--version"],
}


@functools.cache
def toolchain_versions() -> dict[str, str]:
    """First line of each tool's --version; 'missing' for a tool that is not installed."""
    out = {}
    for name, argv in TOOLS.items():
        try:
            done = run_tool(argv, cwd=Path("/"), timeout=30)
            text = (done.stdout or done.stderr).decode("utf-8", "replace").strip()
            out[name] = text.splitlines()[0] if text else "unknown"
        except OSError:
            out[name] = "missing"
    return out


def ctest_keeps_output_size() -> bool:
    """ctest 3.24 and later can be told how much of a test's output to keep."""
    match = re.search(r"(\d+)\.(\d+)", toolchain_versions().get("cmake", ""))
    return bool(match) and (int(match.group(1)), int(match.group(2))) >= (3, 24)


def write_shim(directory: Path, full_output: bool = False) -> Path:
    """The `ctest` shim, in `directory` (put first on PATH). With `full_output`, ctest keeps
    whole test outputs in its JUnit report."""
    directory.mkdir(parents=True, exist_ok=True)
    real = shutil.which("ctest") or "/usr/bin/ctest"
    if full_output and ctest_keeps_output_size():
        wrapper = directory / "ctest-full-output"
        sizes = f"--test-output-size-passed {OUTPUT_LIMIT} --test-output-size-failed {OUTPUT_LIMIT}"
        wrapper.write_text(f'#!/bin/sh\nexec {shlex.quote(real)} "$@" {sizes}\n')
        wrapper.chmod(0o755)
        real = str(wrapper)
    shim = directory / "ctest"
    shim.write_text(CTEST_SHIM.format(real=shlex.quote(real)))
    shim.chmod(0o755)
    return directory


def compile_command(build: Path, prefer: list[str]) -> str:
    """The compiler command line of a patched source (or the first one), from the build's
    compile_commands.json: the seed asks for it in the failure artifact."""
    try:
        entries = json.loads((build / "compile_commands.json").read_text())
    except (OSError, ValueError):
        return ""
    for want in prefer:
        for entry in entries:
            if str(entry.get("file", "")).endswith("/" + want):
                return str(entry.get("command") or " ".join(entry.get("arguments", [])))
    if entries:
        first = entries[0]
        return str(first.get("command") or " ".join(first.get("arguments", [])))
    return ""


@dataclass
class CppRun:
    """One configure, build and test of the project, and the reports the test run left."""

    build_dir: Path
    facts: BuildFacts = field(default_factory=BuildFacts)
    failed_step: str = ""  # configure or build, when one failed
    failure: Result | None = None
    test: Result | None = None
    listings: list[str] = field(default_factory=list)
    junits: list[str] = field(default_factory=list)
    gtest: dict[str, str] = field(default_factory=dict)
    graph: BuildGraph | None = None
    # Tests ctest passed by their output alone, and the status each program exits with.
    exits: dict[str, int | None] = field(default_factory=dict)

    def report(self) -> CtestReport:
        return combine(self.listings, self.junits, self.gtest)

    def cases(self, report: CtestReport) -> Cases:
        """The cases inside each ctest test (outcomes/cases.py), from the reports and the whole
        outputs ctest kept (`execute(full_output=True)`). An output of the limit's size may have
        been cut short, and a summary past the cut is not there to read: it is not counted."""
        outputs: dict[str, str] = {}
        for text in self.junits:
            with contextlib.suppress(ET.ParseError):
                outputs.update(parse_junit_outputs(text))
        cut = [t for t, text in outputs.items() if len(text.encode()) >= OUTPUT_LIMIT]
        return test_cases.read(report, outputs, cut=cut, count=ctest_keeps_output_size())

    def failure_tail(self) -> str:
        if self.failure is None:
            return ""
        return (self.failure.stdout + self.failure.stderr).decode("utf-8", "replace")


def run_env(tree: Path, build: Path, reports: Path, parallel: int | None = None) -> dict[str, str]:
    """The variables every configure, build and test of the project gets besides the runner's
    own."""
    return {
        "PW_BUILD": str(build),
        "PW_REPO": str(tree),
        "PW_REPORT_DIR": str(reports),
        "GTEST_OUTPUT": f"xml:{reports}/gtest/",
        "CCACHE_DISABLE": "1",
        "CMAKE_BUILD_PARALLEL_LEVEL": str(parallel or os.cpu_count() or 1),
        "CMAKE_EXPORT_COMPILE_COMMANDS": "ON",
    }


@dataclass(frozen=True)
class Execution:
    """How one `CppSuite.execute` goes. `tools`: a folder of the grader's (the compiler launcher
    of a warm slot) the build reads, outside the scratch folder.

    `serial_test`: builds that share one tree read it only (`tree_writable` false), but the
    tests run with the tree writable, one at a time under this lock: a project's tests may
    write into the source tree (tinyxml2 writes `resources/out/`), as they do under the plain
    run, and a read-only tree would fail them for the grader's own reason."""

    variables: Mapping[str, str] = field(default_factory=dict)
    limits: Limits | None = None
    tree_writable: bool = True
    full_output: bool = False
    parallel: int | None = None
    prefer: tuple[str, ...] = ()
    build: Path | None = None
    test: bool = True
    tools: Path | None = None
    serial_test: threading.Lock | None = field(default=None, compare=False)
    hostname: str = SANDBOX_HOSTNAME
    home: str = "home"
    tmp_dirs: tuple[str, ...] = ()
    test_timeout: float | None = None  # None: the task's
    configure: str | None = None  # None: the task's


DEFAULT_EXECUTION = Execution()


class CppSuite:
    language = "cpp"

    def __init__(self, task: Task, env: Environment, runner: Runner) -> None:
        self.task = task
        self.env = env
        self.runner = runner

    def versions(self) -> dict:
        versions = dict(toolchain_versions())
        if self.task.options.setup:
            versions.update({f"env.{k}": v for k, v in self.env.versions.items()})
        return versions

    def instrumentations(self) -> list[Instrumentation]:
        return coverage_ladder(self.task.options.coverage.cxx_flags)

    def run_variables(self) -> set[str]:
        from patchwitness.cpp_mutants import VARIABLE as MUTANT_VARIABLE
        from patchwitness.runner import grader_variables

        root = Path("/")
        instrumented = self.build_variables(
            Instrumentation("any", (KEEP_INLINE,)), NO_FOCUS, root, root
        )
        # A mutant's run names its tests and its mutant: code that reads either knows it.
        questions = {ONLY, MUTANT_VARIABLE}
        return grader_variables() | set(run_env(root, root, root)) | set(instrumented) | questions

    def coverage_problem(self, run: SuiteRun, tree: Path, scratch: Path) -> str:
        """gcovr over the run's build: a project whose data gcovr cannot read (or that wrote
        none, its build ignoring the grader's flags) is not measurable at the SHA already."""
        from patchwitness.hits import gcovr

        if not isinstance(run.coverage, gcovr.GcovBuild):
            return "the run was not instrumented"
        return gcovr.run_gcovr(tree, run.coverage.build, scratch, self.runner).why

    def execute(self, tree: Path, scratch: Path, how: Execution = DEFAULT_EXECUTION) -> CppRun:
        """Configure, build and (unless `how.test` is false) run the test command over `tree`;
        everything but the tree under `scratch` (reports, home), the build tree too unless
        `how.build` names one (a warm tree, see warm.py)."""
        build = how.build or scratch / "build"
        reports, home = scratch / "reports", scratch / how.home
        for d in (build, reports / "gtest", home):
            d.mkdir(parents=True, exist_ok=True)
        request = self._requests(tree, scratch, build, how)
        run = CppRun(build_dir=build)
        opts = self.task.options.cpp
        configure = how.configure if how.configure is not None else opts.configure
        for step, command in (("configure", configure), ("build", opts.build)):
            result = self.runner.run(request(command, opts.build_timeout))
            setattr(run.facts, step, result.facts())
            if not result.ok:
                run.failed_step, run.failure = step, result
                return run
        run.facts.compiler_command = compile_command(build, list(how.prefer))
        # Read before the tests run: what the build was made of, not what a test left there.
        run.graph = read_graph(build, tree)
        if not how.test:
            return run
        timeout = how.test_timeout or self.task.timeout
        if how.serial_test is None:
            run.test = self.runner.run(request(self.task.test_cmd, timeout))
        else:
            with how.serial_test:
                run.test = self.runner.run(request(self.task.test_cmd, timeout, writes_tree=True))
        run.listings = [p.read_text() for p in sorted(reports.glob("ctest-list-*.json"))]
        run.junits = [p.read_text() for p in sorted(reports.glob("ctest-junit-*.xml"))]
        run.gtest = {p.name: p.read_text() for p in sorted((reports / "gtest").glob("*.xml"))}
        run.exits = self._exit_statuses(run, request, build)
        return run

    def _requests(
        self, tree: Path, scratch: Path, build: Path, how: Execution
    ) -> Callable[..., Request]:
        """How each step of `execute` asks the runner: `request(command, timeout)`."""
        reports, home = scratch / "reports", scratch / how.home
        path = [str(write_shim(scratch / "bin", how.full_output)), *self.env.bin_dirs]
        env = {**run_env(tree, build, reports, how.parallel), **how.variables}
        # For one path the sandbox's read-only bind wins: a path is in one list, never both.
        extra = [how.tools] if how.tools is not None and how.tools != scratch else []
        # Without `tools` in the sandbox the launcher CMake was told to use is "not found", and
        # every build fails for the grader's own reason.
        shared = ([build, reports, home], [tree, scratch, *self.env.readable, *extra])
        private = ([scratch, tree, build], [*self.env.readable, *extra])

        def request(command: str, timeout: float, *, writes_tree: bool = how.tree_writable):
            writable, readable = private if writes_tree else shared
            return Request(
                command=command,
                cwd=tree / self.task.options.cwd,
                timeout=timeout,
                env=env,
                path_prepend=path,
                writable=writable,
                readable=readable,
                home=home,
                limits=how.limits or Limits(),
                hostname=how.hostname,
                tmp_dirs=how.tmp_dirs,
            )

        return request

    def _exit_statuses(self, run: CppRun, request, build: Path) -> dict[str, int | None]:
        """Each test ctest passed only because its output matched PASS_REGULAR_EXPRESSION, run
        once more, its exit status heard: code under test can print the text a pass expression
        looks for (`, Fail 0`) while the program still reports its failures by exiting."""
        from patchwitness.outcomes.ctest import passed_by_output

        read: dict = {}
        for text in run.listings:
            with contextlib.suppress(ValueError, KeyError, TypeError):
                read.update(passed_by_output(text))
        passed = {n for n, o in run.report().outcomes.items() if o == "passed"}
        out: dict[str, int | None] = {}
        for name in sorted(set(read) & passed):
            spec = read[name]
            ask = request(shlex.join(spec.command), self.task.timeout, writes_tree=True)
            env = {**ask.env, **dict(spec.env)}
            cwd = Path(spec.cwd) if spec.cwd else build
            done = self.runner.run(replace(ask, cwd=cwd, env=env))
            out[name] = done.returncode
        return out

    def build_variables(
        self, instrument: Instrumentation | None, focus: Focus, tree: Path, tools: Path
    ) -> dict[str, str]:
        """What the configure step reads for this build: the coverage variant's flags, and the
        launcher that drops -fkeep-inline-functions for test sources (written under `tools`,
        which must outlive a warm build tree that bakes its path in)."""
        if instrument is None:
            return {}
        # The coverage build: the variant's flag set, through the environment CMake reads at
        # configure time, and the goldens run one at a time.
        flags = " ".join(instrument.flags)
        variables = {
            "CXXFLAGS": flags,
            "CFLAGS": flags,
            "LDFLAGS": "--coverage",
            "PW_CTEST_SERIAL": "1",
        }
        if focus.test_sources and KEEP_INLINE in instrument.flags:
            variables.update(self._launcher(tree, tools, focus.test_sources))
        return variables

    def warm_name(self, instrument: Instrumentation | None) -> str:
        """The name of the warm build tree for this instrumentation (warm.py)."""
        return "plain" if instrument is None else "coverage-" + instrument.name.replace(" ", "_")

    def prime(self, slot, instrument: Instrumentation | None, focus: Focus, scratch: Path) -> str:
        """Build the slot's pristine tree for `instrument` (no test runs), and keep that build as
        the snapshot later grades start from. Returns the build's name; '' when it failed."""
        from patchwitness import warm

        name = self.warm_name(instrument)
        if slot.has_snapshot(name):
            return name
        tools = slot.root / "tools"
        variables = self.build_variables(instrument, focus, slot.repo, tools)
        build = warm.start_build(slot, name)
        how = Execution(variables=variables, build=build, test=False, tools=tools)
        done = self.execute(slot.repo, scratch, how)
        if done.failed_step:
            return ""
        warm.keep_snapshot(slot, name)
        return name

    def run(
        self,
        tree: Path,
        scratch: Path,
        *,
        instrument: Instrumentation | None = None,
        focus: Focus = NO_FOCUS,
        around: Surroundings = AT_THE_GRADER,
        slot=None,
        built: Path | None = None,
    ) -> SuiteRun:
        """One build and test run. With a warm `slot` (whose repo is `tree`), the build starts
        from the slot's snapshot for this instrumentation and rebuilds what the patch dirtied;
        `built`: a build tree of this tree to test as it is (its build step is then a no-op)."""
        from patchwitness import warm

        tools = slot.root / "tools" if slot is not None else scratch
        variables = {
            **self.build_variables(instrument, focus, tree, tools),
            **dict(around.variables),
        }
        if around.select:
            variables[ONLY] = only_these(around.select)
        build = built
        if build is None and slot is not None and slot.has_snapshot(self.warm_name(instrument)):
            build = warm.restore_build(slot, self.warm_name(instrument))
        # Whole outputs: the Catch2 and doctest summaries that say how many cases ran are there.
        how = Execution(
            variables=variables,
            prefer=focus.changed,
            build=build,
            tools=tools,
            full_output=True,
            limits=around.limits,
            hostname=around.hostname,
            home=around.home,
            tmp_dirs=around.tmp_dirs,
            test_timeout=around.timeout_s,
        )
        done = self.execute(tree, scratch, how)
        if done.failed_step:
            return self._build_failed(done)
        graph = done.graph
        assert done.test is not None
        report = done.report()
        problems = [*report.problems]
        if done.test.killed_reason:
            problems.append(f"killed: {done.test.killed_reason}")
        if report.listed == [] and not report.problems:
            problems.append("ctest listed no tests")
        run = TestRun(
            run=done.test.facts(),
            outcomes=report.outcomes,
            collected=report.listed,
            report_problems=problems,
            cases=done.cases(report),
            exits=dict(done.exits),
        )
        return SuiteRun(
            run=run,
            started=bool(report.listed),
            timed_out=done.test.timed_out,
            tamper=report.tamper,
            build=done.facts,
            coverage=GcovBuild(done.build_dir) if instrument is not None else None,
            built=done.build_dir,
            surface=RunSurface(loaded=tuple(sorted(graph.loaded()))) if graph else None,
            graph=graph,
        )

    def _launcher(self, tree: Path, scratch: Path, test_sources: frozenset[str]) -> dict[str, str]:
        launcher = scratch / "bin" / "pw-cxx-launcher"
        scratch.mkdir(parents=True, exist_ok=True)
        launcher.parent.mkdir(parents=True, exist_ok=True)
        launcher.write_text(LAUNCHER)
        launcher.chmod(0o755)
        listing = scratch / "test-sources.txt"
        listing.write_text("".join(f"{tree / rel}\n" for rel in sorted(test_sources)))
        variables = {
            "CMAKE_CXX_COMPILER_LAUNCHER": str(launcher),
            "CMAKE_C_COMPILER_LAUNCHER": str(launcher),
            "PW_TEST_SOURCES": str(listing),
        }
        assert set(variables) == LAUNCHED
        return variables

    def _build_failed(self, done: CppRun) -> SuiteRun:
        result = done.failure
        assert result is not None
        tail = (result.stderr[-600:] or result.stdout[-600:]).decode("utf-8", "replace")
        why = result.killed_reason or f"exit {result.returncode}"
        last = tail.strip().splitlines()[-1] if tail.strip() else ""
        problem = f"{done.failed_step} failed ({why}): {last}"
        run = TestRun(run=result.facts(), report_problems=[problem])
        return SuiteRun(
            run=run,
            started=False,
            timed_out=result.timed_out,
            build=done.facts,
            build_failed=True,
            failed_step=done.failed_step,
            failed_log=failure_log.output_of(result),
            broken=["*"],
        )
