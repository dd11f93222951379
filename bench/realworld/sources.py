"""Getting a case's source onto this machine, as a git repository the evaluation may write to.

A GitHub source is cloned from a local copy (never from the network): the environment variable
the case names, `--sources DIR` (holding `owner+name/` or `owner+name/repo`), or the snapshot
directory `$PW_SNAPSHOTS` names (laid out the same way). The clone keeps the history up to the
pinned commit, so projects whose version comes from git see a real history. A PyPI sdist is
downloaded with pip (cached), unpacked, and committed as the first commit of a fresh repository,
tagged with its version.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

from realworld.case import GitSource, SdistSource, Source

GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "patchwitness bench",
    "GIT_AUTHOR_EMAIL": "bench@patchwitness.invalid",
    "GIT_COMMITTER_NAME": "patchwitness bench",
    "GIT_COMMITTER_EMAIL": "bench@patchwitness.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
}


PIP_DOWNLOAD = (sys.executable, "-m", "pip", "download", "--quiet", "--no-deps")
PIP_DOWNLOAD += ("--no-binary", ":all:")


class Unavailable(Exception):
    """The source is not on this machine (and cannot be downloaded): the case is skipped."""


def git(cwd: Path, *args: str, check: bool = True) -> str:
    env = {**os.environ, **GIT_IDENTITY}
    done = subprocess.run(
        ["git", "-c", "advice.detachedHead=false", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
    )
    if check and done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {done.stderr.strip()[-500:]}")
    return done.stdout.strip()


def local_copy(source: GitSource, sources_dir: Path | None) -> Path:
    candidates: list[Path] = []
    if os.environ.get(source.env_var):
        candidates.append(Path(os.environ[source.env_var]))
    roots = [sources_dir] if sources_dir else []
    if os.environ.get("PW_SNAPSHOTS"):
        roots.append(Path(os.environ["PW_SNAPSHOTS"]))
    for root in roots:
        candidates += [root / source.slug / "repo", root / source.slug]
    for path in candidates:
        if (path / "HEAD").is_file() or (path / ".git").exists():
            return path
    raise Unavailable(
        f"{source.describe()}: no local copy; set {source.env_var} or --sources "
        "(DEVELOPERS.md, 'Real repositories')"
    )


def checkout(source: Source, dest: Path, sources_dir: Path | None, cache: Path) -> Path:
    """A fresh git repository at `dest` holding the source, HEAD at the pinned state."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(source, GitSource):
        origin = local_copy(source, sources_dir)
        git(dest.parent, "clone", "--quiet", "--no-checkout", str(origin), str(dest))
        if git(dest, "cat-file", "-t", source.commit, check=False) != "commit":
            raise Unavailable(f"{source.describe()}: the local copy lacks the pinned commit")
        git(dest, "checkout", "--quiet", "-B", "bench", source.commit)
        git(dest, "remote", "remove", "origin", check=False)
        return dest
    archive = download_sdist(source, cache)
    unpack(archive, dest)
    git(dest, "init", "--quiet", "-b", "bench")
    git(dest, "add", "-A")
    git(dest, "commit", "--quiet", "-m", f"{source.package} {source.version} (PyPI sdist)")
    git(dest, "tag", f"v{source.version}")
    return dest


def download_sdist(source: SdistSource, cache: Path) -> Path:
    cache.mkdir(parents=True, exist_ok=True)
    stem = f"{source.package}-{source.version}".lower().replace("-", "_")
    for path in cache.iterdir():
        if path.name.lower().replace("-", "_").startswith(stem) and _is_archive(path):
            return path
    spec = f"{source.package}=={source.version}"
    done = subprocess.run(
        [*PIP_DOWNLOAD, "--dest", str(cache), spec],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise Unavailable(f"{source.describe()}: pip download failed: {done.stderr[-300:]}")
    for path in cache.iterdir():
        if path.name.lower().replace("-", "_").startswith(stem) and _is_archive(path):
            return path
    raise Unavailable(f"{source.describe()}: pip downloaded no sdist")


def _is_archive(path: Path) -> bool:
    return path.name.endswith((".tar.gz", ".tgz", ".zip"))


def unpack(archive: Path, dest: Path) -> None:
    """Unpack an sdist's single top directory into `dest`."""
    staging = dest.with_name(dest.name + ".unpack")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    if archive.name.endswith(".zip"):
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(staging)
    else:
        with tarfile.open(archive) as tf:
            tf.extractall(staging, filter="data")
    tops = list(staging.iterdir())
    top = tops[0] if len(tops) == 1 and tops[0].is_dir() else staging
    shutil.move(str(top), str(dest))
    shutil.rmtree(staging, ignore_errors=True)
