"""A setup or build that fails at the SHA keeps its whole log: in the grade's artifacts directory
when it has one, else in the cache beside what failed, and the verdict quotes its last 20 lines."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from patchwitness.api import grade
from patchwitness.demo import build
from patchwitness.settings import Settings

from .conftest import make_task
from .test_cli import cli

pytestmark = pytest.mark.slow

FILES = {
    "m.py": "def f():\n    return 2\n",
    "tests/test_m.py": "from m import f\n\n\ndef test_f():\n    assert f() == 1\n",
}
FAILING = ["tests/test_m.py::test_f"]
FIX = ("m.py", "return 2", "return 1")
# Thirty lines of progress on stdout, then the error on stderr: the tail must reach back past the
# last line, and the whole log must hold the first.
NOISY = 'for i in $(seq 1 30); do echo step-$i-done; done; echo "required: [text]" >&2; exit 1'


def kept_log(detail: str) -> Path:
    found = re.search(r"whole log: (\S+)\)", detail)
    assert found, detail
    return Path(found.group(1))


def assert_tail(detail: str, first: str, last: str, absent: str) -> None:
    quoted = detail.splitlines()[2:]
    assert len(quoted) == 20, detail
    assert first in quoted[0] and last in detail and absent not in detail


def test_a_failed_setup_keeps_its_log_beside_the_environment(tmp_path, pw_cache):
    built = make_task(tmp_path, FILES, failing=FAILING, setup=NOISY)
    verdict = grade(built.task_dir, built.patch([FIX]))
    assert verdict.label == "invalid-task"
    detail = verdict.reasons[0].detail
    assert detail.splitlines()[0] == "setup command failed (exit 1): required: [text]"
    assert_tail(detail, "step-13-done", "required: [text]", "step-12-done")
    log = kept_log(detail)
    assert log.name == "setup.log" and log.parent.parent == pw_cache / "envs"
    text = log.read_text()
    assert "step-1-done\n" in text and text.rstrip().endswith("required: [text]")


def test_a_failed_setup_keeps_its_log_in_the_artifacts(tmp_path):
    built = make_task(tmp_path, FILES, failing=FAILING, setup=NOISY)
    artifacts = tmp_path / "artifacts"
    verdict = grade(built.task_dir, built.patch([FIX]), settings=Settings(artifacts=artifacts))
    assert kept_log(verdict.reasons[0].detail) == artifacts / "setup.log"
    assert "step-1-done" in (artifacts / "setup.log").read_text()


def test_the_command_line_shows_the_tail_and_says_one_line(tmp_path):
    built = make_task(tmp_path, FILES, failing=FAILING, setup=NOISY)
    artifacts = tmp_path / "artifacts"
    done = cli(
        "grade", built.task_dir, built.patch([FIX]), "--artifacts", artifacts, "--sandbox", "none"
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "patchwitness: invalid-task: setup command failed (exit 1): required: [text]"
    ]
    assert "step-13-done" in done.stdout and "step-12-done" not in done.stdout
    assert "required: [text]" in done.stdout  # as the log says it, not read as markup
    assert (artifacts / "setup.log").is_file()


def test_a_python_build_that_fails_at_the_sha_keeps_its_log(tmp_path, pw_cache):
    build_cmd = NOISY.replace('"', '\\"')
    built = make_task(
        tmp_path, FILES, failing=FAILING, toml_extra=f'[python]\nbuild = "{build_cmd}"\n'
    )
    verdict = grade(built.task_dir, built.patch([FIX]))
    assert verdict.label == "invalid-task"
    detail = verdict.reasons[0].detail
    assert detail.splitlines()[0] == (
        "the project does not build at the SHA: build failed (exit 1): required: [text]"
    )
    assert_tail(detail, "step-13-done", "required: [text]", "step-12-done")
    log = kept_log(detail)
    assert log.name == "build-at-sha.log" and log.parent.parent == pw_cache / "baselines"
    assert "step-1-done" in log.read_text()


BROKEN_CMAKE = """\
cmake_minimum_required(VERSION 3.20)
project(broken NONE)
foreach(i RANGE 1 30)
  message(STATUS "probe-${i}-end")
endforeach()
message(FATAL_ERROR "required: text")
"""


@pytest.mark.skipif(
    not (shutil.which("cmake") and shutil.which("ninja")), reason="needs cmake and ninja"
)
def test_a_cpp_configure_that_fails_at_the_sha_keeps_its_log(tmp_path):
    files = {"CMakeLists.txt": BROKEN_CMAKE, "src/x.cpp": "int x() { return 1; }\n"}
    sha = build.make_repo(tmp_path / "repo", files)
    task_dir = tmp_path / "tasks" / "broken"
    build.write_task(
        task_dir,
        sha=sha,
        test_cmd='ctest --test-dir "$PW_BUILD"',
        allow_test_edits=False,
        failing=["X.One"],
        toml='language = "cpp"\nrepo = "../../repo"\ntimeout = 120\n[matrix]\nenabled = false\n',
    )
    patch = tmp_path / "fix.diff"
    patch.write_text(build.make_diff(files, {**files, "src/x.cpp": "int x() { return 2; }\n"}))
    artifacts = tmp_path / "artifacts"
    verdict = grade(task_dir, patch, settings=Settings(artifacts=artifacts))
    assert verdict.label == "invalid-task"
    detail = verdict.reasons[0].detail
    assert detail.startswith("the project does not build at the SHA: configure failed (exit 1)")
    assert "required: text" in detail and "probe-30-end" in detail
    assert "probe-1-end" not in detail
    assert kept_log(detail) == artifacts / "configure-at-sha.log"
    text = (artifacts / "configure-at-sha.log").read_text()
    assert "probe-1-end" in text and "required: text" in text


def test_the_in_place_build_is_part_of_the_baselines_key(tmp_path):
    """Two tasks alike but for `[python] build` must not share a baseline: the one whose build
    fails at the SHA once reused the other's and graded a patch (no-op) instead of saying so."""
    from patchwitness.baseline import baseline_key
    from patchwitness.task import load_task

    plain = make_task(tmp_path / "plain", FILES, failing=FAILING)
    built = make_task(
        tmp_path / "built", FILES, failing=FAILING, toml_extra='[python]\nbuild = "true"\n'
    )

    class Versions:
        def versions(self):
            return {}

    keys = {baseline_key(load_task(t.task_dir), Versions(), 1, "none") for t in (plain, built)}
    assert len(keys) == 2
