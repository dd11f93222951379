"""Smoke test of `bench/matrix_speed.py`: it finishes and prints its ratios with their sizes.
No timing is asserted (DESIGN.md, "Performance conventions")."""

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
@pytest.mark.skipif(not shutil.which("c++"), reason="needs a C++ compiler")
def test_matrix_speed_quick_prints_ratios(tmp_path: Path) -> None:
    env = dict(os.environ, PATCHWITNESS_CACHE=str(tmp_path / "cache"), TMPDIR=str(tmp_path))
    command = [sys.executable, str(ROOT / "bench" / "run.py"), "--quick", "--only"]
    done = subprocess.run(
        [*command, "matrix_speed", "--", "--sandbox", "none"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,  # a hang guard, not a timing assertion
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-3000:]
    size = r"2 goldens x 4 envelopes = 8 cells"
    assert re.search(rf"^ratio matrix cold / warm \(cache\): [0-9.]+x .*{size}", done.stdout, re.M)
    assert re.search(rf"^ratio matrix 1 worker / \d+ workers: [0-9.]+x .*{size}", done.stdout, re.M)
    assert "0 compiles, 8 cache hits" in done.stdout
