"""The compiler flag matrix: every golden rebuilt and rerun under every envelope.

`collect` (the SHA's cells, cached, and the patched tree's), `manifest` (matrix.json), `cells` (one
compile + run), `cache` (compiles keyed by their real inputs), `cmake` (CMake mode, on the C++
suite's build and ctest), `run` (all cells, in parallel), `sanitizers` (reports in stderr),
`commands` (a shell script per cell), `promote` (the seed's promotion rule).
The decision itself, and how cells are named, is `gates/matrix.py`, pure: the gate imports
nothing from here, so judging never loads what runs compilers.
"""
