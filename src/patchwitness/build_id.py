"""Which build of the grader made a verdict: the version and a digest of the grader's own source.

A results database resumes by (task, agent, patch, fingerprint), and caches are keyed by what made
them. Between releases the version alone stays the same while the code changes, and a verdict or
a baseline from another build of the grader would be taken for this one's. The digest covers every
file of the package (the probe included), so it changes whenever any of them does.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from patchwitness import __version__

PACKAGE = Path(__file__).resolve().parent


@functools.cache
def grader_build() -> str:
    """`0.1.0+1a2b3c4d5e`: the version, and the digest of the package's files."""
    digest = hashlib.sha256()
    for path in sorted(PACKAGE.rglob("*")):
        if (
            path.is_file()
            and path.suffix in (".py", ".html", ".css", ".js")
            and ("__pycache__" not in path.parts)
        ):
            digest.update(path.relative_to(PACKAGE).as_posix().encode() + b"\0")
            digest.update(path.read_bytes())
    return f"{__version__}+{digest.hexdigest()[:10]}"
