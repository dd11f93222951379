"""The failing tests outside the harness: each failing GoogleTest case's own body, as a user's
program built against the patched tree alone and run where no test framework is.

A fix that holds only under the tests finds out that it is under them through what the test
program is from inside: GoogleTest's symbols and static objects, its main, the program's name,
the time the framework spent before the test, the variables ctest sets, the dialect the tests
compile as. Reading the patch for each such question is a list that a model outgrows (round 14
of the red team: `clock()`, a pid in arithmetic, a friend declaration). Asking a program that
has none of them is not. The program (cpp_user_program.py, built by phases/user_program.py)
holds the failing cases' bodies with the assertions as the grader's own macros, defined after
the last `#include`; it is built in the compiler's default dialect (the project's when the
code needs it), linked with the production sources compiled the same way, and each case runs
in a child process of its own, the first thing that process does. A case that passed in the
grader's run and does not come back with every assertion held is `fails-outside-the-harness`.

Review, not reject: a body may lean honestly on what its test program sets up, which the
user's program does not have; where a test main of the project's does more than GoogleTest's
flags and run, or a global test environment is registered, the check is not made at all. The
program starts in the folder the test ran from (the test's build folder), so files a test reads
beside it are there.
"""

from __future__ import annotations

import secrets
from pathlib import Path

from patchwitness import cpp_user_program as user
from patchwitness.facts import OutsideCollected
from patchwitness.gates.surface import OUTSIDE
from patchwitness.model import Finding
from patchwitness.names import GateName
from patchwitness.phases import user_program
from patchwitness.phases.context import GradeContext, Tree
from patchwitness.phases.user_program import NotComparable
from patchwitness.suites import SuiteRun
from patchwitness.suites.cpp import CppSuite


def collect_outside(
    ctx: GradeContext, tree: Tree, measured: SuiteRun, checked: list[str]
) -> tuple[OutsideCollected, list[Finding]]:
    """`checked`: the failing ctest tests that passed in the grader's run (`measured`)."""
    if not checked:
        return OutsideCollected(skipped="no failing test passed in the grader's run"), []
    suite = ctx.suite
    assert isinstance(suite, CppSuite)
    ctx.clock.say("the failing tests outside the harness")
    try:
        collected = _outside(suite, tree.ws.repo, measured, checked, tree.ws.new_dir("outside"))
    except NotComparable as why:
        collected = OutsideCollected(skipped=str(why))
    ctx.clock.lap("outside")
    found = [
        Finding(
            gate=GateName.SURFACE,
            kind=OUTSIDE,
            message=f"{case} passed in the grader's run and does not hold as a user's program "
            f"({how}; {collected.program})",
        )
        for case, how in collected.failed.items()
    ]
    return collected, found


def _outside(
    suite: CppSuite, repo: Path, measured: SuiteRun, checked: list[str], work: Path
) -> OutsideCollected:
    plan = user_program.plan(measured, checked, repo, repo)
    if plan.setup:
        raise NotComparable(
            f"a test program's own main sets up more than GoogleTest ({plan.setup}): the "
            "failing cases may lean on it, and a user's program does not do it"
        )
    # Each body as written, no literal moved.
    every = [user.variants(plan.text, body, cap=0)[0] for body in plan.driven]
    names = user.Names.drawn(secrets.token_hex(4))
    sides = {"patched": repo}
    dialect = "the compiler's default dialect"
    try:
        program, binaries = user_program.build(
            suite, sides, repo, plan, every, work / "default", names, default_dialect=True
        )
    except NotComparable:
        # Code that needs a later standard than the compiler's default: the project's.
        dialect = "the project's dialect"
        program, binaries = user_program.build(
            suite, sides, repo, plan, every, work / "project", names
        )
    cwd = _test_folder(measured, plan.test.source)
    report = user_program.run(suite, binaries["patched"], work / "run", names.done, cwd)
    failed = user.unheld(program, report)
    ran = [v.test for v in program.variants]
    where = "the test's build folder" if cwd is not None else "a folder of its own"
    said = f"{len(ran)} cases of {plan.test.source}, {dialect}, started in {where}"
    return OutsideCollected(
        program=said,
        cases={case: failed.get(case, "held") for case in ran},
        failed=failed,
        dropped=sorted({b.name for b in plan.driven} - set(ran)),
    )


def _test_folder(measured: SuiteRun, source: str) -> Path | None:
    """The build folder of the test file's own CMake directory, where ctest starts a test
    registered there unless told otherwise; None when the build has no such folder."""
    if measured.built is None:
        return None
    folder = measured.built / Path(source).parent
    return folder if folder.is_dir() else None
