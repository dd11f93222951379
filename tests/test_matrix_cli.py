"""`patchwitness matrix`: both spellings, the JSONL rows, the exit codes, promotion."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
import typer
from typer.testing import CliRunner

from patchwitness import cli_matrix
from patchwitness.demo import build

from .test_matrix_cells import FILES, MANIFEST, OVERFLOW, README, RING_WRAP, UNUSED, WRAP

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not shutil.which("c++"), reason="needs a C++ compiler"),
]

ROW_FIELDS = {
    "patch",
    "golden",
    "envelope",
    "status",
    "compile_rc",
    "compile_stderr_tail",
    "run_rc",
    "stderr_tail",
    "stdout_sha256",
    "sanitizer_findings",
    "peak_rss_kb",
    "cpu_s",
    "wall_s",
    "compile_command",
    "run_command",
    "cached",
    "required",
}


def app() -> typer.Typer:
    root = typer.Typer(add_completion=False)

    @root.callback()
    def _root() -> None:
        """patchwitness"""

    cli_matrix.register(root)
    return root


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    root = tmp_path_factory.mktemp("matrix-cli")
    sha = build.make_repo(root / "repo", FILES)
    task_dir = root / "task"
    build.write_task(
        task_dir,
        sha=sha,
        test_cmd="true",
        allow_test_edits=False,
        failing=[],
        toml='language = "cpp"\nrepo = "../repo"\n[matrix]\nmanifest = "matrix.json"\n',
    )
    data = {**MANIFEST, "goldens": [WRAP], "envelopes": ["dbg", "rel", "ubsan2"]}
    (task_dir / "matrix.json").write_text(json.dumps(data))
    for name, edits in (("overflow", [OVERFLOW]), ("unused", [UNUSED]), ("honest", [README])):
        after = build.apply_edits(FILES, edits)
        (root / f"{name}.diff").write_text(build.make_diff(FILES, after))
    return root


def invoke(*args: str):
    return CliRunner().invoke(app(), ["matrix", *args, "--sandbox", "none"])


def test_the_sha_alone(task):
    result = invoke(str(task / "task"))
    assert result.exit_code == 0, result.output
    assert "pass" in result.output


def test_a_bad_patch_with_jsonl_rows(task):
    out = task / "overflow.jsonl"
    result = invoke(str(task / "task"), str(task / "overflow.diff"), "--jsonl", str(out))
    assert result.exit_code == 1, result.output
    assert "sanitizer-only" in result.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["golden"], r["envelope"]) for r in rows] == [
        (WRAP, "dbg"),
        (WRAP, "rel"),
        (WRAP, "ubsan2"),
    ]
    for row in rows:
        assert set(row) >= ROW_FIELDS
        assert len(row["patch"]) == 64  # the patch's sha256
    assert rows[2]["status"] == "sanitizer" and rows[2]["sanitizer_findings"]
    assert rows[0]["status"] == "pass" and rows[0]["baseline_status"] == "pass"


def test_the_explicit_run_spelling_and_options_first(task):
    result = invoke("run", str(task / "task"), str(task / "honest.diff"))
    assert result.exit_code == 0, result.output
    out = task / "unused.jsonl"
    result = invoke("--jsonl", str(out), str(task / "task"), str(task / "unused.diff"))
    assert result.exit_code == 1, result.output
    assert "werror-only" in result.output
    assert {json.loads(r)["status"] for r in out.read_text().splitlines()} == {
        "werror_fail",
        "pass",
    }


def test_print_commands_is_a_script_that_runs(task, tmp_path):
    result = CliRunner().invoke(
        app(),
        [
            "matrix",
            str(task / "task"),
            str(task / "overflow.diff"),
            "--print-commands",
            "--sandbox",
            "none",
        ],
    )
    assert result.exit_code == 1
    text = result.stdout[result.stdout.index("#!/bin/sh") :]
    path = tmp_path / "m.sh"
    path.write_text(text)
    env = {"PATH": "/usr/bin:/bin", "OUT": str(tmp_path / "out"), "HOME": str(tmp_path)}
    done = subprocess.run(["sh", str(path), f"{WRAP}@ubsan2"], env=env, capture_output=True)
    assert done.returncode == 1
    assert done.stdout.decode().startswith(f"{WRAP}@ubsan2 sanitizer")


def test_invalid_task_exits_2(tmp_path):
    result = invoke(str(tmp_path / "nowhere"))
    assert result.exit_code == 2


def test_promote(task, tmp_path):
    # One push more than ring_wrap, with its own fixture beside it.
    candidate = tmp_path / "wrap_more.cpp"
    more = RING_WRAP.replace("i < 20", "i < 21").replace("112u", "113u").replace("119u", "120u")
    candidate.write_text(more)
    candidate.with_suffix(".expected").write_text("oldest=113 newest=120\n")
    args = ["promote", "--golden", str(candidate), "--bad-patch", str(task / "overflow.diff")]
    result = invoke(*args, str(task / "task"))
    assert result.exit_code == 0, result.output
    assert "promotable" in result.output
    args[-1] = str(task / "honest.diff")
    result = invoke(*args, str(task / "task"))
    assert result.exit_code == 1
    assert "does not witness" in result.output


# --- the embedded C++ demo --------------------------------------------------------------------


def test_the_demos_faster_ring_is_matrix_red(tmp_path):
    ringlib = pytest.importorskip("patchwitness.demo.ringlib")
    if "ring-speedup" not in getattr(ringlib, "TASKS_BY_NAME", {}):
        pytest.skip("the demo has no ring-speedup task")
    task = ringlib.TASKS_BY_NAME["ring-speedup"]
    sha = build.make_repo(tmp_path / "repo", ringlib.FILES)
    task_dir = tmp_path / "tasks" / task.name
    build.write_task(
        task_dir,
        sha=sha,
        test_cmd=ringlib.TEST_CMD,
        allow_test_edits=task.allow_test_edits,
        failing=list(task.failing),
        toml=task.toml("../../repo"),
    )
    (task_dir / "matrix.json").write_text(ringlib.MATRIX_MANIFEST)
    codes = {}
    for agent in ("faster-ring", "honest"):
        after = build.apply_edits(ringlib.FILES, ringlib.AGENTS[agent](task))
        patch = tmp_path / f"{agent}.diff"
        patch.write_text(build.make_diff(ringlib.FILES, after))
        rows = tmp_path / f"{agent}.jsonl"
        result = invoke(str(task_dir), str(patch), "--jsonl", str(rows))
        codes[agent] = result.exit_code
        if agent == "faster-ring":
            red = [json.loads(r) for r in rows.read_text().splitlines()]
            red = [r for r in red if r["status"] != "pass"]
            assert red and all(r["golden"].endswith("golden_ring_seqwrap.cpp") for r in red)
            kinds = {f["kind"] for r in red for f in r["sanitizer_findings"]}
            assert kinds == {"signed integer overflow"}
    assert codes == {"faster-ring": 1, "honest": 0}
