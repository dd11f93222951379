"""The coverage gate: did the existing tests execute every patched executable line? Pure.

The hit readers (hits/python.py, hits/gcovr.py) turn a run into `FileLines` per repository-relative
path; `score` joins them with the hunk (C++ lines without data of their own through linemap.py),
and `decide` applies the table. Paths are matched exactly, never by basename.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from patchwitness import policy, sourcefiles
from patchwitness.facts import FileLines, GradeFacts
from patchwitness.gates import drift
from patchwitness.linemap import map_lines
from patchwitness.model import CoverageFacts, CoverageGate
from patchwitness.patch import FileChange
from patchwitness.policy import Policy

ZERO_HIT_LIMIT = 50
_PY_NOT_CODE = re.compile(r"^\s*(#.*)?$")
# A comment line (`// x`, an opening `/* x`, a continuation ` * x`, a closing ` */`), a brace or
# an include. `*out = f();` is code: a continuation star is followed by a space, `/` or nothing.
_CPP_NOT_CODE = re.compile(r"^\s*(//.*|/\*.*|\*(\s.*|/.*)?|[{}();]*\s*|#\s*(include|pragma).*)?$")
_CLOSED_COMMENT = re.compile(r"/\*.*?\*/")


@dataclass(frozen=True)
class CoverageInput:
    touches_source: bool = True
    measurable: bool = True
    goldens_red: bool = False
    data_found: bool = True
    scored: int = 0
    zero_hits: int = 0
    unscored: int = 0


def is_source(path: str, suffixes: frozenset[str], known: frozenset[str] = frozenset()) -> bool:
    """Executable source of the task's language: a name with one of its `suffixes` (the
    language adapter's `source_suffixes`). `known` holds the paths the shell found to be C++
    source although their names do not say so (a header without a suffix, by its content or
    because the build compiled it)."""
    return path in known or sourcefiles.suffix(path) in suffixes


def looks_like_code(text: str, path: str) -> bool:
    line = text.rstrip("\n")
    if path.endswith(".py"):
        return not _PY_NOT_CODE.match(line)
    line = _CLOSED_COMMENT.sub(" ", line)  # `/* fast path */ return -1;` is code
    return not _CPP_NOT_CODE.match(line)


# A C++ line that must have produced code if anything ran it: a return, a throw, an assignment,
# a control statement. A declaration or a brace legitimately has no line entry.
_CPP_STATEMENT = re.compile(
    r"^\s*(return\b|throw\b|if\s*\(|for\s*\(|while\s*\(|switch\s*\(|do\b|else\b|case\b|"
    r"break\s*;|continue\s*;|goto\b)|[^=!<>]=[^=]|\+\+|--|\+=|-=|"
    r"^\s*[\w:.\->\[\]]+\s*\(.*\)\s*;\s*$"  # a call: one callee token, then (...);
)


def looks_like_statement(text: str, path: str) -> bool:
    if path.endswith(".py") or not looks_like_code(text, path):
        return False
    code = text.split("//", 1)[0]
    if "operator" in code and not code.lstrip().startswith("return"):
        return False  # operator declarations: `X& operator=(const X&);`
    return bool(_CPP_STATEMENT.search(code))


def patched_sources(
    changes: list[FileChange], suffixes: frozenset[str], known: frozenset[str] = frozenset()
) -> list[FileChange]:
    """Production changes to executable source that alter at least one code line."""
    out = []
    for change in changes:
        if not is_source(change.path, suffixes, known) or change.status == "removed":
            continue
        lines = list(change.added) + list(change.removed)
        if any(looks_like_code(text, change.path) for _, text in lines):
            out.append(change)
    return out


def lines_to_score(change: FileChange, data: FileLines | None) -> list[int]:
    """The patched lines of one file: added code lines, and for a pure deletion the nearest
    executable lines on each side of the hole."""
    executable = data.executable if data is not None else set()
    lines = {n for n, text in change.added if n in executable or looks_like_code(text, change.path)}
    if data is not None:
        ordered = sorted(executable)
        for hole in change.deletion_holes:
            above = [n for n in ordered if n <= hole]
            below = [n for n in ordered if n > hole]
            if above:
                lines.add(above[-1])
            if below:
                lines.add(below[0])
    return sorted(lines)


def score(
    changes: list[FileChange],
    data: dict[str, FileLines],
    texts: dict[str, str] | None = None,
) -> CoverageFacts:
    """Score each patched line by its own hit count, or (C++, with the file's text in `texts`)
    by the line gcov reports for its statement or block (linemap.py), recorded in `mapped`."""
    facts = CoverageFacts()
    zero: list[str] = []
    for change in changes:
        file_data = data.get(change.path)
        lines = lines_to_score(change, file_data)
        facts.hunk_lines[change.path] = lines
        if file_data is None:
            facts.unscored_suspicious += [f"{change.path}:{n}" for n in lines]
            continue
        text = (texts or {}).get(change.path)
        mapping = (
            map_lines(text, [n for n in lines if n not in file_data.hits], file_data.hits)
            if text is not None and not change.path.endswith(".py")
            else {}
        )
        added = dict(change.added)
        for n in lines:
            by = n
            if n not in file_data.hits:
                found = mapping.get(n)
                if found is None:
                    # Not executable (a declaration, a brace), unless it is a C++ statement that
                    # produced no code: an uninstantiated template or an inline never emitted.
                    if looks_like_statement(added.get(n, ""), change.path):
                        facts.unscored_suspicious.append(f"{change.path}:{n}")
                    continue
                if found.suspicious:
                    facts.unscored_suspicious.append(f"{change.path}:{n}")
                    continue
                if found.line is None:
                    continue  # no code to score: a declaration outside any function
                by = found.line
                facts.mapped[f"{change.path}:{n}"] = f"{change.path}:{by}"
            facts.scored_executable_lines += 1
            if file_data.hits[by] == 0:
                zero.append(f"{change.path}:{n}")
    facts.zero_hit_count = len(zero)
    facts.zero_hit_lines = zero[:ZERO_HIT_LIMIT]
    return facts


def decide(
    facts: CoverageFacts,
    *,
    touches_source: bool,
    goldens_red: bool,
    data_found: bool,
    measurable: bool = True,
    table: Sequence[policy.Row] = policy.COVERAGE_TABLE,
) -> CoverageGate:
    inputs = CoverageInput(
        touches_source=touches_source,
        measurable=measurable,
        goldens_red=goldens_red,
        data_found=data_found,
        scored=facts.scored_executable_lines,
        zero_hits=facts.zero_hit_count,
        unscored=len(facts.unscored_suspicious),
    )
    row = policy.first_row(table, inputs)
    detail = row.when
    if row.id == "zero-hits":
        detail = f"{facts.zero_hit_count} patched line(s) never ran: " + ", ".join(
            facts.zero_hit_lines[:5]
        )
    elif row.id == "unscored-suspicious":
        detail = "no line data for: " + ", ".join(facts.unscored_suspicious[:5])
    elif row.id == "not-measurable" and facts.trials:
        detail = f"{row.when}: " + "; ".join(facts.trials)
    elif row.id == "all-hit":
        detail = f"all {facts.scored_executable_lines} scored patched line(s) ran"
    return CoverageGate(
        status=row.status, row=row.id, effect=row.effect, detail=detail, facts=facts
    )


def judge(
    facts: GradeFacts, rules: Policy, decided: Mapping[str, Any] | None = None
) -> CoverageGate | None:
    collected = facts.coverage
    if collected is None:
        return None
    gate = decide(
        collected.facts.model_copy(deep=True),
        touches_source=collected.touches_source,
        goldens_red=drift.goldens_red_in_coverage_run(facts),
        data_found=collected.data_found,
        # A coverage tool that fails is never the patch's doing: nothing was measured.
        measurable=collected.measurable and not collected.tool_failure,
        table=rules.table("coverage"),
    )
    if gate.row == "no-data" and collected.why_no_data:
        gate.detail = collected.why_no_data
    if gate.row == "not-measurable" and collected.tool_failure:
        gate.detail = "the coverage tool failed on the patched run's data: " + (
            collected.tool_failure
        )
    return gate
