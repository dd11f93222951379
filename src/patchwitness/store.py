"""The results database, and writing results so that no reader ever sees half of one.

SQLite in WAL mode. Every verdict is written in one transaction, so a run killed midway loses
nothing that finished and never leaves a half-written verdict to be read back. A verdict is
identified by (task, agent, patch sha256, fingerprint digest): re-running a bag skips what is
already there. Baselines are kept too, keyed like the disk cache (SHA, commands, setup, versions),
so every agent's patch to a task is judged against the same one.

The facts each verdict was judged from are kept beside it (`facts`, with their version), so a
later policy can judge them again without running anything (`rejudge`). A grader crash is not a
verdict: it goes to `crashes`, is retried when the bag runs again, and no report counts it.

Schema (version 2; a version 1 database gains the new columns when opened):

    meta(key PRIMARY KEY, value)
    tasks(name PRIMARY KEY, dir, repo_sha, language, held_out, files_sha256, updated_at)
    baselines(key PRIMARY KEY, task, repo_sha, runs, flaky JSON, created_at, data JSON)
    verdicts(id PRIMARY KEY, task, agent, patch_sha256, fingerprint, grade, label,
             wall_clock_s, created_at, json, facts_version, facts JSON, policy,
             UNIQUE(task, agent, patch_sha256, fingerprint))
    crashes(id PRIMARY KEY, task, agent, patch_sha256, error, trace, created_at)
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from patchwitness.baseline import Baseline
from patchwitness.facts import READABLE_FACTS_VERSIONS, GradeFacts
from patchwitness.model import Verdict

SCHEMA_VERSION = "2"

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tasks (
    name TEXT PRIMARY KEY,
    dir TEXT NOT NULL,
    repo_sha TEXT NOT NULL,
    language TEXT NOT NULL,
    held_out INTEGER NOT NULL DEFAULT 0,
    files_sha256 TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS baselines (
    key TEXT PRIMARY KEY,
    task TEXT NOT NULL,
    repo_sha TEXT NOT NULL,
    runs INTEGER NOT NULL,
    flaky TEXT NOT NULL,
    created_at TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS verdicts (
    id INTEGER PRIMARY KEY,
    task TEXT NOT NULL,
    agent TEXT NOT NULL,
    patch_sha256 TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    grade TEXT NOT NULL,
    label TEXT NOT NULL,
    wall_clock_s REAL NOT NULL,
    created_at TEXT NOT NULL,
    json TEXT NOT NULL,
    facts_version TEXT NOT NULL DEFAULT '',
    facts TEXT,
    policy TEXT NOT NULL DEFAULT '',
    UNIQUE (task, agent, patch_sha256, fingerprint)
);
CREATE TABLE IF NOT EXISTS crashes (
    id INTEGER PRIMARY KEY,
    task TEXT NOT NULL,
    agent TEXT NOT NULL,
    patch_sha256 TEXT NOT NULL,
    error TEXT NOT NULL,
    trace TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS verdicts_task ON verdicts (task);
CREATE INDEX IF NOT EXISTS verdicts_agent ON verdicts (agent);
CREATE INDEX IF NOT EXISTS verdicts_grade ON verdicts (grade);
CREATE INDEX IF NOT EXISTS verdicts_label ON verdicts (label);
CREATE INDEX IF NOT EXISTS verdicts_fingerprint ON verdicts (fingerprint);
"""


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


# Columns added since version 1, with their definitions.
ADDED_COLUMNS = {
    "verdicts": {
        "facts_version": "TEXT NOT NULL DEFAULT ''",
        "facts": "TEXT",
        "policy": "TEXT NOT NULL DEFAULT ''",
    }
}


def _migrate(conn: sqlite3.Connection) -> None:
    """A version 1 database gains the columns added since. Another process may be doing the
    same at the same moment: a column it added first is not an error."""
    for table, columns in ADDED_COLUMNS.items():
        have = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
        for name, definition in columns.items():
            if name in have:
                continue
            try:
                conn.execute(f"ALTER TABLE {table} ADD COLUMN {name} {definition}")
            except sqlite3.OperationalError as exc:
                if "duplicate column" not in str(exc):
                    raise


class ResultsDB:
    """One results database. Cheap to create; open one per process (connections don't travel)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._conn: sqlite3.Connection | None = None

    def __getstate__(self) -> dict:
        return {"path": self.path}  # pickled into worker processes without the connection

    def __setstate__(self, state: dict) -> None:
        self.path = state["path"]
        self._conn = None

    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = self._open()
        return self._conn

    def _open(self) -> sqlite3.Connection:
        """Connect, switch to WAL and create the schema. Several worker processes may open a new
        database at once; switching the journal mode takes a lock the busy timeout does not
        always wait for, so a locked database is retried rather than reported."""
        for attempt in range(60):
            conn = sqlite3.connect(self.path, timeout=60, isolation_level=None)
            try:
                conn.execute("PRAGMA busy_timeout=60000")
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.executescript(SCHEMA)
                _migrate(conn)
                conn.execute(
                    "INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (SCHEMA_VERSION,)
                )
                return conn
            except sqlite3.OperationalError as exc:
                conn.close()
                if "locked" not in str(exc) or attempt == 59:
                    raise
                time.sleep(0.1 + 0.05 * attempt)
        raise AssertionError("unreachable")  # pragma: no cover

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    # -- tasks ---------------------------------------------------------------------------------

    def put_task(
        self,
        name: str,
        directory: str,
        repo_sha: str,
        language: str,
        held_out: bool,
        files_sha256: str,
    ) -> None:
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO tasks VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(name) DO UPDATE SET "
                "dir=excluded.dir, repo_sha=excluded.repo_sha, language=excluded.language, "
                "held_out=excluded.held_out, files_sha256=excluded.files_sha256, "
                "updated_at=excluded.updated_at",
                (name, directory, repo_sha, language, int(held_out), files_sha256, now()),
            )

    def held_out_tasks(self) -> set[str]:
        rows = self.conn.execute("SELECT name FROM tasks WHERE held_out = 1").fetchall()
        return {row[0] for row in rows}

    # -- verdicts ------------------------------------------------------------------------------

    def put_verdict(self, verdict: Verdict, facts: GradeFacts | None = None) -> None:
        """Store a verdict (and the facts it was judged from): one transaction."""
        digest = verdict.fingerprint.digest if verdict.fingerprint else ""
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO verdicts (task, agent, patch_sha256, fingerprint, grade, label, "
                "wall_clock_s, created_at, json, facts_version, facts, policy) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT(task, agent, patch_sha256, fingerprint) DO UPDATE SET "
                "grade=excluded.grade, label=excluded.label, wall_clock_s=excluded.wall_clock_s, "
                "created_at=excluded.created_at, json=excluded.json, "
                "facts_version=excluded.facts_version, facts=excluded.facts, "
                "policy=excluded.policy",
                (
                    verdict.task,
                    verdict.agent,
                    verdict.patch_sha256,
                    digest,
                    verdict.grade,
                    verdict.label,
                    verdict.wall_clock_s,
                    now(),
                    verdict.model_dump_json(),
                    facts.facts_version if facts is not None else "",
                    facts.model_dump_json() if facts is not None else None,
                    verdict.policy,
                ),
            )
            conn.execute(
                "DELETE FROM crashes WHERE task=? AND agent=? AND patch_sha256=?",
                (verdict.task, verdict.agent, verdict.patch_sha256),
            )

    def judged(self) -> Iterator[tuple[int, Verdict, GradeFacts | None]]:
        """Every stored verdict with its id and its facts (None where none were kept)."""
        rows = self.conn.execute(
            "SELECT id, json, facts_version, facts FROM verdicts ORDER BY task, agent, id"
        ).fetchall()
        for row_id, verdict, version, facts in rows:
            kept = None
            if facts and version in READABLE_FACTS_VERSIONS:
                kept = GradeFacts.model_validate_json(facts)
            yield row_id, Verdict.model_validate_json(verdict), kept

    def replace_verdict(self, row_id: int, verdict: Verdict) -> None:
        """A stored verdict judged again (its facts unchanged)."""
        with self.transaction() as conn:
            conn.execute(
                "UPDATE verdicts SET grade=?, label=?, json=?, policy=? WHERE id=?",
                (verdict.grade, verdict.label, verdict.model_dump_json(), verdict.policy, row_id),
            )

    # -- crashes: grader bugs, never verdicts ---------------------------------------------------

    def put_crash(self, task: str, agent: str, patch_sha256: str, error: str, trace: str) -> None:
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO crashes (task, agent, patch_sha256, error, trace, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (task, agent, patch_sha256, error, trace, now()),
            )

    def crashes(self) -> list[dict]:
        rows = self.conn.execute(
            "SELECT task, agent, patch_sha256, error, created_at FROM crashes ORDER BY id"
        ).fetchall()
        keys = ("task", "agent", "patch_sha256", "error", "created_at")
        return [dict(zip(keys, row, strict=True)) for row in rows]

    def has_verdict(self, task: str, agent: str, patch_sha256: str, fingerprint: str) -> bool:
        row = self.conn.execute(
            "SELECT 1 FROM verdicts WHERE task=? AND agent=? AND patch_sha256=? AND fingerprint=?",
            (task, agent, patch_sha256, fingerprint),
        ).fetchone()
        return row is not None

    def verdicts(self) -> list[Verdict]:
        rows = self.conn.execute("SELECT json FROM verdicts ORDER BY task, agent, id").fetchall()
        return [Verdict.model_validate_json(row[0]) for row in rows]

    # -- baselines -----------------------------------------------------------------------------

    def get_baseline(self, key: str) -> Baseline | None:
        row = self.conn.execute("SELECT data FROM baselines WHERE key=?", (key,)).fetchone()
        if row is None:
            return None
        try:
            return Baseline.from_json(json.loads(row[0]))
        except (ValueError, KeyError):
            return None

    def put_baseline(self, task: str, repo_sha: str, baseline: Baseline) -> None:
        with self.transaction() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO baselines VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    baseline.key,
                    task,
                    repo_sha,
                    baseline.runs,
                    json.dumps(baseline.flaky),
                    now(),
                    json.dumps(baseline.to_json()),
                ),
            )


class DBBaselineCache:
    """The BaselineCache protocol over the results database: baselines are kept with results."""

    def __init__(self, db: ResultsDB, task: str = "", repo_sha: str = "") -> None:
        self.db, self.task, self.repo_sha = db, task, repo_sha

    def get(self, key: str) -> Baseline | None:
        return self.db.get_baseline(key)

    def put(self, baseline: Baseline) -> None:
        self.db.put_baseline(self.task, self.repo_sha, baseline)
