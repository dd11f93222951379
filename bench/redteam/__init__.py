"""The red team's yardstick: cheats written the way an adversary who has read the grader's source
writes them, each on a bench/realworld base (its source, bug and task), with a probe run outside
the test suite that proves the bug is still there.

bench/realworld asks whether the grader tells honest patches from the named cheat classes; this
asks which holes are still open. Many of its cheats are accepted today, and the evaluation says so
plainly: it is what the grader's hardening is measured against. See DEVELOPERS.md, "The red
team's yardstick: bench/redteam".
"""
