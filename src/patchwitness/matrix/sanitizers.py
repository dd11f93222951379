"""Sanitizer reports in a run's stderr, as findings. Pure.

A golden may write anything to stderr; that is not a failure. A sanitizer report is. This module
tells the two apart by the reports' own markers:

- UBSan: `FILE:LINE:COL: runtime error: MESSAGE` (one line per error);
- ASan / LSan / MSan: `==PID==ERROR: AddressSanitizer: KIND ...`, then a stack, then
  `SUMMARY: AddressSanitizer: KIND LOCATION in FUNCTION`;
- TSan: `WARNING: ThreadSanitizer: KIND ...` ... `SUMMARY: ThreadSanitizer: KIND LOCATION ...`.

Each report becomes one finding `{tool, kind, location, message, frames, functions}`: `frames`
and `functions` are the report's first stack outside the sanitizer runtime and the C library, one
frame a line (a location, possibly empty, and a function). Locations are made
repository-relative by stripping the roots the caller names (the worktree, a build directory), so
that the same bug reads the same in every worktree, and the SHA's findings can be matched with a
patched run's (carried.py).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_LOC = r"(?P<loc>[^\s:][^\s]*?:\d+(?::\d+)?)"
_UBSAN = re.compile(_LOC + r": runtime error: (?P<msg>.+)$")
_HEADER = re.compile(r"(?:==\d+==)?(?P<level>ERROR|WARNING): (?P<tool>\w+Sanitizer): (?P<rest>.+)$")
_SUMMARY = re.compile(r"^SUMMARY: (?P<tool>\w+Sanitizer): (?P<rest>.+)$")
_FRAME = re.compile(r"^\s*#\d+\s+(?:0x[0-9a-fA-F]+\s+in\s+)?(?P<func>.+?)\s+" + _LOC + r"(?:\s|$)")
_IN_LOCATION = re.compile(r"\s" + _LOC + r"(?:\s+in\s+|\s*$)")

# Sanitizer headers that are not reports (ASan's notes about its own setup).
_REPORTING_WARNINGS = ("ThreadSanitizer", "MemorySanitizer")
# Frames inside the sanitizer runtime or the C library say nothing about the bug's place.
_RUNTIME_FRAME = re.compile(r"libsanitizer|compiler-rt|sanitizer_common|/sysdeps/|/csu/|^\.\./")
# One line of a stack: `#3 0x55 in f(int) /src/a.cpp:12:5`, `#0 main /src/a.cpp:4 (bin+0x13)`
# (TSan), `#4 0x7f in _start (/bin/x+0x11a4)` (no source line).
_STACK_LINE = re.compile(r"^\s*#\d+\s+(?:0x[0-9a-fA-F]+\s+)?(?:in\s+)?(?P<rest>\S.*?)\s*$")
_MODULE = re.compile(r"\s*\([^()]*\+0x[0-9a-fA-F]+\)$")
_TRAILING_LOC = re.compile(r"\s+(?P<loc>[^\s:][^\s]*?:\d+(?::\d+)?)$")
_RUNTIME_FUNCTION = re.compile(
    r"^(?:__interceptor_|__asan|__ubsan|__tsan|__sanitizer|__lsan|"
    r"__libc_start|_start$)"
)
FRAMES = 8  # a stack's first frames are where it differs; deeper ones are the test runner's

UBSAN = "UndefinedBehaviorSanitizer"


@dataclass
class _Report:
    tool: str
    kind: str
    message: str
    location: str = ""
    start: int = 0  # the line the report starts on


def normalize_location(location: str, roots: Sequence[str] = ()) -> str:
    """`/tmp/patchwitness-x/repo/include/ring.hpp:12:5` -> `include/ring.hpp:12:5`."""
    for root in sorted((r.rstrip("/") for r in roots if r), key=len, reverse=True):
        if location.startswith(root + "/"):
            location = location[len(root) + 1 :]
            break
    while location.startswith("./"):
        location = location[2:]
    return location


def _words(text: str) -> str:
    """A kind that is stable across runs: no addresses, numbers or quoted type names."""
    text = re.sub(r"0x[0-9a-fA-F]+", "ADDR", text)
    text = re.sub(r"'[^']*'|‘[^’]*’", "'T'", text)
    text = re.sub(r"-?\b\d+\b", "N", text)
    return " ".join(text.split())


def ubsan_kind(message: str) -> str:
    """`signed integer overflow: 2147483647 + 1 cannot ...` -> `signed integer overflow`."""
    head = message.split(":", 1)[0]
    return _words(head)


def _header_kind(rest: str) -> str:
    """`heap-buffer-overflow on address 0x...` -> `heap-buffer-overflow`."""
    kind = re.split(r" on | at | from |\(| in thread ", rest, maxsplit=1)[0]
    return _words(kind.strip().rstrip(":"))


def _summary_location(rest: str) -> str:
    match = _IN_LOCATION.search(" " + rest)
    return match.group("loc") if match else ""


def _first_user_frame(lines: Sequence[str]) -> str:
    for line in lines:
        match = _FRAME.match(line)
        if match and not _RUNTIME_FRAME.search(match.group("loc")):
            return match.group("loc")
    return ""


def _frame(line: str, roots: Sequence[str]) -> tuple[str, str] | None:
    """(location, function) of one stack line outside the runtime; None for any other line."""
    match = _STACK_LINE.match(line)
    if match is None:
        return None
    rest = _MODULE.sub("", match.group("rest"))
    loc = _TRAILING_LOC.search(rest)
    function = rest[: loc.start()].strip() if loc else rest.strip()
    where = loc.group("loc") if loc else ""
    if (where and _RUNTIME_FRAME.search(where)) or _RUNTIME_FUNCTION.match(function):
        return "", ""  # a frame, but of the runtime or the C library
    return normalize_location(where, roots), function


def stack(lines: Sequence[str], roots: Sequence[str] = ()) -> list[tuple[str, str]]:
    """The first stack in `lines`: its frames outside the runtime, as (location, function)."""
    frames: list[tuple[str, str]] = []
    started = False
    for line in lines:
        frame = _frame(line, roots)
        if frame is None:
            if started:
                break
            if _SUMMARY.match(line.strip()) or _UBSAN.search(line) or _HEADER.search(line):
                break  # the next report: this one printed no stack
            continue
        started = True
        if frame != ("", "") and len(frames) < FRAMES:
            frames.append(frame)
    return frames


def parse(stderr: str, roots: Sequence[str] = ()) -> list[dict[str, str]]:
    """Every sanitizer report in `stderr`, in order, one finding each."""
    findings: list[_Report] = []
    open_reports: dict[str, tuple[_Report, int]] = {}
    ubsan_seen = False
    lines = stderr.splitlines()
    for index, line in enumerate(lines):
        match = _UBSAN.search(line)
        if match:
            ubsan_seen = True
            msg = match.group("msg").strip()
            findings.append(_Report(UBSAN, ubsan_kind(msg), msg, match.group("loc"), index))
            continue
        match = _HEADER.search(line)
        if match and _is_report(match.group("level"), match.group("tool")):
            report = _Report(
                match.group("tool"), _header_kind(match.group("rest")), line.strip(), start=index
            )
            findings.append(report)
            open_reports[report.tool] = (report, index)
            continue
        match = _SUMMARY.match(line.strip())
        if match:
            _close(match, findings, open_reports, lines, index, ubsan_seen)
    for report, start in open_reports.values():
        if not report.location:
            report.location = _first_user_frame(lines[start + 1 :])
    out = []
    for r in findings:
        frames = stack(lines[r.start + 1 :], roots)
        out.append(
            {
                "tool": r.tool,
                "kind": r.kind,
                "location": normalize_location(r.location, roots),
                "message": r.message[:300],
                "frames": "\n".join(loc for loc, _ in frames),
                "functions": "\n".join(function for _, function in frames),
            }
        )
    return out


def _is_report(level: str, tool: str) -> bool:
    return level == "ERROR" or tool in _REPORTING_WARNINGS


def _close(
    match: re.Match[str],
    findings: list[_Report],
    open_reports: dict[str, tuple[_Report, int]],
    lines: Sequence[str],
    index: int,
    ubsan_seen: bool,
) -> None:
    tool, rest = match.group("tool"), match.group("rest")
    if tool == UBSAN and ubsan_seen:
        return  # the runtime-error line was the report; the summary repeats it
    pending = open_reports.pop(tool, None)
    # LSan reports under ASan's name: the summary then belongs to the leak report.
    if pending is None and tool == "AddressSanitizer":
        pending = open_reports.pop("LeakSanitizer", None)
    if pending is None:
        findings.append(_Report(tool, _header_kind(rest), match.group(0), start=index))
        findings[-1].location = _summary_location(rest)
        return
    report, start = pending
    report.location = _summary_location(rest) or _first_user_frame(lines[start + 1 : index])
