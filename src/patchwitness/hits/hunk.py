"""The patch's production hunks as one run's coverage data shows them. Pure.

For each line the patch added (and the executable lines on each side of a hole it left), what
was seen: its own hit count, whether its text is code, and for a C++ line without data of its
own the line gcov reports for its statement or block (linemap.py). That is measurement, not a
score: the coverage gate scores it (`gates/coverage.score`), so a stored grade is scored again by
the code that judges it, and a new scoring rule reaches every grade `rejudge` reads.
"""

from __future__ import annotations

import re

from patchwitness import sourcefiles
from patchwitness.facts import FileLines, FileSeen, LineSeen
from patchwitness.patch import FileChange

_PY_NOT_CODE = re.compile(r"^\s*(#.*)?$")
# A comment line (`// x`, an opening `/* x`, a continuation ` * x`, a closing ` */`), a brace or
# an include. `*out = f();` is code: a continuation star is followed by a space, `/` or nothing.
_CPP_NOT_CODE = re.compile(r"^\s*(//.*|/\*.*|\*(\s.*|/.*)?|[{}();]*\s*|#\s*(include|pragma).*)?$")
_CLOSED_COMMENT = re.compile(r"/\*.*?\*/")
# A C++ line that must have produced code if anything ran it: a return, a throw, an assignment,
# a control statement. A declaration or a brace legitimately has no line entry.
_CPP_STATEMENT = re.compile(
    r"^\s*(return\b|throw\b|if\s*\(|for\s*\(|while\s*\(|switch\s*\(|do\b|else\b|case\b|"
    r"break\s*;|continue\s*;|goto\b)|[^=!<>]=[^=]|\+\+|--|\+=|-=|"
    r"^\s*[\w:.\->\[\]]+\s*\(.*\)\s*;\s*$"  # a call: one callee token, then (...);
)


def is_source(path: str, suffixes: frozenset[str], known: frozenset[str] = frozenset()) -> bool:
    """Executable source of the task's language: a name with one of its `suffixes` (the
    language adapter's `source_suffixes`). `known` holds the paths the shell found to be C++
    source although their names do not say so (a header without a suffix, by its content or
    because the build compiled it)."""
    return path in known or sourcefiles.suffix(path) in suffixes


def looks_like_code(text: str, path: str) -> bool:
    line = text.rstrip("\n")
    if path.endswith(".py"):
        return not _PY_NOT_CODE.match(line)
    line = _CLOSED_COMMENT.sub(" ", line)  # `/* fast path */ return -1;` is code
    return not _CPP_NOT_CODE.match(line)


def looks_like_statement(text: str, path: str) -> bool:
    if path.endswith(".py") or not looks_like_code(text, path):
        return False
    code = text.split("//", 1)[0]
    if "operator" in code and not code.lstrip().startswith("return"):
        return False  # operator declarations: `X& operator=(const X&);`
    return bool(_CPP_STATEMENT.search(code))


def patched_sources(
    changes: list[FileChange], suffixes: frozenset[str], known: frozenset[str] = frozenset()
) -> list[FileChange]:
    """Production changes to executable source that alter at least one code line."""
    out = []
    for change in changes:
        if not is_source(change.path, suffixes, known) or change.status == "removed":
            continue
        lines = list(change.added) + list(change.removed)
        if any(looks_like_code(text, change.path) for _, text in lines):
            out.append(change)
    return out


def hole_neighbours(change: FileChange, data: FileLines) -> set[int]:
    """For a deletion, the nearest executable lines on each side of each hole it left."""
    ordered = sorted(data.executable)
    out: set[int] = set()
    for hole in change.deletion_holes:
        above = [n for n in ordered if n <= hole]
        below = [n for n in ordered if n > hole]
        if above:
            out.add(above[-1])
        if below:
            out.add(below[0])
    return out


def observe(
    changes: list[FileChange], data: dict[str, FileLines], texts: dict[str, str] | None = None
) -> list[FileSeen]:
    """What the run's `data` shows of each changed file's added lines and holes; a C++ line
    with no entry of its own is mapped, through the file's text in `texts`, to the line gcov
    reports for its statement or block."""
    return [_observe_file(c, data.get(c.path), (texts or {}).get(c.path)) for c in changes]


def _observe_file(change: FileChange, data: FileLines | None, text: str | None) -> FileSeen:
    path = change.path
    seen = {
        n: LineSeen(
            line=n,
            hits=data.hits.get(n) if data is not None else None,
            code=looks_like_code(line, path),
            statement=looks_like_statement(line, path),
        )
        for n, line in change.added
    }
    if data is not None:
        for n in hole_neighbours(change, data) - set(seen):
            seen[n] = LineSeen(line=n, hits=data.hits[n], hole=True)
    elif text is not None and not path.endswith(".py"):
        # No data for the file. A line in no function's body (a declaration, a namespace-scope
        # `static_assert`) makes no code that could have run: a header of nothing else has no
        # data because it has no code, not because no test compiled it.
        from patchwitness.linemap import CppLines

        file = CppLines(text)
        for n, s in seen.items():
            if s.code and file.line_text(n).strip() and file.function(n) is None:
                s.no_code = True
    if text is not None and path.endswith(".py"):
        # Declarations for the type checker alone: they run in no program, and score nothing.
        from patchwitness.hits.python import typing_only_lines

        for n in typing_only_lines(text) & set(seen):
            seen[n].hits, seen[n].no_code = None, True
    if data is not None and text is not None and not path.endswith(".py"):
        # The C++ brace tree is built when a grade gets here, not when collect is imported.
        from patchwitness.linemap import map_lines

        unmapped = [n for n, s in seen.items() if s.hits is None and s.code]
        for n, found in map_lines(text, unmapped, data.hits).items():
            s = seen[n]
            s.suspicious = found.suspicious
            s.no_code = found.line is None and not found.suspicious
            if found.line is not None:
                s.by, s.by_hits = found.line, data.hits[found.line]
    return FileSeen(path=path, data=data is not None, lines=[seen[n] for n in sorted(seen)])
