"""Per-run cgroup (v1) limits: memory and process count for the whole tree of one command.

rlimits are per process (RLIMIT_AS) or per uid (RLIMIT_NPROC, which the kernel does not enforce for
root); a cgroup bounds every process a run starts, whatever it does with sessions, namespaces or
uids, and it tells afterwards whether its limit was the reason a process died. Each run gets its own
group under the grader's current one (`<controller>/<own path>/patchwitness/run-<ns>-<pid>-<n>`,
<ns> naming the grader's pid namespace), which the child joins between fork and exec, so nothing
of the run ever runs outside it. The group is emptied (frozen, killed) and removed when the run
ends.

Where the controllers are missing or not writable (not root, cgroup v2 only, a read-only
/sys/fs/cgroup), `open_run` returns a group with no controllers and the runner says so in the
facts: the limits then rest on rlimits alone.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import itertools
import os
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

MB = 1024 * 1024
ROOT = Path(os.environ.get("PATCHWITNESS_CGROUP_ROOT", "/sys/fs/cgroup"))
SUBTREE = "patchwitness"
# memory and pids are limits; freezer only makes the final kill race-free (a frozen group cannot
# fork while it is being killed); cpuacct measures the CPU time of the whole tree, which rusage
# misses for every process nobody waited for (and, under bwrap, for everything).
CONTROLLERS = ("memory", "pids", "freezer", "cpuacct")

_counter = itertools.count()


def _own_paths() -> dict[str, str]:
    """controller -> this process's cgroup path in that (v1) hierarchy."""
    paths: dict[str, str] = {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return paths
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        for name in parts[1].split(","):
            paths[name] = parts[2]
    return paths


@functools.cache
def _parents(pid: int) -> tuple[dict[str, Path], dict[str, str]]:
    """controller -> writable parent directory for run groups, and controller -> why not.

    Cached per process id: a forked pool worker asks again (its runs are named after its pid).
    """
    del pid  # only the cache key
    own = _own_paths()
    usable: dict[str, Path] = {}
    missing: dict[str, str] = {}
    for name in CONTROLLERS:
        mount = ROOT / name
        if not (mount / "cgroup.procs").exists():
            missing[name] = "controller not mounted (cgroup v1)"
            continue
        parent = mount / own.get(name, "/").lstrip("/") / SUBTREE
        try:
            parent.mkdir(exist_ok=True)
        except OSError as exc:
            missing[name] = f"cannot create {parent}: {exc.strerror}"
            continue
        if not os.access(parent / "cgroup.procs", os.W_OK):
            missing[name] = f"{parent} is not writable"
            continue
        _sweep(parent)
        usable[name] = parent
    return usable, missing


def available() -> tuple[list[str], dict[str, str]]:
    """Controllers usable for per-run groups, and why each other one is not."""
    usable, missing = _parents(os.getpid())
    return sorted(usable), dict(missing)


def _pid_namespace() -> str:
    """This process's pid namespace, so that run groups of graders in other containers (which may
    share the hierarchy, and whose pids mean nothing here) are never mistaken for ours."""
    try:
        return str(os.stat("/proc/self/ns/pid").st_ino)
    except OSError:
        return "0"


def run_prefix() -> str:
    """Names of this process's run groups start with this."""
    return f"run-{_pid_namespace()}-{os.getpid()}-"


def _sweep(parent: Path) -> None:
    """Remove run groups left by graders of this pid namespace that died (their runs are over:
    kill what is left)."""
    for child in parent.glob(f"run-{_pid_namespace()}-*"):
        try:
            owner = int(child.name.split("-")[2])
        except (IndexError, ValueError):
            continue
        if _alive(owner):
            continue
        _kill_rounds(child, 200)
        with contextlib.suppress(OSError):
            child.rmdir()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _write(path: Path, value: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, value.encode())
    finally:
        os.close(fd)


def _tasks(directory: Path) -> list[int]:
    try:
        return [int(x) for x in (directory / "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        return []


def _kill_rounds(directory: Path, rounds: int) -> bool:
    """SIGKILL whatever is in the group, again until it is empty; True when it is."""
    for _ in range(rounds):
        pids = _tasks(directory)
        if not pids:
            return True
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.002)
    return not _tasks(directory)


def _counter_value(path: Path, key: str) -> int:
    """A `key value` line of a cgroup stats file (memory.oom_control, pids.events)."""
    try:
        for line in path.read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == key:
                return int(value)
    except (OSError, ValueError):
        pass
    return 0


@dataclass
class RunGroup:
    """The cgroups of one run. Empty `dirs` means no cgroup limits are in force."""

    dirs: dict[str, Path] = field(default_factory=dict)
    memory_mb: int | None = None
    processes: int | None = None
    missing: dict[str, str] = field(default_factory=dict)
    _procs_files: tuple[bytes, ...] = ()

    def join(self) -> None:
        """Runs in the child between fork and exec: move this process into every group.

        Raising here makes the start fail; a run never proceeds outside the limits it reports.
        """
        pid = str(os.getpid()).encode()
        for path in self._procs_files:
            fd = os.open(path, os.O_WRONLY)
            try:
                os.write(fd, pid)
            finally:
                os.close(fd)

    def mechanisms(self) -> list[str]:
        out = []
        if "memory" in self.dirs:
            out.append(f"cgroup-memory={self.memory_mb}MB")
        if "pids" in self.dirs:
            out.append(f"cgroup-pids={self.processes}")
        if "freezer" in self.dirs:
            out.append("cgroup-freezer-kill")
        if "cpuacct" in self.dirs:
            out.append("cpu-accounting=cgroup")
        if self.memory_mb and "memory" not in self.dirs:
            out.append(f"no-cgroup-memory({self.missing.get('memory', 'unavailable')})")
        if self.processes and "pids" not in self.dirs:
            out.append(f"no-cgroup-pids({self.missing.get('pids', 'unavailable')})")
        return out

    def tasks(self) -> list[int]:
        for name in ("pids", "memory", "freezer"):
            if name in self.dirs:
                return _tasks(self.dirs[name])
        return []

    def kill(self) -> None:
        """Kill every process left in the run, including ones that left the process group."""
        if not self.dirs:
            return
        target = self.dirs.get("freezer") or next(iter(self.dirs.values()))
        if _kill_rounds(target, 20):
            return
        # Still forking faster than it dies (a fork bomb): freeze the group, so the list read is
        # the whole group, kill it, and thaw it so the signals are delivered.
        freezer = self.dirs.get("freezer")
        if freezer is not None and self._freeze(freezer):
            for pid in _tasks(freezer):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                _write(freezer / "freezer.state", "THAWED")
        for directory in self.dirs.values():
            _kill_rounds(directory, 200)

    @staticmethod
    def _freeze(freezer: Path) -> bool:
        try:
            _write(freezer / "freezer.state", "FROZEN")
        except OSError:
            return False
        deadline = time.monotonic() + 0.5
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError):
                if (freezer / "freezer.state").read_text().strip() == "FROZEN":
                    return True
            time.sleep(0.002)
        return True  # partially frozen is still better than not: kill and thaw anyway

    def oom_killed(self) -> bool:
        memory = self.dirs.get("memory")
        return memory is not None and _counter_value(memory / "memory.oom_control", "oom_kill") > 0

    def pids_limit_hit(self) -> bool:
        pids = self.dirs.get("pids")
        return pids is not None and _counter_value(pids / "pids.events", "max") > 0

    def cpu_seconds(self) -> float | None:
        """CPU time of every process the run ever had, or None without the cpuacct group."""
        cpuacct = self.dirs.get("cpuacct")
        if cpuacct is None:
            return None
        try:
            return int((cpuacct / "cpuacct.usage").read_text()) / 1e9
        except (OSError, ValueError):
            return None

    def peak_memory_kb(self) -> int | None:
        """Peak memory charged to the run (all processes, page cache and tmpfs included)."""
        memory = self.dirs.get("memory")
        if memory is None:
            return None
        try:
            return int((memory / "memory.max_usage_in_bytes").read_text()) // 1024
        except (OSError, ValueError):
            return None

    def remove(self) -> None:
        self.kill()
        for directory in self.dirs.values():
            deadline = time.monotonic() + 2.0
            while True:
                try:
                    directory.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError as exc:
                    # EBUSY while the last killed tasks are being reaped.
                    if exc.errno != errno.EBUSY or time.monotonic() > deadline:
                        break
                    _kill_rounds(directory, 10)
                    time.sleep(0.01)
        self.dirs = {}


def open_run(memory_mb: int | None, processes: int | None) -> RunGroup:
    """Create the groups for one run, with its limits written, before the child starts."""
    usable, missing = _parents(os.getpid())
    group = RunGroup(memory_mb=memory_mb, processes=processes, missing=dict(missing))
    asked = {"memory": bool(memory_mb), "pids": bool(processes), "freezer": True, "cpuacct": True}
    wanted = [name for name in CONTROLLERS if name in usable and asked[name]]
    if not any(name in wanted for name in ("memory", "pids")):
        return group  # a freezer alone adds nothing a process group kill lacks
    run_name = f"{run_prefix()}{next(_counter)}"
    try:
        for name in wanted:
            directory = usable[name] / run_name
            directory.mkdir()
            group.dirs[name] = directory
            _limit(name, directory, memory_mb, processes)
    except OSError as exc:
        group.remove()
        # Written limits that did not take are not limits: report the whole set as missing.
        reason = f"cannot set up {run_name}: {exc.strerror or exc}"
        return RunGroup(
            memory_mb=memory_mb,
            processes=processes,
            missing={"memory": reason, "pids": reason, "freezer": reason},
        )
    group._procs_files = tuple(
        str(directory / "cgroup.procs").encode() for directory in group.dirs.values()
    )
    return group


def _limit(name: str, directory: Path, memory_mb: int | None, processes: int | None) -> None:
    if name == "memory" and memory_mb:
        limit = str(memory_mb * MB)
        _write(directory / "memory.limit_in_bytes", limit)
        # With swap accounting on, also cap memory+swap: otherwise the limit only moves pages
        # to swap and the run goes on (slowly) far past it.
        memsw = directory / "memory.memsw.limit_in_bytes"
        if memsw.exists():
            _write(memsw, limit)
    elif name == "pids" and processes:
        _write(directory / "pids.max", str(processes))
