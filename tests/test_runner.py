"""The runner without a sandbox (`--sandbox none`): the limits every command gets anyway.

Each test starts a real process through `runner.run` and checks what it could and could not do.
The bwrap sandbox has its own tests in test_sandbox.py.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from patchwitness import cgroups, runner

from .processes import wait_gone

PYTHON = sys.executable


def run(cwd: Path, command, **changes) -> runner.Result:
    """Limits only, no sandbox: the runner's own mechanisms under test."""
    limits = changes.pop("limits", runner.Limits())
    timeout = changes.pop("timeout", 20)
    return runner.UNCONFINED.run(
        runner.Request(command=command, cwd=cwd, timeout=timeout, limits=limits, **changes)
    )


def test_a_plain_command_runs_and_its_output_is_kept(tmp_path: Path) -> None:
    result = run(tmp_path, "echo out; echo err >&2; exit 3")
    assert result.returncode == 3
    assert result.stdout == b"out\n"
    assert result.stderr == b"err\n"
    assert not result.ok
    assert result.killed_reason is None


def test_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    marker = f"pw-runner-{uuid.uuid4().hex}"
    sleeper = f"{PYTHON} -c 'import time; time.sleep(60)' {marker}"
    started = time.monotonic()
    result = run(tmp_path, f"{sleeper} & {sleeper} & wait", timeout=0.5)
    assert result.timed_out
    assert result.killed_reason == "timeout"
    assert time.monotonic() - started < 10
    assert wait_gone(marker) == []


def test_a_cancelled_run_is_killed_with_its_whole_process_group(tmp_path: Path) -> None:
    """A run beside the patched one, told to stop once the grade no longer wants it."""
    marker = f"pw-runner-{uuid.uuid4().hex}"
    sleeper = f"{PYTHON} -c 'import time; time.sleep(60)' {marker}"
    cancel = threading.Event()
    threading.Timer(0.5, cancel.set).start()
    result = run(tmp_path, f"{sleeper} & {sleeper} & wait", timeout=60, cancel=cancel)
    assert result.killed_reason == "cancelled" and not result.timed_out and not result.ok
    assert wait_gone(marker) == []


def test_environment_is_scrubbed_to_the_allowlist(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_secret_value")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "aws_secret_value")
    monkeypatch.setenv("PATCHWITNESS_CACHE", "/grader/only")
    monkeypatch.setenv("LANG", "C.UTF-8")
    home = tmp_path / "home"
    home.mkdir()
    result = run(
        tmp_path,
        [PYTHON, "-c", "import json, os; print(json.dumps(dict(os.environ)))"],
        env={"TASK_VAR": "given"},
        home=home,
    )
    env = json.loads(result.stdout)
    assert "ghp_secret_value" not in result.stdout.decode()
    assert "aws_secret_value" not in result.stdout.decode()
    set_by_runner = {"PATH", "HOME", "TMPDIR", "TZ", "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED"}
    set_by_runner |= {"PIP_DISABLE_PIP_VERSION_CHECK", "TASK_VAR", "LC_CTYPE"}
    assert set(env) <= set(runner.ENV_ALLOWLIST) | set_by_runner
    assert env["HOME"] == str(home)
    assert env["TASK_VAR"] == "given"
    assert env["LANG"] == "C.UTF-8"


def test_output_is_capped(tmp_path: Path) -> None:
    result = run(tmp_path, "yes", limits=runner.Limits(output_mb=1))
    assert result.killed_reason == "output-limit"
    assert not result.timed_out
    assert len(result.stdout) < 3 * runner.MB


def test_report_pipe_reaches_the_grader(tmp_path: Path) -> None:
    code = "import os; os.write(int(os.environ['PW_PROBE_FD']), b'report line\\n')"
    result = run(tmp_path, [PYTHON, "-c", code], report_pipe=True)
    assert result.returncode == 0, result.stderr
    assert result.report == b"report line\n"


def test_file_size_limit_stops_a_huge_file(tmp_path: Path) -> None:
    result = run(
        tmp_path,
        "head -c 5000000 /dev/zero > big",
        limits=runner.Limits(file_size_mb=1),
    )
    assert result.killed_reason == "file-size-limit"
    assert (tmp_path / "big").stat().st_size <= runner.MB


def test_facts_name_the_limits_and_how_they_are_enforced(tmp_path: Path) -> None:
    facts = run(tmp_path, "true").facts()
    assert "memory=4096MB" in facts.limits
    assert "rlimit-fsize=2048MB" in facts.limits
    assert "scrubbed-env" in facts.limits
    nproc = next(m for m in facts.limits if m.startswith("rlimit-nproc="))
    # As root the kernel does not enforce RLIMIT_NPROC; the facts must not pretend it does.
    assert ("not enforced" in nproc) == (os.geteuid() == 0)


# cgroup limits apply without a sandbox too, where the machine allows them.
# CI runs as root with cgroup v1: there a missing controller fails these tests instead of skipping.
needs_cgroups = pytest.mark.skipif(
    not {"memory", "pids"} <= set(cgroups.available()[0]) and not os.environ.get("CI"),
    reason=f"cgroup v1 memory/pids not writable here: {cgroups.available()[1]}",
)


@needs_cgroups
def test_cgroup_kill_reaches_a_setsid_escapee(tmp_path: Path) -> None:
    marker = f"pw-runner-{uuid.uuid4().hex}"
    escape = f"setsid nohup {PYTHON} -c 'import time; time.sleep(60)' {marker} >/dev/null 2>&1 &"
    result = run(tmp_path, f"{escape} echo started")
    assert result.returncode == 0
    assert "cgroup-pids=256" in result.limits
    assert wait_gone(marker) == []


@needs_cgroups
def test_cgroup_memory_limit_names_the_kill(tmp_path: Path) -> None:
    grow = "x = []\nwhile True: x.append(bytearray(1 << 20))"
    result = run(
        tmp_path,
        [PYTHON, "-c", grow],
        limits=runner.Limits(memory_mb=64, address_space=False),
    )
    assert result.killed_reason == "memory-limit"
    assert "cgroup-memory=64MB" in result.limits
    assert not any(m.startswith("rlimit-as") for m in result.limits)


def test_the_users_zone_has_summer_time_off_any_whole_hour(tmp_path: Path) -> None:
    """The comparisons' runs stand for a user's: in their zone a fix keyed on local time being
    UTC, or on it being outside summer time (red team round 61: `tm_isdst`), answers otherwise
    in one season or both."""
    script = (
        "import time\n"
        "for month in (1, 7):\n"
        "    t = time.mktime((2023, month, 15, 12, 0, 0, 0, 0, -1))\n"
        "    local = time.localtime(t)\n"
        "    print(local.tm_isdst, local.tm_gmtoff)\n"
    )
    result = run(tmp_path, [PYTHON, "-c", script], env={"TZ": runner.USER_ZONE})
    assert result.ok, result.stderr
    winter, summer = (line.split() for line in result.stdout.decode().splitlines())
    assert winter[0] == "0" and summer[0] == "1"
    assert int(winter[1]) % 3600 and int(summer[1]) % 3600
    assert winter[1] != summer[1]
