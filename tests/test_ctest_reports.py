"""ctest's listing and JUnit report, GoogleTest's XML, and the cross-checks between them."""

from __future__ import annotations

import json

from patchwitness.outcomes.ctest import combine, gtest_file_executable, parse_junit

LISTING = json.dumps(
    {
        "kind": "ctestInfo",
        "tests": [
            {"name": "S.Pass", "command": ["/b/u", "--gtest_filter=S.Pass"]},
            {"name": "S.Fail", "command": ["/b/u", "--gtest_filter=S.Fail"]},
            {"name": "S.Skip", "command": ["/b/u", "--gtest_filter=S.Skip"]},
            {"name": "S.Off", "command": ["/b/u", "--gtest_filter=S.DISABLED_Off"]},
            {"name": "golden_a", "command": ["/b/golden_a"]},
            {"name": "golden_gone", "command": ["/b/golden_gone"]},
        ],
    }
)

JUNIT = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="(empty)" tests="6">
  <testcase name="S.Pass" classname="S.Pass" status="run"/>
  <testcase name="S.Fail" classname="S.Fail" status="fail"><failure message=""/></testcase>
  <testcase name="S.Skip" classname="S.Skip" status="notrun">
    <skipped message="SKIP_REGULAR_EXPRESSION_MATCHED"/></testcase>
  <testcase name="S.Off" classname="S.Off" status="disabled"/>
  <testcase name="golden_a" classname="golden_a" status="run"/>
  <testcase name="golden_gone" classname="golden_gone" status="notrun"/>
</testsuite>
"""


def gtest(cases: str) -> str:
    return (
        f'<?xml version="1.0"?><testsuites name="AllTests"><testsuite name="S">{cases}'
        "</testsuite></testsuites>"
    )


def test_junit_statuses():
    assert parse_junit(JUNIT) == {
        "S.Pass": "passed",
        "S.Fail": "failed",
        "S.Skip": "skipped",
        "S.Off": "skipped",
        "golden_a": "passed",
        "golden_gone": "error",
    }


def test_combined_report():
    report = combine([LISTING], [JUNIT], {})
    assert report.listed == ["S.Pass", "S.Fail", "S.Skip", "S.Off", "golden_a", "golden_gone"]
    assert report.outcomes["golden_gone"] == "error"  # "Not Run": missing executable
    assert report.problems == [] and report.tamper == []
    assert report.executables["S.Pass"] == "u"


def test_listed_but_not_reported_is_missing():
    junit = JUNIT.replace('<testcase name="golden_a" classname="golden_a" status="run"/>', "")
    assert combine([LISTING], [junit], {}).outcomes["golden_a"] == "missing"


def test_reported_but_never_listed_is_tamper():
    junit = JUNIT.replace("</testsuite>", '<testcase name="ghost" status="run"/></testsuite>')
    report = combine([LISTING], [junit], {})
    assert "ghost" not in report.outcomes
    assert report.tamper == ["report names a test that was never listed: ghost"]


def test_gtest_failure_inside_a_ctest_pass_is_tamper_and_stands():
    files = {
        "u.xml": gtest(
            '<testcase classname="S" name="Pass" status="run" result="completed">'
            "<failure message='x'/></testcase>"
        )
    }
    report = combine([LISTING], [JUNIT], files)
    assert report.outcomes["S.Pass"] == "failed"
    assert report.tamper == ["ctest reports S.Pass passed but GoogleTest recorded a failure in it"]


def test_whole_binary_test_fails_when_any_case_failed():
    listing = json.dumps({"tests": [{"name": "unit", "command": ["/b/unit"]}]})
    junit = '<testsuite><testcase name="unit" status="run"/></testsuite>'
    files = {
        "unit.xml": gtest('<testcase classname="S" name="A" status="run"/>'),
        "unit_1.xml": gtest(
            '<testcase classname="S" name="B" status="run"><failure message="x"/></testcase>'
        ),
    }
    report = combine([listing], [junit], files)
    assert report.outcomes == {"unit": "failed"}
    assert report.gtest_cases == {"S.A": "passed", "S.B": "failed"}


def test_gtest_file_names():
    assert gtest_file_executable("u.xml", {"u"}) == "u"
    assert gtest_file_executable("u_3.xml", {"u"}) == "u"
    assert gtest_file_executable("my_test_2.xml", {"my_test_2"}) == "my_test_2"


def test_no_listing_means_no_ctest():
    report = combine([], [], {})
    assert report.outcomes == {}
    assert any("never listed" in p for p in report.problems)


def test_unfinished_and_corrupt_reports():
    assert any("no JUnit" in p for p in combine([LISTING], [], {}).problems)
    assert any("does not parse" in p for p in combine([LISTING], ["<oops"], {}).problems)
    assert any("does not parse" in p for p in combine(["{"], [JUNIT], {}).problems)
