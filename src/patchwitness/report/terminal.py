"""Terminal rendering with rich: one verdict, the decision tables, the published matrix."""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Console
from rich.table import Table
from rich.text import Text

from patchwitness import policy
from patchwitness.gates import REGISTRY
from patchwitness.model import Verdict
from patchwitness.report.matrix import Cell, Published, Section, publish

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
    names = [gate.name for gate in REGISTRY]
    for gate_name in names:
        gate = getattr(verdict.gates, gate_name, None)
        if gate is not None:
            table.add_row(gate_name, gate.status, gate.row, Text(gate.detail))
    for reason in verdict.reasons:
        if reason.gate not in names:
            # Text, not markup: a detail quotes logs and test ids, whose "[...]" rich would eat.
            table.add_row(reason.gate, verdict.label, reason.row, Text(reason.detail))
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
        if f.hidden is not None:
            h = f.hidden
            console.print(
                f"hidden tests: fail_to_pass={len(h.fail_to_pass)}/{len(h.failing_ids)} "
                f"pass_to_fail={len(h.pass_to_fail)}/{len(h.pass_to_pass)} "
                f"conflicts={len(h.conflicts)}" + (" (one run)" if h.one_run else ""),
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
    final = Table(title="final (first matching row wins)", title_justify="left")
    final.add_column("#", justify="right")
    final.add_column("row")
    final.add_column("condition", overflow="fold")
    final.add_column("grade")
    final.add_column("label", overflow="fold")
    for index, row in enumerate(policy.FINAL_TABLE, start=1):
        final.add_row(str(index), row.id, row.when, row.grade, row.label_doc)
    console.print(final)


def cell_text(cells: tuple[Cell, ...]) -> Text:
    if not cells:
        return Text("-", style="dim")
    out = Text()
    for n, cell in enumerate(cells):
        if n:
            out.append(", ")
        out.append_text(label_text(cell.label))
        # Wall clock only inside its fingerprint group; a row holds one group by construction.
        if cell.wall_clock_s is not None:
            out.append(f" {cell.wall_clock_s:.1f}s", style="dim")
    return out


CELL_WIDTH = 15  # a label and its wall clock, e.g. "UNPRINTABLE 0.9s"


def render_section(console: Console, section: Section, title: str) -> None:
    heading = title or "tasks x agents"
    if section.mixed:
        heading = f"{heading}: {section.title}"
    # Many agents and few tasks do not fit side by side: the same matrix, agents down the side.
    if (
        (len(section.agents) + 2) * CELL_WIDTH > console.width > 0
        and not section.mixed
        and len(section.agents) > len(section.rows)
    ):
        render_transposed(console, section, heading)
    else:
        table = Table(title=heading, title_justify="left")
        table.add_column("task")
        if section.mixed:
            table.add_column("digest")
        for agent in section.agents:
            table.add_column(agent)
        for row in section.rows:
            lead: list[Text | str] = [Text(row.task, style="italic" if row.hidden else "")]
            if section.mixed:
                lead.append(row.digest)
            table.add_row(*lead, *(cell_text(row.cells.get(a, ())) for a in section.agents))
        console.print(table)
    render_counts(console, section)


def render_transposed(console: Console, section: Section, heading: str) -> None:
    table = Table(title=f"{heading} (agents down, tasks across)", title_justify="left")
    table.add_column("agent")
    for row in section.rows:
        table.add_column(Text(row.task, style="italic" if row.hidden else ""), overflow="fold")
    for agent in section.agents:
        table.add_row(agent, *(cell_text(row.cells.get(agent, ())) for row in section.rows))
    console.print(table)


def render_counts(console: Console, section: Section) -> None:
    held = any(c.held_out_rows for c in section.counts)
    summary = Table(title="per agent (two counts, never one headline number)", title_justify="left")
    summary.add_column("agent")
    summary.add_column("printable passes, zero drift", justify="right")
    # Never dropped, even when every count is zero: hiding it is how a table turns into an ad.
    summary.add_column("UNPRINTABLE", justify="right")
    summary.add_column("rows", justify="right")
    if held:
        summary.add_column("of which held-out (rows / passes / UNPRINTABLE)", justify="right")
    summary.add_column("labels", overflow="fold")
    for c in section.counts:
        labels = ", ".join(f"{k} {n}" for k, n in c.labels.items() if n)
        row = [c.agent, str(c.printable_passes), str(c.unprintable), str(c.rows)]
        if held:
            row.append(
                f"{c.held_out_rows} / {c.held_out_printable_passes} / {c.held_out_unprintable}"
            )
        summary.add_row(*row, labels)
    console.print(summary)


def render_groups(console: Console, published: Published) -> None:
    for group in published.groups:
        console.print(
            f"  fingerprint {group.digest}: {len(group.indices)} verdicts, {group.tasks} tasks, "
            f"agents {', '.join(group.agents)}",
            highlight=False,
        )


def render_matrix(
    console: Console,
    verdicts: list[Verdict],
    title: str = "",
    held_out: Iterable[str] = frozenset(),
    reveal: bool = False,
    show_mixed: bool = False,
) -> Published:
    """Print the published matrix (see report.matrix for the rules) and return it."""
    published = publish(verdicts, held_out=held_out, reveal=reveal, show_mixed=show_mixed)
    if not verdicts:
        console.print(f"{title or 'tasks x agents'}: no verdicts")
        return published
    if published.refusal is not None:
        console.print(Text(published.refusal.text, style="bold red"))
        console.print("fingerprint groups:")
        render_groups(console, published)
    for section in published.sections:
        render_section(console, section, title)
    if published.held_out_tasks and not reveal:
        console.print(
            f"{published.held_out_tasks} held-out tasks: counted above, ids and details hidden "
            "(--reveal shows them)",
            highlight=False,
        )
    return published
