"""A Python baseline that follows the branch: at a new commit near one already graded, only the
tests the commit can change run again, and the near commit's baseline stands for the rest.

`patchwitness pr` grades every pull request at a new main, and a baseline is a full run of the
suite or more (plain, instrumented, again for flakiness). A commit that changes two modules
changes the outcome of the tests that load them and of no other. Which tests those are is
decided by affected.py from the import graphs at both commits (python_imports.py), and any
doubt runs everything. What is then run is checked against what was kept: the tests the
selection left out must be exactly the near baseline's tests of the files not run again (by
printed id); a near baseline with tests whose ids vary between runs, or whose run imported
modules it wrote, is not moved. The baseline says where it came from (`extra["followed"]`).
A commit that changes in place only files the near run never opened (affected.unread: a CI
workflow, a linter's settings) moves the near baseline as it is, without a checkout.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from patchwitness import affected, history, python_imports
from patchwitness.baseline import (
    Baseline,
    ShaTree,
    instrumented_beside,
    instrumented_differs,
    scan_options,
)
from patchwitness.census.items import Inventory
from patchwitness.census.scan import read_root_config, scan_tree
from patchwitness.model import TestRun
from patchwitness.pytest_config import PytestConfig
from patchwitness.suites import RunSurface, Suite, SuiteRun, Surroundings
from patchwitness.task import Task
from patchwitness.workspace import git

NEAR_FILES = 64  # a commit that changes more files than this is graded from nothing
CANDIDATES = 8  # the most recent baselines of the family looked at


def follow(
    task: Task,
    suite: Suite,
    key: str,
    known: list[tuple[str, str]],
    cache,
    runs: int,
    coverage: bool,
    where: Path | None,
) -> tuple[Baseline | None, str]:
    """The task's baseline moved from the nearest of `known` ((sha, key) of the baselines of
    the same task at other commits), or None and why not ('' when no commit was near)."""
    best: tuple[int, str, Baseline, list[str]] | None = None
    for sha, known_key in known[-CANDIDATES:]:
        if sha == task.sha:
            continue
        changed = _changed(task.repo, sha, task.sha)
        if changed is None or len(changed) > NEAR_FILES:
            continue
        if best is not None and len(changed) >= best[0]:
            continue
        near = cache.get(known_key)
        if near is not None:
            best = (len(changed), sha, near, changed)
    if best is None:
        return None, ""
    _, sha, near, changed = best
    return move(task, suite, key, near, sha, changed, runs, coverage, where)


def move(
    task: Task,
    suite: Suite,
    key: str,
    near: Baseline,
    near_sha: str,
    changed: list[str],
    runs: int,
    coverage: bool,
    where: Path | None,
) -> tuple[Baseline | None, str]:
    """`near` (the baseline at `near_sha`) moved to the task's SHA, `changed` the paths that
    differ between them; or None and why it could not be."""
    said = f"not moved from {near_sha[:12]}: "
    surface = near.surface
    if surface is None:
        return None, said + "its run did not say what it loaded"
    if surface.self_written:
        return None, said + "its run imported modules it wrote"
    if near.unstable_ids:
        return None, said + "its tests' printed ids vary from run to run"
    modified = _changed(task.repo, near_sha, task.sha, only="M") or []
    unread = affected.unread(modified, surface.loaded, surface.escaped)
    if unread and set(changed) <= unread:
        # Nothing the near run read changed: its baseline is this commit's, tree unseen.
        followed = {
            "from": near_sha,
            "changed": len(changed),
            "rerun": [],
            "unread": sorted(unread),
        }
        return _moved(near, key, near.inventory, near.pytest_config, set(), [], None, followed), ""
    with history.checkout(task, where) as ws:
        repo = ws.repo
        after = _sources(repo)
        before = {p: t for p, t in after.items() if p not in changed}
        for path in changed:
            text = _text_at(task.repo, near_sha, path) if path.endswith(".py") else None
            if text is not None:
                before[path] = text
        files = _test_files(near, task, before)
        if files is None:
            return None, said + "a test of its baseline is in no file of the tree"
        runner = {*surface.harness_modules, *(p.split(".")[0] for p in surface.plugins)}
        plan = affected.plan(
            changed,
            python_imports.graph(before),
            python_imports.graph(after),
            set(files.values()),
            runner,
            unread,
        )
        if plan.everything:
            return None, said + plan.everything
        again = {part for part, path in files.items() if path in plan.files}
        config = read_root_config(repo)
        inventory = scan_tree(repo, scan_options(task, config))
        followed = {"from": near_sha, "changed": len(changed), "rerun": sorted(plan.files)}
        if unread:
            followed["unread"] = sorted(unread)
        if not again:
            return _moved(near, key, inventory, config, again, [], None, followed), ""
        around = Surroundings(select=tuple(sorted(f"{part}::" for part in again)))
        variants = [near.instrumentation] if coverage and near.instrumentation is not None else []
        with instrumented_beside(ShaTree(ws, suite), variants, around) as early:
            results = []
            for index in range(max(1, runs)):
                result = suite.run(repo, ws.new_dir(f"baseline-{index}"), around=around)
                if result.timed_out or result.build_failed or not result.started:
                    return None, said + "the tests run again did not finish with a report"
                results.append(result)
            left_out = {near.run.ids.get(k, k) for k in near.collected if _part(k) not in again}
            if set(results[0].deselected) != left_out:
                return None, said + "the tests left out are not the near commit's"
            instrumented = early.future.result() if early is not None else None
        if instrumented is not None and instrumented_differs(
            instrumented, results[0], _varied(results)
        ):
            return None, said + "the tests run again behave differently instrumented"
        baseline = _moved(near, key, inventory, config, again, results, instrumented, followed)
    return baseline, ""


def _moved(
    near: Baseline,
    key: str,
    inventory: Inventory,
    config: PytestConfig,
    again: set[str],
    results: list[SuiteRun],
    instrumented: SuiteRun | None,
    followed: dict,
) -> Baseline:
    """The near baseline with its tests of the files in `again` replaced by those run again."""

    def kept(k: str) -> bool:
        return _part(k) not in again

    first = results[0] if results else None
    outcomes = {k: v for k, v in near.outcomes.items() if kept(k)}
    collected = [k for k in near.collected if kept(k)]
    ids = {k: v for k, v in near.run.ids.items() if kept(k)}
    flaky = {k for k in near.flaky if kept(k)} | _varied(results)
    inst_outcomes = {k: v for k, v in near.instrumented_outcomes.items() if kept(k)}
    if first is not None:
        outcomes.update(first.outcomes)
        collected += list(first.run.collected)
        ids.update(first.run.ids)
    if instrumented is not None:
        inst_outcomes.update(instrumented.outcomes)
    run = TestRun(
        # The status and the report of the near run: they agree or disagree as they did there
        # (a run of some tests alone would end otherwise than the whole suite does).
        run=near.run.run,
        outcomes=outcomes,
        collected=collected,
        ids=ids,
        report_problems=list((first.run if first else near.run).report_problems),
        reported_exit=near.run.reported_exit,
    )
    return Baseline(
        key=key,
        outcomes=outcomes,
        collected=collected,
        hooks=first.hooks if first else near.hooks,
        inventory=inventory,
        pytest_config=config,
        run=run,
        flaky=sorted(flaky),
        runs=near.runs,
        extra={**near.extra, "followed": followed},
        unstable_ids=[],
        instrumentation=near.instrumentation,
        instrumented_outcomes=inst_outcomes,
        coverage_trials=near.coverage_trials,
        surface=_surface(near.surface, first.surface if first is not None else None),
    )


def _surface(near: RunSurface | None, again: RunSurface | None) -> RunSurface | None:
    """The run's surface: the tests run again say what the runner loaded and read; the names
    only a test's own run shows (the modules of the tests, the environment a test saw) are
    those of both runs."""
    if again is None or near is None:
        return near
    return dataclasses.replace(
        again,
        test_modules=tuple(sorted({*near.test_modules, *again.test_modules})),
        environ=tuple(sorted({*near.environ, *again.environ})),
        # What the tests not run again opened is still read at this commit.
        loaded=_both(near.loaded, again.loaded),
        escaped=_both(near.escaped, again.escaped),
    )


def _both(one: tuple[str, ...] | None, other: tuple[str, ...] | None) -> tuple[str, ...] | None:
    if one is None or other is None:
        return None
    return tuple(sorted({*one, *other}))


def _part(key: str) -> str:
    """The file a test's key names (relative to pytest's root)."""
    return key.split("::", 1)[0]


def _varied(results: list[SuiteRun]) -> set[str]:
    first = results[0].outcomes if results else {}
    return {
        k
        for r in results[1:]
        for k in set(r.outcomes) | set(first)
        if r.outcomes.get(k) != first.get(k)
    }


def _test_files(near: Baseline, task: Task, tree: dict[str, str]) -> dict[str, str] | None:
    """Each file part of the near baseline's keys, to the tree path it is (the keys are
    relative to pytest's root, the task's folder or the tree's); None when one is no file."""
    cwd = task.options.cwd.strip("/")
    out = {}
    for part in {_part(k) for k in near.collected}:
        for path in (part, f"{cwd}/{part}" if cwd and cwd != "." else part):
            if path in tree:
                out[part] = path
                break
        else:
            return None
    return out


def _sources(repo: Path) -> dict[str, str]:
    """The tree's tracked Python files, by path."""
    listed = git(repo, "ls-files", "-z", "--", "*.py")
    out = {}
    for path in _paths(listed.stdout if listed.returncode == 0 else b""):
        try:
            out[path] = (repo / path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
    return out


def _changed(repo: Path, one: str, other: str, only: str = "") -> list[str] | None:
    """The paths that differ between two commits (None: git does not know both); `only`: those
    of git's --diff-filter letters (M: changed in place)."""
    chosen = [f"--diff-filter={only}"] if only else []
    found = git(repo.resolve(), "diff", "--no-renames", "--name-only", "-z", *chosen, one, other)
    return _paths(found.stdout) if found.returncode == 0 else None


def _text_at(repo: Path, sha: str, path: str) -> str | None:
    found = git(repo.resolve(), "show", f"{sha}:{path}")
    return found.stdout.decode("utf-8", "replace") if found.returncode == 0 else None


def _paths(listed: bytes) -> list[str]:
    return [p for p in listed.decode("utf-8", "replace").split("\0") if p]
