"""The fingerprint written with every verdict.

Two verdicts are comparable only when their fingerprints' digests are equal; `compare` says which
fields differ, so a refusal names its reason instead of just refusing.
"""

from __future__ import annotations

import hashlib
import json
import platform

from patchwitness.build_id import grader_build
from patchwitness.model import Fingerprint

# Fields that describe the measurement. `warnings` is commentary and stays out of the digest.
DIGEST_EXCLUDES = {"digest", "warnings"}


def machine_facts() -> dict[str, str]:
    return {"os": f"{platform.system()} {platform.release()}", "machine": platform.machine()}


def seal(fp: Fingerprint) -> Fingerprint:
    body = fp.model_dump(exclude=DIGEST_EXCLUDES)
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"))
    fp.digest = hashlib.sha256(canonical.encode()).hexdigest()[:16]
    return fp


def build(
    *,
    test_cmd: str,
    timeout_s: float,
    sandbox: str,
    versions: dict | None = None,
    compiler: str | None = None,
    gcov: str | None = None,
    manifests: dict[str, str] | None = None,
    warnings: list[str] | None = None,
) -> Fingerprint:
    versions = versions or {}
    fp = Fingerprint(
        **machine_facts(),
        grader=grader_build(),
        python=versions.get("python"),
        pytest=versions.get("pytest"),
        pytest_plugins=list(versions.get("plugins", [])),
        compiler=compiler,
        gcov=gcov,
        tools={k: str(v) for k, v in sorted(versions.items()) if k in ("cmake", "ninja")},
        test_cmd=test_cmd,
        timeout_s=timeout_s,
        sandbox=sandbox,
        manifests=dict(sorted((manifests or {}).items())),
        warnings=list(warnings or []),
    )
    return seal(fp)


def compare(a: Fingerprint, b: Fingerprint) -> list[str]:
    """The fields in which two fingerprints differ, as 'field: a != b' lines; empty when equal."""
    left = a.model_dump(exclude=DIGEST_EXCLUDES)
    right = b.model_dump(exclude=DIGEST_EXCLUDES)
    return [f"{k}: {left[k]!r} != {right[k]!r}" for k in sorted(left) if left[k] != right.get(k)]
