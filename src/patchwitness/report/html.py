"""The published matrix as one self-contained HTML page.

Everything is inline (CSS, one small script, no fonts, no images), and a Content-Security-Policy
forbids every fetch and every script but ours (allowed by its hash), so the page works offline and
a test name that smuggles markup stays text twice over: every string is escaped here, and an
injected script would not be allowed to run even if one slipped through.

The page lays out a `Published` (report.matrix); it decides nothing. Drill-downs are <details>
elements present in the DOM from the start, so they can be read without clicking.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable
from html import escape

from patchwitness.model import (
    CensusGate,
    CoverageGate,
    Difference,
    DriftGate,
    Fingerprint,
    MatrixGate,
    PinningGate,
    ReferenceGate,
    SpecialGate,
    SurfaceGate,
    Verdict,
)
from patchwitness.report.matrix import LABELS, Cell, Published, Row, Section

# One color per label; the text color keeps contrast. UNPRINTABLE gets its own loud hue so it
# cannot be mistaken for a plain failure.
LABEL_COLORS: dict[str, tuple[str, str]] = {
    "passed": ("#2e7d32", "#fff"),
    "tests-authored": ("#81c784", "#000"),
    "failed": ("#c62828", "#fff"),
    "UNPRINTABLE": ("#7b1fa2", "#fff"),
    "no-op": ("#fbc02d", "#000"),
    "uncovered": ("#e64a19", "#fff"),
    "matrix-red": ("#8e0000", "#fff"),
    "apply-failed": ("#ef9a9a", "#000"),
    "invalid-task": ("#4dd0e1", "#000"),
    "timeout": ("#ff9800", "#000"),
    "error": ("#546e7a", "#fff"),
}

SCRIPT = """
(function () {
  var root = document.documentElement;
  var cells = document.querySelectorAll("a.cell");
  cells.forEach(function (a) {
    // The color the browser really painted: lets a headless test check the heatmap.
    a.setAttribute("data-bg", getComputedStyle(a).backgroundColor);
    a.addEventListener("click", function () {
      var target = document.getElementById(a.getAttribute("href").slice(1));
      if (target) { target.open = true; }
    });
  });
  document.querySelectorAll(".legend button[data-label]").forEach(function (b) {
    b.addEventListener("click", function () {
      var label = b.getAttribute("data-label");
      var off = b.classList.toggle("off");
      cells.forEach(function (a) {
        if (a.getAttribute("data-label") === label) { a.classList.toggle("faded", off); }
      });
    });
  });
  root.setAttribute("data-pw-cells", String(cells.length));
  root.setAttribute("data-pw-ready", "1");
})();
"""

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 1.5rem;
       color: #1b1b1b; background: #fafafa; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.15rem; margin-top: 2rem; }
table { border-collapse: collapse; margin: .5rem 0; }
th, td { border: 1px solid #ccc; padding: .25rem .5rem; text-align: left; vertical-align: top; }
table.heatmap td { padding: 2px; }
a.cell { display: block; min-width: 7rem; padding: .3rem .4rem; text-decoration: none;
         font-weight: 600; border-radius: 3px; margin: 1px 0; }
a.cell .wall { font-weight: 400; opacity: .8; font-size: .85em; }
a.cell.faded { opacity: .15; }
.none { color: #999; }
.legend { display: flex; flex-wrap: wrap; gap: .3rem; margin: .5rem 0; }
.legend button { border: 0; border-radius: 3px; padding: .2rem .5rem; cursor: pointer; }
.legend button.off { opacity: .3; }
.refusal { border: 2px solid #b71c1c; background: #ffebee; padding: .5rem 1rem; }
.refusal pre, pre { white-space: pre-wrap; word-break: break-all; }
.note { color: #555; }
details.verdict { border: 1px solid #ccc; background: #fff; margin: .3rem 0; padding: .3rem .6rem; }
details.verdict > summary { cursor: pointer; font-weight: 600; }
details.verdict:target { outline: 3px solid #1565c0; }
.facts h4 { margin: .6rem 0 .2rem; }
ul.ids { margin: .2rem 0; max-height: 20rem; overflow: auto; }
.empty { display: inline-block; color: #777; font-size: .85em; margin: .1rem .6rem .1rem 0; }
caption { text-align: left; font-weight: 600; padding: .3rem 0; }
.chip { display: inline-block; border-radius: 3px; padding: 0 .4rem; margin: 1px; font-size: .9em; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
"""


def e(value: object) -> str:
    """Every string that reaches the page goes through here: hostile test names included."""
    return escape(str(value), quote=True)


def label_class(label: str) -> str:
    return "lab-" + "".join(ch if ch.isalnum() else "-" for ch in label.lower())


def label_css() -> str:
    rules = [
        f".{label_class(label)} {{ background: {bg}; color: {fg}; }}"
        for label, (bg, fg) in LABEL_COLORS.items()
    ]
    return "\n".join(rules)


def script_hash() -> str:
    return base64.b64encode(hashlib.sha256(SCRIPT.encode()).digest()).decode()


# -- the matrix --------------------------------------------------------------------------------


def legend() -> str:
    buttons = "".join(
        f'<button type="button" class="{label_class(label)}" data-label="{e(label)}">'
        f"{e(label)}</button>"
        for label in LABELS
    )
    return f'<div class="legend" aria-label="labels (click one to fade its cells)">{buttons}</div>'


def cell_link(cell: Cell) -> str:
    wall = (
        "" if cell.wall_clock_s is None else f' <span class="wall">{cell.wall_clock_s:.1f}s</span>'
    )
    return (
        f'<a class="cell {label_class(cell.label)}" href="#v{cell.index}" id="cell-{cell.index}" '
        f'data-task="{e(cell.task)}" data-agent="{e(cell.agent)}" data-label="{e(cell.label)}" '
        f'data-grade="{e(cell.grade)}" data-digest="{e(cell.digest)}" data-index="{cell.index}" '
        f'data-held-out="{str(cell.held_out).lower()}" title="{e(cell.grade)}">'
        f"{e(cell.label)}{wall}</a>"
    )


def matrix_row(row: Row, section: Section) -> str:
    parts = [f'<th scope="row" data-task="{e(row.task)}">{e(row.task)}</th>']
    if section.mixed:
        parts.append(f'<td class="digest">{e(row.digest)}</td>')
    for agent in section.agents:
        cells = row.cells.get(agent, ())
        inner = "".join(cell_link(c) for c in cells) or '<span class="none">-</span>'
        parts.append(f'<td data-agent="{e(agent)}">{inner}</td>')
    return f'<tr data-task="{e(row.task)}" data-digest="{e(row.digest)}">{"".join(parts)}</tr>'


def matrix_table(section: Section) -> str:
    head = ['<th scope="col">task</th>']
    if section.mixed:
        head.append('<th scope="col">digest</th>')
    head += [f'<th scope="col" data-agent="{e(a)}">{e(a)}</th>' for a in section.agents]
    body = "".join(matrix_row(row, section) for row in section.rows)
    return (
        f'<table class="heatmap"><thead><tr>{"".join(head)}</tr></thead>'
        f"<tbody>{body}</tbody></table>"
    )


def counts_table(section: Section) -> str:
    """The seed's two counts side by side, then rows, held-out rows and labels; no percentage
    anywhere. UNPRINTABLE has its own column, shown at zero too."""
    head = (
        "<tr><th>agent</th><th>printable passes, zero drift</th><th>UNPRINTABLE</th>"
        "<th>rows</th><th>held-out rows / passes / UNPRINTABLE</th><th>labels</th></tr>"
    )
    rows = []
    for c in section.counts:
        numbers = [
            ("printable_passes", c.printable_passes),
            ("unprintable", c.unprintable),
            ("rows", c.rows),
        ]
        tds = "".join(f'<td class="num" data-count="{k}">{n}</td>' for k, n in numbers)
        held = (
            f'<td class="num"><span data-count="held_out_rows">{c.held_out_rows}</span> / '
            f'<span data-count="held_out_printable_passes">{c.held_out_printable_passes}</span>'
            f' / <span data-count="held_out_unprintable">{c.held_out_unprintable}</span></td>'
        )
        chips = "".join(
            f'<span class="chip {label_class(lb)}" data-count="label:{e(lb)}" data-n="{n}">'
            f"{e(lb)} {n}</span>"
            for lb, n in c.labels.items()
            if n
        )
        rows.append(
            f'<tr data-agent="{e(c.agent)}"><th scope="row">{e(c.agent)}</th>{tds}{held}'
            f"<td>{chips}</td></tr>"
        )
    return (
        '<table class="counts"><caption>per agent: two counts side by side, never one headline '
        f"number</caption><thead>{head}</thead><tbody>{''.join(rows)}</tbody></table>"
    )


def section_html(number: int, section: Section) -> str:
    note = (
        '<p class="note">shown apart: not comparable with any other section</p>'
        if section.mixed
        else ""
    )
    return (
        f'<section class="matrix" id="matrix-{number}" data-environment="{e(section.environment)}"'
        f' data-mixed="{str(section.mixed).lower()}"><h2>{e(section.title)}</h2>{note}'
        f"{legend()}{matrix_table(section)}{counts_table(section)}</section>"
    )


# -- refusal and groups ------------------------------------------------------------------------


def refusal_html(published: Published) -> str:
    if published.refusal is None:
        return ""
    fields = "".join(f'<li data-field="{e(f)}">{e(f)}</li>' for f in published.refusal.fields)
    return (
        '<section class="refusal" id="refusal"><h2>Refused: different fingerprints</h2>'
        f'<p>fields that differ:</p><ul class="fields">{fields}</ul>'
        f"<pre>{e(published.refusal.text)}</pre></section>"
    )


def groups_html(published: Published) -> str:
    rows = "".join(
        f'<tr data-digest="{e(g.digest)}"><td>{e(g.digest)}</td><td>{e(g.environment)}</td>'
        f'<td class="num">{len(g.indices)}</td><td class="num">{g.tasks}</td>'
        f"<td>{e(', '.join(g.agents))}</td><td>{fingerprint_html(g.fingerprint)}</td></tr>"
        for g in published.groups
    )
    return (
        '<section id="groups"><h2>Fingerprint groups</h2><table class="groups"><thead><tr>'
        "<th>digest</th><th>environment</th><th>verdicts</th><th>tasks</th><th>agents</th>"
        f"<th>fingerprint</th></tr></thead><tbody>{rows}</tbody></table></section>"
    )


def fingerprint_html(fp: Fingerprint | None) -> str:
    if fp is None:
        return '<span class="none">none shown</span>'
    items = "".join(f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in fp.model_dump().items())
    return f'<details><summary>{e(fp.digest)}</summary><table class="fp">{items}</table></details>'


# -- drill-downs -------------------------------------------------------------------------------


def id_list(title: str, values: Iterable[object], kind: str) -> str:
    values = list(values)
    if not values:
        # Kept (a reader must see that the list is empty, not missing), but out of the way.
        return f'<span class="empty" data-fact="{e(kind)}">{e(title)} (0)</span>'
    items = "".join(f"<li>{e(v)}</li>" for v in values)
    return (
        f'<div class="facts-list" data-fact="{e(kind)}"><h5>{e(title)} ({len(values)})</h5>'
        f'<ul class="ids">{items}</ul></div>'
    )


def gate_head(name: str, status: str, row: str, effect: str, detail: str) -> str:
    return (
        f'<h4 data-gate="{e(name)}">{e(name)}: {e(status)}, row {e(row)}, effect {e(effect)}</h4>'
        f"<p>{e(detail)}</p>"
    )


def drift_html(gate: DriftGate) -> str:
    f = gate.facts
    ids = sorted(set(f.before) | set(f.after))
    outcomes = "".join(
        f"<tr><td>{e(i)}</td><td>{e(f.before.get(i, '-'))}</td><td>{e(f.after.get(i, '-'))}</td>"
        "</tr>"
        for i in ids
    )
    p = f.pristine
    return (
        gate_head("drift", gate.status, gate.row, gate.effect, gate.detail)
        + f'<p data-fact="assertion_delta">assertion_delta {f.assertion_delta}; '
        f"test hash changed: {str(f.test_hash_changed).lower()}</p>"
        + id_list("fail_to_pass", f.fail_to_pass, "fail_to_pass")
        + id_list("pass_to_fail", f.pass_to_fail, "pass_to_fail")
        + id_list("tests_removed", f.tests_removed, "tests_removed")
        + id_list("tests_added", f.tests_added, "tests_added")
        + id_list("still_failing", f.still_failing, "still_failing")
        + id_list("weakened", f.weakened, "drift_weakened")
        + id_list("skips_added", f.skips_added, "skips_added")
        + id_list("flaky (never a transition on its own)", f.flaky, "flaky")
        + id_list("test files edited", f.test_files_edited, "test_files_edited")
        + id_list("infrastructure files edited", f.infra_files_edited, "infra_files_edited")
        + '<table class="outcomes" data-fact="outcomes"><thead><tr><th>test id</th>'
        f"<th>before</th><th>after</th></tr></thead><tbody>{outcomes}</tbody></table>"
        + f'<p data-fact="pristine">pristine run: ran {str(p.ran).lower()}</p>'
        + id_list("pristine fail_to_pass", p.fail_to_pass, "pristine_fail_to_pass")
        + id_list("pristine pass_to_fail", p.pass_to_fail, "pristine_pass_to_fail")
        + id_list("pristine disagreement", p.disagreement, "pristine_disagreement")
    )


def census_html(gate: CensusGate) -> str:
    f = gate.facts
    weakened = [f"{w.file} {w.scope}: lost {w.removed}, gained {w.added}" for w in f.weakened]
    return (
        gate_head("census", gate.status, gate.row, gate.effect, gate.detail)
        + f"<p>items {f.before} &#8594; {f.after}; assertions {f.before_assertions} &#8594; "
        f"{f.after_assertions}</p>"
        + id_list("unexpected removals", f.unexpected_removals, "unexpected_removals")
        + id_list("removed keys", f.removed, "removed")
        + id_list("added keys", f.added, "added")
        + id_list("allowlisted removals", f.allowlisted_removals, "allowlisted_removals")
        + id_list("weakened", weakened, "census_weakened")
        + id_list("disabled (skips)", f.disabled, "disabled")
        + id_list("macro redefinitions", f.macro_redefinitions, "macro_redefinitions")
        + id_list("infrastructure edits", f.infra_edits, "infra_edits")
        + id_list("unreadable", f.unreadable, "unreadable")
    )


def surface_html(gate: SurfaceGate) -> str:
    f = gate.facts
    reads = [f"{r.file}:{r.line}: {r.message}" for r in f.reads]
    return (
        gate_head("surface", gate.status, gate.row, gate.effect, gate.detail)
        + id_list("unrecognised files", f.unrecognised, "unrecognised")
        + id_list("how the run differed from the SHA's", f.changes, "surface_changes")
        + id_list("process state read", reads, "process_reads")
    )


def coverage_html(gate: CoverageGate) -> str:
    f = gate.facts
    hunks = [f"{path}: {lines}" for path, lines in sorted(f.hunk_lines.items())]
    return (
        gate_head("coverage", gate.status, gate.row, gate.effect, gate.detail)
        + f"<p>{e(f.language)}: {f.scored_executable_lines} scored executable lines, "
        f"{f.zero_hit_count} never run</p>"
        + id_list("zero-hit lines", f.zero_hit_lines, "zero_hit_lines")
        + id_list("unscored lines", f.unscored_suspicious, "unscored_suspicious")
        + id_list("coverage pragmas added", f.pragmas_added, "pragmas_added")
        + id_list("changed lines scored", hunks, "hunk_lines")
    )


def matrix_gate_html(gate: MatrixGate) -> str:
    """Only the red cells of the flag matrix: a green cell has nothing to drill into."""
    f = gate.facts
    red = [c for c in f.cells if c.status != "pass"]
    rows = "".join(
        f'<tr data-status="{e(c.status)}"><td>{e(c.patch)}</td><td>{e(c.golden)}</td>'
        f"<td>{e(c.envelope)}</td><td>{e(c.status)}</td><td>{e(c.baseline_status or '-')}</td>"
        f"<td>{str(c.required).lower()}</td>"
        f"<td><pre>{e(c.compile_stderr_tail or c.stderr_tail)}</pre>{e(c.note)}</td></tr>"
        for c in red
    )
    return (
        gate_head("matrix", gate.status, gate.row, gate.effect, gate.detail)
        + f'<table class="red-cells" data-fact="red_cells"><caption>red cells ({len(red)} of '
        f"{len(f.cells)})</caption><thead><tr><th>patch</th><th>golden</th><th>envelope</th>"
        "<th>status</th><th>at the SHA</th><th>required</th><th>stderr / note</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"
        + id_list("transitions", f.transitions, "transitions")
        + id_list("newly red", f.new_red, "new_red")
        + id_list("red at the SHA already", f.baseline_red, "baseline_red")
        + id_list("optional cells red", f.optional_red, "optional_red")
        + id_list("missing cells", f.missing, "missing")
        + id_list("resource findings", f.resource_findings, "resource_findings")
        + id_list("advice", f.advice, "advice")
    )


def special_html(gate: SpecialGate) -> str:
    f = gate.facts
    found = [f"{x.file}:{x.line}: {x.message}" if x.file else x.message for x in f.findings]
    return (
        gate_head("special", gate.status, gate.row, gate.effect, gate.detail)
        + id_list("code that singles out the tests' values", found, "special_findings")
        + id_list("the tests' values were read from", f.values_from, "values_from")
        + id_list("hidden tests that confirmed it", f.confirmed_by_hidden, "confirmed_by_hidden")
    )


def pinning_html(gate: PinningGate) -> str:
    from patchwitness.gates.pinning import describe

    f = gate.facts
    counted = f"<p>{f.decisions} decision(s) on the patch's added production lines.</p>"
    return (
        gate_head("pinning", gate.status, gate.row, gate.effect, gate.detail)
        + counted
        + id_list("went one way only", [describe(d) for d in f.one_way], "one_way")
        + (f"<p>{e(f.why_not)}</p>" if f.why_not else "")
        + f"<p>{f.mutants_run} mutant(s) run of {f.mutants_made}.</p>"
        + id_list(
            "mutants every test passed",
            [f"{m.file}:{m.line}: {m.description}" for m in f.survivors],
            "survivors",
        )
        + "".join(f"<pre>{e(m.diff)}</pre>" for m in f.survivors[:5])
        + (f"<p>{e(f.mutants_skipped)}</p>" if f.mutants_skipped else "")
    )


def reference_html(gate: ReferenceGate) -> str:
    f = gate.facts
    rows = "".join(_difference_row(d) for d in f.differences)
    table = (
        "<table><tr><th>call</th><th>differs in</th><th>the reference</th><th>the patch</th></tr>"
        f"{rows}</table>"
        if rows
        else ""
    )
    counted = (
        f"<p>{f.compared} call(s) compared ({f.captured} made by the failing tests, the rest "
        f"their neighbours); {f.differing} differ; left out: {f.nondeterministic} the reference "
        f"did not answer the same way twice, {f.unrunnable} could not be run.</p>"
    )
    return (
        gate_head("reference", gate.status, gate.row, gate.effect, gate.detail)
        + counted
        + id_list("functions compared", f.targets, "targets")
        + table
        + (f"<p>{e(f.skipped)}</p>" if f.skipped else "")
    )


def _difference_row(d: Difference) -> str:
    varied = d.varied or "the tests' own call"
    return (
        f"<tr><td><code>{e(d.call)}</code><br>{e(varied)}</td><td>{e(', '.join(d.fields))}</td>"
        f"<td><pre>{e(_sides(d.reference))}</pre></td><td><pre>{e(_sides(d.patch))}</pre></td></tr>"
    )


def _sides(side: dict[str, str]) -> str:
    return "\n".join(f"{k}: {v}" for k, v in side.items() if v)


def generic_gate_html(name: str, gate) -> str:
    """A gate without a section of its own: its head and its facts as JSON."""
    facts = getattr(gate, "facts", None)
    shown = facts.model_dump_json(indent=1) if facts is not None else ""
    return gate_head(name, gate.status, gate.row, gate.effect, gate.detail) + (
        f"<pre>{e(shown)}</pre>" if shown else ""
    )


# How each gate of the registry (gates/__init__.py) is drawn; a gate not here gets the
# generic section, so a new gate is never missing from the page.
SECTIONS = {
    "drift": drift_html,
    "census": census_html,
    "surface": surface_html,
    "coverage": coverage_html,
    "matrix": matrix_gate_html,
    "special": special_html,
    "pinning": pinning_html,
    "reference": reference_html,
}


def gates_html(v: Verdict) -> str:
    from patchwitness.gates import REGISTRY

    parts = []
    for declared in REGISTRY:
        gate = getattr(v.gates, declared.name, None)
        if gate is None:
            continue
        section = SECTIONS.get(declared.name)
        parts.append(section(gate) if section else generic_gate_html(declared.name, gate))
    g = v.gates
    if g.build is not None:
        steps = [("configure", g.build.configure), ("build", g.build.build)]
        parts.append(
            "<h4>build</h4>"
            + "".join(
                f"<p>{name}: rc {e(run.returncode)} <code>{e(run.command)}</code></p>"
                for name, run in steps
                if run is not None
            )
        )
    return "".join(parts) or '<p class="none">no gate decided</p>'


def reasons_html(v: Verdict) -> str:
    items = "".join(
        f'<li data-gate="{e(r.gate)}" data-row="{e(r.row)}">{e(r.gate)} / {e(r.row)}: '
        f"{e(r.detail)}</li>"
        for r in v.reasons
    )
    return f'<h4>reasons</h4><ul class="reasons">{items}</ul>'


def findings_html(v: Verdict) -> str:
    def where(f) -> str:
        return f"{f.file}:{f.line}" if f.file and f.line else (f.file or "")

    items = "".join(
        f'<li data-kind="{e(f.kind)}">{e(f.gate)} {e(f.kind)} <code>{e(where(f))}</code> '
        f"{e(f.message)}</li>"
        for f in v.findings
    )
    return f'<h4>findings ({len(v.findings)})</h4><ul class="findings">{items}</ul>'


def verdict_body(cell: Cell, v: Verdict) -> str:
    if cell.hidden:
        return '<p class="note">held-out task: id and details hidden (--reveal shows them)</p>'
    wall = "" if cell.wall_clock_s is None else f"; wall clock {cell.wall_clock_s:.2f}s"
    return (
        f"<p>patch sha256 <code>{e(v.patch_sha256)}</code>; repo {e(v.repo_sha or '-')}; "
        f"{e(v.language or '-')}; fingerprint {e(cell.digest)}{wall}</p>"
        + reasons_html(v)
        + findings_html(v)
        + f'<div class="facts">{gates_html(v)}</div>'
        + f"<h4>fingerprint</h4>{fingerprint_html(v.fingerprint)}"
    )


def verdict_html(cell: Cell, v: Verdict) -> str:
    return (
        f'<details class="verdict" id="v{cell.index}" data-task="{e(cell.task)}" '
        f'data-agent="{e(cell.agent)}" data-label="{e(cell.label)}" data-index="{cell.index}">'
        f"<summary>{e(cell.task)} / {e(cell.agent)}: {e(cell.label)} ({e(cell.grade)})</summary>"
        f"{verdict_body(cell, v)}</details>"
    )


def drilldowns_html(published: Published, verdicts: list[Verdict]) -> str:
    cells = list(published.cells())  # in the matrix's order: row by row, agent by agent
    if not cells:
        return ""
    body = "".join(verdict_html(c, verdicts[c.index]) for c in cells)
    return f'<section id="verdicts"><h2>Every verdict</h2>{body}</section>'


# -- the page ----------------------------------------------------------------------------------


def summary_html(published: Published) -> str:
    held = (
        f"; {published.held_out_tasks} held-out tasks, counted, ids and details hidden"
        if published.held_out_tasks and not published.reveal
        else ""
    )
    return (
        f'<p class="summary" data-total="{published.total}">{published.total} verdicts, '
        f"{len(published.agents)} agents, {len(published.groups)} fingerprint digests{e(held)}"
        "</p>"
    )


def render_html(
    published: Published, verdicts: list[Verdict], title: str = "patchwitness: published matrix"
) -> str:
    """One self-contained page. `verdicts` is the list given to `publish` (cells index it)."""
    csp = (
        "default-src 'none'; style-src 'unsafe-inline'; "
        f"script-src 'sha256-{script_hash()}'; base-uri 'none'; form-action 'none'"
    )
    sections = "".join(section_html(n, s) for n, s in enumerate(published.sections, start=1))
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{e(csp)}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{e(title)}</title><style>{CSS}{label_css()}</style></head>"
        f"<body><h1>{e(title)}</h1>{summary_html(published)}{refusal_html(published)}"
        f"{sections}{groups_html(published)}{drilldowns_html(published, verdicts)}"
        f"<script>{SCRIPT}</script></body></html>\n"
    )
