"""Stable test identity: keys, printed ids, and the names task files use. Pure."""

from __future__ import annotations

from patchwitness import identity
from patchwitness.outcomes.pytest_probe import parse_probe, stable_keys


def test_resolve_takes_printed_ids_and_keys():
    keys = ["t.py::test_a", "t.py::test_p[#x=0]", "t.py::test_p[#x=1]"]
    ids = {
        "t.py::test_p[#x=0]": "t.py::test_p[1700000000.1]",
        "t.py::test_p[#x=1]": "t.py::test_p[b]",
    }
    found = identity.resolve(
        ["t.py::test_a", "t.py::test_p[b]", "t.py::test_p[#x=0]", "t.py::gone"], keys, ids
    )
    assert found == {
        "t.py::test_a": "t.py::test_a",
        "t.py::test_p[b]": "t.py::test_p[#x=1]",
        "t.py::test_p[#x=0]": "t.py::test_p[#x=0]",
    }


def test_unstable_names_keys_whose_printed_id_moved():
    first = {"k1": "t[1.0]", "k2": "t[a]"}
    second = {"k1": "t[2.0]", "k2": "t[a]"}
    assert identity.unstable(first, second, ["k1", "k2", "k3"]) == ["k1"]


def test_stable_keys_never_merge_two_tests():
    ids = ["t.py::f[a]", "t.py::f[b]", "t.py::g"]
    keys = {"t.py::f[a]": "t.py::f[#x=0]", "t.py::f[b]": "t.py::f[#x=0]"}
    assert stable_keys(ids, keys) == {
        "t.py::f[a]": "t.py::f[#x=0]",
        "t.py::f[b]": "t.py::f[b]",
        "t.py::g": "t.py::g",
    }


def test_a_key_that_is_another_tests_printed_id_is_not_taken():
    ids = ["t.py::f[#x=0]", "t.py::f[zz]"]
    keys = {"t.py::f[zz]": "t.py::f[#x=0]"}
    assert stable_keys(ids, keys)["t.py::f[zz]"] == "t.py::f[zz]"


def _probe(lines: list[str]) -> bytes:
    return ("\n".join(lines) + "\n").encode()


def test_probe_outcomes_are_keyed_by_stable_key_and_keep_printed_ids():
    data = _probe(
        [
            '{"event": "start"}',
            '{"event": "collected", "ids": ["t.py::p[0.123]", "t.py::q"],'
            ' "keys": {"t.py::p[0.123]": "t.py::p[#v=0]"}}',
            '{"event": "report", "id": "t.py::p[0.123]", "when": "setup", "outcome": "passed"}',
            '{"event": "report", "id": "t.py::p[0.123]", "when": "call", "outcome": "failed"}',
            '{"event": "report", "id": "t.py::p[0.123]", "when": "teardown", "outcome": "passed"}',
            '{"event": "report", "id": "t.py::q", "when": "setup", "outcome": "passed"}',
            '{"event": "report", "id": "t.py::q", "when": "call", "outcome": "passed"}',
            '{"event": "report", "id": "t.py::q", "when": "teardown", "outcome": "passed"}',
            '{"event": "finish", "exitstatus": 1}',
        ]
    )
    report = parse_probe(data)
    assert report.outcomes == {"t.py::p[#v=0]": "failed", "t.py::q": "passed"}
    assert report.collected == ["t.py::p[#v=0]", "t.py::q"]
    assert report.ids == {"t.py::p[#v=0]": "t.py::p[0.123]"}
    assert report.tamper == []


def test_a_report_for_an_uncollected_printed_id_is_still_tampering():
    data = _probe(
        [
            '{"event": "start"}',
            '{"event": "collected", "ids": ["t.py::p[1]"],'
            ' "keys": {"t.py::p[1]": "t.py::p[#v=0]"}}',
            '{"event": "report", "id": "t.py::p[#v=0]", "when": "call", "outcome": "passed"}',
            '{"event": "finish", "exitstatus": 0}',
        ]
    )
    report = parse_probe(data)
    assert any("never collected" in t for t in report.tamper)
