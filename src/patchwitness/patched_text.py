"""What a grade reads from the patched text alone, while the tests run.

    texts = read_patched(patch, classes, ws.repo)   # after `git apply`, before any run
    reading = pool.submit(analyse, Reading(task, patch, classes, texts, base, failing, ...))
    ...the suite runs...
    found = reading.result()

The gaming findings (suspicious.py), the special-casing findings (special.py) and the statements
the line probes are scored against need only the patch, the SHA's object store and the patched
production files' text. They cost a tenth of a second or more on a real file, as much as a tenth
of a one-second suite, so they run in a thread while the suite runs in its child process.

The text is read once, before the run starts: code under grade may rewrite its own tree while it
runs, and nothing here looks at the tree after that.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from patchwitness import (
    cpp_reads,
    languages,
    layout,
    preprocessor,
    python_ast,
    reads,
    sourcefiles,
    special,
)
from patchwitness.census.cpp_lexer import as_read
from patchwitness.classify import PRODUCTION, Classified
from patchwitness.gates.surface import UNREADABLE_SOURCE
from patchwitness.model import Finding
from patchwitness.names import GateName
from patchwitness.patch import Patch
from patchwitness.suspicious import cpp_findings, python_findings
from patchwitness.workspace import as_text, safe_read, show_at

if TYPE_CHECKING:
    from coverage.python import PythonParser

    from patchwitness.baseline import Baseline
    from patchwitness.task import Task


@dataclass(frozen=True)
class Reading:
    """Everything the analyses read: no path into the patched tree among it."""

    task: Task
    patch: Patch
    classes: dict[str, Classified]
    texts: dict[str, str | None]  # patched production file -> its text after the patch
    base: Baseline
    failing: list[str]
    hidden_patch: Patch | None = None
    for_coverage: bool = False  # parse the patched Python files for the coverage gate
    # What the test harness has that a user's run does not (reads.py), and the top-level names
    # of the project's own packages (whose attributes it may set).
    harness: reads.Harness = field(default_factory=reads.Harness)
    own: frozenset[str] = frozenset()
    # C++: how the tests' build differs from a user's (cpp_reads.Builds).
    builds: cpp_reads.Builds | None = None
    _at_sha: dict[str, str | None] = field(default_factory=dict, repr=False)

    def at_sha(self, path: str) -> str | None:
        """`path` as the SHA has it (None: no such file), read from git once per grade."""
        if path not in self._at_sha:
            self._at_sha[path] = as_text(show_at(self.task.repo, self.task.sha, path))
        return self._at_sha[path]


@dataclass
class TextFacts:
    # Patched production file -> its text before the run (the coverage gate scores this text).
    texts: dict[str, str | None] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    special_values_from: list[str] = field(default_factory=list)
    # Patched production Python file -> coverage.py's parse of its text (None: unparsable).
    statements: dict[str, PythonParser | None] = field(default_factory=dict)
    # Changed production files whose program the patch left as it was (layout.py).
    layout_only: list[str] = field(default_factory=list)

    def changed_programs(self) -> dict[str, str | None]:
        """The texts of the patched production files whose program the patch changed: the
        lines a mutant may change (a reformatted file's lines are none of the patch's)."""
        return {p: t for p, t in self.texts.items() if p not in self.layout_only}


def read_patched(patch: Patch, classes: dict[str, Classified], tree: Path) -> dict[str, str | None]:
    """The text of every production file the patch added to or changed (None: gone or not a
    file inside the tree)."""
    return {
        change.path: as_text(safe_read(tree, change.path))
        for change in patch.files
        if classes[change.path].kind == PRODUCTION and change.status != "removed"
    }


def analyse(reading: Reading) -> TextFacts:
    found = TextFacts(texts=reading.texts, findings=production_findings(reading))
    values, found.special_values_from = test_values(
        reading.task, reading.base, reading.failing, reading.hidden_patch
    )
    found.findings += special_findings(reading, values)
    found.layout_only = [
        change.path
        for change in reading.patch.files
        if change.status == "modified"
        and change.path in reading.texts
        and layout.same_program(
            change.path, reading.at_sha(change.path), reading.texts[change.path]
        )
    ]
    if reading.for_coverage:
        from patchwitness.hits.python import parse_statements

        found.statements = {
            path: parse_statements(text) if text is not None else None
            for path, text in reading.texts.items()
            if path.endswith(".py")
        }
    return found


def production_findings(reading: Reading) -> list[Finding]:
    """Gaming patterns in the lines the patch added to production code."""
    out: list[Finding] = []
    macros = patch_macros(reading)
    for change in reading.patch.files:
        if reading.classes[change.path].kind != PRODUCTION or not change.added:
            continue
        added, removed = list(change.added), list(change.removed)
        text = reading.texts.get(change.path)
        lines = set(change.added_lines)
        if change.path.endswith(".py"):
            out += unparsed(reading, change.path, text)
            out += python_findings(change.path, text, added, removed)
            before = reading.at_sha(change.path)
            out += reads.findings(change.path, text, lines, reading.harness, reading.own, before)
        else:
            # A C++ task's sources and a Python task's compiled extension; and every other
            # production file, read as C and C++ too: a package's data file may be what the
            # extension #includes, and what the grader cannot place is read, not trusted.
            # Read as the compiler reads it: spliced lines joined, digraphs as punctuators.
            read = as_read(text) if text is not None else None
            out += cpp_findings(change.path, added, removed, as_compiled_lines(read, added))
            if reading.builds is not None:
                out += cpp_reads.findings(change.path, read, lines, reading.builds, macros)
    return out


def as_compiled_lines(read: str | None, added: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """The added lines as the compiler reads them (`cpp_lexer.as_read` of the whole text): a
    line spliced from several shows them all on its first, a comment is gone."""
    if read is None:
        return added
    lines = read.split("\n")
    return [(n, lines[n - 1] + "\n" if 0 < n <= len(lines) else t) for n, t in added]


def patch_macros(reading: Reading) -> dict[str, preprocessor.Macro]:
    """The macros every C or C++ production file of the patch defines: a header may define
    what another file of the patch uses (`#define X(n) get ## env(n)` in one, `X("V")` in the
    other)."""
    out: dict[str, preprocessor.Macro] = {}
    for change in reading.patch.files:
        text = reading.texts.get(change.path)
        if text is None or change.path.endswith(".py"):
            continue
        if reading.classes[change.path].kind == PRODUCTION:
            out.update(preprocessor.macros(as_read(text)))
    return out


def unparsed(reading: Reading, path: str, text: str | None) -> list[Finding]:
    """A production module the grader cannot parse after the patch, though it could at the SHA:
    what it would have read there is unknown, so nothing it did not find is evidence (the
    surface gate counts it as a file it does not understand)."""
    if text is None:
        return []
    try:
        python_ast.parse(text, filename=path)
        return []
    except (SyntaxError, ValueError) as exc:
        error = exc
    before = reading.at_sha(path)
    if before is not None:
        try:
            python_ast.parse(before, filename=path)
        except (SyntaxError, ValueError):
            return []  # this grader cannot read the project's syntax at all: not the patch's doing
    line = getattr(error, "lineno", None)
    said = f"the grader cannot parse it after the patch ({type(error).__name__}: {error})"
    return [
        Finding(gate=GateName.SURFACE, kind=UNREADABLE_SOURCE, file=path, line=line, message=said)
    ]


def test_values(
    task: Task, base: Baseline, failing: list[str], hidden_patch: Patch | None
) -> tuple[set[object], list[str]]:
    """The literal values of the tests the task names as failing (their source at the SHA) and
    of the hidden tests' added lines, with where each set was read."""
    values: set[object] = set()
    sources: list[str] = []
    texts: dict[str, str] = {}

    def read(path: str) -> str:
        if path not in texts:
            texts[path] = as_text(show_at(task.repo, task.sha, path)) or ""
        return texts[path]

    language = languages.of(task)
    for key in failing:
        source = language.failing_test_source(task, base, key, read)
        found = special.literals_of(language.literal_suffix, source)
        if found:
            values |= found
            sources.append(key)
    if hidden_patch is not None:
        found, where = special.hidden_test_values(hidden_patch)
        values |= found
        sources += where
    return values, sources


def special_findings(reading: Reading, values: set[object]) -> list[Finding]:
    """Added production lines that single out the tests' values. A value the file already held
    at the SHA is the code's own vocabulary, not something learnt from the tests."""
    if not values:
        return []
    task = reading.task
    out: list[Finding] = []
    for change in reading.patch.files:
        if reading.classes[change.path].kind != PRODUCTION or not change.added:
            continue
        before = reading.at_sha(change.path) or ""
        fresh = values - special.literals_of(change.path, before)
        if change.path.endswith(".py"):
            text = reading.texts.get(change.path) or ""
            out += special.python_findings(change.path, text, set(change.added_lines), fresh)
        elif languages.of(task).production_is_cpp or sourcefiles.is_cpp(change.path, None):
            out += special.cpp_findings(change.path, list(change.added), fresh)
    return out
