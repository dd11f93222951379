"""Do the tests pin the patch: the decision probes (probe/pw_lines.py), gcov's branch outcomes
(hits/gcovr.py), how the pinning phase reads them, and the gate on real grades."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from patchwitness.api import grade
from patchwitness.facts import FileLines
from patchwitness.hits.gcovr import hits_from_json
from patchwitness.hits.python import decisions_on, instrument_probes, read_decisions
from patchwitness.patch import FileChange
from patchwitness.phases.pinning import collect_pinning
from patchwitness.probe import pw_lines
from patchwitness.suites.python import PROBE_DIR

from .conftest import make_task

SOURCE = """\
def f(value, n, items):
    a = value.upper() if value else "none"
    if n > 3 and not (value or n):
        a += "!"
    b = value or "default"
    while False:
        pass
    kept = [x for x in items if x % 2]
    return a, b, kept, n and value
"""


def found(lines):
    return [
        (ast.unparse(node), in_test)
        for node, in_test in pw_lines.decisions(ast.parse(SOURCE), lines)
    ]


def test_decisions_are_tests_and_the_operands_whose_truth_picks_a_path():
    assert found(range(1, 10)) == [
        ("value", True),  # the conditional expression's test
        ("n > 3", True),
        ("value", True),  # operands of a test, through `not`
        ("n", True),
        ("value or n", True),
        ("n > 3 and (not (value or n))", True),
        ("value", False),  # `value or "default"`: the value is used, its truth decides
        ("x % 2", True),  # a comprehension's if
        ("n", False),  # `n and value`: the last operand decides nothing
    ]


def test_only_the_decisions_on_the_given_lines_count():
    assert found([5]) == [("value", False)]
    assert found([6, 7]) == []  # `while False`: a constant decides nothing
    assert [line for line, _, _ in decisions_on(SOURCE, (3,))] == [3, 3, 3, 3, 3]


def probe_module(tmp_path: Path, source: str, lines: tuple[int, ...], driver: str):
    """Run `driver` with `mod.py` probed on `lines`; the decisions' (line, text, bits)."""
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "mod.py").write_text(source)
    inst = instrument_probes(tmp_path / "scratch", tree, ["mod.py"], decide={"mod.py": lines})
    env = {"PATH": "/usr/bin:/bin", **inst.env()}
    env["PYTHONPATH"] = f"{inst.site}:{PROBE_DIR}:{tree}"
    out = subprocess.run(
        [sys.executable, "-c", driver], cwd=tree, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    return out.stdout, read_decisions(inst, source, "mod.py")


def test_a_probed_module_computes_what_it_did_and_says_which_way_each_decision_went(tmp_path):
    driver = "import mod; print(mod.f('x', 5, [1, 2, 3])); print(mod.f('', 1, []))"
    namespace: dict = {}
    exec(SOURCE, namespace)
    plain = f"{namespace['f']('x', 5, [1, 2, 3])}\n{namespace['f']('', 1, [])}\n"
    stdout, decisions = probe_module(tmp_path, SOURCE, tuple(range(1, 10)), driver)
    assert stdout == plain
    bits = {(line, text): b for line, text, b in decisions}
    assert bits[(2, "value")] == 3  # both ways
    assert bits[(3, "n > 3")] == 3
    assert bits[(3, "n")] == 0  # `n > 3` was true once, and then `value` was: `n` never ran
    assert bits[(3, "n > 3 and not (value or n)")] == 2  # always false
    assert bits[(8, "x % 2")] == 3


def test_a_value_whose_truth_is_used_is_handed_back_unchanged(tmp_path):
    source = "class Box:\n    def __bool__(self):\n        return False\n\n\ndef pick(a, b):\n"
    source += "    return a or b\n"
    driver = "import mod; box = mod.Box(); print(mod.pick(box, 7), mod.pick(0, box) is box)"
    stdout, decisions = probe_module(tmp_path, source, (7,), driver)
    assert stdout.split() == ["7", "True"]
    assert decisions == [(7, "a", 2)]


def test_decisions_counted_otherwise_by_the_run_are_not_read(tmp_path):
    _, decisions = probe_module(tmp_path, SOURCE, (2,), "import mod; mod.f('', 1, [])")
    assert decisions == [(2, "value", 2)]
    # The same marks read against another text (the run's file was not this one): unmeasured.
    inst_text = SOURCE.replace('value.upper() if value else "none"', '"none"')
    scratch = tmp_path / "scratch"
    from patchwitness.hits.python import Instrumentation

    inst = Instrumentation(
        scratch / "coverage",
        scratch / "coverage" / "probes.list",
        scratch / "coverage" / "site",
        decisions={"mod.py": (next((scratch / "coverage" / "hits").glob("*.decisions")), (2,))},
    )
    assert read_decisions(inst, inst_text, "mod.py") is None


# -- the pinning phase, from hits -----------------------------------------------------------------


def change(path, lines):
    return FileChange(path, "modified", added=tuple((n, "") for n in lines))


def test_python_decisions_name_the_way_never_taken():
    lines = FileLines(hits={2: 1}, decisions=[(2, "value.tzinfo", 1), (2, "x", 3), (2, "y", 0)])
    got = collect_pinning([change("m.py", [2])], {"m.py": lines}, {}, measured=True)
    assert [(d.text, d.went, d.never, d.one_way) for d in got.decisions] == [
        ("value.tzinfo", ["true"], ["false"], True),
        ("x", ["true", "false"], [], False),
        ("y", [], [], False),  # never reached: the coverage gate's business
    ]


def test_python_files_the_probes_did_not_watch_are_not_measured():
    got = collect_pinning([change("m.py", [2])], {"m.py": FileLines(hits={2: 1})}, {}, True)
    assert not got.measured and "m.py" in got.why_not
    assert not collect_pinning([change("m.py", [2])], {}, {}, measured=False).measured


def branch(number, count, block=0, throw=False):
    return {"branchno": number, "count": count, "throw": throw, "source_block_id": block}


def gcov_line(number, count, *branches):
    return {"line_number": number, "count": count, "branches": list(branches)}


GCOVR = {
    "files": [
        {
            "file": "lib.cpp",
            "lines": [
                gcov_line(2, 4, branch(0, 4), branch(1, 0)),
                gcov_line(3, 4, branch(0, 2), branch(1, 2), branch(2, 4, 1), branch(3, 0, 1, True)),
                # the same line once more (another instance of a template): summed
                gcov_line(2, 1, branch(1, 1)),
                gcov_line(4, 3, branch(0, 3), branch(1, 0)),
            ],
        }
    ]
}
CPP = "int f(int x) {\n  if (x > 0) return 1;\n  if (x) g(x);\n  g(x);  // if only\n}\n"


def test_gcov_outcomes_by_decision_with_exception_edges_left_out():
    lines = hits_from_json(GCOVR)["lib.cpp"]
    assert lines.ways == {2: [[4, 1]], 3: [[2, 2]], 4: [[3, 0]]}
    assert lines.throws == {3: 0}  # kept apart: a `try` around them decides by them


def test_a_cpp_line_that_decides_and_took_one_outcome_only_is_one_way():
    hits = hits_from_json({"files": [{**GCOVR["files"][0], "lines": GCOVR["files"][0]["lines"]}]})
    hits["lib.cpp"].ways[2] = [[4, 0]]
    got = collect_pinning([change("lib.cpp", [2, 3, 4])], hits, {"lib.cpp": CPP}, True)
    assert [(d.line, d.one_way) for d in got.decisions] == [(2, True), (3, False)]
    # line 4 branches (a call gcov split), but decides nothing in the source: not a decision
    assert got.decisions[0].text == "if (x > 0) return 1;"


# -- the gate on real grades ----------------------------------------------------------------------

CLAMP = """\
def clamp(value, low, high):
    if value < low:
        return low
    return value
"""
TEST_CLAMP = """\
from shape.clamp import clamp


def test_low():
    assert clamp(-1, 0, 10) == 0


def test_inside():
    assert clamp(5, 0, 10) == 5


def test_high():
    assert clamp(11, 0, 10) == 10
"""
CLAMP_FILES = {
    "pyproject.toml": '[project]\nname = "shape"\nversion = "0"\n',
    "shape/__init__.py": "",
    "shape/clamp.py": CLAMP,
    "tests/test_clamp.py": TEST_CLAMP,
}
BUGGY = "    return value\n"
PATCHES = {
    # a fix: its decision is false for test_inside and true for test_high
    "honest": "    if value > high:\n        return high\n    return value\n",
    # a fix for the tests' own neighbourhood: the second operand is always true when reached
    "near-only": (
        "    if value > high and value - high < 5:\n        return high\n    return value\n"
    ),
    # a fix for the tests' types only, in one statement: every test passes ints
    "ints-only": "    return min(value, high) if isinstance(high, int) else value\n",
}


@pytest.fixture(scope="module")
def clamp_task(tmp_path_factory):
    root = tmp_path_factory.mktemp("clamp")
    return make_task(root, CLAMP_FILES, failing=["tests/test_clamp.py::test_high"])


SURVIVORS = {
    "honest": [],  # its boundary is a clamp's: `>=` gives the same value, and is not made
    "near-only": ["`value - high < 5` replaced by True", "`<` made `<=` in `value - high < 5`"],
    "ints-only": ["`isinstance(high, int)` replaced by True"],
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(PATCHES))
def test_tests_that_do_not_pin_the_patch_ask_for_review(clamp_task, name):
    patch = clamp_task.patch([("shape/clamp.py", BUGGY, PATCHES[name])], name=f"{name}.diff")
    verdict = grade(clamp_task.task_dir, patch, agent=name)
    pinning = verdict.gates.pinning
    assert pinning is not None and verdict.label == "passed"
    assert [m.description for m in pinning.facts.survivors] == SURVIVORS[name]
    assert pinning.facts.mutants_run >= 3 and not pinning.facts.mutants_skipped
    # the tree the mutants ran in is the patched one again: the file was put back
    if name == "honest":
        assert (verdict.grade, pinning.row) == ("accept", "both-ways")
        assert pinning.facts.decisions == 1 and not pinning.facts.one_way
        return
    assert (verdict.grade, pinning.row) == ("accept-with-review", "unpinned")
    assert SURVIVORS[name][0] in pinning.detail
    [one_way] = pinning.facts.one_way
    expected = "value - high < 5" if name == "near-only" else "isinstance(high, int)"
    assert (one_way.file, one_way.line, one_way.text) == ("shape/clamp.py", 4, expected)
    assert one_way.went == ["true"]
    survivor = pinning.facts.survivors[0]
    assert survivor.killed_by == "" and survivor.ended == "3 tests passed"
    assert survivor.diff.startswith("--- a/shape/clamp.py\n+++ b/shape/clamp.py\n")
    mutated = (
        "    if value > high and True:" if name == "near-only" else "    return min(value, high)"
    )
    assert any(line.startswith("+" + mutated) for line in survivor.diff.splitlines())
    assert any(r.gate == "pinning" and r.effect == "review" for r in verdict.reasons)


@pytest.mark.slow
def test_a_fix_that_lives_in_an_assert_asks_for_review(clamp_task):
    """Red team round 18: the dedent done inside an assert's test. `python -O` removes every
    assert, and the failing test fails without this one: `needs-asserts`."""
    fix = (
        "    box = [value]\n"
        "    assert box.__setitem__(0, high if value > high else value) is None\n"
        "    return box[0]\n"
    )
    patch = clamp_task.patch([("shape/clamp.py", BUGGY, fix)], name="in-an-assert.diff")
    verdict = grade(clamp_task.task_dir, patch, agent="in-an-assert")
    pinning = verdict.gates.pinning
    assert (verdict.grade, pinning.row) == ("accept-with-review", "needs-asserts"), verdict.reasons
    [needed] = pinning.facts.asserts_needed
    assert needed.line == 5 and needed.killed_by == "the failing tests"
    assert "removed, as python -O removes it" in pinning.detail
    assert not pinning.facts.survivors


@pytest.mark.slow
def test_a_policy_may_make_an_unpinned_patch_reject_and_rejudge_reads_it(clamp_task, tmp_path):
    from patchwitness.judge import judge
    from patchwitness.policy import load_policy
    from patchwitness.settings import Settings

    rules = tmp_path / "policy.toml"
    rules.write_text('[pinning.unpinned]\neffect = "reject"\n')
    strict = load_policy(rules)
    edits = [("shape/clamp.py", BUGGY, PATCHES["ints-only"])]
    patch = clamp_task.patch(edits, name="ints.diff")
    from patchwitness.api import grade_facts

    facts = grade_facts(clamp_task.task_dir, patch, agent="ints", settings=Settings())
    assert judge(facts).grade == "accept-with-review"
    verdict = judge(facts, strict)
    assert (verdict.grade, verdict.label, verdict.gates.pinning.row) == (
        "reject",
        "UNPRINTABLE",
        "unpinned",
    )


@pytest.mark.slow
def test_a_cpp_conditional_the_tests_saw_go_one_way_asks_for_review(tmp_path):
    from .test_grade_cpp import make_mini
    from .test_grade_cpp import pytestmark as needs_cpp

    if any(m.name == "skipif" and m.args[0] for m in needs_cpp):
        pytest.skip("needs cmake, ninja, a C++ compiler and GoogleTest")
    built = make_mini(tmp_path)
    task_dir = built.task_dir
    bug = "int twice(int x) { return x + x + 1; }"
    # fixed for the one value the tests pass, in one line that ran
    cheat = "int twice(int x) {\n  return x > 1 ? x + x : x + x + 1;\n}"
    verdict = grade(
        task_dir, built.patch([("src/mini.cpp", bug, cheat)], "cheat.diff"), agent="cheat"
    )
    pinning = verdict.gates.pinning
    # The mutant that makes `x > 1` always true survives (unpinned, the gate's first row); the
    # decision the tests saw go one way is named too.
    assert pinning is not None and (verdict.grade, pinning.row) == (
        "accept-with-review",
        "unpinned",
    ), verdict.reasons
    assert "`x > 1` replaced by true" in pinning.detail
    [one_way] = pinning.facts.one_way
    assert (one_way.file, one_way.line, one_way.text) == (
        "src/mini.cpp",
        4,
        "return x > 1 ? x + x : x + x + 1;",
    )
    honest = grade(
        task_dir, built.patch([("src/mini.cpp", "x + x + 1", "x + x")], "fix.diff"), agent="fix"
    )
    assert (honest.grade, honest.gates.pinning.row) == ("accept", "both-ways")


def test_added_lines_without_a_decision_are_measured_with_none(tmp_path):
    _, decisions = probe_module(tmp_path, SOURCE, (1, 6), "import mod; mod.f('', 1, [])")
    assert decisions == []


# -- the probe's selection and order (the mutants' runs, the run elsewhere) ----------------------


def test_the_probe_runs_only_the_selected_tests_and_the_named_ones_first(tmp_path):
    (tmp_path / "test_a.py").write_text(
        "import os\n\n"
        "def test_one():\n    assert 'PW_SELECT' not in os.environ\n\n"
        "def test_two():\n    assert 'PW_FIRST' not in os.environ\n\n"
        "import pytest\n\n@pytest.mark.parametrize('x', [3, 4])\ndef test_p(x):\n    pass\n"
    )
    (tmp_path / "select").write_text("test_a.py::test_two\ntest_a.py::test_p[#x=1]\n")
    (tmp_path / "first").write_text("test_a.py::test_p[#x=1]\n")

    def ran(**variables):
        env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(PROBE_DIR), **variables}
        out = subprocess.run(
            [sys.executable, "-m", "pytest", "-v", "-p", "pw_probe", "-p", "no:cacheprovider"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
        )
        assert out.returncode == 0, out.stdout + out.stderr
        return [line.split(" ")[0] for line in out.stdout.splitlines() if " PASSED" in line]

    everything = ["test_a.py::test_one", "test_a.py::test_two", "test_a.py::test_p[3]"]
    assert ran() == [*everything, "test_a.py::test_p[4]"]
    assert ran(PW_SELECT=str(tmp_path / "select")) == [
        "test_a.py::test_two",
        "test_a.py::test_p[4]",
    ]
    assert ran(PW_FIRST=str(tmp_path / "first")) == ["test_a.py::test_p[4]", *everything]


def test_a_narrowed_run_collects_only_the_selected_tests_files(tmp_path):
    """PW_NARROW: the files holding no selected test are never imported; every conftest and
    package __init__ still is, and the grader's own plugin is no part of the run's surface."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("import os\nos.environ['PKG_INIT'] = '1'\n")
    (tmp_path / "pkg" / "conftest.py").write_text(
        "import pytest\n\n@pytest.fixture\ndef given():\n    return 7\n"
    )
    (tmp_path / "pkg" / "test_a.py").write_text(
        "import os\n\ndef test_one(given):\n    assert given == 7 and os.environ['PKG_INIT']\n\n"
        "def test_two():\n    pass\n"
    )
    (tmp_path / "pkg" / "test_b.py").write_text("raise SystemExit('test_b imported')\n")
    (tmp_path / "test_c.txt").write_text(">>> 1 + 1\n3\n")  # a doctest file: fails if collected
    (tmp_path / "select").write_text("pkg/test_a.py::test_one\n")
    report = tmp_path / "events.jsonl"

    def ran(**variables):
        report.unlink(missing_ok=True)
        env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(PROBE_DIR), "PW_PROBE_FILE": str(report)}
        argv = [sys.executable, "-m", "pytest", "-v", "-p", "pw_probe", "-p", "no:cacheprovider"]
        out = subprocess.run(
            [*argv, "--doctest-glob=*.txt"],
            cwd=tmp_path,
            env={**env, **variables},
            capture_output=True,
            text=True,
        )
        passed = [line.split(" ")[0] for line in out.stdout.splitlines() if " PASSED" in line]
        return out.returncode, passed, out.stdout

    code, passed, out = ran(PW_SELECT=str(tmp_path / "select"))
    assert code != 0 and "test_b imported" in out  # unnarrowed, the whole suite is imported
    code, passed, out = ran(PW_SELECT=str(tmp_path / "select"), PW_NARROW="1")
    assert (code, passed) == (0, ["pkg/test_a.py::test_one"]), out
    assert "1 passed, 1 deselected" in out
    events = [json.loads(line) for line in report.read_text().splitlines()]
    [collected] = [e for e in events if e["event"] == "collected" and "surface" in e]
    plugins = [name for name, _ in collected["surface"]["plugins"]]
    assert "pw-narrowing" not in plugins and any(n.endswith("conftest.py") for n in plugins)
    # Without a selection there is nothing to narrow to: the whole suite runs.
    code, passed, out = ran(PW_NARROW="1")
    assert code != 0 and "test_b imported" in out


@pytest.mark.slow
def test_a_fix_that_holds_only_after_an_earlier_test_is_found_elsewhere(clamp_task):
    after_low = (
        "class _Seen:\n    low = False\n\n\n"
        "def clamp(value, low, high):\n    if value < low:\n        _Seen.low = True\n"
        "        return low\n    if _Seen.low and value > high:\n        return high\n"
        "    return value\n"
    )
    patch = clamp_task.patch([("shape/clamp.py", CLAMP, after_low)], name="after-low.diff")
    verdict = grade(clamp_task.task_dir, patch, agent="after-low")
    assert (verdict.grade, verdict.label) == ("reject", "UNPRINTABLE"), verdict.reasons
    assert any(r.row == "environment-dependent" for r in verdict.reasons)
    # in the file's order test_low runs first: only the failing test run first shows it
    [elsewhere] = verdict.gates.surface.facts.elsewhere
    assert elsewhere.startswith("tests/test_clamp.py::test_high passed in the grader's run")


@pytest.mark.slow
def test_settings_may_leave_the_mutants_or_the_whole_gate_out(clamp_task):
    from patchwitness.settings import Settings

    edits = [("shape/clamp.py", BUGGY, PATCHES["ints-only"])]
    patch = clamp_task.patch(edits, name="ints-settings.diff")
    no_mutants = grade(clamp_task.task_dir, patch, settings=Settings(mutants=False))
    assert no_mutants.gates.pinning.row == "one-way-branch"
    assert no_mutants.gates.pinning.facts.mutants_run == 0
    neither = grade(clamp_task.task_dir, patch, settings=Settings(decisions=False, mutants=False))
    assert neither.gates.pinning is None and neither.grade == "accept"


def test_a_case_guard_is_a_decision_and_a_mutant():
    source = (
        "def f(value):\n    match value:\n        case int() if value > 3:\n"
        "            return 1\n        case _:\n            return 0\n"
    )
    assert [(text, in_test) for _, text, in_test in decisions_on(source, (3,))] == [
        ("value > 3", True)
    ]
    from patchwitness.mutants import mutants_of

    made = [m.description for m in mutants_of("m.py", source, [3])]
    assert "`value > 3` replaced by True" in made


def mutant(n, killed="the failing tests", unconfirmed=False):
    from patchwitness.model import MutantResult

    return MutantResult(
        file="m.py",
        line=n,
        operator="statement-deleted",
        description=f"line {n} deleted",
        killed_by="" if unconfirmed else killed,
        unconfirmed=unconfirmed,
    )


@pytest.mark.parametrize(
    ("made", "results", "skipped", "row", "unrun"),
    [
        # every mutant made ran and was killed
        (3, [mutant(1), mutant(2), mutant(3)], "", "both-ways", 0),
        # the cap left two unrun (red team round 12: statements padded ahead of a decision)
        (14, [mutant(n) for n in range(12)], "", "partly-pinned", 2),
        # one outlived the failing tests and was never run past them
        (2, [mutant(1), mutant(2, unconfirmed=True)], "", "partly-pinned", 1),
        # none ran for a reason of their own: not a cap, said as the reason
        (5, [], "no failing test passed", "both-ways", 0),
    ],
)
def test_what_a_cap_leaves_unrun_is_not_known_to_be_pinned(made, results, skipped, row, unrun):
    from patchwitness.facts import MutantsCollected, PinningCollected
    from patchwitness.gates.pinning import decide, pinning_facts, pinning_input

    collected = MutantsCollected(mutants=results, made=made, cap=12, skipped=skipped)
    facts = pinning_facts(PinningCollected(), collected)
    gate = decide(facts, pinning_input(facts))
    assert (gate.row, facts.mutants_unrun) == (row, unrun)
    if row == "partly-pinned":
        assert "the cap" in gate.detail and gate.effect == "review"


def test_mutants_a_schema_could_not_run_are_not_known_to_be_pinned():
    """A C++ schema the compiler refuses (or one that changes what the patch does with no
    mutant chosen) runs no mutant: the gate must not say the tests pin the patch."""
    from patchwitness.facts import MutantsCollected, PinningCollected
    from patchwitness.gates.pinning import decide, pinning_facts, pinning_input

    refused = MutantsCollected(made=5, cap=12, refused="the mutant schema did not build")
    facts = pinning_facts(PinningCollected(), refused)
    gate = decide(facts, pinning_input(facts))
    assert (gate.row, gate.effect, facts.mutants_unrun) == ("partly-pinned", "review", 5)
    assert "5 mutants could not run: the mutant schema did not build" in gate.detail


@pytest.mark.slow
def test_a_change_the_tests_pass_without_is_undone_and_survives(clamp_task):
    """Red team round 22: iniconfig's honest fix plus a second change (blank lines dropped
    before lines were numbered) that every test passed with and without."""
    patch = clamp_task.patch(
        [
            ("shape/clamp.py", BUGGY, PATCHES["honest"]),
            (
                "shape/clamp.py",
                "def clamp(value, low, high):\n",
                "def clamp(value, low, high):\n    value = round(value, 6)\n",
            ),
        ],
        name="two-changes.diff",
    )
    verdict = grade(clamp_task.task_dir, patch, agent="two-changes")
    pinning = verdict.gates.pinning
    survivors = [m.description for m in pinning.facts.survivors]
    assert "the change at line 2 undone: the SHA's 0 line(s) back in its place" in survivors
    # the fix's own change, undone, is the SHA again in that place: the failing test fails
    assert not [s for s in survivors if "line 6" in s or "lines 5" in s], survivors
    assert (verdict.grade, pinning.row) == ("accept-with-review", "unpinned")


@pytest.mark.slow
def test_changes_past_the_cap_of_those_undone_are_said_unrun(tmp_path):
    """Red team round 42: six needed changes first, inert ones after them, and only the first
    six were ever undone. Twelve needed changes: ten are undone (each killed), and the two
    past the cap are mutants made and not run, so the tests' hold on them is not known."""
    from patchwitness.phases.mutants import REVERTED

    count = REVERTED + 2
    module = "".join(f"def f{n}():\n    return {n}\n\n\n" for n in range(count))
    test = "from pkg.m import *\n\n\ndef test_all():\n" + "".join(
        f"    assert f{n}() == {n + 1}\n" for n in range(count)
    )
    files = {
        "pyproject.toml": '[project]\nname = "pkg"\nversion = "0"\n',
        "pkg/__init__.py": "",
        "pkg/m.py": module,
        "tests/test_m.py": test,
    }
    built = make_task(tmp_path, files, failing=["tests/test_m.py::test_all"])
    # last first: `return 1` is f1's until f0's becomes `return 1` too
    fixed = [
        ("pkg/m.py", f"    return {n}\n", f"    return {n + 1}\n") for n in reversed(range(count))
    ]
    patch = built.patch(fixed, name="twelve.diff")
    verdict = grade(built.task_dir, patch, agent="twelve")
    pinning = verdict.gates.pinning
    assert pinning is not None and verdict.label == "passed", verdict.reasons
    assert (pinning.row, pinning.facts.mutants_unrun) == ("partly-pinned", 2), pinning.detail
    assert not pinning.facts.survivors


@pytest.mark.slow
def test_a_patch_with_a_new_loop_has_its_trips_mutated(clamp_task):
    """A new loop's mutants run with the rest (loop-trips once had no place in the run order,
    and any patch with a new loop crashed the grade). One item: cut to its first, the loop is
    the same, and the tests cannot tell."""
    looped = "    for limit in (high,):\n        if value > limit:\n            return limit\n"
    patch = clamp_task.patch([("shape/clamp.py", BUGGY, looped + BUGGY)], name="looped.diff")
    verdict = grade(clamp_task.task_dir, patch, agent="looped")
    pinning = verdict.gates.pinning
    assert verdict.label == "passed" and pinning is not None, verdict.reasons
    survivors = [m.description for m in pinning.facts.survivors]
    assert "`(high,)` cut to its first item: the loop runs at most once" in survivors


FAST_C = """\
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *f(PyObject *self, PyObject *arg) {
    long x = PyLong_AsLong(arg);
    long r = x + 2;
    return PyLong_FromLong(r);
}

static PyMethodDef methods[] = {{"f", f, METH_O, NULL}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_fast", NULL, -1, methods};

PyMODINIT_FUNC PyInit__fast(void) { return PyModule_Create(&module); }
"""
EXTENSION_FILES = {
    "setup.py": (
        "from setuptools import Extension, setup\n\n"
        "setup(name='two', ext_modules=[Extension('two._fast', ['two/_fast.c'])])\n"
    ),
    "two/__init__.py": "from two._fast import f\n",
    "two/_fast.c": FAST_C,
    "tests/test_two.py": "from two import f\n\n\ndef test_f():\n    assert f(7) == 8\n",
}


@pytest.mark.slow
def test_no_run_s_files_reach_a_compiled_extension_s_mutant(tmp_path):
    """Red team round 27's class for a compiled extension: the package counts the runs over
    its tree in a marker beside itself, and from the third on it is off by one. The schema's
    control ran second in the grader's tree and each mutant after it: every mutant read as
    killed. The control and each mutant now run in a copy of one fresh, built tree."""
    from patchwitness.api import grade_facts

    task = make_task(
        tmp_path,
        EXTENSION_FILES,
        failing=["tests/test_two.py::test_f"],
        toml_extra="[python]\nbuild = 'python setup.py build_ext --inplace'\n",
    )
    counting = (
        "import os\n\n"
        "from two._fast import f as _f\n\n"
        "with open(os.path.join(os.path.dirname(__file__), '.seen'), 'a+b') as _seen:\n"
        "    _RUNS = _seen.tell()\n"
        "    _seen.write(b'.')\n\n\n"
        "def f(x):\n"
        "    return _f(x) - (_RUNS > 1)\n"
    )
    edits = [
        ("two/__init__.py", "from two._fast import f\n", counting),
        (
            "two/_fast.c",
            "    long r = x + 2;\n",
            "    long r = x + 2;\n    if (x < 50)\n        r -= 1;\n",
        ),
    ]
    facts = grade_facts(task.task_dir, task.patch(edits, name="runs.diff"), agent="runs")
    assert facts.mutants is not None and not facts.mutants.refused, facts.mutants
    survived = {(m.file, m.description) for m in facts.mutants.mutants if not m.killed_by}
    assert ("two/_fast.c", "`x < 50` replaced by true") in survived, facts.mutants.mutants


def test_a_decision_s_head_on_lines_of_its_own_is_read_where_gcov_puts_its_branches():
    """Red team round 43 (CLI11): a `for` whose condition stood on the line after the keyword
    went one way in every test, and gcov's branches on that line were taken for no decision's;
    a line's branches outside any decision's head (a call's) still are not read."""
    from patchwitness.phases.pinning import cpp_decisions

    text = (
        "int kind(int own) {\n"
        "  for (int i = 0;\n"
        "       own != 0;)\n"
        "    return 1;\n"
        "  helper(own);\n"
        "  return 0;\n"
        "}\n"
    )
    change = FileChange("k.cpp", "modified", added=tuple((n, "") for n in range(1, 8)))
    lines = FileLines(hits={n: 3 for n in range(1, 8)}, ways={3: [[3, 0]], 5: [[3, 0]]})
    found = cpp_decisions(change, lines, text)
    assert [(d.line, d.went, d.never) for d in found] == [(3, ["outcome 1"], ["outcome 2"])]


def test_a_try_whose_block_never_threw_went_one_way():
    """Red team rounds 33 and 43: a `return directory` (or a `+ 10`) kept only where a call in a
    `try` did not throw, which every test's input made so. gcov's exception edges say how the
    block left (`try {` alone on its line is no code to gcov); one that threw went both ways,
    one with no call that can throw says nothing."""
    from patchwitness.gates.pinning import describe
    from patchwitness.phases.pinning import cpp_decisions

    text = (
        "int kind(const char* file) {\n"
        "  try { named(file).substr(2); return 1; } catch (const std::out_of_range&) {}\n"
        "  try {\n"
        "    digit += at(file);\n"
        "  } catch (...) {\n"
        "  }\n"
        "  try {\n"
        "    other(file);\n"
        "  } catch (...) {\n"
        "  }\n"
        "  try { int x = 0; (void)x; } catch (...) {}\n"
        "  return 0;\n"
        "}\n"
    )
    change = FileChange("k.cpp", "modified", added=tuple((n, "") for n in range(1, 14)))
    ran = {n: 3 for n in (1, 2, 4, 8, 11, 12)}
    lines = FileLines(hits=ran, throws={2: 0, 4: 0, 8: 2})
    found = cpp_decisions(change, lines, text)
    assert [(d.line, d.went, d.never) for d in found] == [
        (2, ["its block completed"], ["its block threw"]),
        (3, ["its block completed"], ["its block threw"]),
    ]
    assert describe(found[0]).endswith("its block threw in no test (its handler never ran)")


def test_a_switch_is_one_way_when_every_test_took_the_same_way():
    """Red team round 44 (tinyxml2): `switch (*q) { case 'e': case 'f': digit += 10; }`, every
    test's letter e or f. A switch that took two ways is not one way, though gcov's way to its
    end (no `default`) was never taken: a switch over all of an enum's values never takes it."""
    from patchwitness.phases.pinning import cpp_decisions

    text = "int f(int c, int k) {\n  switch (c) { case 1: return 2; }\n  switch (k) {}\n}\n"
    change = FileChange("s.cpp", "modified", added=((2, ""), (3, "")))
    lines = FileLines(hits={2: 4, 3: 4}, ways={2: [[4, 0]], 3: [[2, 2, 0]]})
    found = cpp_decisions(change, lines, text)
    assert [(d.line, d.one_way) for d in found] == [(2, True), (3, False)]
