"""Every syntax tree the grader builds in its own process is built under python_ast.LOCK.

CPython 3.11's AST constructor keeps its depth counter in interpreter-wide state; two threads
building trees at once can end in `SystemError: AST constructor recursion depth mismatch`, which
crashed a real grade (pluggy's honest-test patch in bench/realworld) once the patched text was
analysed beside the run. The race is too rare to provoke in a test, so these check the rule: the
one place that calls ast.parse holds the lock, and no other module of the grader calls it.
"""

from __future__ import annotations

import ast
import re
import threading
from pathlib import Path

from patchwitness import python_ast
from patchwitness.hits import python as python_hits

SRC = Path(python_ast.__file__).resolve().parent


def held_elsewhere() -> bool:
    """Whether another thread holds LOCK now (an RLock cannot say so itself on 3.11)."""
    answer: list[bool] = []

    def probe() -> None:
        got = python_ast.LOCK.acquire(blocking=False)
        if got:
            python_ast.LOCK.release()
        answer.append(not got)

    thread = threading.Thread(target=probe)
    thread.start()
    thread.join()
    return answer[0]


def test_parse_builds_its_tree_under_the_lock(monkeypatch):
    seen: list[bool] = []
    real = ast.parse

    def watched(*args, **kwargs):
        seen.append(held_elsewhere())
        return real(*args, **kwargs)

    monkeypatch.setattr(python_ast.ast, "parse", watched)
    assert isinstance(python_ast.parse("x = 1\n"), ast.Module)
    assert seen == [True]


def test_coverage_py_parses_under_the_lock(monkeypatch):
    seen: list[bool] = []
    real = python_hits.PythonParser.parse_source

    def watched(self):
        seen.append(held_elsewhere())
        return real(self)

    monkeypatch.setattr(python_hits.PythonParser, "parse_source", watched)
    parsed = python_hits.parse_statements("x = 1\n")
    assert parsed is not None and parsed.statements == {1}
    assert seen == [True]


def test_no_other_module_of_the_grader_builds_a_tree_itself():
    raw = re.compile(r"\bast\.parse\(|\bcompile\([^)]*PyCF_ONLY_AST|\.parse_source\(\)")
    offenders = []
    scanned = sorted(SRC.rglob("*.py"))
    assert len(scanned) > 50, SRC  # the grader's own sources, not an empty or wrong directory
    for path in scanned:
        rel = path.relative_to(SRC).as_posix()
        # probe/ runs inside the graded interpreter, never in the grader's process.
        if rel.startswith("probe/") or rel == "python_ast.py":
            continue
        lines = path.read_text().splitlines()
        for number, text in enumerate(lines, 1):
            if raw.search(text) and "python_ast.LOCK" not in lines[number - 2]:
                offenders.append(f"{rel}:{number}: {text.strip()}")
    assert offenders == []
