"""The command line: exit codes, the census commands with the seed's fields, the schema."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from .conftest import make_task

CLI = [sys.executable, "-m", "patchwitness.cli"]


def cli(*args, cwd=None):
    return subprocess.run(
        [*CLI, *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=600
    )


def test_schema_is_a_json_schema():
    done = cli("schema")
    assert done.returncode == 0
    schema = json.loads(done.stdout)
    assert schema["title"] == "Verdict"
    assert {"grade", "label", "gates", "fingerprint", "reasons"} <= set(schema["properties"])


def test_tables_prints_every_row():
    from patchwitness import policy

    done = cli("tables")
    assert done.returncode == 0
    for table in policy.TABLES.values():
        for row in table:
            assert row.id in done.stdout


TESTS = """\
def test_a():
    assert f() == 1
    assert f() == 1


def test_b():
    assert g(2) > 1
"""


def test_census_write_and_diff(tmp_path):
    before_root, after_root = tmp_path / "before", tmp_path / "after"
    for root, text in (
        (before_root, TESTS),
        (
            after_root,
            TESTS.replace("    assert f() == 1\n    assert f() == 1\n", "    assert f() == 1\n"),
        ),
    ):
        (root / "tests").mkdir(parents=True)
        (root / "tests" / "test_x.py").write_text(text)
        (root / "src").mkdir()
        (root / "src" / "lib.py").write_text("assert True\n")  # production: not counted
    done = cli("census", "write", before_root, tmp_path / "before.json")
    assert done.returncode == 0 and done.stdout.strip() == "5"
    assert cli("census", "write", after_root, tmp_path / "after.json").returncode == 0
    done = cli("census", "diff", tmp_path / "before.json", tmp_path / "after.json")
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert report["verdict"] == "fail"
    assert (report["before"], report["after"]) == (5, 4)
    (removed,) = report["unexpected_removals"]
    assert removed.startswith("assert|tests/test_x.py|test_a|assert|")
    for field in ("removed", "added", "weakened", "disabled", "macro_redefinitions", "infra_edits"):
        assert field in report
    allow = tmp_path / "allow.json"
    allow.write_text(json.dumps({"remove": [removed], "note": "dedupe"}))
    done = cli("census", "diff", tmp_path / "before.json", tmp_path / "after.json", allow)
    assert done.returncode == 0
    assert json.loads(done.stdout)["grade_hint"] == "review"


def test_census_diff_bad_input_is_one_line(tmp_path):
    # A long path must not fold the message over two lines (the error console is 160 wide when
    # stderr is not a terminal).
    folder = tmp_path / ("deep-" * 40)
    folder.mkdir()
    (folder / "x.json").write_text("{not json")
    done = cli("census", "diff", folder / "x.json", folder / "x.json")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_grade_exit_codes(tmp_path):
    files = {
        "m.py": "def f():\n    return 2\n",
        "tests/test_m.py": "from m import f\n\n\ndef test_f():\n    assert f() == 1\n",
    }
    built = make_task(tmp_path, files, failing=["tests/test_m.py::test_f"])
    fix = built.patch([("m.py", "return 2", "return 1")], "fix.diff")
    cheat = built.patch([("tests/test_m.py", "== 1", "== 2")], "cheat.diff")
    out = tmp_path / "v.json"
    done = cli("grade", built.task_dir, fix, "--json", out, "--agent", "a1", "--sandbox", "none")
    assert done.returncode == 0, done.stdout + done.stderr
    verdict = json.loads(out.read_text())
    assert (verdict["label"], verdict["agent"]) == ("passed", "a1")
    done = cli("grade", built.task_dir, cheat, "--sandbox", "none")
    assert done.returncode == 1
    assert "UNPRINTABLE" in done.stdout
    (built.task_dir / "repo.lock").write_text("not-a-sha\n")
    done = cli("grade", built.task_dir, fix, "--sandbox", "none")
    assert done.returncode == 2
    assert "invalid-task: repo.lock must hold a full commit SHA" in done.stderr
    assert "Traceback" not in done.stderr
    done = cli("grade", built.task_dir, tmp_path / "missing.diff", "--sandbox", "none")
    assert done.returncode == 2 and "cannot read the patch" in done.stderr
