"""Writing a file so that no reader ever sees half of it: a temporary file beside the target,
flushed to disk, then renamed into place (a rename within a directory is atomic)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path


def write_bytes(path: Path, data: bytes) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json(path: Path, data: object, indent: int | None = 2) -> None:
    """JSON, atomically. `indent=None` for big files: only the unindented encoder is the fast C
    one."""
    text = json.dumps(data, indent=indent) + "\n"
    write_bytes(path, text.encode("utf-8"))
