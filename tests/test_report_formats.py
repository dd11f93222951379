"""SARIF (validated against the vendored official schema), JUnit XML and JSON Lines."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest

from patchwitness.model import Finding, Verdict
from patchwitness.report.jsonl import read_jsonl, render_jsonl
from patchwitness.report.junit import render_junit
from patchwitness.report.sarif import render_sarif
from tests.test_report_matrix import (
    HOSTILE,
    REMOVED_KEY,
    bag,
    invalid,
    matrix_red,
    passed,
    uncovered,
    vandal,
)

# The OASIS SARIF 2.1.0 schema (errata 01), vendored because CI reaches no schema host.
SCHEMA = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"


def all_kinds() -> list[Verdict]:
    return [*bag(), invalid("ring", "lazy"), vandal("secret", "vandal")]


@pytest.fixture(scope="module")
def validator() -> jsonschema.protocols.Validator:
    schema = json.loads(SCHEMA.read_text())
    assert schema["id"].endswith("/sarif-schema-2.1.0.json")
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def sarif(verdicts: list[Verdict], **kwargs) -> dict:
    return json.loads(render_sarif(verdicts, **kwargs))


def results_for(log: dict, task: str, agent: str) -> list[dict]:
    return [
        r
        for r in log["runs"][0]["results"]
        if r["properties"]["task"] == task and r["properties"]["agent"] == agent
    ]


def physical(result: dict) -> dict | None:
    return result["locations"][0].get("physicalLocation")


# -- SARIF -------------------------------------------------------------------------------------


@pytest.mark.parametrize("held", [set(), {"secret"}])
def test_sarif_is_valid_against_the_official_schema(validator, held):
    log = sarif(all_kinds(), held_out=held)
    errors = sorted(validator.iter_errors(log), key=lambda err: list(err.path))
    assert not errors, "\n".join(f"{list(err.path)}: {err.message}" for err in errors[:5])
    assert log["version"] == "2.1.0" and len(log["runs"]) == 1
    assert log["runs"][0]["tool"]["driver"]["name"] == "patchwitness"


def test_sarif_has_a_result_per_finding_and_per_rejecting_reason(validator):
    log = sarif(all_kinds())
    rules = [r["id"] for r in log["runs"][0]["tool"]["driver"]["rules"]]
    assert len(rules) == len(set(rules))
    for result in log["runs"][0]["results"]:
        assert rules[result["ruleIndex"]] == result["ruleId"]
        assert result["partialFingerprints"]["patchwitness/v1"]
    mine = results_for(log, "checkout", "vandal")
    ids = sorted(r["ruleId"] for r in mine)
    assert ids == [
        "finding/drift/gaming-code",
        "finding/drift/report-problem",
        "gate/census/witness-deleted",
        "gate/drift/tests-removed",
    ]
    assert all(r["level"] == "error" for r in mine)
    # The honest pass and its accepting reasons yield nothing.
    assert results_for(log, "checkout", "honest") == []


def test_sarif_locations_come_from_the_verdicts_facts():
    log = sarif(all_kinds())
    by_rule = {r["ruleId"]: r for r in results_for(log, "checkout", "vandal")}
    gaming = physical(by_rule["finding/drift/gaming-code"])
    assert gaming["artifactLocation"]["uri"] == "src/shop/checkout.py"
    assert gaming["region"]["startLine"] == 3
    # A finding without a file: a logical location only.
    problem = by_rule["finding/drift/report-problem"]["locations"][0]
    assert "physicalLocation" not in problem
    assert problem["logicalLocations"][0]["fullyQualifiedName"] == "checkout/vandal"
    # Census key "kind|file|scope|name|fp": the file, no line.
    census = by_rule["gate/census/witness-deleted"]
    assert physical(census)["artifactLocation"]["uri"] == REMOVED_KEY.split("|")[1]
    assert "region" not in physical(census)
    # Removed test ids locate their test file.
    removed = physical(by_rule["gate/drift/tests-removed"])
    assert removed["artifactLocation"]["uri"] == "tests/test_x.py"
    # Coverage: zero-hit "file:line" first, unscored lines after it.
    (cov,) = [r for r in results_for(log, "tax", "vandal") if r["ruleId"].startswith("gate/")]
    assert physical(cov)["artifactLocation"]["uri"] == "src/shop/tax.py"
    assert physical(cov)["region"]["startLine"] == 12
    related = cov["relatedLocations"][0]["physicalLocation"]
    assert (related["artifactLocation"]["uri"], related["region"]["startLine"]) == (
        "src/shop/rates.py",
        4,
    )


def test_sarif_covers_matrix_and_ungradable_verdicts():
    log = sarif(all_kinds())
    (red,) = results_for(log, "ring", "honest")
    assert red["ruleId"] == "gate/matrix/red-cell" and red["level"] == "error"
    assert "physicalLocation" not in red["locations"][0]
    (lazy,) = results_for(log, "ring", "lazy")
    assert lazy["ruleId"] == "gate/grade/invalid-task" and lazy["level"] == "warning"


def test_sarif_fingerprints_are_stable_and_distinct():
    one = sarif(all_kinds())["runs"][0]["results"]
    two = sarif(list(reversed(all_kinds())))["runs"][0]["results"]
    prints = [r["partialFingerprints"]["patchwitness/v1"] for r in one]
    assert prints == [r["partialFingerprints"]["patchwitness/v1"] for r in two]
    assert len(set(prints)) == len(prints)


def test_sarif_hides_held_out_tasks_but_not_their_rejects():
    log = sarif(all_kinds(), held_out={"secret"})
    text = json.dumps(log)
    assert "secret" not in text
    (hidden,) = results_for(log, "held-out #1", "vandal")
    assert hidden["ruleId"] == "gate/report/held-out" and hidden["level"] == "error"
    assert "physicalLocation" not in hidden["locations"][0]
    revealed = sarif(all_kinds(), held_out={"secret"}, reveal=True)
    assert len(results_for(revealed, "secret", "vandal")) == 4


def test_sarif_uri_is_escaped(validator):
    v = passed("t", "a")
    v.grade, v.label = "reject", "UNPRINTABLE"
    v.findings = [Finding(gate="drift", kind="odd", message="m", file="dir with space/ä#.py")]
    log = sarif([v])
    assert not list(validator.iter_errors(log))
    assert physical(log["runs"][0]["results"][0])["artifactLocation"]["uri"] == (
        "dir%20with%20space/%C3%A4%23.py"
    )


# -- JUnit -------------------------------------------------------------------------------------


def parse_junit(text: str) -> ET.Element:
    return ET.fromstring(text.encode())


def test_junit_one_testcase_per_task_and_agent():
    verdicts = all_kinds()
    root = parse_junit(render_junit(verdicts))
    cases = root.findall("./testsuite/testcase")
    assert len(cases) == len(verdicts)
    assert {(c.get("classname"), c.get("name")) for c in cases} == {
        (v.task, v.agent) for v in verdicts
    }
    assert root.get("tests") == str(len(verdicts))
    assert root.get("failures") == str(sum(v.grade == "reject" for v in verdicts))
    assert root.get("errors") == "1" and root.get("skipped") == "0"
    assert root.findall(".//skipped") == []


def test_junit_failure_message_is_the_reasons_one_line_each():
    root = parse_junit(render_junit(all_kinds()))
    case = root.find("./testsuite/testcase[@classname='checkout'][@name='vandal']")
    failure = case.find("failure")
    assert failure.get("type") == "UNPRINTABLE"
    assert failure.get("message").splitlines() == [
        f"drift / tests-removed: tests_removed: {HOSTILE}",
        f"census / witness-deleted: removed: {REMOVED_KEY}",
    ]
    assert "src/shop/checkout.py:3" in failure.text
    props = {p.get("name"): p.get("value") for p in case.findall("./properties/property")}
    assert props["grade"] == "reject" and props["label"] == "UNPRINTABLE"
    assert props["patch_sha256"] == "b" * 64
    assert props["fingerprint"] == vandal("checkout", "vandal").fingerprint.digest


def test_junit_error_for_ungradable_and_nothing_for_accept():
    root = parse_junit(render_junit(all_kinds()))
    lazy = root.find("./testsuite/testcase[@name='lazy']")
    assert lazy.find("error").get("type") == "invalid-task"
    assert lazy.find("failure") is None
    honest = root.find("./testsuite/testcase[@classname='checkout'][@name='honest']")
    assert honest.find("failure") is None and honest.find("error") is None


def test_junit_survives_control_characters_and_hides_held_out():
    v = uncovered("t", "a")
    v.reasons[1] = v.reasons[1].model_copy(update={"detail": "bell\x07 and nul\x00"})
    root = parse_junit(render_junit([v, matrix_red("secret", "a")], held_out={"secret"}))
    case = root.find("./testsuite/testcase[@classname='t']")
    assert "bell\\x07 and nul\\x00" in case.find("failure").get("message")
    hidden = root.find("./testsuite/testcase[@classname='held-out #1']")
    assert hidden.find("failure") is not None  # a reject is never hidden, only its details
    assert "secret" not in render_junit([matrix_red("secret", "a")], held_out={"secret"})


# -- JSON Lines --------------------------------------------------------------------------------


def test_jsonl_round_trips_in_stable_order():
    verdicts = all_kinds()
    text = render_jsonl(verdicts)
    assert text == render_jsonl(list(reversed(verdicts)))
    lines = text.splitlines()
    assert len(lines) == len(verdicts)
    back = read_jsonl(text)
    assert [Verdict.model_validate_json(line) for line in lines] == back
    assert sorted(back, key=lambda v: (v.task, v.agent)) == sorted(
        verdicts, key=lambda v: (v.task, v.agent)
    )
    assert [(v.task, v.agent) for v in back] == sorted((v.task, v.agent) for v in back)


def test_jsonl_redacts_held_out_unless_revealed():
    verdicts = all_kinds()
    hidden = read_jsonl(render_jsonl(verdicts, held_out={"secret"}))
    assert "secret" not in render_jsonl(verdicts, held_out={"secret"})
    assert hidden[-1].task == "held-out #1" and hidden[-1].label == "UNPRINTABLE"
    revealed = read_jsonl(render_jsonl(verdicts, held_out={"secret"}, reveal=True))
    assert vandal("secret", "vandal") in revealed


def test_the_schema_check_bites(validator):
    """The vendored schema really constrains a result: a wrong level and a missing message fail."""
    log = sarif(all_kinds())
    result = log["runs"][0]["results"][0]
    result["level"] = "fatal"
    del result["message"]
    messages = " ".join(err.message for err in validator.iter_errors(log))
    assert "'fatal' is not one of" in messages
    assert "'message' is a required property" in messages


def surface_rejected() -> Verdict:
    """UNPRINTABLE: a dist-info the classifier does not recognise, and a read of sys.flags."""
    from patchwitness.gates import surface
    from patchwitness.model import Gates, Reason

    facts = surface.surface_facts(
        [],
        [
            Finding(
                gate="suspicious",
                kind="reads-process-state",
                file="src/shop/tax.py",
                line=7,
                message="reads the environment variable SHOP_DEBUG",
            )
        ],
    )
    facts.unrecognised = ["shop-1.0.dist-info/entry_points.txt: packaging metadata"]
    gate = surface.decide(facts, surface.surface_input(facts))
    return passed("tax", "packager").model_copy(
        update={
            "grade": "reject",
            "label": "UNPRINTABLE",
            "reasons": [Reason(gate="surface", row=gate.row, detail=gate.detail, effect="reject")],
            "gates": Gates(surface=gate),
        }
    )


def test_the_surface_gate_is_shown_and_located(validator):
    from patchwitness.report.html import gates_html

    verdict = surface_rejected()
    assert verdict.gates.surface.row == "unrecognised-file"
    shown = gates_html(verdict)
    assert "unrecognised files" in shown and "entry_points.txt" in shown
    assert "SHOP_DEBUG" in shown
    log = sarif([verdict])
    validator.validate(log)
    (result,) = [r for r in results_for(log, "tax", "packager") if r["ruleId"].startswith("gate/")]
    assert result["ruleId"] == "gate/surface/unrecognised-file"
    where = physical(result)["artifactLocation"]["uri"]
    assert where == "shop-1.0.dist-info/entry_points.txt"
