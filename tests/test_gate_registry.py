"""The registry of gates: every place that iterates over gates sees each of them, once, in the
registry's order, and the final table holds one row per gate in its declared precedence."""

from __future__ import annotations

import importlib

import pytest

from patchwitness import policy
from patchwitness.cli import COVERAGE_EXIT
from patchwitness.gates import REGISTRY, by_name
from patchwitness.model import Gates
from patchwitness.report import html, sarif

NAMES = [g.name for g in REGISTRY]


def test_names_are_unique_and_each_gate_is_a_module_with_a_judge():
    assert len(NAMES) == len(set(NAMES))
    for name in NAMES:
        module = importlib.import_module(f"patchwitness.gates.{name}")
        assert callable(module.judge), name
        assert by_name(name).name == name
    assert by_name("no-such-gate") is None


def test_the_policy_holds_every_gates_table_in_the_registrys_order():
    assert list(policy.TABLES) == NAMES
    assert list(policy.DEFAULT_POLICY.tables) == NAMES
    assert tuple(NAMES) == policy.GATE_ORDER
    for gate in REGISTRY:
        assert policy.TABLES[gate.name] is gate.table


def test_the_final_table_has_one_row_per_gate_in_precedence_between_the_endings():
    ids = [row.id for row in policy.FINAL_TABLE]
    by_precedence = sorted(REGISTRY, key=lambda g: g.precedence)
    gate_rows = [f"{g.name}-rejects" for g in by_precedence]
    assert ids[0] == "timeout"
    assert ids[1 : 1 + len(gate_rows)] == gate_rows
    assert ids[1 + len(gate_rows) :] == [r.id for r in policy.FINAL_TAIL]
    for gate in REGISTRY:
        row = next(r for r in policy.FINAL_TABLE if r.id == f"{gate.name}-rejects")
        assert (row.gate, row.grade, row.when, row.label_doc) == (
            gate.name,
            "reject",
            gate.rejects_when,
            gate.label_doc,
        )


def test_every_gate_name_is_declared_once_and_every_declared_gate_has_its_name():
    from patchwitness.names import GateName

    assert sorted(NAMES) == sorted(GateName)
    assert all(isinstance(g.name, GateName) for g in REGISTRY)


def test_every_language_name_has_its_adapter_and_a_task_takes_no_other():
    from pydantic import ValidationError

    from patchwitness import languages
    from patchwitness.names import LanguageName
    from patchwitness.task import TaskToml

    for name in LanguageName:
        assert languages.of(TaskToml(language=name)).name is name
    with pytest.raises(ValidationError):
        TaskToml(language="rust")


def test_the_verdict_schema_has_a_field_for_every_gate():
    """A gate missing here would be judged and then dropped from the verdict (and from
    rejudge): the schema is the one hand-kept list, and this holds it to the registry."""
    assert set(NAMES) <= set(Gates.model_fields)


def test_every_gate_is_drawn_and_located():
    assert set(NAMES) == set(html.SECTIONS)
    assert set(NAMES) == set(sarif.PLACES)


def test_only_the_flag_matrix_waits_for_the_expensive_phases():
    assert [g.name for g in REGISTRY if not g.cheap] == ["matrix"]


def test_the_coverage_commands_exit_codes_cover_its_table():
    assert set(COVERAGE_EXIT) == {row.id for row in policy.COVERAGE_TABLE}


@pytest.mark.parametrize("name", NAMES)
def test_a_policy_override_reaches_the_gates_table(name):
    row = policy.TABLES[name][0]
    other = "review" if row.effect != "review" else "reject"
    changed = policy.apply_overrides({name: {row.id: {"effect": other}}}, "test")
    assert changed.table(name)[0].effect == other
    assert policy.DEFAULT_POLICY.table(name)[0].effect == row.effect


def _special_verdict():
    from patchwitness.model import Finding, Reason, SpecialFacts, SpecialGate, Verdict

    found = Finding(
        gate="special", kind="special-cased", file="pkg/m.py", line=7, message="if x == 42"
    )
    gate = SpecialGate(
        status="special-cased",
        row="special-cased-reject",
        effect="reject",
        detail="singles out 42",
        facts=SpecialFacts(findings=[found], values_from=["tests/test_m.py"]),
    )
    reason = Reason(gate="special", row=gate.row, detail=gate.detail, effect="reject")
    return Verdict(
        task="t",
        agent="a",
        patch_sha256="0" * 64,
        grade="reject",
        label="UNPRINTABLE",
        reasons=[reason],
        findings=[found],
        gates=Gates(special=gate),
    )


def test_the_special_casing_gate_has_its_section_and_its_places():
    verdict = _special_verdict()
    page = html.gates_html(verdict)
    assert 'data-gate="special"' in page and "pkg/m.py:7: if x == 42" in page
    assert sarif.reason_places(verdict, verdict.reasons[0]) == [sarif.Place("pkg/m.py", 7)]


def test_a_gate_without_a_section_of_its_own_is_drawn_generically():
    verdict = _special_verdict()
    page = html.generic_gate_html("special", verdict.gates.special)
    assert 'data-gate="special"' in page and "values_from" in page
