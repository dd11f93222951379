"""The ways a grade can end before the gates judge the patch. Each maps to one label."""

from __future__ import annotations


class GradeStop(Exception):
    """A grade ends early with `label`; the message is the one-line reason shown to the user."""

    label = "error"
    grade = "ungradable"
    row = ""  # the reason's row, when it is not the label itself


class InvalidTask(GradeStop):
    label = "invalid-task"
    grade = "ungradable"


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
