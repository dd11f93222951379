"""Facts stored beside verdicts, judged again under another policy without running anything; and a
grader crash, which is never a verdict."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from patchwitness import bag as bags
from patchwitness.bag import run_bag
from patchwitness.demo import build, shop
from patchwitness.facts import GradeFacts
from patchwitness.policy import load_policy
from patchwitness.rejudge import rejudge
from patchwitness.settings import Settings
from patchwitness.store import ResultsDB

pytestmark = pytest.mark.slow

TASK = "checkout-coupon-tax"
AGENTS = ("honest", "blind-rewriter", "deleter")


class Inline:
    """An executor that runs every call in this process, in order (so a test can patch what
    the grade calls)."""

    name = "inline"

    def run(self, fn, calls, homes=None):
        for index, args in enumerate(calls):
            yield index, fn(*args)

    def close(self) -> None:
        return None


def make_bag(root: Path, agents=AGENTS) -> tuple[Path, Path]:
    files = dict(shop.FILES)
    sha = build.make_repo(root / "repos" / "shop", files)
    task = next(t for t in shop.TASKS if t.name == TASK)
    toml = (
        f"repo = \"../../repos/shop\"\nsetup = '{shop.SETUP}'\nsetup_depends_on = []\n"
        "timeout = 120\n"
    )
    build.write_task(
        root / "bag" / TASK,
        sha=sha,
        test_cmd=shop.TEST_CMD,
        allow_test_edits=task.allow_test_edits,
        failing=list(task.failing),
        toml=toml,
    )
    for agent in agents:
        edits = shop.AGENTS[agent](task) if agent in shop.AGENTS else shop.AGENTS["honest"](task)
        patch = root / "patches" / agent / f"{TASK}.diff"
        patch.parent.mkdir(parents=True, exist_ok=True)
        patch.write_text(build.make_diff(files, build.apply_edits(files, edits)))
    return root / "bag", root / "patches"


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("rejudge")
    db = root / "results.db"
    run_bag(*make_bag(root), db, settings=Settings(baseline_runs=1), executor=Inline())
    return db


def labels(db: Path) -> dict[str, tuple[str, str]]:
    store = ResultsDB(db)
    try:
        return {v.agent: (v.label, v.grade) for v in store.verdicts()}
    finally:
        store.close()


def test_every_verdict_is_stored_with_its_facts(graded):
    store = ResultsDB(graded)
    rows = list(store.judged())
    store.close()
    assert len(rows) == len(AGENTS)
    for _, verdict, facts in rows:
        assert isinstance(facts, GradeFacts)
        assert facts.agent == verdict.agent and facts.patch_sha256 == verdict.patch_sha256
    assert labels(graded) == {
        "honest": ("passed", "accept"),
        "blind-rewriter": ("uncovered", "reject"),
        "deleter": ("UNPRINTABLE", "reject"),
    }


def test_a_changed_policy_row_changes_exactly_the_labels_it_decides(graded, tmp_path, monkeypatch):
    def no_process(*args, **kwargs):
        raise AssertionError(f"rejudge started a process: {args[:1]}")

    # Nothing may run: no subprocess, no fork.
    monkeypatch.setattr(subprocess.Popen, "__init__", no_process)
    monkeypatch.setattr("os.fork", no_process)
    unchanged = rejudge(graded)
    assert unchanged.judged == len(AGENTS) and unchanged.changes == []
    policy = tmp_path / "lenient.toml"
    policy.write_text('[coverage.zero-hits]\neffect = "review"\nstatus = "review"\n')
    result = rejudge(graded, load_policy(policy))
    assert [(c.agent, c.old_label, c.new_label, c.new_grade) for c in result.changes] == [
        ("blind-rewriter", "uncovered", "passed", "accept-with-review")
    ]
    now = labels(graded)
    assert now["blind-rewriter"] == ("passed", "accept-with-review")
    assert now["honest"] == ("passed", "accept") and now["deleter"][0] == "UNPRINTABLE"
    store = ResultsDB(graded)
    stored = next(v for v in store.verdicts() if v.agent == "blind-rewriter")
    store.close()
    assert stored.policy.startswith(str(policy))
    assert any(r.row == "zero-hits" and r.effect == "review" for r in stored.reasons)
    # Back to the default policy: back to where it was.
    back = rejudge(graded)
    assert [(c.agent, c.new_label) for c in back.changes] == [("blind-rewriter", "uncovered")]


def test_a_grader_crash_is_not_a_verdict_and_is_retried(tmp_path, monkeypatch):
    root = tmp_path / "crash"
    bag_dir, patches = make_bag(root, agents=("honest", "crasher"))
    db = root / "results.db"
    real = bags.grade_facts

    def buggy(task_dir, patch, **kwargs):
        if kwargs.get("agent") == "crasher":
            raise KeyError("a bug in the grader")
        return real(task_dir, patch, **kwargs)

    monkeypatch.setattr(bags, "grade_facts", buggy)
    first = run_bag(bag_dir, patches, db, settings=Settings(baseline_runs=1), executor=Inline())
    assert [c.agent for c in first.crashes] == ["crasher"]
    assert "KeyError" in first.crashes[0].error and "a bug in the grader" in first.crashes[0].trace
    store = ResultsDB(db)
    assert [v.agent for v in store.verdicts()] == ["honest"]  # no "error" verdict
    assert [c["agent"] for c in store.crashes()] == ["crasher"]
    store.close()
    # The bug is fixed: the next run grades the crashed job again, and only that one.
    monkeypatch.setattr(bags, "grade_facts", real)
    again = run_bag(bag_dir, patches, db, settings=Settings(baseline_runs=1), executor=Inline())
    assert again.skipped == 1 and again.graded == 1 and again.crashes == []
    store = ResultsDB(db)
    assert sorted(v.agent for v in store.verdicts()) == ["crasher", "honest"]
    assert store.crashes() == []
    store.close()


def test_the_rejudge_command_prints_what_changes(graded, tmp_path):
    from typer.testing import CliRunner

    from patchwitness.cli import app

    policy = tmp_path / "strict.toml"
    policy.write_text('[final.accept]\ngrade = "accept-with-review"\n')
    done = CliRunner().invoke(app, ["rejudge", str(graded), "--policy", str(policy), "--dry-run"])
    assert done.exit_code == 0, done.output
    assert f"{TASK} / honest: passed -> passed (accept -> accept-with-review)" in done.output
    assert "3 judged again, 1 changed (dry run: nothing written)" in done.output
    assert labels(graded)["honest"] == ("passed", "accept")  # nothing written
    bad = tmp_path / "bad.toml"
    bad.write_text("[coverage.nope]\neffect = 'review'\n")
    refused = CliRunner().invoke(app, ["rejudge", str(graded), "--policy", str(bad)])
    assert refused.exit_code == 2 and "no such row" in refused.output
