"""`patchwitness matrix`: the compiler flag matrix from the command line.

    patchwitness matrix TASK_DIR [PATCH] [--jsonl OUT] [--print-commands] [--sandbox MODE]
    patchwitness matrix promote --golden G --bad-patch P TASK_DIR

The first spelling is short for `patchwitness matrix run TASK_DIR [PATCH]`: a click group cannot
take a positional argument and a subcommand name in the same place, so the group rewrites any
first word that is not a subcommand (`promote`, `run`) into `run ...`. A task directory literally
named `promote` is written `./promote`.

Exit codes of `run`: 0 every required cell passes; 1 the gate rejects (a required cell red or
missing because of the patch, or, without PATCH, any required cell red at the SHA); 3 every red
required cell was red at the SHA too (the noise floor: fix the subject); 2 could not run.
`promote`: 0 promotable, 1 not, 2 could not run.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from typer.core import TyperGroup

from patchwitness.cli_options import command_of
from patchwitness.console import err, out

if TYPE_CHECKING:  # the verdict model costs half a second to import: only where it is used
    import click
    from rich.console import Console

    from patchwitness.model import Cell, MatrixGate


class MatrixGroup(TyperGroup):
    """`matrix TASK_DIR ...` means `matrix run TASK_DIR ...`."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = ["run", *args]
        return super().parse_args(ctx, args)


matrix_app = typer.Typer(
    cls=MatrixGroup,
    no_args_is_help=True,
    rich_markup_mode=None,
    help=(
        "The compiler flag matrix. `patchwitness matrix TASK_DIR [PATCH]` is short "
        "for `patchwitness matrix run TASK_DIR [PATCH]`."
    ),
)


EXIT_PASS, EXIT_RED, EXIT_ERROR, EXIT_NOISE = 0, 1, 2, 3

SandboxOpt = Annotated[str, typer.Option("--sandbox", help="auto | bwrap | none")]
RepoOpt = Annotated[Path | None, typer.Option(help="repository (default: from the task)")]


def register(app: typer.Typer) -> None:
    """Add `matrix` (with `run` and `promote`) to the main app."""
    app.add_typer(matrix_app, name="matrix")


def _fail(message: str, code: int = EXIT_ERROR) -> None:
    err().print(f"patchwitness: {message}", markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def _settings(mode: str):
    from patchwitness import sandbox
    from patchwitness.settings import Settings

    try:
        runner = sandbox.make_runner(mode)
    except ValueError as exc:
        _fail(str(exc))
        raise  # unreachable
    for warning in runner.warnings:
        err().print(f"[bold yellow]warning:[/] {warning}")
    return Settings(runner=runner)


def render_cells(console: Console, cells: list[Cell], title: str) -> None:
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for column in ("golden", "envelope", "status", "at SHA", "cached", "RSS MB", "CPU s", "notes"):
        table.add_column(column, overflow="fold")
    for cell in cells:
        found = "; ".join(
            f"{f.get('kind', '')} @ {f.get('location', '')}" for f in cell.sanitizer_findings[:2]
        )
        style = "green" if cell.status == "pass" else ("yellow" if not cell.required else "red")
        table.add_row(
            cell.golden,
            cell.envelope + ("" if cell.required else " (optional)"),
            f"[{style}]{cell.status}[/]",
            cell.baseline_status or "",
            "yes" if cell.cached else "",
            f"{cell.peak_rss_kb / 1024:.1f}" if cell.peak_rss_kb else "",
            f"{cell.cpu_s:.2f}" if cell.cpu_s else "",
            found or cell.note,
        )
    console.print(table)


def _write_jsonl(path: Path, cells: list[Cell]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as handle:
        for cell in cells:
            handle.write(json.dumps(cell.model_dump(mode="json")) + "\n")


def exit_code(gate: MatrixGate | None, cells: list[Cell]) -> int:
    if gate is None:  # the SHA alone
        return EXIT_PASS if all(c.status == "pass" for c in cells if c.required) else EXIT_RED
    if gate.effect == "reject":
        return EXIT_RED
    return EXIT_NOISE if gate.row == "baseline-red" else EXIT_PASS


@dataclass(frozen=True)
class MatrixRun:
    task_dir: Annotated[Path, typer.Argument(help="task directory")]
    patch: Annotated[
        Path | None, typer.Argument(help="unified diff (without it: the SHA's own matrix)")
    ] = None
    repo: RepoOpt = None
    envelope: Annotated[
        list[str] | None,
        typer.Option("--envelope", help="add an optional built-in envelope (tsan, o3, lto, clang)"),
    ] = None
    workers: Annotated[int, typer.Option(help="parallel cells (default: one per core)")] = 0
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="compile everything, reuse no baseline")
    ] = False
    sandbox: SandboxOpt = "auto"


@dataclass(frozen=True)
class MatrixOutputs:
    jsonl: Annotated[
        Path | None, typer.Option("--jsonl", help="one JSON row per (golden, envelope)")
    ] = None
    json_out: Annotated[Path | None, typer.Option("--json", help="write the gate here")] = None
    print_commands: Annotated[
        bool,
        typer.Option(
            "--print-commands", help="print a shell script reproducing every cell (stdout)"
        ),
    ] = False


@matrix_app.command("run")
@command_of(MatrixRun, MatrixOutputs)
def matrix_run(run: MatrixRun, outputs: MatrixOutputs) -> None:
    """Rebuild and rerun the goldens under every envelope. Exit 0 every required cell passes,
    1 red, 3 red only where the SHA is red too, 2 could not run."""
    from patchwitness.errors import GradeStop
    from patchwitness.matrix.commands import script

    show = err() if outputs.print_commands else out()
    try:
        task, plan, gate, cells = _run_matrix(run)
    except (GradeStop, OSError) as exc:
        _fail(f"{getattr(exc, 'label', 'error')}: {exc}")
        return
    render_cells(show, cells, f"{task.name}: {'patched' if gate else 'the SHA'} ({plan.mode})")
    if gate is not None:
        show.print(
            f"matrix {gate.status} [{gate.row}] {gate.detail}", markup=False, highlight=False
        )
        for advice in gate.facts.advice:
            show.print(f"advice: {advice}", markup=False, highlight=False, soft_wrap=True)
    if outputs.jsonl is not None:
        _write_jsonl(outputs.jsonl, cells)
    if outputs.json_out is not None and gate is not None:
        outputs.json_out.write_text(json.dumps(gate.model_dump(mode="json"), indent=2))
    if outputs.print_commands:
        checkout = (task.repo, task.sha, run.patch.resolve() if run.patch else None)
        sys.stdout.write(script(plan, task.repo, task=task, cells=cells, checkout=checkout))
    raise typer.Exit(exit_code(gate, cells))


def _run_matrix(run: MatrixRun):
    """The task, its plan, the gate over the patch (None without one) and the cells shown."""
    from dataclasses import replace

    from patchwitness import history
    from patchwitness.environment import prepare
    from patchwitness.gitpatch import precheck
    from patchwitness.matrix import collect as matrix
    from patchwitness.matrix.cache import CompileCache
    from patchwitness.patch import sha256_of
    from patchwitness.task import load_task

    settings = _settings(run.sandbox)
    task = load_task(run.task_dir, run.repo)
    plan = matrix.load_plan(task, run.envelope or [])
    data = run.patch.read_bytes() if run.patch is not None else None
    if data is not None:
        precheck(data, allow_binary=task.options.patch.allow_binary)
    env = prepare(task, settings.runner, settings.cache) if plan.mode == "cmake" else None
    tools = replace(
        matrix.Tools.of(settings, env),
        workers=run.workers or None,
        compiles=CompileCache(settings.cache / "matrix", enabled=not run.no_cache),
    )
    baseline = matrix.obtain_baseline(task, plan, tools, reuse=not run.no_cache)
    if data is None:
        return task, plan, None, baseline
    with history.checkout(task, settings.cache) as ws:
        parsed = ws.apply(data, allow_binary=task.options.patch.allow_binary)
        gate = matrix.gate(
            task,
            plan,
            ws.repo,
            ws.new_dir("matrix"),
            tools,
            baseline=baseline,
            patch_id=sha256_of(data),
            patch=parsed,
        )
    return task, plan, gate, list(gate.facts.cells)


@matrix_app.command("promote")
def matrix_promote(
    task_dir: Annotated[Path, typer.Argument(help="task directory")],
    golden: Annotated[Path, typer.Option("--golden", help="the candidate golden (C++ file)")],
    bad_patch: Annotated[Path, typer.Option("--bad-patch", help="a known-bad patch")],
    dest: Annotated[
        str | None, typer.Option("--as", help="its path in the tree (default: beside the goldens)")
    ] = None,
    include: Annotated[
        list[str] | None, typer.Option("--include", help="extra include directory")
    ] = None,
    repo: RepoOpt = None,
    jsonl: Annotated[Path | None, typer.Option("--jsonl", help="both runs' cells")] = None,
    sandbox: SandboxOpt = "auto",
) -> None:
    """Promotable when the golden fails at least one envelope on the known-bad
    patch and passes every envelope on the SHA. Exit 0 promotable, 1 not, 2 could not run."""
    from dataclasses import replace

    from patchwitness.errors import GradeStop
    from patchwitness.gitpatch import precheck
    from patchwitness.matrix import collect as matrix
    from patchwitness.matrix.promote import promote
    from patchwitness.task import load_task

    settings = _settings(sandbox)
    try:
        task = load_task(task_dir, repo)
        plan = matrix.load_plan(task)
        if include:
            plan = replace(plan, include=(*plan.include, *include))
        data = bad_patch.read_bytes()
        precheck(data, allow_binary=task.options.patch.allow_binary)
        result = promote(task, plan, golden, data, dest=dest, tools=matrix.Tools.of(settings))
    except (GradeStop, OSError) as exc:
        _fail(f"{getattr(exc, 'label', 'error')}: {exc}")
        return
    render_cells(out(), result.sha_cells, f"{result.golden} on the SHA")
    render_cells(out(), result.bad_cells, f"{result.golden} on the known-bad patch")
    verdict = "promotable" if result.promotable else "not promotable"
    out().print(f"{result.golden}: {verdict}: {result.reason}", highlight=False)
    if jsonl is not None:
        _write_jsonl(jsonl, [*result.sha_cells, *result.bad_cells])
    raise typer.Exit(EXIT_PASS if result.promotable else EXIT_RED)


def main() -> None:  # pragma: no cover - for `python -m patchwitness.cli_matrix` while unwired
    app = typer.Typer(
        add_completion=False,
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
    )
    register(app)

    @app.callback()
    def _root() -> None:
        """patchwitness (matrix only)."""

    app()


if __name__ == "__main__":  # pragma: no cover
    main()
