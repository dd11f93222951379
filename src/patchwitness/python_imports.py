"""Which of a tree's Python files a module may load, read from their `import` statements. Pure.

Used to decide which tests a new commit can change (baseline_moved.py), so every doubt counts as
a dependence: a name is matched against every module path it could mean (the tree has no
`sys.path` here: `src/pkg/mod.py` is `src.pkg.mod`, `pkg.mod` and `mod`), an import of a package
loads its `__init__`, `from pkg import name` may load `pkg/name.py`, and a file that imports in
a way no statement shows (`importlib`, `__import__`, `exec`, `runpy`, a subprocess, pytest's
`pytest_plugins` or `pytester`) or does not parse is *open*: what it loads is not known, and
whoever reaches it may depend on anything.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from patchwitness import python_ast

# Calls and names through which a module loads or runs code no import statement shows.
_OPENING_CALLS = frozenset(
    {
        "__import__",
        "import_module",
        "importorskip",
        "exec",
        "eval",
        "run_module",
        "run_path",
        "spec_from_file_location",
        "module_from_spec",
        "exec_module",
        "load_module",
        "SourceFileLoader",
        "entry_points",
        "iter_modules",
        "walk_packages",
        "load_source",
        "Popen",
        "system",
        "execv",
        "execvp",
        "execve",
        "spawnv",
        "check_call",
        "check_output",
        "getoutput",
    }
)
_OPENING_NAMES = frozenset({"pytest_plugins", "pytester", "testdir", "runpytest", "inline_run"})
_OPENING_MODULES = frozenset({"subprocess", "runpy", "importlib", "pkgutil", "multiprocessing"})


@dataclass(frozen=True)
class ImportGraph:
    """Per file (a path of the tree), the tree files its imports may load; and the open files."""

    edges: Mapping[str, frozenset[str]]
    open: frozenset[str]

    def closure(self, start: str) -> frozenset[str]:
        """`start` and every file it may load, directly or through another."""
        seen, todo = {start}, [start]
        while todo:
            for nxt in self.edges.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return frozenset(seen)


def graph(sources: Mapping[str, str]) -> ImportGraph:
    """The import graph of a tree's Python files (path -> text)."""
    names = module_names(sources)
    edges: dict[str, frozenset[str]] = {}
    opened: set[str] = set()
    for path, text in sources.items():
        try:
            tree = python_ast.parse(text)
        except (SyntaxError, ValueError):
            opened.add(path)
            edges[path] = frozenset()
            continue
        wanted, is_open = _imports(tree, dotted(path))
        if is_open:
            opened.add(path)
        found: set[str] = set()
        for name in wanted:
            found |= names.get(name, set())
        found.discard(path)
        edges[path] = frozenset(found)
    return ImportGraph(edges, frozenset(opened))


def module_names(paths: Iterable[str]) -> dict[str, set[str]]:
    """Every dotted name each file could be imported as, to the files it could mean: the path's
    every tail (a root of `sys.path` may be any folder), a package by its `__init__.py`."""
    out: dict[str, set[str]] = {}
    for path in paths:
        parts = dotted(path).split(".")
        for first in range(len(parts)):
            out.setdefault(".".join(parts[first:]), set()).add(path)
    return out


def dotted(path: str) -> str:
    """`src/pkg/mod.py` -> `src.pkg.mod`; a package's `__init__.py` is the package."""
    stem = path[: -len(".py")] if path.endswith(".py") else path
    if stem == "__init__" or stem.endswith("/__init__"):
        stem = stem[: -len("__init__")].rstrip("/")
    return stem.replace("/", ".")


def _imports(tree: ast.Module, here: str) -> tuple[set[str], bool]:
    """The dotted names a module's imports may load (each package on the way too), and whether
    it loads anything in a way no import statement shows."""
    wanted: set[str] = set()
    is_open = False
    package = here.rsplit(".", 1)[0] if "." in here else ""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                wanted |= _with_parents(alias.name)
                is_open |= alias.name.split(".")[0] in _OPENING_MODULES
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".") if package else []
                up = up[: len(up) - (node.level - 1)] if node.level > 1 else up
                base = ".".join([*up, base] if base else up)
            if base:
                wanted |= _with_parents(base)
            for alias in node.names:
                wanted.add(f"{base}.{alias.name}" if base else alias.name)
            is_open |= base.split(".")[0] in _OPENING_MODULES
        elif isinstance(node, ast.Call):
            func = node.func
            called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            is_open |= called in _OPENING_CALLS
        elif isinstance(node, ast.Name):
            is_open |= node.id in _OPENING_NAMES
        elif isinstance(node, ast.Attribute):
            is_open |= node.attr in _OPENING_NAMES
        elif isinstance(node, ast.arg):
            is_open |= node.arg in _OPENING_NAMES
    return wanted, is_open


def _with_parents(dotted: str) -> set[str]:
    parts = dotted.split(".")
    return {".".join(parts[: n + 1]) for n in range(len(parts))}
