"""Where patchwitness keeps what outlives a grade: environments, baselines, history stores,
compiled goldens. `$PATCHWITNESS_CACHE`, else `$XDG_CACHE_HOME/patchwitness`, else
`~/.cache/patchwitness`. Everything in it is keyed by content, never by a path."""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    configured = os.environ.get("PATCHWITNESS_CACHE")
    if configured:
        return Path(configured)
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "patchwitness"
