"""Warm C++ build trees: the SHA built once, and each patch rebuilding only what it dirties.

A cold grade configures and builds the whole project for every patch, and again for every flag
envelope; the plain incremental rebuild of a one-header patch takes seconds. A build tree is tied
to the absolute paths of its sources and of itself, so warmth needs stable paths: a *slot* is a
fixed directory in the cache, one per (task SHA, recipe, grader build) and per concurrent grade,
holding

    pristine/          the SHA's checkout, every file's mtime set to one fixed instant
    repo/              the tree a grade builds and tests: the pristine tree, then the patch
    snapshots/NAME/    a build tree made from the pristine tree (before any test ran in it)
    builds/NAME/       the build tree a grade uses: its snapshot, then the incremental build

Before each grade `repo/` is a fresh copy of `pristine/` and each build tree a fresh copy of its
snapshot (copy-on-write where the filesystem can), mtimes kept, so nothing a previous grade's code
wrote there survives; a sync by size and mtime would not do, since code under grade can forge
both. The patch is then applied: the files it
touches get the current time, every other source keeps the fixed instant, which is older than
every object of the snapshot. Ninja's own dependency tracking (depfiles list every header a
translation unit includes) rebuilds exactly the objects whose inputs the patch changed. The code
under grade can write to `repo/` and `builds/` only; `pristine/` and `snapshots/` are the
grader's, never bound writable into a sandbox, and no git command ever runs in a tree the code
under grade could have touched before it is restored.

The slot key covers what a build depends on besides the sources: the SHA, the configure and build
commands, the environment's key, the compiler, CMake and Ninja versions, and the grader's build.
A snapshot's name covers its flags (the plain build, a coverage variant, a matrix envelope).

Ninja's dependency log lists the files each object read, never the files it did not find: a
header the patch adds that an include now resolves to (a `gtest/gtest.h` earlier on the include
path than the system's, an `"x.h"` beside the including file) leaves every object clean. So a
patch that adds a file any compile could include (`note_added`) makes `restore_build` drop the
log: ninja then rebuilds every object, and nothing is trusted stale.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

# The mtime of every pristine source: older than any object a build writes.
FIXED_MTIME = 946_684_800  # 2000-01-01T00:00:00Z
SLOTS = 8  # concurrent grades of one task that each get a warm tree


def slot_key(parts: dict) -> str:
    canonical = json.dumps(parts, sort_keys=True, default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:24]


@dataclass(frozen=True)
class Slot:
    root: Path

    @property
    def pristine(self) -> Path:
        return self.root / "pristine"

    @property
    def repo(self) -> Path:
        return self.root / "repo"

    def snapshot(self, name: str) -> Path:
        return self.root / "snapshots" / name

    def build(self, name: str) -> Path:
        return self.root / "builds" / name

    def has_snapshot(self, name: str) -> bool:
        return (self.snapshot(name) / ".pw-complete").exists()

    def ready(self) -> bool:
        return (self.root / ".pw-pristine").exists()


@contextlib.contextmanager
def acquire(cache: Path, key: str) -> Iterator[Slot]:
    """A slot of `key` no other grade holds, locked until the block ends (waiting when all
    are taken)."""
    home = cache / "warm" / key
    home.mkdir(parents=True, exist_ok=True)
    handles = []
    try:
        for index in range(SLOTS):
            handle = open(home / f"slot-{index}.lock", "w")  # noqa: SIM115 - held across yield
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                handle.close()
                continue
            handles.append(handle)
            yield Slot(home / f"slot-{index}")
            return
        handle = open(home / "slot-0.lock", "w")  # noqa: SIM115
        fcntl.flock(handle, fcntl.LOCK_EX)
        handles.append(handle)
        yield Slot(home / "slot-0")
    finally:
        for handle in handles:
            handle.close()


def make_pristine(slot: Slot, tree: Path) -> None:
    """Fill the slot's pristine tree from a fresh checkout of the SHA (`tree`), every file at the
    fixed mtime."""
    shutil.rmtree(slot.root, ignore_errors=True)
    slot.root.mkdir(parents=True)
    shutil.copytree(tree, slot.pristine, symlinks=True)
    fix_mtimes(slot.pristine)
    (slot.root / ".pw-pristine").write_text("ready\n")


def fix_mtimes(root: Path) -> None:
    for dirpath, dirnames, filenames in os.walk(root):
        for name in filenames + dirnames:
            with contextlib.suppress(OSError):
                os.utime(
                    os.path.join(dirpath, name), (FIXED_MTIME, FIXED_MTIME), follow_symlinks=False
                )


ADDED = "added.txt"  # the files the grade's patch added, one per line (note_added)
# Sources a patch adds are compiled by an edge of their own (a CMake edit makes it); every other
# file a patch adds could be found by an include.
COMPILED = (".c", ".cc", ".cpp", ".cxx", ".c++")


def note_added(slot: Slot, paths: list[str]) -> None:
    """Say which files this grade's patch added (none, at the start of every grade)."""
    (slot.root / ADDED).write_text("".join(f"{p}\n" for p in paths))


def includable_added(slot: Slot) -> list[str]:
    try:
        added = (slot.root / ADDED).read_text().splitlines()
    except OSError:
        return []
    return [p for p in added if p and not p.endswith(COMPILED) and not _cmake(p)]


def _cmake(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return name == "CMakeLists.txt" or name.endswith(".cmake")


def restore_build(slot: Slot, name: str) -> Path:
    """The build tree `name` made a fresh copy of its snapshot; its dependency log dropped when
    the patch added a file an include could resolve to (see the module's docstring)."""
    build = slot.build(name)
    restore(slot.snapshot(name), build)
    if includable_added(slot):
        for log in (".ninja_deps", ".ninja_log"):
            (build / log).unlink(missing_ok=True)
    return build


def keep_snapshot(slot: Slot, name: str) -> None:
    """The build tree `name` as it is now (built, no test run yet) becomes its snapshot."""
    target = slot.snapshot(name)
    restore(slot.build(name), target)
    (target / ".pw-complete").write_text("built\n")


def restore_empty(folder: Path) -> None:
    """A folder of the slot a grade fills (its reports, its home), emptied first."""
    _remove(folder)
    folder.mkdir(parents=True)


def restore(source: Path, target: Path) -> None:
    """Make `target` a fresh copy of `source`, mtimes kept. A whole copy, never a sync by size
    and mtime: code under grade can forge both on what it leaves behind."""
    _remove(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["cp", "-a", "--reflink=auto", str(source), str(target)], capture_output=True
    )
    if done.returncode != 0:
        _remove(target)
        shutil.copytree(source, target, symlinks=True)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        for dirpath, dirnames, _ in os.walk(path):
            for d in dirnames:
                with contextlib.suppress(OSError):
                    os.chmod(os.path.join(dirpath, d), 0o700)
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
