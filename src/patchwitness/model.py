"""The verdict and the facts it is made of.

Everything a grade produces is one `Verdict`: which patch, against which task and SHA, under which
fingerprint, and one field per gate holding that gate's facts and the decision-table row that fired.
The facts are kept, not only the label, so that a later reader can tell a deleted test from a
compile failure without re-running anything.

The JSON Schema of `Verdict` is exported by `patchwitness schema`; `SCHEMA_VERSION` changes whenever
a field changes meaning.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = "1.2"

Grade = Literal["accept", "accept-with-review", "reject", "ungradable"]

# The final label of a verdict. The first five are the print gate's labels; `uncovered` and
# `matrix-red` name a patch the drift table would print but another gate rejects; the last four end
# a grade before the gates could judge it.
Label = Literal[
    "tests-authored",
    "UNPRINTABLE",
    "failed",
    "passed",
    "no-op",
    "uncovered",
    "matrix-red",
    "apply-failed",
    "invalid-task",
    "timeout",
    "error",
]

# One test's result as read from a machine-readable report. `missing` means collected but never
# reported: it is an error, never a pass.
Outcome = Literal["passed", "failed", "error", "skipped", "xfailed", "xpassed", "missing"]
# The outcomes of a test that ran, and of one that was skipped (an xfail is a skip that ran).
RAN = ("passed", "failed", "error")
SKIPPED = ("skipped", "xfailed")

Effect = Literal["accept", "review", "reject", "not-applicable", "skipped"]


# Every model of the grader is built when first used, not when its module is imported
# (`defer_build`): building them all costs a command's start 0.07 s, and most commands use few.
# A grade builds the rest beside its test run (`build_models`). Pydantic builds under its own lock,
# so a first use from two threads is safe.
DEFERRED = ConfigDict(extra="forbid", defer_build=True)


class Frozen(BaseModel):
    model_config = ConfigDict(DEFERRED, frozen=True)


class Fact(BaseModel):
    model_config = DEFERRED


def build_models() -> int:
    """Build every model of the grader that is imported and not built yet; how many it built.

    A grade calls it beside its test run, so that the models it reads after the run are ready.
    Parents come before their subclasses, in the order they were defined."""
    built = 0
    todo: list[type[BaseModel]] = [BaseModel]
    while todo:
        cls = todo.pop(0)
        subclasses = [c for c in cls.__subclasses__() if c.__module__.startswith("patchwitness.")]
        for sub in subclasses:
            if not sub.__pydantic_complete__:
                sub.model_rebuild()
                built += 1
        todo.extend(subclasses)
    return built


class Reason(Frozen):
    """Which row of which decision table fired, its effect there, and why, in words and data."""

    gate: str
    row: str
    detail: str
    effect: Effect | None = None


class Finding(Frozen):
    """Something suspicious a gate saw, tied to a place in the patched tree when it can be."""

    gate: str
    kind: str
    message: str
    file: str | None = None
    line: int | None = None


class Fingerprint(Fact):
    """What must be equal for two verdicts to be compared."""

    os: str
    machine: str
    grader: str
    python: str | None = None
    pytest: str | None = None
    pytest_plugins: list[str] = Field(default_factory=list)
    compiler: str | None = None
    gcov: str | None = None
    tools: dict[str, str] = Field(default_factory=dict)
    test_cmd: str
    timeout_s: float
    sandbox: str
    manifests: dict[str, str] = Field(default_factory=dict)
    digest: str = ""
    warnings: list[str] = Field(default_factory=list)


class RunFacts(Fact):
    """One execution of repository code, as the runner saw it."""

    command: str
    returncode: int | None
    timed_out: bool = False
    wall_s: float = 0.0
    cpu_s: float = 0.0
    peak_rss_kb: int = 0
    stdout_tail: str = ""
    stderr_tail: str = ""
    killed_reason: str | None = None
    limits: list[str] = Field(default_factory=list)


class Cases(Fact):
    """The test cases inside the ctest tests of one run, as their frameworks report them
    (outcomes/cases.py). Outcomes stay keyed by ctest test; these say only which cases ran, so
    that a case a filter, a tag or a macro hides inside a passing ctest test is seen to vanish.

    `gtest`: per executable, the GoogleTest cases its XML lists (every case that ran, disabled
    ones under their name without DISABLED_; no case a filter left out). `counted`: per ctest
    test, how many test cases its Catch2 or doctest summary says ran (`framework` names which),
    read from the whole output ctest kept; `uncounted` names the tests whose output it cut short.
    `varied` (the SHA's only): executables and tests whose cases differed between its runs."""

    executables: dict[str, str] = Field(default_factory=dict)  # ctest test -> executable name
    gtest: dict[str, list[str]] = Field(default_factory=dict)
    counted: dict[str, int] = Field(default_factory=dict)
    framework: dict[str, str] = Field(default_factory=dict)
    uncounted: list[str] = Field(default_factory=list)
    varied: list[str] = Field(default_factory=list)


class TestRun(Fact):
    """Per-test outcomes of one run of the task's test command, keyed by each test's stable key
    (what the test is: file, classes, function, parametrize position); `ids` keeps the printed id
    of every test whose key differs from it. `cases`: the cases inside each ctest test (C++)."""

    run: RunFacts
    outcomes: dict[str, Outcome] = Field(default_factory=dict)
    collected: list[str] = Field(default_factory=list)
    ids: dict[str, str] = Field(default_factory=dict)
    report_problems: list[str] = Field(default_factory=list)
    cases: Cases | None = None
    # C++: tests ctest passed by a regular expression over their output alone, and the status
    # each program exits with when run again (a pass the program itself contradicts).
    exits: dict[str, int | None] = Field(default_factory=dict)
    # Python: the exit status the run's own report gives (the probe's last event), to be held
    # against the status the process really exited with.
    reported_exit: int | None = None


class WeakenedTest(Frozen):
    scope: str
    file: str
    removed: list[str]
    added: list[str]


class CensusFacts(Fact):
    before: int = 0
    after: int = 0
    before_assertions: int = 0
    after_assertions: int = 0
    removed: list[str] = Field(default_factory=list)
    added: list[str] = Field(default_factory=list)
    unexpected_removals: list[str] = Field(default_factory=list)
    allowlisted_removals: list[str] = Field(default_factory=list)
    weakened: list[WeakenedTest] = Field(default_factory=list)
    disabled: list[str] = Field(default_factory=list)
    macro_redefinitions: list[str] = Field(default_factory=list)
    infra_edits: list[str] = Field(default_factory=list)
    unreadable: list[str] = Field(default_factory=list)
    test_files_changed: list[str] = Field(default_factory=list)
    artifacts: dict[str, str] = Field(default_factory=dict)


class PristineFacts(Fact):
    """The SHA's own tests over the patched production code."""

    ran: bool = False
    identical_tree: bool = False
    skipped: str = ""
    fail_to_pass: list[str] = Field(default_factory=list)
    pass_to_fail: list[str] = Field(default_factory=list)
    disagreement: list[str] = Field(default_factory=list)


class HiddenFacts(Fact):
    """The hidden tests' run (a task's test_patch.diff, applied by the grader over the patched
    tree), compared with the SHA's outcomes under the same hidden tests. Kept apart from the
    visible run's transitions, which are the patched run's own."""

    files: list[str] = Field(default_factory=list)  # what the hidden test patch touches
    # SHA lines both the patch and the hidden tests change ("path:line"), or files both create.
    conflicts: list[str] = Field(default_factory=list)
    failing_ids: list[str] = Field(default_factory=list)  # FAIL_TO_PASS, as stable keys
    pass_to_pass: list[str] = Field(default_factory=list)
    # pass_to_pass ids red at the SHA with the hidden tests: no patch can break those, so they
    # are left out of the check and named here.
    pass_to_pass_red_at_sha: list[str] = Field(default_factory=list)
    fail_to_pass: list[str] = Field(default_factory=list)
    pass_to_fail: list[str] = Field(default_factory=list)
    still_failing: list[str] = Field(default_factory=list)
    skipped_after: list[str] = Field(default_factory=list)
    # One run carried both: the visible transitions are read outside the hidden files.
    one_run: bool = False
    before: dict[str, Outcome] = Field(default_factory=dict)
    after: dict[str, Outcome] = Field(default_factory=dict)


class DriftFacts(Fact):
    """The print gate's four numbers and everything around them. When a purely additive test edit is
    judged by the pristine run (`judged_by` = "pristine"), the decision reads the pristine
    transitions; the patched run's are kept here beside them."""

    failing_ids: list[str] = Field(default_factory=list)
    fail_to_pass: list[str] = Field(default_factory=list)
    pass_to_fail: list[str] = Field(default_factory=list)
    still_failing: list[str] = Field(default_factory=list)
    tests_removed: list[str] = Field(default_factory=list)
    tests_added: list[str] = Field(default_factory=list)
    # Tests that ran at the SHA and report skipped after the patch.
    skipped_after: list[str] = Field(default_factory=list)
    assertion_delta: int = 0
    weakened: list[str] = Field(default_factory=list)
    skips_added: list[str] = Field(default_factory=list)
    test_hash_changed: bool = False
    test_files_edited: list[str] = Field(default_factory=list)
    infra_files_edited: list[str] = Field(default_factory=list)
    flaky: list[str] = Field(default_factory=list)
    before: dict[str, Outcome] = Field(default_factory=dict)
    after: dict[str, Outcome] = Field(default_factory=dict)
    # Outcomes are keyed by stable key; `ids` keeps the printed id after the patch where it
    # differs, and `unstable_ids` names the tests whose printed id changed between collections.
    ids: dict[str, str] = Field(default_factory=dict)
    unstable_ids: list[str] = Field(default_factory=list)
    test_edit: str = "none"  # none | additive | other
    judged_by: str = "patched"  # patched | pristine
    pristine: PristineFacts = Field(default_factory=PristineFacts)
    hidden: HiddenFacts | None = None


class CoverageFacts(Fact):
    language: str = ""
    # The instrumentation the patched run used (the one the SHA was measured with), and why
    # each richer variant was passed over at the SHA.
    instrumentation: str = ""
    trials: list[str] = Field(default_factory=list)
    flags: list[str] = Field(default_factory=list)
    hunk_lines: dict[str, list[int]] = Field(default_factory=dict)
    test_hunks: dict[str, list[int]] = Field(default_factory=dict)
    scored_executable_lines: int = 0
    zero_hit_lines: list[str] = Field(default_factory=list)
    zero_hit_count: int = 0
    # C++ lines gcov reports nothing for (a case label, an else, a brace, a continuation line),
    # and the line of their statement or block they were scored by: "path:line" -> "path:line".
    mapped: dict[str, str] = Field(default_factory=dict)
    unscored_suspicious: list[str] = Field(default_factory=list)
    pragmas_added: list[str] = Field(default_factory=list)
    one_run: bool = False
    notes: list[str] = Field(default_factory=list)


class Cell(Fact):
    """One (golden, envelope) cell of the flag matrix."""

    patch: str
    golden: str
    envelope: str
    status: Literal[
        "pass",
        "compile_fail",
        "werror_fail",
        "run_fail",
        "sanitizer",
        "digest_mismatch",
        "timeout",
        "missing",
    ]
    required: bool = True
    compile_rc: int | None = None
    compile_stderr_tail: str = ""
    run_rc: int | None = None
    stderr_tail: str = ""
    stdout_sha256: str | None = None
    expected_sha256: str | None = None
    sanitizer_findings: list[dict[str, str]] = Field(default_factory=list)
    peak_rss_kb: int = 0
    cpu_s: float = 0.0
    wall_s: float = 0.0
    compile_command: str = ""
    run_command: str = ""
    cached: bool = False
    # debug, release or sanitizer: which of the seed's patterns a red cell can name.
    envelope_kind: str = ""
    cxxflags: list[str] = Field(default_factory=list)
    mode: str = "goldens"  # goldens (one compile per golden) or cmake (ctest tests per build)
    # The same cell at the SHA, when the patch is judged on transitions.
    baseline_status: str | None = None
    # Where expected_sha256 came from: fixture:PATH (read at the SHA), baseline, or envelopes.
    expected_from: str = ""
    werror_exception: str | None = None
    compile_wall_s: float = 0.0
    cache_key: str = ""  # hash of the real compile inputs; empty when the cell was not cacheable
    headers: list[str] = Field(default_factory=list)  # repository headers the compile included
    note: str = ""  # why a cell is missing, or what else the reader should know


class MatrixFacts(Fact):
    cells: list[Cell] = Field(default_factory=list)
    baseline: list[Cell] = Field(default_factory=list)
    baseline_red: list[str] = Field(default_factory=list)
    transitions: list[str] = Field(default_factory=list)
    resource_findings: list[str] = Field(default_factory=list)
    mode: str = ""
    manifest_sha256: str | None = None
    envelopes: dict[str, list[str]] = Field(default_factory=dict)
    werror_exceptions: dict[str, str] = Field(default_factory=dict)
    missing: list[str] = Field(default_factory=list)
    new_red: list[str] = Field(default_factory=list)
    optional_red: list[str] = Field(default_factory=list)
    # Sanitizer findings of red cells that the SHA's run had already, at the same place once
    # mapped through the patch: "golden@envelope: KIND at PATH:LINE" (gates/matrix.py).
    carried: list[str] = Field(default_factory=list)
    advice: list[str] = Field(default_factory=list)
    tolerance: dict[str, float] = Field(default_factory=dict)


class BuildFacts(Fact):
    configure: RunFacts | None = None
    build: RunFacts | None = None
    compiler_command: str = ""


class GateResult(Fact):
    """A gate's decision: the status from its own table, the row that fired, and its effect."""

    status: str
    row: str
    effect: Effect
    detail: str = ""


class CensusGate(GateResult):
    facts: CensusFacts = Field(default_factory=CensusFacts)


class DriftGate(GateResult):
    facts: DriftFacts = Field(default_factory=DriftFacts)


class CoverageGate(GateResult):
    facts: CoverageFacts = Field(default_factory=CoverageFacts)


class MatrixGate(GateResult):
    facts: MatrixFacts = Field(default_factory=MatrixFacts)


class SpecialFacts(Fact):
    """Added production code that singles out the values the task's failing (or hidden) tests
    use, and whether the hidden run failed the patch that did (it confirmed the finding)."""

    findings: list[Finding] = Field(default_factory=list)
    values_from: list[str] = Field(default_factory=list)  # where the tests' literals were read
    confirmed_by_hidden: list[str] = Field(default_factory=list)  # the hidden tests it failed


class SpecialGate(GateResult):
    facts: SpecialFacts = Field(default_factory=SpecialFacts)


class Decision(Fact):
    """A decision on a line the patch added to production code, and the ways it went in the
    run the failing tests ran in: `went` and `never` name them ("true", "false"; for a C++
    line, its branch outcomes by number). One that went no way never ran."""

    file: str
    line: int
    text: str
    went: list[str] = Field(default_factory=list)
    never: list[str] = Field(default_factory=list)

    @property
    def one_way(self) -> bool:
        return bool(self.went) and bool(self.never)


# A C++ `try`'s two ways: its block completed, or an exception left it for a handler.
COMPLETED, THREW = "its block completed", "its block threw"


# The runs that may kill a mutant, as its `killed_by` names them.
FAILING_TESTS = "the failing tests"
PASSING_TESTS = "the tests that passed with the patch"


class MutantResult(Fact):
    """One mutant of an added production line (mutants.py) and what the tests made of it:
    `killed_by` names the run that failed it (the failing tests, or the tests that passed with
    the patch), "" when it survived both; `ended`: how the deciding run ended."""

    file: str
    line: int
    operator: str
    description: str
    diff: str = ""
    killed_by: str = ""
    ended: str = ""
    # It outlived the failing tests and the cap on longer runs left the others unasked.
    unconfirmed: bool = False

    @property
    def survived(self) -> bool:
        return not self.killed_by and not self.unconfirmed


class PinningFacts(Fact):
    """Whether the tests pin the patch: how many decisions the patch's added production lines
    hold, those that went one way in every test that reached them, and why the decisions were
    not measured (when they were not)."""

    decisions: int = 0
    one_way: list[Decision] = Field(default_factory=list)
    measured: bool = True
    why_not: str = ""
    # The mutants run, those no test killed, how many the patch had before the cap, and why
    # none ran (when none did).
    mutants_run: int = 0
    survivors: list[MutantResult] = Field(default_factory=list)
    mutants_made: int = 0
    mutants_skipped: str = ""
    # Mutants a cap left unknown: never run, or outlived the failing tests and were not run
    # past them.
    mutants_unrun: int = 0
    # Added asserts the failing tests fail without: `python -O` runs the code without them.
    asserts_needed: list[MutantResult] = Field(default_factory=list)


class PinningGate(GateResult):
    facts: PinningFacts = Field(default_factory=PinningFacts)


class Difference(Fact):
    """One call on which the patch and the reference fix disagree: the function, the call as
    made (`varied`: what changed from the tests' own call; empty: the tests' own call), the test
    that made the call it came from, the fields that differ, and what each tree did."""

    target: str
    call: str
    varied: str = ""
    test: str = ""
    fields: list[str] = Field(default_factory=list)
    reference: dict[str, str] = Field(default_factory=dict)
    patch: dict[str, str] = Field(default_factory=dict)


class ReferenceFacts(Fact):
    """The patch beside the task's reference fix (phases/reference.py): the functions either
    changes, the calls the failing tests made into them, how many calls (theirs and their
    neighbours) ran under both trees, those that differ (the smallest first), and those left
    out: the reference disagreed with itself, or the call could not be rebuilt. `skipped`:
    why nothing was compared."""

    targets: list[str] = Field(default_factory=list)
    captured: int = 0
    compared: int = 0
    differing: int = 0  # calls on which they disagree; the first few kept as `differences`
    differences: list[Difference] = Field(default_factory=list)
    nondeterministic: int = 0
    unrunnable: int = 0
    skipped: str = ""
    # Of the calls compared, those that ran a function either fix changes (None: not watched,
    # as for a C++ program or a change no Python function holds).
    reaching: int | None = None
    # The failing tests' neighbours (each with one statement left out) that answered alike
    # twice under the reference, all compared; why none were (phases/neighbours.py).
    neighbours: int = 0
    neighbours_skipped: str = ""
    # The patch changes none of the functions the reference fix changes: its fix is somewhere
    # else, which a comparison that reached no changed function did not follow.
    elsewhere: bool = False


class ReferenceGate(GateResult):
    facts: ReferenceFacts = Field(default_factory=ReferenceFacts)


class SurfaceFacts(Fact):
    """What the patch changed that the grader does not count as a fix: files it cannot classify
    as production source, a test, test infrastructure or documentation (path: why); how the
    patched run was made differently from the SHA's; and the process or interpreter state the
    added production code reads."""

    unrecognised: list[str] = Field(default_factory=list)
    changes: list[str] = Field(default_factory=list)
    # Failing tests that passed in the grader's run and not elsewhere (phases/elsewhere.py).
    elsewhere: list[str] = Field(default_factory=list)
    # Failing tests that passed in the grader's run and do not hold as a user's program
    # (phases/cpp_outside.py).
    outside: list[str] = Field(default_factory=list)
    reads: list[Finding] = Field(default_factory=list)


class SurfaceGate(GateResult):
    facts: SurfaceFacts = Field(default_factory=SurfaceFacts)


class SkippedGate(Fact):
    """A gate that did not run for this grade, and why (an earlier gate already rejected)."""

    gate: str
    why: str


class Gates(Fact):
    census: CensusGate | None = None
    drift: DriftGate | None = None
    coverage: CoverageGate | None = None
    matrix: MatrixGate | None = None
    special: SpecialGate | None = None
    pinning: PinningGate | None = None
    reference: ReferenceGate | None = None
    surface: SurfaceGate | None = None
    build: BuildFacts | None = None
    skipped: list[SkippedGate] = Field(default_factory=list)


class Timings(Fact):
    total_s: float = 0.0
    phases: dict[str, float] = Field(default_factory=dict)


class Verdict(Fact):
    schema_version: str = SCHEMA_VERSION
    task: str
    agent: str
    language: str = ""
    repo_sha: str = ""
    patch_sha256: str
    patch_path: str = ""
    fingerprint: Fingerprint | None = None
    grade: Grade
    label: Label
    # The policy that judged: '' for the default, else its file and digest (rejudge).
    policy: str = ""
    reasons: list[Reason] = Field(default_factory=list)
    findings: list[Finding] = Field(default_factory=list)
    gates: Gates = Field(default_factory=Gates)
    timings: Timings = Field(default_factory=Timings)
    # Every run of repository code this grade made (after, pristine), with the limits in force.
    runs: dict[str, RunFacts] = Field(default_factory=dict)
    started_at: str = ""
    wall_clock_s: float = 0.0


def verdict_schema() -> dict:
    return Verdict.model_json_schema()
