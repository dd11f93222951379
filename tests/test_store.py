"""The results database: concurrent openers, one verdict per identity, atomic JSON writes."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

from patchwitness.model import Verdict
from patchwitness.store import ResultsDB, write_json_atomic


def _hammer(path: str) -> int:
    db = ResultsDB(Path(path))
    for index in range(10):
        db.put_task(f"t{index}", "dir", "sha", "python", False, "x")
    return len(db.verdicts())


def test_worker_processes_may_open_a_new_database_at_once(tmp_path):
    for round_ in range(5):
        path = str(tmp_path / f"{round_}.db")
        with multiprocessing.get_context("fork").Pool(4) as pool:
            assert pool.map(_hammer, [path] * 4) == [0, 0, 0, 0]


def verdict(agent="a", label="passed", grade="accept"):
    return Verdict(task="t", agent=agent, patch_sha256="p" * 64, grade=grade, label=label)


def test_one_row_per_identity_and_the_latest_wins(tmp_path):
    db = ResultsDB(tmp_path / "r.db")
    db.put_verdict(verdict(label="no-op", grade="reject"))
    db.put_verdict(verdict())
    db.put_verdict(verdict(agent="b"))
    stored = db.verdicts()
    assert [(v.agent, v.label) for v in stored] == [("a", "passed"), ("b", "passed")]
    assert db.has_verdict("t", "a", "p" * 64, "")
    assert not db.has_verdict("t", "a", "p" * 64, "other-fingerprint")


def test_atomic_json_leaves_no_temporary_file(tmp_path):
    target = tmp_path / "out" / "v.json"
    write_json_atomic(target, {"a": 1})
    write_json_atomic(target, {"a": 2}, indent=None)
    assert json.loads(target.read_text()) == {"a": 2}
    assert [p.name for p in target.parent.iterdir()] == ["v.json"]
