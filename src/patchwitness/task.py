"""Loading and validating a task directory.

A task is the layout below (`repo.lock`, `test_cmd.txt`, `allow_test_edits.json`,
`failing_nodeids.txt`) plus an optional `task.toml` that says what the seed leaves implicit. Task
files are read once, here, before any patch is applied: the patched tree never gets a say in how it
is graded.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from patchwitness.errors import InvalidTask
from patchwitness.names import LanguageName

SEED_FILES = ("repo.lock", "test_cmd.txt", "allow_test_edits.json", "failing_nodeids.txt")
# Tests the agent never saw: applied by the grader over the patched tree (hidden.py).
HIDDEN_TESTS = "test_patch.diff"
PASS_TO_PASS = "pass_to_pass.txt"
# The fix the task's authors accept (SWE-bench's `patch`): never shown to the patch; the grader
# compares the patch's behaviour with it (phases/reference.py).
REFERENCE = "reference.diff"
SHA_RE = re.compile(r"^[0-9a-f]{40}$|^[0-9a-f]{64}$")

DEFAULT_COVERAGE_FLAGS = [
    "--coverage",
    "-O0",
    "-fno-inline",
    "-fkeep-inline-functions",
    "-fno-elide-constructors",
]


class Options(BaseModel):
    # Built when first used, like every model of the grader (model.DEFERRED says why).
    model_config = ConfigDict(extra="forbid", defer_build=True)


class CensusOptions(Options):
    allowlist: str | None = None
    golden_prefix: str = "GOLDEN_"
    exclude: list[str] = Field(default_factory=list)


class PathOptions(Options):
    """Globs (repository-relative) that override the built-in file classification."""

    test: list[str] = Field(default_factory=list)
    infra: list[str] = Field(default_factory=list)
    production: list[str] = Field(default_factory=list)
    grader: list[str] = Field(default_factory=list)


class CoverageOptions(Options):
    enabled: bool = True
    cxx_flags: list[str] = Field(default_factory=lambda: list(DEFAULT_COVERAGE_FLAGS))


class CppOptions(Options):
    configure: str = 'cmake -S . -B "$PW_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Debug'
    build: str = 'cmake --build "$PW_BUILD"'
    build_timeout: float = 900


class PythonOptions(Options):
    # Run in the graded worktree before every test run, in the sandbox, with the environment:
    # a compiled extension built in place (`python setup.py build_ext --inplace`), because the
    # worktree comes first on PYTHONPATH and shadows what the setup command built.
    build: str | None = None
    build_timeout: float = 900


class PolicyOptions(Options):
    # How a purely additive test edit is judged on a task that forbids test edits: by the
    # pristine run (judge), or as any test edit, UNPRINTABLE (forbid, the print gate's rule). Unset:
    # the policy's choice (judge by default).
    test_additions: Literal["judge", "forbid"] | None = None
    # How added production code that singles out the failing (or hidden) tests' literal values
    # is graded (special.py): accept-with-review (review, the default) or UNPRINTABLE (reject).
    special_casing: Literal["review", "reject"] = "review"


class PatchOptions(Options):
    # Content with NUL bytes (a binary file, bytecode) is not read by the grader: such a patch is
    # refused as unreadable-patch unless the task says its patches may carry binary files.
    allow_binary: bool = False


class MatrixOptions(Options):
    enabled: bool = True
    manifest: str | None = None


class TaskToml(Options):
    language: LanguageName | None = None
    # benchmark: the seed's task, with failing ids to fix. gate: a pull request with nothing
    # named to fix, accepted when nothing broke, vanished or weakened.
    mode: Literal["benchmark", "gate"] = "benchmark"
    repo: str | None = None
    cwd: str = "."
    setup: str | None = None
    setup_depends_on: list[str] | None = None
    setup_timeout: float = 900
    timeout: float = 300
    held_out: bool = False
    # The git history a checkout carries (history.py): auto = when the build asks git for its
    # version (setuptools-scm, hatch-vcs ...); true; false.
    history: Literal["auto"] | bool = "auto"
    # The pristine run (the SHA's tests over the patched code) after a test edit. auto: when the
    # task allows test edits (it can change the grade), and always for Python (it costs one
    # test run); a C++ task that forbids test edits already rejects the edit, so it skips the
    # extra build.
    pristine: Literal["auto", "always", "never"] = "auto"
    census: CensusOptions = Field(default_factory=CensusOptions)
    paths: PathOptions = Field(default_factory=PathOptions)
    coverage: CoverageOptions = Field(default_factory=CoverageOptions)
    cpp: CppOptions = Field(default_factory=CppOptions)
    python: PythonOptions = Field(default_factory=PythonOptions)
    matrix: MatrixOptions = Field(default_factory=MatrixOptions)
    patch: PatchOptions = Field(default_factory=PatchOptions)
    policy: PolicyOptions = Field(default_factory=PolicyOptions)


class Task(BaseModel):
    """A validated task, with every file it depends on already read. Frozen: nothing a grade
    does changes the task it grades."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    name: str
    dir: Path
    repo: Path
    sha: str
    test_cmd: str
    allow_test_edits: bool
    failing_ids: list[str]
    language: LanguageName
    options: TaskToml
    allowlist: list[str] = Field(default_factory=list)
    allowlist_note: str = ""
    repo_relative_dir: str | None = None  # the task directory's path inside the repo, if inside
    files_sha256: str = ""
    # The hidden test patch (test_patch.diff), and the ids that must stay green with it
    # (pass_to_pass.txt; None: every test green at the SHA with the hidden tests).
    hidden_tests: bytes | None = None
    pass_to_pass: list[str] | None = None
    reference: bytes | None = None

    @property
    def hidden(self) -> bool:
        return self.hidden_tests is not None

    @property
    def timeout(self) -> float:
        return self.options.timeout

    def grader_owned(self) -> list[str]:
        """Repository paths that belong to the grader: editing them is tampering."""
        owned = list(self.options.paths.grader)
        if self.repo_relative_dir is not None:
            owned.append(self.repo_relative_dir.rstrip("/") + "/**")
        for ref in (self.options.census.allowlist, self.options.matrix.manifest):
            if ref and ref.startswith("repo:"):
                owned.append(ref[len("repo:") :])
        owned += self.hidden_created()
        return owned

    def hidden_patch(self):
        """The hidden tests as a parsed patch (None without them)."""
        from patchwitness.patch import parse_patch

        return parse_patch(self.hidden_tests) if self.hidden_tests is not None else None

    def hidden_created(self) -> list[str]:
        """Files the hidden tests create: the grader's, as the task's own files are."""
        hidden = self.hidden_patch()
        return [] if hidden is None else sorted(c.path for c in hidden.files if c.status == "added")


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InvalidTask(f"missing task file: {path.name}") from None
    except UnicodeDecodeError:
        raise InvalidTask(f"task file is not UTF-8: {path.name}") from None


def _toml(task_dir: Path, defaults: dict | None = None) -> TaskToml:
    """task.toml, over `defaults` (values a caller supplies when the file is silent)."""
    path = task_dir / "task.toml"
    try:
        data = tomllib.loads(_read(path)) if path.exists() else {}
        merged = _merge(defaults or {}, data)
        return TaskToml.model_validate(merged)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidTask(f"task.toml does not parse: {exc}") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InvalidTask(f"task.toml: {where}: {first['msg']}") from None


def _merge(base: dict, over: dict) -> dict:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def _sha(task_dir: Path) -> str:
    sha = _read(task_dir / "repo.lock").strip()
    if not SHA_RE.match(sha):
        raise InvalidTask(f"repo.lock must hold a full commit SHA, not {sha[:60]!r}")
    return sha


def _allow_test_edits(task_dir: Path) -> bool:
    try:
        value = json.loads(_read(task_dir / "allow_test_edits.json"))
    except json.JSONDecodeError:
        raise InvalidTask("allow_test_edits.json must be the JSON literal true or false") from None
    if not isinstance(value, bool):
        raise InvalidTask("allow_test_edits.json must be the JSON literal true or false")
    return value


def _failing_ids(task_dir: Path) -> list[str]:
    return _id_list(task_dir, "failing_nodeids.txt")


def _id_list(task_dir: Path, name: str) -> list[str]:
    ids = []
    for line in _read(task_dir / name).splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            ids.append(line)
    if len(set(ids)) != len(ids):
        raise InvalidTask(f"{name} lists an id twice")
    return ids


def _hidden_tests(task_dir: Path) -> tuple[bytes | None, list[str] | None]:
    """The hidden test patch and the pass-to-pass ids, when the task has them. The patch must
    parse and touch only paths inside the repository; whether it applies is checked at the SHA."""
    from patchwitness.errors import ApplyFailed
    from patchwitness.patch import parse_patch

    path = task_dir / HIDDEN_TESTS
    p2p = _id_list(task_dir, PASS_TO_PASS) if (task_dir / PASS_TO_PASS).exists() else None
    if not path.exists():
        if p2p is not None:
            raise InvalidTask(f"{PASS_TO_PASS} without {HIDDEN_TESTS}")
        return None, None
    data = path.read_bytes()
    try:
        parse_patch(data)
    except ApplyFailed as exc:
        raise InvalidTask(f"{HIDDEN_TESTS} is not a usable patch: {exc}") from None
    return data, p2p


def _reference(task_dir: Path) -> bytes | None:
    """The reference fix, when the task has one: it must parse; whether it applies, and whether
    it passes the task, is checked at the SHA when a patch is compared with it."""
    from patchwitness.errors import ApplyFailed
    from patchwitness.patch import parse_patch

    path = task_dir / REFERENCE
    if not path.exists():
        return None
    data = path.read_bytes()
    try:
        parsed = parse_patch(data)
    except ApplyFailed as exc:
        raise InvalidTask(f"{REFERENCE} is not a usable patch: {exc}") from None
    if parsed.empty:
        raise InvalidTask(f"{REFERENCE} changes nothing")
    return data


def _test_cmd(task_dir: Path) -> str:
    lines = [ln.strip() for ln in _read(task_dir / "test_cmd.txt").splitlines()]
    lines = [ln for ln in lines if ln and not ln.startswith("#")]
    if not lines:
        raise InvalidTask("test_cmd.txt holds no command")
    if len(lines) > 1:
        raise InvalidTask("test_cmd.txt must hold exactly one command line")
    return lines[0]


def find_git_root(start: Path) -> Path | None:
    for candidate in [start, *start.parents]:
        if (candidate / ".git").exists():
            return candidate
    return None


def _repo(task_dir: Path, options: TaskToml, override: Path | None) -> Path:
    if override is not None:
        repo = override
    elif options.repo:
        repo = (task_dir / options.repo).resolve()
    else:
        found = find_git_root(task_dir.resolve())
        if found is None:
            raise InvalidTask(
                "no repository: pass --repo, set 'repo' in task.toml, "
                "or put the task inside the repository"
            )
        repo = found
    repo = repo.resolve()
    if not (repo / ".git").exists():
        raise InvalidTask(f"not a git repository: {repo}")
    return repo


def _language(repo: Path, options: TaskToml) -> LanguageName:
    if options.language:
        return options.language
    if (repo / "CMakeLists.txt").exists():
        return LanguageName.CPP
    return LanguageName.PYTHON


def _task_file(task_dir: Path, ref: str) -> tuple[str, str]:
    """Read a grader file named in task.toml: a path in the task dir, or `repo:PATH` at the SHA
    (read by the caller with git). Returns (text, where)."""
    path = task_dir / ref
    return _read(path), str(path)


def load_task(task_dir: Path, repo: Path | None = None, defaults: dict | None = None) -> Task:
    task_dir = Path(task_dir)
    if not task_dir.is_dir():
        raise InvalidTask(f"task directory not found: {task_dir}")
    options = _toml(task_dir, defaults)
    sha = _sha(task_dir)
    test_cmd = _test_cmd(task_dir)
    allow = _allow_test_edits(task_dir)
    failing = _failing_ids(task_dir)
    hidden, p2p = _hidden_tests(task_dir)
    repo_path = _repo(task_dir, options, repo)
    language = _language(repo_path, options)
    inside: str | None = None
    try:
        inside = task_dir.resolve().relative_to(repo_path).as_posix()
    except ValueError:
        inside = None
    allowlist, note = _allowlist(task_dir, options, repo_path, sha)
    return Task(
        name=task_dir.resolve().name,
        dir=task_dir.resolve(),
        repo=repo_path,
        sha=sha,
        test_cmd=test_cmd,
        allow_test_edits=allow,
        failing_ids=failing,
        language=language,
        options=options,
        repo_relative_dir=inside,
        allowlist=allowlist,
        allowlist_note=note,
        files_sha256=_files_digest(task_dir),
        hidden_tests=hidden,
        pass_to_pass=p2p,
        reference=_reference(task_dir),
    )


def _allowlist(task_dir: Path, options: TaskToml, repo: Path, sha: str) -> tuple[list[str], str]:
    """The census allowlist: a file of the task directory, or `repo:PATH` read at the SHA (never
    from a worktree a patch could have changed)."""
    ref = options.census.allowlist
    if not ref:
        return [], ""
    if ref.startswith("repo:"):
        from patchwitness.workspace import show_at

        data = show_at(repo, sha, ref[len("repo:") :])
        if data is None:
            raise InvalidTask(f"allowlist {ref} does not exist at the SHA")
        return parse_allowlist(data.decode("utf-8", "replace"), ref)
    text, where = _task_file(task_dir, ref)
    return parse_allowlist(text, where)


def parse_allowlist(text: str, where: str) -> tuple[list[str], str]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidTask(f"allowlist {where} is not JSON: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("remove", []), list):
        raise InvalidTask(f'allowlist {where} must be {{"remove": [keys], "note": "..."}}')
    keys = [str(k) for k in data.get("remove", [])]
    return keys, str(data.get("note", ""))


def _files_digest(task_dir: Path) -> str:
    """A hash of every task file, so a verdict pins exactly the task it was graded against."""
    digest = hashlib.sha256()
    for path in sorted(p for p in task_dir.rglob("*") if p.is_file()):
        digest.update(path.relative_to(task_dir).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()
