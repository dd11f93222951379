"""The real-repository evaluation: public projects nobody here wrote, a bug injected into each, and
patches written as programmatic edits (honest fixes, a no-op, blind rewrites, UB, cheats).

It is the yardstick for every other change: an honest patch rejected here is a grader bug, and a
repository whose patches all get one label says the grader measured itself. See
`bench/README.md`, "realworld", and DEVELOPERS.md for where the sources come from.
"""
