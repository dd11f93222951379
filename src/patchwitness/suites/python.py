"""The Python suite: the task's pytest command, through the runner, with the grader's probe
loaded (outcomes stream back over a pipe), instrumented with coverage.py when asked; first the
task's in-place build (`[python] build`, a compiled extension) when it has one."""

from __future__ import annotations

import hashlib
import os
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from patchwitness import failure_log
from patchwitness.environment import Environment
from patchwitness.model import BuildFacts, TestRun
from patchwitness.outcomes.pytest_probe import ProbeReport, parse_probe
from patchwitness.runner import Limits, Request, Result, Runner
from patchwitness.suites import (
    AT_THE_GRADER,
    NO_FOCUS,
    Focus,
    Instrumentation,
    RunSurface,
    SuiteRun,
    Surroundings,
    relative,
)
from patchwitness.task import Task

if TYPE_CHECKING:
    from patchwitness.hits.python import Instrumentation as LineInstrumentation

PROBE_DIR = Path(__file__).resolve().parent.parent / "probe"

# -p no:cacheprovider: the run must not write .pytest_cache into the worktree (and no --lf/--ff
# state may leak from one run into the next).
PROBE_ADDOPTS = "-p pw_probe -p no:cacheprovider"

# Probes compiled into the measured files only (hits/python.py): every other frame runs at its
# plain speed. coverage.py stands in when the probes change what the tests do at the SHA.
LINE_PROBES = Instrumentation("line probes")
COVERAGE_PY = Instrumentation("coverage.py")
# A task with a compiled extension (`[python] build`): its C and C++ sources are built with gcov's
# flags too, and scored like a C++ task's.
COVERAGE_PY_GCOV = Instrumentation("coverage.py and gcov", ("--coverage", "-O0"))
LINE_PROBES_GCOV = Instrumentation("line probes and gcov", COVERAGE_PY_GCOV.flags)


@dataclass
class PytestRun:
    run: TestRun
    probe: ProbeReport
    result: Result
    extra: dict = field(default_factory=dict)

    @property
    def timed_out(self) -> bool:
        return self.result.timed_out


def python_path(tree: Path, extra: list[str], probe_dir: Path = PROBE_DIR) -> str:
    entries = [str(probe_dir), *extra, str(tree)]
    if (tree / "src").is_dir():
        entries.append(str(tree / "src"))
    return os.pathsep.join(entries)


def run_env(tree: Path, env: Environment, extra_path: list[str] | None = None) -> dict[str, str]:
    """The variables a test run gets besides the runner's own."""
    # The run's plugins are the environment's, named: none a file of the tree declares.
    plugins = env.surface.plugin_variables() or {}
    named = plugins.pop("PYTEST_ADDOPTS", "")
    variables = {
        "PYTEST_ADDOPTS": f"{PROBE_ADDOPTS} {named}".strip(),
        "PYTHONPATH": python_path(tree, list(extra_path or [])),
        "PW_REPO": str(tree),
        **plugins,
    }
    if env.path is not None:
        variables["VIRTUAL_ENV"] = str(env.path)
    return variables


def probe_alone(folder: Path, around: Surroundings) -> Path:
    """The probe alone, under another name (`around.probe_name`): no sitecustomize, no line
    probes, no open audit, and no module of the grader's names on the run's path; it sets the
    interpreter's recursion limit first when `around` has one."""
    folder.mkdir(parents=True, exist_ok=True)
    source = (PROBE_DIR / "pw_probe.py").read_text()
    if around.recursion_limit:
        source = f"import sys\nsys.setrecursionlimit({around.recursion_limit})\n{source}"
    (folder / f"{around.probe_name}.py").write_text(source)
    return folder


def run_pytest(
    runner: Runner,
    task: Task,
    tree: Path,
    home: Path,
    env: Environment,
    inst: LineInstrumentation | None = None,
    around: Surroundings = AT_THE_GRADER,
) -> PytestRun:
    """The task's test command over `tree`, with the grader's probe; `inst`: the coverage
    measurement the run carries (its variables, its path, its folders)."""
    variables = run_env(tree, env, inst.path() if inst else None)
    variables.update(inst.env() if inst else {})
    variables.update(dict(around.variables))
    if around.pytest_options:
        variables["PYTEST_ADDOPTS"] += f" {around.pytest_options}"
    writable = [inst.directory] if inst else []
    readable = inst.readable() if inst else []
    report_file = None
    if around.report_by_file:
        (home.parent / "report").mkdir(parents=True, exist_ok=True)
        report_file = home.parent / "report" / "events.jsonl"
        writable.append(report_file.parent)
    for variable, keys in (("PW_SELECT", around.select), ("PW_FIRST", around.first)):
        if keys:
            listed = home.parent / "select" / variable.lower()
            listed.parent.mkdir(parents=True, exist_ok=True)
            listed.write_text("".join(f"{key}\n" for key in keys), encoding="utf-8")
            variables[variable] = str(listed)
            readable.append(listed.parent)
    if around.narrow and around.select:
        variables["PW_NARROW"] = "1"
    if around.probe_name:
        alone = probe_alone(home.parent / "reporter", around)
        extra = inst.path() if inst else []
        variables["PYTHONPATH"] = python_path(tree, extra, alone)
        addopts = variables["PYTEST_ADDOPTS"].replace("-p pw_probe", f"-p {around.probe_name}")
        variables["PYTEST_ADDOPTS"] = addopts
        readable.append(alone)
    request = Request(
        command=task.test_cmd,
        cwd=tree / task.options.cwd,
        timeout=around.timeout_s or task.timeout,
        env=variables,
        path_prepend=env.bin_dirs,
        writable=[tree, home, *writable],
        readable=[PROBE_DIR, *env.readable, *readable],
        home=home,
        report_pipe=report_file is None,
        report_file=report_file,
        tmp_dirs=around.tmp_dirs,
        hostname=around.hostname,
        cancel=around.stop,
        **({"limits": around.limits} if around.limits is not None else {}),
    )
    result = runner.run(request)
    probe = parse_probe(result.report)
    problems = [*probe.problems, *probe.tamper]
    if result.killed_reason:
        problems.append(f"killed: {result.killed_reason}")
    if probe.exitstatus == 5 or (probe.started and not probe.collected):
        problems.append("pytest collected no tests (exit 5 is never a pass)")
    run = TestRun(
        run=result.facts(),
        outcomes=probe.outcomes,
        collected=probe.collected,
        ids=probe.ids,
        report_problems=problems,
        reported_exit=probe.exitstatus,
    )
    return PytestRun(run=run, probe=probe, result=result)


# What a Python process can import code from.
CODE_SUFFIXES = (".py", ".pyc", ".so", ".pyd", ".pth")


def code_digests(tree: Path) -> dict[str, str]:
    """Every file of the tree Python can import code from, by path, with its digest."""
    out = {}
    for folder, dirs, files in os.walk(tree):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in files:
            if name.endswith(CODE_SUFFIXES):
                rel = str((Path(folder) / name).relative_to(tree))
                digest = _digest(tree, rel)
                if digest is not None:
                    out[rel] = digest
    return out


def written_by_the_run(
    probe: ProbeReport,
    tree: Path,
    before: dict[str, str] | None,
    writable: tuple[str, ...] = (),
) -> tuple[str, ...]:
    """The modules the run imported from files it wrote (new, changed, or opened to write), and
    any bytecode it wrote: the grader's run never writes bytecode of its own."""
    if before is None or probe.loaded is None:
        return ()
    written = {relative(p, tree) for p in probe.loaded.get("written", [])}
    out = {p for p in written if p.endswith(".pyc")}
    # Imported from a file the process wrote outside the tree (a module put in /tmp and added
    # to the path): named by its file, as the SHA's run would name the same.
    out |= {relative(p, tree) for p in probe.loaded.get("written_modules", [])}
    # Imported from the run's home (its TMPDIR too), not the tree: a file the run put there
    # somehow (renamed, linked). The grader's own folders are elsewhere, or read-only.
    roots = tuple(r.rstrip("/") + "/" for r in writable)
    out |= {
        relative(p, tree) for p in probe.loaded.get("foreign_modules", []) if p.startswith(roots)
    }
    for module in probe.loaded.get("modules", []):
        rel = relative(module, tree)
        if rel.startswith("<outside>"):
            continue
        now = _digest(tree, rel)
        if rel in written or before.get(rel) != now:
            out.add(rel)
    return tuple(sorted(out))


def _digest(tree: Path, rel: str) -> str | None:
    try:
        return hashlib.sha1((tree / rel).read_bytes()).hexdigest()
    except OSError:
        return None


def run_surface(
    probe: ProbeReport,
    tree: Path,
    grader_dir: Path | None,
    before: dict[str, str] | None = None,
    home: Path | None = None,
) -> RunSurface | None:
    """The probe's report of what the run was made of, relative to the tree. The grader's own
    files (the probe, the line probes' folder) are no part of the patch's surface. `before`:
    the tree's code files before the run (`code_digests`)."""
    if not probe.started:
        return None
    surface = probe.surface
    config = tuple(relative(p, tree) for p in [surface.get("inifile", "")] if p)
    plugins = set()
    for name, where in surface.get("plugins", []):
        if not where:
            plugins.add(str(name))
        elif grader_dir is None or not str(where).startswith(str(grader_dir)):
            # A conftest is registered under its own path: it is named by its file alone.
            shown = relative(str(where), tree)
            plugins.add(shown if str(name) == str(where) else f"{name} ({shown})")
    plugins |= {f"{name} (from {dist})" for name, dist in surface.get("dists", [])}
    loaded, environ, harness, test_modules, hook_words = None, (), (), (), ()
    escaped = None
    if probe.loaded is not None:
        files = {*probe.loaded.get("modules", []), *probe.loaded.get("opened", [])}
        inside = {relative(p, tree) for p in files}
        loaded = tuple(sorted(p for p in inside if not p.startswith("<outside>")))
        environ = tuple(probe.loaded.get("environ", []))
        harness = tuple(probe.loaded.get("harness_modules", []))
        test_modules = tuple(probe.loaded.get("test_modules", []))
        hook_words = tuple(probe.loaded.get("hook_words", []))
        said = probe.loaded.get("escaped")
        escaped = None if said is None else tuple(said)
    return RunSurface(
        config=config,
        plugins=tuple(sorted(plugins)),
        loaded=loaded,
        environ=environ,
        harness_modules=harness,
        test_modules=test_modules,
        hook_words=hook_words,
        self_written=written_by_the_run(probe, tree, before, (str(home),) if home else ()),
        escaped=escaped,
    )


class PythonSuite:
    """The task's pytest command, with the probe loaded; first the task's in-place build (a
    compiled extension), when it has one."""

    language = "python"

    def __init__(self, task: Task, env: Environment, runner: Runner) -> None:
        self.task = task
        self.env = env
        self.runner = runner

    def versions(self) -> dict:
        return dict(self.env.versions)

    def run_variables(self) -> set[str]:
        from patchwitness.cpp_mutants import VARIABLE as MUTANT_VARIABLE
        from patchwitness.hits.python import VARIABLES
        from patchwitness.runner import REPORT_FD, REPORT_FILE, grader_variables

        ours = set(run_env(Path("/"), self.env)) | {REPORT_FD, REPORT_FILE, "VIRTUAL_ENV"}
        # The grader's questions of a run (a mutant's, the tests it selects or puts first, the
        # calls it records): code that reads one knows which question it is asked.
        questions = {"PW_SELECT", "PW_FIRST", "PW_NARROW", "PW_CALLS", MUTANT_VARIABLE}
        return grader_variables() | ours | VARIABLES | questions

    def instrumentations(self) -> list[Instrumentation]:
        if self.task.options.python.build:
            return [LINE_PROBES_GCOV, COVERAGE_PY_GCOV, COVERAGE_PY]
        return [LINE_PROBES, COVERAGE_PY]

    def coverage_problem(self, run: SuiteRun, tree: Path, scratch: Path) -> str:
        """Nothing to ask at the SHA: the line probes and coverage.py are read by the grader's
        own code, and a compiled extension's gcov data only when a patch touches its sources
        (a gcovr failure then makes coverage not measurable, never a reject)."""
        return ""

    def run(
        self,
        tree: Path,
        scratch: Path,
        *,
        instrument: Instrumentation | None = None,
        focus: Focus = NO_FOCUS,
        around: Surroundings = AT_THE_GRADER,
    ) -> SuiteRun:
        home = scratch / around.home
        home.mkdir(parents=True, exist_ok=True)
        flags = instrument.flags if instrument is not None else ()
        if self.task.options.python.build:
            failed = self._build(tree, home, flags)
            if failed is not None:
                return failed
        inst = None
        if instrument in (LINE_PROBES, LINE_PROBES_GCOV):
            inst = self._probes(tree, scratch, focus, gcov=bool(flags))
        elif instrument is not None:
            from patchwitness.hits.python import instrument as instrument_run

            include = sorted(focus.traced) if focus.traced is not None else None
            inst = instrument_run(scratch, tree, gcov=bool(flags), include=include)
        before = code_digests(tree)
        result = run_pytest(self.runner, self.task, tree, home, self.env, inst, around)
        broken = list(result.probe.collect_errors)
        if not result.probe.started and result.result.returncode not in (0, None):
            # pytest failed before the probe could start (a conftest that no longer imports):
            # a failure. A silent exit 0 with no report stays a disappearance.
            broken.append("*")
        return SuiteRun(
            run=result.run,
            started=result.probe.started,
            timed_out=result.result.timed_out,
            tamper=list(result.probe.tamper),
            hooks=result.probe.hooks,
            broken=broken,
            coverage=inst,
            surface=run_surface(result.probe, tree, inst.directory if inst else None, before, home),
            plain=dict(result.probe.plain),
            conftests=tuple(result.probe.conftests),
            deselected=tuple(result.probe.deselected),
            sys_path=tuple(str(p) for p in result.probe.surface.get("sys_path", []) or []),
        )

    def run_script(
        self,
        tree: Path,
        home: Path,
        argv: list[str],
        *,
        readable: list[Path],
        writable: list[Path],
        timeout: float,
        variables: dict[str, str] | None = None,
        limits: Limits | None = None,
    ) -> Result:
        """`python ARGV...` in the sandbox with the environment's interpreter, importing the
        tree's modules as its tests do (the tree, and its `src` when it has one, on the path),
        without pytest or any probe of the grader's; one hash seed for every such run, unless
        `variables` say otherwise; the runner's limits unless `limits` are given."""
        entries = [str(tree)] + ([str(tree / "src")] if (tree / "src").is_dir() else [])
        variables = {
            "PYTHONPATH": os.pathsep.join(entries),
            "PYTHONHASHSEED": "0",
            **(variables or {}),
        }
        if self.env.path is not None:
            variables["VIRTUAL_ENV"] = str(self.env.path)
        home.mkdir(parents=True, exist_ok=True)
        return self.runner.run(
            Request(
                command=shlex.join(["python", *argv]),
                cwd=tree / self.task.options.cwd,
                timeout=timeout,
                env=variables,
                path_prepend=self.env.bin_dirs,
                writable=[home, *writable],
                readable=[tree, *self.env.readable, *readable],
                home=home,
                **({"limits": limits} if limits is not None else {}),
            )
        )

    def _probes(self, tree: Path, scratch: Path, focus: Focus, gcov: bool = False):
        """Probes in the files the gate reads; with no focus (the run at the SHA that decides
        whether the probes may stand in for the plain run), in every production file."""
        from patchwitness.census.scan import read_root_config
        from patchwitness.hits.python import instrument_probes, production_sources

        if focus.traced is not None:
            files = sorted(focus.traced)
        else:
            files = production_sources(tree, read_root_config(tree).is_test_file)
        return instrument_probes(scratch, tree, files, gcov=gcov, decide=focus.decided)

    def build(self, tree: Path, scratch: Path) -> str:
        """`[python] build` alone in `tree`, as a run starts: why it failed, or ''."""
        if not self.task.options.python.build:
            return ""
        home = scratch / "home"
        home.mkdir(parents=True, exist_ok=True)
        failed = self._build(tree, home)
        return "" if failed is None else "; ".join(failed.run.report_problems)

    def _build(self, tree: Path, home: Path, flags: tuple[str, ...] = ()) -> SuiteRun | None:
        """`[python] build` in the worktree (with gcov's `flags` for a coverage run); a SuiteRun
        that says the build failed, or None."""
        options = self.task.options.python
        variables = {"PYTHONPATH": python_path(tree, []), "PW_REPO": str(tree)}
        if flags:
            joined = " ".join(flags)
            variables.update({"CFLAGS": joined, "CXXFLAGS": joined, "LDFLAGS": "--coverage"})
        if self.env.path is not None:
            variables["VIRTUAL_ENV"] = str(self.env.path)
        result = self.runner.run(
            Request(
                command=options.build or "",
                cwd=tree / self.task.options.cwd,
                timeout=options.build_timeout,
                env=variables,
                path_prepend=self.env.bin_dirs,
                writable=[tree, home],
                readable=self.env.readable,
                home=home,
            )
        )
        if result.ok:
            return None
        tail = (result.stderr[-600:] or result.stdout[-600:]).decode("utf-8", "replace").strip()
        why = result.killed_reason or f"exit {result.returncode}"
        last = tail.splitlines()[-1] if tail else ""
        return SuiteRun(
            run=TestRun(run=result.facts(), report_problems=[f"build failed ({why}): {last}"]),
            started=False,
            timed_out=result.timed_out,
            build=BuildFacts(build=result.facts()),
            build_failed=True,
            failed_step="build",
            failed_log=failure_log.output_of(result),
            broken=["*"],
        )
