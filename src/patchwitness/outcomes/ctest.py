"""Per-test outcomes of a ctest run, from ctest's JUnit report, its JSON listing and GoogleTest's
XML. Pure: report texts in, outcomes and problems out.

Three channels, cross-checked. The listing (`--show-only=json-v1`, run with the same arguments) is
the collection; the JUnit report says what ctest saw; GoogleTest's own XML says what each test case
did. A listed test with no JUnit entry is missing; a JUnit entry for a test never listed is
tampering; a GoogleTest case that failed inside a ctest test that ctest calls passed (a main() that
ignores RUN_ALL_TESTS, say) is tampering too, and the failure stands.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

from patchwitness.model import Outcome


@dataclass
class CtestReport:
    listed: list[str] = field(default_factory=list)
    executables: dict[str, str] = field(default_factory=dict)  # test -> executable basename
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    tamper: list[str] = field(default_factory=list)
    gtest_cases: dict[str, Outcome] = field(default_factory=dict)
    gtest_by_executable: dict[str, dict[str, Outcome]] = field(default_factory=dict)


def parse_listing(text: str) -> tuple[list[str], dict[str, str]]:
    """Test names and their executables from `ctest --show-only=json-v1`. A project's ctest
    pre-test command (CTestCustom.cmake) prints before the JSON even for a listing: the JSON is
    read from the first line that opens an object."""
    start = 0 if text.lstrip().startswith("{") else text.find("\n{") + 1
    data, _ = json.JSONDecoder().raw_decode(text, start)
    names: list[str] = []
    executables: dict[str, str] = {}
    for test in data.get("tests", []):
        name = str(test["name"])
        names.append(name)
        command = test.get("command") or []
        if command:
            executables[name] = str(command[0]).rsplit("/", 1)[-1]
    return names, executables


@dataclass(frozen=True)
class ReadFromOutput:
    """A test ctest passes by a regular expression over its output (PASS_REGULAR_EXPRESSION),
    whatever the program's exit status: how to run it again and hear that status."""

    command: tuple[str, ...]
    cwd: str
    env: tuple[tuple[str, str], ...] = ()


def passed_by_output(text: str) -> dict[str, ReadFromOutput]:
    """The tests of a `--show-only=json-v1` listing whose pass ctest reads from their output."""
    start = 0 if text.lstrip().startswith("{") else text.find("\n{") + 1
    data, _ = json.JSONDecoder().raw_decode(text, start)
    out: dict[str, ReadFromOutput] = {}
    for test in data.get("tests", []):
        props = {p.get("name"): p.get("value") for p in test.get("properties", []) or []}
        command = test.get("command") or []
        if "PASS_REGULAR_EXPRESSION" not in props or not command:
            continue
        env = []
        for item in props.get("ENVIRONMENT") or []:
            name, sep, value = str(item).partition("=")
            if sep:
                env.append((name, value))
        out[str(test["name"])] = ReadFromOutput(
            command=tuple(str(c) for c in command),
            cwd=str(props.get("WORKING_DIRECTORY") or ""),
            env=tuple(env),
        )
    return out


def _junit_outcome(case: ET.Element) -> Outcome:
    status = case.get("status", "")
    if status == "run":
        return "passed"
    if status == "fail":
        return "failed"
    if status == "disabled":
        return "skipped"
    if status == "notrun":
        # Skipped by SKIP_RETURN_CODE/SKIP_REGULAR_EXPRESSION; otherwise "Not Run": the
        # executable was missing or could not start, which is an error, never a skip.
        return "skipped" if case.find("skipped") is not None else "error"
    return "error"


def parse_junit(text: str) -> dict[str, Outcome]:
    root = ET.fromstring(text)
    cases = root.iter("testcase")
    return {str(case.get("name")): _junit_outcome(case) for case in cases}


def parse_junit_outputs(text: str) -> dict[str, str]:
    """Each test's output as ctest kept it in its JUnit report (stdout and stderr together)."""
    out: dict[str, str] = {}
    for case in ET.fromstring(text).iter("testcase"):
        kept = case.find("system-out")
        out[str(case.get("name"))] = (kept.text or "") if kept is not None else ""
    return out


def parse_gtest_xml(text: str) -> dict[str, Outcome]:
    """'Suite.Case' -> outcome from one GoogleTest XML file."""
    root = ET.fromstring(text)
    out: dict[str, Outcome] = {}
    for case in root.iter("testcase"):
        name = f"{case.get('classname')}.{case.get('name')}"
        if case.find("failure") is not None or case.find("error") is not None:
            out[name] = "failed"
        elif (
            case.get("result") == "skipped"
            or case.find("skipped") is not None
            or case.get("status") == "notrun"
        ):
            out[name] = "skipped"
        else:
            out[name] = "passed"
    return out


_NUMBERED = re.compile(r"^(?P<base>.+)_\d+$")


def gtest_file_executable(filename: str, executables: set[str]) -> str:
    """GoogleTest names its file after the executable, adding _N when the name is taken."""
    stem = filename.rsplit("/", 1)[-1].removesuffix(".xml")
    if stem in executables:
        return stem
    match = _NUMBERED.match(stem)
    if match and match.group("base") in executables:
        return match.group("base")
    return stem


def combine(
    listings: list[str],
    junits: list[str],
    gtest_files: dict[str, str],
) -> CtestReport:
    """Merge every report one run of the test command left behind."""
    report = CtestReport()
    for text in listings:
        try:
            names, executables = parse_listing(text)
        except (ValueError, KeyError, TypeError):
            report.problems.append("ctest's test listing does not parse")
            continue
        report.listed += [n for n in names if n not in report.listed]
        report.executables.update(executables)
    seen: dict[str, Outcome] = {}
    for text in junits:
        try:
            for name, outcome in parse_junit(text).items():
                if name in seen and seen[name] != outcome:
                    outcome = "failed" if "failed" in (seen[name], outcome) else outcome
                seen[name] = outcome
        except ET.ParseError:
            report.problems.append("ctest's JUnit report does not parse")
    if not listings:
        report.problems.append("ctest never listed its tests: the command did not run ctest")
    if listings and not junits:
        report.problems.append("ctest wrote no JUnit report (it did not finish)")
    _gtest(report, gtest_files)
    for name in seen:
        if name not in report.listed:
            report.tamper.append(f"report names a test that was never listed: {name}")
    for name in report.listed:
        report.outcomes[name] = seen.get(name, "missing")
    _apply_gtest(report)
    return report


def _gtest(report: CtestReport, files: dict[str, str]) -> None:
    executables = set(report.executables.values())
    by_exec = report.gtest_by_executable
    for filename, text in sorted(files.items()):
        try:
            cases = parse_gtest_xml(text)
        except ET.ParseError:
            report.problems.append(f"GoogleTest XML {filename} does not parse")
            continue
        exe = gtest_file_executable(filename, executables)
        merged = by_exec.setdefault(exe, {})
        for name, outcome in cases.items():
            if merged.get(name) != "failed":
                merged[name] = outcome
            report.gtest_cases[name] = merged[name]


def _apply_gtest(report: CtestReport) -> None:
    for name, outcome in list(report.outcomes.items()):
        cases = report.gtest_by_executable.get(report.executables.get(name, ""), {})
        if not cases or outcome != "passed":
            continue
        if name in cases:
            failed = cases[name] == "failed"
        else:  # one ctest test runs the whole binary
            failed = any(o == "failed" for o in cases.values())
        if failed:
            report.outcomes[name] = "failed"
            report.tamper.append(
                f"ctest reports {name} passed but GoogleTest recorded a failure in it"
            )
