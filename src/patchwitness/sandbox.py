"""Choosing the confinement for the code under grade (`--sandbox auto|bwrap|none`).

`bwrap` runs every command in a bubblewrap sandbox built from nothing: the system directories
read-only, a private /tmp, /proc and /dev, and only the paths the request names (its writable and
readable lists, its cwd, home and PATH entries, the interpreter) bound at their own paths. It has
no network but loopback unless the request asks for it, its own pid, ipc and uts namespaces, and it
dies with the grader. Run as root, bwrap keeps no user namespace (in which root's RLIMIT_NPROC is
not enforced) and the command drops to an unprivileged uid of its own with `setpriv`, after the
writable directories were handed over to that uid.

`none` runs commands with limits only. `auto` is bwrap when a probe run of it works, else none
with a loud warning kept in the confinement's warnings (and in the verdict's fingerprint).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from patchwitness import cgroups, runner

# Shown when bwrap is missing; the CLI prints it for `--sandbox bwrap`.
NOT_INSTALLED = "bubblewrap is not installed; apt-get install bubblewrap, or --sandbox none"

# Read-only system directories. Merged-/usr systems have some of the top-level ones as symlinks
# into /usr; those are recreated as symlinks so that both spellings of a path work.
SYSTEM_DIRS = ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt")

# The code under grade runs as UID_BASE + the grader's pid (or PATCHWITNESS_SANDBOX_UID): a uid no
# account uses, so it owns nothing outside the directories handed to it, and one per grader process,
# so RLIMIT_NPROC (counted per uid across the machine) of one grade never starves a parallel one.
UID_BASE = 2_000_000_000
UID_ENV = "PATCHWITNESS_SANDBOX_UID"


def sandbox_uid() -> int:
    configured = os.environ.get(UID_ENV)
    if configured:
        value = int(configured)
        if value <= 0:
            raise ValueError(f"{UID_ENV} must be a positive uid, not {configured!r}")
        return value
    return UID_BASE + os.getpid()


def _is_sandbox_uid(uid: int) -> bool:
    configured = os.environ.get(UID_ENV)
    return uid >= UID_BASE or (configured is not None and configured == str(uid))


MODES = ("auto", "bwrap", "none")


def make_runner(mode: str) -> runner.Runner:
    """The runner for `--sandbox MODE` (ValueError for an unknown mode, or bwrap that cannot
    run when asked for by name)."""
    return runner.Runner(confinement(mode))


def confinement(mode: str) -> runner.Confinement:
    if mode not in MODES:
        raise ValueError(f"unknown sandbox mode {mode!r} (auto, bwrap or none)")
    warnings: list[str] = []
    conf: runner.Confinement
    if mode == "none":
        conf = runner.Confinement()
    else:
        bwrap, problem = find_bwrap()
        if bwrap is not None and problem is None:
            conf = BwrapConfinement(bwrap)
        elif mode == "bwrap":
            raise ValueError(problem)
        else:
            conf = runner.Confinement()
            warnings.append(
                f"NO SANDBOX ({problem}): the code under grade runs with resource limits only "
                "and can read this machine's files, use its network and write wherever this "
                "user can (see SECURITY.md)"
            )
    warnings.extend(_cgroup_warnings())
    conf.warnings = warnings
    return conf


def _cgroup_warnings() -> list[str]:
    usable, missing = cgroups.available()
    lost = [name for name in ("memory", "pids") if name not in usable]
    if not lost:
        return []
    why = "; ".join(f"{name}: {missing.get(name, 'unavailable')}" for name in lost)
    return [
        f"no per-run cgroup for {', '.join(lost)} ({why}): memory and process limits rest on "
        "rlimits alone (RLIMIT_AS per process, RLIMIT_NPROC per uid and not for root)"
    ]


def find_bwrap() -> tuple[str | None, str | None]:
    """bwrap's path and None when a probe run works; otherwise what is wrong with it."""
    path = shutil.which("bwrap")
    if path is None:
        return None, NOT_INSTALLED
    probe = BwrapConfinement(path)
    request = runner.Request(command=["true"], cwd=Path("/usr"), timeout=10)
    env = {"PATH": os.pathsep.join(runner.SYSTEM_PATH)}
    argv = probe.wrap(request, ["true"], env)
    try:
        done = subprocess.run(argv, capture_output=True, timeout=30, check=False, env=env)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"bubblewrap does not work here ({exc}); fix it, or --sandbox none"
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
        return None, (
            f"bubblewrap does not work here (exit {done.returncode}: {said[0][:200]}); "
            "fix it, or --sandbox none"
        )
    return path, None


def _absolute(path: Path | str) -> Path:
    return Path(os.path.abspath(path))


def _inside(path: Path, roots: Iterable[Path]) -> bool:
    return any(path == root or root in path.parents for root in roots)


def interpreter_prefixes(dirs: Iterable[Path] = ()) -> list[Path]:
    """Installations the commands' Python needs: the grader's base interpreter, and the base of
    every virtual environment among `dirs` (a venv's python is a symlink into its base prefix,
    which for pyenv lives under the grader's home, outside /usr)."""
    prefixes = [Path(sys.base_prefix)]
    for directory in dirs:
        home = _venv_home(directory)
        if home is not None:
            prefixes.append(home.parent)
    out: list[Path] = []
    for prefix in prefixes:
        for spelling in (_absolute(prefix), prefix.resolve()):
            if spelling not in out and _is_python_install(spelling):
                out.append(spelling)
    return out


def _venv_home(directory: Path) -> Path | None:
    cfg = directory / "pyvenv.cfg"
    try:
        lines = cfg.read_text(errors="replace").splitlines()
    except OSError:
        return None
    for line in lines:
        key, _, value = line.partition("=")
        if key.strip() == "home" and value.strip():
            return Path(value.strip())
    return None


def _is_python_install(prefix: Path) -> bool:
    """A venv's pyvenv.cfg is written by whatever built it: bind its `home` only when that is a
    real Python installation (never `/` or a home directory that merely has a `bin`)."""
    if len(prefix.parts) < 2:
        return False
    has_python = any(prefix.glob("bin/python*"))
    has_stdlib = any(prefix.glob("lib/python*/os.py")) or any(prefix.glob("lib*/python*/os.py"))
    return prefix.is_dir() and has_python and has_stdlib


@dataclass
class View:
    """The host paths a run may see, each at its own path."""

    writable: list[Path]
    readable: list[Path]
    refused: list[Path]  # listed, but a symlink leads elsewhere: not bound at all


def _visible(request: runner.Request) -> View:
    """What the request may see.

    Besides the lists, what the command is told to use must exist for it: its cwd and home, the
    PATH entries it was given (a venv's bin needs the whole venv) and the interpreters behind them.
    Those are read-only unless listed writable.

    A listed path that resolves elsewhere is refused: bwrap would bind the symlink's target, and a
    symlink can have been planted by an earlier run (`build -> /etc` in a worktree would otherwise
    become a writable /etc, handed over to the sandbox's uid).
    """
    refused: list[Path] = []

    def checked(paths: Iterable[Path | str]) -> list[Path]:
        out = []
        for path in map(_absolute, paths):
            if os.path.lexists(path) and path.resolve() != path:
                refused.append(path)
            else:
                out.append(path)
        return out

    writable = checked(request.writable)
    readable = checked(request.readable)
    implied = [_absolute(request.cwd)]
    if request.home is not None:
        implied.append(_absolute(request.home))
    for entry in request.path_prepend:
        bin_dir = _absolute(entry)
        venv = bin_dir.parent if (bin_dir.parent / "pyvenv.cfg").is_file() else None
        implied.append(venv or bin_dir)
    shown = [*writable, *readable, *_system_roots()]
    # never the whole root: a command that runs in / sees the system dirs only
    implied = [p for p in implied if p != Path("/") and not _inside(p, shown)]
    readable += checked(implied)
    venvs = [p for p in readable if (p / "pyvenv.cfg").is_file()]
    # The interpreters are the grader's own (or checked real installations): both spellings of a
    # symlinked prefix are bound, so a venv's python link resolves.
    for prefix in interpreter_prefixes(venvs):
        if not _inside(prefix, [*writable, *readable, *_system_roots()]):
            readable.append(prefix)
    return View(
        list(dict.fromkeys(writable)), list(dict.fromkeys(readable)), list(dict.fromkeys(refused))
    )


def _system_roots() -> list[Path]:
    return [Path(d) for d in SYSTEM_DIRS if os.path.lexists(d)]


def _system_args() -> list[str]:
    args: list[str] = []
    for directory in SYSTEM_DIRS:
        if os.path.islink(directory):
            args += ["--symlink", os.readlink(directory), directory]
        elif os.path.isdir(directory):
            args += ["--ro-bind", directory, directory]
    return args


def _resolv_conf_args() -> list[str]:
    """With network, /etc/resolv.conf must resolve; some systems point it into /run."""
    target = Path("/etc/resolv.conf")
    if not target.is_symlink():
        return []
    real = target.resolve()
    if _inside(real, _system_roots()) or not real.exists():
        return []
    return ["--ro-bind", str(real), str(real)]


def _bind_args(writable: Sequence[Path], readable: Sequence[Path]) -> list[str]:
    """Binds ordered parents first, so a read-only path inside a writable one stays read-only
    (and the other way round); for the same path read-only wins.

    bwrap makes missing parents of a bind mode 0700 (root's), which the unprivileged uid cannot
    cross; they are made first, 0755 and empty, so only the bound paths are there to see.
    """
    binds = [(p, "--bind-try") for p in writable] + [(p, "--ro-bind-try") for p in readable]
    binds.sort(key=lambda b: (len(b[0].parts), b[1] == "--ro-bind-try"))
    made = {Path("/"), *(Path(d) for d in ("/tmp", "/dev", "/proc"))}
    bound: list[Path] = []
    args: list[str] = []
    for path, option in binds:
        for parent in reversed(path.parents):
            if parent in made or _inside(parent, [*bound, *_system_roots()]):
                continue
            args += ["--perms", "0755", "--dir", str(parent)]
            made.add(parent)
        args += [option, str(path), str(path)]
        bound.append(path)
    return args


class BwrapConfinement(runner.Confinement):
    """bubblewrap, with an unprivileged uid when the grader is root."""

    name = "bwrap"

    def __init__(self, bwrap: str, warnings: Sequence[str] = ()) -> None:
        super().__init__(warnings)
        self.bwrap = bwrap
        self.setpriv = shutil.which("setpriv", path="/usr/bin:/bin:/usr/sbin:/sbin")
        self.privileged = os.geteuid() == 0

    def uid(self) -> int:
        """The uid the code under grade runs as."""
        if self.privileged and self.setpriv:
            return sandbox_uid()
        return os.geteuid()  # unprivileged bwrap: our own uid, in a user namespace

    def launch(
        self, request: runner.Request, argv: list[str], env: dict[str, str]
    ) -> runner.Launch:
        uid = self.uid()
        if uid != os.geteuid():
            hand_over(_visible(request).writable, uid)
        return runner.Launch(
            self.wrap(request, argv, env), self.mechanisms(request), uid, rusage_covers_tree=False
        )

    def wrap(self, request: runner.Request, argv: list[str], env: dict[str, str]) -> list[str]:
        view = _visible(request)
        tmp_size = (
            ["--size", str(request.limits.tmp_mb * runner.MB)] if request.limits.tmp_mb else []
        )
        args = [self.bwrap, *_system_args()]
        args += ["--proc", "/proc", "--dev", "/dev"]
        # Fresh tmpfs for /tmp and /dev/shm (multiprocessing needs it), world-writable with the
        # sticky bit as usual; their pages count against the run's memory cgroup as well.
        args += ["--perms", "1777", *tmp_size, "--tmpfs", "/dev/shm"]
        args += ["--perms", "1777", *tmp_size, "--tmpfs", "/tmp"]
        for name in request.tmp_dirs:
            args += ["--perms", "1777", "--dir", f"/tmp/{name}"]
        args += _bind_args(view.writable, view.readable)
        if request.network:
            args += _resolv_conf_args()
        else:
            args += ["--unshare-net"]
        args += ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
        args += ["--hostname", request.hostname, "--die-with-parent", "--new-session"]
        if not self.privileged:
            args += ["--unshare-user"]
        elif not self.setpriv:
            args += ["--cap-drop", "ALL"]  # no way to change uid: at least no capabilities
        args += ["--chdir", str(_absolute(request.cwd)), "--clearenv"]
        for key, value in env.items():
            args += ["--setenv", key, value]
        args.append("--")
        args += self._drop_privileges()
        return args + argv

    def _drop_privileges(self) -> list[str]:
        if not (self.privileged and self.setpriv):
            return []
        uid = sandbox_uid()
        # No supplementary groups, no capabilities to keep or regain, and no setuid binary
        # (sudo, su, mount) can raise them again.
        return [
            self.setpriv,
            f"--reuid={uid}",
            f"--regid={uid}",
            "--clear-groups",
            "--inh-caps=-all",
            "--bounding-set=-all",
            "--no-new-privs",
            "--",
        ]

    def mechanisms(self, request: runner.Request | None = None) -> list[str]:
        request = request or runner.Request(command="true", cwd=Path("/"), timeout=1)
        out = ["bwrap", "ro-system"]
        out.append("netns:host" if request.network else "netns:loopback-only")
        out += ["pidns", "ipcns", "utsns", "die-with-parent", "new-session", "clearenv"]
        if request.limits.tmp_mb:
            out.append(f"private-tmp={request.limits.tmp_mb}MB")
        if self.privileged and self.setpriv:
            out += [f"uid={sandbox_uid()}", "no-caps", "no-new-privs"]
        elif self.privileged:
            out += ["uid=0(no setpriv)", "no-caps"]
        else:
            out += [f"uid={os.geteuid()}", "userns"]
        out += ["process-group-kill"]
        out += [f"refused-symlinked-path={path}" for path in _visible(request).refused]
        return out


def hand_over(paths: Iterable[Path], uid: int) -> None:
    """Make the writable directories the sandbox uid's, so the code (which is not root) can write
    there and nowhere else.

    Walks without following symlinks and stays on each directory's own filesystem. A regular file
    with more than one link is left alone unless a sandbox uid already owns it: a hard link made
    in the tree (say, by a `--sandbox none` run, as root) must not make a system file the
    sandbox's. The grader stays root and can read and remove everything afterwards.
    """
    for top in paths:
        try:
            top_stat = os.lstat(top)
        except OSError:
            continue
        _own(str(top), top_stat, uid)
        if not stat.S_ISDIR(top_stat.st_mode):
            continue
        for dirpath, dirnames, filenames in os.walk(top):
            for name in [*dirnames, *filenames]:
                path = os.path.join(dirpath, name)
                try:
                    st = os.lstat(path)
                except OSError:
                    continue
                if st.st_dev != top_stat.st_dev:
                    if name in dirnames:
                        dirnames.remove(name)
                    continue
                _own(path, st, uid)


def _own(path: str, st: os.stat_result, uid: int) -> None:
    if st.st_uid == uid and st.st_gid == uid:
        return
    if stat.S_ISREG(st.st_mode) and st.st_nlink > 1 and not _is_sandbox_uid(st.st_uid):
        return
    # Gone meanwhile, or on a read-only mount: the command will find out.
    with contextlib.suppress(OSError):
        os.lchown(path, uid, uid)
