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
