"""The published matrix, as data: what every report format shows, decided once.

`publish` is pure: verdicts in, a `Published` out, no I/O. The renderers (terminal, HTML) only lay
it out, so the rules below hold in every format:

- every verdict is a cell of a tasks x agents matrix; nothing is dropped, UNPRINTABLE included;
- per agent, the seed's two counts side by side (printable passes with zero drift; UNPRINTABLE
  rows), the number of rows and a count per label; never one headline percentage;
- verdicts are grouped by fingerprint digest. A fingerprint holds the task's own test command,
  timeout and manifests, so different tasks always have different digests and that is no
  comparison. Agents are compared within a task row, so the matrix is refused when one task was
  graded under two or more digests: the refusal says which fields differ and how, and no
  side-by-side is shown unless `show_mixed`, which shows each machine environment apart, every row
  labelled by its digest;
- wall clock is shown per verdict, only within its group: never summed, averaged or ranked, and
  not at all for a verdict without a fingerprint;
- held-out tasks count in the per-agent numbers (and are counted apart as held-out), but their ids
  and details stay hidden unless `reveal`: rows read "held-out #N".
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import get_args

from patchwitness.fingerprint import DIGEST_EXCLUDES, compare, seal
from patchwitness.model import Fingerprint, Label, Reason, Verdict

LABELS: tuple[str, ...] = get_args(Label)
NO_FINGERPRINT = "none"
# Fingerprint fields that belong to the task rather than to the machine: they differ between tasks
# by construction, so they split a task row when they differ but never split an environment.
TASK_FIELDS = frozenset({"test_cmd", "timeout_s", "manifests"})
HIDDEN = "(held out)"


@dataclass(frozen=True)
class Cell:
    """One verdict in the matrix. `task` is the id as shown (an alias when hidden)."""

    task: str
    agent: str
    label: str
    grade: str
    index: int  # position of the verdict in the list given to `publish`
    digest: str
    held_out: bool = False
    hidden: bool = False  # held out and not revealed: no id, no details anywhere
    wall_clock_s: float | None = None  # None: no fingerprint, so no group to show it in


@dataclass(frozen=True)
class Row:
    task: str
    digest: str
    held_out: bool
    hidden: bool
    cells: dict[str, tuple[Cell, ...]]  # agent -> its verdicts for this task (usually one)

    def labels(self, agent: str) -> list[str]:
        return [c.label for c in self.cells.get(agent, ())]


@dataclass(frozen=True)
class AgentCounts:
    agent: str
    printable_passes: int = 0  # label passed, assertion_delta == 0, no test removed
    unprintable: int = 0
    rows: int = 0
    labels: dict[str, int] = field(default_factory=dict)  # every label, zeros included
    held_out_rows: int = 0
    held_out_printable_passes: int = 0
    held_out_unprintable: int = 0


@dataclass(frozen=True)
class Section:
    """One matrix. Without a refusal there is exactly one; with `show_mixed`, one per machine
    environment (the fingerprint less its task fields), each row labelled by its digest."""

    title: str
    environment: str
    digests: tuple[str, ...]
    agents: tuple[str, ...]
    rows: tuple[Row, ...]
    counts: tuple[AgentCounts, ...]
    mixed: bool  # shown apart under show_mixed: rows of other sections are not comparable


@dataclass(frozen=True)
class Group:
    """Verdicts that share one fingerprint digest ("none": no fingerprint)."""

    digest: str
    environment: str
    agents: tuple[str, ...]
    tasks: int
    indices: tuple[int, ...]
    fingerprint: Fingerprint | None  # None when absent, or when it belongs to a hidden task


@dataclass(frozen=True)
class Conflict:
    """One task graded under more than one digest."""

    task: str
    hidden: bool
    agents: dict[str, tuple[str, ...]]  # digest -> agents graded under it
    fields: tuple[str, ...]
    differences: tuple[str, ...]  # "digest a vs b: field: x != y" (field names only when hidden)


@dataclass(frozen=True)
class Refusal:
    fields: tuple[str, ...]
    conflicts: tuple[Conflict, ...]
    shown_apart: bool

    def lines(self) -> list[str]:
        head = (
            "REFUSED: the same task was graded under different fingerprints, so these agents "
            "cannot be compared side by side"
        )
        out = [head, "fields that differ: " + ", ".join(self.fields)]
        for conflict in self.conflicts:
            groups = "; ".join(f"{d}: {', '.join(a)}" for d, a in conflict.agents.items())
            out.append(f"task {conflict.task}: {groups}")
            out += [f"  {line}" for line in conflict.differences]
        if self.shown_apart:
            out.append("--show-mixed: each environment is shown apart below, rows by digest")
        else:
            out.append("no matrix is shown; --show-mixed shows each environment apart, labelled")
        return out

    @property
    def text(self) -> str:
        return "\n".join(self.lines())


@dataclass(frozen=True)
class Published:
    sections: tuple[Section, ...]  # empty when refused without show_mixed
    groups: tuple[Group, ...]
    refusal: Refusal | None
    agents: tuple[str, ...]
    total: int
    held_out_tasks: int  # distinct held-out tasks among the verdicts
    reveal: bool
    show_mixed: bool

    def cells(self) -> Iterator[Cell]:
        for section in self.sections:
            for row in section.rows:
                for agent in section.agents:
                    yield from row.cells.get(agent, ())


# -- fingerprints ------------------------------------------------------------------------------


def digest_of(verdict: Verdict) -> str:
    fp = verdict.fingerprint
    if fp is None:
        return NO_FINGERPRINT
    # An unsealed fingerprint still identifies its measurement: seal a copy rather than lump
    # every unsealed one together.
    return fp.digest or seal(fp.model_copy(deep=True)).digest


def environment_of(verdict: Verdict) -> str:
    """The machine part of the fingerprint (its digest less the task's own fields)."""
    fp = verdict.fingerprint
    if fp is None:
        return NO_FINGERPRINT
    body = fp.model_dump(exclude=set(DIGEST_EXCLUDES) | TASK_FIELDS)
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def field_names(differences: Iterable[str]) -> list[str]:
    return [line.split(":", 1)[0] for line in differences]


# -- held-out tasks ----------------------------------------------------------------------------


def aliases(verdicts: list[Verdict], held_out: Iterable[str], reveal: bool) -> dict[str, str]:
    """Shown id per task. Hidden tasks are numbered in sorted order, so a task keeps its alias
    across every section and format of one report."""
    held = set(held_out)
    tasks = sorted({v.task for v in verdicts})
    hidden = [t for t in tasks if t in held] if not reveal else []
    names = {t: t for t in tasks}
    names.update({t: f"held-out #{n}" for n, t in enumerate(hidden, start=1)})
    return names


def _strongest(verdict: Verdict):
    effects = {r.effect for r in verdict.reasons}
    return next((e for e in ("reject", "review") if e in effects), None)


def redact(verdict: Verdict, alias: str) -> Verdict:
    """A verdict of a hidden task as every exported format shows it: the agent, grade and label
    (it is counted, and a reject is never hidden), none of the task's ids or facts."""
    fp = verdict.fingerprint
    shown_fp = None
    if fp is not None:
        # The digest stays (it names the group); the fields that describe the task do not.
        shown_fp = fp.model_copy(
            update={
                "test_cmd": HIDDEN,
                "manifests": {},
                "warnings": [],
                "digest": digest_of(verdict),
            }
        )
    return Verdict(
        schema_version=verdict.schema_version,
        task=alias,
        agent=verdict.agent,
        patch_sha256=HIDDEN,
        fingerprint=shown_fp,
        grade=verdict.grade,
        label=verdict.label,
        reasons=[
            Reason(
                gate="report",
                row="held-out",
                detail=f"{verdict.grade}: {verdict.label}; task id and details hidden (--reveal)",
                # A hidden reject is still a reject: the effect of the rows that decided.
                effect=_strongest(verdict),
            )
        ],
    )


def visible_verdicts(
    verdicts: list[Verdict], held_out: Iterable[str] = frozenset(), reveal: bool = False
) -> list[Verdict]:
    """The verdicts in stable order (task, agent, patch), hidden tasks redacted."""
    names = aliases(verdicts, held_out, reveal)
    ordered = sorted(
        verdicts,
        key=lambda v: (
            names[v.task] != v.task,
            names[v.task],
            v.agent,
            v.patch_sha256,
            digest_of(v),
            v.started_at,
        ),
    )
    return [v if names[v.task] == v.task else redact(v, names[v.task]) for v in ordered]


# -- counts ------------------------------------------------------------------------------------


def printable_pass(verdict: Verdict) -> bool:
    """The print gate's first count: a printable pass whose assertions did not drift."""
    drift = verdict.gates.drift
    return (
        verdict.label == "passed"
        and drift is not None
        and drift.facts.assertion_delta == 0
        and not drift.facts.tests_removed
    )


def count_agent(agent: str, verdicts: list[Verdict], held: set[str]) -> AgentCounts:
    labels = dict.fromkeys(LABELS, 0)
    mine = [v for v in verdicts if v.agent == agent]
    for v in mine:
        labels[v.label] = labels.get(v.label, 0) + 1
    theirs = [v for v in mine if v.task in held]
    return AgentCounts(
        agent=agent,
        printable_passes=sum(printable_pass(v) for v in mine),
        unprintable=labels["UNPRINTABLE"],
        rows=len(mine),
        labels=labels,
        held_out_rows=len(theirs),
        held_out_printable_passes=sum(printable_pass(v) for v in theirs),
        held_out_unprintable=sum(v.label == "UNPRINTABLE" for v in theirs),
    )


# -- the matrix --------------------------------------------------------------------------------


def build_rows(
    indexed: list[tuple[int, Verdict]],
    names: dict[str, str],
    held: set[str],
    agents: tuple[str, ...],
    by_digest: bool,
) -> tuple[Row, ...]:
    """One row per task, or per (task, digest) when a section holds several digests of a task;
    shown tasks first, sorted, then hidden ones by alias."""
    buckets: dict[tuple[str, str], list[tuple[int, Verdict]]] = defaultdict(list)
    for i, v in indexed:
        buckets[(v.task, digest_of(v) if by_digest else "")].append((i, v))
    rows = []
    for (task, _), members in buckets.items():
        hidden = names[task] != task
        digests = sorted({digest_of(v) for _, v in members} - {NO_FINGERPRINT}) or [NO_FINGERPRINT]
        cells: dict[str, list[Cell]] = {a: [] for a in agents}
        for i, v in members:
            cells[v.agent].append(make_cell(i, v, names[task], task in held, hidden))
        rows.append(
            Row(
                task=names[task],
                digest=digests[0],
                held_out=task in held,
                hidden=hidden,
                cells={a: tuple(sorted(c, key=lambda c: c.index)) for a, c in cells.items()},
            )
        )
    return tuple(sorted(rows, key=lambda r: (r.hidden, r.task, r.digest)))


def make_cell(index: int, v: Verdict, shown: str, held_out: bool, hidden: bool) -> Cell:
    digest = digest_of(v)
    return Cell(
        task=shown,
        agent=v.agent,
        label=v.label,
        grade=v.grade,
        index=index,
        digest=digest,
        held_out=held_out,
        hidden=hidden,
        wall_clock_s=None if digest == NO_FINGERPRINT else v.wall_clock_s,
    )


def make_section(
    title: str,
    indexed: list[tuple[int, Verdict]],
    names: dict[str, str],
    held: set[str],
    mixed: bool,
) -> Section:
    verdicts = [v for _, v in indexed]
    agents = tuple(sorted({v.agent for v in verdicts}))
    digests = tuple(sorted({digest_of(v) for v in verdicts}))
    environments = sorted({environment_of(v) for v in verdicts})
    return Section(
        title=title,
        environment=environments[0] if len(environments) == 1 else "",
        digests=digests,
        agents=agents,
        rows=build_rows(indexed, names, held, agents, by_digest=mixed),
        counts=tuple(count_agent(a, verdicts, held) for a in agents),
        mixed=mixed,
    )


def mixed_sections(
    indexed: list[tuple[int, Verdict]], names: dict[str, str], held: set[str]
) -> tuple[Section, ...]:
    """show_mixed: one section per machine environment, never merged."""
    by_env: dict[str, list[tuple[int, Verdict]]] = defaultdict(list)
    for i, v in indexed:
        by_env[environment_of(v)].append((i, v))
    sections = []
    for env in sorted(by_env, key=lambda e: (e == NO_FINGERPRINT, e)):
        digests = sorted({digest_of(v) for _, v in by_env[env]})
        title = (
            "no fingerprint"
            if env == NO_FINGERPRINT
            else f"environment {env} (digests {', '.join(digests)})"
        )
        sections.append(make_section(title, by_env[env], names, held, mixed=True))
    return tuple(sections)


# -- groups and the refusal --------------------------------------------------------------------


def make_groups(verdicts: list[Verdict], names: dict[str, str]) -> tuple[Group, ...]:
    members: dict[str, list[int]] = defaultdict(list)
    for i, v in enumerate(verdicts):
        members[digest_of(v)].append(i)
    groups = []
    for digest in sorted(members, key=lambda d: (d == NO_FINGERPRINT, d)):
        mine = [verdicts[i] for i in members[digest]]
        # A fingerprint holds the task's test command: shown only when no member is hidden.
        shown = all(names[v.task] == v.task for v in mine)
        groups.append(
            Group(
                digest=digest,
                environment=environment_of(mine[0]),
                agents=tuple(sorted({v.agent for v in mine})),
                tasks=len({v.task for v in mine}),
                indices=tuple(members[digest]),
                fingerprint=mine[0].fingerprint if shown else None,
            )
        )
    return tuple(groups)


def conflict_for(task: str, members: list[Verdict], names: dict[str, str]) -> Conflict | None:
    """A task whose fingerprinted verdicts carry more than one digest. A verdict without a
    fingerprint ended before anything ran (an unreadable patch): it measured nothing, so it
    neither conflicts nor is compared on wall clock."""
    by_digest: dict[str, list[Verdict]] = defaultdict(list)
    for v in members:
        if v.fingerprint is not None:
            by_digest[digest_of(v)].append(v)
    if len(by_digest) < 2:
        return None
    hidden = names[task] != task
    # The reference is the digest most of the task's verdicts share (insertion order breaks ties):
    # the others are described as departures from it.
    digests = sorted(by_digest, key=lambda d: -len(by_digest[d]))
    reference = by_digest[digests[0]][0].fingerprint
    differences: list[str] = []
    fields: set[str] = set()
    for other in digests[1:]:
        lines = compare(reference, by_digest[other][0].fingerprint)  # type: ignore[arg-type]
        fields.update(field_names(lines))
        # A hidden task's fingerprint names its test command: say which fields, not their values.
        shown = [f"{name} differs" for name in field_names(lines)] if hidden else lines
        differences += [f"{digests[0]} vs {other}: {line}" for line in shown]
    return Conflict(
        task=names[task],
        hidden=hidden,
        agents={d: tuple(sorted({v.agent for v in by_digest[d]})) for d in digests},
        fields=tuple(sorted(fields)),
        differences=tuple(differences),
    )


def make_refusal(
    verdicts: list[Verdict], names: dict[str, str], show_mixed: bool
) -> Refusal | None:
    by_task: dict[str, list[Verdict]] = defaultdict(list)
    for v in verdicts:
        by_task[v.task].append(v)
    conflicts = [c for t in sorted(by_task) if (c := conflict_for(t, by_task[t], names))]
    if not conflicts:
        return None
    conflicts.sort(key=lambda c: (c.hidden, c.task))
    fields = sorted({name for c in conflicts for name in c.fields})
    return Refusal(fields=tuple(fields), conflicts=tuple(conflicts), shown_apart=show_mixed)


# -- entry point -------------------------------------------------------------------------------


def publish(
    verdicts: list[Verdict],
    held_out: Iterable[str] = frozenset(),
    reveal: bool = False,
    show_mixed: bool = False,
) -> Published:
    """Everything a report shows, decided once. Cell.index points into `verdicts`."""
    held = set(held_out) & {v.task for v in verdicts}
    names = aliases(verdicts, held, reveal)
    indexed = list(enumerate(verdicts))
    refusal = make_refusal(verdicts, names, show_mixed)
    if refusal is None:
        sections: tuple[Section, ...] = (
            (make_section("tasks x agents", indexed, names, held, mixed=False),) if verdicts else ()
        )
    elif show_mixed:
        sections = mixed_sections(indexed, names, held)
    else:
        sections = ()
    return Published(
        sections=sections,
        groups=make_groups(verdicts, names),
        refusal=refusal,
        agents=tuple(sorted({v.agent for v in verdicts})),
        total=len(verdicts),
        held_out_tasks=len(held),
        reveal=reveal,
        show_mixed=show_mixed,
    )
