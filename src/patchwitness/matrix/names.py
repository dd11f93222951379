"""How cells are named, shared by the runners and the (pure) gate."""

from __future__ import annotations

# The one cell a CMake envelope leaves when it never built and no test is known.
BUILD_CELL = "(build)"


def cell_id(golden: str, envelope: str) -> str:
    """`tests/golden/golden_ring.cpp@rel`: one (golden, envelope) cell."""
    return f"{golden}@{envelope}"
