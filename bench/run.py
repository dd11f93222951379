"""Run the benchmarks: every `bench/*.py` module that defines `main(argv)`, in name order.

    .venv/bin/python bench/run.py                      # everything, full size
    .venv/bin/python bench/run.py --quick              # small inputs: a smoke run
    .venv/bin/python bench/run.py --only census_speed  # one benchmark (repeatable)
    .venv/bin/python bench/run.py -- --reps 5          # arguments after -- go to every main()

Modules whose names start with `_` are helpers, and this runner is not a benchmark. A main(argv)
gets `--quick` when the runner has it; a main() without parameters reads sys.argv itself, so it runs
with its own defaults, and is skipped by --quick (it has no small size to offer). The exit status
is the first non-zero one.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))

from _common import load_note  # noqa: E402

Main = Callable[..., int | None]


def discover() -> dict[str, Main]:
    """Benchmark name -> its main, in a stable (name) order: every `bench/NAME.py`, and every
    package `bench/NAME/` whose `__main__.py` defines main (the real-repository evaluation)."""
    found: dict[str, Main] = {}
    modules = [p.stem for p in BENCH_DIR.glob("*.py")]
    modules += [p.parent.name + ".__main__" for p in BENCH_DIR.glob("*/__main__.py")]
    for module_name in sorted(modules):
        name = module_name.removesuffix(".__main__")
        if name.startswith("_") or name == "run":
            continue
        module = importlib.import_module(module_name)
        main = getattr(module, "main", None)
        if callable(main):
            found[name] = main
    return found


def takes_argv(main: Main) -> bool:
    try:
        return bool(inspect.signature(main).parameters)
    except (TypeError, ValueError):
        return False


def call(name: str, main: Main, argv: list[str]) -> int:
    """Run one benchmark's main; SystemExit (argparse, raise SystemExit(n)) becomes its status, an
    exception prints its traceback and makes the status 1."""
    saved = sys.argv
    try:
        if takes_argv(main):
            result = main(argv)
        else:
            sys.argv = [str(BENCH_DIR / f"{name}.py"), *argv]
            result = main()
    except SystemExit as stop:
        code = stop.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except Exception:  # one broken benchmark must not hide the figures of the others
        traceback.print_exc()
        return 1
    finally:
        sys.argv = saved
    return result or 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    passthrough: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, passthrough = argv[:cut], argv[cut + 1 :]
    parser = argparse.ArgumentParser(description="Run the patchwitness benchmarks.")
    parser.add_argument("--quick", action="store_true", help="small inputs, for a smoke run")
    parser.add_argument("--only", action="append", default=[], metavar="NAME", help="run NAME")
    parser.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    args = parser.parse_args(argv)
    benchmarks = discover()
    if args.list:
        print("\n".join(benchmarks))
        return 0
    unknown = [name for name in args.only if name not in benchmarks]
    if unknown:
        parser.error(f"unknown benchmark(s) {', '.join(unknown)}; have {', '.join(benchmarks)}")
    chosen = [name for name in benchmarks if not args.only or name in args.only]
    status = 0
    for name in chosen:
        main = benchmarks[name]
        if args.quick and not takes_argv(main):
            print(f"\n######## {name}: skipped by --quick (its main() takes no argv)", flush=True)
            continue
        extra = (["--quick"] if args.quick and takes_argv(main) else []) + passthrough
        print(f"\n######## {name} {' '.join(extra)}".rstrip(), flush=True)
        print(f"# before: {load_note()}", flush=True)
        started = time.perf_counter()
        code = call(name, main, extra)
        took = time.perf_counter() - started
        print(f"# {name}: exit {code} in {took:.1f} s; after: {load_note()}", flush=True)
        status = status or code
    return status


if __name__ == "__main__":
    raise SystemExit(main())
