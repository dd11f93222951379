"""The decision tables, as data, the final table, and the policy that holds them. Pure.

Each table is an ordered list of rows; the first row whose condition holds fires, and its id is
recorded in the verdict's reasons with its effect. A gate may only answer with a status its table
lists; the final table turns the gates' answers (and the run's own endings: a timeout, a killed
run) into the grade and the label. A `Policy` is the tables plus the options a task or a policy
file may set; `load_policy` reads such a file, which may change a row's status, effect or grade
(`patchwitness rejudge --policy FILE` applies it to stored facts). The README's tables are printed
from this module (`patchwitness tables --markdown`), and a test holds them word for word.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from patchwitness.names import GateName

if TYPE_CHECKING:  # the tables need no model to be read: Settings holds a policy at every start
    from patchwitness.facts import GradeFacts
    from patchwitness.model import Effect, Grade, Label, Reason


@dataclass(frozen=True)
class Row:
    id: str
    when: str  # the condition in words, as the README shows it
    status: str
    effect: Effect
    test: Callable[[Any], bool]


def first_row(table: list[Row] | tuple[Row, ...], facts: Any) -> Row:
    for row in table:
        if row.test(facts):
            return row
    raise AssertionError("decision table without a catch-all row")  # pragma: no cover


# --- drift: the print gate ------------------------------------------------------------
# Facts: a DriftInput (gates/drift.py). Two rows precede the seed's table because no task permits
# them: editing the grader's own files, and a report that names tests never collected.

# fmt: off
DRIFT_TABLE: list[Row] = [
    Row("grader-files-edited", "the patch edits the task, allowlist or manifest files",
        "UNPRINTABLE", "reject", lambda f: f.grader_files_edited),
    Row("report-tampered", "the run's report names uncollected tests, reports a phase twice, "
        "or a new plugin/conftest took over a report hook",
        "UNPRINTABLE", "reject", lambda f: f.report_tampered),
    Row("hidden-tests-conflict", "the patch changes lines of the SHA that the hidden tests "
        "change, creates a file they create, or keeps them from applying",
        "UNPRINTABLE", "reject", lambda f: f.hidden_conflicts > 0),
    Row("tests-authored", "allow_test_edits is true, tests changed, and every listed failing "
        "id passes",
        "tests-authored", "accept",
        lambda f: f.allow_test_edits and f.tests_changed and f.still_failing == 0),
    Row("tests-removed", "tests_removed > 0",
        "UNPRINTABLE", "reject", lambda f: f.tests_removed > 0),
    Row("assertion-loss", "assertion_delta < 0",
        "UNPRINTABLE", "reject", lambda f: f.assertion_delta < 0),
    Row("weakened", "a test lost an assertion and gained another (weakened)",
        "UNPRINTABLE", "reject", lambda f: f.weakened > 0),
    Row("skips-added", "a skip, xfail or disable marker was added",
        "UNPRINTABLE", "reject", lambda f: f.skips_added > 0),
    Row("test-edit-forbidden", "a test or test-infrastructure file was edited and "
        "allow_test_edits is false (a purely additive test edit is judged by the pristine run "
        "instead, unless test_additions = forbid)",
        "UNPRINTABLE", "reject",
        lambda f: not f.allow_test_edits and f.tests_changed and not f.judged_by_pristine),
    Row("gaming-code", "added production code games the run (exit at import, constant __eq__, "
        "reads the test runner's state, reaches into pytest, swallows AssertionError, touches "
        "the coverage measurement, defines a macro named like a library function tests use)",
        "UNPRINTABLE", "reject", lambda f: f.gaming > 0),
    Row("skipped-by-code", "a test that ran at the SHA reports skipped after the patch and no "
        "test edit added a skip: production code decides which tests run",
        "UNPRINTABLE", "reject", lambda f: f.skipped_by_code > 0),
    Row("pass-to-fail", "pass_to_fail > 0",
        "failed", "reject", lambda f: f.pass_to_fail > 0),
    Row("still-failing", "some listed failing tests pass, not all: a partial fix (with hidden "
        "tests, fail_to_pass and pass_to_fail are the hidden run's, pass_to_fail the visible "
        "run's too)",
        "failed", "reject", lambda f: f.fail_to_pass > 0 and f.still_failing > 0),
    Row("fail-to-pass", "fail_to_pass > 0 and the two drift fields are 0",
        "passed", "accept",
        lambda f: f.fail_to_pass > 0 and f.tests_removed == 0 and f.assertion_delta == 0),
    Row("gate-clean", "the task gates a pull request (mode = gate, nothing to fix): no test "
        "broke, vanished or lost an assertion",
        "passed", "accept", lambda f: f.gate_mode and f.pass_to_fail == 0
        and f.tests_removed == 0 and f.assertion_delta >= 0),
    Row("no-op", "no node id changed state",
        "no-op", "reject", lambda f: True),
]
# fmt: on


# --- census: the census table, with the holes closed -----------------------------------------
# Facts: a CensusInput (gates/census.py). Rows 3-6 apply only when test edits are not allowed;
# on a task that allows them the same changes ask for review (row 8).

# fmt: off
CENSUS_TABLE: list[Row] = [
    Row("unreadable", "a test file the census must read does not parse after the patch",
        "fail", "reject", lambda f: f.unreadable > 0),
    Row("machinery-redefined", "the patch defines or undefines an assertion or test macro, "
        "overrides an assert method, or adds a report-changing pytest hook",
        "fail", "reject", lambda f: f.redefinitions > 0),
    Row("witness-deleted", "a test (or case) key was removed and is not in the allowlist",
        "fail", "reject", lambda f: f.removed_tests > 0 and not f.allow_test_edits),
    Row("closed-failure", "an assertion key was removed or rewritten into something the "
        "scanner does not know, and is not in the allowlist",
        "fail", "reject", lambda f: f.removed_asserts > 0 and not f.allow_test_edits),
    Row("witness-disabled", "a skip, disable or hidden tag was added",
        "fail", "reject", lambda f: f.disabled > 0 and not f.allow_test_edits),
    Row("infra-edited", "test registration or other test infrastructure edited without leave",
        "fail", "reject", lambda f: f.infra_edits > 0 and not f.allow_test_edits),
    Row("failing-test-lost", "a test the task names as failing was removed, deregistered or "
        "skipped instead of fixed",
        "fail", "reject", lambda f: f.failing_lost > 0),
    Row("real-regression", "keys held but a golden that passed at the SHA fails",
        "pass", "reject", lambda f: f.goldens_red),
    Row("authored-shrink", "test edits allowed and keys were removed, rewritten or disabled",
        "review", "review",
        lambda f: f.allow_test_edits and (f.removed_tests + f.removed_asserts + f.disabled) > 0),
    Row("intentional-shrink", "only allowlisted keys were removed and the goldens pass",
        "review", "review", lambda f: f.allowlisted > 0),
    Row("inventory-grew", "new keys, every old key remains, goldens pass",
        "pass", "accept", lambda f: f.added > 0),
    Row("contract-held", "same keys, goldens pass",
        "pass", "accept", lambda f: True),
]
# fmt: on


# --- coverage: on the hunk -----------------------------------------------------------------------
# Facts: a CoverageInput (gates/coverage.py).

# fmt: off
COVERAGE_TABLE: list[Row] = [
    Row("no-executable-source", "the patch touches no executable production source "
        "(comments, layout alone, build files, data)",
        "not-applicable", "not-applicable", lambda f: not f.touches_source),
    Row("not-measurable", "no instrumented build or run behaves at the SHA as the plain one "
        "does (the grader's flags break it), or the coverage tool cannot read the SHA's data or "
        "fails on the patched run's: coverage is not measured",
        "not-measurable", "review", lambda f: not f.measurable),
    Row("goldens-red", "the goldens are red",
        "reject", "reject", lambda f: f.goldens_red),
    Row("no-data", "the coverage run wrote no data to read",
        "reject", "reject", lambda f: not f.data_found),
    Row("nothing-scored", "no executable patched line was scored",
        "reject", "reject", lambda f: f.scored == 0),
    Row("zero-hits", "some scored patched line has zero hits",
        "reject", "reject", lambda f: f.zero_hits > 0),
    Row("unscored-suspicious", "a patched code line sits in a file, or a function, that produced "
        "no line data at all (never compiled into a test, never imported, an uninstantiated "
        "template)",
        "reject", "reject", lambda f: f.unscored > 0),
    Row("all-hit", "every scored patched line was hit",
        "accept", "accept", lambda f: True),
]
# fmt: on


# --- matrix: the flag matrix ------------------------------------------------------------
# Facts: a MatrixInput (gates/matrix.py). Counts are over required cells judged on transitions:
# a cell red at the SHA too is the noise floor, not the patch's doing. The four seed patterns come
# before the catch-all regression row so that the reason names the pattern.

# fmt: off
MATRIX_TABLE: list[Row] = [
    Row("no-cells", "the matrix produced no cell at all (no golden, nothing built)",
        "red", "reject", lambda f: f.cells == 0),
    Row("cell-missing", "a required cell is missing: not built, not run, not reported, or the "
        "toolchain lacks its envelope (fail closed)",
        "red", "reject", lambda f: f.missing > 0),
    Row("debug-green-release-red", "a golden passes a debug envelope and newly fails at run time "
        "under an optimised or NDEBUG one: UB or an NDEBUG-dependent assert",
        "red", "reject", lambda f: f.debug_release > 0),
    Row("sanitizer-only", "a golden passes every required non-sanitizer envelope and newly fails "
        "a sanitizer one: a bug the optimizer has not exploited yet",
        "red", "reject", lambda f: f.sanitizer_only > 0),
    Row("user-build-red", "a golden passes every required envelope of the tests' build and newly "
        "fails a user's default build of the project (the compiler's own dialect, no build "
        "type, the project's own options at their defaults): the fix holds only where the "
        "grader looked",
        "red", "reject", lambda f: f.user_only > 0),
    Row("werror-only", "a cell newly fails only because warnings are errors: a spec violation "
        "where the manifest pins -Werror",
        "red", "reject", lambda f: f.werror_only > 0),
    Row("digest-changed", "a cell exits 0 without a sanitizer report but its stdout is not the "
        "pinned fixture's (or the SHA's) bytes",
        "red", "reject", lambda f: f.digest_changed > 0),
    Row("regressed", "a required cell green at the SHA is red after the patch (compile, run, "
        "timeout)",
        "red", "reject", lambda f: f.regressed > 0),
    Row("resources", "a cell's peak RSS or CPU time exceeds the SHA's by the manifest's "
        "tolerance (default: more than 2x and 64 MB; 2x and 1 s)",
        "red", "reject", lambda f: f.resources > 0),
    Row("target-red-everywhere", "a failing test the patch must fix is red under every required "
        "envelope: the matrix never saw the fix work (fail closed; the envelopes or the patch)",
        "review", "review", lambda f: f.targets_red > 0),
    Row("optional-red", "only cells of optional envelopes (required: false) newly went red",
        "review", "review", lambda f: f.optional_red > 0),
    Row("baseline-red", "every red required cell was red at the SHA too: the noise floor; fix "
        "the subject before scoring patches",
        "review", "review", lambda f: f.noise > 0),
    Row("all-green", "every required cell passes",
        "green", "accept", lambda f: True),
]
# fmt: on


# --- special-casing: patches that only fit the tests ------------------------------------------
# Facts: a SpecialInput (gates/special.py). Values are compared, not spellings (256 and 0x100 are
# one); a value the production file held at the SHA does not count.

# fmt: off
SPECIAL_TABLE: list[Row] = [
    Row("special-cased-rejected", "as special-cased, on a task that sets "
        "[policy] special_casing = \"reject\"",
        "special-cased", "reject", lambda f: f.findings > 0 and f.task_rejects),
    Row("special-cased", "added production code compares an input with, switches on, or maps "
        "literal values the failing or hidden tests use (`if n == 256`, `case 65536:`, a dict of "
        "the tests' inputs)",
        "special-cased", "review", lambda f: f.findings > 0),
    Row("clean", "no added production line singles out the tests' values",
        "clean", "accept", lambda f: True),
]
# fmt: on


# --- pinning: do the tests pin the patch ------------------------------------------------------
# Facts: a PinningInput (gates/pinning.py). A green suite that ran every patched line may still
# not constrain it: a decision the patch adds that the tests only ever saw go one way is what a
# fix gated on the test environment, or on an earlier call, looks like.

# fmt: off
PINNING_TABLE: list[Row] = [
    Row("unpinned", "a mutant of an added production line (a condition made constant, a "
        "statement deleted, a comparison's boundary moved) passed every test that passed "
        "with the patch: the tests do not pin that code (the mutant is shown as a diff)",
        "unpinned", "review", lambda f: f.survivors > 0),
    Row("needs-asserts", "a failing test fails once an assert the patch adds to production "
        "code is removed, as python -O removes every assert: the fix lives in the assert, and "
        "a program run optimized does not have it",
        "needs-asserts", "review", lambda f: f.asserts_needed > 0),
    Row("one-way-branch", "a decision the patch adds or changes (an if, elif, while, "
        "conditional expression, comprehension if, an operand of and/or, && or ||) went the "
        "same way every time the tests reached it: nothing shows the patch right on its other "
        "way, and a fix gated on what is always so under the tests looks like this",
        "one-way", "review", lambda f: f.one_way > 0),
    Row("partly-pinned", "a cap, or a mutant schema that could not build, left mutants of the "
        "added lines unknown (never run, or run against the failing tests alone and outliving "
        "them): what was not asked is not evidence that the tests pin the patch",
        "partly-pinned", "review",
        lambda f: f.unrun > 0),
    Row("not-measured", "the decisions of the hunk were not measured (the run was traced by "
        "coverage.py, or coverage was not measured at all): nothing said either way",
        "not-measured", "accept", lambda f: not f.measured),
    Row("both-ways", "every decision the patch adds that the tests reached went both ways, "
        "or the patch adds none, and the tests killed every mutant that ran",
        "pinned", "accept", lambda f: True),
]
# fmt: on


# --- reference: does the patch behave as the task's reference fix ---------------------------
# Facts: a ReferenceInput (gates/reference.py). Both pass the tests; on the calls the failing
# tests made into the functions either changes, and on their neighbours, they may not agree.

# fmt: off
REFERENCE_TABLE: list[Row] = [
    Row("differs-from-reference", "on a call into a function the patch or the reference fix "
        "changes (one the failing tests made, or its neighbour: an argument at a boundary the "
        "code compares with, empty, longer, of another sign), the patch did otherwise than the "
        "reference: another value, exception, output, warning or state left behind (the "
        "smallest such call is shown, with both behaviours); or a failing test with one of its "
        "statements left out answered its assertions otherwise under the two",
        "differs", "review", lambda f: f.differing > 0),
    Row("fixed-elsewhere", "the patch changes none of the functions the reference fix changes, "
        "and no call compared ran a function either changes (none could be rebuilt): the fix is "
        "somewhere the comparison did not follow, which may hold only on the way the tests go",
        "not-compared", "review", lambda f: f.elsewhere and (f.compared == 0 or f.reaching == 0)),
    Row("not-compared", "the task has no reference fix, or no call could be compared (none "
        "captured, none rebuilt, or the language has no comparison yet): nothing said either "
        "way", "not-compared", "accept", lambda f: f.compared == 0),
    Row("change-not-reached", "calls were compared and agreed, but none of them ran a "
        "function either fix changes (the tests' calls into it could not be rebuilt): the "
        "change itself was not compared, nothing said either way",
        "not-compared", "accept", lambda f: f.reaching == 0),
    Row("same-as-reference", "on every call compared the patch did what the reference fix "
        "did", "same", "accept", lambda f: True),
]
# fmt: on


# --- surface: what the grader does not understand is not evidence of a fix --------------------
# Facts: a SurfaceInput (gates/surface.py). A file the classifier cannot place, a run made
# otherwise than the SHA's, production code that reads the state a harness sets.

# fmt: off
SURFACE_TABLE: list[Row] = [
    Row("unrecognised-file", "the patch adds or edits a file that is neither production source "
        "nor a test, test infrastructure or documentation (packaging metadata, bytecode, a "
        "symlink, tool configuration, a module outside the package under test or one that "
        "shadows another, a header that shadows a system or framework header)",
        "UNPRINTABLE", "reject", lambda f: f.unrecognised > 0 and not f.gate_mode),
    Row("unrecognised-in-gate", "as unrecognised-file, on a task that gates a pull request "
        "(mode = gate): a person reads what the grader cannot",
        "review", "review", lambda f: f.unrecognised > 0),
    Row("surface-changed", "the patched run was not made as the SHA's: it read another "
        "configuration file, loaded another plugin, or built or registered the tests otherwise",
        "UNPRINTABLE", "reject", lambda f: f.changes > 0),
    Row("environment-dependent", "a failing test that passed in the grader's run did not pass "
        "when run again elsewhere (another machine name, other limits, HOME, TMPDIR and hash "
        "seed, no instrumentation, output capture off): the fix holds only where the grader "
        "looked", "UNPRINTABLE", "reject", lambda f: f.elsewhere > 0),
    Row("fails-outside-the-harness", "a failing test that passed in the grader's run does not "
        "hold outside its harness: a C++ case's own body as a user's program (no test "
        "framework, the compiler's default dialect, no ctest), a Python test function called "
        "from a plain script (no pytest) (review: a test may lean on what its harness sets up)",
        "review", "review", lambda f: f.outside > 0),
    Row("process-read", "added production code reads process or interpreter state that a "
        "user's run need not share with the tests' (an environment variable, the interpreter's "
        "flags, the command line, the loaded modules)",
        "review", "review", lambda f: f.reads > 0),
    Row("clean", "the patch changes only what the grader understands, and the run is the SHA's",
        "clean", "accept", lambda f: True),
]
# fmt: on


# --- the final table ----------------------------------------------------------------------------
# Facts: a FinalInput (judge.py): how the patched run ended and what each gate answered. Every
# ending of a grade that is not a gate's answer is a row here too, so a reader (and every report)
# takes a reason's effect from the row that fired, never from code around the tables.


@dataclass(frozen=True)
class GateOutcome:
    gate: str
    row: str
    status: str
    effect: Effect


@dataclass(frozen=True)
class FinalInput:
    gates: Mapping[str, GateOutcome] = field(default_factory=dict)
    timed_out: bool = False
    killed: str | None = None  # the limit that ended the patched run, a timeout aside
    pristine_disagrees: bool = False  # tests-authored, and the SHA's own tests disagree
    not_run: tuple[str, ...] = ()  # gates skipped whose reason to skip no longer holds

    def rejects(self, gate: str) -> bool:
        outcome = self.gates.get(gate)
        return outcome is not None and outcome.effect == "reject"

    def drift_label(self) -> Label:
        return self.gates[GateName.DRIFT].status  # type: ignore[return-value]

    def census_label(self) -> Label:
        return "failed" if self.gates[GateName.CENSUS].row == "real-regression" else "UNPRINTABLE"


@dataclass(frozen=True)
class FinalRow:
    id: str
    when: str
    grade: Grade
    label_doc: str  # the label in words, as the README shows it
    label: Callable[[FinalInput], Label]
    test: Callable[[FinalInput], bool]
    gate: str = "grade"  # the gate a reason names when this row fires

    @property
    def effect(self) -> Effect:
        return (
            "reject" if self.grade == "reject" else "review" if self.grade != "accept" else "accept"
        )


# --- the gates: what each is to the judge, the final table and every report -------------------
# A gate's module (`gates/NAME.py`) holds its pure `judge(facts, rules, decided)`: it reads the
# facts of one grade, decides by the gate's table as the policy `rules` holds it, and returns the
# gate's own model, or None when it has nothing to judge. `decided` holds what the gates before
# it answered, in this order (special-casing reads the hidden tests' facts drift derived). The
# declaration here is what the judge and the reports need without loading the gate: its default
# table, its row of the final table, and whether it is cheap (judged on the facts gathered so
# far, before collect spends a flag matrix or a pristine run that could not change the verdict).


@dataclass(frozen=True)
class Gate:
    name: GateName
    table: list[Row]  # the default decision table; a policy may hold another
    rejects_when: str  # the final table's row for "this gate rejects", in words
    label_doc: str  # the label that row gives, in words
    label: Callable[[FinalInput], Label]
    # Orders the gates' rows in the final table (lower first): a gate whose rejection says
    # more about the patch stands earlier.
    precedence: int
    cheap: bool = True

    def judge(self, facts: GradeFacts, rules: Policy, decided: Mapping[str, Any]) -> Any:
        module = importlib.import_module(f"patchwitness.gates.{self.name}")
        return module.judge(facts, rules, decided)


# fmt: off
REGISTRY: tuple[Gate, ...] = (
    Gate(GateName.DRIFT, DRIFT_TABLE, "the drift gate rejects",
         "the drift label (UNPRINTABLE, failed, no-op)", lambda f: f.drift_label(), precedence=1),
    Gate(GateName.CENSUS, CENSUS_TABLE, "the census gate rejects",
         "UNPRINTABLE, or failed for real-regression", lambda f: f.census_label(), precedence=2),
    Gate(GateName.SURFACE, SURFACE_TABLE, "the surface gate rejects: what the grader does not "
         "understand comes before what the tests say", "UNPRINTABLE", lambda f: "UNPRINTABLE",
         precedence=0),
    Gate(GateName.COVERAGE, COVERAGE_TABLE, "the coverage gate rejects", "uncovered",
         lambda f: "uncovered", precedence=3),
    Gate(GateName.MATRIX, MATRIX_TABLE, "the flag matrix rejects", "matrix-red",
         lambda f: "matrix-red", precedence=4, cheap=False),
    Gate(GateName.SPECIAL, SPECIAL_TABLE, "the special-casing gate rejects (the task asks it "
         "to)", "UNPRINTABLE", lambda f: "UNPRINTABLE", precedence=5),
    Gate(GateName.PINNING, PINNING_TABLE, "the pinning gate rejects (a policy makes one of its "
         "rows reject)", "UNPRINTABLE", lambda f: "UNPRINTABLE", precedence=6),
    Gate(GateName.REFERENCE, REFERENCE_TABLE, "the reference gate rejects (a policy makes "
         "differs-from-reference reject)", "failed", lambda f: "failed", precedence=7),
)
# fmt: on


# The final table is these rows around one row per gate (each Gate above declares when
# it rejects and what the grade is then), in the gates' precedence: `final_table()`.
# fmt: off
FINAL_HEAD: list[FinalRow] = [
    FinalRow("timeout", "the patched test run did not finish within the task's timeout",
             "reject", "timeout", lambda f: "timeout", lambda f: f.timed_out),
]
FINAL_TAIL: list[FinalRow] = [
    FinalRow("killed", "a resource limit (memory, processes, output, file size) killed the "
             "patched run, and no gate rejected what was left", "reject", "failed",
             lambda f: "failed", lambda f: f.killed is not None, gate="runner"),
    FinalRow("gate-not-run", "a gate was skipped because an earlier one rejected, and under this "
             "policy none does: grade again to run it", "accept-with-review", "the drift label",
             lambda f: f.drift_label(), lambda f: bool(f.not_run)),
    FinalRow("pristine-disagreement", "tests-authored, and the SHA's own tests disagree with "
             "the patched tests", "accept-with-review", "the drift label",
             lambda f: f.drift_label(), lambda f: f.pristine_disagrees, gate=GateName.DRIFT),
    FinalRow("review", "a gate asks for review", "accept-with-review", "the drift label",
             lambda f: f.drift_label(),
             lambda f: any(o.effect == "review" for o in f.gates.values())),
    FinalRow("accept", "otherwise", "accept", "the drift label (passed or tests-authored)",
             lambda f: f.drift_label(), lambda f: True),
]
# fmt: on


def _rejects(gate: str) -> Callable[[FinalInput], bool]:
    return lambda f: f.rejects(gate)


def final_table() -> list[FinalRow]:
    rows = [
        FinalRow(
            f"{g.name}-rejects",
            g.rejects_when,
            "reject",
            g.label_doc,
            g.label,
            _rejects(g.name),
            gate=g.name,
        )
        for g in sorted(REGISTRY, key=lambda g: g.precedence)
    ]
    return [*FINAL_HEAD, *rows, *FINAL_TAIL]


def first_final(table: list[FinalRow] | tuple[FinalRow, ...], facts: FinalInput) -> FinalRow:
    for row in table:
        if row.test(facts):
            return row
    raise AssertionError("final table without a catch-all row")  # pragma: no cover


def reason(gate: str, row: Row, detail: str = "") -> Reason:
    from patchwitness.model import Reason

    return Reason(gate=gate, row=row.id, detail=detail or row.when, effect=row.effect)


def tables() -> dict[str, list[Row]]:
    """Every gate's default table, in the registry's order."""
    return {g.name: g.table for g in REGISTRY}


# --- the policy --------------------------------------------------------------------------------

TestAdditions = Literal["judge", "forbid"]


@dataclass(frozen=True)
class Policy:
    """The tables a grade is judged by, and the options a policy file may set.

    `test_additions`: how a purely additive test edit (new tests only, nothing existing touched)
    on a task that forbids test edits is judged. `judge` (the default): by the pristine run, the
    SHA's own tests over the patched code, with a finding that the new tests were not counted.
    `forbid`: the print gate's rule, any test edit is UNPRINTABLE. A task's `[policy]` section wins.
    """

    tables: Mapping[str, tuple[Row, ...]]
    final: tuple[FinalRow, ...]
    test_additions: TestAdditions = "judge"
    source: str = "default"
    overrides: Mapping[str, Any] = field(default_factory=dict)

    def table(self, name: str) -> tuple[Row, ...]:
        return self.tables[name]

    def __reduce__(self):
        # Rows hold lambdas, which do not pickle: a policy travels to worker processes as the
        # changes it makes to the default one, and is rebuilt there.
        return (_rebuild, (dict(self.overrides), self.source))

    @property
    def digest(self) -> str:
        """Short hash of what differs from the default policy ('' for the default)."""
        if not self.overrides:
            return ""
        text = json.dumps(self.overrides, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def default_policy() -> Policy:
    return DEFAULT_POLICY


# Composed once from the registry: the tables are this module's data, and so are the gates'
# declarations that order them.
TABLES = tables()
FINAL_TABLE = final_table()
GATE_ORDER = tuple(g.name for g in REGISTRY)
DEFAULT_POLICY = Policy(
    tables={name: tuple(rows) for name, rows in TABLES.items()}, final=tuple(FINAL_TABLE)
)


ROW_KEYS = {"status", "effect"}
FINAL_KEYS = {"grade"}
EFFECTS = ("accept", "review", "reject", "not-applicable", "skipped")
GRADES = ("accept", "accept-with-review", "reject")


def _rebuild(overrides: Mapping[str, Any], source: str) -> Policy:
    return apply_overrides(overrides, source) if overrides else default_policy()


class PolicyError(ValueError):
    """A policy file that does not parse or names what does not exist."""


def load_policy(path: Path) -> Policy:
    """The default policy with a TOML file's changes:

    [options]
    test_additions = "forbid"

    [coverage.zero-hits]          # any row of any gate table: its status and effect
    effect = "review"

    [final.review]                # a row of the final table: its grade
    grade = "reject"
    """
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise PolicyError(f"policy {path}: {exc}") from None
    return apply_overrides(data, str(path))


def apply_overrides(data: Mapping[str, Any], source: str) -> Policy:
    tables = {name: list(rows) for name, rows in default_policy().tables.items()}
    final = list(default_policy().final)
    additions: TestAdditions = default_policy().test_additions
    for section, rows in data.items():
        if section == "options":
            value = rows.get("test_additions", additions)
            if value not in ("judge", "forbid"):
                raise PolicyError(f"policy {source}: test_additions must be judge or forbid")
            unknown = set(rows) - {"test_additions"}
            if unknown:
                raise PolicyError(f"policy {source}: unknown option {sorted(unknown)[0]}")
            additions = value
        elif section == "final":
            for row_id, change in rows.items():
                final = _override_final(final, row_id, change, source)
        elif section in tables:
            for row_id, change in rows.items():
                tables[section] = _override_row(tables[section], section, row_id, change, source)
        else:
            raise PolicyError(f"policy {source}: no table named {section!r}")
    return Policy(
        tables={name: tuple(rows) for name, rows in tables.items()},
        final=tuple(final),
        test_additions=additions,
        source=source,
        overrides=dict(data),
    )


def _override_row(rows: list[Row], table: str, row_id: str, change: Any, source: str) -> list[Row]:
    where = f"policy {source}: {table}.{row_id}"
    if not isinstance(change, dict) or not change or set(change) - ROW_KEYS:
        raise PolicyError(f"{where}: set status and/or effect, nothing else")
    if "effect" in change and change["effect"] not in EFFECTS:
        raise PolicyError(f"{where}: effect must be one of {', '.join(EFFECTS)}")
    if not any(r.id == row_id for r in rows):
        raise PolicyError(f"{where}: the {table} table has no such row")
    return [replace(r, **change) if r.id == row_id else r for r in rows]


def _override_final(rows: list[FinalRow], row_id: str, change: Any, source: str) -> list[FinalRow]:
    where = f"policy {source}: final.{row_id}"
    if not isinstance(change, dict) or set(change) != FINAL_KEYS:
        raise PolicyError(f"{where}: set grade, nothing else")
    if change["grade"] not in GRADES:
        raise PolicyError(f"{where}: grade must be one of {', '.join(GRADES)}")
    if not any(r.id == row_id for r in rows):
        raise PolicyError(f"{where}: the final table has no such row")
    return [replace(r, grade=change["grade"]) if r.id == row_id else r for r in rows]


# --- the README's tables -----------------------------------------------------------------------


def markdown_tables() -> str:
    """Every table as the README shows it: the text between the README's table markers."""
    out: list[str] = []
    for name, rows in tables().items():
        out.append(f"**{name}**\n")
        out.append("| # | row | condition | status | effect |")
        out.append("| --- | --- | --- | --- | --- |")
        for index, row in enumerate(rows, start=1):
            out.append(f"| {index} | {row.id} | {row.when} | {row.status} | {row.effect} |")
        out.append("")
    out.append("**final**\n")
    out.append("| # | row | condition | grade | label |")
    out.append("| --- | --- | --- | --- | --- |")
    for index, row in enumerate(final_table(), start=1):
        out.append(f"| {index} | {row.id} | {row.when} | {row.grade} | {row.label_doc} |")
    return "\n".join(out) + "\n"
