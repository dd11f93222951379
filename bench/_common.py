"""Shared helpers for the benchmarks: timing, medians, page-cache eviction and printing.

Every figure a benchmark prints carries its input size, and every headline figure is a ratio
against a peer measured in the same run, in wall-clock and
in CPU time. Lines that state a ratio start with `ratio ` so a smoke test (and a reader) can find
them.
"""

from __future__ import annotations

import contextlib
import os
import resource
import statistics
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from patchwitness.runner import Runner

T = TypeVar("T")

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
VENV_BIN = REPO_ROOT / ".venv" / "bin"


@dataclass(frozen=True)
class Cost:
    """What one measured call cost: wall-clock seconds, and CPU seconds (user + system) of this
    process and of the children it waited for (test runs, ripgrep, pool workers).

    On a machine shared with other work the wall clock stretches with the load while CPU time
    mostly does not, so every ratio is printed both ways.
    """

    wall: float
    cpu: float

    def __add__(self, other: Cost) -> Cost:
        return Cost(self.wall + other.wall, self.cpu + other.cpu)

    def __str__(self) -> str:
        return f"{secs(self.wall)} (cpu {secs(self.cpu)})"


NO_COST = Cost(float("nan"), float("nan"))


def cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def timed(fn: Callable[[], T]) -> tuple[Cost, T]:
    """The cost of one call, and its result."""
    cpu, start = cpu_seconds(), time.perf_counter()
    result = fn()
    return Cost(time.perf_counter() - start, cpu_seconds() - cpu), result


def repeat(fn: Callable[[], T], times: int) -> tuple[list[Cost], T]:
    """The costs of `times` calls (at least one), and the result of the last."""
    costs: list[Cost] = []
    cost, result = timed(fn)
    costs.append(cost)
    for _ in range(times - 1):
        cost, result = timed(fn)
        costs.append(cost)
    return costs, result


def median(values: Iterable[float]) -> float:
    data = list(values)
    return statistics.median(data) if data else float("nan")


def median_cost(costs: Iterable[Cost]) -> Cost:
    data = list(costs)
    return Cost(median(c.wall for c in data), median(c.cpu for c in data))


def runs(costs: list[Cost]) -> str:
    """`a, b, c (median m)` in wall-clock time, with the median CPU time."""
    middle = median_cost(costs)
    walls = ", ".join(secs(c.wall) for c in costs)
    if len(costs) == 1:
        return str(middle)
    return f"{walls} (median {secs(middle.wall)}, cpu {secs(middle.cpu)})"


def secs(value: float | Cost) -> str:
    """A duration for a table: milliseconds below one second, else seconds. A Cost prints its
    wall clock with its CPU time."""
    if isinstance(value, Cost):
        return str(value)
    if value != value:  # NaN
        return "n/a"
    return f"{value * 1000:.1f} ms" if value < 1 else f"{value:.2f} s"


def as_cost(value: float | Cost) -> Cost:
    """A bare number of seconds is a wall-clock time whose CPU time is unknown."""
    return value if isinstance(value, Cost) else Cost(float(value), float("nan"))


def mb(nbytes: int) -> str:
    """A size: kB below one megabyte, else MB (decimal units)."""
    return f"{nbytes / 1e3:.1f} kB" if nbytes < 1e6 else f"{nbytes / 1e6:.1f} MB"


def ratio(numerator: float, denominator: float) -> str:
    if denominator <= 0 or numerator != numerator or denominator != denominator:
        return "n/a"
    value = numerator / denominator
    return f"{value:.2f}x" if value >= 0.1 else f"{value:.2g}x"


def print_ratio(name: str, numerator: float | Cost, denominator: float | Cost, size: str) -> None:
    """One headline figure: `ratio NAME: 3.21x wall, 2.90x cpu  (wall a / b; cpu c / d; SIZE)`."""
    numerator, denominator = as_cost(numerator), as_cost(denominator)
    print(
        f"ratio {name}: {ratio(numerator.wall, denominator.wall)} wall, "
        f"{ratio(numerator.cpu, denominator.cpu)} cpu  "
        f"(wall {secs(numerator.wall)} / {secs(denominator.wall)}; "
        f"cpu {secs(numerator.cpu)} / {secs(denominator.cpu)}; {size})",
        flush=True,
    )


def heading(text: str) -> None:
    print(f"\n== {text}", flush=True)


def line(text: str) -> None:
    print(f"   {text}", flush=True)


def evict(paths: Iterable[Path]) -> bool:
    """Ask the kernel to drop these files from the page cache (posix_fadvise DONTNEED).

    Works without root for clean pages, which is all a benchmark tree has once it is synced.
    Returns False where the call does not exist (not Linux).
    """
    advise = getattr(os, "posix_fadvise", None)
    if advise is None:
        return False
    for path in paths:
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            advise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        except OSError:
            pass
        finally:
            os.close(fd)
    return True


def all_files(root: Path) -> list[Path]:
    out: list[Path] = []
    for dirpath, _dirs, names in os.walk(root):
        out.extend(Path(dirpath) / name for name in names)
    return out


@contextlib.contextmanager
def private_cache(keep: Path | None = None) -> Iterator[Path]:
    """PATCHWITNESS_CACHE pointed at a directory of the benchmark's own, never ~/.cache."""
    old = os.environ.get("PATCHWITNESS_CACHE")
    with contextlib.ExitStack() as stack:
        if keep is not None:
            keep.mkdir(parents=True, exist_ok=True)
            path = keep
        else:
            path = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="pw-bench-cache-")))
        os.environ["PATCHWITNESS_CACHE"] = str(path)
        try:
            yield path
        finally:
            if old is None:
                os.environ.pop("PATCHWITNESS_CACHE", None)
            else:
                os.environ["PATCHWITNESS_CACHE"] = old


def sandbox_runner(mode: str) -> tuple[Runner, str]:
    """The runner `patchwitness grade --sandbox MODE` grades with (`sandbox.make_runner`; a
    ValueError when MODE is unknown, or bwrap is asked for by name and cannot run), and how to
    print it: its confinement's name and what that confinement lacks on this machine."""
    from patchwitness import sandbox

    chosen = sandbox.make_runner(mode)
    notes = chosen.warnings
    return chosen, chosen.name + (f" ({'; '.join(notes)})" if notes else "")


def seen_cost(cost: Cost, runner: Runner) -> Cost:
    """A cost as getrusage can see it when the test runs went through `runner`: bwrap's outer
    process never waits for the sandbox's init, so the sandboxed runs' CPU time never reaches
    RUSAGE_CHILDREN, and only the wall clock is comparable then."""
    return cost if runner.name == "none" else Cost(cost.wall, float("nan"))


def phase_seconds(verdict) -> dict[str, float]:
    """A verdict's seconds per phase, slowest first (empty when it kept no timings)."""
    phases = verdict.timings.phases if verdict.timings else {}
    return dict(sorted(phases.items(), key=lambda kv: -kv[1]))


def cores() -> int:
    return os.cpu_count() or 1


def load_note() -> str:
    """The 1-minute load average against the core count: other work on the machine skews timings
    (ratios measured in the same run less so, but only while the load holds steady)."""
    try:
        load = os.getloadavg()[0]
    except OSError:
        return "load average unknown"
    note = f"load average {load:.2f} on {cores()} cores"
    if load > cores():
        note += " -- BUSY: other processes compete for the CPU, timings are inflated"
    return note
