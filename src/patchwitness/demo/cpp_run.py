"""The C++ half of `patchwitness demo`: the ringlib repository, its tasks and the agents' patches.

`build_cpp` mirrors `run.build_python`: the repository under root/repos/ringlib, one task directory
per task under root/bag, and one patch per (task, agent) with an expectation under
root/patches/AGENT/TASK.diff. Grading those patches needs cmake, ninja, g++ and GoogleTest;
`available()` says whether they are here and, if not, what is missing.
"""

from __future__ import annotations

import glob
import os
import shutil
import sys
from pathlib import Path

from patchwitness.bag import Job
from patchwitness.demo import build, ringlib
from patchwitness.demo.bag import DemoBag

REPO_NAME = "ringlib"
# Where Debian's libgtest-dev (and a /usr/local install) put GoogleTest; $GTEST_ROOT comes first,
# as it does for CMake's FindGTest.
_INCLUDE_DIRS = ("/usr/include", "/usr/local/include")
_LIB_GLOBS = (
    "/usr/lib/libgtest_main.*",
    "/usr/lib/*/libgtest_main.*",
    "/usr/lib64/libgtest_main.*",
    "/usr/local/lib/libgtest_main.*",
    "/usr/local/lib64/libgtest_main.*",
)
INSTALL_HINT = (
    "apt-get install cmake ninja-build g++ libgtest-dev (make does this when run as root)"
)


def _gtest_found() -> bool:
    roots = [os.environ["GTEST_ROOT"]] if os.environ.get("GTEST_ROOT") else []
    includes = [os.path.join(r, "include") for r in roots] + list(_INCLUDE_DIRS)
    if not any(os.path.isfile(os.path.join(d, "gtest", "gtest.h")) for d in includes):
        return False
    libs = [os.path.join(r, sub, "libgtest_main.*") for r in roots for sub in ("lib", "lib64")]
    return any(glob.glob(pattern) for pattern in (*libs, *_LIB_GLOBS))


def available() -> tuple[bool, str]:
    """Whether the C++ demo can be graded here, and a one-line message saying what is missing."""
    missing = [tool for tool in ("cmake", "ninja", "g++") if shutil.which(tool) is None]
    if not _gtest_found():
        missing.append("GoogleTest (gtest/gtest.h and libgtest_main)")
    if missing:
        return False, f"C++ demo skipped: missing {', '.join(missing)}; {INSTALL_HINT}"
    return True, "cmake, ninja, g++ and GoogleTest found"


def expectations() -> dict[tuple[str, str], tuple[str, str]]:
    """The labels the demo asserts."""
    return dict(ringlib.EXPECTED)


def build_cpp(root: Path, *, skip_unavailable: bool = True) -> DemoBag:
    """The ringlib repository, its tasks, and one patch per (task, agent) with an expectation.

    When the C++ toolchain is missing and `skip_unavailable` is set, the bag is empty and the reason
    goes to stderr, so a Python-only machine still runs the rest of the demo.
    """
    bag = DemoBag(root)
    if skip_unavailable:
        ok, why = available()
        if not ok:
            print(why, file=sys.stderr)
            return bag
    repo = root / "repos" / REPO_NAME
    sha = build.make_repo(repo, ringlib.FILES, "ringlib at the locked SHA")
    expected = expectations()
    for task in ringlib.TASKS:
        task_dir = root / "bag" / task.name
        build.write_task(
            task_dir,
            sha=sha,
            test_cmd=ringlib.TEST_CMD,
            allow_test_edits=task.allow_test_edits,
            failing=list(task.failing),
            toml=task.toml(f"../../repos/{REPO_NAME}"),
        )
        if task.matrix:
            (task_dir / "matrix.json").write_text(ringlib.MATRIX_MANIFEST)
        for agent, strategy in ringlib.AGENTS.items():
            want = expected.get((task.name, agent))
            if want is None:
                continue
            after = build.apply_edits(ringlib.FILES, strategy(task))
            patch = root / "patches" / agent / f"{task.name}.diff"
            patch.parent.mkdir(parents=True, exist_ok=True)
            patch.write_text(build.make_diff(ringlib.FILES, after))
            bag.jobs.append(Job(task_dir, patch, agent))
            bag.expected[(task.name, agent)] = want
    return bag
