"""The gates, in the order the judge asks them and every report shows them.

Each gate is one module of this package (`gates/NAME.py`, its pure `judge` and `decide`) and one
declaration below (gates/gate.py: its table and its row of the final table). The judge, the final
table, the skip logic, the terminal, HTML and SARIF reports iterate over `REGISTRY`; adding a gate
is one module and one entry here. The declarations import no gate: a policy (which every start
holds) is made without loading the models the gates judge into.
"""

from __future__ import annotations

from patchwitness import policy
from patchwitness.gates.gate import Gate

# fmt: off
REGISTRY: tuple[Gate, ...] = (
    Gate("drift", policy.DRIFT_TABLE, "the drift gate rejects",
         "the drift label (UNPRINTABLE, failed, no-op)", lambda f: f.drift_label(), precedence=1),
    Gate("census", policy.CENSUS_TABLE, "the census gate rejects",
         "UNPRINTABLE, or failed for real-regression", lambda f: f.census_label(), precedence=2),
    Gate("surface", policy.SURFACE_TABLE, "the surface gate rejects: what the grader does not "
         "understand comes before what the tests say", "UNPRINTABLE", lambda f: "UNPRINTABLE",
         precedence=0),
    Gate("coverage", policy.COVERAGE_TABLE, "the coverage gate rejects", "uncovered",
         lambda f: "uncovered", precedence=3),
    Gate("matrix", policy.MATRIX_TABLE, "the flag matrix rejects", "matrix-red",
         lambda f: "matrix-red", precedence=4, cheap=False),
    Gate("special", policy.SPECIAL_TABLE, "the special-casing gate rejects (the task asks it "
         "to)", "UNPRINTABLE", lambda f: "UNPRINTABLE", precedence=5),
)
# fmt: on
ORDER = tuple(g.name for g in REGISTRY)


def registry() -> tuple[Gate, ...]:
    return REGISTRY


def by_name(name: str) -> Gate | None:
    return next((g for g in REGISTRY if g.name == name), None)
