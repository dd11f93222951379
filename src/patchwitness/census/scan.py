"""Walking a tree and inventorying both languages. The I/O half of the census.

Which files count: Python test files as the repository's pytest config finds them plus every
conftest.py; every C++ source and header (the census counts `assert(` in production code; a header
without a suffix is recognised by its content), minus vendored, build and generated trees. A file
that cannot be read or parsed is listed as unreadable rather than skipped: the census fails closed
on what it cannot see. A file the patch deleted is absent, not unreadable.
"""

from __future__ import annotations

import fnmatch
import functools
import hashlib
import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from patchwitness import sourcefiles
from patchwitness.census import prefilter
from patchwitness.census.items import Inventory, Item, sort_key
from patchwitness.census.python import inventory_python
from patchwitness.pytest_config import CONFIG_FILES, PytestConfig, read_pytest_config

SKIP_DIRS = {
    ".git",
    "build",
    "_deps",
    "third_party",
    "node_modules",
    ".venv",
    "venv",
    "__pycache__",
    ".tox",
    ".nox",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    "site-packages",
    "dist",
    ".eggs",
    ".hg",
    ".svn",
}
SKIP_DIR_GLOBS = ("cmake-build-*", "*.egg-info", "build-*")
CPP_EXT = sourcefiles.CPP
PY_INFRA = {"conftest.py", "sitecustomize.py", "usercustomize.py"}
# Names without a suffix that are never C++ source; spares reading them.
NOT_SOURCE = frozenset(
    {"LICENSE", "COPYING", "README", "AUTHORS", "Makefile", "Dockerfile", "NOTICE", "CHANGES"}
)
PARALLEL_THRESHOLD = 400  # files; below this a process pool costs more than it saves


@dataclass(frozen=True)
class ScanOptions:
    pytest: PytestConfig = field(default_factory=PytestConfig)
    golden_prefix: str = "GOLDEN_"
    exclude: tuple[str, ...] = ()
    jobs: int = 0  # 0 = one per core


def read_root_config(root: Path) -> PytestConfig:
    files = {}
    for name in CONFIG_FILES:
        path = root / name
        if path.is_file() and not path.is_symlink():
            try:
                files[name] = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
    return read_pytest_config(files)


@functools.lru_cache(maxsize=4096)
def _skip_dir(name: str) -> bool:
    return name in SKIP_DIRS or any(fnmatch.fnmatch(name, g) for g in SKIP_DIR_GLOBS)


def wanted(rel: str, options: ScanOptions, root: Path | None = None) -> str | None:
    """'py', 'cpp', 'cmake' or 'config' when the census reads this file, else None. A file
    without a suffix is read (its head) under `root` to tell whether it is a C++ header."""
    if any(fnmatch.fnmatch(rel, g) for g in options.exclude):
        return None
    if any(_skip_dir(part) for part in rel.split("/")[:-1]):
        return None
    name = rel.rsplit("/", 1)[-1]
    suffix = sourcefiles.suffix(rel)
    if not suffix and root is not None and name not in NOT_SOURCE:
        return "cpp" if sourcefiles.is_cpp(rel, read_head(root, rel)) else None
    if suffix == ".py":
        if name in PY_INFRA or options.pytest.is_test_file(rel):
            return "py"
        return None
    if suffix in CPP_EXT:
        return "cpp"
    if name == "CMakeLists.txt" or suffix == ".cmake":
        return "cmake"
    if name in CONFIG_FILES or name == ".coveragerc":
        return "config"
    return None


def walk(root: Path, options: ScanOptions) -> list[str]:
    """Repository-relative paths the census reads, never following symlinks out of the tree."""
    return tree_files(root, lambda rel: wanted(rel, options, root) is not None)


def tree_files(root: Path, keep: Callable[[str], bool]) -> list[str]:
    """The repository-relative paths under `root` that `keep` accepts, in order, outside the
    vendored, build and tool directories (SKIP_DIRS), never following a symlink."""
    out: list[str] = []
    root_str = str(root)
    for dirpath, dirnames, filenames in os.walk(root_str, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not _skip_dir(d))
        base = os.path.relpath(dirpath, root_str)
        for name in sorted(filenames):
            rel = name if base == "." else f"{base}/{name}".replace(os.sep, "/")
            if keep(rel):
                out.append(rel)
    return out


def read_head(root: Path, rel: str) -> bytes | None:
    return read_inside(root, rel, sourcefiles.HEAD_BYTES)


@dataclass
class FileResult:
    rel: str
    items: list[Item]
    digest: str | None  # set when the file is test or test infrastructure
    unreadable: bool = False


def file_inside(root: Path, rel: str) -> Path | None:
    """The regular file at `rel`, unless it is missing or a symlink that leaves the tree."""
    path = root / rel
    try:
        if path.is_symlink() and root.resolve() not in path.resolve(strict=True).parents:
            return None
        return path if path.is_file() else None
    except OSError:
        return None


def read_inside(root: Path, rel: str, limit: int = -1) -> bytes | None:
    path = file_inside(root, rel)
    if path is None:
        return None
    try:
        with open(path, "rb") as handle:
            return handle.read(limit)
    except OSError:
        return None


def scan_file(
    root: Path, rel: str, options: ScanOptions, kind: str | None = "", lex: bool = True
) -> FileResult:
    """One file's items. `kind`: what `wanted` said, when the caller knows ("" to ask). `lex`
    false: a C++ file the prefilter showed to hold no item word; only its readability is
    checked."""
    if kind == "cpp" and not lex:
        return _unlexed(root, rel)
    if not os.path.lexists(root / rel):
        return FileResult(rel, [], None)  # deleted by the patch: absent, not unreadable
    if kind == "":
        kind = wanted(rel, options, root)
    data = read_inside(root, rel)
    if data is None or kind is None:
        return FileResult(rel, [], None, unreadable=data is None and kind is not None)
    digest = hashlib.sha256(data).hexdigest()
    if kind == "py":
        name = rel.rsplit("/", 1)[-1]
        try:
            items = inventory_python(data, rel, options.pytest, test_file=name not in PY_INFRA)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return FileResult(rel, [], digest, unreadable=True)
        return FileResult(rel, items, digest)
    if kind == "cpp":
        return _scan_cpp(rel, data, digest, options)
    if kind == "cmake":
        from patchwitness.census.cmake import registration_lines

        text = data.decode("utf-8", "replace")
        return FileResult(rel, [], digest if registration_lines(text) else None)
    return FileResult(rel, [], digest)


def _unlexed(root: Path, rel: str) -> FileResult:
    """A C++ file the prefilter passed over: absent, readable or not. Most files of a large tree
    end here, so a plain file costs one lstat and one access check, without pathlib."""
    path = os.path.join(root, rel)
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return FileResult(rel, [], None)  # deleted by the patch: absent, not unreadable
    except OSError:
        return FileResult(rel, [], None, unreadable=True)
    if stat.S_ISLNK(mode):
        inside = file_inside(root, rel)
        readable = inside is not None and os.access(inside, os.R_OK)
    else:
        readable = stat.S_ISREG(mode) and os.access(path, os.R_OK)
    return FileResult(rel, [], None, unreadable=not readable)


def _scan_cpp(rel: str, data: bytes, digest: str, options: ScanOptions) -> FileResult:
    from patchwitness.census.cpp import inventory_cpp

    if not prefilter.may_hold_items(data, options.golden_prefix):
        return FileResult(rel, [], None)

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        # Source in another encoding is still scanned: macro names are ASCII either way.
        text = data.decode("latin-1")
    items = inventory_cpp(text, rel, golden_prefix=options.golden_prefix)
    is_test = any(item.kind in ("test", "case", "skip") for item in items)
    return FileResult(rel, items, digest if is_test else None)


_Job = tuple[str, str | None, bool]  # (path, kind, lex)


def _scan_chunk(args: tuple[str, list[_Job], ScanOptions]) -> list[FileResult]:
    root, jobs, options = args
    return [scan_file(Path(root), rel, options, kind, lex) for rel, kind, lex in jobs]


def scan_paths(root: Path, rels: Iterable[str], options: ScanOptions) -> Inventory:
    kinds = {r: wanted(r, options, root) for r in dict.fromkeys(rels)}
    kinds = {r: k for r, k in kinds.items() if k}
    # C++ files that hold no item word anywhere are never read or lexed (prefilter.py).
    cpp = [r for r, k in kinds.items() if k == "cpp" and os.path.lexists(root / r)]
    maybe = None
    if cpp:
        from patchwitness.census.cpp import file_pattern

        maybe = prefilter.candidates(root, cpp, file_pattern(options.golden_prefix))
    work = [(r, k, maybe is None or k != "cpp" or r in maybe) for r, k in kinds.items()]
    jobs = options.jobs or os.cpu_count() or 1
    heavy = [w for w in work if w[2]]
    if jobs > 1 and len(heavy) >= PARALLEL_THRESHOLD // 4:
        size = max(16, len(heavy) // (jobs * 8))
        chunks = [(str(root), heavy[i : i + size], options) for i in range(0, len(heavy), size)]
        # Imported here: a grade rescans a handful of files and never starts a pool.
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=jobs) as pool:
            results = [r for chunk in pool.map(_scan_chunk, chunks) for r in chunk]
        results += _scan_chunk((str(root), [w for w in work if not w[2]], options))
    else:
        results = _scan_chunk((str(root), work, options))
    return _collect(root, results)


def _collect(root: Path, results: list[FileResult]) -> Inventory:
    items: list[Item] = []
    hashes: dict[str, str] = {}
    unreadable: list[str] = []
    for result in results:
        items.extend(result.items)
        if result.digest is not None:
            hashes[result.rel] = result.digest
        if result.unreadable:
            unreadable.append(result.rel)
    items.sort(key=sort_key)
    return Inventory(items, hashes, sorted(unreadable), str(root))


def scan_tree(root: Path, options: ScanOptions | None = None) -> Inventory:
    options = options or ScanOptions(pytest=read_root_config(root))
    return scan_paths(root, walk(root, options), options)
