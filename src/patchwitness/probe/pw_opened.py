"""The files a Python process of the graded run opens, recorded from its start.

The grader's probe directory heads the run's PYTHONPATH, so its `sitecustomize` starts this in
every Python process before any code of the tree runs (pytest's own imports, and the code under
test they pull in, included); the pytest probe reads what it recorded. Standard library only, any
Python 3.8+. Paths are made absolute and normal here: `src/pkg/../../CHANGES.rst` is CHANGES.rst.
"""

import os
import sys

opened = set()
LIMIT = 50000
_started = []


def _audit(event, args):
    if event != "open" or not args:
        return
    path = args[0]
    if isinstance(path, bytes):
        try:
            path = os.fsdecode(path)
        except (UnicodeDecodeError, ValueError):
            return
    if not isinstance(path, str):  # an integer file descriptor
        return
    try:
        path = os.path.normpath(os.path.join(os.getcwd(), path))
    except (OSError, ValueError):
        return
    if len(opened) < LIMIT:
        opened.add(path)


def start():
    """Record from now on (once per process: audit hooks cannot be removed)."""
    if not _started:
        _started.append(True)
        sys.addaudithook(_audit)
