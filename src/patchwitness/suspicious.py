"""Suspicious constructs in the lines a patch adds to production code. Pure.

These are the ways production code can make a test run report green without being right: leave the
process with status 0 before the tests finish, compare equal to everything, or look at the test
runner and behave differently under it. Coverage exclusion markers are collected too: the coverage
gate scores those lines anyway and reports the addition.
"""

from __future__ import annotations

import ast
import re

from patchwitness.census.python import dotted
from patchwitness.model import Finding

GATE = "suspicious"
EXIT_CALLS = {"sys.exit", "os._exit", "exit", "quit", "atexit.register", "os.abort", "os.kill"}
# Production code has no business asking whether it runs under a test, or who called it.
RUNNER_PROBES = re.compile(
    r"PYTEST_CURRENT_TEST|PYTEST_XDIST_WORKER|sys\._getframe|"
    r"inspect\.(stack|currentframe|getouterframes)|[\"']_?pytest[\"']\s+in\s+sys\.modules"
)
PY_PRAGMA = re.compile(r"#\s*pragma:\s*no\s*(cover|branch)", re.IGNORECASE)
CPP_PRAGMA = re.compile(r"\b(LCOV_EXCL_\w+|GCOVR_EXCL_\w+)")
GAMING_KINDS = {"exit-at-import", "constant-eq", "reads-test-runner"}


def pragma_lines(added: list[tuple[int, str]], language: str) -> list[int]:
    pattern = PY_PRAGMA if language == "python" else CPP_PRAGMA
    return [n for n, text in added if pattern.search(text)]


def python_findings(path: str, new_text: str | None, added: list[tuple[int, str]]) -> list[Finding]:
    if not added:
        return []
    lines = {n for n, _ in added}
    out: list[Finding] = []
    for number, text in added:
        if RUNNER_PROBES.search(text):
            out.append(
                Finding(
                    gate=GATE,
                    kind="reads-test-runner",
                    file=path,
                    line=number,
                    message=f"production code looks at the test runner: {text.strip()[:120]}",
                )
            )
    for number in pragma_lines(added, "python"):
        out.append(
            Finding(
                gate=GATE,
                kind="pragma-added",
                file=path,
                line=number,
                message="coverage exclusion pragma added",
            )
        )
    if new_text is None:
        return out
    try:
        tree = ast.parse(new_text)
    except (SyntaxError, ValueError):
        return out
    out += _exits_at_import(tree, path, lines)
    out += _constant_eq(tree, path, lines)
    return out


def _touches(node: ast.AST, lines: set[int]) -> bool:
    start = getattr(node, "lineno", 0)
    end = getattr(node, "end_lineno", start) or start
    return any(start <= n <= end for n in lines)


def _exits_at_import(tree: ast.Module, path: str, lines: set[int]) -> list[Finding]:
    """Exit calls in statements that run at import time (module level, outside any def)."""
    out = []
    pending = list(tree.body)
    while pending:
        stmt = pending.pop()
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        if isinstance(stmt, ast.ClassDef):
            pending.extend(stmt.body)
            continue
        for node in ast.walk(stmt):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                break
            if (
                isinstance(node, ast.Call)
                and dotted(node.func) in EXIT_CALLS
                and _touches(node, lines)
            ):
                out.append(
                    Finding(
                        gate=GATE,
                        kind="exit-at-import",
                        file=path,
                        line=node.lineno,
                        message=f"{dotted(node.func)}() runs at import time",
                    )
                )
    return out


def _returns_constant(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    returns = [n for n in ast.walk(fn) if isinstance(n, ast.Return)]
    if not returns:
        return False
    return all(
        isinstance(r.value, ast.Constant) and r.value.value in (True, False, 1, 0) for r in returns
    )


def _constant_eq(tree: ast.Module, path: str, lines: set[int]) -> list[Finding]:
    out = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.name
            in (
                "__eq__",
                "__ne__",
                "__bool__",
                "__contains__",
                "__lt__",
                "__le__",
                "__gt__",
                "__ge__",
            )
            and _touches(node, lines)
            and _returns_constant(node)
        ):
            out.append(
                Finding(
                    gate=GATE,
                    kind="constant-eq",
                    file=path,
                    line=node.lineno,
                    message=f"{node.name} returns a constant",
                )
            )
    return out


# A production path that ends the process *successfully* is how a C++ patch makes a golden pass
# without running it; abort() or a failing status is an ordinary error path and only noted.
CPP_EXIT = re.compile(r"\b(?:std::)?(?:exit|_exit|_Exit|quick_exit)\s*\(\s*(0|EXIT_SUCCESS)\s*\)")
CPP_ABORT = re.compile(r"\b(?:std::)?(?:abort|exit|_exit|_Exit|quick_exit|terminate)\s*\(")
CPP_RUNNER_PROBES = re.compile(
    r"\bGTEST_\w+|\b(?:::)?testing::|\bUnitTest::GetInstance|\bCATCH_\w+|\bCatch::|"
    r"\bDOCTEST_\w+|\bdoctest::|getenv\s*\(\s*\"(?:GTEST|CTEST|CATCH|DOCTEST)|"
    r"__has_include\s*\(\s*<(?:gtest|catch2|doctest)"
)


def cpp_findings(path: str, added: list[tuple[int, str]]) -> list[Finding]:
    out: list[Finding] = []
    for number, text in added:
        code = text.split("//", 1)[0]
        if CPP_EXIT.search(code):
            out.append(
                Finding(
                    gate=GATE,
                    kind="exit-at-import",
                    file=path,
                    line=number,
                    message=f"production code exits with success: {text.strip()[:120]}",
                )
            )
        elif CPP_ABORT.search(code):
            out.append(
                Finding(
                    gate=GATE,
                    kind="exit-call",
                    file=path,
                    line=number,
                    message=f"production code ends the process: {text.strip()[:120]}",
                )
            )
        if CPP_RUNNER_PROBES.search(code):
            out.append(
                Finding(
                    gate=GATE,
                    kind="reads-test-runner",
                    file=path,
                    line=number,
                    message=f"production code looks at the test framework: {text.strip()[:120]}",
                )
            )
    for number in pragma_lines(added, "cpp"):
        out.append(
            Finding(
                gate=GATE,
                kind="pragma-added",
                file=path,
                line=number,
                message="coverage exclusion marker added",
            )
        )
    return out
