"""The ways a grade can end before the gates judge the patch. Each maps to one label."""

from __future__ import annotations

from pathlib import Path


class GradeStop(Exception):
    """A grade ends early with `label`; the message is the one-line reason shown to the user."""

    label = "error"
    grade = "ungradable"
    row = ""  # the reason's row, when it is not the label itself


class InvalidTask(GradeStop):
    label = "invalid-task"
    grade = "ungradable"


class FailedAtSha(InvalidTask):
    """The task's setup, or its build, fails at the SHA. The message is the one-line cause; `log`
    is the failing command's whole output, which the grade keeps as `name` in its artifacts
    directory, else at `fallback` in the cache (failure_log.py)."""

    def __init__(self, cause: str, *, log: str, name: str, fallback: Path | None = None) -> None:
        super().__init__(cause)
        self.log = log
        self.name = name
        self.fallback = fallback


class ApplyFailed(GradeStop):
    label = "apply-failed"
    grade = "reject"


class UnreadablePatch(GradeStop):
    """The patch holds what the grader does not read (binary content, NUL bytes): not evidence
    of a fix, whatever the tests say."""

    label = "UNPRINTABLE"
    grade = "reject"
    row = "unreadable-patch"


class ToolError(GradeStop):
    label = "error"
    grade = "ungradable"
