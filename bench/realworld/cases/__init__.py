"""One module per real repository; each defines `CASE` (realworld.case.Case)."""

from __future__ import annotations

import importlib
import pkgutil

from realworld.case import Case


def all_cases() -> list[Case]:
    """Every case of this package, by module name."""
    found = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        case = getattr(module, "CASE", None)
        if isinstance(case, Case):
            found.append(case)
    return found
