"""The one place that executes repository code.

Code under grading is hostile: it was written to pass, by any means. Every build, test, coverage
and matrix command goes through `run`, which gives it a scrubbed environment, resource limits, a
wall-clock timeout that kills the whole process tree, capped output, and (see `sandbox.py`) a
confinement that decides what of the machine it can see.

Paths are the same inside and outside the confinement: the sandbox binds the directories a command
may see at their own paths, so commands, reports and coverage data name files the grader can read.
"""

from __future__ import annotations

import contextlib
import os
import resource
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from patchwitness import cgroups

if TYPE_CHECKING:  # the runner is part of every command's settings; the models are not
    from patchwitness.model import RunFacts

MB = 1024 * 1024

# Variables that may pass from the grader's environment to the code under grade: none of them
# carries a credential. Everything else (tokens, HOME, grader settings) is dropped.
ENV_ALLOWLIST = ("LANG", "LC_ALL", "TERM")

SYSTEM_PATH = ("/usr/local/bin", "/usr/bin", "/bin")
# The variable that names the report pipe's descriptor (Request.report_pipe), and the one that
# names the report file (Request.report_file).
REPORT_FD = "PW_PROBE_FD"
REPORT_FILE = "PW_PROBE_FILE"
SANDBOX_HOSTNAME = "sandbox"


@dataclass(frozen=True)
class Limits:
    """Resource limits for one command. `None` means unlimited for that resource."""

    memory_mb: int | None = 4096
    processes: int | None = 256
    cpu_s: int | None = None
    file_size_mb: int | None = 2048
    open_files: int | None = 1024
    output_mb: int = 64
    address_space: bool = True  # off for sanitizer runs: ASan cannot start under RLIMIT_AS
    tmp_mb: int | None = 1024  # size of the sandbox's private /tmp (bwrap only; also in memory)

    def describe(self) -> list[str]:
        out = []
        if self.memory_mb:
            out.append(f"memory={self.memory_mb}MB")
        if self.processes:
            out.append(f"processes={self.processes}")
        if self.cpu_s:
            out.append(f"cpu={self.cpu_s}s")
        if self.file_size_mb:
            out.append(f"file_size={self.file_size_mb}MB")
        if self.open_files:
            out.append(f"open_files={self.open_files}")
        out.append(f"output={self.output_mb}MB")
        return out


@dataclass(frozen=True)
class Request:
    """What to run and what it may touch. Paths are host paths."""

    command: str | Sequence[str]
    cwd: Path
    timeout: float
    env: Mapping[str, str] = field(default_factory=dict)
    path_prepend: Sequence[str] = ()
    writable: Sequence[Path] = ()
    readable: Sequence[Path] = ()
    network: bool = False
    limits: Limits = field(default_factory=Limits)
    stdin: bytes | None = None
    home: Path | None = None
    report_pipe: bool = False  # give the command a pipe (fd in PW_PROBE_FD) for machine reports
    hostname: str = SANDBOX_HOSTNAME  # the machine's name a confined run sees (its own uts space)
    # Reports written to this file (named in PW_PROBE_FILE), event by event, instead of a pipe
    # the run holds open: a run with no descriptor of the grader's.
    report_file: Path | None = None
    tmp_dirs: tuple[str, ...] = ()  # folders the run's private /tmp starts with (bwrap only)
    # Once set, the run is killed as at its time limit ("cancelled"): a run started beside
    # another whose grade no longer wants its answer.
    cancel: threading.Event | None = None

    def shown(self) -> str:
        if isinstance(self.command, str):
            return self.command
        return shlex.join(self.command)


@dataclass
class Result:
    command: str
    returncode: int | None
    stdout: bytes
    stderr: bytes
    timed_out: bool
    wall_s: float
    cpu_s: float
    peak_rss_kb: int
    killed_reason: str | None
    limits: list[str]
    report: bytes = b""

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out and self.killed_reason is None

    def text(self) -> str:
        return self.stdout.decode("utf-8", "replace")

    def facts(self, tail: int = 2000) -> RunFacts:
        from patchwitness.model import RunFacts

        return RunFacts(
            command=self.command,
            returncode=self.returncode,
            timed_out=self.timed_out,
            wall_s=round(self.wall_s, 3),
            cpu_s=round(self.cpu_s, 3),
            peak_rss_kb=self.peak_rss_kb,
            stdout_tail=self.stdout[-tail:].decode("utf-8", "replace"),
            stderr_tail=self.stderr[-tail:].decode("utf-8", "replace"),
            killed_reason=self.killed_reason,
            limits=self.limits,
        )


@dataclass
class Launch:
    """How one run is started: the command line and what confines it."""

    argv: list[str]
    mechanisms: list[str]
    uid: int  # the uid the code under grade runs as (RLIMIT_NPROC means nothing for 0)
    # Whether wait4 on the started process sees the tree's resource use. bwrap's outer process
    # never waits for the sandbox's init, so its rusage is bwrap's own.
    rusage_covers_tree: bool = True


class Confinement:
    """How commands are confined. This base class confines with limits only (`--sandbox none`)."""

    name = "none"

    def __init__(self, warnings: Sequence[str] = ()) -> None:
        # Said in the output and in the verdict's fingerprint: what this confinement lacks here.
        self.warnings = list(warnings)

    def wrap(self, request: Request, argv: list[str], env: dict[str, str]) -> list[str]:
        return argv

    def mechanisms(self, request: Request | None = None) -> list[str]:
        return ["process-group-kill", "scrubbed-env"]

    def launch(self, request: Request, argv: list[str], env: dict[str, str]) -> Launch:
        """Prepare one run (a sandbox may hand directories to its uid); say how it starts."""
        return Launch(self.wrap(request, argv, env), self.mechanisms(request), os.geteuid())


class Runner:
    """The one runner: every command that runs repository code goes through `run`, under this
    runner's confinement. It is chosen once (`sandbox.make_runner`) and handed down in the grade's
    settings; nothing sets it behind the grade's back."""

    def __init__(self, confinement: Confinement | None = None) -> None:
        self.confinement = confinement or Confinement()

    @property
    def name(self) -> str:
        return self.confinement.name

    @property
    def warnings(self) -> list[str]:
        return list(self.confinement.warnings)

    def run(self, request: Request, keep_bytes: int = 1 * MB) -> Result:
        return run(request, self.confinement, keep_bytes)


# Limits only: the runner of a caller that chose no sandbox (and of unit tests).
UNCONFINED = Runner()


def _read_report(path: Path) -> bytes:
    try:
        with open(path, "rb") as report:
            return report.read(64 * MB)
    except OSError:
        return b""


def grader_variables() -> set[str]:
    """The names of the variables `base_environment` gives every run."""
    return set(base_environment(Request(command="true", cwd=Path("/"), timeout=1), Path("/")))


# The local zone of the runs that stand for a user's (the reference comparisons' calls and
# programs): not the tests' UTC, half an hour off any whole hour, and with summer time from
# the last Sunday of March to the last of October, +06:30 then and +05:30 otherwise. A POSIX
# rule: no zone file needed. A fix right only where local time is UTC (red team round 19), or
# only outside summer time (round 61: `localtime(s).tm_isdst`), answers otherwise there.
USER_ZONE = "PWT-5:30PWS,M3.5.0,M10.5.0/3"


def base_environment(request: Request, home: Path) -> dict[str, str]:
    env = {k: os.environ[k] for k in ENV_ALLOWLIST if k in os.environ}
    env.setdefault("LANG", "C.UTF-8")
    path = [*request.path_prepend, *SYSTEM_PATH]
    env.update(
        {
            "PATH": os.pathsep.join(dict.fromkeys(path)),
            "HOME": str(home),
            "TMPDIR": str(home),
            "TZ": "UTC",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONHASHSEED": "0",
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        }
    )
    env.update(request.env)
    return env


def apply_limits(limits: Limits) -> None:
    """Runs in the child between fork and exec."""

    def cap(which: int, value: int) -> None:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(which, (value, value))

    cap(resource.RLIMIT_CORE, 0)
    if limits.memory_mb and limits.address_space:
        cap(resource.RLIMIT_AS, limits.memory_mb * MB)
    if limits.processes:
        cap(resource.RLIMIT_NPROC, limits.processes)
    if limits.cpu_s:
        cap(resource.RLIMIT_CPU, limits.cpu_s)
    if limits.file_size_mb:
        cap(resource.RLIMIT_FSIZE, limits.file_size_mb * MB)
    if limits.open_files:
        cap(resource.RLIMIT_NOFILE, limits.open_files)


def rlimit_mechanisms(limits: Limits, uid: int) -> list[str]:
    """The rlimits a run gets, as they are enforced for the uid its code runs as."""
    out = []
    if limits.memory_mb and limits.address_space:
        out.append(f"rlimit-as={limits.memory_mb}MB")
    if limits.processes:
        # The kernel does not apply RLIMIT_NPROC to root (CAP_SYS_RESOURCE / CAP_SYS_ADMIN).
        enforced = "" if uid != 0 else "(not enforced: uid 0)"
        out.append(f"rlimit-nproc={limits.processes}{enforced}")
    if limits.cpu_s:
        out.append(f"rlimit-cpu={limits.cpu_s}s")
    if limits.file_size_mb:
        out.append(f"rlimit-fsize={limits.file_size_mb}MB")
    if limits.open_files:
        out.append(f"rlimit-nofile={limits.open_files}")
    return out


class _Capture(threading.Thread):
    """Drains a pipe, keeping the first and last `keep` bytes; signals when `limit` is passed."""

    def __init__(self, stream, keep: int, limit: int, over: threading.Event) -> None:
        super().__init__(daemon=True)
        self.stream, self.keep, self.limit, self.over = stream, keep, limit, over
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def run(self) -> None:
        while chunk := self.stream.read1(65536):
            self.total += len(chunk)
            if len(self.head) < self.keep:
                self.head += chunk[: self.keep - len(self.head)]
            self.tail += chunk
            if len(self.tail) > self.keep:
                del self.tail[: len(self.tail) - self.keep]
            if self.total > self.limit:
                self.over.set()

    def value(self) -> bytes:
        if self.total <= self.keep:
            return bytes(self.head)
        overlap = len(self.head) + len(self.tail) - self.total
        if overlap >= 0:
            return bytes(self.head) + bytes(self.tail[overlap:])
        return bytes(self.head) + f"\n[... {-overlap} bytes dropped ...]\n".encode() + self.tail


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def run(request: Request, conf: Confinement, keep_bytes: int = 1 * MB) -> Result:
    """Run one command under `conf` and return what happened. Never raises for anything the
    command does; raises OSError only when the command cannot be started at all."""
    home = request.home or request.cwd
    env = base_environment(request, home)
    if isinstance(request.command, str):
        argv = ["/bin/sh", "-c", request.command]
    else:
        argv = list(request.command)
    pipe_r = pipe_w = None
    if request.report_pipe:
        pipe_r, pipe_w = os.pipe()
        env[REPORT_FD] = str(pipe_w)
    if request.report_file is not None:
        env[REPORT_FILE] = str(request.report_file)
    limits = request.limits
    launch = conf.launch(request, argv, env)
    group = cgroups.open_run(limits.memory_mb, limits.processes)
    started = time.monotonic()
    try:
        proc = _start(request, launch.argv, env, limits, pipe_w, group)
    except BaseException:
        group.remove()
        for fd in (pipe_r, pipe_w):
            if fd is not None:
                os.close(fd)
        raise
    report = None
    if pipe_w is not None:
        os.close(pipe_w)
        report = _Capture(os.fdopen(pipe_r, "rb"), 64 * MB, 64 * MB, threading.Event())
        report.start()
    mechanisms = [
        *launch.mechanisms,
        *rlimit_mechanisms(limits, launch.uid),
        *group.mechanisms(),
    ]
    if not launch.rusage_covers_tree and group.peak_memory_kb() is not None:
        mechanisms.append("peak-memory=cgroup")
    try:
        result = _finish(request, proc, started, limits, mechanisms, group, report, keep_bytes)
        _account(result, launch, group)
        if request.report_file is not None:
            result.report = _read_report(request.report_file)
        return result
    finally:
        group.remove()


def _account(result: Result, launch: Launch, group: cgroups.RunGroup) -> None:
    """Prefer the cgroup's figures where they see more than wait4 does."""
    cpu = group.cpu_seconds()
    if cpu is not None:
        result.cpu_s = max(result.cpu_s, cpu)
    peak = group.peak_memory_kb()
    if not launch.rusage_covers_tree and peak is not None:
        result.peak_rss_kb = peak


def _start(
    request: Request,
    argv: list[str],
    env: dict[str, str],
    limits: Limits,
    pass_fd: int | None,
    group: cgroups.RunGroup,
) -> subprocess.Popen:
    def child_setup() -> None:
        # Join the run's cgroups before exec: nothing the command starts is ever outside them.
        group.join()
        apply_limits(limits)

    return subprocess.Popen(
        argv,
        cwd=str(request.cwd),
        env=env,
        stdin=subprocess.PIPE if request.stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        pass_fds=(pass_fd,) if pass_fd is not None else (),
        preexec_fn=child_setup,
    )


def _finish(
    request: Request,
    proc: subprocess.Popen,
    started: float,
    limits: Limits,
    mechanisms: list[str],
    group: cgroups.RunGroup,
    report: _Capture | None,
    keep_bytes: int,
) -> Result:
    over = threading.Event()
    limit = limits.output_mb * MB
    out = _Capture(proc.stdout, keep_bytes, limit, over)
    err = _Capture(proc.stderr, keep_bytes, limit, over)
    out.start()
    err.start()
    if request.stdin is not None and proc.stdin is not None:
        try:
            proc.stdin.write(request.stdin)
            proc.stdin.close()
        except BrokenPipeError:
            pass

    reason: list[str] = []
    done = threading.Event()

    def kill_all() -> None:
        _kill_group(proc.pid)
        group.kill()

    def watchdog() -> None:
        deadline = started + request.timeout
        while not done.is_set():
            if over.is_set():
                reason.append("output-limit")
                kill_all()
                return
            if time.monotonic() >= deadline:
                reason.append("timeout")
                kill_all()
                return
            if request.cancel is not None and request.cancel.is_set():
                reason.append("cancelled")
                kill_all()
                return
            done.wait(0.05)

    dog = threading.Thread(target=watchdog, daemon=True)
    dog.start()
    _, status, usage = os.wait4(proc.pid, 0)
    done.set()
    # The leader is gone; anything it left behind in its group (or, with cgroups, anywhere in the
    # run, even in another session) goes too, so no pipe stays open and nothing outlives the run.
    kill_all()
    proc.returncode = os.waitstatus_to_exitcode(status)
    out.join(5)
    err.join(5)
    dog.join(1)
    if report is not None:
        report.join(5)
    wall = time.monotonic() - started
    killed = _killed_reason(reason, proc.returncode, group)
    return Result(
        command=request.shown(),
        returncode=proc.returncode,
        stdout=out.value(),
        stderr=err.value(),
        timed_out="timeout" in reason,
        wall_s=wall,
        cpu_s=usage.ru_utime + usage.ru_stime,
        peak_rss_kb=int(usage.ru_maxrss),
        killed_reason=killed,
        limits=[*limits.describe(), *mechanisms],
        report=report.value() if report is not None else b"",
    )


# A process killed by signal N shows as -N when it is the one we waited for, and as 128+N when a
# shell or the sandbox's init reported it. Either way the run failed; naming the limit is what
# matters (a program that exits 153 on purpose only names a wrong reason for its own failure).
_SIGNAL_LIMITS = {signal.SIGXCPU: "cpu-limit", signal.SIGXFSZ: "file-size-limit"}


def _killed_reason(reason: list[str], returncode: int, group: cgroups.RunGroup) -> str | None:
    watchdog = reason[0] if reason else None
    if watchdog == "output-limit":
        return watchdog
    failed = returncode != 0 or watchdog is not None
    # The cgroup's own counters say whether its limit was the cause; a run that still succeeded
    # (a child was refused a fork and coped) is not named for it.
    if failed and group.oom_killed():
        return "memory-limit"
    if failed and group.pids_limit_hit():
        return "process-limit"
    if watchdog is not None:
        return watchdog
    for sig, name in _SIGNAL_LIMITS.items():
        if returncode in (-sig, 128 + sig):
            return name
    return None


def run_tool(
    argv: Sequence[str],
    cwd: Path,
    timeout: float = 120,
    stdin: bytes | None = None,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run one of the grader's own trusted tools (git, gcov) on data it owns.

    Repository code never goes through here; only fixed programs whose inputs are files. The
    environment is still scrubbed so a grader setting cannot change their behaviour.
    """
    clean = {k: os.environ[k] for k in ("PATH", "HOME") if k in os.environ}
    clean.update(
        {
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "LC_ALL": "C",
        }
    )
    if env:
        clean.update(env)
    return subprocess.run(
        list(argv),
        cwd=str(cwd),
        input=stdin,
        capture_output=True,
        timeout=timeout,
        env=clean,
        check=False,
    )
