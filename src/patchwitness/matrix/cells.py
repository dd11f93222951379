"""One cell of the matrix: a golden compiled under one envelope, run, and observed.

The compile runs in the tree (cwd), with repository-relative paths and the worktree's path mapped
away (`-ffile-prefix-map`), so the binary and its diagnostics do not depend on where the tree is;
`-MD -MF` records the headers the compile actually read, which keys the compile cache. The run
halts at the first sanitizer error; its stdout is hashed, its stderr kept (tail) and searched for
sanitizer reports, and its rusage (peak RSS, CPU) kept for the resource envelope.

A cell's status is exactly one of STATUSES. `run_cell` decides everything but the digest: whether
stdout matches depends on the fixture or on the baseline, which `settle` applies afterwards.
"""

from __future__ import annotations

import errno
import functools
import hashlib
import json
import os
import re
import shlex
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from patchwitness import atomic
from patchwitness.gates.matrix import cell_id
from patchwitness.matrix import sanitizers
from patchwitness.matrix.cache import CompileCache, CompileInputs, normalize_deps, parse_depfile
from patchwitness.matrix.manifest import Envelope, Golden, Matrix
from patchwitness.model import Cell
from patchwitness.runner import (
    SYSTEM_PATH,
    UNCONFINED,
    Limits,
    Request,
    Result,
    Runner,
    run_tool,
)

STATUSES = (
    "pass",
    "compile_fail",
    "werror_fail",
    "run_fail",
    "sanitizer",
    "digest_mismatch",
    "timeout",
    "missing",
)
TAIL = 2000

# Halt on the first error, report on stderr whatever the program's own default options say
# (`__asan_default_options` is read first; the environment overrides it).
SANITIZER_ENV = {
    "ASAN_OPTIONS": "halt_on_error=1:abort_on_error=0:detect_leaks=1:log_path=stderr",
    "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1:log_path=stderr",
    "TSAN_OPTIONS": "halt_on_error=1:log_path=stderr",
    "LSAN_OPTIONS": "log_path=stderr",
}


@dataclass(frozen=True)
class CellSpec:
    matrix: Matrix
    golden: Golden
    envelope: Envelope

    @property
    def id(self) -> str:
        return cell_id(self.golden.source, self.envelope.name)

    @property
    def cxx(self) -> str:
        return self.matrix.compiler(self.envelope)

    @property
    def slug(self) -> str:
        return re.sub(r"[^A-Za-z0-9_.-]+", "_", self.golden.source)

    @property
    def binary_name(self) -> str:
        return PurePosixPath(self.golden.source).stem or "golden"

    @property
    def ldflags(self) -> tuple[str, ...]:
        return (*self.envelope.ldflags, *self.golden.ldflags)

    @property
    def timeout(self) -> float:
        return self.golden.timeout or self.matrix.timeout

    def inputs(self, compiler: str) -> CompileInputs:
        return CompileInputs(
            cxx=self.cxx,
            compiler_id=compiler,
            std="" if self.envelope.user else self.matrix.std,
            cxxflags=self.envelope.cxxflags,
            ldflags=self.ldflags,
            include=self.matrix.include,
            sources=self.golden.all_sources,
        )


def blank_cell(spec: CellSpec, patch: str) -> Cell:
    return Cell(
        patch=patch,
        golden=spec.golden.source,
        envelope=spec.envelope.name,
        status="missing",
        required=spec.envelope.required,
        envelope_kind=spec.envelope.kind,
        cxxflags=list(spec.envelope.cxxflags),
        werror_exception=spec.envelope.werror_exception,
    )


# --- the toolchain ----------------------------------------------------------------------------


def resolve_compiler(cxx: str) -> str | None:
    """The compiler the sandbox will run (it sees the system PATH only)."""
    return shutil.which(cxx, path=os.pathsep.join(SYSTEM_PATH))


@functools.cache
def compiler_id(cxx: str) -> str:
    """The compiler's identity for the cache key: its resolved path and --version text."""
    path = resolve_compiler(cxx)
    if path is None:
        return "missing"
    try:
        done = run_tool([path, "--version"], cwd=Path("/"), timeout=30)
    except (OSError, TimeoutError):
        return "missing"
    return f"{os.path.realpath(path)}\n{done.stdout.decode('utf-8', 'replace').strip()}"


PROBE_SOURCE = "int main() { return 0; }\n"


def probe(
    matrix: Matrix,
    envelope: Envelope,
    cache_dir: Path | None = None,
    runner: Runner = UNCONFINED,
) -> str | None:
    """None when the toolchain can build and run a program under `envelope`, else why not.

    A required envelope the toolchain lacks (no libasan, no clang) makes its cells missing, which
    fails closed, instead of red at the SHA and after the patch, which would pass as noise. A
    success is remembered on disk per (compiler, flags, confinement); a failure is probed again
    next time, so that one overloaded moment cannot disable an envelope for good.
    """
    cxx = matrix.compiler(envelope)
    ident = compiler_id(cxx)
    if ident == "missing":
        return f"compiler {cxx!r} is not installed"
    key_data = [ident, dialect(matrix, envelope), envelope.cxxflags, envelope.ldflags, envelope.env]
    key_data.append(runner.name)
    key = hashlib.sha256(json.dumps(key_data).encode()).hexdigest()[:24]
    memo = (cache_dir / "probes" / f"{key}.json") if cache_dir else None
    if memo is not None and memo.is_file():
        try:
            return json.loads(memo.read_text())["why"]
        except (OSError, ValueError, KeyError):
            pass
    why = _probe(matrix, envelope, cxx, runner)
    if memo is not None and why is None:
        atomic.write_json(memo, {"why": why})
    return why


def _probe(matrix: Matrix, envelope: Envelope, cxx: str, runner: Runner) -> str | None:
    with tempfile.TemporaryDirectory(prefix="pw-matrix-probe-") as tmp:
        work = Path(tmp) / "work"
        work.mkdir()
        (work / "probe.cpp").write_text(PROBE_SOURCE)
        argv = [cxx, *dialect(matrix, envelope), *envelope.cxxflags, "probe.cpp", "-o", "probe"]
        built = runner.run(
            Request(
                command=[*argv, *envelope.ldflags],
                cwd=work,
                timeout=120,
                writable=[work],
                home=work,
            )
        )
        if not built.ok:
            return "the toolchain cannot build under this envelope: " + _last_line(built.stderr)
        ran = start(
            Request(
                command=[str(work / "probe")],
                cwd=work,
                timeout=60,
                env=run_environment(envelope),
                writable=[work],
                home=work,
                limits=Limits(address_space=not envelope.sanitizer),
            ),
            runner,
        )
        if not ran.ok:
            return "a program built under this envelope cannot run here: " + _last_line(ran.stderr)
    return None


def _last_line(data: bytes) -> str:
    lines = data.decode("utf-8", "replace").strip().splitlines()
    return lines[-1][:300] if lines else "(no output)"


# --- compiling --------------------------------------------------------------------------------


def run_environment(envelope: Envelope) -> dict[str, str]:
    """Sanitizer options for sanitizer envelopes, then the manifest's own environment (a
    grader file: it may override ours on purpose)."""
    env = dict(SANITIZER_ENV) if envelope.sanitizer else {}
    env.update(dict(envelope.env))
    return env


def dialect(matrix: Matrix, envelope: Envelope) -> list[str]:
    """The manifest's `-std`, or none for a user's default build (the compiler's own)."""
    return [] if envelope.user else [f"-std={matrix.std}"]


def compile_commands(spec: CellSpec, tree: Path, build: Path) -> tuple[list[list[str]], Path]:
    """The argv of each compile step and the binary they produce. One translation unit is one
    command; several are compiled to objects (one dependency file each) and linked."""
    common = [spec.cxx, *dialect(spec.matrix, spec.envelope), *spec.envelope.cxxflags]
    for include in spec.matrix.include:
        common += ["-I", include]
    common.append(f"-ffile-prefix-map={tree}=.")
    binary = build / spec.binary_name
    sources = spec.golden.all_sources
    if len(sources) == 1:
        argv = [*common, "-MD", "-MF", str(build / "0.d"), sources[0], "-o", str(binary)]
        return [[*argv, *spec.ldflags]], binary
    steps, objects = [], []
    for index, source in enumerate(sources):
        obj, depfile = build / f"{index}.o", build / f"{index}.d"
        steps.append([*common, "-c", source, "-o", str(obj), "-MD", "-MF", str(depfile)])
        objects.append(str(obj))
    link = [spec.cxx, *spec.envelope.cxxflags, *objects, "-o", str(binary), *spec.ldflags]
    return [*steps, link], binary


def shell_line(steps: list[list[str]]) -> str:
    return " && ".join(shlex.join(step) for step in steps)


_ERROR = re.compile(r"(?:^|\s|:)(?:fatal )?error: ")


def werror_only(diagnostics: str) -> bool:
    """True when every error the compiler reports is a warning promoted by -Werror
    (`[-Werror=unused-variable]`, clang's `[-Werror,-Wunused-variable]`)."""
    lines = diagnostics.splitlines()
    errors = [ln for ln in lines if _ERROR.search(ln)]
    promoted = [ln for ln in errors if "[-Werror" in ln]
    if not promoted:
        return False
    return len(promoted) == len(errors)


def _depfiles(build: Path) -> list[str]:
    deps: list[str] = []
    for path in sorted(build.glob("*.d")):
        try:
            deps += parse_depfile(path.read_text(errors="replace"))
        except OSError:
            return []
    return deps


@dataclass
class Compiled:
    binary: Path | None
    cached: bool = False


def compile_cell(
    spec: CellSpec,
    tree: Path,
    cell_dir: Path,
    cache: CompileCache,
    cell: Cell,
    runner: Runner = UNCONFINED,
) -> Compiled:
    """Build (or fetch) the golden's binary into `cell_dir/bin`. Fills the compile fields."""
    build = cell_dir / "build"
    bin_dir = cell_dir / "bin"
    for d in (build, bin_dir):
        d.mkdir(parents=True, exist_ok=True)
    steps, binary = compile_commands(spec, tree, build)
    cell.compile_command = shell_line(steps)
    inputs = spec.inputs(compiler_id(spec.cxx))
    primary = inputs.primary_key(tree)
    entry = cache.lookup(primary, tree)
    target = bin_dir / spec.binary_name
    if entry is not None:
        shutil.copyfile(entry.binary, target)
        os.chmod(target, 0o755)
        cell.cached, cell.compile_rc = True, 0
        cell.compile_stderr_tail = entry.meta.get("stderr_tail", "")
        cell.cache_key = entry.key
        cell.headers = [d for d in entry.meta.get("deps", {}) if not os.path.isabs(d)]
        return Compiled(target, cached=True)
    result = runner.run(
        Request(
            command=steps[0] if len(steps) == 1 else shell_line(steps),
            cwd=tree,
            timeout=spec.matrix.compile_timeout,
            readable=[tree],
            writable=[build],
            home=build,
        )
    )
    diagnostics = (result.stderr + result.stdout).decode("utf-8", "replace")
    cell.compile_rc = result.returncode
    cell.compile_stderr_tail = diagnostics[-TAIL:]
    cell.compile_wall_s = round(result.wall_s, 3)
    if result.timed_out:
        cell.status, cell.note = "timeout", "the compile did not finish in time"
        return Compiled(None)
    if not result.ok or not binary.is_file():
        cell.status = "werror_fail" if werror_only(diagnostics) else "compile_fail"
        if result.killed_reason:
            cell.note = f"compile killed: {result.killed_reason}"
        return Compiled(None)
    deps = normalize_deps(_depfiles(build), tree)
    cell.headers = [d for d in deps or [] if not os.path.isabs(d)]
    meta = {"stderr_tail": cell.compile_stderr_tail, "command": cell.compile_command}
    cell.cache_key = cache.store(primary, tree, deps, binary, meta)
    shutil.copyfile(binary, target)
    os.chmod(target, 0o755)
    return Compiled(target)


# --- running ----------------------------------------------------------------------------------


def start(request: Request, runner: Runner, attempts: int = 20) -> Result:
    """`runner.run`, retried while the binary is "text file busy": another thread forking while
    this one wrote the binary leaves a child holding the write descriptor until it execs."""
    for attempt in range(attempts):
        try:
            return runner.run(request)
        except OSError as exc:
            if exc.errno != errno.ETXTBSY or attempt == attempts - 1:
                raise
            time.sleep(0.05 * (attempt + 1))
    raise AssertionError("unreachable")  # pragma: no cover


def run_line(env: dict[str, str], binary: Path) -> str:
    return shlex.join([*(f"{k}={v}" for k, v in sorted(env.items())), str(binary)])


def run_binary(
    spec: CellSpec,
    tree: Path,
    cell_dir: Path,
    binary: Path,
    cell: Cell,
    runner: Runner = UNCONFINED,
) -> None:
    """Run the golden with cwd = the tree; fill the run fields and a provisional status."""
    work = cell_dir / "run"
    work.mkdir(parents=True, exist_ok=True)
    env = run_environment(spec.envelope)
    cell.run_command = run_line(env, binary)
    result = start(
        Request(
            command=[str(binary)],
            cwd=tree,
            timeout=spec.timeout,
            env=env,
            readable=[tree, binary.parent],
            writable=[work],
            home=work,
            limits=Limits(address_space=not spec.envelope.sanitizer),
        ),
        runner,
    )
    stderr = result.stderr.decode("utf-8", "replace")
    cell.run_rc = result.returncode
    cell.stderr_tail = stderr[-TAIL:]
    cell.stdout_sha256 = hashlib.sha256(result.stdout).hexdigest()
    cell.peak_rss_kb = result.peak_rss_kb
    cell.cpu_s = round(result.cpu_s, 3)
    cell.wall_s = round(result.wall_s, 3)
    cell.sanitizer_findings = sanitizers.parse(stderr, [str(tree)])
    cell.status = provisional_status(result, bool(cell.sanitizer_findings))
    if result.killed_reason and result.killed_reason != "timeout":
        cell.note = f"run killed: {result.killed_reason}"


def provisional_status(result: Result, sanitizer_report: bool) -> str:
    """Everything but the digest. A sanitizer report wins over the exit status it caused."""
    if result.timed_out:
        return "timeout"
    if sanitizer_report:
        return "sanitizer"
    if not result.ok:
        return "run_fail"
    return "pass"


def settle(cell: Cell, expected: str | None, source: str) -> Cell:
    """Apply the reference digest: a clean run whose stdout differs is a digest mismatch."""
    cell.expected_sha256 = expected
    cell.expected_from = source if expected else ""
    if cell.status == "pass" and expected is not None and cell.stdout_sha256 != expected:
        cell.status = "digest_mismatch"
    return cell


def run_cell(
    spec: CellSpec,
    tree: Path,
    scratch: Path,
    *,
    cache: CompileCache,
    patch: str,
    unavailable: str | None = None,
    runner: Runner = UNCONFINED,
) -> Cell:
    """Compile (or fetch from the cache) and run one cell. Never raises for what the code does."""
    cell = blank_cell(spec, patch)
    if unavailable is not None:
        cell.note = unavailable
        return cell
    absent = [s for s in spec.golden.all_sources if not (tree / s).is_file()]
    if absent:
        cell.note = "not in the tree: " + ", ".join(absent)
        return cell
    cell_dir = scratch / spec.slug / spec.envelope.name
    compiled = compile_cell(spec, tree, cell_dir, cache, cell, runner)
    if compiled.binary is None:
        return cell
    run_binary(spec, tree, cell_dir, compiled.binary, cell, runner)
    return cell
