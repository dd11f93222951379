"""SWE-bench in and out: instances imported as a bag, predictions as a bag's patches, and the
harness's run report from a results database."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from patchwitness import swebench
from patchwitness.bag import discover
from patchwitness.cli import app
from patchwitness.demo import build
from patchwitness.model import Verdict
from patchwitness.patch import sha256_of
from patchwitness.store import ResultsDB
from patchwitness.swebench import SwebenchError, run_report
from patchwitness.task import load_task

from .conftest import SETUP

# -- a small real repository with a bug, and its SWE-bench instance -------------------------------

FILES = {
    "calc/__init__.py": "def absolute(x):\n    return x\n\n\ndef double(x):\n    return x * 2\n",
    "tests/test_calc.py": (
        "from calc import double\n\n\ndef test_double():\n    assert double(2) == 4\n"
    ),
    "docs/index.md": "calc\n",
}
HIDDEN_TESTS = {
    **FILES,
    "tests/test_calc.py": FILES["tests/test_calc.py"].replace(
        "from calc import double", "from calc import absolute, double"
    )
    + "\n\ndef test_absolute_negative():\n    assert absolute(-3) == 3\n",
}
GOLD = {
    **FILES,
    "calc/__init__.py": FILES["calc/__init__.py"].replace(
        "    return x\n", "    return -x if x < 0 else x\n", 1
    ),
}
# Changes the code, fixes nothing: the hidden test stays red.
WRONG = {
    **FILES,
    "calc/__init__.py": FILES["calc/__init__.py"].replace(
        "    return x\n", "    return int(x)\n", 1
    ),
}
F2P = ["tests/test_calc.py::test_absolute_negative"]
P2P = ["tests/test_calc.py::test_double"]
ID = "acme__calc-1"


def make_clone(repos: Path, layout: str = "acme__calc") -> str:
    return build.make_repo(repos / layout, FILES)


def instance(sha: str, **over) -> dict:
    data = {
        "instance_id": ID,
        "repo": "acme/calc",
        "base_commit": sha,
        "FAIL_TO_PASS": json.dumps(F2P),  # a JSON string, as in the Hugging Face dataset
        "PASS_TO_PASS": P2P,
        "test_patch": build.make_diff(FILES, HIDDEN_TESTS),
        "patch": build.make_diff(FILES, GOLD),
        "problem_statement": "absolute() returns negatives",
    }
    data.update(over)
    return data


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def invoke(*args: object):
    return CliRunner().invoke(app, [str(a) for a in args])


def import_swebench(instances: Path, repos: Path, bag: Path, *options: object):
    return invoke("import", "swebench", instances, "--repos", repos, "--out", bag, *options)


def said(done) -> str:
    """The command's output with rich's line wrapping undone."""
    return " ".join(done.output.split())


@pytest.fixture
def world(tmp_path):
    """A clone under repos/, and an instances file: one importable pytest instance, one
    django-style instance, one whose clone is missing."""
    sha = make_clone(tmp_path / "repos")
    rows = [
        instance(sha),
        instance(sha, instance_id="acme__calc-2", FAIL_TO_PASS=["test_abs (calc.tests.AbsTest)"]),
        instance(sha, instance_id="acme__other-3", repo="acme/other"),
    ]
    return tmp_path, sha, write_jsonl(tmp_path / "instances.jsonl", rows)


# -- (1) the run report, row by row ------------------------------------------------------------

EMPTY = sha256_of(b"")


def verdict(task: str, grade: str, label: str, agent: str = "m", patch: bytes = b"x") -> Verdict:
    return Verdict(task=task, agent=agent, patch_sha256=sha256_of(patch), grade=grade, label=label)


ROWS = [
    # (task, grade, label, patch) -> where the harness would count it
    (("resolved", "accept", "passed", b"x"), "resolved"),
    (("authored", "accept", "tests-authored", b"x"), "resolved"),
    (("review", "accept-with-review", "passed", b"x"), "resolved"),
    (("unprintable", "reject", "UNPRINTABLE", b"x"), "unprintable"),
    (("failed", "reject", "failed", b"x"), "unresolved"),
    (("noop", "reject", "no-op", b"x"), "unresolved"),
    (("uncovered", "reject", "uncovered", b"x"), "unresolved"),
    (("matrix", "reject", "matrix-red", b"x"), "unresolved"),
    (("timeout", "reject", "timeout", b"x"), "unresolved"),
    (("apply", "reject", "apply-failed", b"x"), "error"),
    (("invalid", "ungradable", "invalid-task", b"x"), "error"),
    (("tool", "ungradable", "error", b"x"), "error"),
    (("empty", "reject", "no-op", b""), "empty"),
    (("empty-broken-task", "ungradable", "invalid-task", b""), "empty"),
]


@pytest.mark.parametrize(("row", "kind"), ROWS, ids=[r[0][0] for r in ROWS])
def test_each_verdict_is_counted_where_the_harness_would(row, kind):
    task, grade, label, patch = row
    assert swebench.outcome(verdict(task, grade, label, patch=patch)) == kind


def test_the_run_report_has_the_harness_shape_and_reconciles():
    verdicts = [verdict(t, g, lab, patch=p) for (t, g, lab, p), _ in ROWS]
    crashes = [
        {"task": "crashed", "agent": "m", "patch_sha256": sha256_of(b"x")},
        {"task": "crashed-empty", "agent": "m", "patch_sha256": EMPTY},
        {"task": "failed", "agent": "m", "patch_sha256": sha256_of(b"y")},  # a verdict outranks
        {"task": "other-agent", "agent": "n", "patch_sha256": sha256_of(b"x")},
    ]
    report = run_report(verdicts, crashes, agent="m")
    assert list(report)[:15] == [
        "total_instances",
        "submitted_instances",
        "completed_instances",
        "resolved_instances",
        "unresolved_instances",
        "empty_patch_instances",
        "error_instances",
        "completed_ids",
        "incomplete_ids",
        "empty_patch_ids",
        "submitted_ids",
        "resolved_ids",
        "unresolved_ids",
        "error_ids",
        "schema_version",
    ]
    assert report["schema_version"] == 2
    assert report["resolved_ids"] == ["authored", "resolved", "review"]
    assert report["review_ids"] == ["review"]
    assert report["unprintable_ids"] == ["unprintable"]
    assert report["unresolved_ids"] == [
        "failed",
        "matrix",
        "noop",
        "timeout",
        "uncovered",
        "unprintable",
    ]
    assert report["error_ids"] == ["apply", "crashed", "invalid", "tool"]
    assert report["empty_patch_ids"] == ["crashed-empty", "empty", "empty-broken-task"]
    assert report["completed_ids"] == sorted(report["resolved_ids"] + report["unresolved_ids"])
    # as the harness counts: an empty prediction was submitted, and is never completed
    assert report["submitted_ids"] == sorted(
        report["completed_ids"] + report["error_ids"] + report["empty_patch_ids"]
    )
    assert report["incomplete_ids"] == []
    counts = {k: report[k] for k in report if k.endswith("_instances")}
    assert counts == {
        "total_instances": len(ROWS) + 2,
        "submitted_instances": 16,
        "completed_instances": 9,
        "resolved_instances": 3,
        "unresolved_instances": 6,
        "empty_patch_instances": 3,
        "error_instances": 4,
    }
    assert counts["resolved_instances"] + counts["unresolved_instances"] == 9
    assert 9 + counts["empty_patch_instances"] + counts["error_instances"] == len(ROWS) + 2


def test_a_later_verdict_of_a_task_replaces_an_earlier_one():
    first = verdict("t", "reject", "failed", patch=b"old")
    again = verdict("t", "accept", "passed", patch=b"new")
    assert run_report([first, again])["resolved_ids"] == ["t"]
    assert run_report([again, first])["unresolved_ids"] == ["t"]


def test_the_agent_must_be_named_when_there_are_several():
    verdicts = [verdict("t", "accept", "passed", agent="a"), verdict("t", "reject", "failed", "b")]
    crashes = [{"task": "u", "agent": "c", "patch_sha256": EMPTY}]
    with pytest.raises(SwebenchError, match="3 agents; pick one with --agent: a, b, c"):
        run_report(verdicts, crashes)
    assert run_report(verdicts, crashes, agent="b")["unresolved_ids"] == ["t"]
    assert run_report(verdicts, crashes, agent="c")["empty_patch_ids"] == ["u"]
    with pytest.raises(SwebenchError, match="no verdicts for agent 'd'; agents: a, b, c"):
        run_report(verdicts, crashes, agent="d")
    with pytest.raises(SwebenchError, match="no verdicts"):
        run_report([], [])


def results_db(path: Path, verdicts: list[Verdict]) -> Path:
    store = ResultsDB(path)
    for v in verdicts:
        store.put_verdict(v)
    store.close()
    return path


def test_report_writes_the_run_report_of_the_chosen_agent(tmp_path):
    db = results_db(
        tmp_path / "r.db",
        [verdict("t1", "accept", "passed", "org/a"), verdict("t1", "reject", "UNPRINTABLE", "b")],
    )
    out = tmp_path / "report.json"
    refused = invoke("report", db, "--swebench", out)
    assert refused.exit_code == 2, refused.output
    assert "pick one with --agent: b, org/a" in said(refused)
    assert "Traceback" not in refused.output and not out.exists()
    done = invoke("report", db, "--swebench", out, "--agent", "org/a")
    assert done.exit_code == 0, done.output
    assert json.loads(out.read_text())["resolved_ids"] == ["t1"]
    assert "SWE-bench run report of org/a: 1 resolved" in said(done)
    assert invoke("report", db, "--agent", "b").exit_code == 2  # --agent without --swebench


def test_report_refuses_to_name_held_out_tasks_unless_revealed(tmp_path):
    db = results_db(tmp_path / "r.db", [verdict("secret", "accept", "passed")])
    store = ResultsDB(db)
    store.put_task("secret", str(tmp_path), "0" * 40, "python", True, "")
    store.close()
    out = tmp_path / "report.json"
    refused = invoke("report", db, "--swebench", out)
    assert refused.exit_code == 2 and "held-out" in said(refused) and not out.exists()
    assert invoke("report", db, "--swebench", out, "--reveal").exit_code == 0
    assert json.loads(out.read_text())["resolved_ids"] == ["secret"]


# -- (2) import ----------------------------------------------------------------------------------


def test_import_writes_one_task_per_pytest_instance(world):
    root, sha, instances = world
    bag = root / "bag"
    done = import_swebench(instances, root / "repos", bag, "--setup", f"acme/calc={SETUP}")
    assert done.exit_code == 0, done.output
    assert "1 imported, 2 skipped (3 instances)" in said(done)
    assert (
        "acme__calc-2: runner is not pytest: FAIL_TO_PASS id 'test_abs (calc.tests.AbsTest)'"
        in said(done)
    )
    assert "acme__other-3: no clone of acme/other" in said(done)
    assert sorted(p.name for p in bag.iterdir()) == [ID]  # nothing for the skipped, no staging
    task = bag / ID
    assert sorted(p.name for p in task.iterdir()) == [
        "allow_test_edits.json",
        "failing_nodeids.txt",
        "pass_to_pass.txt",
        "reference.diff",
        "repo.lock",
        "task.toml",
        "test_cmd.txt",
        "test_patch.diff",
    ]
    assert (task / "repo.lock").read_text() == sha + "\n"
    assert (task / "failing_nodeids.txt").read_text() == F2P[0] + "\n"
    assert (task / "pass_to_pass.txt").read_text() == P2P[0] + "\n"
    assert (task / "allow_test_edits.json").read_text() == "false\n"
    assert (task / "test_patch.diff").read_text() == build.make_diff(FILES, HIDDEN_TESTS)
    # The instance's `patch` is the task's reference fix, as a grade reads it.
    assert (task / "reference.diff").read_text() == build.make_diff(FILES, GOLD)
    # Only tests/ is touched by the hidden tests: docs/ and calc/ are not named.
    assert (task / "test_cmd.txt").read_text() == "python -m pytest -rA -p no:cacheprovider tests\n"
    clone = (root / "repos" / "acme__calc").resolve()
    assert (task / "task.toml").read_text() == (
        f'language = "python"\nrepo = "{clone}"\nsetup = {json.dumps(SETUP)}\n'
    )
    loaded = load_task(task)  # as a grade reads it
    assert loaded.repo == clone and loaded.options.setup == SETUP
    assert loaded.reference == build.make_diff(FILES, GOLD).encode()
    assert loaded.failing_ids == F2P and loaded.pass_to_pass == P2P
    assert loaded.hidden_tests == build.make_diff(FILES, HIDDEN_TESTS).encode()
    assert loaded.allow_test_edits is False


def test_import_options_override_the_test_command_and_allow_test_edits(world):
    root, _, instances = world
    bag = root / "bag"
    done = import_swebench(
        instances,
        root / "repos",
        bag,
        "--test-cmd",
        "acme/calc=python -m pytest -x tests/test_calc.py",
        "--allow-test-edits",
    )
    assert done.exit_code == 0, done.output
    assert (bag / ID / "test_cmd.txt").read_text() == "python -m pytest -x tests/test_calc.py\n"
    assert (bag / ID / "allow_test_edits.json").read_text() == "true\n"
    assert "setup" not in (bag / ID / "task.toml").read_text()
    assert "no --setup for acme/calc" in said(done)


def test_import_reads_a_json_array_and_replaces_an_earlier_import(tmp_path):
    sha = make_clone(tmp_path / "repos" / "acme", "calc")  # DIR/owner/name
    bag = tmp_path / "bag"
    old = bag / ID
    old.mkdir(parents=True)
    (old / "stale.txt").write_text("from an earlier import\n")
    rows = [instance(sha, PASS_TO_PASS=None, patch=None)]
    (tmp_path / "instances.json").write_text(json.dumps(rows, indent=2))
    done = import_swebench(tmp_path / "instances.json", tmp_path / "repos", bag)
    assert done.exit_code == 0, done.output
    names = {p.name for p in (bag / ID).iterdir()}
    assert "stale.txt" not in names and "reference.diff" not in names
    assert "pass_to_pass.txt" not in names  # the instance says nothing: every green test counts
    assert load_task(bag / ID).pass_to_pass is None


def test_import_skips_a_commit_the_clone_lacks_and_exits_2_when_nothing_imports(tmp_path):
    sha = make_clone(tmp_path / "repos", "calc")  # DIR/name
    rows = [instance("f" * 40), instance(sha, instance_id="garbled", test_patch="not a diff\n")]
    done = invoke(
        "import",
        "swebench",
        write_jsonl(tmp_path / "i.jsonl", rows),
        "--repos",
        tmp_path / "repos",
        "--out",
        tmp_path / "bag",
    )
    assert done.exit_code == 2
    assert f"base_commit ffffffffffff is not in {(tmp_path / 'repos' / 'calc').resolve()}" in said(
        done
    )
    assert "garbled: test_patch is not a usable patch: patch holds no file changes" in said(done)
    assert "0 imported, 2 skipped" in said(done)
    assert list((tmp_path / "bag").iterdir()) == []


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "i.jsonl:2: not JSON"),
        ('["a list"]', "i.jsonl:2: expected a JSON object, found list"),
        ('{"instance_id": "x"}', "i.jsonl:2: repo must be a non-empty string, found nothing"),
        ('{"instance_id": "../up", "repo": "a/b"}', "i.jsonl:2: instance_id '../up' cannot name"),
        (
            '{"instance_id": "x", "repo": "a/b", "base_commit": "' + "a" * 40 + '", '
            '"FAIL_TO_PASS": "[oops", "test_patch": "d"}',
            "i.jsonl:2: FAIL_TO_PASS is a string but not a JSON list",
        ),
    ],
)
def test_a_malformed_instance_line_is_a_clean_error_naming_it(tmp_path, line, message):
    sha = make_clone(tmp_path / "repos")
    path = tmp_path / "i.jsonl"
    path.write_text(json.dumps(instance(sha)) + "\n" + line + "\n")
    done = import_swebench(path, tmp_path / "repos", tmp_path / "b")
    assert done.exit_code == 2
    assert message in said(done)
    assert "Traceback" not in done.output and not (tmp_path / "b").exists()


def test_an_instance_listed_twice_and_a_bad_assignment_are_clean_errors(tmp_path):
    sha = make_clone(tmp_path / "repos")
    twice = write_jsonl(tmp_path / "i.jsonl", [instance(sha), instance(sha)])
    done = import_swebench(twice, tmp_path / "repos", tmp_path)
    assert done.exit_code == 2 and f"i.jsonl:2: {ID} again (first at" in said(done)
    once = write_jsonl(tmp_path / "j.jsonl", [instance(sha)])
    bad = import_swebench(once, tmp_path / "repos", tmp_path, "--setup", "acme/calc")
    assert bad.exit_code == 2 and "expected REPO=COMMAND" in said(bad)


def test_clones_are_looked_for_in_the_harness_spelling_first(tmp_path):
    repos = tmp_path / "repos"
    assert swebench.find_clone(repos, "acme/calc") is None
    make_clone(repos, "calc")
    assert swebench.find_clone(repos, "acme/calc") == (repos / "calc").resolve()
    make_clone(repos, "acme/calc")
    assert swebench.find_clone(repos, "acme/calc") == (repos / "acme" / "calc").resolve()
    make_clone(repos, "acme__calc")
    assert swebench.find_clone(repos, "acme/calc") == (repos / "acme__calc").resolve()


def test_the_test_command_names_the_hidden_tests_directories_as_the_sha_has_them(tmp_path):
    clone = tmp_path / "repos" / "acme__calc"
    files = {**FILES, "tests/unit/test_u.py": "def test_u():\n    pass\n"}
    sha = build.make_repo(clone, files)
    after = {
        **files,
        "tests/unit/test_u.py": "def test_u():\n    assert True\n",
        "tests/new/deeper/test_n.py": "def test_n():\n    pass\n",  # a directory the SHA lacks
        "docs/test_doc.py": "def test_doc():\n    pass\n",
    }
    patch = build.make_diff(files, after).encode()
    assert swebench.hidden_test_dirs(clone, sha, patch) == ["docs", "tests", "tests/unit"]
    root_file = build.make_diff(files, {**files, "test_top.py": "def test_top():\n    pass\n"})
    assert swebench.default_test_cmd(clone, sha, root_file.encode()) == (
        "python -m pytest -rA -p no:cacheprovider ."
    )


def test_an_id_without_a_file_is_not_pytest():
    assert swebench.not_pytest(["tests/a.py::test_x", "tests/a.py::C::test_y[1-2]"]) is None
    assert "'test_x'" in swebench.not_pytest(["tests/a.py::t", "test_x"])  # sympy's bare names
    assert swebench.not_pytest([]) == "no FAIL_TO_PASS ids"


def test_toml_strings_survive_quotes_backslashes_and_control_characters():
    import tomllib

    nasty = 'a "b" \\c\n\t\x7f é $PW_ENV'
    assert tomllib.loads(f"v = {swebench.toml_string(nasty)}")["v"] == nasty


# -- (3) predictions -> jobs ---------------------------------------------------------------------


def bag_of(root: Path, *names: str) -> Path:
    for name in names:
        (root / "bag" / name).mkdir(parents=True)
        (root / "bag" / name / "repo.lock").write_text("0" * 40 + "\n")
    return root / "bag"


def test_predictions_become_one_agent_per_model_with_missing_patches(tmp_path):
    bag = bag_of(tmp_path, "t1", "t2")
    predictions = write_jsonl(
        tmp_path / "preds.jsonl",
        [
            {"instance_id": "t1", "model_name_or_path": "org/model-a", "model_patch": "diff a1"},
            {"instance_id": "t2", "model_name_or_path": "org/model-a", "model_patch": ""},
            {"instance_id": "t2", "model_name_or_path": "b", "model_patch": "diff b2"},
            {"instance_id": "t1", "model_name_or_path": "c", "model_patch": None},
            {"instance_id": "elsewhere", "model_name_or_path": "b", "model_patch": "diff"},
        ],
    )
    db = tmp_path / "out" / "results.db"
    stale = tmp_path / "out" / "results-predictions" / "org_model-a" / "t2.diff"
    stale.parent.mkdir(parents=True)
    stale.write_text("an earlier run's patch\n")
    tasks, agents, jobs = discover(bag, predictions, db)
    assert [t.name for t in tasks] == ["t1", "t2"]
    assert agents == ["b", "c", "org/model-a"]
    written = tmp_path / "out" / "results-predictions"
    got = {(j.task_dir.name, j.agent): j.patch for j in jobs}
    assert got == {
        ("t1", "b"): None,  # no prediction from b for t1
        ("t1", "c"): None,  # a null model_patch
        ("t1", "org/model-a"): written / "org_model-a" / "t1.diff",
        ("t2", "b"): written / "b" / "t2.diff",
        ("t2", "c"): None,
        ("t2", "org/model-a"): None,  # an empty model_patch
    }
    assert (written / "org_model-a" / "t1.diff").read_text() == "diff a1"
    assert (written / "b" / "t2.diff").read_text() == "diff b2"
    assert not stale.exists()
    assert not (written / "b" / "elsewhere.diff").exists()
    read = swebench.read_predictions(predictions)
    unknown = swebench.unknown_predictions(read, {"t1", "t2"})
    assert [(p.model, p.instance_id) for p in unknown] == [("b", "elsewhere")]


def test_a_jsonl_line_may_hold_raw_line_separators(tmp_path):
    patch = "+x = '\u2028\x85'\n"
    path = tmp_path / "p.jsonl"
    row = {"instance_id": "t1", "model_name_or_path": "m", "model_patch": patch}
    path.write_text(
        json.dumps(row, ensure_ascii=False) + "\n" + json.dumps(row | {"instance_id": "t2"})
    )
    assert [p.patch for p in swebench.read_predictions(path)] == [patch, patch]


def test_predictions_are_read_from_a_json_array_and_the_dict_form(tmp_path):
    rows = [{"instance_id": "t1", "model_name_or_path": "m", "model_patch": "p"}]
    array = tmp_path / "a.json"
    array.write_text(json.dumps(rows, indent=2))
    keyed = tmp_path / "k.json"
    keyed.write_text(json.dumps({"t1": {"model_name_or_path": "m", "model_patch": "p"}}, indent=1))
    for path in (array, keyed):
        [read] = swebench.read_predictions(path)
        assert (read.instance_id, read.model, read.patch) == ("t1", "m", "p")


def test_model_names_that_share_a_safe_name_get_apart():
    names = swebench.safe_names(["org/m", "org_m", ".hidden", "a b/c"])
    assert names["org/m"] == "org_m-" + sha256_of(b"org/m")[:8]
    assert names["org_m"] == "org_m"
    assert names[".hidden"] == "_.hidden"
    assert names["a b/c"] == "a_b_c"
    assert len(set(names.values())) == 4


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([{"instance_id": "t1", "model_patch": "p"}], "model_name_or_path must be a non-empty"),
        ([{"instance_id": "t1", "model_name_or_path": "m", "model_patch": 3}], "string or null"),
        (
            [{"instance_id": "t1", "model_name_or_path": "m", "model_patch": "p"}] * 2,
            "p.jsonl:2: m / t1 again (first at",
        ),
        ([], "no predictions"),
    ],
)
def test_malformed_predictions_are_clean_errors(tmp_path, rows, message):
    bag = bag_of(tmp_path, "t1")
    path = write_jsonl(tmp_path / "p.jsonl", rows)
    done = invoke("bag", "run", bag, path, "--db", tmp_path / "r.db", "--sandbox", "none")
    assert done.exit_code == 2
    assert message in said(done) and "Traceback" not in done.output
    assert not (tmp_path / "r.db").exists()


def prediction(model: str, patch: str) -> dict:
    return {"instance_id": ID, "model_name_or_path": model, "model_patch": patch}


# -- (4) the round trip --------------------------------------------------------------------------


@pytest.mark.slow
def test_import_grade_and_report_round_trip(tmp_path):
    sha = make_clone(tmp_path / "repos")
    instances = write_jsonl(tmp_path / "instances.jsonl", [instance(sha)])
    bag = tmp_path / "bag"
    imported = import_swebench(instances, tmp_path / "repos", bag, "--setup", f"acme/calc={SETUP}")
    assert imported.exit_code == 0, imported.output
    predictions = write_jsonl(
        tmp_path / "predictions.jsonl",
        [
            prediction("gold", build.make_diff(FILES, GOLD)),
            prediction("org/empty", ""),
            prediction("wrong", build.make_diff(FILES, WRONG)),
        ],
    )
    db = tmp_path / "results.db"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "patchwitness.cli",
            "bag",
            "run",
            str(bag),
            str(predictions),
            "--db",
            str(db),
            "--jobs",
            "2",
            "--baseline-runs",
            "1",
            "--sandbox",
            "none",
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    store = ResultsDB(db)
    verdicts = {v.agent: v for v in store.verdicts()}
    graded = {a: (v.label, v.grade, [r.row for r in v.reasons]) for a, v in verdicts.items()}
    store.close()
    # The instance's gold patch is the task's reference: the gold prediction is compared with
    # it, and does what it does.
    compared = verdicts["gold"].gates.reference
    assert compared is not None and compared.row == "same-as-reference", graded
    reports = {}
    for agent in ("gold", "org/empty", "wrong"):
        out = tmp_path / f"{agent.replace('/', '_')}.json"
        done = invoke("report", db, "--swebench", out, "--agent", agent)
        assert done.exit_code == 0, done.output
        reports[agent] = json.loads(out.read_text())
    assert reports["gold"]["resolved_ids"] == [ID], graded
    assert reports["org/empty"]["empty_patch_ids"] == [ID], graded
    # The harness counts an empty prediction as submitted, and never as completed.
    assert reports["org/empty"]["submitted_ids"] == [ID], graded
    assert reports["org/empty"]["completed_ids"] == [], graded
    assert reports["wrong"]["unresolved_ids"] == [ID], graded
    assert reports["wrong"]["resolved_ids"] == [], graded
    for report in reports.values():
        assert report["total_instances"] == 1
