"""The first code of every Python process in a graded run (the grader's probe directory heads
PYTHONPATH): record the files the process opens from its start (pw_opened), then run the
`sitecustomize` the process would have run without this one, the next on its path."""

import os
import sys


def _start():
    import pw_opened

    pw_opened.start()


def _next_sitecustomize():
    here = os.path.dirname(os.path.abspath(__file__))
    rest = [p for p in sys.path if p and os.path.abspath(p) != here]
    from importlib.machinery import PathFinder
    from importlib.util import module_from_spec

    spec = PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return
    module = module_from_spec(spec)
    sys.modules["sitecustomize"] = module
    spec.loader.exec_module(module)


_start()
_next_sitecustomize()
