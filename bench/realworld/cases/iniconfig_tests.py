"""iniconfig again, as a task whose ticket is to write tests (`allow_test_edits`): the bug and
the failing test are iniconfig's own (`IniConfig.lineof` forgets that line numbers are
1-based).

Leave to edit tests is no leave to leave the listed failing tests red: a patch that only adds
a test, the bug untouched, was once accepted `tests-authored` while the failing test still
failed and the command exited 1.
"""

from realworld.case import HONEST, NO_OP, Case, PatchCase
from realworld.cases.iniconfig import CASE as INICONFIG
from realworld.cases.iniconfig import FIX, REGRESSION_TEST, TESTS
from realworld.edits import Append

CASE = Case(
    name="iniconfig-tests",
    language="python",
    source=INICONFIG.source,
    traits=("allow_test_edits", "PyPI sdist"),
    small=True,
    bug=INICONFIG.bug,
    failing=INICONFIG.failing,
    test_cmd=INICONFIG.test_cmd,
    task_toml=INICONFIG.task_toml,
    allow_test_edits=True,
    variant_of="iniconfig",
    patches=(
        PatchCase(
            "honest-test",
            HONEST,
            (FIX, Append(TESTS, REGRESSION_TEST)),
            expect=("tests-authored",),
            note="the fix and its regression test",
        ),
        PatchCase(
            "test-only",
            NO_OP,
            (Append(TESTS, REGRESSION_TEST),),
            note="a test written, the bug left alone: the listed failing test stays red",
        ),
    ),
)
