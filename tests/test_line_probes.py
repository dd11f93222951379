"""The line probes (probe/pw_lines.py) against coverage.py, the measurement they stand in for.

Each test runs real interpreters over real files: the same module and driver under coverage.py and
under the probes, and the statements each says ran must be the same; then what coverage.py loses
and the probes keep (a child leaving by os._exit), and what the probes must not change (a module's
docstring, future imports, traceback lines, files nobody listed).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import coverage
from coverage.python import PythonParser

from patchwitness.api import grade
from patchwitness.hits.python import Instrumentation, instrument_probes, read_hits
from patchwitness.suites.python import PROBE_DIR

from .conftest import make_task

MODULE = '''\
"""Module docstring."""
from __future__ import annotations

import functools

X = 1


def deco(f):
    return f


@deco
@functools.lru_cache(
    maxsize=None,
)
def decorated(a,
              b=2):
    """Doc."""
    total = (a +
             b)
    if total > 10:
        return "big"
    elif total > 5:
        return "mid"
    else:
        pass
    try:
        int("x")
    except ValueError:
        total += 1
    except KeyError:
        total -= 1
    finally:
        total *= 1
    for i in range(2):
        total += i
    else:
        total += 0
    while total < 0:
        total += 1
    with open(__file__) as fh:
        fh.read(1)
    return [x for x in range(3)
            if x]


class C:
    """Class doc."""
    y = 2

    def method(self):
        global X
        X = 3
        return lambda: (1,
                        2)

    def never(self):
        return 0


def gen():
    yield 1
    yield 2


async def coro():
    return 1


def matcher(v):
    match v:
        case 1:
            return "one"
        case [a, b]:
            return "pair"
        case _:
            return "other"


def unused():
    x = 1
    return x

if X:
    Y = 1
else:
    Y = 2
'''

DRIVER = """\
import asyncio
import mod
mod.decorated(1)
mod.decorated(7)
mod.C().method()
list(mod.gen())
asyncio.run(mod.coro())
mod.matcher(1)
mod.matcher(3)
mod.matcher([1, 2])
"""


def probed_run(tmp_path: Path, files: dict[str, str], script: str) -> tuple[Instrumentation, str]:
    """Run `script` in a fresh interpreter with `files` written under tmp_path/tree and every
    .py file of them probed, as the grader's sitecustomize does."""
    tree = tmp_path / "tree"
    for rel, text in files.items():
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_text(text)
    inst = instrument_probes(tmp_path / "scratch", tree, sorted(files))
    env = {
        **os.environ,
        **inst.env(),
        "PYTHONPATH": os.pathsep.join([str(PROBE_DIR), str(inst.site), str(tree)]),
    }
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=tree, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return inst, done.stdout


def coverage_hits(tmp_path: Path, module: str, driver: str) -> dict[int, int]:
    tree = tmp_path / "plain"
    tree.mkdir()
    (tree / "mod.py").write_text(module)
    (tree / "drive.py").write_text(driver)
    data = tmp_path / ".coverage"
    subprocess.run(
        [sys.executable, "-m", "coverage", "run", f"--data-file={data}", "drive.py"],
        cwd=tree,
        check=True,
        capture_output=True,
    )
    cov = coverage.Coverage(data_file=str(data))
    cov.load()
    _, statements, _, missing, _ = cov.analysis2(str(tree / "mod.py"))
    return {n: 0 if n in missing else 1 for n in statements}


def test_the_probes_see_the_statements_coverage_py_sees(tmp_path):
    inst, _ = probed_run(tmp_path, {"mod.py": MODULE}, DRIVER)
    hits = read_hits(inst, tmp_path / "tree", ["mod.py"])
    assert hits is not None
    parser = PythonParser(text=MODULE)
    parser.parse_source()
    probes = {n: c for n, c in hits["mod.py"].hits.items() if n in parser.statements}
    assert probes == coverage_hits(tmp_path, MODULE, DRIVER)
    assert 0 in probes.values() and 1 in probes.values()  # both kinds of line were seen


def test_a_module_keeps_its_docstring_future_flags_and_line_numbers(tmp_path):
    script = (
        "import mod, traceback\n"
        "print(repr(mod.__doc__))\n"
        "print(mod.decorated.__wrapped__.__annotations__)\n"  # future annotations: strings
        "try:\n    mod.C().fails()\nexcept ZeroDivisionError as e:\n"
        "    print(traceback.extract_tb(e.__traceback__)[-1].lineno)\n"
    )
    module = MODULE + "\n\ndef fails(self):\n    return 1 / 0\n\n\nC.fails = fails\n"
    module = module.replace("def decorated(a,\n", "def decorated(a: int,\n")
    _, out = probed_run(tmp_path, {"mod.py": module}, script)
    doc, annotations, line = out.splitlines()
    assert doc == "'Module docstring.'"
    assert annotations == "{'a': 'int'}"
    assert int(line) == module.splitlines().index("    return 1 / 0") + 1


def test_hits_survive_a_child_that_leaves_by_os_exit(tmp_path):
    module = "def work():\n    return 6 * 7\n\n\ndef idle():\n    return 0\n"
    script = (
        "import os, mod\n"
        "pid = os.fork()\n"
        "if pid == 0:\n    mod.work()\n    os._exit(0)\n"
        "os.waitpid(pid, 0)\n"
    )
    inst, _ = probed_run(tmp_path, {"mod.py": module}, script)
    hits = read_hits(inst, tmp_path / "tree", ["mod.py"])
    assert hits is not None
    assert hits["mod.py"].hits[2] == 1  # the child's line
    assert hits["mod.py"].hits[6] == 0  # never called


def test_only_listed_files_are_probed(tmp_path):
    files = {"mod.py": "VALUE = 1\n", "other.py": "VALUE = 2\n"}
    tree = tmp_path / "tree"
    for rel, text in files.items():
        tree.mkdir(exist_ok=True)
        (tree / rel).write_text(text)
    inst = instrument_probes(tmp_path / "scratch", tree, ["mod.py"])
    env = {
        **os.environ,
        **inst.env(),
        "PYTHONPATH": os.pathsep.join([str(PROBE_DIR), str(inst.site), str(tree)]),
    }
    script = "import mod, other\nprint(hasattr(mod, '__pw_hits__'), hasattr(other, '__pw_hits__'))"
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=tree, env=env, capture_output=True, text=True
    ).stdout
    assert out.split() == ["True", "False"]


def test_no_mark_means_the_probes_never_started(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "mod.py").write_text("VALUE = 1\n")
    inst = instrument_probes(tmp_path / "scratch", tree, ["mod.py"])
    assert read_hits(inst, tree, ["mod.py"]) is None


def test_python_dash_m_runs_a_probed_module(tmp_path):
    # runpy executes the loader's code in a namespace of its own: the module binds its own map.
    module = "def work():\n    return 6 * 7\n\n\nif __name__ == '__main__':\n    print(work())\n"
    inst, out = probed_run(
        tmp_path, {"mod.py": module}, "import runpy\nrunpy.run_module('mod', run_name='__main__')\n"
    )
    assert out.strip() == "42"
    hits = read_hits(inst, tmp_path / "tree", ["mod.py"])
    assert hits is not None
    assert hits["mod.py"].hits[2] == 1 and hits["mod.py"].hits[6] == 1


def test_a_file_run_as_a_script_is_unmeasured_not_unrun(tmp_path):
    # `python mod.py` is compiled by the interpreter, never by the probes: its lines are not read
    # as zero hits (a patch there would be `uncovered` for the grader's own reason).
    module = "def work():\n    return 6 * 7\n\n\nprint(work())\n"
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "mod.py").write_text(module)
    inst = instrument_probes(tmp_path / "scratch", tree, ["mod.py"])
    env = {
        **os.environ,
        **inst.env(),
        "PYTHONPATH": os.pathsep.join([str(PROBE_DIR), str(inst.site), str(tree)]),
    }
    done = subprocess.run(
        [sys.executable, "mod.py"], cwd=tree, env=env, capture_output=True, text=True
    )
    assert done.stdout.strip() == "42", done.stderr
    hits = read_hits(inst, tree, ["mod.py"])
    assert hits == {}  # measured nowhere: the coverage gate leaves its lines unscored


SCRIPT_FILES = {
    "tool.py": "import sys\n\n\ndef add(a, b):\n    return a - b\n\n\n"
    "if __name__ == '__main__':\n    print(add(int(sys.argv[1]), int(sys.argv[2])))\n",
    "tests/test_tool.py": "import os\nimport subprocess\nimport sys\n\n"
    "ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))\n\n\n"
    "def test_add_from_the_command_line():\n"
    "    done = subprocess.run([sys.executable, os.path.join(ROOT, 'tool.py'), '2', '3'],\n"
    "                          capture_output=True, text=True)\n"
    "    assert done.stdout.strip() == '5'\n",
}


def test_a_fix_to_a_script_the_tests_run_is_never_rejected_as_uncovered(tmp_path):
    built = make_task(
        tmp_path, SCRIPT_FILES, failing=["tests/test_tool.py::test_add_from_the_command_line"]
    )
    fix = built.patch([("tool.py", "return a - b", "return a + b")], "fix.diff")
    verdict = grade(built.task_dir, fix, agent="script-fix")
    coverage = verdict.gates.coverage
    assert coverage.row == "not-measurable", coverage
    assert any("run as a script" in note for note in coverage.facts.notes)
    assert verdict.label == "passed" and verdict.grade == "accept-with-review", verdict.reasons


def test_a_listed_file_imported_through_a_symlink_of_another_name_is_probed(tmp_path):
    # The finder skips imports whose file name is none of the listed ones, unless the file is a
    # symlink: `alias.py -> mod.py` must still reach the probed mod.py.
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "mod.py").write_text("VALUE = 1\n")
    (tree / "alias.py").symlink_to("mod.py")
    (tree / "linked").symlink_to(tree, target_is_directory=True)
    inst = instrument_probes(tmp_path / "scratch", tree, ["mod.py"])
    env = {
        **os.environ,
        **inst.env(),
        "PYTHONPATH": os.pathsep.join([str(PROBE_DIR), str(inst.site), str(tree)]),
    }
    script = (
        "import alias, linked.mod as through_dir\n"
        "print(hasattr(alias, '__pw_hits__'), hasattr(through_dir, '__pw_hits__'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=tree, env=env, capture_output=True, text=True
    )
    assert done.stdout.split() == ["True", "True"], done.stderr
