"""The pristine run of an additive test edit runs beside the patched run, not after it.

Checked by a rendezvous, not a clock: the SHA's test writes a mark only when it runs in the
pristine tree (patched production code, no added test file), and the patch's added test waits for
that mark. Run one after the other, the patched run comes first and its added test gives up, so
the honest patch would not pass.
"""

from __future__ import annotations

import pytest

from patchwitness.api import grade

from .conftest import make_task

pytestmark = pytest.mark.slow

WAIT_S = 30  # the added test's patience; only a broken capability ever waits this long


def files(mark: str) -> dict[str, str]:
    return {
        "pkg/__init__.py": "",
        "pkg/version.py": "VERSION = 1\n",
        "tests/test_version.py": (
            "import os\n\nfrom pkg.version import VERSION\n\n\n"
            "def test_version():\n    assert VERSION == 2\n\n\n"
            "def test_mark_the_pristine_run():\n"
            "    here = os.path.dirname(__file__)\n"
            "    if VERSION == 2 and not os.path.exists(os.path.join(here, 'test_added.py')):\n"
            f"        open({mark!r}, 'w').close()\n"
        ),
    }


def added(mark: str) -> str:
    return (
        "import os\nimport time\n\nfrom pkg.version import VERSION\n\n\n"
        "def test_version_is_two_beside_the_pristine_run():\n"
        f"    deadline = time.monotonic() + {WAIT_S}\n"
        f"    while not os.path.exists({mark!r}) and time.monotonic() < deadline:\n"
        "        time.sleep(0.05)\n"
        f"    assert os.path.exists({mark!r})\n"
        "    assert VERSION == 2\n"
    )


def test_an_additive_edit_is_judged_by_a_pristine_run_that_ran_beside(tmp_path):
    mark = str(tmp_path / "pristine-ran")
    built = make_task(tmp_path, files(mark), failing=["tests/test_version.py::test_version"])
    patch = built.patch(
        [
            ("pkg/version.py", "VERSION = 1\n", "VERSION = 2\n"),
            ("tests/test_added.py", "", added(mark)),
        ]
    )
    verdict = grade(built.task_dir, patch, agent="additive")
    pristine = verdict.gates.drift.facts.pristine
    assert pristine.ran
    assert verdict.gates.drift.facts.test_edit == "additive"
    assert (verdict.label, verdict.grade) == ("passed", "accept")
