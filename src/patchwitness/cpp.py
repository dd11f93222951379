"""The C++ suite: configure, build and run the goldens with the task's pinned recipe.

The recipe comes from task.toml (`[cpp] configure`, `build`) and test_cmd.txt; the default is an
out-of-tree Ninja CMake build in `$PW_BUILD` and ctest. Outcomes never come from ctest's human
output: a `ctest` shim first on PATH runs the same command once to list the tests (the collection)
and once with `--output-junit`, and GoogleTest writes its own XML (`GTEST_OUTPUT`). All reports go
to a directory created for this run, outside the worktree.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
from pathlib import Path

from patchwitness import environment, history, runner
from patchwitness.model import BuildFacts, TestRun
from patchwitness.outcomes.ctest import combine
from patchwitness.suite import NO_FOCUS, Focus, Instrumentation, SuiteRun
from patchwitness.task import Task

CTEST_SHIM = """#!/bin/sh
# patchwitness: list the tests (the collection), then run them with a JUnit report.
real={real}
stamp="$$-$(date +%s%N)"
"$real" "$@" --show-only=json-v1 > "$PW_REPORT_DIR/ctest-list-$stamp.json" 2>/dev/null
# A coverage run is serialized: parallel tests would clobber each other's .gcda counters.
serial=""
[ -n "$PW_CTEST_SERIAL" ] && serial="--parallel 1"
exec "$real" "$@" $serial --output-junit "$PW_REPORT_DIR/ctest-junit-$stamp.xml"
"""

# In a coverage build, a test source is compiled without -fkeep-inline-functions: the flag emits
# every inline function of the test framework's headers (it doubles a GoogleTest file's compile
# time) and measures nothing the gate reads. Production sources keep it, so an unused inline
# production function still shows as zero-hit, or, emitted nowhere, as unscored-suspicious.
LAUNCHER = """#!/bin/sh
# patchwitness: coverage build compiler launcher (see cpp.py)
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
            done = runner.run_tool(argv, cwd=Path("/"), timeout=30)
            text = (done.stdout or done.stderr).decode("utf-8", "replace").strip()
            out[name] = text.splitlines()[0] if text else "unknown"
        except (OSError, TimeoutError):
            out[name] = "missing"
    return out


def _write_shim(directory: Path) -> Path:
    real = shutil.which("ctest") or "/usr/bin/ctest"
    directory.mkdir(parents=True, exist_ok=True)
    shim = directory / "ctest"
    shim.write_text(CTEST_SHIM.format(real=real))
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


class CppSuite:
    language = "cpp"

    def __init__(self, task: Task) -> None:
        self.task = task
        self.env = environment.prepare(task) if task.options.setup else None

    def versions(self) -> dict:
        versions = dict(toolchain_versions())
        if self.env is not None:
            versions.update({f"env.{k}": v for k, v in self.env.versions.items()})
        return versions

    def _request(
        self,
        command: str,
        tree: Path,
        scratch: Path,
        timeout: float,
        variables: dict[str, str],
        path: list[str],
    ) -> runner.Request:
        readable = self.env.readable if self.env is not None else history.readable(self.task)
        return runner.Request(
            command=command,
            cwd=tree / self.task.options.cwd,
            timeout=timeout,
            env=variables,
            path_prepend=path,
            writable=[tree, scratch],
            readable=readable,
            home=scratch / "home",
        )

    def instrumentations(self) -> list[Instrumentation]:
        return coverage_ladder(self.task.options.coverage.cxx_flags)

    def run(
        self,
        tree: Path,
        scratch: Path,
        *,
        instrument: Instrumentation | None = None,
        focus: Focus = NO_FOCUS,
    ) -> SuiteRun:
        build = scratch / "build"
        reports = scratch / "reports"
        for d in (build, reports / "gtest", scratch / "home"):
            d.mkdir(parents=True, exist_ok=True)
        path = [str(_write_shim(scratch / "bin"))]
        if self.env is not None:
            path += self.env.bin_dirs
        variables = {
            "PW_BUILD": str(build),
            "PW_REPO": str(tree),
            "PW_REPORT_DIR": str(reports),
            "GTEST_OUTPUT": f"xml:{reports}/gtest/",
            "CCACHE_DISABLE": "1",
            "CMAKE_BUILD_PARALLEL_LEVEL": str(os.cpu_count() or 1),
            "CMAKE_EXPORT_COMPILE_COMMANDS": "ON",
        }
        if instrument is not None:
            # The coverage build: the variant's flag set, through the environment CMake reads
            # at configure time, and the goldens run one at a time.
            flags = " ".join(instrument.flags)
            variables.update(
                {
                    "CXXFLAGS": flags,
                    "CFLAGS": flags,
                    "LDFLAGS": "--coverage",
                    "PW_CTEST_SERIAL": "1",
                }
            )
            if focus.test_sources and KEEP_INLINE in instrument.flags:
                variables.update(self._launcher(tree, scratch, focus.test_sources))
        opts = self.task.options.cpp
        facts = BuildFacts()
        for step, command in (("configure", opts.configure), ("build", opts.build)):
            result = runner.run(
                self._request(command, tree, scratch, opts.build_timeout, variables, path)
            )
            setattr(facts, step, result.facts())
            if not result.ok:
                return self._build_failed(step, result, facts)
        facts.compiler_command = compile_command(build, list(focus.changed))
        result = runner.run(
            self._request(self.task.test_cmd, tree, scratch, self.task.timeout, variables, path)
        )
        report = combine(
            [p.read_text() for p in sorted(reports.glob("ctest-list-*.json"))],
            [p.read_text() for p in sorted(reports.glob("ctest-junit-*.xml"))],
            {p.name: p.read_text() for p in sorted((reports / "gtest").glob("*.xml"))},
        )
        problems = [*report.problems]
        if result.killed_reason:
            problems.append(f"killed: {result.killed_reason}")
        if report.listed == [] and not report.problems:
            problems.append("ctest listed no tests")
        run = TestRun(
            run=result.facts(),
            outcomes=report.outcomes,
            collected=report.listed,
            report_problems=problems,
        )
        suite_run = SuiteRun(
            run=run,
            started=bool(report.listed),
            timed_out=result.timed_out,
            tamper=report.tamper,
            build=facts,
        )
        suite_run.coverage = build if instrument is not None else None
        return suite_run

    def _launcher(self, tree: Path, scratch: Path, test_sources: frozenset[str]) -> dict[str, str]:
        launcher = scratch / "bin" / "pw-cxx-launcher"
        launcher.write_text(LAUNCHER)
        launcher.chmod(0o755)
        listing = scratch / "test-sources.txt"
        listing.write_text("".join(f"{tree / rel}\n" for rel in sorted(test_sources)))
        return {
            "CMAKE_CXX_COMPILER_LAUNCHER": str(launcher),
            "CMAKE_C_COMPILER_LAUNCHER": str(launcher),
            "PW_TEST_SOURCES": str(listing),
        }

    def _build_failed(self, step: str, result: runner.Result, facts: BuildFacts) -> SuiteRun:
        tail = (result.stderr[-600:] or result.stdout[-600:]).decode("utf-8", "replace")
        why = result.killed_reason or f"exit {result.returncode}"
        problem = f"{step} failed ({why}): {tail.strip().splitlines()[-1] if tail.strip() else ''}"
        run = TestRun(run=result.facts(), report_problems=[problem])
        return SuiteRun(
            run=run,
            started=False,
            timed_out=result.timed_out,
            build=facts,
            build_failed=True,
            broken=["*"],
        )
