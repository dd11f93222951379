"""The files a Python process of the graded run opens, recorded from its start.

The grader's probe directory heads the run's PYTHONPATH, so its `sitecustomize` starts this in
every Python process before any code of the tree runs (pytest's own imports, and the code under
test they pull in, included); the pytest probe reads what it recorded. Standard library only, any
Python 3.8+. Paths are made absolute and normal here: `src/pkg/../../CHANGES.rst` is CHANGES.rst.
"""

import os
import sys

opened = set()
# The files this process opened to write (a mode or flags that write, create or truncate).
written = set()
# The ways this process let code run where no hook of this one sees what it opens: another
# process (started, or forked), or a foreign library loaded by ctypes.
escaped = set()
LIMIT = 50000
_started = []
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


def _writes(args):
    mode = args[1] if len(args) > 1 else None
    flags = args[2] if len(args) > 2 else 0
    if isinstance(mode, str) and any(c in mode for c in "wax+"):
        return True
    return isinstance(flags, int) and bool(flags & _WRITE_FLAGS)


# Events that put a file at a path (their second argument) without opening it there to write:
# the path's new content is the process's own (a module written as .txt and renamed .py).
_PLACES = {"os.rename", "os.link", "os.symlink", "shutil.copyfile"}
_ESCAPES = {
    "subprocess.Popen",
    "os.system",
    "os.exec",
    "os.posix_spawn",
    "os.spawn",
    "os.fork",
    "os.forkpty",
    "pty.spawn",
    "ctypes.dlopen",
}


def _placed(args):
    if len(args) > 1 and isinstance(args[1], (str, bytes)):
        target = os.fsdecode(args[1])
        try:
            written.add(os.path.normpath(os.path.join(os.getcwd(), target)))
        except (OSError, ValueError):
            return


def _audit(event, args):
    if event in _ESCAPES:
        escaped.add(event)
        return
    if event in _PLACES:
        _placed(args)
        return
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
        if _writes(args):
            written.add(path)


def start():
    """Record from now on (once per process: audit hooks cannot be removed)."""
    if not _started:
        _started.append(True)
        sys.addaudithook(_audit)
