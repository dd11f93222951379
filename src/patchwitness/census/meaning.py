"""A stored census diff given its meaning at judging time. Pure.

Collect stores what the census saw: the keys the patch removed and added, the counts, the infra
files edited. Which removals the task's allowlist covers, which tests were weakened, which skips
were added and which machinery was redefined is the meaning of those keys (`items.what_it_means`),
read here when a grade is judged, so a stored grade is read again by the code that judges it.
The census and drift gates both read it.
"""

from __future__ import annotations

from patchwitness.census.items import what_it_means
from patchwitness.model import CensusFacts, WeakenedTest


def read(census: CensusFacts, allowlist: list[str] | None) -> CensusFacts:
    """`census` with the meaning of its keys under `allowlist` (the task's census allowlist);
    as stored when `allowlist` is None (a grade of facts version 1 or 2, whose collect wrote the
    meaning down and not the allowlist)."""
    if allowlist is None:
        return census.model_copy()
    meaning = what_it_means(census.removed, census.added, allowlist)
    return census.model_copy(
        update={
            "unexpected_removals": meaning.unexpected,
            "allowlisted_removals": meaning.allowlisted,
            "weakened": [WeakenedTest(**w) for w in meaning.weakened],
            "disabled": meaning.disabled,
            "macro_redefinitions": meaning.redefinitions,
        }
    )
