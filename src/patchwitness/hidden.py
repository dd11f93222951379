"""Hidden tests: the tests a task keeps from the agent, run by the grader over the patch. Pure.

A task's `test_patch.diff` is applied after the agent's patch has been judged for what it did to
the visible tests, the way SWE-bench's harness applies its `test_patch`: every file the hidden
patch touches is first put back to its SHA version, then the patch is applied. The agent's edits
to those files cannot reach the hidden run, so an edit of the very lines the hidden tests change
is a conflict of its own (UNPRINTABLE): the patch rewrote what the grader will check.

The hidden run is compared with the SHA's outcomes under the same hidden tests: the FAIL_TO_PASS
ids must pass, the PASS_TO_PASS ids must stay green. Its transitions are kept apart from the
visible run's. When the patch touched no test file the two runs are one: the visible transitions
are then read outside the hidden files (`project`), where both runs ran the same code.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from patchwitness.model import RAN, SKIPPED, HiddenFacts, Outcome
from patchwitness.patch import Patch

if TYPE_CHECKING:
    from patchwitness.facts import HiddenCollected


def touched(hidden: Patch) -> list[str]:
    return sorted(hidden.touched())


def conflicts(patch: Patch, hidden: Patch) -> list[str]:
    """SHA lines both patches change or remove ("path:line"), and files both create. Lines a
    patch only adds never conflict: an added test beside a hidden one is not the same test."""
    theirs = {c.path: c for c in hidden.files}
    out: list[str] = []
    for change in patch.files:
        other = theirs.get(change.path) or theirs.get(change.path)
        if other is None:
            continue
        if change.status == "added" and other.status == "added":
            out.append(f"{change.path}: created by the hidden tests too")
            continue
        both = set(change.removed_lines) & set(other.removed_lines)
        out += [f"{other.path}:{line}" for line in sorted(both)]
    return out


def key_file(key: str) -> str:
    """The file part of a pytest stable key (`path::Class::test[0]`)."""
    return key.split("::", 1)[0]


def project(outcomes: Mapping[str, Outcome], files: Iterable[str]) -> dict[str, Outcome]:
    """Outcomes of the tests outside `files`: what a run without the hidden tests saw too."""
    hidden = set(files)
    return {k: o for k, o in outcomes.items() if key_file(k) not in hidden}


def pass_to_pass(
    baseline: Mapping[str, Outcome], named: list[str] | None
) -> tuple[list[str], list[str]]:
    """(the PASS_TO_PASS keys to check, the named ones not green at the SHA with the hidden
    tests). Unnamed: every test green there. A named test red (or absent) at the SHA is no
    patch's doing: it is left out of the check and reported, never held against a patch."""
    if named is None:
        return sorted(k for k, o in baseline.items() if o == "passed"), []
    green = [k for k in named if baseline.get(k) == "passed"]
    return green, [k for k in named if baseline.get(k) != "passed"]


def hidden_facts(
    collected: HiddenCollected,
    after: Mapping[str, Outcome] | None,
    flaky: set[str] = frozenset(),  # type: ignore[assignment]
) -> HiddenFacts:
    """The hidden run's transitions. No run (a conflict stopped it): nothing passed."""
    failing, p2p, baseline = collected.failing, collected.pass_to_pass, collected.baseline
    seen = after or {}
    checked = list(dict.fromkeys([*failing, *p2p]))
    return HiddenFacts(
        files=list(collected.files),
        conflicts=list(collected.conflicts),
        failing_ids=list(failing),
        pass_to_pass=list(p2p),
        pass_to_pass_red_at_sha=list(collected.pass_to_pass_red_at_sha),
        fail_to_pass=[k for k in failing if seen.get(k) == "passed" and k not in flaky],
        still_failing=[k for k in failing if seen.get(k) != "passed"],
        pass_to_fail=sorted(k for k in p2p if seen.get(k) != "passed" and k not in flaky)
        if after is not None
        else [],
        skipped_after=sorted(
            k
            for k in checked
            if baseline.get(k) in RAN and seen.get(k) in SKIPPED and k not in flaky
        ),
        one_run=collected.one_run,
        before={k: baseline[k] for k in checked if k in baseline},
        after={k: seen[k] for k in checked if k in seen},
    )
