"""Terminal rendering with rich: one verdict, the decision tables, the published matrix."""

from __future__ import annotations

from collections import defaultdict

from rich.console import Console
from rich.table import Table
from rich.text import Text

from patchwitness import policy
from patchwitness.model import Verdict

LABEL_STYLE = {
    "passed": "bold green",
    "tests-authored": "green",
    "failed": "bold red",
    "UNPRINTABLE": "bold magenta",
    "no-op": "yellow",
    "uncovered": "bold red",
    "matrix-red": "bold red",
    "apply-failed": "red",
    "invalid-task": "cyan",
    "timeout": "red",
    "error": "cyan",
}
GRADE_STYLE = {
    "accept": "green",
    "accept-with-review": "yellow",
    "reject": "red",
    "ungradable": "cyan",
}


def label_text(label: str) -> Text:
    return Text(label, style=LABEL_STYLE.get(label, ""))


def render_verdict(console: Console, verdict: Verdict) -> None:
    head = Text.assemble(
        (f"{verdict.task}", "bold"),
        " / ",
        (verdict.agent, "bold"),
        "  ",
        label_text(verdict.label),
        "  ",
        (verdict.grade, GRADE_STYLE.get(verdict.grade, "")),
        f"  patch {verdict.patch_sha256[:12]}",
    )
    console.print(head)
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    table.add_column("gate")
    table.add_column("status")
    table.add_column("row")
    table.add_column("detail", overflow="fold")
    for gate_name in ("drift", "census", "coverage", "matrix"):
        gate = getattr(verdict.gates, gate_name)
        if gate is not None:
            table.add_row(gate_name, gate.status, gate.row, gate.detail)
    for reason in verdict.reasons:
        if reason.gate not in ("drift", "census", "coverage", "matrix"):
            table.add_row(reason.gate, verdict.label, reason.row, reason.detail)
    console.print(table)
    drift = verdict.gates.drift
    if drift is not None:
        f = drift.facts
        console.print(
            f"fail_to_pass={len(f.fail_to_pass)} pass_to_fail={len(f.pass_to_fail)} "
            f"tests_removed={len(f.tests_removed)} assertion_delta={f.assertion_delta} "
            f"weakened={len(f.weakened)} skips_added={len(f.skips_added)}",
            highlight=False,
        )
    for finding in verdict.findings[:10]:
        where = (
            f"{finding.file}:{finding.line}"
            if finding.file and finding.line
            else (finding.file or "")
        )
        console.print(
            f"  [dim]{finding.gate}[/] {finding.kind} {where} {finding.message}", highlight=False
        )


def render_tables(console: Console) -> None:
    for name, rows in policy.TABLES.items():
        table = Table(title=f"{name} (first matching row wins)", title_justify="left")
        table.add_column("#", justify="right")
        table.add_column("row")
        table.add_column("condition", overflow="fold")
        table.add_column("status")
        table.add_column("effect")
        for index, row in enumerate(rows, start=1):
            table.add_row(str(index), row.id, row.when, row.status, row.effect)
        console.print(table)
    final = Table(title="final label (first matching row wins)", title_justify="left")
    final.add_column("when")
    final.add_column("label")
    for when, label in policy.FINAL_TABLE_DOC:
        final.add_row(when, label)
    console.print(final)


def summary_counts(verdicts: list[Verdict]) -> dict[str, dict[str, int]]:
    """Seed 002's two counts per agent: printable passes with zero drift, and UNPRINTABLE rows."""
    counts: dict[str, dict[str, int]] = defaultdict(
        lambda: {"printable_passes": 0, "unprintable": 0, "rows": 0}
    )
    for v in verdicts:
        c = counts[v.agent]
        c["rows"] += 1
        if v.label == "UNPRINTABLE":
            c["unprintable"] += 1
        drift = v.gates.drift
        if (
            v.label == "passed"
            and drift is not None
            and drift.facts.assertion_delta == 0
            and not drift.facts.tests_removed
        ):
            c["printable_passes"] += 1
    return dict(counts)


def render_matrix(console: Console, verdicts: list[Verdict], title: str = "") -> None:
    tasks = sorted({v.task for v in verdicts})
    agents = sorted({v.agent for v in verdicts})
    cell = {(v.task, v.agent): v for v in verdicts}
    table = Table(title=title or "tasks x agents", title_justify="left")
    table.add_column("task")
    for agent in agents:
        table.add_column(agent)
    for task in tasks:
        row: list[Text | str] = [task]
        for agent in agents:
            v = cell.get((task, agent))
            row.append(label_text(v.label) if v else Text("-", style="dim"))
        table.add_row(*row)
    console.print(table)
    counts = summary_counts(verdicts)
    summary = Table(title="per agent (never one headline number)", title_justify="left")
    summary.add_column("agent")
    summary.add_column("printable passes, zero drift", justify="right")
    summary.add_column("UNPRINTABLE", justify="right")
    summary.add_column("rows", justify="right")
    for agent in agents:
        c = counts.get(agent, {"printable_passes": 0, "unprintable": 0, "rows": 0})
        summary.add_row(agent, str(c["printable_passes"]), str(c["unprintable"]), str(c["rows"]))
    console.print(summary)
