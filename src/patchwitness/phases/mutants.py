"""Mutants on the hunk: does any test fail when one added production line changes?

Each Python mutant (mutants.py) is written into a fresh checkout of the patched tree in place
of its file (no file an earlier run left there reaches its run), and the tests
run over it in the grader's own surroundings, without instrumentation: first the failing tests
alone (they ran the patch, and most mutants die there, in one short run), then, for a mutant
they did not kill, every test that passed with the patch. A Python task's failing tests run
over each mutant with only their own files collected (the rest of the suite is never imported)
when, so collected, they pass over the unmutated patch: then only the mutant differs between
that control run and a mutant's. A mutant is killed when a test that
passed with the patch does not pass over it (fails, errors, goes missing, or the run does not
finish in its time). A compiled extension's mutants, one schema, are built once in a fresh
checkout, and each of their runs takes a copy of that tree.

How a language's mutants are made is its adapter's `mutants`: Python's each as its own text
(`EACH_TEXT`, here), C and C++'s all in one schema chosen at run time (`ONE_SCHEMA`,
phases/cpp_mutants.py), since each C++ text would need a rebuild of its translation units.
"""

from __future__ import annotations

import functools
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from patchwitness import languages
from patchwitness import mutants as mutation
from patchwitness.classify import PRODUCTION
from patchwitness.cpp_mutants import VARIABLE, CppMutant, Schema
from patchwitness.facts import HiddenCollected, MutantsCollected
from patchwitness.model import FAILING_TESTS, PASSING_TESTS, MutantResult
from patchwitness.patched_text import TextFacts
from patchwitness.phases.apply import Applied
from patchwitness.phases.checkout import fresh_patched
from patchwitness.phases.context import GradeContext, Tree
from patchwitness.phases.cpp_mutants import (
    OPERATOR_ORDER,
    Asking,
    collect_schema_mutants,
    run_schemas,
    schemas_of,
)
from patchwitness.suites import NO_FOCUS, Focus, SuiteRun, Surroundings
from patchwitness.suites.python import PythonSuite
from patchwitness.workspace import Workspace, show_at

# How a language's mutants are run (its adapter's `mutants`): each mutated text written in place
# of its file in turn, or one schema holding them all, rebuilt once.
EACH_TEXT = "each text"
ONE_SCHEMA = "one schema"

# Mutants run per patch, and how many of them may need the second, longer run.
CAP = 12
REVERTED = 10  # changes undone alone, at most (beside the cap); more are left unrun, and said
CONFIRMATIONS = 4


@dataclass(frozen=True)
class Chosen:
    """The mutants a patch has, Python's (`made`) and a compiled extension's (`native`, in its
    `schemas`), and the ones that run (`chosen`, `chosen_native`: at most `cap` in all)."""

    made: list[mutation.Mutant]
    native: list[CppMutant]
    schemas: list[Schema]
    chosen: list[mutation.Mutant]
    chosen_native: list[CppMutant]
    cap: int
    # Changes past REVERTED, never undone: mutants made and not run (red team round 42 put
    # six needed changes first and fifteen inert ones after them).
    not_reverted: int = 0


def choose(ctx: GradeContext, applied: Applied, texts: dict[str, str | None]) -> Chosen:
    python = [
        c
        for c in applied.patch.files
        if applied.classes[c.path].kind == PRODUCTION and c.path.endswith(".py")
    ]
    made = _reverted(ctx, applied, python, texts)
    not_reverted = max(0, len(made) - REVERTED)
    made = made[:REVERTED]
    # The changes undone run beside the cap (most die in the failing tests' short run), so a
    # patch of several changes keeps its decisions' mutants.
    cap = CAP + len(made)
    made += [
        m
        for c in python
        for m in mutation.mutants_of(c.path, texts.get(c.path) or "", c.added_lines)
    ]
    # A compiled extension's C and C++ (red team round 13 fitted markupsafe's tests in C): one
    # schema, rebuilt by the task's build on the next run.
    schemas = schemas_of(applied, texts) if languages.of(ctx.task).compiled(ctx.base) else []
    native = [m for s in schemas for m in s.mutants]
    every = [*made, *native]
    # The decisions' mutants first, of either language, then the deleted statements.
    order = sorted(range(len(every)), key=lambda n: (OPERATOR_ORDER.index(every[n].operator), n))
    picked = set(order[:cap])
    chosen = sorted((m for n, m in enumerate(made) if n in picked), key=lambda m: (m.file, m.line))
    chosen_native = [m for n, m in enumerate(native, len(made)) if n in picked]
    return Chosen(made, native, schemas, chosen, chosen_native, cap, not_reverted)


def collect_mutants(
    ctx: GradeContext,
    tree: Tree,
    applied: Applied,
    measured: SuiteRun,
    texts: dict[str, str | None],
    hidden: HiddenCollected | None = None,
    focus: Focus = NO_FOCUS,
    early: EarlyMutants | None = None,
) -> MutantsCollected:
    """`measured`: the run the failing tests ran in (the hidden run, with hidden tests);
    `texts`: the patched files as the patch left them; `focus`: the patched run's (a schema
    rebuilds in its build tree, as it was configured); `early`: the failing tests' answers,
    asked beside the patched run."""
    kind = languages.of(ctx.task).mutants
    if not kind:
        return MutantsCollected(skipped="this language's lines are not mutated")
    if kind == ONE_SCHEMA:
        return _schema(ctx, tree, applied, measured, texts, hidden, focus)
    chosen = choose(ctx, applied, texts)
    made, cap = len(chosen.made) + len(chosen.native) + chosen.not_reverted, chosen.cap
    if not made:
        return MutantsCollected(
            skipped="no mutant: the added production lines hold nothing to change"
        )
    first, passed = _asked(ctx, measured, hidden)
    if not first:
        return MutantsCollected(made=made, cap=cap, skipped="no failing test passed")
    ctx.clock.say(f"mutants of the added lines ({len(chosen.chosen) + len(chosen.chosen_native)})")
    limit = _time_limit(ctx, measured.run.run.wall_s)
    answers = early.answers_for(first, chosen.chosen) if early and hidden is None else None
    # Asked here, the failing tests are narrowed only when their control run says so; a
    # question the early answers left open is asked with the whole suite collected.
    narrow = answers is None and bool(chosen.chosen)
    narrow = narrow and _narrowing_holds(ctx, hidden, first, limit)
    asking = Asking(first, passed, CAP, CONFIRMATIONS, limit)
    results = _run_all(ctx, hidden, chosen.chosen, texts, asking, narrow, answers or {})
    said = {"narrowed": narrow or answers is not None, "beside": answers is not None}
    if chosen.chosen_native:
        outcome = _run_schema(ctx, hidden, chosen.schemas, chosen.chosen_native, asking)
        if isinstance(outcome, str):
            # The extension's mutants were made and cannot run: not known, never pinned.
            return MutantsCollected(mutants=results, made=made, cap=cap, refused=outcome, **said)
        results += outcome
    ctx.clock.lap("mutants")
    return MutantsCollected(mutants=results, made=made, cap=cap, **said)


def _reverted(
    ctx: GradeContext, applied: Applied, python: list, texts: dict[str, str | None]
) -> list[mutation.Mutant]:
    """Each change of the patch's Python production files undone alone; none when the patch
    is one change (undone, it is the SHA, which the failing tests already failed)."""
    made = []
    for change in python:
        after = texts.get(change.path)
        if after is None:
            continue
        before = show_at(ctx.task.repo, ctx.task.sha, change.path)
        text = before.decode("utf-8", "replace") if before is not None else None
        made += mutation.reverted(change.path, text, after)
    if len(made) <= 1 and len(applied.patch.files) <= 1:
        return []
    return made


def _run_schema(
    ctx: GradeContext,
    hidden: HiddenCollected | None,
    schemas: list[Schema],
    chosen_native: list[CppMutant],
    asking: Asking,
) -> list[MutantResult] | str:
    """A compiled extension's mutants: its schemas written once into a fresh patched tree and
    built there by the task's build, then each run (the control's, each mutant's, chosen by
    `PW_MUTANT`) in a copy of that tree of its own: no run reads what another left (red team
    round 27), and none rebuilds the extension (the copy keeps the files' times)."""
    with fresh_patched(ctx, hidden) as ws:
        if ws is None:
            return NOT_ASKED[1]
        template, suite = ws, ctx.suite
        assert isinstance(suite, PythonSuite)

        @functools.cache
        def build() -> str:
            """The schemas built in the template, once, when first asked: why not, or ''."""
            return suite.build(template.repo, template.new_dir("build"))

        def ask(keys: list[str], number: int) -> tuple[bool, str]:
            if build():
                return True, build()
            with template.copy() as copy:
                return _ask(ctx, copy, keys, asking.limit, ((VARIABLE, str(number)),))

        return run_schemas(ws.repo, schemas, chosen_native, asking, ask)


def _schema(
    ctx: GradeContext,
    tree: Tree,
    applied: Applied,
    measured: SuiteRun,
    texts: dict[str, str | None],
    hidden: HiddenCollected | None,
    focus: Focus,
) -> MutantsCollected:
    if hidden is not None:
        # Not asked yet: the mutants a patch has are then not known to be pinned.
        made = sum(len(s.mutants) for s in schemas_of(applied, texts))
        why = "hidden tests over a warm build: not asked yet"
        if made:
            return MutantsCollected(made=made, cap=CAP, refused=why)
        return MutantsCollected(
            skipped="no mutant: the added production lines hold nothing to change"
        )
    first, passed = _asked(ctx, measured, None)
    if not first:
        return MutantsCollected(cap=CAP, skipped="no failing test passed")
    asking = Asking(first, passed, CAP, CONFIRMATIONS, _time_limit(ctx, measured.run.run.wall_s))
    return collect_schema_mutants(ctx, tree, applied, measured, texts, focus, asking)


def _asked(
    ctx: GradeContext, measured: SuiteRun, hidden: HiddenCollected | None
) -> tuple[list[str], list[str]]:
    """The failing tests that passed with the patch (the hidden ones, with hidden tests), and
    every test that passed with it, less the ones the SHA's runs found flaky."""
    flaky = set(ctx.base.flaky)
    passed = sorted(k for k, o in measured.outcomes.items() if o == "passed" and k not in flaky)
    failing = hidden.failing if hidden is not None else list(ctx.failing)
    return [k for k in failing if k in set(passed)], passed


def _run_all(
    ctx: GradeContext,
    hidden: HiddenCollected | None,
    chosen: list[mutation.Mutant],
    texts: dict[str, str | None],
    asking: Asking,
    narrow: bool,
    answers: dict[int, tuple[bool, str]],
) -> list[MutantResult]:
    """`answers`: the failing tests' answers already known, by the mutant's place in `chosen`."""
    first, passed, limit = asking.first, asking.passed, asking.limit
    results = []
    confirmations = 0
    for n, mutant in enumerate(chosen):
        unconfirmed = False
        known = answers.get(n)
        killed, ended = known or _ask_fresh(ctx, hidden, first, limit, mutant, narrow=narrow)
        by = FAILING_TESTS if killed else ""
        if mutant.operator == mutation.ASSERT_REMOVED:
            pass  # the question is whether the failing tests need the assert: asked
        elif not killed and confirmations < CONFIRMATIONS and set(passed) - set(first):
            confirmations += 1
            killed, ended = _ask_fresh(ctx, hidden, passed, limit, mutant)
            by = PASSING_TESTS if killed else ""
        elif not killed and set(passed) - set(first):
            unconfirmed = True
        results.append(
            MutantResult(
                file=mutant.file,
                line=mutant.line,
                operator=mutant.operator,
                description=mutant.description,
                diff=mutant.diff(texts.get(mutant.file) or ""),
                killed_by=by,
                ended=ended,
                unconfirmed=unconfirmed,
            )
        )
    return results


# A fresh checkout the hidden tests do not apply to asks nothing: a mutant reads as not killed
# (no evidence that the tests pin the patch), a control as not holding.
NOT_ASKED = (False, "the hidden tests do not apply in a fresh checkout")


def _ask_fresh(
    ctx: GradeContext,
    hidden: HiddenCollected | None,
    keys: list[str],
    limit: float,
    mutant: mutation.Mutant | None,
    narrow: bool = False,
    stop: threading.Event | None = None,
) -> tuple[bool, str]:
    """`_ask` over `mutant` (None: the unmutated patch) in a fresh checkout of its own
    (`NOT_ASKED` when the hidden tests do not apply there)."""
    with fresh_patched(ctx, hidden) as ws:
        if ws is None:
            return NOT_ASKED
        if mutant is not None:
            (ws.repo / mutant.file).write_text(mutant.text, encoding="utf-8")
        return _ask(ctx, ws, keys, limit, narrow=narrow, stop=stop)


def _narrowing_holds(
    ctx: GradeContext,
    hidden: HiddenCollected | None,
    first: list[str],
    limit: float,
    stop: threading.Event | None = None,
) -> bool:
    """Whether the failing tests pass over the unmutated patch with only their files collected:
    the control without which a narrowed run's failure could be the narrowing's, not the
    mutant's (a test that needs another test module imported, or code that tells the two apart)."""
    answer = _ask_fresh(ctx, hidden, first, limit, None, narrow=True, stop=stop)
    return answer is not NOT_ASKED and not answer[0]


def _ask(
    ctx: GradeContext,
    ws: Workspace,
    keys: list[str],
    limit: float,
    variables: tuple[tuple[str, str], ...] = (),
    narrow: bool = False,
    stop: threading.Event | None = None,
) -> tuple[bool, str]:
    """Whether a test of `keys` does not pass over the tree as it is now (with `variables`: a
    schema's chosen mutant; `narrow`: only their files collected), and how the run ended."""
    around = Surroundings(
        select=tuple(keys),
        pytest_options="-x",
        timeout_s=limit,
        variables=variables,
        narrow=narrow,
        stop=stop,
    )
    run = ctx.suite.run(ws.repo, ws.new_dir("mutant"), around=around)
    return run.fails_any(keys)


def _time_limit(ctx: GradeContext, took: float) -> float:
    """A mutant that loops stops well before the task's own timeout: three times the patched
    run's time (`took`), and half a minute for a slow start."""
    return min(ctx.task.timeout, 30.0 + 3 * (took or ctx.task.timeout))


# -- asked beside the patched run -------------------------------------------------------------


@dataclass(frozen=True)
class EarlyAnswers:
    """The failing tests' answers over each of `chosen`, each asked in a fresh checkout of the
    patched tree with only their files collected, after a control run so made (unmutated)
    passed."""

    first: tuple[str, ...]
    chosen: tuple[mutation.Mutant, ...]
    answers: dict[int, tuple[bool, str]]


@dataclass(frozen=True)
class EarlyMutants:
    """The mutants' first questions, started beside the patched run (`start_early`)."""

    run: Future[EarlyAnswers | None]

    def answers_for(
        self, first: list[str], chosen: list[mutation.Mutant]
    ) -> dict[int, tuple[bool, str]] | None:
        """The answers, when they were asked of exactly these tests over exactly these mutants
        (the patched run may have failed a failing test, or reclassified a file), less any that
        ended in the early run's own time limit (asked again under the grade's)."""
        try:
            early = self.run.result()
        except Exception:
            return None
        if early is None or early.first != tuple(first) or early.chosen != tuple(chosen):
            return None
        return {n: a for n, a in early.answers.items() if a[1] != "timed out"}


def start_early(
    ctx: GradeContext,
    pool: ThreadPoolExecutor,
    applied: Applied,
    reading: Future[TextFacts],
    stop: threading.Event,
) -> EarlyMutants | None:
    """Ask the failing tests over each Python mutant now, beside the patched run, each in a
    fresh checkout, when the grade runs the mutants (coverage, decisions and mutants on); the
    caller starts it only for a patch nothing known before the run can decide. What the patched
    run then says decides whether the answers count (`EarlyMutants.answers_for`); the
    confirming runs over every passed test stay after. `stop`, once set, kills the run under
    way and asks no more."""
    settings = ctx.settings
    wanted = ctx.wants_coverage and settings.decisions and settings.mutants
    first = ctx.steady_failing
    if languages.of(ctx.task).mutants != EACH_TEXT or not wanted or not first:
        return None
    return EarlyMutants(pool.submit(_ask_early, ctx, applied, reading, first, stop))


def _ask_early(
    ctx: GradeContext,
    applied: Applied,
    reading: Future[TextFacts],
    first: list[str],
    stop: threading.Event,
) -> EarlyAnswers | None:
    chosen = choose(ctx, applied, reading.result().changed_programs()).chosen
    if not chosen or stop.is_set():
        return None
    # The patched run's time is not known yet: the SHA's stands for it.
    limit = _time_limit(ctx, ctx.base.run.run.wall_s)
    if not _narrowing_holds(ctx, None, first, limit, stop):
        return None
    answers = {}
    for n, mutant in enumerate(chosen):
        if stop.is_set():
            return None
        answers[n] = _ask_fresh(ctx, None, first, limit, mutant, narrow=True, stop=stop)
    # A run the stop killed answers nothing.
    return None if stop.is_set() else EarlyAnswers(tuple(first), tuple(chosen), answers)
