"""`patchwitness demo`: build the embedded demo bag, grade every agent patch, print the matrix."""

from __future__ import annotations

import tempfile
from pathlib import Path

from rich.console import Console
from rich.table import Table

from patchwitness.bag import Crash, Job, grade_jobs
from patchwitness.demo import build, shop
from patchwitness.demo.bag import DemoBag
from patchwitness.model import Verdict
from patchwitness.report.terminal import render_matrix
from patchwitness.settings import Settings


def build_python(root: Path) -> DemoBag:
    """The shop repository, its tasks, and one patch per (task, agent) with an expectation."""
    repo = root / "repos" / "shop"
    sha = build.make_repo(repo, shop.FILES, "shop at the locked SHA")
    bag = DemoBag(root)
    for task in shop.TASKS:
        task_dir = root / "bag" / task.name
        toml = (
            f'language = "python"\nrepo = "../../repos/shop"\n'
            f"setup = '{shop.SETUP}'\nsetup_depends_on = []\ntimeout = 120\n"
            f"# {task.note}\n"
        )
        build.write_task(
            task_dir,
            sha=sha,
            test_cmd=shop.TEST_CMD,
            allow_test_edits=task.allow_test_edits,
            failing=list(task.failing),
            toml=toml,
        )
        if task.hidden:
            hidden = build.apply_edits(shop.FILES, list(task.hidden))
            (task_dir / "test_patch.diff").write_text(build.make_diff(shop.FILES, hidden))
        for agent, strategy in shop.AGENTS.items():
            expected = shop.EXPECTED.get((task.name, agent))
            if expected is None:
                continue
            after = build.apply_edits(shop.FILES, strategy(task))
            patch = root / "patches" / agent / f"{task.name}.diff"
            patch.parent.mkdir(parents=True, exist_ok=True)
            patch.write_text(build.make_diff(shop.FILES, after))
            bag.jobs.append(Job(task_dir, patch, agent))
            bag.expected[(task.name, agent)] = expected
    return bag


def build_demo(root: Path, language: str = "all") -> DemoBag:
    bag = DemoBag(root)
    if language in ("python", "all"):
        part = build_python(root)
        bag.jobs += part.jobs
        bag.expected.update(part.expected)
    if language in ("cpp", "all"):
        try:
            from patchwitness.demo import cpp_run
        except ImportError:
            return bag
        part = cpp_run.build_cpp(root)
        bag.jobs += part.jobs
        bag.expected.update(part.expected)
    return bag


def mismatches(bag: DemoBag, verdicts: list[Verdict]) -> list[tuple[str, str, str, str]]:
    out = []
    for v in verdicts:
        want = bag.expected.get((v.task, v.agent))
        if want is not None and (v.label, v.grade) != want:
            out.append((v.task, v.agent, f"{want[0]}/{want[1]}", f"{v.label}/{v.grade}"))
    return out


def run_demo(
    console: Console,
    workdir: Path | None = None,
    jobs: int = 0,
    language: str = "all",
    settings: Settings | None = None,
) -> int:
    with tempfile.TemporaryDirectory(prefix="patchwitness-demo-") as scratch:
        root = Path(workdir) if workdir else Path(scratch)
        bag = build_demo(root, language)
        console.print(
            f"demo bag: {len({j.task_dir for j in bag.jobs})} tasks, "
            f"{len({j.agent for j in bag.jobs})} agents, {len(bag.jobs)} patches "
            f"in {root}"
        )
        settings = (settings or Settings()).but(matrix_workers=1)
        done = grade_jobs(bag.jobs, workers=jobs, console=console, settings=settings)
        crashes = [c for c in done if isinstance(c, Crash)]
        verdicts = [v for v in done if isinstance(v, Verdict)]
        render_matrix(console, verdicts, title="demo: tasks x agents (label per patch)")
        for crash in crashes:
            console.print(f"[bold red]grader crash[/] {crash.task}/{crash.agent}: {crash.error}")
            console.print(crash.trace, highlight=False, markup=False)
        wrong = mismatches(bag, verdicts)
        if wrong or crashes:
            table = Table(title="UNEXPECTED labels", title_style="bold red")
            for col in ("task", "agent", "expected", "got"):
                table.add_column(col)
            for row in wrong:
                table.add_row(*row)
            console.print(table)
            for v in verdicts:
                if (v.task, v.agent) in {(r[0], r[1]) for r in wrong}:
                    console.print(
                        f"{v.task}/{v.agent}: "
                        + "; ".join(f"{r.gate}:{r.row}: {r.detail}" for r in v.reasons),
                        highlight=False,
                    )
            return 1
        console.print(f"[green]every one of the {len(verdicts)} labels is the expected one[/]")
        return 0
