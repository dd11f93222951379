"""JSON Lines: one verdict per line, exactly `Verdict.model_dump_json()`, in a stable order
(task, agent, patch sha256, fingerprint), so two exports of the same database diff cleanly.
Held-out tasks are redacted as in every format unless revealed (report.matrix.redact)."""

from __future__ import annotations

from collections.abc import Iterable

from patchwitness.model import Verdict
from patchwitness.report.matrix import visible_verdicts


def render_jsonl(
    verdicts: list[Verdict], held_out: Iterable[str] = frozenset(), reveal: bool = False
) -> str:
    return "".join(v.model_dump_json() + "\n" for v in visible_verdicts(verdicts, held_out, reveal))


def read_jsonl(text: str) -> list[Verdict]:
    return [Verdict.model_validate_json(line) for line in text.splitlines() if line.strip()]
