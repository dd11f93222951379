"""Building a demo bag on disk: repositories, task directories and agent patches.

Repositories are committed with fixed dates and authors so their SHAs are the same on every machine
(and baselines can be reused). Patches are produced by applying an agent's edits to a copy of the
files and diffing, never written by hand, so they always apply to the SHA they were made for.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import subprocess
from collections.abc import Mapping
from pathlib import Path

GIT_ENV = {
    "GIT_AUTHOR_NAME": "patchwitness demo",
    "GIT_AUTHOR_EMAIL": "demo@patchwitness.invalid",
    "GIT_COMMITTER_NAME": "patchwitness demo",
    "GIT_COMMITTER_EMAIL": "demo@patchwitness.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00+00:00",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00+00:00",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def _git(repo: Path, *args: str) -> str:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(repo), **GIT_ENV}
    done = subprocess.run(
        ["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def write_files(root: Path, files: Mapping[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def make_repo(root: Path, files: Mapping[str, str], message: str = "demo") -> str:
    """A git repository at `root` holding exactly `files`, committed once. Returns the SHA."""
    root.mkdir(parents=True, exist_ok=True)
    if not (root / ".git").exists():
        _git(root, "init", "--quiet", "--initial-branch=main")
    write_files(root, files)
    _git(root, "add", "--all")
    if _git(root, "status", "--porcelain"):
        _git(root, "commit", "--quiet", "--message", message)
    return _git(root, "rev-parse", "HEAD")


def apply_edits(files: Mapping[str, str], edits: list[tuple[str, str, str]]) -> dict[str, str]:
    """Apply (path, old, new) edits to a copy of `files`.

    old == "" appends `new` (or creates the file); "@@delete-function@@" deletes the top-level
    function whose header starts with `new`; "@@ensure-import-pytest@@" adds `import pytest`; any
    other `old` must occur exactly once and is replaced by `new`.
    """
    out = dict(files)
    for path, old, new in edits:
        text = out.get(path)
        if old == "":
            out[path] = (text or "") + new
        elif old == "@@delete-function@@":
            out[path] = _delete_function(_need(text, path), new)
        elif old == "@@ensure-import-pytest@@":
            current = _need(text, path)
            if not re.search(r"^import pytest$", current, re.MULTILINE):
                out[path] = "import pytest\n" + current
        else:
            current = _need(text, path)
            if current.count(old) != 1:
                raise ValueError(f"edit for {path} matches {current.count(old)} times: {old!r}")
            out[path] = current.replace(old, new)
    return out


def _need(text: str | None, path: str) -> str:
    if text is None:
        raise ValueError(f"edit names a missing file {path}")
    return text


def _delete_function(text: str, header: str) -> str:
    lines = text.splitlines(keepends=True)
    start = next(i for i, ln in enumerate(lines) if ln.startswith(header))
    while start > 0 and lines[start - 1].startswith("@"):
        start -= 1
    end = start + 1
    while end < len(lines) and (not lines[end].strip() or lines[end][0] in " \t"):
        end += 1
    return "".join(lines[:start] + lines[end:])


def make_diff(before: Mapping[str, str], after: Mapping[str, str]) -> str:
    """A git-style unified diff from one file map to another."""
    chunks: list[str] = []
    for path in sorted(set(before) | set(after)):
        old, new = before.get(path), after.get(path)
        if old == new:
            continue
        header = [f"diff --git a/{path} b/{path}\n"]
        if old is None:
            header.append("new file mode 100644\n")
        elif new is None:
            header.append("deleted file mode 100644\n")
        diff = difflib.unified_diff(
            (old or "").splitlines(keepends=True),
            (new or "").splitlines(keepends=True),
            fromfile="/dev/null" if old is None else f"a/{path}",
            tofile="/dev/null" if new is None else f"b/{path}",
        )
        body = "".join(_terminate(line) for line in diff)
        chunks.append("".join(header) + body)
    return "".join(chunks)


def _terminate(line: str) -> str:
    return line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"


def write_task(
    task_dir: Path,
    *,
    sha: str,
    test_cmd: str,
    allow_test_edits: bool,
    failing: list[str],
    toml: str,
) -> None:
    task_dir.mkdir(parents=True, exist_ok=True)
    (task_dir / "repo.lock").write_text(sha + "\n")
    (task_dir / "test_cmd.txt").write_text(test_cmd + "\n")
    (task_dir / "allow_test_edits.json").write_text(json.dumps(allow_test_edits) + "\n")
    (task_dir / "failing_nodeids.txt").write_text("".join(f"{i}\n" for i in failing))
    (task_dir / "task.toml").write_text(toml)
