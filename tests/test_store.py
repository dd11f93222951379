"""The results database: concurrent openers, one verdict per identity, atomic JSON writes."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

from patchwitness.atomic import write_json as write_json_atomic
from patchwitness.model import Verdict
from patchwitness.store import ResultsDB


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


def test_a_version_1_database_gains_the_new_columns(tmp_path):
    import sqlite3

    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    conn.executescript(
        "CREATE TABLE verdicts (id INTEGER PRIMARY KEY, task TEXT NOT NULL, agent TEXT NOT NULL,"
        " patch_sha256 TEXT NOT NULL, fingerprint TEXT NOT NULL, grade TEXT NOT NULL,"
        " label TEXT NOT NULL, wall_clock_s REAL NOT NULL, created_at TEXT NOT NULL,"
        " json TEXT NOT NULL, UNIQUE (task, agent, patch_sha256, fingerprint));"
    )
    old = verdict()
    conn.execute(
        "INSERT INTO verdicts (task, agent, patch_sha256, fingerprint, grade, label,"
        " wall_clock_s, created_at, json) VALUES (?, ?, ?, '', ?, ?, 0, 'then', ?)",
        (old.task, old.agent, old.patch_sha256, old.grade, old.label, old.model_dump_json()),
    )
    conn.commit()
    conn.close()
    db = ResultsDB(path)
    ((_, kept, facts),) = list(db.judged())
    assert kept.label == "passed" and facts is None  # judged before facts were kept
    db.put_verdict(verdict(agent="b"))
    assert len(db.verdicts()) == 2
    db.close()
