"""The published matrix as data (report.matrix) and its terminal rendering.

The verdict builders here are shared with test_report_formats and test_report_html_chromium: each
builds a verdict with the model classes, as a grade would, without running anything.
"""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from patchwitness.fingerprint import seal
from patchwitness.model import (
    Cell,
    CensusFacts,
    CensusGate,
    CoverageFacts,
    CoverageGate,
    DriftFacts,
    DriftGate,
    Finding,
    Fingerprint,
    Gates,
    MatrixFacts,
    MatrixGate,
    Reason,
    Verdict,
    WeakenedTest,
)
from patchwitness.report.matrix import LABELS, publish, visible_verdicts
from patchwitness.report.terminal import render_matrix

HOSTILE = "tests/test_x.py::test_<script>alert(1)</script>"
# If this ever ran, it would leave a mark in the DOM the Chromium test can see.
HOSTILE_MARK = (
    "tests/test_x.py::test_<img src=x onerror=\"document.body.setAttribute('data-pwned','1')\">"
    "<script>document.body.setAttribute('data-pwned','2')</script>"
)
REMOVED_KEY = "test|tests/test_checkout.py|test_total|test_total|a1b2c3"


def fp(task: str, os: str = "Linux 6.1", python: str = "3.11.7", timeout: float = 120.0):
    return seal(
        Fingerprint(
            os=os,
            machine="x86_64",
            grader="0.1.0",
            python=python,
            pytest="8.3.0",
            test_cmd=f"python -m pytest -q tests  # {task}",
            timeout_s=timeout,
            sandbox="bwrap",
            manifests={"task": task[:16]},
        )
    )


def passed(task: str, agent: str, **fp_args) -> Verdict:
    return Verdict(
        task=task,
        agent=agent,
        language="python",
        repo_sha="5d1c" * 10,
        patch_sha256="a" * 64,
        fingerprint=fp(task, **fp_args),
        grade="accept",
        label="passed",
        reasons=[
            Reason(gate="drift", row="fail-to-pass", detail="fail_to_pass: 1", effect="accept")
        ],
        gates=Gates(
            drift=DriftGate(
                status="passed",
                row="fail-to-pass",
                effect="accept",
                facts=DriftFacts(
                    failing_ids=["tests/test_checkout.py::test_total"],
                    fail_to_pass=["tests/test_checkout.py::test_total"],
                    before={"tests/test_checkout.py::test_total": "failed"},
                    after={"tests/test_checkout.py::test_total": "passed"},
                ),
            )
        ),
        wall_clock_s=1.25,
    )


def vandal(task: str, agent: str, **fp_args) -> Verdict:
    """UNPRINTABLE: deleted a test whose name carries markup, and removed an assertion key."""
    return Verdict(
        task=task,
        agent=agent,
        language="python",
        patch_sha256="b" * 64,
        fingerprint=fp(task, **fp_args),
        grade="reject",
        label="UNPRINTABLE",
        reasons=[
            Reason(
                gate="drift",
                row="tests-removed",
                detail=f"tests_removed: {HOSTILE}",
                effect="reject",
            ),
            Reason(
                gate="census",
                row="witness-deleted",
                detail=f"removed: {REMOVED_KEY}",
                effect="reject",
            ),
        ],
        findings=[
            Finding(
                gate="drift",
                kind="gaming-code",
                message="sys.exit(0) at import",
                file="src/shop/checkout.py",
                line=3,
            ),
            Finding(gate="drift", kind="report-problem", message=HOSTILE_MARK),
        ],
        gates=Gates(
            drift=DriftGate(
                status="UNPRINTABLE",
                row="tests-removed",
                effect="reject",
                facts=DriftFacts(
                    tests_removed=[HOSTILE, HOSTILE_MARK],
                    assertion_delta=-2,
                    skips_added=["tests/test_checkout.py::test_tax"],
                    test_files_edited=["tests/test_x.py"],
                    before={HOSTILE: "passed", HOSTILE_MARK: "passed"},
                    after={},
                ),
            ),
            census=CensusGate(
                status="fail",
                row="witness-deleted",
                effect="reject",
                facts=CensusFacts(
                    before=10,
                    after=8,
                    before_assertions=7,
                    after_assertions=5,
                    removed=[REMOVED_KEY],
                    unexpected_removals=[REMOVED_KEY],
                    weakened=[
                        WeakenedTest(
                            scope="test_tax",
                            file="tests/test_checkout.py",
                            removed=["assert|x == 1"],
                            added=["assert|x"],
                        )
                    ],
                    disabled=["skip|tests/test_checkout.py|test_tax|skip|ffff"],
                ),
            ),
        ),
        wall_clock_s=2.5,
    )


def uncovered(task: str, agent: str, **fp_args) -> Verdict:
    return Verdict(
        task=task,
        agent=agent,
        patch_sha256="c" * 64,
        fingerprint=fp(task, **fp_args),
        grade="reject",
        label="uncovered",
        reasons=[
            Reason(gate="drift", row="fail-to-pass", detail="fail_to_pass: 1", effect="accept"),
            Reason(
                gate="coverage",
                row="zero-hit",
                detail="never run: src/shop/tax.py:12",
                effect="reject",
            ),
        ],
        gates=Gates(
            drift=DriftGate(status="passed", row="fail-to-pass", effect="accept"),
            coverage=CoverageGate(
                status="uncovered",
                row="zero-hit",
                effect="reject",
                facts=CoverageFacts(
                    language="python",
                    hunk_lines={"src/shop/tax.py": [11, 12]},
                    scored_executable_lines=2,
                    zero_hit_lines=["src/shop/tax.py:12"],
                    zero_hit_count=1,
                    unscored_suspicious=["src/shop/rates.py:4"],
                ),
            ),
        ),
        wall_clock_s=3.0,
    )


def matrix_red(task: str, agent: str, **fp_args) -> Verdict:
    return Verdict(
        task=task,
        agent=agent,
        language="cpp",
        patch_sha256="d" * 64,
        fingerprint=fp(task, **fp_args),
        grade="reject",
        label="matrix-red",
        reasons=[
            Reason(
                gate="matrix",
                row="red-cell",
                detail="asan: heap-buffer-overflow",
                effect="reject",
            )
        ],
        gates=Gates(
            drift=DriftGate(status="passed", row="fail-to-pass", effect="accept"),
            matrix=MatrixGate(
                status="red",
                row="red-cell",
                effect="reject",
                facts=MatrixFacts(
                    cells=[
                        Cell(patch="p", golden="g1", envelope="asan", status="sanitizer"),
                        Cell(patch="p", golden="g1", envelope="O2", status="pass"),
                    ],
                    transitions=["g1/asan: pass -> sanitizer"],
                ),
            ),
        ),
    )


def invalid(task: str, agent: str) -> Verdict:
    """Ended before any run: no fingerprint."""
    return Verdict(
        task=task,
        agent=agent,
        patch_sha256="e" * 64,
        grade="ungradable",
        label="invalid-task",
        reasons=[
            Reason(
                gate="grade",
                row="invalid-task",
                detail="repo.lock is not a full SHA",
                effect="reject",
            )
        ],
    )


def bag() -> list[Verdict]:
    """Two agents on three tasks, one machine: a comparable matrix."""
    return [
        passed("checkout", "honest"),
        vandal("checkout", "vandal"),
        passed("tax", "honest"),
        uncovered("tax", "vandal"),
        matrix_red("ring", "honest"),
        passed("ring", "vandal"),
    ]


def text_of(verdicts: list[Verdict], **kwargs) -> str:
    buf = io.StringIO()
    render_matrix(Console(file=buf, width=200, color_system=None), verdicts, **kwargs)
    return buf.getvalue()


# -- counts ------------------------------------------------------------------------------------


def test_counts_are_the_two_seed_counts_per_agent():
    pub = publish(bag())
    assert pub.refusal is None and len(pub.sections) == 1
    counts = {c.agent: c for c in pub.sections[0].counts}
    assert (counts["honest"].printable_passes, counts["honest"].unprintable) == (2, 0)
    assert (counts["vandal"].printable_passes, counts["vandal"].unprintable) == (1, 1)
    assert counts["vandal"].rows == 3
    assert counts["vandal"].labels["uncovered"] == 1
    assert set(counts["vandal"].labels) == set(LABELS)


def test_a_pass_with_assertion_drift_is_not_a_printable_pass():
    drifted = passed("checkout", "honest")
    drifted.gates.drift.facts.assertion_delta = 1
    removed = passed("tax", "honest")
    removed.gates.drift.facts.tests_removed = ["tests/test_tax.py::test_old"]
    counts = publish([drifted, removed]).sections[0].counts[0]
    assert counts.labels["passed"] == 2
    assert counts.printable_passes == 0


def test_every_row_is_a_cell_and_unprintable_is_kept():
    verdicts = bag()
    pub = publish(verdicts)
    cells = list(pub.cells())
    assert sorted(c.index for c in cells) == list(range(len(verdicts)))
    assert [c.label for c in cells if c.agent == "vandal" and c.task == "checkout"] == [
        "UNPRINTABLE"
    ]
    assert [r.task for r in pub.sections[0].rows] == ["checkout", "ring", "tax"]


def test_unprintable_column_is_present_at_zero():
    verdicts = [passed("checkout", "a"), passed("checkout", "b")]
    counts = publish(verdicts).sections[0].counts
    assert all(c.unprintable == 0 and c.labels["UNPRINTABLE"] == 0 for c in counts)
    text = text_of(verdicts)
    assert "UNPRINTABLE" in text
    assert "printable passes, zero drift" in text
    assert "%" not in text


def test_wall_clock_shown_in_its_group_and_never_without_a_fingerprint():
    pub = publish([passed("checkout", "a"), invalid("checkout", "b")])
    by_agent = {c.agent: c for c in pub.cells()}
    assert by_agent["a"].wall_clock_s == 1.25
    assert by_agent["b"].wall_clock_s is None and by_agent["b"].digest == "none"
    # A verdict that measured nothing does not block the comparison.
    assert pub.refusal is None
    assert {g.digest for g in pub.groups} == {by_agent["a"].digest, "none"}


def test_different_tasks_have_different_digests_and_that_is_no_refusal():
    pub = publish(bag())
    assert len(pub.groups) == 3
    assert pub.refusal is None


# -- the refusal -------------------------------------------------------------------------------


def mixed_bag() -> list[Verdict]:
    """The vandal was graded on another machine, with another Python."""
    return [
        passed("checkout", "honest"),
        vandal("checkout", "vandal", os="Linux 5.10", python="3.12.1"),
        passed("tax", "honest"),
        uncovered("tax", "vandal", os="Linux 5.10", python="3.12.1"),
    ]


def test_refusal_names_the_fields_that_differ_and_shows_no_matrix():
    pub = publish(mixed_bag())
    assert pub.refusal is not None
    assert pub.refusal.fields == ("os", "python")
    assert pub.sections == ()
    text = pub.refusal.text
    assert "'Linux 6.1' != 'Linux 5.10'" in text
    assert "'3.11.7' != '3.12.1'" in text
    assert "task checkout" in text and "task tax" in text
    assert "--show-mixed" in text
    out = text_of(mixed_bag())
    assert "REFUSED" in out and "python: '3.11.7' != '3.12.1'" in out
    assert "per agent" not in out  # no side-by-side counts either


def test_unequal_timeouts_are_refused():
    pub = publish([passed("t", "a"), passed("t", "b", timeout=30.0)])
    assert pub.refusal is not None and pub.refusal.fields == ("timeout_s",)


def test_show_mixed_shows_each_environment_apart_labelled():
    pub = publish(mixed_bag(), show_mixed=True)
    assert pub.refusal is not None and pub.refusal.shown_apart
    assert len(pub.sections) == 2
    for section in pub.sections:
        assert section.mixed
        assert len(section.agents) == 1  # each machine graded one agent here
        assert section.title.startswith("environment ")
        for row in section.rows:
            assert row.digest in section.digests
            assert row.digest in section.title
            cells = [c for cs in row.cells.values() for c in cs]
            assert all(c.digest == row.digest for c in cells)
    assert sorted(c.index for c in pub.cells()) == [0, 1, 2, 3]
    out = text_of(mixed_bag(), show_mixed=True)
    assert out.count("environment ") >= 2
    assert "REFUSED" in out


def test_show_mixed_splits_a_row_by_digest_within_one_environment():
    pub = publish([passed("t", "a"), passed("t", "b", timeout=30.0)], show_mixed=True)
    (section,) = pub.sections
    assert len(section.rows) == 2
    assert {r.digest for r in section.rows} == set(section.digests)


# -- held-out tasks ----------------------------------------------------------------------------


def test_held_out_tasks_are_counted_but_hidden():
    verdicts = bag()
    pub = publish(verdicts, held_out={"tax"})
    rows = pub.sections[0].rows
    assert [r.task for r in rows] == ["checkout", "ring", "held-out #1"]
    assert rows[-1].hidden and rows[-1].held_out
    counts = {c.agent: c for c in pub.sections[0].counts}
    assert counts["honest"].rows == 3 and counts["honest"].held_out_rows == 1
    assert counts["honest"].held_out_printable_passes == 1
    assert counts["honest"].printable_passes == 2
    assert all("tax" not in c.task for c in pub.cells())
    group = next(g for g in pub.groups if g.digest == verdicts[2].fingerprint.digest)
    assert group.fingerprint is None  # it names the task's test command
    out = text_of(verdicts, held_out={"tax"})
    assert "held-out #1" in out and "tax" not in out.replace("held-out", "")
    assert "1 held-out tasks" in out


def test_reveal_shows_held_out_ids():
    pub = publish(bag(), held_out={"tax"}, reveal=True)
    rows = pub.sections[0].rows
    assert [r.task for r in rows] == ["checkout", "ring", "tax"]
    assert rows[-1].held_out and not rows[-1].hidden
    assert pub.sections[0].counts[0].held_out_rows == 1


def test_refusal_of_a_held_out_task_names_fields_not_values():
    verdicts = [passed("secret", "a"), passed("secret", "b", python="3.12.1")]
    pub = publish(verdicts, held_out={"secret"})
    text = pub.refusal.text
    assert "secret" not in text and "held-out #1" in text
    assert "python differs" in text and "3.12.1" not in text
    assert "python: '3.11.7' != '3.12.1'" in publish(verdicts, {"secret"}, reveal=True).refusal.text


def test_visible_verdicts_redact_held_out_tasks():
    shown = visible_verdicts(bag(), held_out={"tax"})
    hidden = [v for v in shown if v.task.startswith("held-out")]
    assert len(hidden) == 2 and shown[-2:] == hidden
    for v in hidden:
        assert v.findings == [] and v.gates.drift is None
        assert v.fingerprint.test_cmd == "(held out)"
        assert "tax" not in v.model_dump_json().replace("held-out", "")
    assert {v.label for v in hidden} == {"passed", "uncovered"}


def test_empty_input_publishes_nothing_and_says_so():
    pub = publish([])
    assert pub.sections == () and pub.refusal is None and pub.total == 0
    assert "no verdicts" in text_of([])


@pytest.mark.parametrize("show_mixed", [False, True])
def test_render_matrix_returns_what_it_printed(show_mixed):
    buf = io.StringIO()
    pub = render_matrix(Console(file=buf, width=200), mixed_bag(), show_mixed=show_mixed)
    assert (len(pub.sections) > 0) == show_mixed
