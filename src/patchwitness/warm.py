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
patch that adds a file an include could find (`note_added`) makes `restore_build` drop the
log: ninja then rebuilds every object, and nothing is trusted stale. A removed one too: a build
that only asked whether it was there (`__has_include`) never logged it. Which files an include
could find is read when a snapshot is kept: every file its build read (the log lists system
headers too) is searched for the names its includes spell (include_names.py); a file whose name
none spells, as a file or a folder on the way, is found by no include, so a note or a data file
the patch adds leaves the log. An include spelled by a macro makes every added file count.

Slots follow the branch. The key holds no commit: the slots of one key hold commits of one
repository, and a grade at a commit no slot holds takes a slot at a commit near it (`acquire`)
and `move`s it: the pristine tree takes the files that differ, at the current time, and each
snapshot becomes a stale start for its next build, which rebuilds what the move dirtied. A slot's
paths never change, so its build trees stay valid; the baseline at the new commit is built
there (warm_checkout.py) and its builds are the new snapshots.
"""

from __future__ import annotations

import contextlib
import fcntl
import filecmp
import functools
import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from patchwitness import include_names
from patchwitness.buildgraph import dependency_log

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

    def sha(self) -> str:
        try:
            return (self.root / SHA_FILE).read_text().strip()
        except OSError:
            return ""

    def has_stale(self, name: str) -> bool:
        return (self.snapshot(name) / STALE).exists()


SHA_FILE = ".pw-sha"  # the commit the slot's pristine tree holds
USED_FILE = ".pw-used"  # touched by every grade that takes the slot: the least used moves first
STALE = ".pw-stale"  # a snapshot of the slot's previous commit: a start for the build, no more


@contextlib.contextmanager
def acquire(
    cache: Path, family: str, sha: str, near: Callable[[str], bool] = lambda other: False
) -> Iterator[Slot]:
    """A slot of `family` no other grade holds, locked until the block ends (waiting when all
    are taken). Preferred in turn: a slot at `sha`; a slot at a commit `near` says is close
    (the most recently used first: it follows the branch); a slot never made; the least
    recently used slot. A slot at another commit is the caller's to `move`."""
    home = cache / "warm" / family
    home.mkdir(parents=True, exist_ok=True)
    order = _preference([Slot(home / f"slot-{i}") for i in range(SLOTS)], sha, near)
    handles = []
    try:
        for slot in order:
            handle = open(slot.root.with_suffix(".lock"), "w")  # noqa: SIM115 - held across yield
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                handle.close()
                continue
            handles.append(handle)
            _touch(slot)
            yield slot
            return
        slot = order[0]
        handle = open(slot.root.with_suffix(".lock"), "w")  # noqa: SIM115
        fcntl.flock(handle, fcntl.LOCK_EX)
        handles.append(handle)
        _touch(slot)
        yield slot
    finally:
        for handle in handles:
            handle.close()


def _preference(slots: list[Slot], sha: str, near: Callable[[str], bool]) -> list[Slot]:
    made = [s for s in slots if s.ready()]
    here = [s for s in made if s.sha() == sha]
    others = sorted((s for s in made if s.sha() != sha), key=_last_used)
    close = [s for s in reversed(others) if near(s.sha())]
    empty = [s for s in slots if not s.ready()]
    return here + close + empty + [s for s in others if s not in close]


def _last_used(slot: Slot) -> float:
    try:
        return (slot.root / USED_FILE).stat().st_mtime
    except OSError:
        return 0.0


def _touch(slot: Slot) -> None:
    if slot.root.is_dir():
        (slot.root / USED_FILE).write_text("")


def make_pristine(slot: Slot, tree: Path, sha: str) -> None:
    """Fill the slot's pristine tree from a fresh checkout of the SHA (`tree`), every file at the
    fixed mtime."""
    shutil.rmtree(slot.root, ignore_errors=True)
    slot.root.mkdir(parents=True)
    shutil.copytree(tree, slot.pristine, symlinks=True)
    fix_mtimes(slot.pristine)
    (slot.root / SHA_FILE).write_text(sha)
    (slot.root / ".pw-pristine").write_text("ready\n")
    _touch(slot)


def move(slot: Slot, tree: Path, sha: str) -> list[str]:
    """Bring a slot made at another commit to `tree` (a fresh checkout of `sha`) without
    building anything: the pristine tree takes every file that differs, at the current time (so
    every object that read one is older and rebuilt), loses every file `tree` does not have (an
    object whose dependency log names one is rebuilt), and each snapshot becomes a stale start
    for the next build of its name. A file the move adds or removes that an include could
    resolve to drops the stale snapshots' dependency logs, as a patch's does. Returns the files
    that differed."""
    (slot.root / ".pw-pristine").unlink(missing_ok=True)
    snapshots = slot.root / "snapshots"
    for snapshot in sorted(snapshots.iterdir()) if snapshots.is_dir() else []:
        if (snapshot / ".pw-complete").exists():
            (snapshot / ".pw-complete").unlink()
            (snapshot / STALE).write_text("")
        elif not (snapshot / STALE).exists():
            _remove(snapshot)  # an interrupted copy: never a start
    changed, added = sync_tree(tree, slot.pristine)
    removed = [path for path in changed if not (slot.pristine / path).exists()]
    appeared = [path for path in added + removed if includable(path)]
    for snapshot in snapshots.glob("*"):
        if could_be_found(snapshot, appeared):
            _drop_dependency_log(snapshot)
    (slot.root / SHA_FILE).write_text(sha)
    (slot.root / ".pw-pristine").write_text("ready\n")
    return changed


def sync_tree(source: Path, target: Path) -> tuple[list[str], list[str]]:
    """Make `target` hold exactly `source`'s files, by content (both are the grader's own trees,
    never touched by code under grade). A file that differs is copied and given the current
    time; one `target` has alone is removed; the rest keep their mtimes. Returns the paths that
    differed and, of those, the ones `target` did not have."""
    changed: list[str] = []
    added: list[str] = []
    wanted = set()
    for path in _files(source):
        wanted.add(path)
        here, there = source / path, target / path
        if _same(here, there):
            continue
        existed = there.exists() or there.is_symlink()
        _remove(there)
        there.parent.mkdir(parents=True, exist_ok=True)
        if here.is_symlink():
            os.symlink(os.readlink(here), there)
        else:
            shutil.copy2(here, there)
            os.utime(there)
        changed.append(path)
        if not existed:
            added.append(path)
    for path in _files(target):
        if path not in wanted:
            _remove(target / path)
            changed.append(path)
    return changed, added


def _files(root: Path) -> list[str]:
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            found.append(os.path.relpath(os.path.join(dirpath, name), root))
    return found


def _same(here: Path, there: Path) -> bool:
    if here.is_symlink() or there.is_symlink():
        return here.is_symlink() and there.is_symlink() and os.readlink(here) == os.readlink(there)
    if not there.is_file():
        return False
    a, b = here.stat(), there.stat()
    if a.st_size != b.st_size or (a.st_mode & 0o111) != (b.st_mode & 0o111):
        return False
    return filecmp.cmp(here, there, shallow=False)


def fix_mtimes(root: Path) -> None:
    for dirpath, dirnames, filenames in os.walk(root):
        for name in filenames + dirnames:
            with contextlib.suppress(OSError):
                os.utime(
                    os.path.join(dirpath, name), (FIXED_MTIME, FIXED_MTIME), follow_symlinks=False
                )


ADDED = "added.txt"  # the files the grade's patch added or removed, one per line (note_added)
# Sources a patch adds are compiled by an edge of their own (a CMake edit makes it); every other
# file a patch adds could be found by an include.
COMPILED = (".c", ".cc", ".cpp", ".cxx", ".c++")


def note_added(slot: Slot, paths: list[str]) -> None:
    """Say which files this grade's patch added or removed (none, at the start of every grade).
    A removed header is as unseen by the dependency log as an added one when a build only asked
    whether it was there (`__has_include`)."""
    (slot.root / ADDED).write_text("".join(f"{p}\n" for p in paths))


def includable_added(slot: Slot) -> list[str]:
    try:
        added = (slot.root / ADDED).read_text().splitlines()
    except OSError:
        return []
    return [p for p in added if p and includable(p)]


def includable(path: str) -> bool:
    """A file an include could resolve to: not a source compiled by an edge of its own, not
    CMake's."""
    return not path.endswith(COMPILED) and not _cmake(path)


def _cmake(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return name == "CMakeLists.txt" or name.endswith(".cmake")


def restore_build(slot: Slot, name: str, at_sha: bool = False) -> Path:
    """The build tree `name` made a fresh copy of its snapshot; its dependency log dropped when
    the patch added a file an include could resolve to (see the module's docstring), unless the
    slot's repository holds the SHA itself (`at_sha`): the tree the snapshot was built from."""
    build = slot.build(name)
    restore(slot.snapshot(name), build)
    if not at_sha and could_be_found(slot.snapshot(name), includable_added(slot)):
        _drop_dependency_log(build)
    return build


def _drop_dependency_log(build: Path) -> None:
    for log in (".ninja_deps", ".ninja_log"):
        (build / log).unlink(missing_ok=True)


SPELLED = ".pw-spelled"  # in a snapshot: the names its build's includes spell (include_names.py)


def could_be_found(snapshot: Path, paths: list[str]) -> bool:
    """Whether an include of a file the snapshot's build read could resolve to one of `paths`
    (files that appeared or disappeared since): by the names the snapshot's includes spell,
    noted when it was kept; every path counts when they are unknown."""
    if not paths:
        return False
    try:
        names = set(json.loads((snapshot / SPELLED).read_text()))
    except (OSError, ValueError, TypeError):
        return True
    return any(include_names.could_be_found(names, path) for path in paths)


def note_spelled(build: Path, target: Path) -> None:
    """Write into `target` the names the includes of every file the build in `build` read
    spell (ninja's dependency log lists them); nothing when they cannot all be read, so that
    every added file counts."""
    (target / SPELLED).unlink(missing_ok=True)
    names = spelled_by(read_files(build), build)
    if names is not None:
        (target / SPELLED).write_text(json.dumps(sorted(names)))


def read_files(build: Path) -> list[str] | None:
    """Every file the build's compiles read, as ninja's dependency log has them; None without
    a log."""
    log = dependency_log(build)
    if log is None:
        return None
    return sorted(
        {line.strip() for line in log.splitlines() if line[:1].isspace() and line.strip()}
    )


def spelled_by(paths: list[str] | None, build: Path) -> set[str] | None:
    """The names the includes of `paths` spell (relative ones are the build's); None when any
    is unread or spells by macro."""
    if paths is None:
        return None
    names: set[str] = set()
    for path in paths:
        where = Path(path) if os.path.isabs(path) else build / path
        try:
            stat = where.stat()
        except OSError:
            return None
        found = _spelled_file(str(where), stat.st_mtime_ns, stat.st_size)
        if found is None:
            return None
        names |= found
    return names


@functools.lru_cache(maxsize=16384)
def _spelled_file(path: str, mtime_ns: int, size: int) -> frozenset[str] | None:
    """One file's spelled names, once per process and version (the system's headers are read
    by every snapshot's build)."""
    try:
        text = Path(path).read_text(errors="replace")
    except OSError:
        return None
    found = include_names.spelled(text)
    return None if found is None else frozenset(found)


def start_build(slot: Slot, name: str) -> Path:
    """The build tree to make snapshot `name` in: the stale snapshot of the slot's previous
    commit when it has one (the build system then rebuilds what the move changed), else empty."""
    build = slot.build(name)
    if slot.has_stale(name):
        restore(slot.snapshot(name), build)
        (build / STALE).unlink(missing_ok=True)
    else:
        _remove(build)
    return build


def keep_snapshot(slot: Slot, name: str) -> None:
    """The build tree `name` as it is now (built, no test run yet) becomes its snapshot."""
    target = slot.snapshot(name)
    restore(slot.build(name), target)
    note_spelled(slot.build(name), target)
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
