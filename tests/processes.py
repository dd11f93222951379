"""Looking for processes by a marker in their command line: did everything the run started die?"""

from __future__ import annotations

import time
from pathlib import Path


def alive(marker: str) -> list[int]:
    """Processes (not zombies) whose command line names the marker."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in cmdline and state != "Z":
            found.append(int(entry.name))
    return found


def wait_gone(marker: str, seconds: float = 3.0) -> list[int]:
    deadline = time.monotonic() + seconds
    while (left := alive(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left
