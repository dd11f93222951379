"""A rendezvous between a test of the graded suite and work on the grader's side: each writes a
mark and waits for the other's, so "these ran at the same time" is checked without a clock. Run
one after the other, the side that comes first gives up waiting."""

from __future__ import annotations

import time
from pathlib import Path

WAIT_S = 30  # either side's patience; only a broken capability ever waits this long


def suite_side(mine: Path, theirs: Path, whom: str) -> str:
    """Body lines for a test of the graded suite (its module imports os and time): write
    `mine`, then wait for `theirs`."""
    return (
        f"    open({str(mine)!r}, 'w').close()\n"
        f"    deadline = time.monotonic() + {WAIT_S}\n"
        f"    while not os.path.exists({str(theirs)!r}):\n"
        f"        assert time.monotonic() < deadline, 'the {whom} never ran beside the run'\n"
        "        time.sleep(0.02)\n"
    )


def grader_side(theirs: Path, mine: Path) -> None:
    """The grader's work: wait for the suite's mark, then write its own."""
    deadline = time.monotonic() + WAIT_S
    while not theirs.exists():
        assert time.monotonic() < deadline, "the suite never ran beside the grader's work"
        time.sleep(0.02)
    mine.touch()


def version_task(test_name: str, body: str) -> dict[str, str]:
    """A package whose VERSION the patch makes 2, and a test named `test_name` that runs `body`
    (lines of a function body) when it runs over the patched tree; at the SHA it does nothing."""
    return {
        "pkg/__init__.py": "",
        "pkg/version.py": "VERSION = 1\n",
        "tests/test_version.py": (
            "import os\nimport time\n\nfrom pkg.version import VERSION\n\n\n"
            "def test_version():\n    assert VERSION == 2\n\n\n"
            f"def {test_name}():\n"
            "    if VERSION != 2:\n        return  # the SHA's runs: nothing to meet\n" + body
        ),
    }
