"""The patch beside the task's reference fix: the same calls under both trees.

The reference fix goes into a fresh checkout of the SHA (with the hidden tests, when the task
has them). Its run of the failing tests is the reference's grade: a reference that does not
make them pass makes the task invalid. The same run captures the calls those tests make into
every function the patch or the reference changes (probe/pw_calls.py). The probes then vary
those calls in the reference's tree (probe/pw_differ.py), run each one in a fresh process under
the patched tree, then twice under the reference's (a call the reference does not answer the
same way twice is left out), and the pure comparison (reference.py) keeps the calls on which
the two disagree. Python only: a C++ comparison needs a driver built against each tree.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
from collections.abc import Iterator
from pathlib import Path

from patchwitness import atomic, history, jsonlines, languages
from patchwitness import reference as differ
from patchwitness.classify import PRODUCTION
from patchwitness.errors import ApplyFailed, InvalidTask
from patchwitness.facts import HiddenCollected
from patchwitness.model import Difference, ReferenceFacts
from patchwitness.patch import Patch
from patchwitness.phases import neighbours
from patchwitness.phases.apply import Applied
from patchwitness.phases.checkout import fresh_patched
from patchwitness.phases.context import GradeContext, Tree
from patchwitness.runner import USER_ZONE, Limits
from patchwitness.suites import SuiteRun, Surroundings
from patchwitness.suites.python import PROBE_DIR, PythonSuite
from patchwitness.workspace import Workspace, as_text, show_at

CALLS = 300  # calls compared per patch, the tests' own first
SHOWN = 5  # differences kept in the facts
DRIVER_TIME = 180.0  # per run of the probes over one tree
LIMIT_BYTES = 32 << 20  # what the grader reads of a probe's report


def collect_reference(
    ctx: GradeContext,
    tree: Tree,
    applied: Applied,
    texts: dict[str, str | None],
    hidden: HiddenCollected | None = None,
    measured: SuiteRun | None = None,
) -> ReferenceFacts:
    """`texts`: the patched files as the patch left them; `hidden`: the hidden tests' facts
    (their failing tests are the ones the reference must pass); `measured`: the run the failing
    tests ran in (a C++ comparison compiles as its build did)."""
    task = ctx.task
    assert task.reference is not None
    failing = list(hidden.failing if hidden is not None else ctx.failing)
    if not languages.of(task).compares_with_reference:
        return ReferenceFacts(skipped=f"a {task.language} patch is not compared with a reference")
    if languages.of(task).users_program:
        return _collect_cpp(ctx, tree, measured, failing)
    ctx.clock.say("the reference fix")
    with history.checkout(task, ctx.settings.cache, tree.ws.new_dir("reference")) as ref:
        reference = _apply_reference(ref, task.reference, task.hidden_tests)
        sides = (
            _side(reference, _texts(ref.repo, reference), task.repo, task.sha),
            _side(_production(applied), texts, task.repo, task.sha),
        )
        wanted = differ.targets(sides)
        changed = [t for t in wanted if t.direct]
        # No Python function changed by name, or a compiled extension's source changed (which
        # no Python name stands for): the calls the failing tests make straight into the tree
        # are captured too (red team round 14: a comment in a Python function the tests call
        # made it the only target, and the C that held the cheat was never compared).
        into_the_tree = sorted(applied.test_sources | {k.split("::")[0] for k in failing})
        compiled = _compiled_changed(applied, reference)
        entries = into_the_tree if compiled or not wanted else []
        captured, dropped = _captured(ctx, ref, failing, wanted, entries)
        if wanted and not captured:
            # The changed functions got no call (an import at the top of a module makes every
            # function of it a target, none of which the failing tests may call: red team round
            # 13): the tests' own calls into the tree stand for them, never nothing compared.
            wanted = []
            captured, dropped = _captured(ctx, ref, failing, wanted, into_the_tree)
        found = ReferenceFacts(
            targets=[str(t) for t in wanted] or sorted({c["target"] for c in captured}),
            captured=len(captured),
            elsewhere=differ.elsewhere(*sides),
        )
        if not captured:
            into = "the changed functions" if wanted else "the tree (no Python function changed)"
            found.skipped = f"the failing tests made no call into {into} " + (
                f"that could be kept ({dropped} did not pickle)" if dropped else "(none at all)"
            )
        calls = None
        if captured:
            hints = differ.hints({**_texts(ref.repo, reference), **texts}, wanted)
            wide = [str(t) for t in wanted if not t.direct]
            calls = (captured, hints, wide, changed)
        planned, found.neighbours_skipped = neighbours.plan(ctx, ref.repo, failing)
        if calls is not None or planned:
            _patched_side(ctx, ref, found, calls, planned, failing, hidden)
    ctx.clock.lap("reference")
    return found


def _patched_side(
    ctx: GradeContext,
    ref: Workspace,
    found: ReferenceFacts,
    calls: tuple | None,
    planned: list[neighbours.Planned],
    failing: list[str],
    hidden: HiddenCollected | None,
) -> None:
    """The patched side of both comparisons, in one fresh patched tree built as the grader's
    was: the grader's own holds what its runs left there, and code that finds it knows it ran
    before (red team round 27's marker). It is built once, and the neighbours take a copy of
    it before any call runs there."""
    suite = ctx.suite
    assert isinstance(suite, PythonSuite)
    with fresh_patched(ctx) as fresh:
        assert fresh is not None  # no hidden tests asked for: the patch alone
        failed = suite.build(fresh.repo, fresh.new_dir("build"))
        if failed:
            why = f"the patched tree did not build again in a fresh checkout: {failed}"
            found.skipped = found.skipped or why
            found.neighbours_skipped = why
            return
        with fresh.copy() if planned else contextlib.nullcontext() as spare:
            if calls is not None:
                captured, hints, wide, changed = calls
                _compare(ctx, ref, fresh.repo, captured, hints, found, wide, changed)
            if spare is not None:
                _neighbours(ctx, ref, spare, planned, failing, hidden, found)


def _neighbours(
    ctx: GradeContext,
    ref: Workspace,
    patched: Workspace,
    planned: list[neighbours.Planned],
    failing: list[str],
    hidden: HiddenCollected | None,
    found: ReferenceFacts,
) -> None:
    """The failing tests, each with one statement left out or one literal moved, under both
    trees (red team round 34: a fix that held only with the writer the test installs; no call
    of pluggy's pickles, so no call was compared)."""
    near = neighbours.compare(ctx, ref.repo, patched, planned, failing, hidden)
    found.neighbours = near.neighbours
    found.neighbours_skipped = near.skipped
    if near.differences:
        found.differing += len(near.differences)
        room = max(0, SHOWN - len(found.differences))
        found.differences = [*found.differences, *near.differences[:room]]


def _collect_cpp(
    ctx: GradeContext, tree: Tree, measured: SuiteRun | None, failing: list[str]
) -> ReferenceFacts:
    """The reference graded (once per task), then a user's program of the failing tests'
    bodies built against both trees (phases/cpp_reference.py)."""
    # Imported here: a Python grade loads no part of the C++ half (tests/test_startup.py).
    from patchwitness.phases.cpp_reference import compare_cpp
    from patchwitness.suites.cpp import CppSuite

    task = ctx.task
    assert task.reference is not None and isinstance(ctx.suite, CppSuite)
    ctx.clock.say("the reference fix")
    found = ReferenceFacts()
    with history.checkout(task, ctx.settings.cache, tree.ws.new_dir("reference")) as ref:
        _apply_reference(ref, task.reference, task.hidden_tests)
        _graded_once(ctx, ref, failing)
        if measured is None:
            found.skipped = "the run the failing tests ran in is not known"
        else:
            ctx.clock.say("the reference fix: a user's program of the failing tests")
            work = ref.new_dir("user-program")

            @contextlib.contextmanager
            def sha_checkout() -> Iterator[Path]:
                with history.checkout(task, ctx.settings.cache, ref.new_dir("sha")) as sha:
                    yield sha.repo

            compare_cpp(
                ctx.suite, tree.ws.repo, ref.repo, measured, failing, work, found, sha_checkout
            )
    ctx.clock.lap("reference")
    return found


def _graded_once(ctx: GradeContext, ref: Workspace, failing: list[str]) -> None:
    """The reference's run of the failing tests (a C++ build), once per task: a pass is kept,
    keyed as the calls of a Python task are."""
    assert ctx.task.reference is not None
    kept = ctx.kept_for_the_reference("graded", *failing)
    if kept.exists():
        return
    run = ctx.suite.run(ref.repo, ref.new_dir("run"), around=Surroundings(select=tuple(failing)))
    _must_pass(run, failing)
    kept.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_json(kept, {"passed": sorted(failing)}, indent=None)


def _must_pass(run: SuiteRun, failing: list[str]) -> None:
    """InvalidTask unless every failing test passed over the reference's tree."""
    if run.build_failed or run.timed_out or not run.started:
        raise InvalidTask("the reference fix does not build or finish its tests at the SHA")
    red = [k for k in failing if run.outcomes.get(k) != "passed"]
    if red:
        outcome = run.outcomes.get(red[0], "not run")
        more = f" (+{len(red) - 1} more)" if len(red) > 1 else ""
        raise InvalidTask(f"the reference fix does not pass the task: {red[0]} {outcome}{more}")


def _apply_reference(ref: Workspace, data: bytes, hidden: bytes | None) -> Patch:
    try:
        reference = ref.apply(data, allow_binary=True)  # the grader's own patch
        if hidden is not None:
            ref.apply(hidden, allow_binary=True)
    except ApplyFailed as exc:
        raise InvalidTask(f"the reference fix does not apply at the SHA: {exc}") from None
    return reference


# Sources a Python task's in-place build compiles into its extension.
COMPILED_SOURCES = (".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".pyx", ".pxd", ".pxi")


def _compiled_changed(applied: Applied, reference: Patch) -> bool:
    patched = [c.path for c in _production(applied).files]
    return any(p.endswith(COMPILED_SOURCES) for p in [*patched, *reference.touched()])


def _production(applied: Applied) -> Patch:
    files = [c for c in applied.patch.files if applied.classes[c.path].kind == PRODUCTION]
    return Patch(applied.patch.sha256, applied.patch.size, files)


def _texts(repo: Path, patch: Patch) -> dict[str, str | None]:
    return {c.path: _read(repo / c.path) for c in patch.files if c.path.endswith(".py")}


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _side(patch: Patch, after: dict[str, str | None], repo: Path, sha: str) -> differ.Side:
    py = [c for c in patch.files if c.path.endswith(".py") and not _is_test(c.path)]
    return differ.Side(
        after=after,
        before={c.path: as_text(show_at(repo, sha, c.path)) for c in py if c.status != "added"},
        added={c.path: c.added_lines for c in py},
        removed={c.path: c.removed_lines for c in py},
    )


def _is_test(path: str) -> bool:
    """The reference's own test files are no target (the grader trusts its reference; this
    only keeps its tests' functions out of the calls captured)."""
    name = path.rsplit("/", 1)[-1]
    parts = path.split("/")[:-1]
    return (
        name == "conftest.py"
        or name.startswith("test_")
        or name.endswith("_test.py")
        or any(p in ("test", "tests", "testing") for p in parts)
    )


def _captured(
    ctx: GradeContext,
    ref: Workspace,
    failing: list[str],
    wanted: list[differ.Target],
    entries: list[str],
) -> tuple[list[dict], int]:
    """The calls of `_graded`, once per task and set of targets: kept only when the reference
    passed, keyed by the SHA's baseline (grader, SHA, commands, environment), the reference, the
    hidden tests, the failing tests and the targets. A task with an in-place build runs the
    tests every time: that run builds the extension the calls need."""
    task = ctx.task
    if task.options.python.build:
        return _graded(ctx, ref, failing, wanted, entries)
    kept = ctx.kept_for_the_reference(*failing, *map(str, wanted), "entries", *entries)
    try:
        known = json.loads(kept.read_text())
        return list(known["calls"]), int(known["dropped"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    calls, dropped = _graded(ctx, ref, failing, wanted, entries)
    kept.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_json(kept, {"calls": calls, "dropped": dropped}, indent=None)
    return calls, dropped


def _graded(
    ctx: GradeContext,
    ref: Workspace,
    failing: list[str],
    wanted: list[differ.Target],
    entries: list[str],
) -> tuple[list[dict], int]:
    """The failing tests over the reference's tree, capturing the calls into `wanted` (and,
    with `entries`, the calls those test files make into the tree). Raises InvalidTask when
    they do not all pass there."""
    scratch = ref.new_dir("run")
    # The spec and the calls live in the run's home, which the run may write: nothing else of
    # the grader's is opened to it.
    spec = scratch / "home" / "calls-spec.json"
    out = spec.parent / "calls.jsonl"
    spec.parent.mkdir(parents=True, exist_ok=True)
    out.touch()
    spec.write_text(
        json.dumps(
            {
                "root": str(ref.repo),
                "targets": [{"file": t.file, "qualname": t.qualname} for t in wanted],
                "entries": entries,
                "out": str(out),
            }
        )
    )
    around = Surroundings(select=tuple(failing), variables=(("PW_CALLS", str(spec)),))
    run = ctx.suite.run(ref.repo, scratch, around=around)
    _must_pass(run, failing)
    return _read_calls(out)


def _read_calls(path: Path) -> tuple[list[dict], int]:
    calls: list[dict] = []
    dropped = 0
    for record in _records(path):
        if record.get("event") == "dropped" and isinstance(record.get("counts"), dict):
            dropped += sum(int(v) for v in record["counts"].values() if isinstance(v, int))
        elif record.get("event") == "call" and _well_formed(record):
            kept = {k: record[k] for k in ("target", "module", "qualname", "init", "test", "call")}
            if isinstance(record.get("made"), str):
                kept["made"] = record["made"]
            calls.append(kept)
    return calls, dropped


def _well_formed(record: dict) -> bool:
    text = ("target", "module", "qualname", "test", "call")
    return all(isinstance(record.get(k), str) for k in text) and isinstance(
        record.get("init"), bool
    )


def _records(path: Path) -> list[dict]:
    """A probe's JSON lines, as far as they parse: it ran beside code under grade."""
    return jsonlines.records(path, LIMIT_BYTES)


def _compare(
    ctx: GradeContext,
    ref: Workspace,
    patched_tree: Path,
    captured: list[dict],
    hints: list,
    found: ReferenceFacts,
    wide: list[str],
    changed: list[differ.Target],
) -> None:
    suite = ctx.suite
    assert isinstance(suite, PythonSuite)
    work = ref.new_dir("compare")
    # What the runs read (the driver, the calls) is written by the grader alone, and each run
    # writes only its own folder: the patched tree's code, which runs in its run, can neither
    # change the driver the reference's run uses nor the calls it reads.
    given = work / "given"
    given.mkdir()
    (given / "pw_differ.py").write_bytes((PROBE_DIR / "pw_differ.py").read_bytes())
    spec = given / "captured.json"
    spec.write_text(
        json.dumps({"calls": captured, "hints": hints, "cap": CALLS, "seed": 0, "wide": wide})
    )
    # The functions either fix changes, which each call is watched for reaching: a call that
    # never ran them compared nothing of the change (red team round 18: pluggy's changed
    # function took no call that pickles, and the tests' other calls agreed, said as agreement).
    watched = [{"file": t.file, "qualname": t.qualname} for t in changed]
    ctx.clock.say(f"the reference fix: {len(captured)} calls and their neighbours")
    ran = _run_calls(suite, patched_tree, ref.repo, work, given, watched)
    if isinstance(ran, str):
        found.skipped = ran
        return
    calls, reference, patched = ran
    compared = differ.compare(calls, reference, patched)
    found.compared = compared.compared
    found.reaching = compared.reaching if watched else None
    found.nondeterministic = compared.nondeterministic
    found.unrunnable = compared.unrunnable
    found.differing = len(compared.differing)
    found.differences = [
        Difference(
            target=w.target,
            call=w.call,
            varied=w.varied,
            test=w.test,
            fields=list(w.fields),
            reference=dict(w.reference),
            patch=dict(w.patch),
        )
        for w in compared.differing[:SHOWN]
    ]
    if not found.compared:
        found.skipped = (
            f"no call was compared: {compared.nondeterministic} answered otherwise twice "
            f"under the reference, {compared.unrunnable} could not be run there"
        )


def _run_calls(
    suite: PythonSuite,
    patched_tree: Path,
    reference_tree: Path,
    work: Path,
    given: Path,
    watched: list[dict],
) -> tuple[list[dict], dict[str, dict], dict[str, dict]] | str:
    """The captured calls varied in the reference's tree, then each run under the patched tree
    once and under the reference's twice: the calls and both reports by id, or why none ran."""
    # Both trees' paths read as one in what either side prints: a captured argument holds the
    # path of the tree it was captured in (pytest's own calls name a conftest).
    trees = {"PW_DIFFER_TREES": os.pathsep.join(map(str, (patched_tree, reference_tree)))}
    spec = given / "captured.json"
    varied = _drive(suite, reference_tree, work, "varied", given, ["vary", str(spec)], trees)
    calls = _records(varied)
    if not calls:
        return "no captured call could be rebuilt in the reference's tree"
    run_spec = given / "calls.json"
    # Randomness seeded alike in both trees, by a seed drawn for this grade: no patch knows it.
    seed = secrets.randbits(31)
    run_spec.write_text(json.dumps({"calls": calls, "seed": seed, "changed": watched}))
    # The calls run as a user's process runs them, not as the grader's test run: under this
    # grade's hash seed (the same in both trees; the runner's is fixed at 0) and with no limit
    # on address space (memory is bounded by the run's cgroup, as on a desktop). Red team round
    # 20: markupsafe's escaper keyed on the hash of a constant, and on a 4.5 GiB allocation
    # failing, right only under the grader's surroundings.
    user = {"PYTHONHASHSEED": str(seed % (2**32 - 2) + 1), **trees}
    argv = ["run", str(run_spec)]
    patched = _drive(suite, patched_tree, work, "patched", given, argv, user)
    reference = _drive(suite, reference_tree, work, "reference", given, [*argv, "--twice"], user)
    return calls, _by_id(reference), _by_id(patched)


# The limits of a run of the calls: the runner's, less the address-space one (a desktop has none;
# the cgroup still bounds the memory the run uses).
CALL_LIMITS = Limits(address_space=False)


def _drive(
    suite: PythonSuite,
    tree: Path,
    work: Path,
    name: str,
    given: Path,
    argv: list[str],
    variables: dict[str, str] | None = None,
) -> Path:
    """One run of the probes over `tree`, writing in a folder of its own; returns its report,
    read whatever the run's ending (a report it did not finish holds the calls it ran).
    `variables`: more of the run's environment."""
    own = work / name
    own.mkdir()
    out = own / "report.jsonl"
    mode, rest = argv[0], argv[1:]
    suite.run_script(
        tree,
        own / "home",
        [str(given / "pw_differ.py"), mode, rest[0], str(out), *rest[1:]],
        readable=[given],
        writable=[own],
        timeout=DRIVER_TIME,
        variables={"TZ": USER_ZONE, **(variables or {})},
        limits=CALL_LIMITS,
    )
    return out


def _by_id(path: Path) -> dict[str, dict]:
    return {str(r["id"]): r for r in _records(path) if "id" in r}
