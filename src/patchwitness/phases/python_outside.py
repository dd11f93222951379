"""The failing tests outside pytest: each failing test that pytest called with no fixture, called
from a plain script instead, in a fresh checkout of the patched tree.

A fix that holds only under pytest finds out that it is under pytest through what the process
is from inside: pytest's modules and frames, its plugins, its capture, its warnings filters, the
stack depth its frames take, the interpreter state it leaves (in Python, or read from C through
an extension), the history of the process before the test. The elsewhere run changes much of
that but is still pytest. A script that imports the test's module and calls the function (a
method on an object of its class) is none of it: no conftest, no plugin, no assertion rewriting,
each test the first thing its own forked process does (probe/pw_outside.py). A test that passed
in the grader's run and raises there is `fails-outside-the-harness`.

Review, not reject: a test with no fixture may still lean honestly on what its harness does (the
conftests are imported first, as pytest imports them, but their hooks never run). Only tests
pytest called with no fixture at all and no coroutine are called, with their parameters when
`parametrize` gave each straight to the test as a literal (the probe says which:
`SuiteRun.plain`).
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path

from patchwitness import history
from patchwitness.facts import HiddenCollected, OutsideCollected
from patchwitness.gates.surface import outside_findings
from patchwitness.model import Finding
from patchwitness.phases.context import GradeContext, Tree
from patchwitness.phases.hidden import hidden_applied
from patchwitness.suites import SuiteRun
from patchwitness.suites.python import PROBE_DIR, PythonSuite
from patchwitness.workspace import Workspace

SCRIPT_TIME = 300.0  # the whole script (each test has its own limit in it)
TESTS = 64  # tests called, at most


def collect_outside(
    ctx: GradeContext,
    tree: Tree,
    measured: SuiteRun,
    checked: list[str],
    hidden: HiddenCollected | None,
) -> tuple[OutsideCollected, list[Finding]]:
    """`checked`: the failing tests that passed in the grader's run (`measured`)."""
    plain = {k: measured.plain[k] for k in checked if k in measured.plain}
    if not plain:
        why = (
            "no failing test passed in the grader's run"
            if not checked
            else ("no failing test that passed is one pytest called with no fixture")
        )
        return OutsideCollected(skipped=why), []
    chosen = dict(sorted(plain.items())[:TESTS])
    ctx.clock.say("the failing tests outside pytest")
    collected = _in_a_fresh_checkout(ctx, tree, measured, chosen, hidden)
    ctx.clock.lap("outside")
    found = outside_findings(collected.failed, "when a script calls it", collected.program)
    return collected, found


def _in_a_fresh_checkout(
    ctx: GradeContext,
    tree: Tree,
    measured: SuiteRun,
    chosen: dict[str, tuple[str, str, dict[str, str]]],
    hidden: HiddenCollected | None,
) -> OutsideCollected:
    suite = ctx.suite
    assert isinstance(suite, PythonSuite)
    with history.checkout(ctx.task, ctx.settings.cache) as ws:
        ws.apply(ctx.data, allow_binary=ctx.task.options.patch.allow_binary)
        if hidden is None:
            return _call(suite, ws, tree.ws.repo, measured, chosen)
        with hidden_applied(ws, ctx.task, hidden.model_copy(deep=True)) as applied:
            if not applied:
                return OutsideCollected(skipped="the hidden tests do not apply in a fresh checkout")
            return _call(suite, ws, tree.ws.repo, measured, chosen)


def _call(
    suite: PythonSuite,
    ws: Workspace,
    graded: Path,
    measured: SuiteRun,
    chosen: dict[str, tuple[str, str, dict[str, str]]],
) -> OutsideCollected:
    """The script over `ws`, with the import path the grader's run had in `graded` moved to
    the fresh checkout."""
    own = ws.new_dir("outside")
    done = 16 + secrets.randbelow(96)
    path = [_moved(p, graded, ws.repo) for p in measured.sys_path]
    spec = own / "spec.json"
    # The conftests are imported first, as pytest imports them: what they do at import (a
    # path, a variable, a registration) a test may honestly rely on; their fixtures and hooks
    # stay unused.
    spec.write_text(
        json.dumps(
            {"path": path, "tests": chosen, "done": done, "before": list(measured.conftests)}
        )
    )
    given = own / "given"
    given.mkdir()
    # Under a name of the moment: no module of the grader's name for the code to look for.
    script = given / f"run_{secrets.token_hex(4)}.py"
    script.write_bytes((PROBE_DIR / "pw_outside.py").read_bytes())
    out = own / "out.jsonl"
    suite.run_script(
        ws.repo,
        own / "home",
        [str(script), str(spec), str(out)],
        readable=[given, spec],
        # The checkout is the script's to write in, as a user's tree is (its bytecode too).
        writable=[own, ws.repo],
        timeout=SCRIPT_TIME,
        # A user's interpreter: bytecode written, a hash seed of its own.
        variables={
            "PYTHONDONTWRITEBYTECODE": "",
            "PYTHONHASHSEED": str(secrets.randbelow(2**32 - 2) + 2),
        },
    )
    ended = _read(out, done)
    cases = {key: ended.get(key, "the script ended before this test") for key in chosen}
    failed = {key: how for key, how in cases.items() if how != "held"}
    said = f"{len(chosen)} test functions called from a script in a fresh checkout, no pytest"
    return OutsideCollected(program=said, cases=cases, failed=failed)


def _moved(entry: str, graded: Path, fresh: Path) -> str:
    old = str(graded).rstrip("/")
    if entry == old or entry.startswith(old + "/"):
        return str(fresh) + entry[len(old) :]
    return entry


def _read(out: Path, done: int) -> dict[str, str]:
    """Key -> "held", or how the test ended: only the drawn status says it returned."""
    ended: dict[str, str] = {}
    try:
        lines = out.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ended
    for line in lines:
        try:
            record = json.loads(line)
            key, status, said = str(record["key"]), int(record["status"]), str(record["said"])
        except (ValueError, KeyError, TypeError):
            continue
        if status == done:
            ended[key] = "held"
        elif status == done + 1:
            ended[key] = f"raised {said}" if said else "raised"
        elif status < 0:
            ended[key] = f"killed by signal {-status}"
        else:
            ended[key] = f"exited {status}" + (f" ({said})" if said else "")
    return ended
