"""One process at a time: an exclusive lock on a file, held for a block.

The cache is shared by the workers of a bag and by grades run side by side: what one builds
(an environment, a history store, the flag matrix's cells at a SHA) the others wait for and
then reuse, instead of building it again in parallel.
"""

from __future__ import annotations

import contextlib
import fcntl
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def held(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on `path` (created if missing) for the block; released on exit,
    and by the kernel if the process dies."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
