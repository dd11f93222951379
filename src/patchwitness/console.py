"""The command line's two consoles, made when first printed to.

rich.console costs about 50 ms to import: a command spends it when it has something to show, not
before it starts its work. Tables are wide; when output goes to a file or a pipe, they are not
folded to 80 columns.
"""

from __future__ import annotations

import functools
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console


@functools.cache
def out() -> Console:
    from rich.console import Console

    return Console(width=None if sys.stdout.isatty() else 160)


@functools.cache
def err() -> Console:
    from rich.console import Console

    return Console(stderr=True, width=None if sys.stderr.isatty() else 160)
