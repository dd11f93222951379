"""Mutants of the C and C++ lines a patch added, run as one schema: each mutated file written
once with all its mutants (cpp_mutants.py), the project rebuilt once in the patched run's build
tree, and each mutant chosen by the variable `PW_MUTANT` for a run of the failing tests alone
(then, if it survived them, of every test that passed with the patch).

The schema must build and, with no mutant chosen, pass the failing tests as the patch does; if
not, no mutant says anything and the phase says why. The patched text is put back in a
`finally`; the build tree it leaves holds the mutated objects, and the next grade restores its
tree from the slot's snapshot (warm.py) or builds in a fresh one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from patchwitness import cpp_mutants, mutants
from patchwitness.classify import PRODUCTION, compiled_source
from patchwitness.facts import MutantsCollected
from patchwitness.languages.cpp import cpp_suite
from patchwitness.model import FAILING_TESTS, PASSING_TESTS, MutantResult
from patchwitness.phases.apply import Applied
from patchwitness.phases.context import GradeContext, Tree
from patchwitness.suites import Focus, SuiteRun, Surroundings

OPERATOR_ORDER = (
    mutants.CHANGE_REVERTED,  # Python's: is each change needed at all?
    cpp_mutants.CONDITION_TRUE,
    cpp_mutants.CONDITION_FALSE,
    mutants.LOOP_TRIPS,  # Python's
    cpp_mutants.VALUE_PICKED,
    mutants.VALUE_FROZEN,  # Python's
    cpp_mutants.BOUNDARY,
    cpp_mutants.TERM_DROPPED,  # a term of a sum no test needs: a fit zero where they look
    cpp_mutants.STATEMENT_DELETED,
    mutants.ASSERT_REMOVED,  # Python's: a question of its own, asked last
)


def schemas_of(applied: Applied, texts: dict[str, str | None]) -> list[cpp_mutants.Schema]:
    """The schema of every C or C++ production file the patch added lines to, their mutants
    numbered one after another."""
    out, first = [], 1
    for change in applied.patch.files:
        text = texts.get(change.path)
        if applied.classes[change.path].kind != PRODUCTION or not change.added or text is None:
            continue
        if not compiled_source(applied.classes[change.path], text):
            continue
        schema = cpp_mutants.schema_of(change.path, text, change.added_lines, first)
        if schema is not None:
            out.append(schema)
            first = max(m.number for m in schema.mutants) + 1
    return out


def chosen(schemas: list[cpp_mutants.Schema], cap: int) -> list[cpp_mutants.CppMutant]:
    """The mutants a cap keeps: the decisions' (true, false, boundaries) before any deleted
    statement, each kind in the order of its files and lines."""
    made = [m for s in schemas for m in s.mutants]
    made.sort(key=lambda m: (OPERATOR_ORDER.index(m.operator), m.file, m.line, m.number))
    return made[:cap]


@dataclass(frozen=True)
class Asking:
    """What the mutants are asked of: `first`, the failing tests that passed with the patch;
    `passed`, every test that did; the cap on mutants and on confirming runs (a survivor of
    `first` run against `passed`), and one run's time limit."""

    first: list[str]
    passed: list[str]
    cap: int
    confirmations: int
    limit: float


def collect_schema_mutants(
    ctx: GradeContext,
    tree: Tree,
    applied: Applied,
    measured: SuiteRun,
    texts: dict[str, str | None],
    focus: Focus,
    asking: Asking,
) -> MutantsCollected:
    schemas = schemas_of(applied, texts)
    made = sum(len(s.mutants) for s in schemas)
    if not made:
        return MutantsCollected(
            skipped="no mutant: the added production lines hold nothing to change"
        )
    if measured.built is None:
        return MutantsCollected(made=made, cap=asking.cap, refused="the patched run left no build")
    picked = chosen(schemas, asking.cap)
    ctx.clock.say(f"mutants of the added lines ({len(picked)}, one schema)")

    def ask(keys: list[str], number: int) -> tuple[bool, str]:
        return _ask(ctx, tree, measured, focus, keys, number, asking.limit)

    outcome = run_schemas(tree.ws.repo, schemas, picked, asking, ask)
    ctx.clock.lap("mutants")
    if isinstance(outcome, str):
        return MutantsCollected(made=made, cap=asking.cap, refused=outcome)
    return MutantsCollected(mutants=outcome, made=made, cap=asking.cap)


def run_schemas(
    repo: Path,
    schemas: list[cpp_mutants.Schema],
    picked: list[cpp_mutants.CppMutant],
    asking: Asking,
    ask: Callable[[list[str], int], tuple[bool, str]],
) -> list[MutantResult] | str:
    """The schemas written over their files, the `picked` mutants asked (`ask(keys, number)`:
    whether a test of `keys` fails with mutant `number` chosen), the files put back whatever
    happened; or why no mutant counts: with none chosen, the schemas must pass the failing
    tests as the patch does (a schema the compiler refuses does not)."""
    originals = {s.file: (repo / s.file).read_bytes() for s in schemas}
    try:
        for schema in schemas:
            (repo / schema.file).write_text(schema.text, encoding="utf-8")
        broke, why = ask(asking.first, 0)
        if broke:
            return f"the mutant schema did not build, or changed what the patch does ({why})"
        return run_all(picked, asking.first, asking.passed, asking.confirmations, ask)
    finally:
        for path, data in originals.items():
            (repo / path).write_bytes(data)


def run_all(
    picked: list[cpp_mutants.CppMutant],
    first: list[str],
    passed: list[str],
    confirmations: int,
    ask,
) -> list[MutantResult]:
    others = set(passed) - set(first)
    out, confirmed = [], 0
    for mutant in picked:
        killed, ended = ask(first, mutant.number)
        by, unconfirmed = (FAILING_TESTS if killed else ""), False
        if not killed and others and confirmed < confirmations:
            confirmed += 1
            killed, ended = ask(passed, mutant.number)
            by = PASSING_TESTS if killed else ""
        elif not killed and others:
            unconfirmed = True
        out.append(
            MutantResult(
                file=mutant.file,
                line=mutant.line,
                operator=mutant.operator,
                description=mutant.description,
                diff=mutant.diff(),
                killed_by=by,
                ended=ended,
                unconfirmed=unconfirmed,
            )
        )
    return out


def _ask(
    ctx: GradeContext,
    tree: Tree,
    measured: SuiteRun,
    focus: Focus,
    keys: list[str],
    number: int,
    limit: float,
) -> tuple[bool, str]:
    """Whether a test of `keys` does not pass with mutant `number` chosen (0: none), in the
    patched run's build tree rebuilt over the schema, and how the run ended."""
    around = Surroundings(
        select=tuple(keys), variables=((cpp_mutants.VARIABLE, str(number)),), timeout_s=limit
    )
    run = cpp_suite(ctx.suite).run(
        tree.ws.repo,
        tree.ws.new_dir("mutant"),
        instrument=ctx.instrument,
        focus=focus,
        around=around,
        slot=tree.slot,
        built=measured.built,
    )
    return run.fails_any(keys)
