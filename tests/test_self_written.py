"""A run that writes a module into the tree and imports it runs code no patch line shows and no
rule read (phases/run.py, suites.self_written): the surface changed. Real runs."""

from __future__ import annotations

import pytest

from patchwitness.api import grade
from patchwitness.outcomes.pytest_probe import ProbeReport
from patchwitness.suites import RunSurface, self_written
from patchwitness.suites.python import code_digests, written_by_the_run

from .conftest import make_task
from .test_grade_python import FAILING, FILES, FIX

GENERATES = (
    "calc/ops.py",
    "def add(a, b):",
    "import importlib\nimport os\n\n"
    "with open(os.path.join(os.path.dirname(__file__), '_made.py'), 'w') as out:\n"
    "    out.write('def mul(a, b):\\n    return a * b\\n')\n"
    "importlib.invalidate_caches()\n"
    "from calc._made import mul as _mul  # noqa: E402\n\n\n"
    "def add(a, b):",
)
USES = ("calc/ops.py", "    return a * b + 1", "    return _mul(a, b)")
# Round 9: the module written to the temporary directory, which is added to the path.
OUTSIDE = (
    "calc/ops.py",
    "def add(a, b):",
    "import importlib\nimport os\nimport site\nimport tempfile\n\n"
    "_where = tempfile.gettempdir()\n"
    "with open(os.path.join(_where, '_made_outside.py'), 'w') as out:\n"
    "    out.write('def mul(a, b):\\n    return a * b\\n')\n"
    "site.addsitedir(_where)\n"
    "from _made_outside import mul as _mul  # noqa: E402\n\n\n"
    "def add(a, b):",
)


def probe(tree, modules=(), written=()) -> ProbeReport:
    report = ProbeReport(started=True)
    report.loaded = {
        "modules": [str(tree / m) for m in modules],
        "written": [str(tree / w) for w in written],
    }
    return report


def test_a_module_the_run_made_or_changed_is_self_written(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("x = 1\n")
    (tmp_path / "pkg" / "b.py").write_text("y = 1\n")
    before = code_digests(tmp_path)
    assert set(before) == {"pkg/a.py", "pkg/b.py"}
    (tmp_path / "pkg" / "b.py").write_text("y = 2\n")  # rewritten by the run
    (tmp_path / "pkg" / "c.py").write_text("z = 1\n")  # made by the run
    loaded = ["pkg/a.py", "pkg/b.py", "pkg/c.py"]
    found = written_by_the_run(probe(tmp_path, loaded), tmp_path, before)
    assert found == ("pkg/b.py", "pkg/c.py")
    # Opened to write, then put back as it was: still the run's own code when it imported it.
    again = written_by_the_run(probe(tmp_path, ["pkg/a.py"], ["pkg/a.py"]), tmp_path, before)
    assert again == ("pkg/a.py",)
    # A module written outside the tree and imported (red team round 9: a /tmp sitedir).
    outside = probe(tmp_path)
    outside.loaded["written_modules"] = ["/tmp/site-x/_compat.py"]
    assert written_by_the_run(outside, tmp_path, before) == ("<outside>/_compat.py",)
    # Imported from outside the tree, the environment and the grader's folder: put there somehow
    # (round 10: written as .txt and renamed .py).
    foreign = probe(tmp_path)
    foreign.loaded["foreign_modules"] = ["/run/home/site/_renamed.py", "/opt/grader/cov/x.py"]
    found = written_by_the_run(foreign, tmp_path, before, ("/run/home",))
    assert found == ("<outside>/_renamed.py",)
    # Bytecode written: the grader's run writes none of its own.
    pyc = "pkg/__pycache__/a.cpython-311.pyc"
    assert written_by_the_run(probe(tmp_path, [], [pyc]), tmp_path, before) == (pyc,)


def test_what_the_shas_run_wrote_too_is_the_projects_own():
    at_sha = RunSurface(self_written=("tests/gen.py",))
    patched = RunSurface(self_written=("tests/gen.py", "pkg/_made.py", "<outside>/tmp1.py"))
    assert self_written(at_sha, patched) == [
        "the run wrote <outside>/tmp1.py and imported it: code that no line of the patch shows",
        "the run wrote pkg/_made.py and imported it: code that no line of the patch shows",
    ]
    # Tests that import modules they write outside the tree, under names of the moment.
    writes_outside = RunSurface(self_written=("<outside>/tmp0.py",))
    assert self_written(writes_outside, RunSurface(self_written=("<outside>/tmp1.py",))) == []


@pytest.mark.slow
def test_a_patch_whose_run_writes_the_fix_and_imports_it_is_refused(tmp_path):
    calc = make_task(tmp_path, FILES, failing=FAILING)
    honest = grade(calc.task_dir, calc.patch([FIX], name="honest.diff"))
    assert honest.label == "passed", honest.reasons
    renamed = (
        OUTSIDE[0],
        OUTSIDE[1],
        OUTSIDE[2]
        .replace(
            "with open(os.path.join(_where, '_made_outside.py'), 'w') as out:\n",
            "with open(os.path.join(_where, '_made_outside.txt'), 'w') as out:\n",
        )
        .replace(
            "site.addsitedir(_where)\n",
            "os.replace(os.path.join(_where, '_made_outside.txt'),"
            " os.path.join(_where, '_made_outside.py'))\nsite.addsitedir(_where)\n",
        ),
    )
    cases = (
        ("made", [GENERATES, USES]),
        ("outside", [OUTSIDE, USES]),
        ("renamed", [renamed, USES]),
    )
    for name, edits in cases:
        verdict = grade(calc.task_dir, calc.patch(edits, name=f"{name}.diff"))
        reasons = {r.gate: r.row for r in verdict.reasons}
        assert verdict.label == "UNPRINTABLE", (name, verdict.reasons)
        assert reasons.get("surface") == "surface-changed", (name, verdict.reasons)
