"""Per-test outcomes from the probe's JSON lines. Pure: bytes in, outcomes and problems out.

The rules that keep this honest: a collected id with no report is `missing` (an error, never a
pass); a run that never reached the end of its session leaves its unfinished ids missing; a report
for an id that was never collected, or a second report for the same phase, is tampering; xfail,
xpass and skipped stay their own outcomes.

Subtests (unittest's `subTest`, the `subtests` fixture) are the exception to "one report a phase":
each sends a call report under its test's id, marked as a subtest's by the probe. They are their
test's own: any number is fine, and a test passes only when it and every subtest of it pass (pytest
calls a unittest test passed when only its subtests failed). A subtest report never stands in for
the test's own, so forging one can only make a test worse.

Outcomes are keyed by each test's stable key (the probe's `stable_key`: file, classes, function and
parametrize position), not by its printed id, which may embed a time or an address; `ids` keeps
the printed id of every test whose key differs from it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from patchwitness.model import Outcome

# A test a script can call: its module, its qualified name, and its arguments (name -> the
# repr of a literal).
PlainTest = tuple[str, str, dict[str, str]]


@dataclass
class ProbeReport:
    collected: list[str] = field(default_factory=list)  # stable keys, in collection order
    ids: dict[str, str] = field(default_factory=dict)  # stable key -> printed id, where they differ
    deselected: list[str] = field(default_factory=list)
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    collect_errors: list[str] = field(default_factory=list)
    hooks: dict[str, list[str]] = field(default_factory=dict)
    exitstatus: int | None = None
    started: bool = False
    problems: list[str] = field(default_factory=list)
    tamper: list[str] = field(default_factory=list)
    reruns: list[str] = field(default_factory=list)
    # What the run was made of (the probe's `surface`: inifile, plugins) and which files it
    # imported or opened (None: the session never got to say, as when it exited early).
    surface: dict = field(default_factory=dict)
    loaded: dict | None = None
    # Tests a user's script could call as pytest called them (no fixture, only literal
    # parameters): stable key -> (module, qualified name, arguments).
    plain: dict[str, PlainTest] = field(default_factory=dict)
    conftests: list[str] = field(default_factory=list)  # their modules, as pytest loaded them


# The outcomes of a test and its subtests, worst first: the first one present is the test's.
WORST_FIRST: tuple[Outcome, ...] = (
    "error",
    "missing",
    "failed",
    "skipped",
    "xfailed",
    "xpassed",
    "passed",
)


def outcome_of(
    phases: dict[str, tuple[str, bool]], subtests: Sequence[tuple[str, bool]] = ()
) -> Outcome:
    """Fold the setup/call/teardown reports of one test, and its subtests' reports, into one
    outcome. A subtest that did not pass keeps its test from passing: a failed one fails it, a
    skipped one skips it (so production code that skips a subtest is seen as a skip)."""
    own = _own_outcome(phases)
    found = {own, *(_call_outcome(outcome, xfail) for outcome, xfail in subtests)}
    return next(o for o in WORST_FIRST if o in found)


def _call_outcome(outcome: str, xfail: bool) -> Outcome:
    if outcome == "failed":
        return "failed"
    if outcome == "skipped":
        return "xfailed" if xfail else "skipped"
    return "xpassed" if xfail else "passed"


def _own_outcome(phases: dict[str, tuple[str, bool]]) -> Outcome:
    """The outcome the test's own setup/call/teardown reports tell."""
    setup = phases.get("setup")
    call = phases.get("call")
    teardown = phases.get("teardown")
    if setup is not None and setup[0] == "failed":
        return "error"
    if setup is not None and setup[0] == "skipped":
        return "xfailed" if setup[1] else "skipped"
    if call is None:
        return "missing"
    result = _call_outcome(*call)
    if teardown is not None and teardown[0] == "failed" and result == "passed":
        return "error"
    if teardown is None and result == "passed":
        return "missing"
    return result


def parse_probe(data: bytes) -> ProbeReport:
    report = ProbeReport()
    phases: dict[str, dict[str, tuple[str, bool]]] = {}
    subtests: dict[str, list[tuple[str, bool]]] = {}
    collected: dict[str, None] = {}
    keys: dict[str, str] = {}
    bodies: dict[str, str] = {}  # printed id -> how its body last ended
    functions: dict[str, str] = {}  # printed id -> how its test function ended, this attempt
    watched: set[str] = set()
    plain: dict[str, PlainTest] = {}  # printed id -> module, qualified name, arguments
    for number, raw in enumerate(data.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            event = json.loads(raw)
            kind = event["event"]
        except (ValueError, KeyError, TypeError):
            report.problems.append(f"report line {number} does not parse")
            continue
        if kind == "start":
            if report.started:
                report.tamper.append("a second test session reported on the grader's pipe")
            report.started = True
        elif kind == "collected":
            for nodeid in event.get("ids", []):
                collected[str(nodeid)] = None
            if isinstance(event.get("keys"), dict):
                keys.update({str(k): str(v) for k, v in event["keys"].items()})
            if "hooks" in event:
                report.hooks = {k: list(v) for k, v in event["hooks"].items()}
            if isinstance(event.get("surface"), dict):
                report.surface = event["surface"]
            watched |= {str(i) for i in event.get("watched", [])}
            if isinstance(event.get("plain"), dict):
                plain.update(_plain(event["plain"]))
            if isinstance(event.get("conftests"), list):
                report.conftests += [str(n) for n in event["conftests"]]
        elif kind == "body":
            nodeid, ended = str(event.get("id", "")), str(event.get("ended", ""))
            if event.get("level") == "function":
                functions[nodeid] = ended
            else:
                # the runtest level ends each attempt: what the function did in it is folded in
                bodies[nodeid] = "raised" if functions.pop(nodeid, "") == "raised" else ended
        elif kind == "loaded":
            report.loaded = {
                key: [str(p) for p in event.get(key, [])]
                for key in (
                    "modules",
                    "opened",
                    "written",
                    "written_modules",
                    "foreign_modules",
                    "environ",
                    "harness_modules",
                    "test_modules",
                    "hook_words",
                )
            }
            # How the run ran code its hooks do not see; absent when it could not say.
            if isinstance(event.get("escaped"), list):
                report.loaded["escaped"] = [str(e) for e in event["escaped"]]
        elif kind == "deselected":
            report.deselected += [str(i) for i in event.get("ids", [])]
        elif kind == "collect_error":
            report.collect_errors.append(str(event.get("id", "")))
        elif kind == "report":
            _add_report(report, phases, subtests, event)
        elif kind == "finish":
            report.exitstatus = int(event.get("exitstatus", -1))
        else:
            report.problems.append(f"report line {number} has unknown event {kind!r}")
    for nodeid in {**phases, **subtests}:
        if nodeid not in collected:
            report.tamper.append(f"report names a test that was never collected: {nodeid}")
    report.tamper += contradicted(phases, bodies, watched)
    for nodeid, key in stable_keys(list(collected), keys).items():
        if nodeid in plain:
            report.plain[key] = plain[nodeid]
        report.collected.append(key)
        report.outcomes[key] = outcome_of(phases.get(nodeid, {}), subtests.get(nodeid, ()))
        if key != nodeid:
            report.ids[key] = nodeid
    if not report.started:
        report.problems.append(
            "the probe never started: the test command did not run pytest with the grader's plugin"
        )
    elif report.exitstatus is None:
        report.problems.append("the test session did not finish (exited or was killed mid-run)")
    return report


def _plain(given: dict) -> dict[str, PlainTest]:
    out: dict[str, PlainTest] = {}
    for nodeid, names in given.items():
        if not (isinstance(names, list) and len(names) == 3):
            continue
        module, qualname, arguments = names
        if not (isinstance(module, str) and isinstance(qualname, str)):
            continue
        if not isinstance(arguments, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in arguments.items()
        ):
            continue
        out[str(nodeid)] = (module, qualname, dict(arguments))
    return out


def contradicted(
    phases: dict[str, dict[str, tuple[str, bool]]], bodies: dict[str, str], watched: set[str]
) -> list[str]:
    """Tests whose report says their call passed while their body, watched past every hook,
    raised, or never ran at all: the report was made or changed on its way."""
    out = []
    for nodeid, seen in phases.items():
        call = seen.get("call")
        if call is None or call != ("passed", False):
            continue
        ended = bodies.get(nodeid)
        if ended == "raised":
            out.append(f"{nodeid} is reported passed, but its body raised")
        elif ended is None and nodeid in watched:
            out.append(f"{nodeid} is reported passed, but its body never ran")
    return out


def stable_keys(nodeids: list[str], keys: dict[str, str]) -> dict[str, str]:
    """Printed id -> stable key. A key that two tests would share (it should not happen) falls
    back to the printed id, so no two tests are ever merged into one."""
    taken: set[str] = set()
    printed = set(nodeids)
    out: dict[str, str] = {}
    for nodeid in nodeids:
        key = keys.get(nodeid, nodeid)
        if key in taken or (key != nodeid and key in printed):
            key = nodeid
        taken.add(key)
        out[nodeid] = key
    return out


def _add_report(report: ProbeReport, phases: dict, subtests: dict, event: dict) -> None:
    nodeid = str(event.get("id", ""))
    when = str(event.get("when", ""))
    outcome = str(event.get("outcome", ""))
    is_subtest = event.get("subtest") is not None
    if outcome == "rerun" and not is_subtest:
        report.reruns.append(nodeid)
        phases.get(nodeid, {}).pop(when, None)
        if when == "call":
            # the subtests ran in the attempt that is run again
            subtests.pop(nodeid, None)
        return
    if is_subtest and outcome == "rerun":
        # A subtest whose failure asked for a rerun: a failure until the rerun clears it.
        outcome = "failed"
    if when not in ("setup", "call", "teardown") or outcome not in ("passed", "failed", "skipped"):
        report.problems.append(f"malformed report for {nodeid}")
        return
    if is_subtest:
        subtests.setdefault(nodeid, []).append((outcome, bool(event.get("xfail"))))
        return
    seen = phases.setdefault(nodeid, {})
    if when in seen:
        report.tamper.append(f"two {when} reports for {nodeid}")
        # fail closed: the worse of the two stands
        if seen[when][0] == "failed":
            return
    seen[when] = (outcome, bool(event.get("xfail")))
