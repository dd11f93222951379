"""Smoke test of `bench/coverage_vs_diffcover.py --quick`: it runs, exits 0 and prints agreement.

No timing is asserted (DESIGN.md, "Performance conventions"): only that the benchmark finishes and
prints an agreement line per input, with its size. The C++ input is skipped by the benchmark itself
where cmake, ninja or a compiler is missing.
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
def test_coverage_bench_quick_prints_agreement(tmp_path: Path, pw_cache: Path) -> None:
    if shutil.which("diff-cover", path=str(Path(sys.executable).parent)) is None:
        pytest.skip("diff-cover, the benchmark's peer, is not installed (pip install -e '.[dev]')")
    env = dict(os.environ, TMPDIR=str(tmp_path))
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "coverage_vs_diffcover.py"),
            "--quick",
            "--cache",
            str(pw_cache),  # the session's cache: the task environment is built once
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,  # a hang guard, not a timing assertion
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-3000:]
    agreement = re.compile(
        r"^agreement \[python demo: [^\]]+\]: both \d+, only patchwitness \d+, "
        r"only diff-cover \d+  \(\d+ files, \d+ added lines\)",
        re.M,
    )
    assert agreement.search(done.stdout), output[-3000:]
    assert re.search(r"^ratio one instrumented run/plain\+instrumented \[", done.stdout, re.M)
    assert re.search(r"^agreement \[all inputs\]: both \d+", done.stdout, re.M)
