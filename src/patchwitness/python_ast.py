"""Syntax trees of Python source, built one thread at a time.

CPython 3.11 counts the depth of its AST constructor in state the whole interpreter shares: two
threads building syntax trees at once can corrupt it, and the next `ast.parse` fails with
`SystemError: AST constructor recursion depth mismatch` (python/cpython#106905). A grade analyses
the patched text in a thread (patched_text.py) while its main thread goes on, and one such error
crashed a real grade. So every syntax tree the grader builds in its own process is built under
LOCK: here, in coverage.py's parser (hits/python.py), and around the work collect.py runs beside
the test run (an import that builds models, and a caller's work).
"""

from __future__ import annotations

import ast
import threading

LOCK = threading.RLock()


def parse(source: str | bytes, filename: str = "<unknown>") -> ast.Module:
    """`ast.parse`, under LOCK. A leading byte-order mark is dropped, as Python's own reading of
    a source file drops it."""
    with LOCK:
        if isinstance(source, str):
            source = source.removeprefix("\ufeff")
        return ast.parse(source, filename=filename)


def what_runs(tree: ast.Module) -> ast.Module:
    """A copy of `tree` without what never changes what the program does: docstrings (a
    module's, a class's, a function's) and the annotations of functions (parameters, returns,
    a local variable's), which the interpreter stores and never acts on (red team round 42
    changed the annotations of 15 methods: each became a target of the reference comparison
    and crowded its cap, and undoing each was a mutant no test could kill). A class's or a
    module's annotated names stay: a dataclass or a model reads them."""
    import copy

    return _Inert().visit(copy.deepcopy(tree))


class _Inert(ast.NodeTransformer):
    def _undocumented(self, node):
        body = node.body
        first = body[0].value if body and isinstance(body[0], ast.Expr) else None
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            node.body = body[1:] or [ast.Pass()]
        return node

    def visit_Module(self, node):
        self.generic_visit(node)
        return self._undocumented(node)

    visit_ClassDef = visit_Module

    def visit_FunctionDef(self, node):
        self.generic_visit(node)
        node.returns = None
        every = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
        every += [a for a in (node.args.vararg, node.args.kwarg) if a is not None]
        for argument in every:
            argument.annotation = None
        node.body = [_unannotated(s) for s in node.body]
        return self._undocumented(node)

    visit_AsyncFunctionDef = visit_FunctionDef


def _unannotated(statement: ast.stmt) -> ast.stmt:
    """A local variable's annotated assignment as the plain assignment it runs as (one with no
    value stays: it makes the name local)."""
    if isinstance(statement, ast.AnnAssign) and statement.value is not None:
        return ast.Assign(targets=[statement.target], value=statement.value, lineno=0)
    return statement
