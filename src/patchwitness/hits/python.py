"""Python line hits with coverage.py, subprocesses included.

The run under grade gets a `sitecustomize` (on PYTHONPATH, outside the worktree) that starts
coverage in every Python process it spawns, configured by an rc file the grader writes: the
repository's own .coveragerc never applies, and no line is excluded, so an exclusion pragma the
patch adds changes nothing. Data files are combined and analysed here, after the run.

A patched run traces only the files whose hits the gate reads (`include`): coverage.py decides
per code object whether to trace, so every other frame runs at nearly its plain speed. Each
process that started coverage leaves a mark, so a run in which no traced file was ever imported
(no data file at all) is told apart from a run coverage never started in.
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import coverage
from coverage.python import PythonParser

from patchwitness import python_ast
from patchwitness.facts import FileLines
from patchwitness.hits import Hits
from patchwitness.runner import Runner

# coverage joins exclusion regexes with "|"; this one cannot match a line of source.
NEVER = r"(?!x)x"

SITECUSTOMIZE = """\
# patchwitness: measure every Python process of the run under grade.
try:
    import os

    import coverage

    if coverage.process_startup() is not None:
        open(os.path.join(os.environ["PW_COVERAGE_MARKS"], str(os.getpid())), "w").close()
except Exception:
    pass
"""


PROBES_SITECUSTOMIZE = """\
# patchwitness: line probes in the listed files of every Python process of the run under grade.
try:
    import os

    import pw_lines

    pw_lines.install(os.environ["PW_LINES"])
    open(os.path.join(os.environ["PW_COVERAGE_MARKS"], str(os.getpid())), "w").close()
except Exception:
    pass
"""
# Hit files hold a byte per line; room for a source that grows during the run.
HIT_FILE_SLACK = 4096


# The variables an instrumented run gets (Instrumentation.env), by name.
VARIABLES = frozenset({"PW_LINES", "PW_COVERAGE_MARKS", "COVERAGE_PROCESS_START"})


@dataclass(frozen=True)
class Instrumentation:
    directory: Path
    rcfile: Path
    site: Path
    # The run's compiled extension was built with gcov's flags in `tree`: its C and C++ hits
    # are read with gcovr from there.
    gcov: bool = False
    tree: Path | None = None
    # Line probes: repository path -> its hit file (coverage.py when None).
    probes: dict[str, Path] | None = field(default=None, hash=False)
    # Decision probes: repository path -> its decision file (None: its added lines hold no
    # decision) and the added lines they watch.
    decisions: dict[str, tuple[Path | None, tuple[int, ...]]] = field(
        default_factory=dict, hash=False
    )

    def env(self) -> dict[str, str]:
        marks = {"PW_COVERAGE_MARKS": str(self.directory / "marks")}
        if self.probes is not None:  # `rcfile` is then the list of probed files
            return {"PW_LINES": str(self.rcfile), **marks}
        return {"COVERAGE_PROCESS_START": str(self.rcfile), **marks}

    def path(self) -> list[str]:
        return [str(self.site)]

    def readable(self) -> list[Path]:
        if self.probes is not None:
            return [self.site]
        return [self.site, Path(coverage.__file__).resolve().parent]

    def read_hits(
        self,
        tree: Path,
        scratch: Path,
        wanted: list[str],
        runner: Runner,
        statements: Mapping[str, PythonParser | None] | None,
    ) -> Hits:
        """coverage.py's data (or the line probes' hit files) for the Python files, and gcovr's
        reading of the compiled extension's for the C and C++ ones."""
        from patchwitness.hits import gcovr

        py = [w for w in wanted if w.endswith(".py")]
        native = [w for w in wanted if not w.endswith(".py")]
        hits: dict[str, FileLines] = {}
        if py:
            found = read_hits(self, tree, py, statements)
            if found is None:
                return Hits(None, "coverage.py wrote no data")
            hits.update(found)
        if native and self.gcov:
            # The compiled extension, built with gcov's flags in the worktree itself.
            read = gcovr.run_gcovr(tree, tree, scratch, runner)
            if read.report is None:
                return Hits(None, read.why, read.tool_failed)
            hits.update(gcovr.hits_from_json(read.report))
        return Hits(hits)

    def unmeasured(self, wanted: list[str]) -> list[str]:
        return script_runs(self, wanted)


def instrument_probes(
    scratch: Path,
    tree: Path,
    files: list[str],
    gcov: bool = False,
    decide: Mapping[str, tuple[int, ...]] | None = None,
) -> Instrumentation:
    """Line probes in `files` (repository paths of Python sources) of a run over `tree`; with
    `gcov`, the run's compiled extension was built with gcov's flags in `tree`. `decide`: per
    file, the added lines whose decisions are probed too."""
    directory = scratch / "coverage"
    site = directory / "site"
    hits_dir = directory / "hits"
    for made in (site, hits_dir, directory / "marks"):
        made.mkdir(parents=True, exist_ok=True)
    (site / "sitecustomize.py").write_text(PROBES_SITECUSTOMIZE)
    probes: dict[str, Path] = {}
    decisions: dict[str, tuple[Path | None, tuple[int, ...]]] = {}
    listing: list[str] = []
    for rel in files:
        source = tree / rel
        try:
            text = source.read_bytes()
        except OSError:
            continue
        hit_file = hits_dir / hashlib.sha256(rel.encode()).hexdigest()[:24]
        hit_file.write_bytes(bytes(text.count(b"\n") + 2 + HIT_FILE_SLACK))
        probes[rel] = hit_file
        entry = f"{source}\t{hit_file}"
        added = tuple((decide or {}).get(rel, ()))
        count = len(decisions_on(text, added)) if added else 0
        if added and not count:
            decisions[rel] = (None, added)
        if count:
            decision_file = hit_file.with_suffix(".decisions")
            decision_file.write_bytes(bytes(count + 1))
            decisions[rel] = (decision_file, added)
            entry += f"\t{decision_file}\t{','.join(map(str, added))}"
        listing.append(entry + "\n")
    listing_file = directory / "probes.list"
    listing_file.write_text("".join(listing), encoding="utf-8")
    return Instrumentation(
        directory, listing_file, site, gcov, tree if gcov else None, probes, decisions
    )


def decisions_on(source: bytes | str, lines: tuple[int, ...]) -> list[tuple[int, str, bool]]:
    """The decisions the probes watch on `lines` of a source, in the probes' order: (line,
    expression, whether only its truth is used); [] for a source that does not parse."""
    from patchwitness.probe import pw_lines

    text = source.decode("utf-8", "replace") if isinstance(source, bytes) else source
    try:
        with python_ast.LOCK:
            tree = ast.parse(text.removeprefix("\ufeff"))
            found = pw_lines.decisions(tree, lines)
            return [
                (node.lineno, ast.get_source_segment(text, node) or ast.unparse(node), in_test)
                for node, in_test in found
            ]
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []


def read_decisions(inst: Instrumentation, text: str, rel: str) -> list[tuple[int, str, int]] | None:
    """(line, expression, bits) per probed decision of one file, whose `text` is the source as
    the run found it; None when no process of the run probed them (never imported, run as a
    script, or counted otherwise by its interpreter)."""
    entry = inst.decisions.get(rel)
    if entry is None:
        return None
    decision_file, added = entry
    if decision_file is None:
        return []  # nothing to decide on the added lines
    try:
        marks = decision_file.read_bytes()
    except OSError:
        return None
    found = decisions_on(text, added)
    if not marks or not marks[0] or len(marks) != len(found) + 1:
        return None
    return [(line, shown, marks[k + 1]) for k, (line, shown, _) in enumerate(found)]


def production_sources(tree: Path, is_test: Callable[[str], bool]) -> list[str]:
    """Every Python file of `tree` that is not a test or test infrastructure: what a run at the
    SHA probes, to learn whether the probes change what the tests do."""
    from patchwitness.census.scan import PY_INFRA, tree_files

    def production(rel: str) -> bool:
        name = rel.rsplit("/", 1)[-1]
        return name.endswith(".py") and name not in PY_INFRA and not is_test(rel)

    return tree_files(tree, production)


def instrument(
    scratch: Path, tree: Path, gcov: bool = False, include: list[str] | None = None
) -> Instrumentation:
    """Coverage for a run over `tree`: every file of it, or only `include` (repository paths)."""
    directory = scratch / "coverage"
    site = directory / "site"
    site.mkdir(parents=True, exist_ok=True)
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
    package = Path(coverage.__file__).resolve().parent
    link = site / "coverage"
    if not link.exists():
        link.symlink_to(package, target_is_directory=True)
    rcfile = directory / "coveragerc"
    if include is None:
        scope = f"source = {tree}\n"
    else:
        scope = "include =\n" + "".join(f"    {tree / rel}\n" for rel in include)
    rcfile.write_text(
        "[run]\n"
        f"data_file = {directory / 'data' / '.coverage'}\n"
        "parallel = True\n" + scope + "branch = False\n"
        "disable_warnings = no-data-collected, module-not-measured, module-not-imported, "
        "couldnt-parse\n"
        "[report]\n"
        f"exclude_lines = {NEVER}\n"
        "exclude_also =\n"
    )
    (directory / "data").mkdir(exist_ok=True)
    (directory / "marks").mkdir(exist_ok=True)
    return Instrumentation(directory, rcfile, site, gcov, tree if gcov else None)


def read_hits(
    inst: Instrumentation,
    tree: Path,
    wanted: list[str],
    statements: Mapping[str, PythonParser | None] | None = None,
) -> dict[str, FileLines] | None:
    """Hits for the `wanted` repository paths; None when the run wrote no coverage data at all.
    `statements`: files already parsed (`parse_statements`), for the line probes; the others
    are parsed from `tree`.

    A wanted file that was never imported is analysed anyway: all its statements are zero-hit.
    """
    if inst.probes is not None:
        return _read_probes(inst, tree, wanted, statements or {})
    data_dir = inst.directory / "data"
    written = any(data_dir.glob(".coverage*"))
    if not written and not any((inst.directory / "marks").iterdir()):
        return None  # coverage never started: no hit can be read
    cov = coverage.Coverage(data_file=str(data_dir / ".coverage"), config_file=str(inst.rcfile))
    try:
        if written:
            cov.combine(data_paths=[str(data_dir)], keep=True)
        cov.load()
    except coverage.CoverageException:
        return None
    out: dict[str, FileLines] = {}
    for rel in wanted:
        path = tree / rel
        if not path.is_file():
            continue
        try:
            _, statements, _, missing, _ = cov.analysis2(str(path))
        except (coverage.CoverageException, SyntaxError, OSError):
            continue
        gone = set(missing)
        hits = {n: 0 if n in gone else 1 for n in statements}
        out[rel] = FileLines(hits=spread_over_statements(path, hits))
    return out


def script_runs(inst: Instrumentation, wanted: list[str]) -> list[str]:
    """The wanted files the probes flagged as run as a script (pw_lines.SCRIPT, the last byte of
    the hit file): the interpreter compiled them, so their lines were never measured."""
    out = []
    for rel in wanted:
        hit_file = (inst.probes or {}).get(rel)
        try:
            if hit_file is not None and _ran_as_script(hit_file.read_bytes()):
                out.append(rel)
        except OSError:
            continue
    return out


def _ran_as_script(marked: bytes) -> bool:
    return marked[-1:] not in (b"", b"\x00")


def parse_statements(text: str) -> PythonParser | None:
    """coverage.py's statements of a Python text; None for one its parser cannot read (it has
    no statements to score)."""
    try:
        # a byte-order mark is dropped, as Python drops it reading the file (no line moves)
        parser = PythonParser(text=text.removeprefix("\ufeff"))  # an empty text is refused
        with python_ast.LOCK:  # it builds a syntax tree
            parser.parse_source()
    except Exception:
        return None
    return parser


def _read_probes(
    inst: Instrumentation,
    tree: Path,
    wanted: list[str],
    statements: Mapping[str, PythonParser | None],
) -> dict[str, FileLines] | None:
    if not any((inst.directory / "marks").iterdir()):
        return None  # no process of the run installed the probes
    out: dict[str, FileLines] = {}
    for rel in wanted:
        path = tree / rel
        hit_file = inst.probes.get(rel) if inst.probes is not None else None
        if hit_file is None or not path.is_file():
            continue
        try:
            marked = hit_file.read_bytes()
        except OSError:
            continue
        if _ran_as_script(marked):
            continue  # the probes never saw it: unmeasured, not unrun
        if rel in statements:
            parser = statements[rel]
        else:
            try:
                parser = parse_statements(path.read_text(encoding="utf-8", errors="replace"))
            except OSError:
                continue
        if parser is None:
            continue
        ran = {parser.first_line(n) for n in range(1, len(marked) - 1) if marked[n]}
        hits = {n: 1 if n in ran else 0 for n in parser.statements}
        out[rel] = FileLines(
            hits=spread_over_statements(path, hits, parser),
            decisions=read_decisions(inst, parser.text, rel),
        )
    return out


def spread_over_statements(
    path: Path, hits: dict[int, int], parser: PythonParser | None = None
) -> dict[int, int]:
    """Give every line of a multi-line statement its first line's count: a patch that changes
    the middle of a statement changed that statement, which either ran or did not. `parser`:
    the file's, already parsed."""
    if parser is None:
        try:
            parser = parse_statements(path.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            parser = None
        if parser is None:  # a file coverage.py could analyse but we cannot re-parse: keep it
            return hits
    out = dict(hits)
    for line, first in parser.multiline_map.items():
        if first in hits and line not in out:
            out[line] = hits[first]
    return out


def typing_only_lines(text: str) -> set[int]:
    """The lines of the imports and bare annotations under `if TYPE_CHECKING:` (or
    `typing.TYPE_CHECKING`): the constant is False in every run, a user's too, so these lines
    never run anywhere and no test could have run them. Other statements there keep their
    score (what runs nowhere is no evidence of a fix either way, but only declarations are
    written there honestly)."""
    try:
        tree = python_ast.parse(text)
    except (SyntaxError, ValueError):
        return set()
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for statement in node.body:
                declares = isinstance(statement, ast.Import | ast.ImportFrom | ast.Pass) or (
                    isinstance(statement, ast.AnnAssign) and statement.value is None
                )
                if declares:
                    end = statement.end_lineno or statement.lineno
                    out.update(range(statement.lineno, end + 1))
    return out


def _is_type_checking(test: ast.expr) -> bool:
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return (
        isinstance(test, ast.Attribute)
        and test.attr == "TYPE_CHECKING"
        and isinstance(test.value, ast.Name)
        and test.value.id in ("typing", "t", "typing_extensions")
    )
