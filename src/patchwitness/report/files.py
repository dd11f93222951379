"""Writing the published matrix and the verdicts to files: HTML, SARIF, JUnit, JSONL."""

from __future__ import annotations

from pathlib import Path

from patchwitness.model import Verdict
from patchwitness.report.html import render_html
from patchwitness.report.jsonl import render_jsonl
from patchwitness.report.junit import render_junit
from patchwitness.report.matrix import publish
from patchwitness.report.sarif import render_sarif


def _write(path: Path, text: str) -> None:
    """Atomic, like every result file: a reader never sees half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def write_all(
    verdicts: list[Verdict],
    *,
    held_out: set[str] | frozenset[str] = frozenset(),
    reveal: bool = False,
    show_mixed: bool = False,
    html: Path | None = None,
    sarif: Path | None = None,
    junit: Path | None = None,
    jsonl: Path | None = None,
) -> None:
    held = set(held_out)
    if html is not None:
        published = publish(verdicts, held_out=held, reveal=reveal, show_mixed=show_mixed)
        _write(html, render_html(published, verdicts))
    if sarif is not None:
        _write(sarif, render_sarif(verdicts, held, reveal))
    if junit is not None:
        _write(junit, render_junit(verdicts, held, reveal))
    if jsonl is not None:
        _write(jsonl, render_jsonl(verdicts, held, reveal))
