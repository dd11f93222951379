"""The task's test environment: built once per (SHA, setup command), reused by every later grade.

The setup command (for example `python3 -m venv "$PW_ENV" && "$PW_ENV/bin/pip" install pytest`)
runs at the locked SHA, in a checkout kept beside the environment, with `$PW_ENV` naming the
directory it should fill. Grades then see that directory read-only, with `$PW_ENV/bin` first on
PATH. The cache key is the SHA and the command (or, when task.toml lists `setup_depends_on`, the
content of those files instead of the SHA), never a path.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

from patchwitness import failure_log, history, locks
from patchwitness.cachedir import cache_root
from patchwitness.errors import FailedAtSha, ToolError
from patchwitness.runner import UNCONFINED, Limits, Request, Runner
from patchwitness.task import Task
from patchwitness.workspace import show_at

COMPLETE = "complete.json"
# The whole log of a setup that failed, beside the environment it did not build (failure_log.py).
SETUP_LOG = "setup.log"
# Bumped when an environment built by an older grader cannot serve (2: the setup's checkout
# stays where the setup ran).
LAYOUT = 2

VERSION_PROBE = r"""
import json, platform, sys
info = {"python": platform.python_version(), "implementation": platform.python_implementation(),
        "executable": sys.executable}
try:
    import pytest
    info["pytest"] = pytest.__version__
except Exception as exc:
    info["pytest"] = None
    info["pytest_error"] = repr(exc)
plugins = set()
try:
    from importlib.metadata import entry_points
    eps = entry_points()
    group = eps.select(group="pytest11") if hasattr(eps, "select") else eps.get("pytest11", [])
    for ep in group:
        dist = getattr(ep, "dist", None)
        plugins.add(f"{dist.name}=={dist.version}" if dist else ep.value)
except Exception:
    pass
info["plugins"] = sorted(plugins)
# What a test run of this interpreter sees besides the tree (the run's surface): the entry-point
# plugins pytest would load, the standard library's module names, and the top-level names the
# installed packages provide. A module of the patch that takes one of those names shadows it.
surface = {"entry_points": [], "stdlib": [], "installed": [], "ep_by_name": False}
try:
    surface["entry_points"] = sorted([ep.name, ep.value] for ep in group)
    import inspect
    from _pytest.config import PytestPluginManager
    params = inspect.signature(PytestPluginManager.import_plugin).parameters
    surface["ep_by_name"] = "consider_entry_points" in params
except Exception:
    pass
surface["stdlib"] = sorted(getattr(sys, "stdlib_module_names", sys.builtin_module_names))
try:
    import pkgutil, site
    roots = [p for p in sys.path if p and ("site-packages" in p or "dist-packages" in p)]
    surface["installed"] = sorted({m.name for m in pkgutil.iter_modules(roots)})
except Exception:
    pass
info["surface"] = surface
print(json.dumps(info))
"""


def base_python_bin() -> str:
    """The bin directory of the interpreter patchwitness runs on (its base install, not a venv).

    Shims such as pyenv's live outside /usr and need their own machinery; the real interpreter
    directory does not.
    """
    return str(Path(sys.base_prefix) / "bin")


@dataclass(frozen=True)
class EnvSurface:
    """What a test run in this environment sees besides the tree: pytest's entry-point plugins
    (name, value), the standard library's module names, the installed top-level names."""

    entry_points: tuple[tuple[str, str], ...] = ()
    stdlib: frozenset[str] = frozenset()
    installed: frozenset[str] = frozenset()
    # pytest loads a plugin named by `-p` by its entry point's name (pytest 8.4 on).
    ep_by_name: bool = False

    @classmethod
    def of(cls, data: dict) -> EnvSurface:
        return cls(
            entry_points=tuple((str(n), str(v)) for n, v in data.get("entry_points", [])),
            stdlib=frozenset(data.get("stdlib", [])),
            installed=frozenset(data.get("installed", [])),
            ep_by_name=bool(data.get("ep_by_name", False)),
        )

    def plugin_variables(self) -> dict[str, str] | None:
        """The variables that load exactly this environment's entry-point plugins and no other
        (a `*.dist-info` the patch adds to the tree names no plugin then): autoload off, and
        each plugin named, by its entry point's name where pytest reads one after `-p` (as a
        user's `-p no:NAME` then still blocks it), else by its module in PYTEST_PLUGINS. None
        when they cannot be named so (an old pytest and a plugin that is an object)."""
        out = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
        if self.ep_by_name:
            names = sorted(dict.fromkeys(name for name, _ in self.entry_points))
            if names:
                out["PYTEST_ADDOPTS"] = " ".join(f"-p {name}" for name in names)
        elif all(":" not in value for _, value in self.entry_points):
            names = sorted(dict.fromkeys(value for _, value in self.entry_points))
            if names:
                out["PYTEST_PLUGINS"] = ",".join(names)
        else:
            return None
        return out


@dataclass
class Environment:
    key: str
    path: Path | None
    source: Path | None = None
    versions: dict = field(default_factory=dict)
    setup_log: str = ""
    surface: EnvSurface = field(default_factory=EnvSurface)
    # The task's history store (history.py), when its checkouts borrow from one: runs read it.
    history: list[Path] = field(default_factory=list)

    @property
    def bin_dirs(self) -> list[str]:
        dirs = []
        if self.path is not None and (self.path / "bin").is_dir():
            dirs.append(str(self.path / "bin"))
        dirs.append(base_python_bin())
        return dirs

    @property
    def readable(self) -> list[Path]:
        return [p for p in (self.path, self.source, *self.history) if p is not None]


def env_key(task: Task) -> str:
    digest = hashlib.sha256()
    digest.update(f"layout {LAYOUT}\0".encode())
    digest.update((task.options.setup or "").encode())
    digest.update(b"\0")
    depends = task.options.setup_depends_on
    if depends is not None:
        for rel in sorted(depends):
            digest.update(rel.encode() + b"\0")
            digest.update(show_at(task.repo, task.sha, rel) or b"<missing>")
            digest.update(b"\0")
    elif task.options.setup:
        # A setup reads the tree as it likes: every commit has its own environment. Without one
        # nothing of the tree goes in, and the commits of a repository share it (warm.py).
        digest.update(task.sha.encode())
    digest.update(base_python_bin().encode())
    # A setup that ran without the history (say, before the task had a store) built another
    # environment: a version read from git differs.
    digest.update(b"history" if history.wanted(task) else b"no-history")
    return digest.hexdigest()[:24]


def prepare(task: Task, runner: Runner = UNCONFINED, cache: Path | None = None) -> Environment:
    """Return the task's environment, building it first (through `runner`, into `cache`) if no
    grade has yet."""
    cache = cache or cache_root()
    key = env_key(task)
    if not task.options.setup:
        versions, surface = probe_versions(None, runner, cache)
        return Environment(
            key=key,
            path=None,
            versions=versions,
            history=history.readable(task, cache),
            surface=surface,
        )
    home = cache / "envs" / key
    home.mkdir(parents=True, exist_ok=True)
    with locks.held(home / "lock"):
        done = home / COMPLETE
        if done.exists():
            meta = json.loads(done.read_text())
            env = Environment(
                key=key,
                path=home / "env",
                source=Path(meta.get("source", home / "src")),
                versions=meta.get("versions", {}),
                setup_log=meta.get("log", ""),
                history=history.readable(task, cache),
                surface=EnvSurface.of(meta.get("surface", {})),
            )
            if "surface" not in meta:  # kept by an older grader: read it once now
                env.versions, env.surface = probe_versions(env, runner, cache)
                meta.update(versions=env.versions, surface=_surface_json(env.surface))
                done.write_text(json.dumps(meta))
            return env
        return _build(task, key, home, runner, cache)


def _build(task: Task, key: str, home: Path, runner: Runner, cache: Path) -> Environment:
    for stale in home.iterdir():
        if stale.is_dir():
            shutil.rmtree(stale, ignore_errors=True)
    env_dir = home / "env"
    # The setup runs in the checkout it keeps for good, at its final path: an editable install
    # records that path, and a checkout moved afterwards would leave it pointing at nothing.
    ws = history.checkout(task, cache, parent=home)
    result = runner.run(
        Request(
            command=task.options.setup or "",
            cwd=ws.repo,
            timeout=task.options.setup_timeout,
            env={"PW_ENV": str(env_dir)},
            path_prepend=[base_python_bin()],
            writable=[ws.repo, ws.home, home],
            readable=history.readable(task, cache),
            network=True,
            home=ws.home,
            limits=Limits(memory_mb=8192, processes=512, file_size_mb=4096),
        )
    )
    log = (result.stdout[-4000:] + result.stderr[-4000:]).decode("utf-8", "replace")
    failed_log = home / SETUP_LOG
    if not result.ok:
        ws.remove()
        shutil.rmtree(env_dir, ignore_errors=True)
        why = result.killed_reason or f"exit {result.returncode}"
        raise FailedAtSha(
            f"setup command failed ({why}): {setup_cause(log)}",
            log=failure_log.output_of(result),
            name=SETUP_LOG,
            fallback=failed_log,
        )
    failed_log.unlink(missing_ok=True)  # an earlier attempt's
    env = Environment(
        key=key,
        path=env_dir,
        source=ws.repo,
        setup_log=log,
        history=history.readable(task, cache),
    )
    env.versions, env.surface = probe_versions(env, runner, cache)
    meta = {
        "versions": env.versions,
        "surface": _surface_json(env.surface),
        "log": log,
        "source": str(ws.repo),
    }
    (home / COMPLETE).write_text(json.dumps(meta))
    return env


# What a failed setup's log says, and the cause to name in one line (first match wins).
SETUP_CAUSES = (
    (
        r"setuptools[-_]scm|unable to detect version|hatch[-_]vcs|vcs version",
        "the project's version comes from git and the checkout had no usable history "
        "(set history = true in task.toml)",
    ),
    (
        r"No matching distribution found|Could not find a version that satisfies",
        "a package the setup asks for is not in the reachable package index",
    ),
    (
        r"(Temporary failure in name resolution|Network is unreachable|"
        r"Failed to establish a new connection)",
        "the setup needs a network it cannot reach",
    ),
    (
        r"error: command '[^']*(gcc|g\+\+|cc|c\+\+)' failed|fatal error: [\w./]+\.h: No such file",
        "a compiled extension failed to build (a compiler or a header is missing)",
    ),
)


def setup_cause(log: str) -> str:
    """One line naming why a setup failed: a known cause, else the log's last line."""
    for pattern, cause in SETUP_CAUSES:
        if re.search(pattern, log):
            return cause
    last = log.strip().splitlines()[-1:] or [""]
    return last[0][:300]


def _surface_json(surface: EnvSurface) -> dict:
    return {
        "entry_points": [list(e) for e in surface.entry_points],
        "stdlib": sorted(surface.stdlib),
        "installed": sorted(surface.installed),
        "ep_by_name": surface.ep_by_name,
    }


def probe_versions(env: Environment | None, runner: Runner, cache: Path) -> tuple[dict, EnvSurface]:
    """Interpreter, pytest and pytest plugin versions as the test command will see them, and
    the surface a run sees besides the tree (EnvSurface)."""
    bin_dirs = env.bin_dirs if env is not None else [base_python_bin()]
    python = next(
        (
            str(Path(d) / n)
            for d in bin_dirs
            for n in ("python", "python3")
            if (Path(d) / n).exists()
        ),
        None,
    )
    if python is None:
        return {}, EnvSurface()
    scratch = cache / "scratch"
    scratch.mkdir(parents=True, exist_ok=True)
    # The setup's checkout on the import path, as a graded tree is on a run's: pytest itself may
    # import the project under test (pluggy, iniconfig).
    variables = {}
    if env is not None and env.source is not None:
        entries = [env.source, env.source / "src"]
        variables["PYTHONPATH"] = os.pathsep.join(str(e) for e in entries if e.is_dir())
    result = runner.run(
        Request(
            command=[python, "-c", VERSION_PROBE],
            cwd=scratch,
            timeout=60,
            env=variables,
            path_prepend=bin_dirs,
            home=scratch,
            readable=env.readable if env is not None else [],
        )
    )
    if not result.ok:
        raise ToolError(f"cannot read interpreter versions: {result.stderr[-300:]!r}")
    try:
        info = json.loads(result.stdout.decode().strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise ToolError("cannot read interpreter versions") from None
    return info, EnvSurface.of(info.pop("surface", {}))
