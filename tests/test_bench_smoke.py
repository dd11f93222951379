"""Smoke test of the benchmarks: `bench/run.py --quick --only census_speed` runs and prints ratios.

No timing is asserted (DESIGN.md, "Performance conventions"): only that the benchmark finishes,
exits 0, and prints its headline ratio lines with their input sizes.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_census_speed_quick_prints_ratios(tmp_path: Path) -> None:
    if shutil.which("rg") is None:
        pytest.skip("ripgrep (rg), the benchmark's peer, is not installed")
    env = dict(os.environ, PATCHWITNESS_CACHE=str(tmp_path / "cache"), TMPDIR=str(tmp_path))
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "run.py"), "--quick", "--only", "census_speed"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,  # a hang guard, not a timing assertion
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-3000:]
    ratio = re.compile(r"^ratio census/ripgrep warm \[generated\]: [0-9.]+x .*\d+ files", re.M)
    assert ratio.search(done.stdout), output[-3000:]
    assert re.search(r"^ratio after-snapshot/full-rescan \[1 files\]: ", done.stdout, re.M)
    assert "items from third_party/ or build/ (must be 0): 0" in done.stdout


def test_start_time_quick_prints_its_ratios(tmp_path: Path) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "run.py"), "--quick", "--only", "start_time"],
        cwd=ROOT,
        env=dict(os.environ, PATCHWITNESS_CACHE=str(tmp_path / "cache"), TMPDIR=str(scratch)),
        capture_output=True,
        text=True,
        timeout=300,  # a hang guard, not a timing assertion
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-3000:]
    for name in (
        "pytest --version",
        "patchwitness --help",
        "patchwitness grade, to its start",
        "patchwitness grade, to its first command",
    ):
        assert re.search(
            rf"^ratio {re.escape(name)}/python -c pass: [0-9.]+x wall", done.stdout, re.M
        ), output[-3000:]
    assert re.search(r"goal: a grade starts in under 0.25 s: .*(met|not met)$", done.stdout, re.M)
    # The grades it stops at their first command (os._exit, inside the patch's precheck folder)
    # leave nothing behind in the machine's temporary folder.
    assert not list(scratch.iterdir()), list(scratch.iterdir())
