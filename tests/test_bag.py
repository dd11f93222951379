"""Bags of tasks times agents: the database, resume after a kill, both executors, flaky tests."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from patchwitness.bag import discover, run_bag
from patchwitness.baseline import Baseline, compute
from patchwitness.demo import build, shop
from patchwitness.executors import LocalExecutor
from patchwitness.settings import Settings
from patchwitness.store import ResultsDB

pytestmark = pytest.mark.slow

TASKS = ("checkout-coupon-tax", "write-money-tests")
AGENTS = ("honest", "deleter")


def make_bag(root: Path, flaky: bool = False) -> tuple[Path, Path]:
    files = dict(shop.FILES)
    if flaky:
        files["tests/test_flaky.py"] = (
            "from pathlib import Path\n\n\ndef test_sometimes():\n"
            "    counter = Path(__file__).with_name('.count')\n"
            "    n = int(counter.read_text()) + 1 if counter.exists() else 1\n"
            "    counter.write_text(str(n))\n    assert n % 2 == 1\n"
        )
    sha = build.make_repo(root / "repos" / "shop", files)
    for task in shop.TASKS:
        if task.name not in TASKS:
            continue
        toml = (
            f"repo = \"../../repos/shop\"\nsetup = '{shop.SETUP}'\nsetup_depends_on = []\n"
            f"timeout = 120\nheld_out = {'true' if task.name == TASKS[1] else 'false'}\n"
        )
        build.write_task(
            root / "bag" / task.name,
            sha=sha,
            test_cmd=shop.TEST_CMD,
            allow_test_edits=task.allow_test_edits,
            failing=list(task.failing),
            toml=toml,
        )
        for agent in AGENTS:
            if (task.name, agent) == (TASKS[1], "deleter"):
                continue  # a missing patch: graded as empty, and says so
            after = build.apply_edits(files, shop.AGENTS[agent](task))
            patch = root / "patches" / agent / f"{task.name}.diff"
            patch.parent.mkdir(parents=True, exist_ok=True)
            patch.write_text(build.make_diff(files, after))
    return root / "bag", root / "patches"


@pytest.fixture(scope="module")
def bag(tmp_path_factory):
    return make_bag(tmp_path_factory.mktemp("bag"))


def summary(verdicts):
    return sorted(
        (
            v.task,
            v.agent,
            v.label,
            v.grade,
            tuple(v.gates.drift.facts.fail_to_pass) if v.gates.drift else (),
        )
        for v in verdicts
    )


def test_discover_includes_missing_patches(bag):
    tasks, agents, jobs = discover(*bag)
    assert [t.name for t in tasks] == list(TASKS)
    assert agents == sorted(AGENTS)
    assert len(jobs) == 4
    assert [j.patch for j in jobs if j.patch is None] == [None]


def test_local_run_stores_every_verdict_and_resumes(bag, tmp_path):
    db = tmp_path / "results.db"
    first = run_bag(*bag, db, executor=LocalExecutor(2), settings=Settings(baseline_runs=2))
    assert (first.graded, first.skipped) == (4, 0), [v.reasons for v in first.verdicts]
    stored = ResultsDB(db).verdicts()
    assert summary(stored) == summary(first.verdicts)
    labels = {(v.task, v.agent): (v.label, v.grade) for v in stored}
    assert labels == {
        ("checkout-coupon-tax", "honest"): ("passed", "accept"),
        ("checkout-coupon-tax", "deleter"): ("UNPRINTABLE", "reject"),
        ("write-money-tests", "honest"): ("tests-authored", "accept"),
        ("write-money-tests", "deleter"): ("no-op", "reject"),
    }
    missing = next(v for v in stored if v.agent == "deleter" and v.task == TASKS[1])
    assert missing.reasons[0].row == "missing-patch"
    again = run_bag(*bag, db, executor=LocalExecutor(2), settings=Settings(baseline_runs=2))
    assert (again.graded, again.skipped) == (0, 4)
    assert ResultsDB(db).held_out_tasks() == {"write-money-tests"}
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("SELECT count(*) FROM baselines").fetchone()[0] == 1  # one SHA


def test_ray_executor_gives_the_same_verdicts(bag, tmp_path):
    ray = pytest.importorskip("ray")
    from patchwitness.executors import RayExecutor

    local = run_bag(
        *bag, tmp_path / "local.db", executor=LocalExecutor(2), settings=Settings(baseline_runs=1)
    )
    engine = RayExecutor(workers=2)
    try:
        remote = run_bag(
            *bag, tmp_path / "ray.db", executor=engine, settings=Settings(baseline_runs=1)
        )
    finally:
        engine.close()
    assert not ray.is_initialized()
    assert summary(remote.verdicts) == summary(local.verdicts)


def test_a_killed_run_loses_nothing_that_finished(bag, tmp_path):
    db = tmp_path / "killed.db"
    cmd = [
        sys.executable,
        "-m",
        "patchwitness.cli",
        "bag",
        "run",
        str(bag[0]),
        str(bag[1]),
        "--db",
        str(db),
        "--jobs",
        "1",
        "--baseline-runs",
        "1",
        "--sandbox",
        "none",
    ]
    proc = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    deadline = time.monotonic() + 300
    stored = 0
    while time.monotonic() < deadline and proc.poll() is None:
        if db.exists():
            with sqlite3.connect(db, timeout=30) as conn:
                try:
                    stored = conn.execute("SELECT count(*) FROM verdicts").fetchone()[0]
                except sqlite3.OperationalError:
                    stored = 0
            if stored >= 2:
                break
        time.sleep(0.2)
    assert proc.poll() is None, "the run finished before it could be killed"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    survivors = ResultsDB(db).verdicts()  # every stored verdict reads back whole
    assert 2 <= len(survivors) < 4
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert f"{4 - len(survivors)} graded, {len(survivors)} already in" in done.stdout
    assert len(ResultsDB(db).verdicts()) == 4


def test_flaky_tests_are_found_and_listed(tmp_path):
    bag_dir, patches = make_bag(tmp_path, flaky=True)
    result = run_bag(
        bag_dir,
        patches,
        tmp_path / "flaky.db",
        executor=LocalExecutor(2),
        settings=Settings(baseline_runs=3),
    )
    honest = next(v for v in result.verdicts if (v.task, v.agent) == (TASKS[0], "honest"))
    assert honest.gates.drift.facts.flaky == ["tests/test_flaky.py::test_sometimes"]
    assert honest.label == "passed"


class FakeSuite:
    """Outcomes that change between runs, for the baseline's flaky detection."""

    language = "python"

    def __init__(self, runs):
        self.runs = iter(runs)

    def versions(self):
        return {}

    def instrumentations(self):
        return []  # coverage not measurable: only the plain runs are made

    def run(self, tree, scratch, *, instrument=None):
        from patchwitness.model import RunFacts, TestRun
        from patchwitness.suites import SuiteRun

        outcomes = next(self.runs)
        return SuiteRun(
            run=TestRun(
                run=RunFacts(command="x", returncode=0), outcomes=outcomes, collected=list(outcomes)
            ),
            started=True,
        )


def test_baseline_marks_tests_whose_outcome_varies(tmp_path):
    from patchwitness.task import load_task

    from .conftest import make_task

    built = make_task(
        tmp_path,
        {"a.py": "", "tests/test_a.py": "def test_a(): pass\n"},
        failing=["t::red"],
        setup=None,
    )
    task = load_task(built.task_dir)
    runs = [
        {"t::a": "passed", "t::b": "passed", "t::red": "failed"},
        {"t::a": "failed", "t::b": "passed", "t::red": "failed"},
        {"t::a": "passed", "t::b": "passed", "t::red": "failed"},
    ]
    base: Baseline = compute(task, FakeSuite(runs), "k", runs=3)
    assert base.flaky == ["t::a"]
    assert base.runs == 3


def test_stale_workspaces_of_dead_graders_are_swept(tmp_path):
    from patchwitness.workspace import OWNER, PREFIX, sweep_stale

    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = tmp_path / f"{PREFIX}stale"
    live = tmp_path / f"{PREFIX}live"
    for path, pid in ((stale, dead.pid), (live, os.getpid())):
        (path / "repo").mkdir(parents=True)
        (path / OWNER).write_text(str(pid))
        old = time.time() - 3600
        os.utime(path, (old, old))
    assert sweep_stale(tmp_path) == [stale]
    assert live.exists() and not stale.exists()


def test_unnamed_workspaces_of_dead_graders_are_swept_too(tmp_path):
    """The run elsewhere checks out into a root that shares no name with the grader's (no
    prefix to glob for): each is listed beside it as it is made, and unlisted when removed,
    so a killed grader's is swept like the named ones."""
    from patchwitness.workspace import OWNER, UNNAMED, Workspace, sweep_stale

    dead = subprocess.Popen(["true"])
    dead.wait()
    made = Workspace._empty("0" * 40, tmp_path, unnamed=True)
    kept = Workspace._empty("0" * 40, tmp_path, unnamed=True)
    assert not made.root.name.startswith("patchwitness")
    assert sorted(p.name for p in (tmp_path / UNNAMED).iterdir()) == sorted(
        [made.root.name, kept.root.name]
    )
    (made.root / OWNER).write_text(str(dead.pid))  # a grader that was killed
    old = time.time() - 3600
    for root in (made.root, kept.root):
        os.utime(root, (old, old))
    assert sweep_stale(tmp_path) == [made.root]
    assert not made.root.exists() and kept.root.exists()
    assert [p.name for p in (tmp_path / UNNAMED).iterdir()] == [kept.root.name]
    kept.remove()
    assert list((tmp_path / UNNAMED).iterdir()) == []


def report(db: Path, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "patchwitness.cli", "report", str(db), *args],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_report_hides_held_out_tasks_and_refuses_mixed_fingerprints(tmp_path):
    bag_dir, patches = make_bag(tmp_path)
    db = tmp_path / "published.db"
    run_bag(bag_dir, patches, db, executor=LocalExecutor(2), settings=Settings(baseline_runs=1))
    text = report(db)
    assert "write-money-tests" not in text and "held-out" in text
    assert "write-money-tests" in report(db, "--reveal")
    html = tmp_path / "page.html"
    report(db, "--html", str(html))
    assert "write-money-tests" not in html.read_text()
    # The same task graded again under another timeout: a different fingerprint.
    toml = bag_dir / TASKS[0] / "task.toml"
    toml.write_text(toml.read_text().replace("timeout = 120", "timeout = 90"))
    again = run_bag(
        bag_dir, patches, db, executor=LocalExecutor(2), settings=Settings(baseline_runs=1)
    )
    assert (again.graded, again.skipped) == (2, 2)
    refused = report(db)
    assert "timeout_s" in refused and "120" in refused and "90" in refused
    assert "passed" not in refused  # no side-by-side matrix
    assert "passed" in report(db, "--show-mixed")


def test_on_a_cluster_a_tasks_grades_go_to_the_node_that_made_its_baseline():
    """A local Ray cluster of two nodes: the calls of one home (a task) go to the node where the
    first of them (its preparation) ran, where its warm trees are."""
    ray = pytest.importorskip("ray")
    from ray.cluster_utils import Cluster

    from patchwitness.executors import RayExecutor

    cluster = Cluster(
        initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False}
    )
    cluster.add_node(num_cpus=1)
    engine = None
    try:
        cluster.wait_for_nodes()
        engine = RayExecutor(address=cluster.address)

        def node(seconds: float) -> str:
            time.sleep(seconds)  # long enough that one node alone cannot take every call
            return ray.get_runtime_context().get_node_id()

        tasks = [f"task-{i}" for i in range(4)]
        made = dict(engine.run(node, [(1.0,)] * len(tasks), tasks))
        homes = {tasks[i]: where for i, where in made.items()}
        assert len(set(homes.values())) == 2  # the preparations were spread over both nodes
        assert engine.homes == homes
        grades = [t for t in tasks for _ in range(3)]
        for index, where in engine.run(node, [(0.2,)] * len(grades), grades):
            assert where == homes[grades[index]], grades[index]
    finally:
        if engine is not None:
            engine.close()
        cluster.shutdown()
    assert not ray.is_initialized()


def test_a_bag_names_each_calls_task_as_its_home(bag, tmp_path):
    """What the executor routes by: every preparation and every grade names its task."""

    class Recording(LocalExecutor):
        def __init__(self) -> None:
            super().__init__(2)
            self.homes: list[list[str] | None] = []

        def run(self, fn, calls, homes=None):
            self.homes.append(homes)
            yield from super().run(fn, calls, homes)

    engine = Recording()
    run_bag(*bag, tmp_path / "homes.db", executor=engine, settings=Settings(baseline_runs=1))
    tasks = {str(p) for p in discover(*bag, tmp_path / "homes.db")[0]}
    prepared, graded = engine.homes
    assert sorted(prepared) == sorted(tasks)
    assert prepared is not None and graded is not None
    assert len(graded) == len(TASKS) * len(AGENTS) and set(graded) <= tasks
