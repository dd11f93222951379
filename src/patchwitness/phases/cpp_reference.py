"""The C++ patch beside the reference fix: a user's program, built against each tree.

The failing GoogleTest cases' bodies become one program (cpp_user_program.py), with neighbours
of their literals, built over the patched tree and over the reference's and run outside the
harness (phases/user_program.py). The reference's program runs twice (a case it does not
answer the same way twice is left out), and the pure comparison (reference.py) keeps the cases
on which the two disagree.

The program is built first as the tests build (their dialect, their flags); when the two agree
there, again as a user's release builds may be (user_program.user_builds(): -O2, plain char
unsigned, in the compiler's default standard as ISO C++ and in its own GNU dialect; the tests'
dialect when the default one does not build): a fix that holds only in the tests' dialect, at
-O0 or where char is signed differs there.
"""

from __future__ import annotations

import re
import secrets
import subprocess
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

from patchwitness import cpp_callees as callees
from patchwitness import cpp_user_program as user
from patchwitness.model import Difference, ReferenceFacts
from patchwitness.phases import user_program
from patchwitness.phases.cpp_compared import SHOWN, fill
from patchwitness.phases.cpp_plain_reference import compare_plain
from patchwitness.phases.user_program import BuildsOnlyOverTheReference, NotComparable
from patchwitness.runner import run_tool
from patchwitness.suites import SuiteRun
from patchwitness.suites.cpp import CppSuite


def compare_cpp(
    suite: CppSuite,
    patched_tree: Path,
    reference_tree: Path,
    measured: SuiteRun,
    failing: list[str],
    work: Path,
    found: ReferenceFacts,
    sha_checkout: Callable[[], AbstractContextManager[Path]] | None = None,
) -> None:
    """Fill `found` with the comparison, or its `skipped` reason. `sha_checkout`: a fresh
    checkout of the SHA, for a test that is a plain program (its failing checks are the
    statements that print otherwise there than with the reference fix)."""
    try:
        _compare(suite, patched_tree, reference_tree, measured, failing, work, found, sha_checkout)
    except BuildsOnlyOverTheReference as broken:
        # Not a comparison skipped: the one answer it has is that a user's program of the
        # failing tests compiles with the reference's fix and not with the patch.
        found.compared, found.differing = 1, 1
        found.differences = [
            Difference(
                target="the user's program",
                call=(
                    "a user's program of the failing tests' bodies, without their framework "
                    f"(over the patch: {broken.error})"
                ),
                varied="",
                test=failing[0] if failing else "",
                fields=["builds"],
                reference={"builds": "yes"},
                patch={"builds": "no", "error": broken.error},
            )
        ]
    except NotComparable as why:
        found.skipped = str(why)


def _compare(
    suite: CppSuite,
    patched_tree: Path,
    reference_tree: Path,
    measured: SuiteRun,
    failing: list[str],
    work: Path,
    found: ReferenceFacts,
    sha_checkout: Callable[[], AbstractContextManager[Path]] | None = None,
) -> None:
    # The test file is read from the reference's tree: the grader's own copy of the tests,
    # with the hidden ones.
    try:
        plan = user_program.plan(measured, failing, patched_tree, reference_tree)
    except NotComparable as why:
        if sha_checkout is None:
            raise
        # No GoogleTest case: a test program of its own, if the failing test is one.
        try:
            compare_plain(
                suite, patched_tree, reference_tree, sha_checkout, measured, failing, work, found
            )
        except BuildsOnlyOverTheReference:
            raise
        except NotComparable as plain_why:
            raise NotComparable(f"{why}; {plain_why}") from None
        return
    every: list[user.Variant] = []
    for body in plan.driven:
        every.extend(user.variants(plan.text, body))
    every = every[: user.VARIANTS + len(plan.driven)]
    found.targets = [b.name for b in plan.driven]
    found.captured = len(plan.driven)
    names = user.Names.drawn(secrets.token_hex(4))
    sides = {"patched": patched_tree, "reference": reference_tree}
    program, binaries = user_program.build(suite, sides, patched_tree, plan, every, work, names)
    _fill(found, program, _runs(suite, binaries, work / "runs", names))
    _reached(found, program, binaries, names, work)
    if found.differing or not found.compared:
        return
    # What did not compile in the tests' own build is left out of the others from the start: a
    # variant that fails over both trees there is compared nowhere, and each build's first
    # compile, which only finds the errors, is not paid again.
    every = list(program.variants)
    for alternatives in user_program.user_builds():
        for recipe in alternatives:
            try:
                program, binaries = user_program.build(
                    suite, sides, patched_tree, plan, every, work, names, recipe
                )
            except BuildsOnlyOverTheReference:
                raise  # a user's program the patch broke: a difference, said above
            except NotComparable:
                continue
            runs = _runs(suite, binaries, work / f"runs-{recipe.tag}", names)
            _fill(found, program, runs, recipe)
            break
        if found.differing:
            return
    _in_newer_dialect(suite, sides, patched_tree, plan, every, work, names, found)


def _in_newer_dialect(
    suite: CppSuite,
    sides: dict[str, Path],
    patched_tree: Path,
    plan: user_program.Plan,
    every: list[user.Variant],
    work: Path,
    names: user.Names,
    found: ReferenceFacts,
) -> None:
    """The comparison once more one standard above the tests' and the compiler's own: the
    dialect a user moves to next."""
    newer = _newer_dialect(plan)
    if not newer:
        return
    recipe = user_program.Recipe(dialect=newer)
    try:
        program, binaries = user_program.build(
            suite, sides, patched_tree, plan, every, work, names, recipe
        )
    except BuildsOnlyOverTheReference as broken:
        # The patched library no longer compiles where the reference's does: a user moving
        # to the next standard is broken by it (red team round 61 named a variable
        # `requires`, a keyword from C++20 on, and the comparison there was dropped unsaid).
        raise BuildsOnlyOverTheReference(f"{recipe.describe()}: {broken.error}") from None
    except NotComparable:
        return  # what builds over neither tree is compared nowhere
    _fill(found, program, _runs(suite, binaries, work / f"runs-{recipe.tag}", names), recipe)


def _newer_dialect(plan: user_program.Plan) -> str:
    """The standard above the tests' dialect and the compiler's default, when the compiler
    knows it ("" otherwise)."""
    from patchwitness import sourcemap

    return sourcemap.next_dialect([plan.test.flags])[0]


def _reached(
    found: ReferenceFacts,
    program: user.Program,
    binaries: dict[str, Path],
    names: user.Names,
    work: Path,
) -> None:
    """The functions each test body's calls reach in the two programs (cpp_callees.py): a call
    the patch's tree sends to a function of the same name in another scope than the
    reference's is a difference, whatever the two programs print. Said nothing where the
    tools are missing or the program's calls were inlined away."""
    bodies = {i for i, v in enumerate(program.variants) if not v.varied}
    listings = {}
    for side, binary in binaries.items():
        try:
            done = run_tool(["objdump", "-d", "--no-show-raw-insn", str(binary)], cwd=work)
        except (OSError, subprocess.TimeoutExpired):
            return
        if done.returncode != 0:
            return
        listings[side] = callees.callees(done.stdout.decode("utf-8", "replace"))
    body_of = re.compile(re.escape(names.case) + r"(\d+)")
    chosen = [
        symbol
        for symbol in listings.get("reference", {})
        if (index := body_of.search(symbol))
        and int(index.group(1)) in bodies
        and not symbol.endswith(("_runEv", "_suiteEv"))
    ]
    wanted = sorted(
        {s for side in listings.values() for b in chosen for s in side.get(b, ())} | set(chosen)
    )
    try:
        done = run_tool(["c++filt"], cwd=work, stdin="\n".join(wanted).encode())
    except (OSError, subprocess.TimeoutExpired):
        return
    shown = done.stdout.decode("utf-8", "replace").splitlines()
    if done.returncode != 0 or len(shown) != len(wanted):
        return
    moved = callees.moved_calls(
        listings["reference"], listings["patched"], dict(zip(wanted, shown, strict=True)), chosen
    )
    # A body's lambdas are functions of their own, named after it: one difference a test and
    # a name.
    said: dict[tuple[str, str], callees.Moved] = {}
    for call in moved:
        index = body_of.search(call.function)
        test = program.variants[int(index.group(1))].test if index else ""
        said.setdefault((test, call.name), call)
    found.differing += len(said)
    for (test, _), call in list(said.items())[:SHOWN]:
        found.differences.append(
            Difference(
                target=test,
                call=f"the body of {test}: its call of {call.name}",
                varied="",
                test=test,
                fields=["reaches"],
                reference={"reaches": ", ".join(call.reference)},
                patch={"reaches": ", ".join(call.patch)},
            )
        )


def _runs(
    suite: CppSuite, binaries: dict[str, Path], folder: Path, names: user.Names
) -> dict[str, list[dict]]:
    # Every run from a folder of the same name length, the program at the same place in it:
    # what a body reads out of bounds depends on where the stack starts.
    # The patched run beside the reference's first, then the reference's second: each side's
    # runs are its own processes, and no run reads another's folder.
    run = user_program.run
    firsts = user_program.each_side(
        {"patched": folder / "0", "reference": folder / "1"},
        lambda side, where: run(suite, binaries[side], where, names.done),
    )
    second = run(suite, binaries["reference"], folder / "2", names.done)
    return {"patched": [firsts["patched"]], "reference": [firsts["reference"], second]}


def _fill(
    found: ReferenceFacts,
    program: user.Program,
    runs: dict[str, list[dict]],
    recipe: user_program.Recipe | None = None,
) -> None:
    """Add the comparison of `runs` to `found` (`recipe`: the user's build it was made in,
    None for the tests' own)."""
    where = f" in a user's build ({recipe.describe()})" if recipe is not None else ""
    cases = [
        (variant.test, f"the body of {variant.test}{where}", variant.varied, variant.test)
        for variant in program.variants
    ]
    fill(found, cases, runs, "case")
