"""The failing tests outside pytest: each test function called as a user's script would call it.

    python pw_outside.py SPEC OUT

SPEC (JSON): {"path": [...], "tests": {key: [module, qualified name, {argument: repr}]},
"done": N, "before": [conftest module, ...]}. Each test runs in a child process forked before
anything of the tree is imported: the child puts the run's import path first, imports the
conftests pytest imported (for what they do at import; their fixtures and hooks stay unused),
imports the test's module, calls the function (a method on an object of its class made with no
arguments) with the literal arguments `parametrize` gave it, and exits with status `done` when
it returned, `done + 1` when it raised. The parent alone writes OUT, one JSON line a test:
{"key", "status", "said"}. No pytest session, plugin hook, fixture or assertion rewriting is
there: the functions the grader sends are those pytest called with no fixture at all. Standard
library only.
"""

import ast
import contextlib
import importlib
import json
import os
import select
import signal
import sys
import tempfile
import time
import traceback

TEST_TIMEOUT = 30.0
SAID = 400


def main(argv):
    spec_path, out_path = argv[1], argv[2]
    with open(spec_path, encoding="utf-8") as handle:
        spec = json.load(handle)
    done = int(spec["done"])
    with open(out_path, "w", encoding="utf-8") as out:
        for key, (module, qualname, arguments) in sorted(spec["tests"].items()):
            status, said = _one(spec, module, qualname, arguments, done)
            out.write(json.dumps({"key": key, "status": status, "said": said}) + "\n")
            out.flush()
    return 0


def _one(spec, module, qualname, arguments, done):
    """Fork, run the test in the child, read what it said; its exit status is the answer."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        _child(spec, module, qualname, arguments, done, write_end)
    os.close(write_end)
    said = _read(read_end, time.monotonic() + TEST_TIMEOUT, pid)
    os.close(read_end)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return -os.WTERMSIG(status), said
    return os.WEXITSTATUS(status), said


def _read(fd, deadline, pid):
    chunks = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            os.kill(pid, signal.SIGKILL)
            chunks.append(b"(timed out)")
            break
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            continue
        data = os.read(fd, 4096)
        if not data:
            break
        if sum(len(c) for c in chunks) < SAID:
            chunks.append(data)
    return b"".join(chunks).decode("utf-8", "replace")[:SAID]


def _child(spec, module, qualname, arguments, done, fd):
    os.setsid()
    # Standard output and error are a file, as when a user sends a script's output to one: the
    # harness hands its tests pipes, and no user's script needs one.
    kept = tempfile.TemporaryFile()  # noqa: SIM115 - held until the child's own exit
    os.dup2(kept.fileno(), 1)
    os.dup2(kept.fileno(), 2)
    # The test's import path, without this script's folder: nothing of the grader's to find.
    here = os.path.dirname(os.path.abspath(__file__))
    path = list(spec["path"])
    sys.path[:] = path + [p for p in sys.path if p not in path and p != here]
    code = done + 1
    said = ""
    for conftest in spec.get("before", []):
        # What fails to import here is the harness's, not the test's: the test still runs.
        with contextlib.suppress(Exception):
            importlib.import_module(conftest)
    try:
        target = importlib.import_module(module)
        owner = None
        for part in qualname.split("."):
            owner, target = target, getattr(target, part)
        if isinstance(owner, type):
            target = getattr(owner(), qualname.rsplit(".", 1)[-1])
        target(**{name: ast.literal_eval(text) for name, text in arguments.items()})
        code = done
    except BaseException as error:  # a test's failure is any exception, SystemExit too
        lines = traceback.format_exception_only(type(error), error)
        said = (lines[-1] if lines else type(error).__name__).strip()
    with contextlib.suppress(OSError):
        os.write(fd, said.encode("utf-8", "replace")[:SAID])
    os._exit(code)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
