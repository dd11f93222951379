"""Which sanitizer findings of a patched run the SHA's run had already. Pure.

A project may carry undefined behaviour of its own at the SHA, reached by its tests. That finding
is no patch's doing, but it moves with the lines around it: a patch that adds lines above it moves
it from line 9292 to 9297, and matched by raw file:line it would be new. Findings are matched
through the patch's line map instead (linemap.sha_line), by their place:

- the report's own location, when it is in a repository file, as the SHA's line it is;
- else (a system header, a library, no location) the first frame of its stack in a repository
  file, mapped likewise, beside the location the report names;
- else the report's location and the functions of its stack, as they are.

A finding matches when its tool, kind and place are those of a finding anywhere in the SHA's
cells (which test, or which envelope, reached it first is incidental). A finding on a line the
patch added, in a file it created, or reached from such a line when the report's own location
is outside the repository, is new whatever the SHA had; so is a finding with no place at all.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from patchwitness.facts import MovedLines
from patchwitness.linemap import sha_line
from patchwitness.model import Cell

Place = tuple[str, ...]
_LOCATION = re.compile(r"^(?P<path>.+?):(?P<line>\d+)(?::(?P<column>\d+))?$")


def in_repository(location: str) -> bool:
    """A location the sanitizers' parser made repository-relative (sanitizers.parse)."""
    return bool(location) and not location.startswith(("/", "../", "<")) and ":" in location


def sha_location(location: str, moved: Mapping[str, MovedLines]) -> str | None:
    """A repository location of the patched text as the SHA's location; None where the patch
    wrote the line (added, or in a file it created)."""
    match = _LOCATION.match(location)
    if match is None:
        return location
    path, line = match.group("path"), int(match.group("line"))
    change = moved.get(path)
    if change is None:
        return location  # a file the patch left alone: its lines did not move
    old = sha_line(line, change.removed, change.added) if change.sha_path else None
    if old is None:
        return None
    column = f":{match.group('column')}" if match.group("column") else ""
    return f"{change.sha_path}:{old}{column}"


def place(finding: Mapping[str, str], moved: Mapping[str, MovedLines]) -> Place | None:
    """Where a finding is, in the SHA's terms (module docstring); None: new by construction."""
    location = finding.get("location", "")
    head = (finding.get("tool", ""), finding.get("kind", ""))
    if in_repository(location):
        at = sha_location(location, moved)
        return None if at is None else (*head, "at", at)
    frames = finding.get("frames", "").split("\n")
    first = next((f for f in frames if in_repository(f)), None)
    if first is not None:
        via = sha_location(first, moved)
        return None if via is None else (*head, "via", location, via)
    functions = finding.get("functions", "")
    if not (location or functions):
        return None
    return (*head, "outside", location, functions)


@dataclass(frozen=True)
class AtSha:
    """The places of every sanitizer finding in the SHA's cells, and the patch's line map."""

    places: frozenset[Place]
    moved: Mapping[str, MovedLines]

    def had(self, finding: Mapping[str, str]) -> bool:
        where = place(finding, self.moved)
        return where is not None and where in self.places

    def judge(self, cell: Cell) -> bool | None:
        """For a cell a sanitizer made red: True when one of its findings is new, False when the
        SHA had every one; None for any other cell (its status alone decides)."""
        if cell.status != "sanitizer" or not cell.sanitizer_findings:
            return None
        return not all(self.had(f) for f in cell.sanitizer_findings)


def at_sha(baseline: Iterable[Cell], moved: Mapping[str, MovedLines]) -> AtSha:
    places = {place(f, {}) for cell in baseline for f in cell.sanitizer_findings}
    return AtSha(frozenset(p for p in places if p is not None), moved)
