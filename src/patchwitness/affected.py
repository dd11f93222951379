"""Which tests a new commit can change: the decision that lets a Python baseline follow the
branch (baseline_moved.py) by running again only the tests whose files or imports changed. Pure.

Every doubt runs everything. A test file's tests run again when the file, or any tree file its
imports may load (before or after the commit: python_imports.py), changed, or when one of those
loads code in a way no import shows. Every test runs again when the commit changes a file that
is no Python module (data, configuration, a build script), a `conftest.py` or anything a
conftest loads, a module the test runner itself loaded before any test (pluggy under pytest), or
a module no test file loads at all (something else loads it, and what is not known).

One exception to "no Python module": a file the commit changed in place that the near run never
opened (`unread`), when that run said everything it opened and ran nothing where its hooks do
not see (no other process, no library by ctypes, no compiled module of the tree). A CI workflow
or a linter's configuration changes no test's outcome.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from patchwitness.python_imports import ImportGraph, dotted


@dataclass(frozen=True)
class Rerun:
    """`everything`: why every test runs again ('' when not); else the test files (tree paths)
    whose tests run again, possibly none."""

    everything: str = ""
    files: tuple[str, ...] = ()


# What the import system reads, or compiled code: read without an open the hooks see (a .pth
# at start-up), or reading what it likes.
_IMPORTED = (".py", ".pyc", ".pyi", ".pth", ".pyx", ".pxd", ".so", ".pyd", ".dll", ".dylib")
_COMPILED = (".so", ".pyd", ".dll", ".dylib")


def unread(
    modified: Collection[str],
    loaded: Collection[str] | None,
    escaped: Collection[str] | None,
) -> frozenset[str]:
    """Of `modified` (the paths a commit changed in place, neither added nor removed: a listing
    of a folder is the same), those the near run cannot have read. `loaded`: the tree files the
    run imported or opened; `escaped`: how it ran code its hooks do not see (None: unknown)."""
    if loaded is None or escaped is None or escaped:
        return frozenset()
    if any(path.endswith(_COMPILED) for path in loaded):
        return frozenset()
    seen = set(loaded)
    return frozenset(p for p in modified if p not in seen and not p.endswith(_IMPORTED))


def plan(
    changed: Collection[str],
    before: ImportGraph,
    after: ImportGraph,
    test_files: Collection[str],
    runner_modules: Collection[str] = (),
    unread_files: Collection[str] = (),
) -> Rerun:
    """`changed`: the tree paths that differ between the two commits; `before`, `after`: the
    import graphs at each; `test_files`: the files holding the tests collected before;
    `runner_modules`: the top-level names of the modules the test runner had loaded before any
    test (its plugins and what they import); `unread_files`: those of `changed` the near run
    cannot have read (`unread`)."""
    changed = [p for p in changed if p not in set(unread_files)]
    for path in sorted(changed):
        if not path.endswith(".py"):
            return Rerun(everything=f"{path} changed and is no Python module")
        if path.rsplit("/", 1)[-1] == "conftest.py":
            return Rerun(everything=f"{path} changed: a conftest is loaded before every test")
    loaded_first = set(runner_modules)
    for path in sorted(changed):
        # Any folder on the way may be the top of the name the runner loaded it by.
        shared = sorted(set(dotted(path).split(".")) & loaded_first)
        if shared:
            return Rerun(everything=f"{path} changed: the test runner loads {shared[0]} first")
    conftests = {
        p for graph in (before, after) for p in graph.edges if p.rsplit("/", 1)[-1] == "conftest.py"
    }
    for conftest in sorted(conftests):
        reached = _reached(conftest, before, after)
        hit = sorted(reached & set(changed))
        if hit:
            return Rerun(everything=f"{hit[0]} changed: {conftest} loads it")
    opened = before.open | after.open
    reached_by_tests: set[str] = set()
    affected = []
    for test in sorted(test_files):
        reached = _reached(test, before, after)
        reached_by_tests |= reached
        if reached & set(changed) or reached & opened:
            affected.append(test)
    for path in sorted(changed):
        if path not in reached_by_tests:
            return Rerun(
                everything=f"{path} changed and no test file imports it: what loads it is not known"
            )
    if test_files and len(affected) == len(set(test_files)):
        return Rerun(everything="every test file may load a changed file")
    return Rerun(files=tuple(affected))


def _reached(start: str, before: ImportGraph, after: ImportGraph) -> frozenset[str]:
    return before.closure(start) | after.closure(start)
