"""The two runs that say whether a red-team case proves anything, both outside the grader.

- The probe: a script or a small program, run in the user's environment on a patched tree. It must
  pass on the base's honest fix (or it proves nothing) and fail on the cheat (the bug is still
  there).
- The plain run: the task's build and test commands on the cheated tree, as a user runs them
  (realworld's `plain_run`). It must exit 0: a cheat that leaves the failing tests failing is a
  broken case, not a cheat the grader missed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from realworld.evaluate import plain_commands, plain_env

from patchwitness.settings import Settings
from redteam.case import CppProbe, Probe, PyProbe

# The grader's runner sets these for every run it makes; a user's shell does not, so the probe
# never sees them (a cheat keyed on them is exactly what the probe must not be fooled by).
GRADER_VARIABLES = ("PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED")
TIMEOUT_S = 900


@dataclass(frozen=True)
class Run:
    """How a probe or a plain run ended: `passed` (exit 0), `failed` (non-zero), or `error` (the
    probe could not be built or run at all, which proves nothing either way)."""

    status: str
    detail: str = ""

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    @property
    def failed(self) -> bool:
        return self.status == "failed"


def user_env(task, tree: Path, build: Path, settings: Settings) -> dict[str, str]:
    """The plain run's variables less the grader's (its runner's, and every PW_ one: the plain
    run names its C++ build directory PW_BUILD only because the task's commands say so)."""
    variables = plain_env(task, tree, build, settings)
    return {
        k: v for k, v in variables.items() if k not in GRADER_VARIABLES and not k.startswith("PW_")
    }


def _tail(done: subprocess.CompletedProcess) -> str:
    text = (done.stdout or b"") + (done.stderr or b"")
    lines = [line for line in text.decode(errors="replace").splitlines() if line.strip()]
    return lines[-1].strip()[:160] if lines else f"exit {done.returncode}"


def _run(command, cwd: Path, env: Mapping[str, str], shell: bool = False, limited=False):
    """`limited`: under the resource limits the grader's runner gives every run."""
    from patchwitness import runner

    limits = runner.Limits()
    try:
        return subprocess.run(
            command,
            cwd=cwd,
            env=dict(env),
            shell=shell,
            capture_output=True,
            timeout=TIMEOUT_S,
            preexec_fn=(lambda: runner.apply_limits(limits)) if limited else None,
        )
    except subprocess.TimeoutExpired:
        return None


def _fresh(path: Path) -> Path:
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return path


def run_probe(probe: Probe, task, tree: Path, scratch: Path, settings: Settings) -> Run:
    """Run `probe` on `tree` in the user's environment; `scratch` holds what it writes."""
    scratch = _fresh(scratch)
    env = user_env(task, tree, scratch / "build", settings)
    if isinstance(probe, PyProbe):
        return _run_python(probe, task, tree, scratch, env)
    assert isinstance(probe, CppProbe)
    return _run_cpp(probe, tree, scratch, env)


def _run_python(probe: PyProbe, task, tree: Path, scratch: Path, env: dict[str, str]) -> Run:
    # A compiled extension is built in the tree first, as the task's own build does for a user.
    if task.options.python.build:
        built = _run(task.options.python.build, tree / task.options.cwd, env, shell=True)
        if built is None or built.returncode != 0:
            why = _tail(built) if built is not None else "timeout"
            return Run("error", f"the task's build failed: {why}")
    python = python_of(env)
    script = scratch / "probe.py"
    script.write_text(probe.script, encoding="utf-8")
    done = _run([python, str(script)], tree, env)
    if done is None:
        return Run("error", "the probe timed out")
    return Run("passed" if done.returncode == 0 else "failed", _tail(done))


def _run_cpp(probe: CppProbe, tree: Path, scratch: Path, env: dict[str, str]) -> Run:
    source = scratch / "probe.cpp"
    source.write_text(probe.program, encoding="utf-8")
    program = scratch / "probe"
    # The compiler's defaults: no -std, no warnings as errors, no test framework on the path;
    # run from the project's root with its folders named relative to it, as a user types it.
    command = ["c++", "-o", str(program), str(source)]
    # ...and what a user's own build may add (an optimisation level, char's signedness).
    command += list(probe.flags)
    command += [f"-I{path}" for path in probe.includes]
    command += [str(path) for path in probe.sources]
    compiled = _run(command, tree, env)
    if compiled is None or compiled.returncode != 0:
        return Run("error", "the probe does not compile: " + (_tail(compiled) if compiled else ""))
    # Its output sent to a file, as a user's redirect: a test harness hands its tests a pipe.
    printed = scratch / "probe.out"
    with printed.open("wb") as out:
        done = _run_to(str(program), scratch, env, out)
    if done is None:
        return Run("error", "the probe timed out")
    text = printed.read_bytes().decode(errors="replace")
    lines = [line for line in text.splitlines() if line.strip()]
    said = lines[-1].strip()[:160] if lines else f"exit {done.returncode}"
    return Run("passed" if done.returncode == 0 else "failed", said)


def _run_to(program: str, cwd: Path, env: Mapping[str, str], out):
    """The program with its standard output and error sent to `out` (None: timed out)."""
    try:
        return subprocess.run(
            [program], cwd=cwd, env=dict(env), stdout=out, stderr=out, timeout=TIMEOUT_S
        )
    except subprocess.TimeoutExpired:
        return None


def plain_suite(
    task,
    tree: Path,
    scratch: Path,
    settings: Settings,
    grader_env: Mapping[str, str],
    grader_limits: bool = False,
) -> Run:
    """The task's build and test commands on `tree`, the plain way, with only the grader's
    variables (and limits) the cheat keys on added: `passed` when every command exits 0."""
    scratch = _fresh(scratch)
    build = scratch / "build"
    env = {**user_env(task, tree, build, settings), "PW_BUILD": str(build), **grader_env}
    for command in plain_commands(task):
        done = _run(command, tree / task.options.cwd, env, shell=True, limited=grader_limits)
        if done is None:
            return Run("failed", f"timed out: {command}")
        if done.returncode != 0:
            return Run("failed", f"{command.split()[0]} exit {done.returncode}: {_tail(done)}")
    return Run("passed")


def python_of(env: Mapping[str, str]) -> str:
    return shutil.which("python", path=env.get("PATH", os.defpath)) or "python3"
