"""What kind of test edit a patch is: none, purely additive (new tests only), or other.

A purely additive edit is judged by its pristine run (the SHA's tests over the patched code);
any other edit of a test is judged by the census and the drift gate. The decision reads the
census diff and the patched test files' text, and no more.
"""

from __future__ import annotations

import ast
import re
from enum import StrEnum
from pathlib import Path

from patchwitness import python_ast, sourcefiles
from patchwitness.census.items import CensusDiff, Inventory, is_test, kind_of, split_key
from patchwitness.classify import GRADER, INFRA, TEST, Classified
from patchwitness.patch import FileChange, Patch
from patchwitness.workspace import as_text, safe_read


class TestEdit(StrEnum):
    NONE = "none"
    ADDITIVE = "additive"
    OTHER = "other"


# Lines a test file may lose in a purely additive edit: what an added test needs at the top.
_IMPORT_LINE = re.compile(r"^\s*(?:import\s|from\s+\S+\s+import\s|#\s*include\s|$)")


def kind_of_test_edit(
    patch: Patch, classes: dict[str, Classified], diff: CensusDiff, after: Inventory, tree: Path
) -> tuple[TestEdit, str]:
    """(the kind of test edit, why it is not additive). Additive: new test functions or cases
    only. No test infrastructure or grader file touched; no census key removed, rewritten,
    disabled or redefined; every added assertion sits in an added test; and no line of the
    patch falls inside a test that existed at the SHA (a test's body changed, even where the
    census sees no assertion move)."""
    tests = [c for c in patch.files if classes[c.path].kind in (TEST, INFRA, GRADER)]
    if not tests:
        return TestEdit.NONE, ""
    infra = [c.path for c in tests if classes[c.path].kind != TEST]
    if infra:
        return TestEdit.OTHER, f"test infrastructure edited: {infra[0]}"
    if diff.removed or diff.disabled or diff.macro_redefinitions or diff.unreadable:
        return TestEdit.OTHER, "census keys were removed, disabled or redefined"
    new_scopes = {_scope_of(k) for k in diff.added if is_test(kind_of(k))}
    for key in diff.added:
        if kind_of(key) == "assert" and _scope_of(key) not in new_scopes:
            return (
                TestEdit.OTHER,
                f"an assertion was added to an existing test: {_scope_of(key)[1]}",
            )
    existing = _test_spans(tree, after, [c.path for c in tests], new_scopes)
    for change in tests:
        if change.status == "removed":
            return TestEdit.OTHER, f"test file removed: {change.path}"
        for number, text in change.removed:
            if not _IMPORT_LINE.match(text):
                return TestEdit.OTHER, f"{change.path}:{number} changed an existing line"
        for number, text in change.added:
            if not text.strip():
                continue
            for low, high, name in existing.get(change.path, ()):
                if low <= number <= high:
                    return (
                        TestEdit.OTHER,
                        f"{change.path}:{number} is inside the existing test {name}",
                    )
        inside = _inside_existing_function(tree, change)
        if inside:
            return TestEdit.OTHER, inside
    return TestEdit.ADDITIVE, ""


# A block that only groups tests (doctest's TEST_SUITE("x") { ... }): tests may be added in it.
_SUITE_HEAD = re.compile(r"^(?:[A-Z_]*TEST_SUITE\w*|SUITE|describe)\s*\(")


def _inside_existing_function(tree: Path, change: FileChange) -> str:
    """Why a C++ test file's added line is not an addition: it sits in the body of a function
    that existed at the SHA (a test program's main, a helper the tests call). The census sees
    tests only where a test macro is; a plain test program is one big function, and a `return`,
    a `/*` or an `#if 0` added inside it disables every check below it."""
    if change.path.endswith(tuple(sourcefiles.PY)):
        return ""
    text = as_text(safe_read(tree, change.path))
    if text is None:
        return ""
    from patchwitness.linemap import CppLines  # C++ only: not loaded at a grade's start

    lines = CppLines(text)
    added = {number for number, _ in change.added}
    for number, line in change.added:
        if not line.strip():
            continue
        bodies = [b for b in lines.bodies_around(number) if not _SUITE_HEAD.match(lines.head(b))]
        if bodies and lines.line_of(bodies[0].open) not in added:
            head = " ".join(lines.head(bodies[0]).split())[:80]
            return f"{change.path}:{number} changes the existing function {head or '{...}'}"
    return ""


def _scope_of(key: str) -> tuple[str, str]:
    kind, file, scope, name, _ = split_key(key)
    return file, (scope or name) if is_test(kind) else scope


def _test_spans(
    tree: Path, after: Inventory, files: list[str], new_scopes: set[tuple[str, str]]
) -> dict[str, list[tuple[int, int, str]]]:
    """Line spans, in the patched files, of the tests that existed at the SHA: a Python test
    from its first decorator to its last line, a C++ test from its macro to its closing brace."""
    old: dict[str, dict[int, str]] = {}
    for item in after.items:
        scope = _scope_of(item.key)
        if is_test(item.kind) and item.file in files and scope not in new_scopes:
            old.setdefault(item.file, {})[item.line] = scope[1]
    spans: dict[str, list[tuple[int, int, str]]] = {}
    for file, tests in old.items():
        text = as_text(safe_read(tree, file)) or ""
        if file.endswith(".py"):
            spans[file] = python_test_spans(text, set(tests.values()))
        else:
            from patchwitness.linemap import CppLines

            lines = CppLines(text)
            for line, name in tests.items():
                spans.setdefault(file, []).append((line, lines.block_end(line), name))
    return spans


def python_test_spans(text: str, names: set[str]) -> list[tuple[int, int, str]]:
    try:
        module = python_ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    out: list[tuple[int, int, str]] = []

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}::")
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                name = prefix + node.name
                if name in names:
                    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                    out.append((first, node.end_lineno or node.lineno, name))

    visit(module.body, "")
    return out
