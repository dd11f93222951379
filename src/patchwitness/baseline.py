"""What the task looks like before any patch: outcomes at the SHA, the census, the pytest config.

Computed in its own fresh checkout, validated (a failing id that is green at the SHA makes the task
invalid), and reusable: every patch to the same task is judged against the same baseline. Because it
is amortised over many patches, it may run the suite several times and mark tests whose outcome
varies as flaky; a flaky test never makes a transition on its own.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from patchwitness import atomic, history, identity, languages
from patchwitness.build_id import grader_build
from patchwitness.buildgraph import BuildGraph
from patchwitness.cachedir import cache_root
from patchwitness.census.items import Inventory, is_test
from patchwitness.census.scan import ScanOptions, read_root_config, scan_tree
from patchwitness.errors import FailedAtSha, InvalidTask
from patchwitness.model import Cases, Outcome, TestRun
from patchwitness.outcomes import cases as test_cases
from patchwitness.pytest_config import PytestConfig
from patchwitness.settings import Settings
from patchwitness.suites import (
    AT_THE_GRADER,
    NO_FOCUS,
    Focus,
    Instrumentation,
    RunSurface,
    Suite,
    SuiteRun,
    Surroundings,
)
from patchwitness.task import Task
from patchwitness.workspace import Workspace


@dataclass
class Baseline:
    key: str
    outcomes: dict[str, Outcome]
    collected: list[str]
    hooks: dict[str, list[str]]
    inventory: Inventory
    pytest_config: PytestConfig
    run: TestRun
    flaky: list[str] = field(default_factory=list)
    runs: int = 1
    extra: dict = field(default_factory=dict)
    # Tests whose printed id changed between two collections at the SHA (a time, a random value,
    # an address in the id): they are matched by stable key, never by printed id.
    unstable_ids: list[str] = field(default_factory=list)
    # Coverage at the SHA: the first instrumentation that built and ran with the plain run's
    # outcomes (None: none did, or coverage is off), its own outcomes, and why each richer
    # variant was passed over. Every patched run of the task uses the same instrumentation.
    instrumentation: Instrumentation | None = None
    instrumented_outcomes: dict[str, Outcome] = field(default_factory=dict)
    coverage_trials: list[str] = field(default_factory=list)
    # What the SHA's run was made of (suites.RunSurface): every patched run must be made the same.
    surface: RunSurface | None = None
    # C++: how the SHA was built, plain and under the chosen instrumentation (buildgraph.py).
    graph: BuildGraph | None = None
    instrumented_graph: BuildGraph | None = None

    def graph_for(self, instrument: Instrumentation | None) -> BuildGraph | None:
        return self.graph if instrument is None else self.instrumented_graph

    # The cases inside each ctest test under that instrumentation (C++), which the patched
    # run's are compared with; the plain run's are `run.cases`.
    instrumented_cases: Cases | None = None

    def cases(self, instrumented: bool) -> Cases | None:
        """The SHA's cases as the patched run is compared with them: like with like."""
        return self.instrumented_cases if instrumented else self.run.cases

    def failing_keys(self, names: list[str]) -> list[str]:
        """The task's failing ids as stable keys (InvalidTask for a name that is no test here)."""
        found = identity.resolve(names, self.outcomes, self.run.ids)
        missing = [n for n in names if n not in found]
        if missing:
            raise InvalidTask(f"failing id is not collected at the SHA: {missing[0]}")
        return [found[n] for n in names]

    def to_json(self) -> dict:
        return {
            "key": self.key,
            "outcomes": self.outcomes,
            "collected": self.collected,
            "hooks": self.hooks,
            "inventory": self.inventory.to_json(),
            "pytest_config": {
                "source": self.pytest_config.source,
                "python_files": list(self.pytest_config.python_files),
                "python_classes": list(self.pytest_config.python_classes),
                "python_functions": list(self.pytest_config.python_functions),
                "testpaths": list(self.pytest_config.testpaths),
                "addopts": list(self.pytest_config.addopts),
            },
            "run": self.run.model_dump(),
            "flaky": self.flaky,
            "runs": self.runs,
            "extra": self.extra,
            "unstable_ids": self.unstable_ids,
            "instrumentation": (
                None
                if self.instrumentation is None
                else {"name": self.instrumentation.name, "flags": list(self.instrumentation.flags)}
            ),
            "instrumented_outcomes": self.instrumented_outcomes,
            "coverage_trials": self.coverage_trials,
            "surface": None if self.surface is None else self.surface.to_json(),
            "graph": None if self.graph is None else self.graph.to_json(),
            "instrumented_graph": (
                None if self.instrumented_graph is None else self.instrumented_graph.to_json()
            ),
            "instrumented_cases": (
                None if self.instrumented_cases is None else self.instrumented_cases.model_dump()
            ),
        }

    @classmethod
    def from_json(cls, data: dict) -> Baseline:
        cfg = data["pytest_config"]
        return cls(
            key=data["key"],
            outcomes=data["outcomes"],
            collected=data["collected"],
            hooks=data["hooks"],
            inventory=Inventory.from_json(data["inventory"]),
            pytest_config=PytestConfig(
                source=cfg["source"],
                python_files=tuple(cfg["python_files"]),
                python_classes=tuple(cfg["python_classes"]),
                python_functions=tuple(cfg["python_functions"]),
                testpaths=tuple(cfg["testpaths"]),
                addopts=tuple(cfg["addopts"]),
            ),
            run=TestRun.model_validate(data["run"]),
            flaky=data.get("flaky", []),
            runs=data.get("runs", 1),
            extra=data.get("extra", {}),
            unstable_ids=data.get("unstable_ids", []),
            instrumentation=(
                None
                if data.get("instrumentation") is None
                else Instrumentation(
                    data["instrumentation"]["name"], tuple(data["instrumentation"]["flags"])
                )
            ),
            instrumented_outcomes=data.get("instrumented_outcomes", {}),
            coverage_trials=data.get("coverage_trials", []),
            surface=RunSurface.from_json(data.get("surface")),
            graph=BuildGraph.from_json(data.get("graph")),
            instrumented_graph=BuildGraph.from_json(data.get("instrumented_graph")),
            instrumented_cases=(
                None
                if data.get("instrumented_cases") is None
                else Cases.model_validate(data["instrumented_cases"])
            ),
        )


class NoCache:
    def get(self, key: str) -> Baseline | None:
        return None

    def put(self, baseline: Baseline) -> None:
        return None

    def family(self, name: str) -> list[tuple[str, str]]:
        return []

    def remember(self, name: str, sha: str, key: str) -> None:
        return None


class DiskCache:
    """Baselines as JSON files named by their key, written atomically."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def get(self, key: str) -> Baseline | None:
        path = self.root / f"{key}.json"
        try:
            return Baseline.from_json(json.loads(path.read_text()))
        except (OSError, ValueError, KeyError):
            return None

    def put(self, baseline: Baseline) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        atomic.write_json(self.root / f"{baseline.key}.json", baseline.to_json(), indent=None)

    # A family: the baselines of one task at its commits, oldest first, so that a commit near a
    # graded one finds it (baseline_moved.py).
    def family(self, name: str) -> list[tuple[str, str]]:
        try:
            listed = json.loads((self.root / "families" / f"{name}.json").read_text())
            return [(str(sha), str(key)) for sha, key in listed]
        except (OSError, ValueError, TypeError):
            return []

    def remember(self, name: str, sha: str, key: str) -> None:
        known = [(s, k) for s, k in self.family(name) if s != sha][-(FAMILY - 1) :]
        (self.root / "families").mkdir(parents=True, exist_ok=True)
        atomic.write_json(self.root / "families" / f"{name}.json", [*known, (sha, key)])


FAMILY = 32  # the commits a family remembers


def baseline_key(task: Task, suite: Suite, runs: int, sandbox: str, coverage: bool = True) -> str:
    """Keyed by what determines the baseline: SHA, commands, setup, versions. Never by a path."""
    return _digest({"sha": task.sha, **_task_parts(task, suite, runs, sandbox, coverage)})


def family_key(task: Task, suite: Suite, runs: int, sandbox: str, coverage: bool = True) -> str:
    """The key of the task's baselines at every commit: all of `baseline_key` but the SHA, and
    but where the environment is (each commit may have one of its own, keyed on its files)."""
    parts = _task_parts(task, suite, runs, sandbox, coverage)
    parts["versions"] = {k: v for k, v in parts["versions"].items() if k != "executable"}
    return _digest({"family": True, **parts})


def _digest(parts: dict) -> str:
    canonical = json.dumps(parts, sort_keys=True, default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:24]


def _task_parts(task: Task, suite: Suite, runs: int, sandbox: str, coverage: bool) -> dict:
    return {
        "grader": grader_build(),
        "language": task.language,
        "test_cmd": task.test_cmd,
        "cwd": task.options.cwd,
        "setup": task.options.setup,
        "timeout": task.timeout,
        "census": task.options.census.model_dump(),
        # Each language's options: an input of every run at the SHA (a Python task's in-place
        # build of its extension, a C++ task's build); the other language's are its defaults.
        "cpp": task.options.cpp.model_dump(),
        "python": task.options.python.model_dump(),
        "coverage": task.options.coverage.model_dump(),
        "versions": suite.versions(),
        "runs": runs,
        "sandbox": sandbox,
        "instrumented": coverage and task.options.coverage.enabled,
    }


def log_dir(cache: Path | None, key: str) -> Path:
    """Where the log of a build that failed at the SHA is kept when the grade has no artifacts
    directory: beside the baselines, under the key the baseline would have had."""
    return (cache or cache_root()) / "baselines" / key


def scan_options(task: Task, config: PytestConfig) -> ScanOptions:
    return ScanOptions(
        pytest=config,
        golden_prefix=task.options.census.golden_prefix,
        exclude=tuple(task.options.census.exclude),
    )


@dataclass
class ShaTree:
    """Where the SHA's runs happen: a fresh checkout (`slot` None), or a warm slot, where each
    run starts from the slot's pristine tree and its build is kept as the slot's snapshot."""

    ws: Workspace
    suite: Suite
    slot: object | None = None
    focus: Focus = NO_FOCUS

    def run(self, name: str, instrument: Instrumentation | None = None) -> SuiteRun:
        scratch = self.ws.new_dir(name)
        if self.slot is None:
            return self.suite.run(self.ws.repo, scratch, instrument=instrument)
        from patchwitness.warm_checkout import warm_run

        return warm_run(self.suite, self.slot, scratch, instrument, self.focus)


@contextlib.contextmanager
def _sha_tree(
    task: Task, suite: Suite, cache: Path | None, warm: Settings | None
) -> Iterator[ShaTree]:
    if warm is None:
        with history.checkout(task, cache) as ws:
            yield ShaTree(ws, suite)
        return
    from patchwitness.warm_checkout import warm_checkout

    with warm_checkout(task, suite, warm) as (ws, slot):
        yield ShaTree(ws, suite, slot)


def test_focus(inventory: Inventory) -> Focus:
    """What a C++ coverage build is told of the tests: their sources (suites/cpp.py keeps their
    inline functions); the same for the baseline's builds and every grade's."""
    return Focus(test_sources=frozenset(it.file for it in inventory.items if is_test(it.kind)))


def compute(
    task: Task,
    suite: Suite,
    key: str,
    runs: int = 1,
    coverage: bool = True,
    cache: Path | None = None,
    warm: Settings | None = None,
) -> Baseline:
    """The baseline, run in a fresh checkout; or, with `warm` (the settings of a language with
    warm build trees), in the task's warm slot, whose builds then become the snapshots every
    grade of the task starts from (warm_checkout.py)."""
    with _sha_tree(task, suite, cache, warm) as where:
        config = read_root_config(where.ws.repo)
        # The census is taken before anything runs: tests may write files into the tree.
        inventory = scan_tree(where.ws.repo, scan_options(task, config))
        where.focus = test_focus(inventory)
        wanted = coverage and task.options.coverage.enabled
        with instrumented_beside(where, suite.instrumentations()[:1] if wanted else []) as early:
            results: list[SuiteRun] = []
            for index in range(max(1, runs)):
                result = where.run(f"baseline-{index}")
                validate_run(task, result, log_dir(cache, key))
                results.append(result)
            chosen, chosen_run, trials = None, None, []
            if wanted:
                chosen, chosen_run, trials = choose_instrumentation(where, results, early)
    instrumented = chosen_run.run if chosen_run is not None else None
    first = results[0]
    # Cases that differ between the SHA's runs are flaky, never judged (outcomes/cases.py).
    varied = test_cases.varied([r.run.cases for r in results])
    for cases in (first.run.cases, instrumented.cases if instrumented else None):
        if cases is not None:
            cases.varied = varied
    unstable = sorted(
        {k for r in results[1:] for k in identity.unstable(first.run.ids, r.run.ids, r.outcomes)}
    )
    flaky = sorted(
        {
            i
            for r in results[1:]
            for i in set(r.outcomes) | set(first.outcomes)
            if r.outcomes.get(i) != first.outcomes.get(i)
        }
    )
    baseline = Baseline(
        key=key,
        outcomes=dict(first.outcomes),
        collected=list(first.run.collected),
        hooks=first.hooks,
        inventory=inventory,
        pytest_config=config,
        run=first.run,
        flaky=flaky,
        runs=len(results),
        extra={"build": first.build.model_dump() if first.build else None},
        unstable_ids=unstable,
        instrumentation=chosen,
        instrumented_outcomes=dict(instrumented.outcomes) if instrumented else {},
        coverage_trials=trials,
        surface=first.surface,
        graph=first.graph,
        instrumented_graph=chosen_run.graph if chosen_run is not None else None,
        instrumented_cases=instrumented.cases if instrumented else None,
    )
    validate_failing(task, baseline)
    return baseline


@dataclass(frozen=True)
class Early:
    """An instrumented run at the SHA started beside the plain runs."""

    variant: Instrumentation
    future: Future[SuiteRun]


@contextlib.contextmanager
def instrumented_beside(
    where: ShaTree, variants: list[Instrumentation], around: Surroundings = AT_THE_GRADER
) -> Iterator[Early | None]:
    """The run of `variants`' first (the one nearly every task ends up with) started now, in a
    copy of the checkout taken before any run wrote into it, on a core of its own: the plain
    runs and it share nothing but the machine. Only in a fresh checkout: a warm slot's builds
    are its snapshots, one run at a time. None when there is nothing to start."""
    if not variants or where.slot is not None:
        yield None
        return
    variant = variants[0]
    # The pool is left first: a run no one asked for (the plain run failed the task) is waited
    # for before its copy goes, never leaked.
    with where.ws.copy() as copy, ThreadPoolExecutor(1, "instrumented-beside") as pool:
        scratch = copy.new_dir("instrumented")
        future = pool.submit(where.suite.run, copy.repo, scratch, instrument=variant, around=around)
        yield Early(variant, future)


def choose_instrumentation(
    where: ShaTree, plain: list[SuiteRun], early: Early | None = None
) -> tuple[Instrumentation | None, SuiteRun | None, list[str]]:
    """The richest instrumentation under which the SHA builds, its tests do what they do in
    the plain run, and the coverage tool reads what the run left. The grader's own flags must
    never be what turns a test red, and its own tool never what makes a patch uncovered: when
    the tool cannot read the SHA's data, coverage is not measurable for every patch. `early`:
    the first variant's run, started beside the plain ones (`instrumented_beside`)."""
    varying = {
        k
        for r in plain[1:]
        for k in set(r.outcomes) | set(plain[0].outcomes)
        if r.outcomes.get(k) != plain[0].outcomes.get(k)
    }
    trials: list[str] = []
    for variant in where.suite.instrumentations():
        if early is not None and early.variant == variant:
            run = early.future.result()
        else:
            run = where.run("instrumented", variant)
        why = instrumented_differs(run, plain[0], varying)
        if not why:
            unread = where.suite.coverage_problem(
                run, where.ws.repo, where.ws.new_dir("coverage-check")
            )
            if unread:
                # The tool, not the flags: a lesser variant leaves data of the same kind.
                trials.append(f"{variant.describe()}: the coverage tool cannot read it: {unread}")
                return None, None, trials
            trials.append(f"{variant.describe()}: used")
            return variant, run, trials
        trials.append(f"{variant.describe()}: {why}")
    return None, None, trials


def instrumented_differs(run: SuiteRun, plain: SuiteRun, varying: set[str]) -> str:
    """Why an instrumented run at the SHA cannot stand in for the plain one ('' when it can)."""
    if run.timed_out:
        return "timed out"
    if run.build_failed or not run.started:
        return (run.problems or ["the instrumented run did not start"])[0][:300]
    changed = sorted(
        k
        for k in set(run.outcomes) | set(plain.outcomes)
        if k not in varying and run.outcomes.get(k) != plain.outcomes.get(k)
    )
    if changed:
        first = changed[0]
        return (
            f"{len(changed)} test(s) behave differently instrumented, e.g. {first}: "
            f"{plain.outcomes.get(first, 'absent')} -> {run.outcomes.get(first, 'absent')}"
        )
    return ""


def validate_run(task: Task, result: SuiteRun, logs: Path | None = None) -> None:
    """InvalidTask unless the run at the SHA finished and reported tests. A build that failed
    carries its whole log, to be kept in the grade's artifacts, else in `logs` (failure_log.py)."""
    if result.timed_out:
        raise InvalidTask(f"the test command does not finish at the SHA within {task.timeout}s")
    if result.build_failed:
        name = f"{result.failed_step or 'build'}-at-sha.log"
        raise FailedAtSha(
            "the project does not build at the SHA: "
            + (result.problems[0] if result.problems else "build failed"),
            log=result.failed_log,
            name=name,
            fallback=logs / name if logs is not None else None,
        )
    if not result.started:
        raise InvalidTask(
            "the test command did not produce the grader's report at the SHA: "
            + "; ".join(result.problems[:2])
        )
    if not result.outcomes:
        raise InvalidTask("no tests were collected at the SHA")


def validate_failing(task: Task, baseline: Baseline) -> None:
    if task.hidden:
        return  # the failing ids are the hidden run's: validated there (validate_hidden)
    for nodeid in baseline.failing_keys(task.failing_ids):
        if baseline.outcomes.get(nodeid) == "passed":
            raise InvalidTask(f"failing id is green at the SHA: {nodeid}")
        if nodeid in baseline.flaky:
            raise InvalidTask(f"failing id is flaky at the SHA: {nodeid}")


def hidden_key(base: Baseline, task: Task) -> str:
    """The hidden baseline hangs on the visible one (its instrumentation) and the hidden patch."""
    assert task.hidden_tests is not None
    digest = hashlib.sha256(task.hidden_tests).hexdigest()
    return hashlib.sha256(f"{base.key}|hidden|{digest}".encode()).hexdigest()[:24]


def compute_hidden(task: Task, suite: Suite, base: Baseline, cache: Path | None) -> Baseline:
    """The SHA's outcomes with the hidden tests applied, run under the instrumentation the
    patched runs use (like with like). The census is the visible baseline's: hidden tests are the
    grader's, never counted for or against a patch."""
    from patchwitness.errors import ApplyFailed

    assert task.hidden_tests is not None
    with history.checkout(task, cache) as ws:
        try:
            ws.apply(task.hidden_tests, allow_binary=True)  # the grader's own tests
        except ApplyFailed as exc:
            raise InvalidTask(f"the hidden tests do not apply at the SHA: {exc}") from None
        result = suite.run(ws.repo, ws.new_dir("hidden-baseline"), instrument=base.instrumentation)
        validate_run(task, result, log_dir(cache, hidden_key(base, task)))
    return Baseline(
        key=hidden_key(base, task),
        outcomes=dict(result.outcomes),
        collected=list(result.run.collected),
        hooks=result.hooks,
        inventory=Inventory([], {}, [], ""),
        pytest_config=base.pytest_config,
        run=result.run,
        extra={"hidden": True},
        instrumentation=base.instrumentation,
        instrumented_outcomes=dict(result.outcomes),
    )


def validate_hidden(task: Task, hidden: Baseline) -> list[str]:
    """The FAIL_TO_PASS ids as keys: each collected with the hidden tests and not green."""
    failing = hidden.failing_keys(task.failing_ids)
    for key in failing:
        if hidden.outcomes.get(key) == "passed":
            raise InvalidTask(f"failing id is green at the SHA with the hidden tests: {key}")
    return failing


def obtain_hidden(task: Task, suite: Suite, settings: Settings, base: Baseline) -> Baseline:
    cache = settings.baselines or DiskCache(settings.cache / "baselines")
    cached = cache.get(hidden_key(base, task))
    if cached is None:
        cached = compute_hidden(task, suite, base, settings.cache)
        cache.put(cached)
    validate_hidden(task, cached)
    return cached


def resolve_known(base: Baseline, names: list[str]) -> list[str]:
    """Names as stable keys where they are collected; a name that is not stays as written (it
    is then absent from every run, and reported as such)."""
    found = identity.resolve(names, base.outcomes, base.run.ids)
    return [found.get(n, n) for n in names]


def obtain(task: Task, suite: Suite, settings: Settings) -> Baseline:
    """The task's baseline from the settings' baseline cache, or computed and kept there."""
    coverage = settings.coverage
    key = baseline_key(task, suite, settings.baseline_runs, settings.sandbox, coverage)
    cache = settings.baselines or DiskCache(settings.cache / "baselines")
    cached = cache.get(key)
    if cached is not None:
        validate_failing(task, cached)
        return cached
    family = family_key(task, suite, settings.baseline_runs, settings.sandbox, coverage)
    remembered = getattr(cache, "family", None)
    baseline, why_not = None, ""
    if task.language == "python" and remembered is not None and not task.options.python.build:
        from patchwitness.baseline_moved import follow

        baseline, why_not = follow(
            task,
            suite,
            key,
            remembered(family),
            cache,
            settings.baseline_runs,
            coverage,
            settings.cache,
        )
    if baseline is not None:
        validate_failing(task, baseline)
    else:
        warm = settings if settings.warm and languages.of(task).warm_trees else None
        baseline = compute(task, suite, key, settings.baseline_runs, coverage, settings.cache, warm)
        if why_not:
            baseline.extra["followed"] = why_not
    cache.put(baseline)
    if hasattr(cache, "remember"):
        cache.remember(family, task.sha, key)
    return baseline
