"""Which test a name means. Pure.

A test is keyed by what it is (file, classes, function, parametrize position), not by the id its
runner prints: printed ids can embed a time, a random value, an address or a temporary path, and
change from run to run. Task files name tests by printed id (`failing_nodeids.txt`), or by stable
key (`file::test[#arg=0]`) where the printed id is not stable; both resolve to the key here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping


def resolve(names: Iterable[str], keys: Iterable[str], ids: Mapping[str, str]) -> dict[str, str]:
    """name -> stable key, for every name that denotes a collected test: a key itself, or the
    printed id of one (`ids` maps key -> printed id). Names that denote no test are left out."""
    known = set(keys)
    by_printed = {printed: key for key, printed in ids.items()}
    out: dict[str, str] = {}
    for name in names:
        if name in by_printed:
            out[name] = by_printed[name]
        elif name in known:
            out[name] = name
    return out


def unstable(first: Mapping[str, str], second: Mapping[str, str], keys: Iterable[str]) -> list[str]:
    """Keys whose printed id differs between two collections of the same tests."""
    return sorted(k for k in keys if first.get(k, k) != second.get(k, k))
