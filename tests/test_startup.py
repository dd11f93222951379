"""What a command imports before it starts its work (issue 11: start fast, import what a command
needs when it needs it). Each check runs a fresh interpreter and reads its sys.modules."""

from __future__ import annotations

import json
import subprocess
import sys


def loaded_after(code: str) -> set[str]:
    script = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    return set(json.loads(done.stdout.splitlines()[-1]))


def test_help_loads_neither_the_grader_nor_rich_help():
    code = (
        "import sys\nfrom patchwitness.cli import app\n"
        "try:\n    app(['--help'])\nexcept SystemExit:\n    pass"
    )
    loaded = loaded_after(code)
    assert "patchwitness.api" not in loaded
    assert "patchwitness.model" not in loaded
    assert "typer.rich_utils" not in loaded  # a markdown parser, for help text
    assert "rich.console" not in loaded


def test_a_python_grade_loads_no_cpp_half():
    loaded = loaded_after("import patchwitness.collect")
    assert "patchwitness.collect" in loaded
    for module in (
        "patchwitness.matrix.collect",
        "patchwitness.matrix.run",
        "patchwitness.suites.cpp",
    ):
        assert module not in loaded, module


def test_a_grade_starts_before_the_judge_is_loaded():
    """The judge (its gates, its tables) and a census process pool are needed after the patched
    run or never: collect imports the judge in the thread beside that run."""
    loaded = loaded_after("import patchwitness.collect")
    for module in (
        "patchwitness.judge",
        "patchwitness.gates.coverage",
        "patchwitness.linemap",
        "concurrent.futures.process",
    ):
        assert module not in loaded, module


def test_the_grade_command_starts_grading_before_its_console_and_judge_load():
    """Off a terminal there is no spinner to show, so nothing of rich is imported before the
    grade starts; the verdict's table is imported when there is a verdict. The grade imports
    its machinery (collect, the facts and their models) when it is called."""
    code = (
        "import json, sys\nimport patchwitness.api as api\n"
        "def started(*args, **kwargs):\n"
        "    print(json.dumps(sorted(sys.modules)))\n    raise SystemExit(0)\n"
        "api.grade = started\n"
        "from patchwitness.cli import app\n"
        "app(['grade', 'no-task', 'no.diff', '--sandbox', 'none'])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(json.loads(done.stdout.splitlines()[-1]))
    for module in (
        "rich.console",
        "patchwitness.report.terminal",
        "patchwitness.judge",
        "patchwitness.collect",
        "patchwitness.facts",
        "patchwitness.model",
    ):
        assert module not in loaded, module


def test_the_grade_command_imports_its_table_beside_the_run():
    """The verdict's table (rich) is what the command needs after the grade: it hands the grade
    that import as work to do while the suite runs."""
    code = (
        "import json, sys\nimport patchwitness.api as api\n"
        "def graded(*args, beside=None, **kwargs):\n"
        "    before = 'patchwitness.report.terminal' in sys.modules\n"
        "    beside()\n"
        "    after = 'patchwitness.report.terminal' in sys.modules\n"
        "    print(json.dumps([before, after]))\n    raise SystemExit(0)\n"
        "api.grade = graded\n"
        "from patchwitness.cli import app\n"
        "app(['grade', 'no-task', 'no.diff', '--sandbox', 'none'])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout.splitlines()[-1]) == [False, True]
