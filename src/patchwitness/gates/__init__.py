"""The gates, in the order the judge asks them and every report shows them.

Each gate is one module of this package (`gates/NAME.py`: its pure `judge` and `decide`) and one
declaration in `policy.REGISTRY` (its table and its row of the final table: the declarations are
policy data, beside the tables they name). The judge, the final table, the skip logic, the
terminal, HTML and SARIF reports iterate over the registry; adding a gate is one module and one
entry there. The modules are imported when a gate is judged, so a policy (which every start
holds) is made without loading the models the gates judge into.
"""

from __future__ import annotations

from patchwitness.policy import REGISTRY, Gate

ORDER = tuple(g.name for g in REGISTRY)


def registry() -> tuple[Gate, ...]:
    return REGISTRY


def by_name(name: str) -> Gate | None:
    return next((g for g in REGISTRY if g.name == name), None)
