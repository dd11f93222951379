"""Shared fixtures: real git repositories built in temporary directories, and task directories."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from patchwitness.demo import build

# One virtual environment for every Python task the tests build: same setup command, and
# setup_depends_on = [] keys it on nothing but the command.
SETUP = 'python3 -m venv "$PW_ENV" && "$PW_ENV/bin/python" -m pip install --quiet pytest'


@pytest.fixture(scope="session", autouse=True)
def pw_cache(tmp_path_factory: pytest.TempPathFactory):
    """A cache shared by the whole session, never the user's own."""
    path = tmp_path_factory.mktemp("pw-cache")
    old = os.environ.get("PATCHWITNESS_CACHE")
    os.environ["PATCHWITNESS_CACHE"] = str(path)
    yield path
    if old is None:
        os.environ.pop("PATCHWITNESS_CACHE", None)
    else:
        os.environ["PATCHWITNESS_CACHE"] = old


@dataclass
class Built:
    root: Path
    repo: Path
    sha: str
    task_dir: Path
    files: dict[str, str]

    def patch(self, edits: list[tuple[str, str, str]], name: str = "agent.diff") -> Path:
        after = build.apply_edits(self.files, edits)
        path = self.root / "patches" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(build.make_diff(self.files, after))
        return path

    def raw_patch(self, text: str | bytes, name: str = "raw.diff") -> Path:
        path = self.root / "patches" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, str):
            text = text.encode()
        path.write_bytes(text)
        return path


def make_task(
    root: Path,
    files: Mapping[str, str],
    *,
    failing: list[str],
    allow_test_edits: bool = False,
    test_cmd: str = "python -m pytest -q",
    toml_extra: str = "",
    setup: str | None = SETUP,
    name: str = "task",
) -> Built:
    repo = root / "repo"
    sha = build.make_repo(repo, files)
    task_dir = root / "tasks" / name
    toml = 'language = "python"\nrepo = "../../repo"\ntimeout = 60\n'
    if setup:
        toml += f"setup = '{setup}'\nsetup_depends_on = []\n"
    toml += toml_extra
    build.write_task(
        task_dir,
        sha=sha,
        test_cmd=test_cmd,
        allow_test_edits=allow_test_edits,
        failing=failing,
        toml=toml,
    )
    return Built(root, repo, sha, task_dir, dict(files))


def make_cmake_task(
    root: Path,
    files: Mapping[str, str],
    *,
    failing: list[str],
    matrix: str | None = None,
    name: str = "limit",
) -> Built:
    """A C++ task over `files` (a CMake project whose tests ctest runs), the flag matrix off
    unless `matrix` gives its manifest's JSON."""
    repo = root / "repo"
    sha = build.make_repo(repo, files)
    task_dir = root / "tasks" / name
    toml = 'language = "cpp"\nrepo = "../../repo"\ntimeout = 120\n'
    toml += '[matrix]\nmanifest = "matrix.json"\n' if matrix else "[matrix]\nenabled = false\n"
    build.write_task(
        task_dir,
        sha=sha,
        test_cmd='ctest --test-dir "$PW_BUILD"',
        allow_test_edits=False,
        failing=failing,
        toml=toml,
    )
    if matrix:
        (task_dir / "matrix.json").write_text(matrix)
    return Built(root, repo, sha, task_dir, dict(files))


def tree_digest(root: Path) -> dict[str, bytes]:
    """Every file under root (including .git) with its bytes: 'byte-identical' made checkable."""
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            out[str(path.relative_to(root))] = path.read_bytes()
    return out
