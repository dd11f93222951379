"""A task's test suite, run over one tree: the language-specific half of collecting a grade.

The pipeline is the same for both languages; what differs is how the tests build and run and where
their outcomes and line hits come from. Each adapter has one shape: built for a task with its
environment and the runner (`collect.make_suite`), it names its tool versions and its coverage
instrumentations, and `run` builds what the task builds and runs the tests over a tree, returning a
`SuiteRun`: per-test outcomes from machine-readable reports, what was collected, what looked wrong,
and the line-hit data when the run was instrumented. `python` (pytest with the grader's probe) and
`cpp` (CMake and ctest, also the flag matrix's CMake envelopes).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from patchwitness.buildgraph import BuildGraph
from patchwitness.model import BuildFacts, Outcome, TestRun
from patchwitness.runner import SANDBOX_HOSTNAME, Limits

if TYPE_CHECKING:
    from patchwitness.hits import RunCoverage


@dataclass(frozen=True)
class RunSurface:
    """What a test run was made of besides its tests, as the run itself reported it (paths
    relative to the tree; `<outside>/NAME` for a file outside it): the configuration the test
    runner read, the plugins it loaded, and the tree's files it imported or opened.

    The patched run's surface must be the SHA's: a patch that makes pytest read another
    configuration file or load another plugin changed the test infrastructure, whatever the
    file's name. `loaded` says what of the patch the run took in (None: the run never said)."""

    config: tuple[str, ...] = ()
    plugins: tuple[str, ...] = ()
    loaded: tuple[str, ...] | None = None
    # The names of the environment a test saw, and the modules the test runner had loaded
    # before the project's code: what production code must not ask about (reads.Harness).
    environ: tuple[str, ...] = ()
    harness_modules: tuple[str, ...] = ()
    # The modules collection imported from the tests (test modules, their packages, conftests).
    test_modules: tuple[str, ...] = ()
    hook_words: tuple[str, ...] = ()  # the runner's hooks and their arguments' names
    # Modules the run imported from files it had written itself (or rewritten): code that no
    # patch shows and no rule read. The grader's run never writes bytecode.
    self_written: tuple[str, ...] = ()
    # How the run let code run where its file hooks do not see (another process, a library
    # loaded by ctypes): what it opened there is unknown. None: the run never said.
    escaped: tuple[str, ...] | None = None

    def to_json(self) -> dict:
        return {
            "config": list(self.config),
            "plugins": list(self.plugins),
            "loaded": None if self.loaded is None else list(self.loaded),
            "environ": list(self.environ),
            "harness_modules": list(self.harness_modules),
            "test_modules": list(self.test_modules),
            "hook_words": list(self.hook_words),
            "self_written": list(self.self_written),
            "escaped": None if self.escaped is None else list(self.escaped),
        }

    @classmethod
    def from_json(cls, data: dict | None) -> RunSurface | None:
        if data is None:
            return None
        loaded = data.get("loaded")
        escaped = data.get("escaped")
        return cls(
            config=tuple(data.get("config", [])),
            plugins=tuple(data.get("plugins", [])),
            loaded=None if loaded is None else tuple(loaded),
            environ=tuple(data.get("environ", [])),
            harness_modules=tuple(data.get("harness_modules", [])),
            test_modules=tuple(data.get("test_modules", [])),
            hook_words=tuple(data.get("hook_words", [])),
            self_written=tuple(data.get("self_written", [])),
            escaped=None if escaped is None else tuple(escaped),
        )


def changes(before: RunSurface | None, after: RunSurface | None) -> list[str]:
    """How the patched run's surface differs from the SHA's, one line each ([] when it does
    not, or when either run could not say)."""
    if before is None or after is None:
        return []
    out = []
    for what, old, new in (
        ("configuration", before.config, after.config),
        ("plugin", before.plugins, after.plugins),
    ):
        out += [
            f"the run loaded a {what} the SHA's did not: {x}" for x in sorted(set(new) - set(old))
        ]
        out += [f"the run no longer loaded the {what} {x}" for x in sorted(set(old) - set(new))]
    return out


def self_written(before: RunSurface | None, after: RunSurface | None) -> list[str]:
    """Modules the patched run wrote and imported, where the SHA's run did not (a project whose
    tests generate a module in the tree does so at the SHA too; one whose tests import modules
    they write outside it, under names of the moment, may at any path outside)."""
    if after is None:
        return []
    known = set(before.self_written) if before is not None else set()
    outside_known = any(p.startswith("<outside>") for p in known)
    return [
        f"the run wrote {path} and imported it: code that no line of the patch shows"
        for path in sorted(set(after.self_written) - known)
        if not (outside_known and path.startswith("<outside>"))
    ]


def relative(path: str, tree: Path) -> str:
    """A path the run reported, relative to the tree; `<outside>/NAME` when it is not in it."""
    root = str(tree).rstrip("/") + "/"
    if path.startswith(root):
        return path[len(root) :]
    return "<outside>/" + path.rsplit("/", 1)[-1] if path else ""


@dataclass
class SuiteRun:
    run: TestRun
    started: bool  # the suite actually ran (probe loaded / build succeeded and ctest reported)
    timed_out: bool = False
    tamper: list[str] = field(default_factory=list)
    hooks: dict[str, list[str]] = field(default_factory=dict)
    build: BuildFacts | None = None
    build_failed: bool = False
    # The build step that failed (configure, build) and its whole output: a build that fails at
    # the SHA keeps it for whoever must fix the task (failure_log.py).
    failed_step: str = ""
    failed_log: str = ""
    coverage: RunCoverage | None = None  # what an instrumented run left for its hit reader
    # Test-id prefixes whose tests could not run at all (a collection error, a failed build; "*"
    # is everything). Their baseline tests count as errors after the patch, not as removed.
    broken: list[str] = field(default_factory=list)
    surface: RunSurface | None = None
    # C++: how the build was made (buildgraph.BuildGraph), read before the tests ran, and the
    # build tree the tests ran from.
    graph: BuildGraph | None = None
    built: Path | None = None
    # Python: the tests a user's script could call as the runner did (stable key -> module,
    # qualified name), and the import path the run's tests saw (phases/python_outside.py).
    plain: dict[str, tuple[str, str, dict[str, str]]] = field(default_factory=dict)
    sys_path: tuple[str, ...] = ()
    conftests: tuple[str, ...] = ()  # the conftest modules the run loaded, in its order
    # Python: the printed ids of the tests a selection left out (Surroundings.select).
    deselected: tuple[str, ...] = ()

    @property
    def outcomes(self) -> dict[str, Outcome]:
        return self.run.outcomes

    @property
    def problems(self) -> list[str]:
        return self.run.report_problems

    def fails_any(self, keys: list[str]) -> tuple[bool, str]:
        """Whether a test of `keys` did not pass in this run (it failed, went missing, or the
        run did not start or finish), and how the run ended: a mutant's question."""
        if self.timed_out:
            return True, "timed out"
        if self.build_failed or not self.started:
            return True, "the run did not start: " + "; ".join(self.problems[:1])
        failed = [k for k in keys if self.outcomes.get(k) != "passed"]
        if failed:
            outcome = self.outcomes.get(failed[0])
            return (
                True,
                f"{failed[0]} {outcome or 'not run (the run stopped at an earlier failure)'}",
            )
        return False, f"{len(keys)} tests passed"


@dataclass(frozen=True)
class Instrumentation:
    """One way of instrumenting a run for coverage: coverage.py, or a gcov flag set.

    A suite offers its variants richest first; the baseline takes the first that builds and runs
    at the SHA with the same outcomes as the plain run, and every patched run of the task uses that
    one (like is compared with like)."""

    name: str
    flags: tuple[str, ...] = ()

    def describe(self) -> str:
        return f"{self.name} ({' '.join(self.flags)})" if self.flags else self.name


@dataclass(frozen=True)
class Focus:
    """What the grade knows about the tree a suite runs over: the files the patch changed,
    which files are test sources (the census's, before and after the patch), and which files'
    hits the coverage gate will read (None: every file's)."""

    changed: tuple[str, ...] = ()
    test_sources: frozenset[str] = frozenset()
    traced: frozenset[str] | None = None
    # Per traced file, the lines the patch added: their decisions are probed (which way each
    # went) as well as their lines.
    decided: Mapping[str, tuple[int, ...]] = field(default_factory=dict, hash=False)


NO_FOCUS = Focus()


def under(nodeid: str, prefixes: list[str]) -> bool:
    return any(p == "*" or nodeid == p or nodeid.startswith(p + "::") for p in prefixes)


def fill_broken(run: SuiteRun, baseline: dict[str, Outcome]) -> None:
    """Tests that vanished because their module or the build broke are errors, not removals."""
    if not run.broken:
        return
    for nodeid in baseline:
        if nodeid not in run.run.outcomes and under(nodeid, run.broken):
            run.run.outcomes[nodeid] = "error"


@dataclass(frozen=True)
class Surroundings:
    """What a test run sees around the tree besides the task: its machine's name, its limits,
    the variables over the grader's own, and (pytest) extra options. The grader's runs are all
    `AT_THE_GRADER`; the failing tests run once more `elsewhere()`, where all of it differs, to
    see that the fix does not hold only where the grader looks (phases/elsewhere.py)."""

    hostname: str = SANDBOX_HOSTNAME
    limits: Limits | None = None  # None: the suite's own
    variables: tuple[tuple[str, str], ...] = ()
    pytest_options: str = ""
    home: str = "home"  # the name of the run's home folder under its scratch folder
    # Python: the grader's pytest probe alone, under this module name ("": as the grader runs
    # it, with its line probes, its open audit and its own names), and the interpreter's
    # recursion limit (None: the interpreter's own).
    probe_name: str = ""
    recursion_limit: int | None = None
    report_by_file: bool = False  # the probe writes a file, event by event: no pipe held open
    tmp_dirs: tuple[str, ...] = ()  # what the run's private /tmp holds at the start
    # Only these tests (their keys), and a time limit of its own (None: the task's): a run
    # that asks one question of a few tests (a mutant's, phases/mutants.py).
    select: tuple[str, ...] = ()
    timeout_s: float | None = None
    # Python: collect only the files that hold the selected tests (conftests and packages too).
    # A run narrowed so can differ from a whole one (a test that needs another module imported):
    # its caller checks a narrowed answer against an unnarrowed one before it counts.
    narrow: bool = False
    # Once set, the run is killed (runner.Request.cancel): a run beside the patched one.
    stop: threading.Event | None = None
    # These tests (their keys) before all others, in this order.
    first: tuple[str, ...] = ()

    def describe(self) -> list[str]:
        out = [f"hostname={self.hostname}", f"home={self.home}"]
        out += [f"{k}={v!r}" for k, v in self.variables]
        if self.limits is not None:
            out += self.limits.describe()
        if self.pytest_options:
            out.append(f"pytest {self.pytest_options}")
        if self.recursion_limit:
            out.append(f"recursion limit {self.recursion_limit}")
        if self.first:
            out.append("the failing tests first")
        if self.narrow and self.select:
            out.append("only their files collected")
        return out


AT_THE_GRADER = Surroundings()


class Suite(Protocol):
    language: str

    def run(
        self,
        tree: Path,
        scratch: Path,
        *,
        instrument: Instrumentation | None = None,
        focus: Focus = NO_FOCUS,
        around: Surroundings = AT_THE_GRADER,
    ) -> SuiteRun:
        """Run the tests over `tree`. `scratch` is a private directory for homes and builds."""
        ...

    def instrumentations(self) -> list[Instrumentation]:
        """The coverage variants this suite can run, richest first."""
        ...

    def coverage_problem(self, run: SuiteRun, tree: Path, scratch: Path) -> str:
        """Why the coverage tool cannot read what an instrumented run over `tree` left ('' when
        it can). The baseline asks at the SHA, as it asks whether the instrumented run works."""
        ...

    def versions(self) -> dict:
        """Tool versions for the fingerprint."""
        ...

    def run_variables(self) -> set[str]:
        """The names of the variables the grader sets for a test run (the runner's own and the
        suite's): a user's run has none of them but the ones every process has."""
        ...
