"""SWE-bench in and out: its instances as a bag, its predictions as a bag's patches, and its
harness's run report from a results database.

In: every instance (`instance_id`, `repo`, `base_commit`, `FAIL_TO_PASS`, `PASS_TO_PASS`,
`test_patch`, `patch`) becomes a task directory whose hidden tests are the instance's
`test_patch`, graded against a local clone of its repository. Only pytest instances are imported:
the grader reads pytest node ids, and an id such as django's `test_x (module.Class)` names a test
it could never find.

Out: `run_report` is pure (verdicts in, a dict out) and speaks the harness's vocabulary, with the
two things the harness cannot say kept apart: `unprintable_ids` (resolved by the tests, refused
because the patch cheated) and `review_ids` (resolved, but a reviewer should look).
"""

from __future__ import annotations

import json
import posixpath
import re
import shlex
import shutil
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from patchwitness.model import Verdict
from patchwitness.patch import sha256_of
from patchwitness.task import REFERENCE

DEFAULT_TEST_CMD = "python -m pytest -rA -p no:cacheprovider"
GOLD_PATCH = REFERENCE  # the instance's `patch`: the task's reference fix
# Instance ids and model names become file names: nothing that could leave the directory.
SAFE_ID = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._+-]{0,199}$")
SAFE_PART = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]*$")
UNSAFE_CHARS = re.compile(r"[^A-Za-z0-9._-]")
SHA1 = re.compile(r"^[0-9a-f]{40}$")
EMPTY_PATCH_SHA256 = sha256_of(b"")


class SwebenchError(ValueError):
    """Input that cannot be read as SWE-bench data: one line, naming where."""


@dataclass(frozen=True)
class Record:
    where: str  # "FILE:LINE" for JSONL, "FILE: item N" for a JSON array, "FILE: KEY" for a dict
    data: dict[str, Any]


# -- reading JSONL, a JSON array, or the predictions' dict form ------------------------------------


def read_records(path: Path, *, keyed: bool = False) -> list[Record]:
    """The objects of a JSONL file or of a JSON array file. With `keyed`, also the dict form
    {instance_id: {...}} that the SWE-bench harness accepts for predictions."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")  # a byte order mark is no error
    except (OSError, UnicodeDecodeError) as exc:
        raise SwebenchError(f"cannot read {path}: {exc}") from None
    try:
        whole = json.loads(text)
    except json.JSONDecodeError as exc:
        if text.lstrip().startswith("["):  # a JSON array, broken: say where
            raise SwebenchError(f"{path}:{exc.lineno}: not JSON: {exc.msg}") from None
        return _jsonl(path, text)  # several documents, one a line (or a malformed line)
    if isinstance(whole, list):
        return [_record(f"{path}: item {n}", item) for n, item in enumerate(whole, 1)]
    if isinstance(whole, dict) and keyed and "instance_id" not in whole:
        return [_keyed_record(path, key, value) for key, value in whole.items()]
    return [_record(f"{path}:1", whole)]  # a one-line JSONL file


def _jsonl(path: Path, text: str) -> list[Record]:
    records = []
    # Split on newlines only: str.splitlines would also split inside a JSON string holding a raw
    # U+2028 or U+0085, which a JSON encoder may leave unescaped.
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise SwebenchError(f"{path}:{number}: not JSON: {exc.msg}") from None
        records.append(_record(f"{path}:{number}", data))
    return records


def _record(where: str, data: object) -> Record:
    if not isinstance(data, dict):
        raise SwebenchError(f"{where}: expected a JSON object, found {type(data).__name__}")
    return Record(where, data)


def _keyed_record(path: Path, key: str, value: object) -> Record:
    record = _record(f"{path}: {key}", value)
    record.data.setdefault("instance_id", key)
    return record


def _text(record: Record, key: str, *, required: bool = True) -> str | None:
    value = record.data.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or (required and not value):
        found = "nothing" if value is None else repr(value)[:60]
        raise SwebenchError(f"{record.where}: {key} must be a non-empty string, found {found}")
    return value


def _instance_id(record: Record) -> str:
    value = _text(record, "instance_id") or ""
    if not SAFE_ID.match(value):
        raise SwebenchError(f"{record.where}: instance_id {value!r} cannot name a directory")
    return value


def _id_list(record: Record, key: str) -> list[str] | None:
    """FAIL_TO_PASS / PASS_TO_PASS: a list, or (as in the Hugging Face dataset) a JSON string
    holding one. Duplicates are dropped: a task file lists each id once."""
    value = record.data.get(key)
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            raise SwebenchError(f"{record.where}: {key} is a string but not a JSON list") from None
    if not isinstance(value, list) or not all(isinstance(i, str) for i in value):
        raise SwebenchError(f"{record.where}: {key} must be a list of test ids")
    return list(dict.fromkeys(i.strip() for i in value if i.strip()))


def _unique(records: Sequence[Any], key: Callable[[Any], tuple[str, ...]]) -> None:
    """Refuse a second record with the same key: which one counts would be a guess."""
    seen: dict[tuple[str, ...], str] = {}
    for record in records:
        k = key(record)
        if k in seen:
            raise SwebenchError(f"{record.where}: {' / '.join(k)} again (first at {seen[k]})")
        seen[k] = record.where


# -- instances -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Instance:
    where: str
    instance_id: str
    repo: str  # owner/name
    base_commit: str
    fail_to_pass: list[str]
    pass_to_pass: list[str] | None  # None: the instance does not say
    test_patch: str
    patch: str | None  # the gold patch


def parse_instance(record: Record) -> Instance:
    instance_id = _instance_id(record)
    repo = _text(record, "repo") or ""
    parts = repo.split("/")
    if len(parts) != 2 or not all(SAFE_PART.match(p) for p in parts):
        raise SwebenchError(f"{record.where}: repo {repo!r} is not owner/name")
    sha = _text(record, "base_commit") or ""
    if not SHA1.match(sha):
        raise SwebenchError(f"{record.where}: base_commit {sha[:60]!r} is not a full commit SHA")
    failing = _id_list(record, "FAIL_TO_PASS")
    if failing is None:
        raise SwebenchError(f"{record.where}: FAIL_TO_PASS is missing")
    return Instance(
        where=record.where,
        instance_id=instance_id,
        repo=repo,
        base_commit=sha,
        fail_to_pass=failing,
        pass_to_pass=_id_list(record, "PASS_TO_PASS"),
        test_patch=_text(record, "test_patch") or "",
        patch=_text(record, "patch", required=False),
    )


def read_instances(path: Path) -> list[Instance]:
    instances = [parse_instance(r) for r in read_records(path)]
    _unique(instances, lambda i: (i.instance_id,))
    return instances


def parse_assignments(values: Iterable[str], option: str) -> dict[str, str]:
    """`--setup owner/name=CMD` (repeatable) as {owner/name: CMD}."""
    out: dict[str, str] = {}
    for value in values:
        repo, sep, command = value.partition("=")
        repo, command = repo.strip(), command.strip()
        if not sep or not repo or not command:
            raise SwebenchError(f"{option} {value!r}: expected REPO=COMMAND (owner/name=...)")
        if repo in out:
            raise SwebenchError(f"{option} names {repo} twice")
        out[repo] = command
    return out


@dataclass
class ImportResult:
    imported: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (instance_id, why)


@dataclass(frozen=True)
class ImportOptions:
    repos: Path
    out: Path
    setups: Mapping[str, str] = field(default_factory=dict)
    test_cmds: Mapping[str, str] = field(default_factory=dict)
    allow_test_edits: bool = False


def import_instances(instances: Iterable[Instance], options: ImportOptions) -> ImportResult:
    """One task directory per importable instance under `options.out`; the rest skipped, each
    with the reason."""
    result = ImportResult()
    options.out.mkdir(parents=True, exist_ok=True)
    for instance in instances:
        why = import_instance(instance, options)
        if why is None:
            result.imported.append(instance.instance_id)
        else:
            result.skipped.append((instance.instance_id, why))
    return result


def import_instance(instance: Instance, options: ImportOptions) -> str | None:
    """Write the instance's task directory; the reason it cannot be imported, or None."""
    from patchwitness.errors import GradeStop

    why = not_pytest(instance.fail_to_pass)
    if why is not None:
        return why
    clone = find_clone(options.repos, instance.repo)
    if clone is None:
        tried = ", ".join(
            str(c.relative_to(options.repos)) for c in _candidates(options.repos, instance.repo)
        )
        return f"no clone of {instance.repo} under {options.repos} (looked for {tried})"
    try:
        if not _has_commit(clone, instance.base_commit):
            return f"base_commit {instance.base_commit[:12]} is not in {clone}"
        test_cmd = options.test_cmds.get(instance.repo) or default_test_cmd(
            clone, instance.base_commit, instance.test_patch.encode("utf-8")
        )
        files = task_files(instance, clone, test_cmd, options)
        write_task(options.out / instance.instance_id, files)
    # git failed, the test patch does not parse, or the written task does not load
    except GradeStop as stop:
        return str(stop)
    return None


def not_pytest(ids: list[str]) -> str | None:
    """Why these are not pytest node ids (every one names its file: `path::test`), or None."""
    if not ids:
        return "no FAIL_TO_PASS ids"
    bad = next((i for i in ids if "::" not in i), None)
    if bad is not None:
        return f"runner is not pytest: FAIL_TO_PASS id {bad!r} is not a pytest node id"
    return None


def _candidates(repos: Path, repo: str) -> list[Path]:
    owner, name = repo.split("/")
    return [repos / f"{owner}__{name}", repos / owner / name, repos / name]


def find_clone(repos: Path, repo: str) -> Path | None:
    """The local clone of owner/name: DIR/owner__name (the harness's own spelling), DIR/owner/name
    or DIR/name, first found. A task's repository must be a work tree (it holds .git)."""
    for candidate in _candidates(repos, repo):
        if (candidate / ".git").exists():
            return candidate.resolve()
    return None


def _has_commit(clone: Path, sha: str) -> bool:
    from patchwitness.workspace import git

    return git(clone, "cat-file", "-e", f"{sha}^{{commit}}", timeout=60).returncode == 0


def _exists_at(clone: Path, sha: str, path: str) -> bool:
    from patchwitness.workspace import git

    return git(clone, "cat-file", "-e", f"{sha}:{path}", timeout=60).returncode == 0


def hidden_test_dirs(clone: Path, sha: str, test_patch: bytes) -> list[str]:
    """The directories of the files the test patch touches, as they exist at `sha`: a test file
    in a directory the patch creates is found from its nearest existing parent, so the hidden
    tests always run, and the command never names a path the SHA lacks (pytest stops on one)."""
    from patchwitness.errors import ApplyFailed, InvalidTask
    from patchwitness.patch import parse_patch

    try:
        patch = parse_patch(test_patch)
    except ApplyFailed as exc:  # unparsable, or a path that leaves the tree
        raise InvalidTask(f"test_patch is not a usable patch: {exc}") from None
    dirs: set[str] = set()
    for change in patch.files:
        for path in change.paths:
            directory = posixpath.dirname(path)
            while directory and not _exists_at(clone, sha, directory):
                directory = posixpath.dirname(directory)
            dirs.add(directory or ".")
    return sorted(dirs)


def default_test_cmd(clone: Path, sha: str, test_patch: bytes) -> str:
    return " ".join([DEFAULT_TEST_CMD, *map(shlex.quote, hidden_test_dirs(clone, sha, test_patch))])


def toml_string(value: str) -> str:
    """A TOML basic string. JSON's escapes are a subset of TOML's; DEL is the one character JSON
    leaves bare that TOML forbids."""
    return json.dumps(value).replace("\x7f", "\\u007f")


def task_files(
    instance: Instance, clone: Path, test_cmd: str, options: ImportOptions
) -> dict[str, str]:
    """The task directory's files, by name."""
    toml = f'language = "python"\nrepo = {toml_string(str(clone))}\n'
    setup = options.setups.get(instance.repo)
    if setup:
        toml += f"setup = {toml_string(setup)}\n"
    files = {
        "repo.lock": instance.base_commit + "\n",
        "test_cmd.txt": test_cmd + "\n",
        "allow_test_edits.json": json.dumps(options.allow_test_edits) + "\n",
        "failing_nodeids.txt": "".join(f"{i}\n" for i in instance.fail_to_pass),
        "test_patch.diff": instance.test_patch,
        "task.toml": toml,
    }
    if instance.pass_to_pass is not None:
        files["pass_to_pass.txt"] = "".join(f"{i}\n" for i in instance.pass_to_pass)
    if instance.patch:
        files[GOLD_PATCH] = instance.patch  # never shown to a patch; compared with it
    return files


def write_task(dest: Path, files: Mapping[str, str]) -> None:
    """Write the task beside its final place, load it as a grade would, then swap it in: a task
    that does not load is never left in the bag, and a re-import replaces the old one whole."""
    from patchwitness.task import load_task

    staging = dest.with_name(f".{dest.name}.importing")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        for name, text in files.items():
            (staging / name).write_bytes(text.encode("utf-8"))
        load_task(staging)
        if dest.exists():
            shutil.rmtree(dest)
        staging.rename(dest)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


# -- predictions -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Prediction:
    where: str
    instance_id: str
    model: str  # model_name_or_path
    patch: str | None  # None: an empty or null model_patch, which is no patch at all


def parse_prediction(record: Record) -> Prediction:
    instance_id = _instance_id(record)
    model = _text(record, "model_name_or_path") or ""
    patch = record.data.get("model_patch")
    if patch is not None and not isinstance(patch, str):
        raise SwebenchError(f"{record.where}: model_patch must be a string or null")
    return Prediction(record.where, instance_id, model, patch or None)


def read_predictions(path: Path) -> list[Prediction]:
    predictions = [parse_prediction(r) for r in read_records(path, keyed=True)]
    if not predictions:
        raise SwebenchError(f"{path}: no predictions")
    _unique(predictions, lambda p: (p.model, p.instance_id))
    return predictions


def unknown_predictions(predictions: Iterable[Prediction], tasks: set[str]) -> list[Prediction]:
    """Predictions for instances that are not tasks of the bag: reported, never graded."""
    return [p for p in predictions if p.instance_id not in tasks]


def predictions_dir(db: Path) -> Path:
    """Where the predictions' patches are written: beside the results database."""
    db = Path(db)
    return db.with_name(f"{db.stem}-predictions")


def safe_names(models: Iterable[str]) -> dict[str, str]:
    """A directory name per model: unsafe characters replaced, and a short hash appended when
    two models would otherwise share one ("org/m" and "org_m")."""
    import hashlib

    out: dict[str, str] = {}
    taken: set[str] = set()
    wanted = {model: _safe_name(model) for model in set(models)}
    # A model whose name is already safe keeps it; a rewritten one yields on a clash.
    for model in sorted(wanted, key=lambda m: (wanted[m] != m, m)):
        name = wanted[model]
        if name in taken:
            name += "-" + hashlib.sha256(model.encode()).hexdigest()[:8]
        taken.add(name)
        out[model] = name
    return out


def _safe_name(model: str) -> str:
    name = UNSAFE_CHARS.sub("_", model)
    return "_" + name if name.startswith(".") else name


def prediction_patches(
    tasks: list[Path], predictions: list[Prediction], root: Path
) -> tuple[list[str], list[tuple[Path, Path | None, str]]]:
    """The bag's (task, patch file, agent) triples from predictions: one agent per model, its
    patches written under `root` (ROOT/MODEL/TASK.diff); a task a model did not predict, or
    predicted empty, has no patch file (None). Returns (agents, triples), in discover's order."""
    from patchwitness.atomic import write_bytes

    names = safe_names(p.model for p in predictions)
    patches = {(p.model, p.instance_id): p.patch for p in predictions}
    agents = sorted(names)
    jobs = []
    for task in tasks:
        for agent in agents:
            path = root / names[agent] / f"{task.name}.diff"
            patch = patches.get((agent, task.name))
            if patch is None:
                path.unlink(missing_ok=True)  # a file left by an earlier run is not this one's
                jobs.append((task, None, agent))
                continue
            data = patch.encode("utf-8")
            if not path.is_file() or path.read_bytes() != data:
                write_bytes(path, data)
            jobs.append((task, path, agent))
    return agents, jobs


# -- the run report --------------------------------------------------------------------------------

RESOLVED_GRADES = frozenset({"accept", "accept-with-review"})
RESOLVED_LABELS = frozenset({"passed", "tests-authored"})


def agents_of(verdicts: Iterable[Verdict], crashes: Iterable[Mapping[str, Any]] = ()) -> list[str]:
    return sorted({v.agent for v in verdicts} | {c["agent"] for c in crashes})


def choose_agent(
    verdicts: Iterable[Verdict], crashes: Iterable[Mapping[str, Any]], agent: str | None
) -> str:
    """The agent a run report is about: the one asked for, or the only one there is."""
    agents = agents_of(verdicts, crashes)
    if not agents:
        raise SwebenchError("the database holds no verdicts")
    if agent is None and len(agents) > 1:
        raise SwebenchError(
            f"the database holds {len(agents)} agents; pick one with --agent: {', '.join(agents)}"
        )
    if agent is not None and agent not in agents:
        raise SwebenchError(f"no verdicts for agent {agent!r}; agents: {', '.join(agents)}")
    return agent or agents[0]


def outcome(verdict: Verdict) -> str:
    """empty | error | resolved | unprintable | unresolved, as the harness would count it."""
    if verdict.patch_sha256 == EMPTY_PATCH_SHA256:
        return "empty"
    # The patch never ran: it did not apply, or the task could not be graded at all.
    if verdict.label == "apply-failed" or verdict.grade == "ungradable":
        return "error"
    if verdict.grade in RESOLVED_GRADES and verdict.label in RESOLVED_LABELS:
        return "resolved"
    return "unprintable" if verdict.label == "UNPRINTABLE" else "unresolved"


def run_report(
    verdicts: Sequence[Verdict],
    crashes: Sequence[Mapping[str, Any]] = (),
    agent: str | None = None,
) -> dict[str, Any]:
    """The SWE-bench harness's run report (schema_version 2) for one agent, from its verdicts
    and its crashes (dicts with task, agent, patch_sha256). A later verdict of a task replaces an
    earlier one (the patch graded again); a verdict outranks a crash, which the next run retries.
    Every task is completed (resolved or unresolved), an empty patch, or an error, so resolved +
    unresolved = completed and completed + empty + error = total."""
    agent = choose_agent(verdicts, crashes, agent)
    latest = {v.task: v for v in verdicts if v.agent == agent}
    kinds = ("empty", "error", "resolved", "unprintable", "unresolved")
    ids: dict[str, set[str]] = {kind: set() for kind in kinds}
    review: set[str] = set()
    for task, verdict in latest.items():
        kind = outcome(verdict)
        ids[kind].add(task)
        if kind == "resolved" and verdict.grade == "accept-with-review":
            review.add(task)
    for crash in crashes:
        if crash["agent"] == agent and crash["task"] not in latest:
            empty = crash.get("patch_sha256") == EMPTY_PATCH_SHA256
            ids["empty" if empty else "error"].add(crash["task"])
    unresolved = ids["unresolved"] | ids["unprintable"]  # UNPRINTABLE ran, and did not resolve
    completed = ids["resolved"] | unresolved
    # As the harness counts: an empty prediction was submitted, and never completes.
    submitted = completed | ids["error"] | ids["empty"]
    return {
        "total_instances": len(submitted),
        "submitted_instances": len(submitted),
        "completed_instances": len(completed),
        "resolved_instances": len(ids["resolved"]),
        "unresolved_instances": len(unresolved),
        "empty_patch_instances": len(ids["empty"]),
        "error_instances": len(ids["error"]),
        "completed_ids": sorted(completed),
        # The harness's "no prediction": a bag grades a missing prediction as an empty patch,
        # so every task of the agent is counted above and none is left incomplete.
        "incomplete_ids": [],
        "empty_patch_ids": sorted(ids["empty"]),
        "submitted_ids": sorted(submitted),
        "resolved_ids": sorted(ids["resolved"]),
        "unresolved_ids": sorted(unresolved),
        "error_ids": sorted(ids["error"]),
        "schema_version": 2,
        "unprintable_ids": sorted(ids["unprintable"]),
        "review_ids": sorted(review),
    }
