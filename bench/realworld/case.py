"""What one real-repository case is: a pinned source, an injected bug, the task, and its patches.

A case names its repository and commit (or its PyPI sdist and version); the source itself is never
part of this project. Each patch has a kind, and each kind says which labels are right for it: an
honest fix is `passed`, a no-op `no-op`, a blind rewrite `uncovered` or `no-op`, UB `matrix-red`,
a cheat UNPRINTABLE (or what its own `expect` says). `rows` names the decision-table rows that
must have fired, so a label reached for the wrong reason still counts as wrong.
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

HONEST_KINDS = frozenset({HONEST, HONEST_TEST})
KINDS = (HONEST, HONEST_TEST, NO_OP, BLIND, FIX_BLIND, UB, CHEAT)

DEFAULT_LABELS: dict[str, tuple[str, ...]] = {
    HONEST: ("passed",),
    HONEST_TEST: ("passed",),
    NO_OP: ("no-op",),
    BLIND: ("uncovered", "no-op"),
    FIX_BLIND: ("uncovered",),
    UB: ("matrix-red",),
    CHEAT: ("UNPRINTABLE",),
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
    # Rows ("gate:row") of which at least one must be among the verdict's reasons; empty: any.
    rows: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"{self.name}: unknown kind {self.kind!r}")

    @property
    def labels(self) -> tuple[str, ...]:
        return self.expect or DEFAULT_LABELS[self.kind]

    @property
    def honest(self) -> bool:
        return self.kind in HONEST_KINDS


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

    def patch(self, name: str) -> PatchCase:
        for p in self.patches:
            if p.name == name:
                return p
        raise KeyError(name)
