"""The bwrap sandbox, end to end: hostile commands through `runner.run`, and what they could not do.

Every test runs a real command in the sandbox the grader uses and checks the outcome from the
outside as well as from the inside (a file the command claims it could not write must also be
absent on the host). Paths are the same inside and out, so the tests name host paths throughout.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from patchwitness import cgroups, runner, sandbox

from .processes import wait_gone

# On a developer machine without bwrap or cgroups these tests skip, saying why; in CI (which runs
# as root with both) a missing mechanism must fail them instead of hiding them.
STRICT = bool(os.environ.get("CI"))
BWRAP, PROBLEM = sandbox.find_bwrap()
pytestmark = pytest.mark.skipif(BWRAP is None and not STRICT, reason=f"no working bwrap: {PROBLEM}")

PYTHON_BIN = str(Path(sys.base_prefix) / "bin")
CGROUPS = set(cgroups.available()[0])
needs_cgroups = pytest.mark.skipif(
    not {"memory", "pids"} <= CGROUPS and not STRICT,
    reason=f"cgroup v1 memory/pids not writable here: {cgroups.available()[1]}",
)
needs_root = pytest.mark.skipif(
    os.geteuid() != 0 and not STRICT, reason="the uid drop happens only as root"
)


@pytest.fixture
def conf() -> sandbox.BwrapConfinement:
    assert BWRAP is not None, PROBLEM
    return sandbox.BwrapConfinement(BWRAP)


class Grade:
    """A worktree and a private home, as a grade has them, and the bwrap sandbox it runs in."""

    def __init__(self, root: Path, conf: runner.Confinement) -> None:
        self.conf = conf
        self.root = root
        self.tree = root / "repo"
        self.home = root / "home"
        self.tree.mkdir(parents=True)
        self.home.mkdir()

    def run(self, command, **changes) -> runner.Result:
        limits = changes.pop("limits", runner.Limits())
        timeout = changes.pop("timeout", 20)
        changes.setdefault("writable", [self.tree, self.home])
        return runner.run(
            runner.Request(
                command=command,
                cwd=self.tree,
                home=self.home,
                timeout=timeout,
                path_prepend=[PYTHON_BIN],
                limits=limits,
                **changes,
            ),
            self.conf,
        )

    def python(self, code: str, **changes) -> runner.Result:
        return self.run(["python3", "-c", code], **changes)

    def probe(self, code: str, **changes) -> dict:
        """Run Python code that prints one JSON object; return it."""
        result = self.python(code, **changes)
        assert result.returncode == 0, result.stderr.decode()
        return json.loads(result.stdout)


@pytest.fixture
def grade(conf: sandbox.BwrapConfinement, tmp_path: Path) -> Grade:
    return Grade(tmp_path / "grade", conf)


@pytest.fixture
def planted() -> Iterator[Path]:
    """A file in the grader's real home, which nothing in the sandbox may see."""
    path = Path.home() / f".pw-sandbox-plant-{uuid.uuid4().hex}"
    path.write_text("grader secret\n")
    try:
        yield path
    finally:
        path.unlink(missing_ok=True)


# --- what the code can see -------------------------------------------------------------------


NETWORK = r"""
import errno, json, socket
out = {"interfaces": [name for _, name in socket.if_nameindex()]}
for host, port in (("1.1.1.1", 80), ("8.8.8.8", 53)):
    try:
        socket.create_connection((host, port), timeout=2).close()
        out[host] = "connected"
    except OSError as exc:
        out[host] = errno.errorcode.get(exc.errno, str(exc))
server = socket.socket()
server.bind(("127.0.0.1", 0))
server.listen()
client = socket.create_connection(server.getsockname(), timeout=2)
peer, _ = server.accept()
client.sendall(b"ping")
out["loopback"] = peer.recv(4).decode()
print(json.dumps(out))
"""


def test_outside_network_is_unreachable_and_loopback_works(grade: Grade) -> None:
    seen = grade.probe(NETWORK)
    assert seen["interfaces"] == ["lo"]
    assert seen["1.1.1.1"] != "connected"
    assert seen["8.8.8.8"] != "connected"
    assert seen["loopback"] == "ping"


def test_network_is_shared_only_when_asked(grade: Grade) -> None:
    code = "import json, socket; print(json.dumps([n for _, n in socket.if_nameindex()]))"
    shared = json.loads(grade.python(code, network=True).stdout)
    assert shared == [name for _, name in __import__("socket").if_nameindex()]
    assert "netns:host" in grade.python("pass", network=True).limits


def test_home_is_private_and_the_graders_home_is_invisible(grade: Grade, planted: Path) -> None:
    code = f"""
import json, os
home = os.environ["HOME"]
print(json.dumps({{
    "home": home,
    "home_entries": os.listdir(home),
    "tilde": os.path.expanduser("~"),
    "planted": os.path.exists({str(planted)!r}),
    "ssh": os.path.exists({str(Path.home() / ".ssh")!r}),
    "root_entries": sorted(os.listdir({str(Path.home())!r}))
        if os.path.isdir({str(Path.home())!r}) else [],
}}))
"""
    seen = grade.probe(code)
    assert seen["home"] == str(grade.home)
    assert seen["tilde"] == str(grade.home)
    assert seen["home_entries"] == []
    assert seen["planted"] is False
    assert seen["ssh"] is False
    # Only what leads to the bound interpreter (pyenv lives in root's home) may show.
    interpreter = Path(sys.base_prefix).resolve()
    allowed = {p.name for p in [interpreter, *interpreter.parents] if p.parent == Path.home()}
    assert set(seen["root_entries"]) <= allowed


def test_environment_tokens_do_not_reach_the_code(
    grade: Grade, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_sandbox_secret")
    monkeypatch.setenv("PATCHWITNESS_RESULTS", "/grader/results.sqlite")
    seen = grade.probe("import json, os; print(json.dumps(dict(os.environ)))")
    assert "GITHUB_TOKEN" not in seen
    assert "PATCHWITNESS_RESULTS" not in seen
    assert "ghp_sandbox_secret" not in json.dumps(seen)


def test_other_grades_and_the_results_database_are_invisible(grade: Grade) -> None:
    other = Path(tempfile.mkdtemp(prefix="patchwitness-"))
    results = grade.root / "results.sqlite"
    results.write_text("verdicts\n")
    try:
        (other / "repo").mkdir()
        (other / "repo" / "solution.py").write_text("secret = 1\n")
        code = f"""
import json, os
print(json.dumps({{
    "other": os.path.exists({str(other)!r}),
    "other_file": os.path.exists({str(other / "repo" / "solution.py")!r}),
    "results": os.path.exists({str(results)!r}),
    "tmp": sorted(os.listdir("/tmp")),
    "work": os.path.exists("/work"),
}}))
"""
        seen = grade.probe(code)
    finally:
        subprocess.run(["rm", "-rf", str(other)], check=False)
    assert seen["other"] is False
    assert seen["other_file"] is False
    assert seen["results"] is False
    assert not any(name.startswith("patchwitness-") for name in seen["tmp"])
    assert seen["work"] is False


def test_a_venv_in_the_readable_list_runs_inside(grade: Grade, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    base_python = str(Path(PYTHON_BIN) / "python3")
    subprocess.run([base_python, "-m", "venv", "--without-pip", str(venv)], check=True)
    result = grade.run(
        [str(venv / "bin" / "python"), "-c", "import sys; print(sys.prefix)"],
        readable=[venv],
    )
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout.decode().strip() == str(venv)
    # Read-only: the code cannot plant anything in the environment later grades use.
    write = grade.python(f"open({str(venv / 'planted')!r}, 'w')", readable=[venv])
    assert write.returncode != 0
    assert not (venv / "planted").exists()


# --- what the code can change ----------------------------------------------------------------


def test_writes_outside_the_writable_dirs_fail(grade: Grade) -> None:
    name = f"pw-sandbox-{uuid.uuid4().hex}"
    project = Path(__file__).resolve().parents[1]
    targets = [project / name, Path("/usr") / name, Path("/etc") / name, grade.root / name]
    code = f"""
import json
out = {{}}
for target in {[str(t) for t in targets]!r}:
    try:
        open(target, "w").write("x")
        out[target] = "written"
    except OSError as exc:
        out[target] = exc.strerror
open("inside.txt", "w").write("fine")
open("/tmp/{name}", "w").write("private tmp")
print(json.dumps(out))
"""
    seen = grade.probe(code)
    for target in targets:
        assert seen[str(target)] != "written", target
        assert not target.exists(), target
    assert (grade.tree / "inside.txt").read_text() == "fine"
    # The sandbox's /tmp is its own: nothing lands in the host's.
    assert not (Path("/tmp") / name).exists()


def test_deleting_git_only_affects_this_worktree(conf: sandbox.BwrapConfinement, tmp_path: Path):
    source = tmp_path / "source"
    source.mkdir()
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"]
    subprocess.run([*git, "init", "-q", str(source)], check=True)
    (source / "a.py").write_text("x = 1\n")
    subprocess.run([*git, "-C", str(source), "add", "a.py"], check=True)
    subprocess.run([*git, "-C", str(source), "commit", "-qm", "one"], check=True)
    head = subprocess.run(
        ["git", "-C", str(source), "rev-parse", "HEAD"], capture_output=True, check=True
    ).stdout
    worktrees = [Grade(tmp_path / f"grade{i}", conf) for i in range(2)]
    for g in worktrees:
        g.tree.rmdir()
        subprocess.run(["git", "clone", "-q", "--shared", str(source), str(g.tree)], check=True)
    result = worktrees[0].run("rm -rf .git; rm -rf ../../source ../../grade1; ls -a")
    assert result.returncode != 0 or b".git" not in result.stdout
    assert not (worktrees[0].tree / ".git").exists()
    assert (worktrees[1].tree / ".git").is_dir()
    fsck = subprocess.run(["git", "-C", str(source), "fsck"], capture_output=True)
    assert fsck.returncode == 0, fsck.stderr
    again = subprocess.run(
        ["git", "-C", str(source), "rev-parse", "HEAD"], capture_output=True, check=True
    ).stdout
    assert again == head


def test_a_planted_symlink_in_the_writable_list_is_not_followed(grade: Grade, tmp_path: Path):
    # An earlier run replaced a build directory the grader passes as writable by a symlink to
    # something of the grader's. bwrap would bind the target; the sandbox refuses the path.
    victim = tmp_path / "grader-owned"
    victim.mkdir()
    (victim / "keep.txt").write_text("grader data\n")
    build = grade.root / "build"
    build.symlink_to(victim)
    result = grade.run(
        f"echo changed > {build}/keep.txt; touch {build}/new",
        writable=[grade.tree, grade.home, build],
    )
    assert result.returncode != 0
    assert (victim / "keep.txt").read_text() == "grader data\n"
    assert not (victim / "new").exists()
    assert victim.stat().st_uid == os.geteuid()
    assert f"refused-symlinked-path={build}" in result.limits


@needs_root
def test_code_runs_unprivileged(grade: Grade) -> None:
    code = r"""
import json, os
status = dict(l.split(":", 1) for l in open("/proc/self/status").read().splitlines() if ":" in l)
print(json.dumps({"uid": os.getuid(), "euid": os.geteuid(), "groups": os.getgroups(),
                  "caps": status["CapEff"].strip(), "bnd": status["CapBnd"].strip(),
                  "nnp": status["NoNewPrivs"].strip()}))
"""
    seen = grade.probe(code)
    assert seen["uid"] == seen["euid"] == sandbox.sandbox_uid()
    assert seen["uid"] != 0
    assert seen["groups"] in ([], [sandbox.sandbox_uid()])
    assert int(seen["caps"], 16) == 0
    assert int(seen["bnd"], 16) == 0
    assert seen["nnp"] == "1"
    # The writable dirs were handed over; nothing else of the host was.
    assert grade.tree.stat().st_uid == sandbox.sandbox_uid()
    assert Path(PYTHON_BIN).stat().st_uid != sandbox.sandbox_uid()


def test_private_tmp_has_a_size_cap(grade: Grade) -> None:
    result = grade.run(
        "head -c 4000000 /dev/zero > /tmp/fill",
        limits=runner.Limits(tmp_mb=2),
    )
    assert result.returncode != 0
    assert b"No space left" in result.stderr
    assert "private-tmp=2MB" in result.limits


# --- limits ----------------------------------------------------------------------------------


def test_huge_stdout_hits_the_output_limit(grade: Grade) -> None:
    result = grade.run("yes", limits=runner.Limits(output_mb=1))
    assert result.killed_reason == "output-limit"
    assert len(result.stdout) < 3 * runner.MB


def test_huge_file_hits_the_file_size_limit(grade: Grade) -> None:
    result = grade.run("head -c 5000000 /dev/zero > big", limits=runner.Limits(file_size_mb=1))
    assert result.killed_reason == "file-size-limit"
    assert (grade.tree / "big").stat().st_size <= runner.MB


@pytest.mark.slow
def test_timeout_kills_setsid_and_double_forked_escapees(grade: Grade) -> None:
    marker = f"pw-sandbox-{uuid.uuid4().hex}"
    sleeper = f"python3 -c 'import time; time.sleep(60)' {marker}"
    command = (
        f"setsid nohup {sleeper} >/dev/null 2>&1 & "
        f"( ( {sleeper} & ) & ) ; "  # double fork: reparented away from this shell
        "while :; do :; done"
    )
    started = time.monotonic()
    result = grade.run(command, timeout=1.5)
    assert result.timed_out
    assert result.killed_reason == "timeout"
    assert time.monotonic() - started < 10
    assert wait_gone(marker) == []


def test_daemons_left_behind_die_when_the_command_ends(grade: Grade) -> None:
    marker = f"pw-sandbox-{uuid.uuid4().hex}"
    result = grade.run(
        f"setsid nohup python3 -c 'import time; time.sleep(60)' {marker} >/dev/null 2>&1 & echo ok"
    )
    assert result.returncode == 0
    assert wait_gone(marker) == []


@pytest.mark.slow
@needs_cgroups
def test_fork_bomb_is_contained_and_named(grade: Grade) -> None:
    started = time.monotonic()
    result = grade.run(
        "bomb() { bomb | bomb & }; bomb; sleep 30",
        limits=runner.Limits(processes=64),
        timeout=3,
    )
    # The grader stayed responsive: the run ended on time, with the reason named.
    assert time.monotonic() - started < 15
    assert result.killed_reason == "process-limit"
    assert "cgroup-pids=64" in result.limits


@pytest.mark.slow
@needs_root
def test_rlimit_nproc_holds_without_cgroups(grade: Grade, monkeypatch: pytest.MonkeyPatch) -> None:
    # Without the pids cgroup, the unprivileged uid is what makes RLIMIT_NPROC count: as root the
    # kernel ignores it and every one of these forks would succeed.
    monkeypatch.setattr(
        runner.cgroups,
        "open_run",
        lambda memory_mb, processes: cgroups.RunGroup(memory_mb=memory_mb, processes=processes),
    )
    code = r"""
import os, time
children = []
for _ in range(100):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(30)
        os._exit(0)
    children.append(pid)
print(len(children))
for pid in children:
    os.kill(pid, 9)
"""
    result = grade.python(code, limits=runner.Limits(processes=16), timeout=20)
    assert result.returncode == 0, result.stderr.decode()
    assert int(result.stdout) < 16
    assert "rlimit-nproc=16" in result.limits


@needs_cgroups
def test_unbounded_allocation_is_killed_by_the_memory_limit(grade: Grade) -> None:
    result = grade.python(
        "x = []\nwhile True: x.append(bytearray(1 << 20))",
        limits=runner.Limits(memory_mb=64, address_space=False),
        timeout=10,
    )
    assert result.killed_reason == "memory-limit"
    assert "cgroup-memory=64MB" in result.limits


# --- plumbing --------------------------------------------------------------------------------


def test_report_pipe_works_through_bwrap(grade: Grade) -> None:
    code = "import os; os.write(int(os.environ['PW_PROBE_FD']), b'collected 3\\n')"
    result = grade.python(code, report_pipe=True)
    assert result.returncode == 0, result.stderr.decode()
    assert result.report == b"collected 3\n"


def test_facts_record_the_mechanisms_in_force(grade: Grade) -> None:
    facts = grade.run("true").facts()
    for mechanism in ("bwrap", "netns:loopback-only", "pidns", "ro-system", "clearenv"):
        assert mechanism in facts.limits
    if os.geteuid() == 0:
        assert f"uid={sandbox.sandbox_uid()}" in facts.limits
    if {"memory", "pids"} <= CGROUPS:
        assert "cgroup-memory=4096MB" in facts.limits
        assert "cgroup-pids=256" in facts.limits


def test_run_cgroups_are_removed_afterwards(grade: Grade) -> None:
    if not CGROUPS:
        pytest.skip("no cgroups here")
    grade.run("true")
    parents = cgroups._parents(os.getpid())[0]
    prefix = cgroups.run_prefix()
    assert [p for d in parents.values() for p in d.iterdir() if p.name.startswith(prefix)] == []


def test_auto_falls_back_loudly_when_bwrap_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    made = sandbox.make_runner("auto")
    assert made.name == "none"
    assert any("NO SANDBOX" in w and "bubblewrap is not installed" in w for w in made.warnings)
    with pytest.raises(ValueError, match="apt-get install bubblewrap, or --sandbox none"):
        sandbox.make_runner("bwrap")


def test_a_broken_bwrap_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "bwrap"
    fake.write_text(
        "#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n"
    )
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")
    with pytest.raises(ValueError, match="does not work here"):
        sandbox.make_runner("bwrap")
    made = sandbox.make_runner("auto")
    assert made.name == "none"
    assert any("NO SANDBOX" in w for w in made.warnings)


def test_auto_uses_bwrap_when_it_works() -> None:
    made = sandbox.make_runner("auto")
    assert made.name == "bwrap"
    assert not any("NO SANDBOX" in w for w in made.warnings)
