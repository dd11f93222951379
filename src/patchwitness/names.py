"""The names the grader's parts go by, as types: the gates and the languages.

A gate's name is its module (`gates/NAME.py`), its key in a verdict's `gates` and its reasons'
`gate`; a language's name is a task's `language` and its adapter's (`languages/NAME.py`). No
pydantic here: every command's start imports this module (the policy declares its gates by name).
"""

from __future__ import annotations

from enum import StrEnum


class GateName(StrEnum):
    DRIFT = "drift"
    CENSUS = "census"
    SURFACE = "surface"
    COVERAGE = "coverage"
    MATRIX = "matrix"
    SPECIAL = "special"
    PINNING = "pinning"
    REFERENCE = "reference"


class LanguageName(StrEnum):
    PYTHON = "python"
    CPP = "cpp"
