"""Choosing the confinement for the code under grade (`--sandbox auto|bwrap|none`)."""

from __future__ import annotations

from patchwitness import runner

_warnings: list[str] = []


def configure(mode: str) -> runner.Confinement:
    if mode not in ("auto", "bwrap", "none"):
        raise ValueError(f"unknown sandbox mode {mode!r} (auto, bwrap or none)")
    _warnings.clear()
    if mode == "bwrap":
        raise ValueError("the bwrap sandbox is not available in this build")
    conf = runner.Confinement()
    if mode == "auto":
        _warnings.append(
            "no sandbox available: the code under grade runs with resource limits "
            "only (see SECURITY.md)"
        )
    runner.set_confinement(conf)
    return conf


def warnings() -> list[str]:
    return list(_warnings)
