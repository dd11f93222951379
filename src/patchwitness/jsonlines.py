"""The JSON lines a probe writes beside code under grade, read as far as they parse."""

from __future__ import annotations

import json
from pathlib import Path


def records(path: Path, limit: int) -> list[dict]:
    """The objects of the first `limit` bytes of `path`, one per line; a line that is no JSON
    object (the run ended mid-write, or the code under grade wrote there) is left out, and a
    file that cannot be read holds none."""
    try:
        with path.open("rb") as handle:
            data = handle.read(limit)
    except OSError:
        return []
    out = []
    for line in data.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            out.append(record)
    return out
