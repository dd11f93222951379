"""The whole log of a setup or build that fails at the SHA, kept where the verdict names it.

Such a task cannot be graded (`invalid-task`), and whoever fixes it needs more than the one line
that names the cause. The failing command's output (stdout, then stderr, as the runner kept them)
is written to a file: in the grade's artifacts directory when it has one, else in the cache beside
what failed (the environment for a setup, the baseline for a build). The verdict's detail names
the file and quotes the log's last lines.
"""

from __future__ import annotations

from pathlib import Path

from patchwitness import atomic
from patchwitness.errors import FailedAtSha, GradeStop
from patchwitness.runner import Result

TAIL_LINES = 20
# A quoted line longer than this is cut: a progress bar redrawn with \r can be one huge line.
LINE_CHARS = 400


def output_of(result: Result) -> str:
    """A run's stdout, then its stderr: the whole log, as the runner kept it."""
    out = result.stdout.decode("utf-8", "replace")
    err = result.stderr.decode("utf-8", "replace")
    if out and err:
        return out + ("" if out.endswith("\n") else "\n") + "--- stderr ---\n" + err
    return out or err


def tail(log: str, lines: int = TAIL_LINES) -> list[str]:
    """The log's last `lines` lines (trailing blank ones dropped), each cut to LINE_CHARS."""
    kept = log.rstrip().splitlines()[-lines:]
    return [line if len(line) <= LINE_CHARS else line[:LINE_CHARS] + " ..." for line in kept]


def keep(failure: FailedAtSha, artifacts: Path | None) -> tuple[Path | None, str]:
    """Write the log: as `<artifacts>/<name>` when the grade has an artifacts directory, else at
    the failure's place in the cache. Returns the path, or None and why it could not be kept."""
    path = artifacts / failure.name if artifacts is not None else failure.fallback
    if path is None:
        return None, "no place to keep it"
    try:
        atomic.write_bytes(path, failure.log.encode("utf-8", "replace"))
    except OSError as exc:
        return None, f"it could not be kept: {exc}"
    return path, ""


def detail(stop: GradeStop, artifacts: Path | None) -> str:
    """The detail of a grade that stopped: its reason (one line), and for a setup or build that
    failed at the SHA, where its whole log is kept and the log's last lines."""
    if not isinstance(stop, FailedAtSha):
        return str(stop)
    path, why = keep(stop, artifacts)
    where = f"whole log: {path}" if path is not None else f"whole log: {why}"
    lines = tail(stop.log)
    if not lines:
        return f"{stop}\nthe command printed nothing ({where})"
    quoted = "\n".join("  " + line for line in lines)
    said = f"the last {len(lines)} lines" if len(lines) > 1 else "the last line"
    return f"{stop}\n{said} of the log ({where}):\n{quoted}"
