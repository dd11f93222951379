"""The cases inside each ctest test (outcomes/cases.py): which ran, as GoogleTest's XML and the
Catch2 and doctest summaries say, and which no longer run inside a ctest test that still passes.
Pure: report texts in, cases and lost cases out."""

from __future__ import annotations

import json

import pytest

from patchwitness.gates import drift as drift_gate
from patchwitness.model import Cases, CensusFacts
from patchwitness.outcomes import cases
from patchwitness.outcomes.ctest import combine, parse_junit_outputs

LISTING = json.dumps(
    {
        "kind": "ctestInfo",
        "tests": [
            {"name": "unit", "command": ["/b/unit"]},
            {"name": "catch_unit", "command": ["/b/catch_unit", "~[slow]"]},
        ],
    }
)


def junit(outputs: dict[str, str]) -> str:
    cases_xml = "".join(
        f'<testcase name="{name}" status="run"><system-out>{text}</system-out></testcase>'
        for name, text in outputs.items()
    )
    return f'<?xml version="1.0"?><testsuite name="x">{cases_xml}</testsuite>'


def gtest(*names: str, status: str = "run") -> str:
    body = "".join(
        f'<testcase name="{n.split(".")[1]}" classname="{n.split(".")[0]}" status="{status}"/>'
        for n in names
    )
    return f'<?xml version="1.0"?><testsuites><testsuite>{body}</testsuite></testsuites>'


@pytest.mark.parametrize(
    ("output", "said"),
    [
        ("===\nAll tests passed (4 assertions in 2 test cases)\n\n", ("Catch2", 2)),
        ("All tests passed (1 assertion in 1 test case)\n", ("Catch2", 1)),
        (
            "test cases: 3 | 2 passed | 1 failed\nassertions: 5 | 4 passed | 1 failed\n",
            ("Catch2", 3),
        ),
        ("Filters: nomatch\nNo test cases matched 'nomatch'\n===\nNo tests ran\n", ("Catch2", 0)),
        ("Passed all 3 test cases with 7 assertions.\n", ("Catch2", 3)),
        (
            "\x1b[0;36m[doctest] \x1b[0mtest cases:  3 |  2 passed | 1 failed | 1 skipped\n",
            ("doctest", 3),
        ),
        # A ctest test that runs two programs: both counted.
        (
            "All tests passed (1 assertion in 1 test case)\n"
            "All tests passed (2 assertions in 2 test cases)\n",
            ("Catch2", 3),
        ),
        ("[==========] 2 tests from 1 test suite ran.\n[  PASSED  ] 2 tests.\n", None),
        ("the program said: test cases: 3 | 3 passed\n", None),  # not a summary line
        ("", None),
    ],
)
def test_the_summary_says_how_many_test_cases_ran(output, said):
    assert cases.summary(output) == said


def test_a_run_s_cases_come_from_the_xml_and_the_kept_output():
    report = combine(
        [LISTING],
        [junit({"unit": "", "catch_unit": ""})],
        {"unit.xml": gtest("S.A", "S.B"), "unit_1.xml": gtest("S.DISABLED_C", status="notrun")},
    )
    outputs = {"unit": "", "catch_unit": "All tests passed (2 assertions in 2 test cases)\n"}
    found = cases.read(report, outputs)
    assert found.executables == {"unit": "unit", "catch_unit": "catch_unit"}
    assert found.gtest == {"unit": ["S.A", "S.B", "S.C"]}  # disabled, under its own name
    assert (found.counted, found.framework) == ({"catch_unit": 2}, {"catch_unit": "Catch2"})
    cut = cases.read(report, outputs, cut=["catch_unit"])
    assert (cut.counted, cut.uncounted) == ({}, ["catch_unit"])
    assert cases.read(report, outputs, count=False).counted == {}


def test_ctest_keeps_each_test_s_output_in_its_junit_report():
    text = junit({"unit": "[  PASSED  ] 2 tests.", "catch_unit": ""})
    assert parse_junit_outputs(text) == {"unit": "[  PASSED  ] 2 tests.", "catch_unit": ""}


def sha_cases(**extra) -> Cases:
    return Cases(
        executables={"unit": "unit", "catch_unit": "catch_unit"},
        gtest={"unit": ["Math.Half", "Math.Twice"]},
        counted={"catch_unit": 2},
        framework={"catch_unit": "Catch2"},
        **extra,
    )


PASSED = {"unit": "passed", "catch_unit": "passed"}


def test_a_case_filtered_out_of_a_passing_ctest_test_is_lost():
    after = sha_cases().model_copy(update={"gtest": {"unit": ["Math.Half"]}, "counted": {}})
    assert cases.lost(sha_cases(), after, PASSED) == [
        "catch_unit::<2 of 2 Catch2 test cases no longer run>",  # the summary itself is gone
        "unit::Math.Twice",
    ]
    fewer = sha_cases().model_copy(update={"counted": {"catch_unit": 1}})
    assert cases.lost(sha_cases(), fewer, PASSED) == [
        "catch_unit::<1 of 2 Catch2 test cases no longer run>"
    ]
    assert cases.lost(sha_cases(), sha_cases(), PASSED) == []
    more = sha_cases().model_copy(update={"gtest": {"unit": ["Math.Half", "Math.Twice", "X.Y"]}})
    assert cases.lost(sha_cases(), more, PASSED) == []


def test_cases_of_a_ctest_test_that_does_not_pass_are_not_lost():
    # A crash leaves no XML and no summary: the ctest outcome says what happened.
    after = Cases(executables=sha_cases().executables)
    assert cases.lost(sha_cases(), after, {"unit": "failed", "catch_unit": "error"}) == []
    assert cases.lost(sha_cases(), after, {}) == []  # both ctest tests gone: removed already


def test_an_executable_several_ctest_tests_run_is_judged_as_one():
    before = Cases(
        executables={"Math.Half": "unit", "Math.Twice": "unit"},
        gtest={"unit": ["Math.Half", "Math.Twice"]},
    )
    after = before.model_copy(update={"gtest": {"unit": ["Math.Half"]}})
    both = {"Math.Half": "passed", "Math.Twice": "passed"}
    assert cases.lost(before, after, both) == ["unit::Math.Twice"]
    assert cases.lost(before, after, both | {"Math.Twice": "failed"}) == []


def test_cases_that_varied_at_the_sha_are_never_judged():
    first = sha_cases()
    other = sha_cases().model_copy(update={"gtest": {"unit": ["Math.Half"]}})
    assert cases.varied([first, other, first]) == ["unit"]
    before = sha_cases(varied=["unit", "catch_unit"])
    after = Cases(executables=before.executables, gtest={"unit": []})
    assert cases.lost(before, after, PASSED) == []
    # A count ctest cut short after the patch cannot be read: nothing is concluded from it.
    cut = sha_cases().model_copy(update={"uncounted": ["catch_unit"], "counted": {}})
    assert cases.lost(sha_cases(), cut, PASSED) == []


def test_a_lost_case_is_a_removed_test_to_the_drift_gate():
    before = {"unit": "failed", "catch_unit": "passed"}
    after_cases = sha_cases().model_copy(update={"gtest": {"unit": ["Math.Half"]}})
    facts = drift_gate.drift_facts(
        before=before,
        after=PASSED,
        failing=["unit"],
        census=CensusFacts(),
        classes={},
        cases=(sha_cases(), after_cases),
    )
    assert facts.tests_removed == ["unit::Math.Twice"]
    assert facts.fail_to_pass == ["unit"]  # the ctest test's own outcome is unchanged
    inputs = drift_gate.drift_input(facts, allow_test_edits=False)
    assert drift_gate.decide(facts, inputs).row == "tests-removed"
