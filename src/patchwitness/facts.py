"""Everything a grade learned by running things: the facts a judge reads. Pure data.

`collect` gathers a `GradeFacts` (workspaces, builds, test runs, coverage, the flag matrix); `judge`
turns it into a `Verdict` without running anything. The facts are stored beside the verdict in a
results database, versioned like it (`FACTS_VERSION`), so a later policy can judge them again
(`patchwitness rejudge`). What a fact holds is what was observed, not what it means: outcomes,
the census diff, line hits as scored, matrix cells; the tables decide.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import Field

from patchwitness.model import (
    BuildFacts,
    Cases,
    Cell,
    CensusFacts,
    CoverageFacts,
    Decision,
    Fact,
    Finding,
    Fingerprint,
    Grade,
    Label,
    MutantResult,
    Outcome,
    ReferenceFacts,
    RunFacts,
    TestRun,
    Timings,
)

FACTS_VERSION = "3"
# Versions this code reads as its own: version 2 only added fields (hidden tests, special-casing)
# whose defaults say what a version 1 grade did not look at; version 3 added what the run showed
# of each hunk line (`CoverageCollected.seen`), which the coverage gate scores where an older
# grade holds the lines as collect scored them, and the task's census allowlist, under which the
# judge reads what the census's removed and added keys mean.
READABLE_FACTS_VERSIONS = ("1", "2", "3")


@dataclass(frozen=True)
class FileLines:
    """What a coverage tool reported for one file: executable lines and their hit counts, and
    the ways its decisions went. `ways` (gcov): per line, its decisions' outcomes as branch
    counts, one list per decision (exception edges left out). `decisions` (the Python line
    probes): (line, expression, bits) per probed decision of the patch's added lines, bit 1 for
    true and bit 2 for false; None when the run did not probe them."""

    hits: dict[int, int] = field(default_factory=dict)
    ways: dict[int, list[list[int]]] = field(default_factory=dict)
    decisions: list[tuple[int, str, int]] | None = None
    # gcov: per line that has exception edges, how many times one was taken (an exception
    # left a call there).
    throws: dict[int, int] = field(default_factory=dict)

    @property
    def executable(self) -> set[int]:
        return set(self.hits)


class TaskFacts(Fact):
    """The task as it was graded (read before the patch was applied)."""

    name: str
    language: str
    repo_sha: str
    mode: str = "benchmark"
    allow_test_edits: bool = False
    failing_ids: list[str] = Field(default_factory=list)  # as failing_nodeids.txt names them
    failing: list[str] = Field(default_factory=list)  # the same tests, as stable keys
    timeout_s: float = 0.0
    # The task's own `[policy] test_additions`, when it sets one (it wins over the policy's).
    test_additions: str | None = None
    # The task's `[policy] special_casing`: review (default) or reject.
    special_casing: str = "review"
    hidden: bool = False  # the task carries hidden tests (test_patch.diff)
    # The census keys the task lets a patch remove (its allowlist); None in a grade of facts
    # version 1 or 2, whose census facts hold what the removals meant as collect read them.
    allowlist: list[str] | None = None


class ChangedFile(Fact):
    """One file of the patch and the class the grader gave it."""

    path: str
    kind: str  # production | test | infra | grader
    why: str = ""
    status: str = "modified"


class BaselineFacts(Fact):
    """The SHA, as the patched run is compared with it."""

    key: str = ""
    # Outcomes at the SHA under the instrumentation the patched run used (the plain run's when
    # it was plain), and the plain ones, which the pristine run is compared with.
    outcomes: dict[str, Outcome] = Field(default_factory=dict)
    plain_outcomes: dict[str, Outcome] = Field(default_factory=dict)
    ids: dict[str, str] = Field(default_factory=dict)
    flaky: list[str] = Field(default_factory=list)
    unstable_ids: list[str] = Field(default_factory=list)
    runs: int = 1
    # The cases inside each ctest test at the SHA, under the patched run's instrumentation (C++;
    # None: not recorded, only ctest tests are compared).
    cases: Cases | None = None


class SuiteFacts(Fact):
    """One run of the task's suite over a tree (the patched one, or the pristine one)."""

    run: TestRun
    started: bool = True
    timed_out: bool = False
    build_failed: bool = False
    build: BuildFacts | None = None
    tamper: list[str] = Field(default_factory=list)

    @property
    def outcomes(self) -> dict[str, Outcome]:
        return self.run.outcomes


class PristineCollected(Fact):
    """The SHA's own tests over the patched production code, or why that run was not made."""

    run: SuiteFacts | None = None
    skipped: str = ""


class ElsewhereCollected(Fact):
    """The failing tests once more, in surroundings a user's run could have (phases/elsewhere.py):
    what differed from the grader's run, and how each failing test ended there."""

    surroundings: list[str] = Field(default_factory=list)
    outcomes: dict[str, Outcome] = Field(default_factory=dict)
    # The failing tests that passed in the grader's run and not here.
    differ: list[str] = Field(default_factory=list)
    run: RunFacts | None = None
    skipped: str = ""
    # The run started beside the grader's, asking every failing test before it was known which
    # of them passed there (phases/elsewhere.py `start_early`).
    beside: bool = False


class OutsideCollected(Fact):
    """The failing GoogleTest cases' own bodies as a user's program, outside the harness
    (phases/cpp_outside.py): what was built and where it ran, how each case ended ("held", or
    its first assertion that did not hold), and the cases whose body did not build there."""

    program: str = ""
    cases: dict[str, str] = Field(default_factory=dict)
    failed: dict[str, str] = Field(default_factory=dict)
    dropped: list[str] = Field(default_factory=list)
    skipped: str = ""


class LineSeen(Fact):
    """One line of a production hunk as the run's coverage data shows it (hits/hunk.py)."""

    line: int
    # Its own hit count; None when the data holds no entry for it.
    hits: int | None = None
    # Its text is code (not a comment, a blank or a brace), and (C++) a statement that must
    # have produced code if anything ran it.
    code: bool = True
    statement: bool = False
    # A neighbour of a hole the patch left, not a line it added.
    hole: bool = False
    # C++, no entry of its own: the line gcov reports for its statement or block, and its count;
    # or nothing to score there (`no_code`); or a block that produced no line data where code
    # was expected (`suspicious`).
    by: int | None = None
    by_hits: int = 0
    no_code: bool = False
    suspicious: bool = False


class FileSeen(Fact):
    """The lines of one patched production source as the run's coverage data shows them;
    `data`: whether the data holds the file at all."""

    path: str
    data: bool = True
    lines: list[LineSeen] = Field(default_factory=list)


class CoverageCollected(Fact):
    """Coverage on the hunk as measured. `seen` is what the run showed of each hunk line, which
    the coverage gate scores; `facts` holds what the measurement was (the instrumentation, its
    notes, the test hunks). A grade of facts version 1 or 2 has no `seen`: its `facts` hold the
    lines as collect scored them then."""

    touches_source: bool = True
    measurable: bool = True
    data_found: bool = True
    why_no_data: str = ""
    # The run left data and the coverage tool failed on it (its message): not measurable.
    tool_failure: str = ""
    facts: CoverageFacts = Field(default_factory=CoverageFacts)
    seen: list[FileSeen] | None = None


class PinningCollected(Fact):
    """Whether the tests pin the patch: the decisions of its added production lines and the
    ways each went (or why they were not measured)."""

    decisions: list[Decision] = Field(default_factory=list)
    measured: bool = True
    why_not: str = ""


class MutantsCollected(Fact):
    """The mutants of the patch's added production lines, run against the tests (phases/
    mutants.py): each one's result, how many there were before the cap, or why none ran."""

    mutants: list[MutantResult] = Field(default_factory=list)
    made: int = 0
    cap: int = 0
    skipped: str = ""
    # Why mutants that were made could not run (a schema the compiler refuses): they are not
    # known, and the pinning gate never counts them as pinned.
    refused: str = ""
    # Whether the failing tests' runs over each mutant collected only their own files (a Python
    # task's, when the failing tests passed so over the unmutated patch: phases/mutants.py).
    narrowed: bool = False
    # Whether the failing tests' runs over the Python mutants ran beside the patched run, in a
    # fresh checkout of the patched tree (phases/mutants.py `start_early`).
    beside: bool = False


class MovedLines(Fact):
    """How one file's lines moved between the SHA and the patched text: its path at the SHA (None
    when the patch created it), the SHA's lines the patch removed and the patched lines it added.
    linemap.sha_line maps a patched line to the SHA's with it."""

    sha_path: str | None
    removed: list[int] = Field(default_factory=list)
    added: list[int] = Field(default_factory=list)


class MatrixCollected(Fact):
    """The flag matrix's cells at the SHA and after the patch, with the manifest's facts. `moved`
    is the patch's line map per patched path, by which the gate tells a sanitizer finding the SHA
    had already from a new one (None: not recorded, every finding of a red cell counts)."""

    cells: list[Cell] = Field(default_factory=list)
    baseline: list[Cell] = Field(default_factory=list)
    moved: dict[str, MovedLines] | None = None
    resources: dict[str, float] = Field(default_factory=dict)
    targets: list[str] = Field(default_factory=list)
    mode: str = ""
    manifest_sha256: str | None = None
    envelopes: dict[str, list[str]] = Field(default_factory=dict)
    werror_exceptions: dict[str, str] = Field(default_factory=dict)


class HiddenCollected(Fact):
    """The hidden tests: the SHA's outcomes with them, and the run over the patched tree with
    them applied (or why it was not made: the patch conflicts with them)."""

    files: list[str] = Field(default_factory=list)
    conflicts: list[str] = Field(default_factory=list)
    baseline: dict[str, Outcome] = Field(default_factory=dict)
    failing: list[str] = Field(default_factory=list)
    pass_to_pass: list[str] = Field(default_factory=list)
    pass_to_pass_red_at_sha: list[str] = Field(default_factory=list)
    run: SuiteFacts | None = None
    one_run: bool = False
    skipped: str = ""


class Stop(Fact):
    """A grade that ended before any gate could judge: the patch did not apply, the task is
    invalid, the test run at the SHA never finished."""

    label: Label
    grade: Grade
    detail: str
    row: str = ""  # the reason's row when it is not the label (unreadable-patch)


class GradeFacts(Fact):
    facts_version: str = FACTS_VERSION
    task: TaskFacts
    agent: str
    patch_sha256: str
    patch_path: str = ""
    fingerprint: Fingerprint | None = None
    stop: Stop | None = None
    files: list[ChangedFile] = Field(default_factory=list)
    baseline: BaselineFacts = Field(default_factory=BaselineFacts)
    after: SuiteFacts | None = None
    pristine: PristineCollected = Field(default_factory=PristineCollected)
    elsewhere: ElsewhereCollected | None = None
    outside: OutsideCollected | None = None  # C++: the failing tests as a user's program
    census: CensusFacts = Field(default_factory=CensusFacts)
    # Whether the test edit (if any) only adds new tests: none | additive | other, and why not.
    test_edit: str = "none"
    test_edit_why: str = ""
    findings: list[Finding] = Field(default_factory=list)
    coverage: CoverageCollected | None = None
    pinning: PinningCollected | None = None
    mutants: MutantsCollected | None = None
    # The patch beside the task's reference fix (None: the task has none, or not asked for).
    reference: ReferenceFacts | None = None
    matrix: MatrixCollected | None = None
    hidden: HiddenCollected | None = None
    # Where the special-casing detector read the tests' literal values ([] when it had none).
    special_values_from: list[str] = Field(default_factory=list)
    # Gates collect did not run (an earlier gate had rejected): gate -> why.
    skipped: dict[str, str] = Field(default_factory=dict)
    runs: dict[str, RunFacts] = Field(default_factory=dict)
    timings: Timings = Field(default_factory=Timings)
    started_at: str = ""
