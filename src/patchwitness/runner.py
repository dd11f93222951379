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
from dataclasses import dataclass, field, replace
from pathlib import Path

from patchwitness.model import RunFacts

MB = 1024 * 1024

# Variables that may pass from the grader's environment to the code under grade: none of them
# carries a credential. Everything else (tokens, HOME, grader settings) is dropped.
ENV_ALLOWLIST = ("LANG", "LC_ALL", "TERM")

SYSTEM_PATH = ("/usr/local/bin", "/usr/bin", "/bin")


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


class Confinement:
    """How commands are confined. This base class confines with limits only (`--sandbox none`)."""

    name = "none"

    def wrap(self, request: Request, argv: list[str], env: dict[str, str]) -> list[str]:
        return argv

    def mechanisms(self) -> list[str]:
        return ["rlimits", "process-group-kill", "scrubbed-env"]


_confinement: Confinement = Confinement()


def confinement() -> Confinement:
    return _confinement


def set_confinement(value: Confinement) -> None:
    global _confinement
    _confinement = value


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


def _apply_limits(limits: Limits) -> None:
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


def run(request: Request, keep_bytes: int = 1 * MB) -> Result:
    """Run one command under the current confinement and return what happened. Never raises for
    anything the command does; raises OSError only when the command cannot be started at all."""
    conf = confinement()
    home = request.home or request.cwd
    env = base_environment(request, home)
    if isinstance(request.command, str):
        argv = ["/bin/sh", "-c", request.command]
    else:
        argv = list(request.command)
    pipe_r = pipe_w = None
    if request.report_pipe:
        pipe_r, pipe_w = os.pipe()
        env["PW_PROBE_FD"] = str(pipe_w)
    argv = conf.wrap(request, argv, env)
    limits = request.limits
    started = time.monotonic()
    try:
        proc = _start(request, argv, env, limits, pipe_w)
    except BaseException:
        for fd in (pipe_r, pipe_w):
            if fd is not None:
                os.close(fd)
        raise
    report = None
    if pipe_w is not None:
        os.close(pipe_w)
        report = _Capture(os.fdopen(pipe_r, "rb"), 64 * MB, 64 * MB, threading.Event())
        report.start()
    return _finish(request, proc, started, limits, conf, report, keep_bytes)


def _start(
    request: Request, argv: list[str], env: dict[str, str], limits: Limits, pass_fd: int | None
) -> subprocess.Popen:
    return subprocess.Popen(
        argv,
        cwd=str(request.cwd),
        env=env,
        stdin=subprocess.PIPE if request.stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        pass_fds=(pass_fd,) if pass_fd is not None else (),
        preexec_fn=lambda: _apply_limits(limits),
    )


def _finish(
    request: Request,
    proc: subprocess.Popen,
    started: float,
    limits: Limits,
    conf: Confinement,
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

    def watchdog() -> None:
        deadline = started + request.timeout
        while not done.is_set():
            if over.is_set():
                reason.append("output-limit")
                _kill_group(proc.pid)
                return
            if time.monotonic() >= deadline:
                reason.append("timeout")
                _kill_group(proc.pid)
                return
            done.wait(0.05)

    dog = threading.Thread(target=watchdog, daemon=True)
    dog.start()
    _, status, usage = os.wait4(proc.pid, 0)
    done.set()
    # The leader is gone; anything it left behind in its group goes too.
    _kill_group(proc.pid)
    proc.returncode = os.waitstatus_to_exitcode(status)
    out.join(5)
    err.join(5)
    dog.join(1)
    if report is not None:
        report.join(5)
    wall = time.monotonic() - started
    killed = reason[0] if reason else None
    if killed is None and proc.returncode == -signal.SIGXCPU:
        killed = "cpu-limit"
    elif killed is None and proc.returncode == -signal.SIGXFSZ:
        killed = "file-size-limit"
    return Result(
        command=request.shown(),
        returncode=proc.returncode,
        stdout=out.value(),
        stderr=err.value(),
        timed_out=killed == "timeout",
        wall_s=wall,
        cpu_s=usage.ru_utime + usage.ru_stime,
        peak_rss_kb=int(usage.ru_maxrss),
        killed_reason=killed,
        limits=[*limits.describe(), *conf.mechanisms()],
        report=report.value() if report is not None else b"",
    )


def with_limits(request: Request, **changes) -> Request:
    return replace(request, limits=replace(request.limits, **changes))


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
