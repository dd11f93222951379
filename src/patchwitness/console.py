"""The command line's two consoles, made when first printed to.

rich.console costs about 50 ms to import: a command spends it when it has something to show, not
before it starts its work. Tables are wide; when output goes to a file or a pipe, they are not
folded to 80 columns.
"""

from __future__ import annotations

import contextlib
import functools
import sys
from collections.abc import Callable, Iterator
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


@contextlib.contextmanager
def status(text: str) -> Iterator[Callable[[str], None]]:
    """A spinner on stderr while work runs, saying `text` and then what each update says. Only
    on a terminal: anywhere else it would show nothing, and its console is not worth importing
    before the work starts."""
    if not sys.stderr.isatty():
        yield lambda _said: None
        return
    with err().status(text) as shown:
        yield shown.update
