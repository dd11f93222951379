"""SARIF 2.1.0: every finding and every rejecting gate row as a code-scanning result.

One run, tool driver "patchwitness". Rules are made from what occurs: one per finding kind
(`finding/GATE/KIND`) and one per gate row that fired (`gate/GATE/ROW`). A result carries a
physical location when the verdict knows a file (a finding's file and line, a zero-hit line
"file:line", a census key "kind|file|scope|name|fp", a test id "file::name"); otherwise only a
logical location naming the task and agent. Census keys carry no line (the line lives in the
census artifacts, which are files this pure function does not read), so they locate a file only.

Held-out tasks are redacted exactly as in every other format (report.matrix.visible_verdicts): a
rejected held-out verdict still yields a result, under its alias, without its facts.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import quote

from patchwitness import __version__, policy
from patchwitness.census.items import split_key
from patchwitness.model import Finding, Reason, Verdict
from patchwitness.names import GateName
from patchwitness.report.matrix import digest_of, visible_verdicts

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVEL_BY_EFFECT = {"reject": "error", "ungradable": "warning", "review": "note"}
# Locations beyond the first go to relatedLocations; a runaway list is cut, the rest still in
# the verdict.
MAX_RELATED = 50
# Which drift facts locate which drift row (the ids name the test file before "::").
DRIFT_ROW_FACTS = {
    "tests-removed": ("tests_removed",),
    "pass-to-fail": ("pass_to_fail",),
    "skips-added": ("skips_added",),
    "weakened": ("weakened",),
    "assertion-loss": ("test_files_edited",),
    "test-edit-forbidden": ("test_files_edited", "infra_files_edited"),
    "grader-files-edited": ("test_files_edited", "infra_files_edited"),
}
SOURCE_SUFFIXES = (
    ".py",
    ".c",
    ".cc",
    ".cpp",
    ".cxx",
    ".h",
    ".hh",
    ".hpp",
    ".hxx",
    ".txt",
    ".cmake",
)


@dataclass(frozen=True)
class Place:
    file: str | None
    line: int | None = None


@dataclass
class Rule:
    id: str
    text: str
    level: str


@dataclass
class Log:
    rules: dict[str, Rule] = field(default_factory=dict)
    results: list[dict] = field(default_factory=list)

    def rule_index(self, rule: Rule) -> int:
        if rule.id not in self.rules:
            self.rules[rule.id] = rule
        return list(self.rules).index(rule.id)


# -- places ------------------------------------------------------------------------------------


def place_of_line(ref: str) -> Place:
    """'file:line' (coverage facts)."""
    path, _, line = ref.rpartition(":")
    if path and line.isdigit() and int(line) >= 1:
        return Place(path, int(line))
    return Place(ref)


def place_of_key(key: str) -> Place | None:
    """A census key 'kind|file|scope|name|fp': the file is its second field."""
    try:
        _, file, _, _, _ = split_key(key)
    except ValueError:
        return None
    return Place(file) if file else None


def place_of_test(test_id: str) -> Place | None:
    """A test id 'file::name' locates its file; ids without one (CTest names) locate nothing."""
    path = test_id.split("::", 1)[0]
    return Place(path) if "::" in test_id and path.endswith(SOURCE_SUFFIXES) else None


def census_places(v: Verdict) -> list[Place | None]:
    f = v.gates.census.facts if v.gates.census else None
    if f is None:
        return []
    keys = f.unexpected_removals + f.disabled + f.macro_redefinitions
    return [place_of_key(k) for k in keys] + [Place(p) for p in f.infra_edits + f.unreadable]


def drift_places(v: Verdict, row: str) -> list[Place | None]:
    f = v.gates.drift.facts if v.gates.drift else None
    if f is None:
        return []
    names = DRIFT_ROW_FACTS.get(row, ("tests_removed", "pass_to_fail", "test_files_edited"))
    out: list[Place | None] = []
    for name in names:
        for value in getattr(f, name):
            out.append(Place(value) if name.endswith("files_edited") else place_of_test(value))
    return out


def coverage_places(v: Verdict) -> list[Place | None]:
    f = v.gates.coverage.facts if v.gates.coverage else None
    if f is None:
        return []
    return [place_of_line(r) for r in f.zero_hit_lines + f.unscored_suspicious]


def surface_places(v: Verdict) -> list[Place | None]:
    f = v.gates.surface.facts if v.gates.surface else None
    if f is None:
        return []
    files = [Place(entry.split(": ", 1)[0]) for entry in f.unrecognised]
    return files + [Place(r.file, r.line) for r in f.reads if r.file]


def finding_place(finding: Finding) -> Place:
    line = finding.line if finding.line and finding.line >= 1 else None
    return Place(finding.file, line)


def special_places(v: Verdict) -> list[Place | None]:
    f = v.gates.special.facts if v.gates.special else None
    return [finding_place(x) for x in f.findings] if f is not None else []


def pinning_places(v: Verdict) -> list[Place | None]:
    f = v.gates.pinning.facts if v.gates.pinning else None
    if f is None:
        return []
    return [Place(m.file, m.line) for m in f.survivors] + [Place(d.file, d.line) for d in f.one_way]


def reference_places(v: Verdict) -> list[Place | None]:
    """The files of the functions whose calls differ."""
    f = v.gates.reference.facts if v.gates.reference else None
    return [Place(d.target.split("::", 1)[0], None) for d in f.differences] if f else []


def matrix_places(v: Verdict) -> list[Place | None]:
    """The matrix locates by the findings it wrote (sanitizer reports name a file and line)."""
    return [finding_place(f) for f in v.findings if f.gate == GateName.MATRIX and f.file]


# How a reason of each gate of the registry (gates/__init__.py) is located; a gate not here is
# located by the findings it wrote, so a new gate's reasons are never without a place.
PLACES = {
    "census": lambda v, row: census_places(v),
    "surface": lambda v, row: surface_places(v),
    "drift": drift_places,
    "coverage": lambda v, row: coverage_places(v),
    "matrix": lambda v, row: matrix_places(v),
    "special": lambda v, row: special_places(v),
    "pinning": lambda v, row: pinning_places(v),
    "reference": lambda v, row: reference_places(v),
}


def reason_places(v: Verdict, reason: Reason) -> list[Place]:
    locate = PLACES.get(reason.gate)
    if locate is not None:
        found = locate(v, reason.row)
    else:
        found = [finding_place(f) for f in v.findings if f.gate == reason.gate and f.file]
    unique = dict.fromkeys(p for p in found if p is not None and p.file)
    return list(unique)


# -- what becomes a result ---------------------------------------------------------------------


def reason_effect(v: Verdict, reason: Reason) -> str | None:
    """reject / ungradable / review for a reason that decided something, read from the effect of
    the table row that fired; None for commentary (a missing patch note, an accepting row)."""
    if v.grade == "ungradable":
        return "ungradable" if reason.gate == "grade" else None
    return {"reject": "reject", "review": "review"}.get(reason.effect or "")


def fingerprint_of(*parts: object) -> str:
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).hexdigest()[:32]


def location(v: Verdict, place: Place | None, message: str = "") -> dict:
    logical = [{"fullyQualifiedName": f"{v.task}/{v.agent}", "name": v.task, "kind": "module"}]
    loc: dict = {"logicalLocations": logical}
    if place is not None and place.file:
        physical: dict = {
            "artifactLocation": {"uri": quote(place.file, safe="/._-~"), "uriBaseId": "%SRCROOT%"}
        }
        if place.line:
            physical["region"] = {"startLine": place.line}
        loc["physicalLocation"] = physical
    if message:
        loc["message"] = {"text": message}
    return loc


def result(log: Log, rule: Rule, v: Verdict, text: str, places: list[Place], identity: str) -> dict:
    first = places[0] if places else None
    related = [
        {"id": n, **location(v, p, "also here")}
        for n, p in enumerate(places[1 : 1 + MAX_RELATED], start=1)
    ]
    out = {
        "ruleId": rule.id,
        "ruleIndex": log.rule_index(rule),
        "level": rule.level,
        "message": {"text": text},
        "locations": [location(v, first)],
        # Stable across runs of the same patch: rule, task, agent, where, and what.
        "partialFingerprints": {
            "patchwitness/v1": fingerprint_of(
                rule.id,
                v.task,
                v.agent,
                first.file if first else "",
                first.line if first else "",
                identity,
            )
        },
        "properties": {
            "task": v.task,
            "agent": v.agent,
            "label": v.label,
            "grade": v.grade,
            "patch_sha256": v.patch_sha256,
            "fingerprint": digest_of(v),
        },
    }
    if related:
        out["relatedLocations"] = related
    return out


def finding_result(log: Log, v: Verdict, finding: Finding) -> dict:
    level = "error" if v.grade == "reject" else "warning"
    rule = Rule(f"finding/{finding.gate}/{finding.kind}", f"{finding.gate}: {finding.kind}", level)
    place = finding_place(finding)
    text = f"{finding.message} ({v.task} / {v.agent}: {v.label})"
    places = [place] if finding.file else []
    return result(log, rule, v, text, places, f"{finding.kind}|{finding.message}")


def row_text(gate: str, row: str) -> str:
    """The rule's description: the decision-table row's own condition, when a table has it."""
    for table_row in policy.TABLES.get(gate, []):
        if table_row.id == row:
            return f"{gate} gate, row {row}: {table_row.when}"
    for final in policy.FINAL_TABLE:
        if final.id == row:
            return f"final table, row {row}: {final.when}"
    return f"{gate} gate, row {row}"


def reason_result(log: Log, v: Verdict, reason: Reason, effect: str) -> dict:
    rule = Rule(
        f"gate/{reason.gate}/{reason.row}",
        row_text(reason.gate, reason.row),
        LEVEL_BY_EFFECT[effect],
    )
    text = (
        f"{v.task} / {v.agent}: {v.label} ({v.grade}): {reason.gate} {reason.row}: {reason.detail}"
    )
    return result(log, rule, v, text, reason_places(v, reason), reason.row)


def verdict_results(log: Log, v: Verdict) -> list[dict]:
    out = [finding_result(log, v, f) for f in v.findings]
    for reason in v.reasons:
        effect = reason_effect(v, reason)
        if effect is not None:
            out.append(reason_result(log, v, reason, effect))
    return out


# -- the log -----------------------------------------------------------------------------------


def rule_json(rule: Rule) -> dict:
    return {
        "id": rule.id,
        "name": rule.id.replace("/", "_").replace("-", "_"),
        "shortDescription": {"text": rule.text},
        "defaultConfiguration": {"level": rule.level},
    }


def sarif_log(
    verdicts: list[Verdict], held_out: Iterable[str] = frozenset(), reveal: bool = False
) -> dict:
    """The SARIF log as a dict (see module doc)."""
    shown = visible_verdicts(verdicts, held_out, reveal)
    log = Log()
    for v in shown:
        log.results.extend(verdict_results(log, v))
    run = {
        "tool": {
            "driver": {
                "name": "patchwitness",
                "version": __version__,
                "semanticVersion": __version__,
                "rules": [rule_json(r) for r in log.rules.values()],
            }
        },
        "originalUriBaseIds": {
            "%SRCROOT%": {"description": {"text": "the root of the graded repository"}}
        },
        "columnKind": "unicodeCodePoints",
        "results": log.results,
        "properties": {
            "verdicts": len(shown),
            "fingerprintDigests": sorted({digest_of(v) for v in shown}),
        },
    }
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def render_sarif(
    verdicts: list[Verdict], held_out: Iterable[str] = frozenset(), reveal: bool = False
) -> str:
    return json.dumps(sarif_log(verdicts, held_out, reveal), indent=2, ensure_ascii=False) + "\n"
