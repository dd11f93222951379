"""The compile cache: a golden built under an envelope, keyed by the hash of its real inputs.

What a compile reads is only known after it ran (the dependency file lists the headers), so the
cache has two levels, as ccache's direct mode does:

1. the *primary key* hashes what is known before compiling: the sources' repository paths and
   contents, the flags, the standard, the include directories, the compiler's identity, and the
   names of the files in the include directories and next to the sources (so a patch that adds a
   header shadowing another changes the key);
2. under it, each earlier compile left its dependency set (path -> content hash). The first set
   whose files still hash the same gives the *entry key*, a directory holding the binary.

Paths are repository-relative (system headers keep their absolute paths); the worktree's own path
is never part of a key, so two checkouts of the same tree share entries. Entries are written by the
grader, atomically (a temporary directory renamed into place), from a binary the sandboxed compile
left in its scratch directory; the sandbox never sees the cache.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import stat
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from patchwitness import atomic
from patchwitness.cachedir import cache_root

CACHE_VERSION = "pw-matrix-cache-1"
MAX_DEP_SETS = 16  # dependency sets remembered per primary key
# Headers outside the worktree are only trusted from these places; anything else (/proc, /dev,
# another user's /tmp) makes the compile uncacheable.
SYSTEM_ROOTS = ("/usr/", "/opt/", "/lib/", "/lib64/", "/etc/")


def root() -> Path:
    return cache_root() / "matrix"


# --- the dependency file ----------------------------------------------------------------------


def parse_depfile(text: str) -> list[str]:
    """The prerequisites of a Make-syntax dependency file (`-MD -MF`), targets dropped."""
    joined = text.replace("\\\r\n", " ").replace("\\\n", " ")
    deps: list[str] = []
    for rule in joined.splitlines():
        if ":" not in rule:
            continue
        _, _, body = _split_rule(rule)
        deps += _split_words(body)
    return list(dict.fromkeys(d for d in deps if d))


def _split_rule(rule: str) -> tuple[str, str, str]:
    # The target ends at the first ': ' (a Windows drive letter never reaches us).
    index = rule.find(": ")
    if index < 0:
        index = rule.rfind(":")
    return rule[:index], ":", rule[index + 1 :]


def _split_words(body: str) -> list[str]:
    words, current, i = [], [], 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body) and body[i + 1] in " #":
            current.append(body[i + 1])
            i += 2
            continue
        if ch == "$" and body[i + 1 : i + 2] == "$":
            current.append("$")
            i += 2
            continue
        if ch.isspace():
            if current:
                words.append("".join(current))
                current = []
        else:
            current.append(ch)
        i += 1
    if current:
        words.append("".join(current))
    return words


def normalize_deps(deps: Iterable[str], tree: Path) -> list[str] | None:
    """Repository-relative paths for files in the tree, absolute ones for system headers; None
    when a dependency is neither (the compile is then not cacheable)."""
    tree_text = str(tree.resolve())
    out: list[str] = []
    for dep in deps:
        path = os.path.normpath(dep if os.path.isabs(dep) else os.path.join(tree_text, dep))
        if path.startswith(tree_text + os.sep):
            rel = path[len(tree_text) + 1 :]
            if rel.startswith(".." + os.sep):
                return None
            out.append(rel)
        elif path.startswith(SYSTEM_ROOTS):
            out.append(path)
        else:
            return None
    return sorted(set(out))


# --- hashing ----------------------------------------------------------------------------------

_system_hashes: dict[tuple[str, int, int], str] = {}


def file_sha256(path: Path) -> str | None:
    """Content hash of a regular file; None for anything else (a device, a FIFO, missing)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                digest.update(chunk)
    except OSError:
        return None
    return digest.hexdigest()


def dep_sha256(dep: str, tree: Path) -> str | None:
    if not os.path.isabs(dep):
        return file_sha256(tree / dep)
    # System headers are many and never change under us within a process: remember them by
    # (path, mtime, size) so a warm matrix does not re-read the C++ library's headers each time.
    try:
        st = os.stat(dep)
    except OSError:
        return None
    memo = (dep, st.st_mtime_ns, st.st_size)
    if memo not in _system_hashes:
        value = file_sha256(Path(dep))
        if value is None:
            return None
        _system_hashes[memo] = value
    return _system_hashes[memo]


def listing_digest(tree: Path, directories: Iterable[str]) -> str:
    """The names (not contents) of the files directly and recursively under `directories`."""
    digest = hashlib.sha256()
    for rel in sorted(set(directories)):
        base = tree / rel
        if not base.is_dir():
            digest.update(f"{rel}\0<none>\0".encode())
            continue
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = sorted(d for d in dirnames if d != ".git")
            here = os.path.relpath(dirpath, tree)
            for name in sorted(filenames):
                digest.update(f"{here}/{name}\0".encode())
    return digest.hexdigest()


def _canonical(data: object) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


@dataclass(frozen=True)
class CompileInputs:
    """Everything a compile depends on that is known before it runs."""

    cxx: str
    compiler_id: str  # --version text and resolved path of the compiler
    std: str
    cxxflags: tuple[str, ...]
    ldflags: tuple[str, ...]
    include: tuple[str, ...]
    sources: tuple[str, ...]

    def primary_key(self, tree: Path) -> str | None:
        hashes = [file_sha256(tree / s) for s in self.sources]
        if any(h is None for h in hashes):
            return None
        folders = [*self.include, *(os.path.dirname(s) or "." for s in self.sources)]
        return _canonical(
            {
                "v": CACHE_VERSION,
                "cxx": self.cxx,
                "compiler": self.compiler_id,
                "std": self.std,
                "cxxflags": list(self.cxxflags),
                "ldflags": list(self.ldflags),
                "include": list(self.include),
                "sources": dict(zip(self.sources, hashes, strict=True)),
                "listing": listing_digest(tree, folders),
            }
        )


def entry_key(primary: str, deps: dict[str, str]) -> str:
    return _canonical({"primary": primary, "deps": deps})


# --- reading and writing ----------------------------------------------------------------------


@dataclass
class Entry:
    key: str
    binary: Path
    meta: dict


class CompileCache:
    """The on-disk cache under `cache_root()/matrix`. `enabled=False` reads and writes nothing."""

    def __init__(self, base: Path | None = None, enabled: bool = True) -> None:
        self.base = base or root()
        self.enabled = enabled

    def _primary_file(self, primary: str) -> Path:
        return self.base / "primary" / primary[:2] / f"{primary}.json"

    def _entry_dir(self, key: str) -> Path:
        return self.base / "entries" / key[:2] / key

    def lookup(self, primary: str | None, tree: Path) -> Entry | None:
        if not self.enabled or primary is None:
            return None
        try:
            sets = json.loads(self._primary_file(primary).read_text())
        except (OSError, ValueError):
            return None
        for deps in sets:
            if all(dep_sha256(path, tree) == sha for path, sha in deps.items()):
                key = entry_key(primary, deps)
                entry = self._read_entry(key)
                if entry is not None:
                    return entry
        return None

    def _read_entry(self, key: str) -> Entry | None:
        where = self._entry_dir(key)
        try:
            meta = json.loads((where / "meta.json").read_text())
        except (OSError, ValueError):
            return None
        binary = where / "binary"
        return Entry(key, binary, meta) if binary.is_file() else None

    def store(
        self, primary: str | None, tree: Path, deps: Sequence[str] | None, binary: Path, meta: dict
    ) -> str:
        """Keep a fresh compile. Returns its entry key, or "" when it is not cacheable."""
        if not self.enabled or primary is None or deps is None:
            return ""
        hashes = {dep: dep_sha256(dep, tree) for dep in deps}
        if any(h is None for h in hashes.values()):
            return ""
        dep_set = {k: v for k, v in hashes.items() if v is not None}
        key = entry_key(primary, dep_set)
        self._write_entry(key, binary, {**meta, "deps": dep_set})
        self._remember(primary, dep_set)
        return key

    def _write_entry(self, key: str, binary: Path, meta: dict) -> None:
        final = self._entry_dir(key)
        if final.exists():
            return
        final.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".tmp-", dir=final.parent))
        try:
            # A copy, never a link: the binary in scratch belongs to the sandbox's uid.
            shutil.copyfile(binary, staging / "binary")
            os.chmod(staging / "binary", 0o755)
            (staging / "meta.json").write_text(json.dumps(meta))
            os.chmod(staging, 0o755)
            with contextlib.suppress(OSError):  # another grade stored the same entry first
                os.rename(staging, final)
        finally:
            shutil.rmtree(staging, ignore_errors=True)

    def _remember(self, primary: str, deps: dict[str, str]) -> None:
        path = self._primary_file(primary)
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path.with_suffix(".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                sets = json.loads(path.read_text())
            except (OSError, ValueError):
                sets = []
            if deps in sets:
                return
            sets = [deps, *sets][:MAX_DEP_SETS]
            atomic.write_json(path, sets, indent=None)
