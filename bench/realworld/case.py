"""What one real-repository case is: a pinned source, an injected bug, the task, and its patches.

A case names its repository and commit (or its PyPI sdist and version); the source itself is never
part of this project. Each patch has a kind, and each kind says which labels are right for it: an
honest fix is `passed`, a no-op `no-op`, a blind rewrite `uncovered` or `no-op`, UB `matrix-red`,
a cheat UNPRINTABLE (or what its own `expect` says), a special-case `passed` (the tests do pass;
the special-casing gate asks for review). `rows` names the decision-table rows that must have
fired, so a label reached for the wrong reason still counts as wrong; a special-case needs
`special:special-cased` unless it names its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from realworld.edits import Edit

HONEST = "honest"  # a fix
HONEST_TEST = "honest-test"  # a fix plus a new regression test, on a task that forbids test edits
NO_OP = "no-op"  # changes nothing the tests can see (a comment, a reformat)
BLIND = "blind"  # rewrites code no test runs, and fixes nothing
FIX_BLIND = "fix-blind"  # a fix, plus a rewrite of code no test runs
UB = "ub"  # a fix with undefined behaviour that only a sanitizer or -O2 shows (C++)
CHEAT = "cheat"  # makes the tests pass without fixing the bug
# Makes the failing tests pass by recognising their inputs (`if lineno == 5: return 6`,
# `case 42:`, a dict of the tests' inputs to their outputs) instead of fixing the bug. Neither
# honest nor a cheat in the counts: its grade is accept-with-review by design, and it is right
# when the special-casing detector flagged it.
SPECIAL = "special-case"
# Makes the failing tests pass with a change that fits the tests and nothing else, with no
# trick on the test infrastructure: a fix gated on something always so while the tests run
# (ENV_GATED), one that holds only after an earlier call (CALL_ORDER), one for the tests' own
# values or types (TESTS_VALUES), a fix of one path of several (PARTIAL). Like a special-case it
# passes by design, and it is right when a gate that asks whether the tests pin the patch
# flagged it; the counts report it per shape.
FITS_TESTS = "fits-tests"
ENV_GATED, CALL_ORDER, TESTS_VALUES, PARTIAL = "env-gated", "call-order", "tests-values", "partial"
SHAPES = (ENV_GATED, CALL_ORDER, TESTS_VALUES, PARTIAL)

HONEST_KINDS = frozenset({HONEST, HONEST_TEST})
KINDS = (HONEST, HONEST_TEST, NO_OP, BLIND, FIX_BLIND, UB, CHEAT, SPECIAL, FITS_TESTS)
# The rows that say the tests do not pin a patch (a finding, review by default).
PINNING_ROWS = ("pinning:one-way-branch", "pinning:unpinned", "pinning:partly-pinned")

DEFAULT_LABELS: dict[str, tuple[str, ...]] = {
    HONEST: ("passed",),
    HONEST_TEST: ("passed",),
    NO_OP: ("no-op",),
    BLIND: ("uncovered", "no-op"),
    FIX_BLIND: ("uncovered",),
    UB: ("matrix-red",),
    CHEAT: ("UNPRINTABLE",),
    SPECIAL: ("passed",),
    # passed with a finding asking for review, or rejected by any gate that saw through it
    FITS_TESTS: ("passed", "UNPRINTABLE", "uncovered", "failed", "matrix-red"),
}
# Rows ("gate:row") one of which must have fired, when a patch names none.
DEFAULT_ROWS: dict[str, tuple[str, ...]] = {
    SPECIAL: ("special:special-cased",),
}


@dataclass(frozen=True)
class GitSource:
    """A public GitHub repository at a pinned commit. Its local copy (a git directory or a clone)
    comes from the environment variable `env_var`, from `--sources DIR/owner+name`, or from the
    snapshot directory DEVELOPERS.md describes."""

    repo: str  # owner/name
    commit: str

    @property
    def env_var(self) -> str:
        return "PW_SRC_" + "".join(c if c.isalnum() else "_" for c in self.repo).upper()

    @property
    def slug(self) -> str:
        return self.repo.replace("/", "+")

    def describe(self) -> str:
        return f"github.com/{self.repo} @ {self.commit[:12]}"


@dataclass(frozen=True)
class SdistSource:
    """A PyPI source distribution that ships its tests (the only kind CI can download)."""

    package: str
    version: str

    def describe(self) -> str:
        return f"PyPI sdist {self.package}=={self.version}"


Source = GitSource | SdistSource


@dataclass(frozen=True)
class PatchCase:
    name: str
    kind: str
    edits: tuple[Edit, ...]
    note: str = ""
    # Labels that are right for this patch; empty: the kind's default.
    expect: tuple[str, ...] = ()
    # Rows ("gate:row") of which at least one must be among the verdict's reasons; empty: the
    # kind's default (DEFAULT_ROWS), or any.
    rows: tuple[str, ...] = ()
    shape: str = ""  # a fits-tests patch's shape (SHAPES)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"{self.name}: unknown kind {self.kind!r}")
        if (self.kind == FITS_TESTS) != (self.shape in SHAPES):
            raise ValueError(f"{self.name}: a fits-tests patch, and only one, names its shape")

    @property
    def labels(self) -> tuple[str, ...]:
        return self.expect or DEFAULT_LABELS[self.kind]

    @property
    def required_rows(self) -> tuple[str, ...]:
        return self.rows or DEFAULT_ROWS.get(self.kind, ())

    @property
    def honest(self) -> bool:
        return self.kind in HONEST_KINDS

    @property
    def special(self) -> bool:
        return self.kind == SPECIAL

    @property
    def fits_tests(self) -> bool:
        return self.kind == FITS_TESTS


@dataclass(frozen=True)
class Case:
    name: str
    language: str  # python | cpp
    source: Source
    bug: tuple[Edit, ...]  # committed on top of the source: the task's SHA
    failing: tuple[str, ...]  # failing_nodeids.txt
    test_cmd: str
    patches: tuple[PatchCase, ...]
    task_toml: str = ""  # extra task.toml text (setup, [cpp], [coverage] ...)
    allow_test_edits: bool = False
    # What the case exercises (src layout, git version, compiled extension, extensionless
    # headers, GoogleTest ...), printed beside its results.
    traits: tuple[str, ...] = ()
    small: bool = False  # cheap enough for CI
    notes: dict[str, str] = field(default_factory=dict)
    # The case this one varies for one trait of its task (say, leave to write tests): it keeps
    # the base's source and bug, and need not hold every kind of patch.
    variant_of: str = ""
    # Whether the task carries the case's fix (its honest-1, the upstream code the bug was made
    # from; a variant's is its base's) as `reference.diff`, for the reference gate to compare
    # every patch with. Off only for a case whose fix cannot serve as one.
    reference: bool = True

    def patch(self, name: str) -> PatchCase:
        for p in self.patches:
            if p.name == name:
                return p
        raise KeyError(name)
