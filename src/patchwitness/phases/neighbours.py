"""The failing tests' neighbours (neighbour_tests.py) run under the reference fix and under the
patch: a Python task with a reference, after the calls are compared (phases/reference.py).

Each neighbour is a failing test with one statement left out and its assertions asked instead
of raised. Its module goes beside the test's, in the reference's tree (run twice, once per
task: a neighbour whose answers differ between the two is left out) and in a patched tree no
run has written into (a copy of the comparison's fresh one, with the hidden tests as the
grader's run had them); each run collects that module alone, under the task's own
pytest command and probe, so fixtures, parameters and conftests are as in the test's own run.
A neighbour whose answers differ between the trees is a difference: the patch's fix depends on
something the test did that the reference's does not.
"""

from __future__ import annotations

import contextlib
import json
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from patchwitness import atomic, jsonlines, neighbour_tests
from patchwitness.facts import HiddenCollected
from patchwitness.model import Difference
from patchwitness.phases.context import GradeContext
from patchwitness.phases.hidden import hidden_applied
from patchwitness.suites import Surroundings
from patchwitness.workspace import Workspace, as_text, safe_read

LIMIT_BYTES = 8 << 20  # what the grader reads of a run's answers
SHOWN = 160  # characters of a side's answers shown in a difference


@dataclass
class Compared:
    neighbours: int = 0  # neighbours that ran alike twice under the reference
    differences: list[Difference] = field(default_factory=list)
    skipped: str = ""


@dataclass(frozen=True)
class Planned:
    test_file: str  # the failing test's file, as its keys name it
    made: str  # the neighbours' module, as keys name it
    tree_path: str  # where that module goes in a tree
    text: str  # the failing tests' module, as the reference's tree holds it
    names: list[str]  # its failing test functions
    module: neighbour_tests.Module


def compare(
    ctx: GradeContext,
    reference_tree: Path,
    patched: Workspace,
    planned: list[Planned],
    failing: list[str],
    hidden: HiddenCollected | None,
) -> Compared:
    """The `planned` neighbours of `failing` (test keys) under the reference's tree and
    `patched` (a fresh patched tree no run has written into), with the hidden tests as the
    grader's run had them."""
    ctx.clock.say(f"the reference fix: {sum(len(p.module.neighbours) for p in planned)} "
                  "neighbours of the failing tests")  # fmt: skip
    with _with_hidden(ctx, patched, hidden) as ok:
        if not ok:
            return Compared(skipped="the hidden tests do not apply over the patch")
        work = patched.new_dir("neighbours")
        steady = _reference_answers(ctx, reference_tree, planned, failing, work)
        answers = _run(ctx, patched.repo, planned, work / "patched")
    return _compared(planned, steady, answers)


@contextlib.contextmanager
def _with_hidden(
    ctx: GradeContext, patched: Workspace, hidden: HiddenCollected | None
) -> Iterator[bool]:
    if hidden is None:
        yield True
        return
    with hidden_applied(patched, ctx.task, hidden.model_copy(deep=True)) as ok:
        yield ok


def _reference_answers(
    ctx: GradeContext, tree: Path, planned: list[Planned], failing: list[str], work: Path
) -> dict[str, list]:
    """The neighbours' answers under the reference that came out alike in two runs, once per
    task: kept in the cache, keyed by the SHA's baseline, the reference, the hidden tests, the
    failing tests and the modules the neighbours were made of."""
    modules = (f"{p.tree_path}\0{p.text}" for p in planned)
    kept = ctx.kept_for_the_reference("neighbours", *failing, *modules)
    try:
        known = json.loads(kept.read_text())
        return {k: [tuple(a) for a in v] for k, v in known["answers"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    first = _run(ctx, tree, planned, work / "reference-1")
    again = _run(ctx, tree, planned, work / "reference-2")
    # What the reference does not answer alike twice, or where its run did not finish, is no
    # measure of the patch.
    steady = {k: v for k, v in first.items() if again.get(k) == v and _ended(v)}
    kept.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_json(kept, {"answers": steady}, indent=None)
    return steady


def plan(ctx: GradeContext, tree: Path, failing: list[str]) -> tuple[list[Planned], str]:
    """The neighbours' modules of the failing tests' files, as the reference's tree holds
    them; or none, and why."""
    by_file: dict[str, list[str]] = defaultdict(list)
    for key in failing:
        part, _, rest = key.partition("::")
        name = rest.split("[", 1)[0]
        if not rest or name.count("::") > 1 or name in by_file[part]:
            continue  # a class inside a class: no neighbours
        by_file[part].append(name)
    config = ctx.base.pytest_config
    planned: list[Planned] = []
    why = "no failing test is a function or a method of a module's class" if not by_file else ""
    for part, names in sorted(by_file.items()):
        where = _located(tree, part, ctx.task.options.cwd)
        made = neighbour_tests.module_name(part, list(config.python_files))
        if where is None or made is None:
            why = why or f"{part}: no module pytest would collect beside it"
            continue
        text = as_text(safe_read(tree, where))
        module = neighbour_tests.neighbours_of(text, names, "") if text is not None else None
        if text is None or module is None:
            why = why or f"{part}: no statement of its failing tests can be left out"
            continue
        tree_path = str(Path(where).parent / Path(made).name)
        planned.append(Planned(part, made, tree_path, text, names, module))
    return planned, why


def _located(tree: Path, part: str, cwd: str) -> str | None:
    """The tree path of a file a key names (keys are relative to pytest's root: the task's
    folder or the tree's)."""
    cwd = cwd.strip("/")
    for path in (f"{cwd}/{part}" if cwd and cwd != "." else part, part):
        if (tree / path).is_file():
            return path
    return None


def _run(ctx: GradeContext, tree: Path, planned: list[Planned], scratch: Path) -> dict[str, list]:
    """One run of every neighbours' module over `tree`: each test id's answers in order. The
    modules are the grader's, written for this run alone and removed after it."""
    home = scratch / "home"
    home.mkdir(parents=True, exist_ok=True)
    report = home / "neighbours.jsonl"
    report.touch()
    written = []
    for plan in planned:
        # Made again with this run's report: the module the plan was made from, unchanged.
        module = neighbour_tests.neighbours_of(plan.text, plan.names, str(report))
        if module is None:
            continue
        target = tree / plan.tree_path
        target.write_text(module.text, encoding="utf-8")
        written.append(target)
    try:
        select = tuple(f"{p.made}::" for p in planned)
        ctx.suite.run(tree, scratch, around=Surroundings(select=select, narrow=True))
    finally:
        for target in written:
            target.unlink(missing_ok=True)
    return _answers(report)


def _answers(report: Path) -> dict[str, list]:
    """Each test id's answers, in the order its neighbour gave them."""
    out: dict[str, list] = defaultdict(list)
    for record in jsonlines.records(report, LIMIT_BYTES):
        if isinstance(record.get("test"), str):
            answer = (record.get("kind"), record.get("line"), record.get("value"))
            out[record["test"]].append(answer)
    return dict(out)


def _compared(planned: list[Planned], steady: dict[str, list], patched: dict) -> Compared:
    by_function = {n.function: (p, n) for p in planned for n in p.module.neighbours}
    found = Compared()
    for test in sorted(steady):
        found.neighbours += 1
        mine = patched.get(test, [])
        if mine == steady[test]:
            continue
        function = test.split("::")[-1].split("[", 1)[0]
        plan, neighbour = by_function.get(function, (None, None))
        if plan is None or neighbour is None:
            continue
        found.differences.append(
            Difference(
                target=f"{plan.test_file}::{neighbour.test}",
                call=neighbour.said(),
                varied="a literal of the test moved"
                if neighbour.moved
                else "a statement of the test left out",
                test=test,
                fields=["assertions"],
                reference={"assertions": _shown(steady[test], mine)},
                patch={"assertions": _shown(mine, steady[test])},
            )
        )
    if not found.neighbours:
        found.skipped = "no neighbour answered alike twice under the reference"
    return found


def _ended(answers: list) -> bool:
    return bool(answers) and answers[-1][0] == "end"


def _shown(answers: list, other: list) -> str:
    """One side's answers from the first that differs from the other side's: `line 698
    holds, ended passed`."""
    start = next(
        (i for i, (a, b) in enumerate(zip(answers, other, strict=False)) if a != b),
        min(len(answers), len(other)),
    )
    said = [
        f"ended {value}" if kind == "end" else f"line {line} {value}"
        for kind, line, value in answers[start:]
    ]
    text = ("… " if start else "") + (", ".join(said) or "(no answer)")
    return text if len(text) <= SHOWN else text[: SHOWN - 1] + "…"
