"""The command line: parse, call the API, render. No grading logic lives here."""

from __future__ import annotations

import importlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from patchwitness import cli_matrix
from patchwitness.cli_options import command_of
from patchwitness.console import err, out, status

# Help is click's plain text: typer's rich help imports a markdown parser (0.1 s) into every
# command that prints usage.
app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Grade AI-written patches and refuse false greens.",
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
census_app = typer.Typer(
    no_args_is_help=True, rich_markup_mode=None, help="Inventory tests and assertions."
)
app.add_typer(census_app, name="census")
bag_app = typer.Typer(
    no_args_is_help=True, rich_markup_mode=None, help="Grade a bag of tasks times agents."
)
app.add_typer(bag_app, name="bag")
import_app = typer.Typer(
    no_args_is_help=True, rich_markup_mode=None, help="Make a bag from another benchmark's tasks."
)
app.add_typer(import_app, name="import")
cli_matrix.register(app)


EXIT = {"accept": 0, "accept-with-review": 0, "reject": 1, "ungradable": 2}

SandboxOpt = Annotated[str, typer.Option("--sandbox", help="auto | bwrap | none")]
AllGatesOpt = Annotated[
    bool,
    typer.Option(
        "--all-gates",
        help="run the flag matrix and the pristine run even when a cheaper gate already rejected",
    ),
]
ColdOpt = Annotated[
    bool,
    typer.Option(
        "--cold", help="C++: build everything from nothing for every patch (no warm build trees)"
    ),
]
PolicyOpt = Annotated[
    Path | None, typer.Option("--policy", help="judge by this policy file (TOML) instead")
]
JsonOpt = Annotated[Path | None, typer.Option("--json", help="write the verdict here")]
SarifOpt = Annotated[Path | None, typer.Option("--sarif", help="write SARIF 2.1.0 here")]


@dataclass(frozen=True)
class Grading:
    """How a patch is graded: the options of every command that grades."""

    all_gates: AllGatesOpt = False
    cold: ColdOpt = False
    policy: PolicyOpt = None
    sandbox: SandboxOpt = "auto"

    def settings(self, **options):
        return _settings(
            self.sandbox, self.policy, all_gates=self.all_gates, warm=not self.cold, **options
        )


@dataclass(frozen=True)
class Written:
    """Where one verdict is written besides the terminal."""

    json_out: JsonOpt = None
    sarif: SarifOpt = None


def _fail(message: str, code: int = 2) -> None:
    err().print(f"patchwitness: {message}", markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def _settings(mode: str, policy_file: Path | None = None, **options):
    """The grade's settings: the runner for `--sandbox MODE` (its warnings said once, here),
    the policy, and the options a command sets."""
    from patchwitness import sandbox
    from patchwitness.policy import DEFAULT_POLICY, PolicyError, load_policy
    from patchwitness.settings import Settings

    try:
        runner = sandbox.make_runner(mode)
    except ValueError as exc:
        _fail(str(exc))
        raise  # unreachable
    for warning in runner.warnings:
        err().print(f"[bold yellow]warning:[/] {warning}")
    policy = DEFAULT_POLICY
    if policy_file is not None:
        try:
            policy = load_policy(policy_file)
        except PolicyError as exc:
            _fail(str(exc))
    return Settings(runner=runner, policy=policy, **options)


def _no_cache():
    """A baseline cache that keeps nothing (`--no-cache`)."""
    from patchwitness.baseline import NoCache

    return NoCache()


def _reason_line(verdict) -> str:
    """The first reason of a verdict that could not grade, on one line: the terminal report above
    it carries the rest (the log's last lines of a setup or build that failed at the SHA)."""
    detail = verdict.reasons[0].detail if verdict.reasons else verdict.label
    return (detail.splitlines() or [""])[0]


def _crashed(exc: Exception) -> None:
    """A grader bug: one line, exit 2. Not a verdict."""
    import traceback

    err().print(traceback.format_exc(), markup=False, highlight=False, soft_wrap=True)
    _fail(
        f"internal error (a bug of the grader, not of the patch): {exc.__class__.__name__}: {exc}"
    )


@dataclass(frozen=True)
class GradeArgs:
    task_dir: Annotated[Path, typer.Argument(help="task directory (seed layout + task.toml)")]
    patch: Annotated[Path, typer.Argument(help="unified diff to grade")]
    repo: Annotated[
        Path | None,
        typer.Option(help="repository (default: task.toml or the git repository holding TASK_DIR)"),
    ] = None
    agent: Annotated[str, typer.Option(help="name of the agent that wrote the patch")] = "agent"
    artifacts: Annotated[
        Path | None,
        typer.Option(help="save census artifacts here (and a failed setup's or build's log)"),
    ] = None
    baseline_runs: Annotated[int, typer.Option(help="runs of the suite at the SHA")] = 1
    no_cache: Annotated[bool, typer.Option("--no-cache", help="recompute the baseline")] = False


@app.command()
@command_of(GradeArgs, Written, Grading)
def grade(args: GradeArgs, written: Written, grading: Grading) -> None:
    """Grade one patch. Exit 0 accept, 1 reject, 2 could not grade."""
    from patchwitness.api import grade as grade_patch

    artifacts = args.artifacts
    if artifacts is None and written.json_out is not None:
        # Kept beside the verdict.
        artifacts = written.json_out.with_name(written.json_out.stem + ".census")
    settings = grading.settings(
        baseline_runs=args.baseline_runs,
        artifacts=artifacts,
        baselines=_no_cache() if args.no_cache else None,
    )
    name = args.patch.name
    try:
        # Where the grade is, on stderr while it runs (a terminal only); never in --json.
        with status(f"grading {name}") as say:

            def progress(doing: str) -> None:
                say(f"grading {name}: {doing}")

            verdict = grade_patch(
                args.task_dir,
                args.patch,
                repo=args.repo,
                agent=args.agent,
                settings=settings,
                progress=progress,
                beside=_import_the_verdict_table,
            )
    except Exception as exc:
        _crashed(exc)
        return
    _publish(verdict, written)


def _publish(verdict, written: Written) -> None:
    """One verdict: its files, its table, the reason it could not grade; exit by its grade."""
    _write_outputs(verdict, written.json_out, written.sarif)
    from patchwitness.report.terminal import render_verdict

    render_verdict(out(), verdict)
    if verdict.grade == "ungradable":
        detail = _reason_line(verdict)
        err().print(
            f"patchwitness: {verdict.label}: {detail}",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
    raise typer.Exit(EXIT[verdict.grade])


COVERAGE_EXIT = {
    "all-hit": 0,
    "zero-hits": 1,
    "goldens-red": 1,
    "unscored-suspicious": 1,
    "nothing-scored": 2,
    "no-data": 2,
    "no-executable-source": 3,
    "not-measurable": 4,
}


@app.command()
def coverage(
    task_dir: Annotated[Path, typer.Argument(help="task directory")],
    patch: Annotated[Path, typer.Argument(help="unified diff to grade")],
    repo: Annotated[Path | None, typer.Option(help="repository")] = None,
    json_out: Annotated[Path | None, typer.Option("--json", help="write the report here")] = None,
    sandbox: SandboxOpt = "auto",
) -> None:
    """Coverage on the hunk. Exit 0 every scored patched line ran; 1 some did not
    (or the goldens are red); 2 no executable patched line was scored; 3 not applicable (the
    patch touches no executable source); 4 could not grade (or coverage is not measurable:
    no instrumentation works at the SHA)."""
    from patchwitness.api import grade as grade_patch
    from patchwitness.atomic import write_json

    # Coverage alone: the flag matrix and the pristine run cannot change this gate.
    settings = _settings(sandbox, matrix=False)
    try:
        verdict = grade_patch(task_dir, patch, repo=repo, settings=settings)
    except Exception as exc:
        _crashed(exc)
        return
    gate = verdict.gates.coverage
    if gate is None:
        detail = _reason_line(verdict)
        _fail(f"{verdict.label}: {detail}", code=4)
        return
    report = {
        "status": gate.status,
        "row": gate.row,
        "detail": gate.detail,
        "scored_executable_lines": gate.facts.scored_executable_lines,
        "zero_hit_lines": gate.facts.zero_hit_lines,
        "zero_hit_count": gate.facts.zero_hit_count,
        "unscored_suspicious": gate.facts.unscored_suspicious,
        "pragmas_added": gate.facts.pragmas_added,
        "hunk_lines": gate.facts.hunk_lines,
        "mapped": gate.facts.mapped,
        "flags": gate.facts.flags,
        "patch_sha256": verdict.patch_sha256,
    }
    if json_out is not None:
        write_json(json_out, report)
    sys.stdout.write(json.dumps(report, indent=2) + "\n")
    raise typer.Exit(COVERAGE_EXIT[gate.row])


@census_app.command("write")
def census_write(
    root: Annotated[Path, typer.Argument(help="tree to inventory")],
    output: Annotated[Path, typer.Argument(help="census JSON to write")],
    golden_prefix: Annotated[str, typer.Option(help="project-local assertion prefix")] = "GOLDEN_",
    exclude: Annotated[
        list[str] | None, typer.Option(help="glob of generated files to skip")
    ] = None,
) -> None:
    """Inventory tests and assertions (Python and C++) under ROOT."""
    from patchwitness.atomic import write_json
    from patchwitness.census.scan import ScanOptions, read_root_config, scan_tree

    if not root.is_dir():
        _fail(f"not a directory: {root}")
    options = ScanOptions(
        pytest=read_root_config(root), golden_prefix=golden_prefix, exclude=tuple(exclude or ())
    )
    inventory = scan_tree(root.resolve(), options)
    write_json(output, inventory.to_json(), indent=None)
    out().print(len(inventory.items))


@census_app.command("diff")
def census_diff(
    before: Annotated[Path, typer.Argument(help="census before the patch")],
    after: Annotated[Path, typer.Argument(help="census after the patch")],
    allow: Annotated[Path | None, typer.Argument(help='allowlist {"remove": [keys]}')] = None,
) -> None:
    """Compare two censuses. Exit 0 pass, 1 fail."""
    from patchwitness.census.items import Inventory, diff_inventories
    from patchwitness.task import parse_allowlist

    def load(path: Path) -> Inventory:
        try:
            return Inventory.from_json(json.loads(path.read_text()))
        except (OSError, ValueError) as exc:
            _fail(f"{path}: {exc}")
            raise  # unreachable

    keys: list[str] = []
    if allow is not None:
        try:
            keys, _ = parse_allowlist(allow.read_text(), str(allow))
        except Exception as exc:  # InvalidTask or OSError: one line, no traceback
            _fail(str(exc))
    report = diff_inventories(load(before), load(after), keys).report()
    sys.stdout.write(json.dumps(report, indent=2) + "\n")
    raise typer.Exit(1 if report["verdict"] == "fail" else 0)


@dataclass(frozen=True)
class PullRequest:
    base: Annotated[str, typer.Option(help="the pull request's base (a ref or SHA)")]
    head: Annotated[str, typer.Option(help="the pull request's head")] = "HEAD"
    task: Annotated[
        str, typer.Option(help="the task directory inside the repository, read at the base")
    ] = ".patchwitness"
    repo: Annotated[Path, typer.Option(help="the repository")] = Path(".")
    agent: Annotated[str, typer.Option(help="name recorded in the verdict")] = "pr"


@app.command()
@command_of(PullRequest, Written, Grading)
def pr(request: PullRequest, written: Written, grading: Grading) -> None:
    """Grade a pull request's diff against its base, with the base's own task directory.
    Exit 0 accept, 1 reject, 2 could not grade."""
    from patchwitness.pr import grade_pull_request

    settings = grading.settings()
    try:
        verdict = grade_pull_request(
            request.repo,
            request.task,
            request.base,
            request.head,
            agent=request.agent,
            settings=settings,
        )
    except Exception as exc:
        _crashed(exc)
        return
    _publish(verdict, written)


def _import_the_verdict_table() -> None:
    """What the grade command needs after the grade (rich, 40-60 ms), imported while the suite
    runs."""
    importlib.import_module("patchwitness.report.terminal")


def _write_outputs(verdict, json_out: Path | None, sarif: Path | None) -> None:
    from patchwitness.atomic import write_json

    if json_out is not None:
        write_json(json_out, verdict.model_dump(mode="json"))
    if sarif is not None:
        from patchwitness.report import files

        files.write_all([verdict], sarif=sarif)


@dataclass(frozen=True)
class BagRun:
    bag: Annotated[Path, typer.Argument(help="directory of task directories")]
    patches: Annotated[
        Path,
        typer.Argument(
            help="directory holding AGENT/TASK.diff, or a SWE-bench predictions file "
            "(JSONL or JSON: one agent per model_name_or_path)"
        ),
    ]
    db: Annotated[Path, typer.Option("--db", help="results database (SQLite)")]
    jobs: Annotated[int, typer.Option(help="parallel grades (default: one per core)")] = 0
    executor: Annotated[str, typer.Option(help="local | ray")] = "local"
    ray_address: Annotated[str | None, typer.Option(help="Ray cluster address")] = None
    baseline_runs: Annotated[
        int, typer.Option(help="runs of each suite at its SHA, to find flaky tests")
    ] = 3


@bag_app.command("run")
@command_of(BagRun, Grading)
def bag_run(run: BagRun, grading: Grading) -> None:
    """Grade every agent's patch to every task; resumable; results in the database."""
    from patchwitness.bag import run_bag
    from patchwitness.executors import make_executor

    settings = grading.settings(baseline_runs=run.baseline_runs)
    if not run.bag.is_dir():
        _fail(f"bag directory not found: {run.bag}")
    if not run.patches.exists():
        _fail(f"patches not found (a directory or a predictions file): {run.patches}")
    if run.patches.is_file():
        _check_predictions(run.bag, run.patches)
    try:
        engine = make_executor(run.executor, workers=run.jobs, address=run.ray_address)
    except ValueError as exc:
        _fail(str(exc))
        return
    try:
        result = run_bag(
            run.bag, run.patches, run.db, settings=settings, executor=engine, console=err()
        )
    finally:
        engine.close()
    _bag_said(result, run.db)


def _bag_said(result, db: Path) -> None:
    """What a bag run did, its crashes, and the matrix of its database; exit 2 on a crash."""
    from patchwitness.report.terminal import render_matrix
    from patchwitness.store import ResultsDB

    out().print(
        f"{result.graded} graded, {result.skipped} already in {db} "
        f"({result.tasks} tasks x {result.agents} agents)"
    )
    for crash in result.crashes:
        err().print(
            f"[bold red]grader crash[/] {crash.task} / {crash.agent}: {crash.error} "
            "(not a verdict; graded again on the next run)"
        )
    store = ResultsDB(db)
    render_matrix(
        out(), store.verdicts(), title=f"{db}: tasks x agents", held_out=store.held_out_tasks()
    )
    store.close()
    if result.crashes:
        raise typer.Exit(2)


def _check_predictions(bag: Path, predictions: Path) -> None:
    """Read a predictions file before anything runs: a malformed one is a clean error, and a
    prediction for an instance the bag does not hold is said, then ignored."""
    from patchwitness.bag import task_dirs
    from patchwitness.swebench import SwebenchError, read_predictions, unknown_predictions

    try:
        read = read_predictions(predictions)
    except SwebenchError as exc:
        _fail(str(exc))
        return
    tasks = {task.name for task in task_dirs(bag)}
    for unknown in unknown_predictions(read, tasks):
        err().print(
            f"[yellow]ignored:[/] {unknown.model} / {unknown.instance_id} ({unknown.where}): "
            f"not a task of {bag}",
            highlight=False,
        )


@import_app.command("swebench")
def import_swebench(
    instances: Annotated[Path, typer.Argument(help="SWE-bench instances: JSONL, or a JSON array")],
    repos: Annotated[
        Path,
        typer.Option("--repos", help="local clones: DIR/owner__name, DIR/owner/name or DIR/name"),
    ],
    out_dir: Annotated[Path, typer.Option("--out", help="the bag to write (one task a dir)")],
    setup: Annotated[
        list[str] | None,
        typer.Option(
            "--setup",
            help="REPO=CMD: the setup command of owner/name's tasks (fills $PW_ENV); repeatable",
        ),
    ] = None,
    test_cmd: Annotated[
        list[str] | None,
        typer.Option(
            "--test-cmd",
            help="REPO=CMD: owner/name's test command, instead of pytest on the hidden tests' "
            "directories; repeatable",
        ),
    ] = None,
    allow_test_edits: Annotated[
        bool, typer.Option("--allow-test-edits", help="let the patches edit tests")
    ] = False,
) -> None:
    """One task directory per SWE-bench instance, its test_patch the hidden tests. pytest
    instances only. Exit 0 when at least one was imported, 2 when none."""
    from patchwitness.swebench import (
        ImportOptions,
        SwebenchError,
        import_instances,
        parse_assignments,
        read_instances,
    )

    if not repos.is_dir():
        _fail(f"--repos directory not found: {repos}")
    try:
        read = read_instances(instances)
        options = ImportOptions(
            repos=repos.resolve(),
            out=out_dir,
            setups=parse_assignments(setup or [], "--setup"),
            test_cmds=parse_assignments(test_cmd or [], "--test-cmd"),
            allow_test_edits=allow_test_edits,
        )
    except SwebenchError as exc:
        _fail(str(exc))
        return
    try:
        result = import_instances(read, options)
    except OSError as exc:
        _fail(f"cannot write the bag: {exc}")
        return
    imported = set(result.imported)
    _warn_assignments(read, [i for i in read if i.instance_id in imported], options)
    for instance_id, why in result.skipped:
        out().print(f"[yellow]skipped[/] {instance_id}: {why}", highlight=False)
    out().print(
        f"[bold]{len(result.imported)} imported[/], {len(result.skipped)} skipped "
        f"({len(read)} instances) into {out_dir}",
        highlight=False,
    )
    if not result.imported:
        raise typer.Exit(2)


def _warn_assignments(instances: list, imported: list, options) -> None:
    """A --setup or --test-cmd for a repository no instance names is a typo, most likely; an
    imported repository without --setup runs its tests on the grader's own Python."""
    named = {instance.repo for instance in instances}
    for option, given in (("--setup", options.setups), ("--test-cmd", options.test_cmds)):
        for repo in sorted(set(given) - named):
            err().print(f"[yellow]warning:[/] {option} {repo}: no instance is of that repository")
    for repo in sorted({instance.repo for instance in imported} - set(options.setups)):
        err().print(
            f"[yellow]warning:[/] no --setup for {repo}: its tests run on the grader's own Python"
        )


@app.command()
def rejudge(
    db: Annotated[Path, typer.Argument(help="results database made by `bag run`")],
    policy: PolicyOpt = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="say what would change, write nothing")
    ] = False,
) -> None:
    """Judge every stored grade again from its facts, under the current (or a given) policy,
    without running anything; write the new verdicts and print what changed."""
    from patchwitness.policy import DEFAULT_POLICY, PolicyError, load_policy
    from patchwitness.rejudge import rejudge as rejudge_db

    if not db.is_file():
        _fail(f"results database not found: {db}")
    chosen = DEFAULT_POLICY
    if policy is not None:
        try:
            chosen = load_policy(policy)
        except PolicyError as exc:
            _fail(str(exc))
    result = rejudge_db(db, chosen, write=not dry_run)
    for change in result.changes or []:
        out().print(change.line(), markup=False, highlight=False, soft_wrap=True)
    said = f"{result.judged} judged again, {len(result.changes or [])} changed"
    if result.without_facts:
        said += f", {result.without_facts} without stored facts (grade them again)"
    out().print(said + (" (dry run: nothing written)" if dry_run else ""))


@dataclass(frozen=True)
class Shown:
    """Which verdicts of a results database a report shows, and how."""

    db: Annotated[Path, typer.Argument(help="results database")]
    reveal: Annotated[bool, typer.Option(help="show held-out tasks' ids and details")] = False
    show_mixed: Annotated[
        bool,
        typer.Option(
            help="show verdicts with different fingerprints apart, labelled, instead of refusing"
        ),
    ] = False
    agent: Annotated[
        str | None,
        typer.Option(help="the agent (model) of the --swebench report, when there are several"),
    ] = None


@dataclass(frozen=True)
class ReportFiles:
    """The files a report writes besides the terminal's matrix."""

    html: Annotated[Path | None, typer.Option("--html", help="write one self-contained page")] = (
        None
    )
    sarif: Annotated[Path | None, typer.Option("--sarif", help="write SARIF 2.1.0")] = None
    junit: Annotated[Path | None, typer.Option("--junit", help="write JUnit XML")] = None
    jsonl: Annotated[Path | None, typer.Option("--jsonl", help="one verdict per line")] = None
    swebench: Annotated[
        Path | None,
        typer.Option("--swebench", help="write the SWE-bench harness's run report (JSON)"),
    ] = None


@app.command()
@command_of(Shown, ReportFiles)
def report(shown: Shown, files: ReportFiles) -> None:
    """Publish the matrix from a results database: terminal, and optional files."""
    from patchwitness.report.terminal import render_matrix
    from patchwitness.store import ResultsDB

    if not shown.db.is_file():
        _fail(f"results database not found: {shown.db}")
    if shown.agent is not None and files.swebench is None:
        _fail("--agent chooses the agent of the --swebench report: give --swebench too")
    store = ResultsDB(shown.db)
    verdicts = store.verdicts()
    held_out = store.held_out_tasks()
    crashes = store.crashes()
    store.close()
    # Checked before anything is printed: a refusal should not follow a whole matrix.
    swebench_report = (
        _swebench_report(verdicts, crashes, shown.agent, held_out, shown.reveal)
        if files.swebench is not None
        else None
    )
    if crashes:
        err().print(
            f"{len(crashes)} grade(s) crashed (grader bugs, not verdicts; not in the matrix): "
            + ", ".join(f"{c['task']}/{c['agent']}" for c in crashes[:5])
        )
    render_matrix(
        out(),
        verdicts,
        title=f"{shown.db}: tasks x agents",
        held_out=held_out,
        reveal=shown.reveal,
        show_mixed=shown.show_mixed,
    )
    _write_report_files(verdicts, held_out, shown, files)
    if files.swebench is not None and swebench_report is not None:
        _write_swebench(files.swebench, *swebench_report)


def _write_report_files(verdicts: list, held_out: set[str], shown: Shown, to: ReportFiles) -> None:
    if not any((to.html, to.sarif, to.junit, to.jsonl)):
        return
    from patchwitness.report import files

    files.write_all(
        verdicts,
        held_out=held_out,
        reveal=shown.reveal,
        show_mixed=shown.show_mixed,
        html=to.html,
        sarif=to.sarif,
        junit=to.junit,
        jsonl=to.jsonl,
    )


def _swebench_report(
    verdicts: list, crashes: list[dict], agent: str | None, held_out: set[str], reveal: bool
) -> tuple[str, dict]:
    """The agent and its SWE-bench run report, or a clean refusal."""
    from patchwitness.swebench import SwebenchError, choose_agent, run_report

    try:
        agent = choose_agent(verdicts, crashes, agent)
        report = run_report(verdicts, crashes, agent)
    except SwebenchError as exc:
        _fail(str(exc))
        raise  # unreachable
    # The run report names every instance: a held-out task's id is not to be published.
    named = set(report["completed_ids"]) | set(report["empty_patch_ids"]) | set(report["error_ids"])
    if named & held_out and not reveal:
        _fail(
            f"{len(named & held_out)} held-out task(s) would be named in the SWE-bench report: "
            "pass --reveal to write them"
        )
    return agent, report


def _write_swebench(path: Path, agent: str, report: dict) -> None:
    from patchwitness.atomic import write_json

    write_json(path, report)
    out().print(
        f"SWE-bench run report of {agent}: {report['resolved_instances']} resolved, "
        f"{report['unresolved_instances']} unresolved ({len(report['unprintable_ids'])} "
        f"UNPRINTABLE), {report['empty_patch_instances']} empty, "
        f"{report['error_instances']} errors, of {report['total_instances']} -> {path}",
        highlight=False,
    )


@app.command()
def schema() -> None:
    """Print the verdict JSON Schema."""
    from patchwitness.model import verdict_schema

    sys.stdout.write(json.dumps(verdict_schema(), indent=2) + "\n")


@app.command()
def tables(
    markdown: Annotated[
        bool, typer.Option("--markdown", help="the README's text of the tables")
    ] = False,
) -> None:
    """Print every decision table, in the order its rows are tried."""
    if markdown:
        from patchwitness.policy import markdown_tables

        sys.stdout.write(markdown_tables())
        return
    from patchwitness.report.terminal import render_tables

    render_tables(out())


@app.command()
def demo(
    workdir: Annotated[
        Path | None, typer.Option(help="build the demo here (default: a temporary directory)")
    ] = None,
    jobs: Annotated[int, typer.Option(help="parallel grades")] = 0,
    language: Annotated[str, typer.Option(help="python | cpp | all")] = "all",
    sandbox: SandboxOpt = "auto",
) -> None:
    """Build the embedded demo bag and grade every agent patch in it."""
    from patchwitness.demo.run import run_demo

    settings = _settings(sandbox)
    code = run_demo(out(), workdir=workdir, jobs=jobs, language=language, settings=settings)
    raise typer.Exit(code)


@app.command()
def version() -> None:
    """Print the version."""
    from patchwitness.build_id import grader_build

    out().print(grader_build())


def app_for(args: list[str]) -> typer.Typer:
    """The app that parses `args`: when they name a command or a group, an app holding only that
    one. typer turns every registered command into click's form before it parses (25 ms for
    all of them); a command needs only its own. A callback keeps the app a group, so the command
    is still named, parsed and helped exactly as in the whole app (tests/test_cli_app_for.py)."""
    name = args[0] if args else ""
    commands = [c for c in app.registered_commands if command_name(c) == name]
    groups = [g for g in app.registered_groups if g.name == name]
    if not commands and not groups:
        return app  # help, a typo (click suggests the near names), no arguments
    solo = typer.Typer(
        add_completion=False,
        help=app.info.help,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
    )
    solo.callback()(_no_options)
    solo.registered_commands = commands
    solo.registered_groups = groups
    return solo


def command_name(info: typer.models.CommandInfo) -> str:
    """The name typer gives a command: its own, or its function's."""
    return info.name or typer.main.get_command_name(info.callback.__name__)


def _no_options() -> None:
    pass  # the whole app takes no options of its own; this callback only keeps `solo` a group


def main() -> None:
    try:
        app_for(sys.argv[1:])()
    except KeyboardInterrupt:
        err().print("patchwitness: interrupted")
        sys.exit(130)


if __name__ == "__main__":
    main()
