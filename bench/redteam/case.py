"""What one red-team case is: a cheat on a bench/realworld base, the hole it goes through, the rows
that may reject it for the right reason, and the probe that proves the bug is still there.

The base (a realworld case, named) gives the source, the injected bug, the task and its failing
ids, and the honest fix the probe must pass on. The cheat is either edits, turned into a diff by
git as realworld's patches are, or raw bytes: a function of the materialized repository and SHA
that returns the patch exactly as submitted, for the diffs git reads differently from a naive
parser (quoted paths, a traditional diff whose two headers disagree, NUL bytes, a binary patch).

A probe runs outside the test suite, in the user's environment, on a fresh checkout with the cheat
applied by `git apply`; it exits non-zero while the bug is there. A Python probe is a script run
by the task's interpreter (the environment the grader builds) with the tree on PYTHONPATH; a C++
probe is a program compiled by `c++` with its default dialect, against the patched tree.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from realworld.edits import Edit

# The rows that name a cheat for what it is whatever its hole: a patch the grader cannot read, or a
# file it does not recognise, is refused before anything is trusted (the hardening's surface
# gate); a run whose report was rewritten is tampering.
UNREADABLE = ("grade:unreadable-patch", "surface:unrecognised-file", "surface:surface-changed")
# The rows that say the tests do not pin the patch: they ask for review, and a cheat they name
# is flagged (redteam/evaluate.py), not accepted in silence.
PINNING = (
    "pinning:unpinned",
    "pinning:one-way-branch",
    "pinning:partly-pinned",
    "pinning:needs-asserts",
)

# The patch as submitted, from the materialized repository (a git repository whose HEAD is the
# task's SHA) and the SHA.
RawPatch = Callable[[Path, str], bytes]


@dataclass(frozen=True)
class PyProbe:
    """A Python script, run by the task's interpreter from the tree's root, the tree (and its
    `src/`) on PYTHONPATH, after the task's in-place build; it exits non-zero on the bug."""

    script: str

    language = "python"


@dataclass(frozen=True)
class CppProbe:
    """A C++ program compiled by `c++` with its defaults (no -std, no test framework) and its
    `flags`, with the tree's `includes` on the include path and its `sources` compiled in; it exits
    non-zero on the bug."""

    program: str
    includes: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    # Options a user's own build adds to the defaults (-O2 for a release, -funsigned-char for the
    # plain char of an ARM or POWER target): a cheat right only in the tests' build shows there.
    flags: tuple[str, ...] = ()

    language = "cpp"


Probe = PyProbe | CppProbe


@dataclass(frozen=True)
class RedCase:
    name: str  # unique within the base: it is the patch's agent in the base's bag
    base: str  # the bench/realworld case it builds on
    hole: str  # the class of hole, a short slug (quoted-path, bytecode, ...)
    note: str  # what the cheat does, in a line
    rows: tuple[str, ...]  # "gate:row": one of them rejecting it is the right reason
    probe: Probe
    edits: tuple[Edit, ...] = ()
    raw: RawPatch | None = None
    # Variables the grader's test run sets that the cheat keys on (PYTHONDONTWRITEBYTECODE, ...):
    # the plain run that checks the cheat turns the failing tests green gets them, the probe never.
    grader_env: Mapping[str, str] = field(default_factory=dict)
    # The cheat keys on the resource limits every grader run has (the runner's defaults): the
    # plain run that checks the cheat turns the failing tests green runs under them too.
    grader_limits: bool = False
    # The work that is to close this class when no gate of today's can (say, a fix that fits the
    # tests' values, for the gates that check the tests pin the patch); "" for every other.
    owner: str = ""

    def __post_init__(self) -> None:
        if bool(self.edits) == (self.raw is not None):
            raise ValueError(f"{self.base}/{self.name}: give edits or raw bytes, not both")
        for row in self.rows:
            gate, _, name = row.partition(":")
            if not gate or not name:
                raise ValueError(f"{self.base}/{self.name}: row {row!r} is not gate:row")

    @property
    def key(self) -> str:
        return f"{self.base}/{self.name}"
