"""Census speed (issue 3, "Speed"): the C++ census of a large tree against ripgrep.

Peer: ripgrep searching the same macro names (TEST/TEST_F/.../ASSERT_*/EXPECT_*/REQUIRE/CHECK/
static_assert/assert/GOLDEN_*) over the same files: the same extensions, the same skipped
directories, every file read (no .gitignore, hidden files included). ripgrep only finds lines; the
census also strips comments, literals and `#if 0` blocks, matches brackets and ties every assertion
to its test, so the ratio is the price of not being fooled, on the same input.

Measured:
  (a) `scan_tree` in-process (all cores, then one) with cold and warm page cache, and the
      `patchwitness census write` command once (interpreter start and JSON output included);
  (b) ripgrep over the same tree, cold and warm, all threads and one;
  (c) the after-snapshot of a patch touching 1, 10 and 100 files (`scan_paths` on those files +
      `Inventory.replace_files`) against a full re-scan, plus loading a cached baseline inventory;
  (d) real C++ trees found on the machine (/usr/include, /usr/include/c++, /usr/src/googletest).
  (e) whole processes, taken by turns: `patchwitness census write` against the ripgrep command
      of (b), on a copy of /usr/include (made with `cp -a`, symlinks kept as symlinks): what a
      user who times the command line sees, interpreter start and JSON output included.

    .venv/bin/python bench/census_speed.py [--root DIR] [--quick] [--no-real] [--reps N]

`--root DIR` keeps the generated tree (about 230 MB) and reuses it on the next run.
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (
    NO_COST,
    Cost,
    all_files,
    cores,
    evict,
    heading,
    line,
    load_note,
    mb,
    median_cost,
    print_ratio,
    private_cache,
    repeat,
    runs,
    secs,
    timed,
)
from _cpp_tree import QUICK, TreeSpec, ensure_tree

from patchwitness.atomic import write_json
from patchwitness.census.items import Inventory
from patchwitness.census.scan import (
    CPP_EXT,
    PY_INFRA,
    SKIP_DIR_GLOBS,
    SKIP_DIRS,
    ScanOptions,
    read_root_config,
    scan_paths,
    scan_tree,
    walk,
)
from patchwitness.pytest_config import CONFIG_FILES

# The macro names of the census grammar, as one alternation, each followed by its parenthesis.
RG_PATTERN = (
    r"\b(?:TEST|TEST_F|TEST_P|TYPED_TEST|TYPED_TEST_P|TEST_CASE|SCENARIO|SECTION"
    r"|ASSERT_\w+|EXPECT_\w+|REQUIRE\w*|CHECK\w*|GTEST_SKIP|static_assert|assert|GOLDEN_\w+)\s*\("
)
VENDORED = ("third_party/", "build/")
REAL_TREES = ("/usr/include", "/usr/include/c++", "/usr/src/googletest")


def rg_globs(options: ScanOptions) -> list[str]:
    """ripgrep globs for the files the census reads, skipping the directories it skips.

    C++ sources and headers, CMake files, Python test files by the tree's pytest patterns (with
    `testpaths` ignored: the trees measured here have no pytest configuration), conftest.py and
    friends, and the pytest configuration files themselves.
    """
    exts = ",".join(sorted(e.lstrip(".") for e in CPP_EXT))
    out = ["--iglob", f"*.{{{exts}}}", "--glob", "CMakeLists.txt", "--iglob", "*.cmake"]
    names = [p for p in options.pytest.python_files if "/" not in p]
    names += [*sorted(PY_INFRA), *CONFIG_FILES, ".coveragerc"]
    for name in names:
        out += ["--glob", name]
    for name in sorted(SKIP_DIRS) + list(SKIP_DIR_GLOBS):
        out += ["--glob", f"!{name}/"]
    return out


def rg_command(root: Path, jobs: int | None, *extra: str) -> list[str]:
    options = ScanOptions(pytest=read_root_config(root))
    cmd = ["rg", "--no-ignore", "--hidden", "--no-messages", *rg_globs(options)]
    if jobs:
        cmd += ["--threads", str(jobs)]
    return [*cmd, *extra, str(root)]


def rg_count(root: Path, jobs: int | None = None) -> int:
    """Matches of the macro alternation over the census's file set (`rg --count-matches`)."""
    done = subprocess.run(
        rg_command(root, jobs, "--count-matches", "-e", RG_PATTERN),
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode not in (0, 1):
        raise RuntimeError(f"rg failed ({done.returncode}): {done.stderr[-300:]}")
    return sum(int(row.rsplit(":", 1)[1]) for row in done.stdout.splitlines() if ":" in row)


def rg_files(root: Path) -> int:
    done = subprocess.run(rg_command(root, None, "--files"), capture_output=True, text=True)
    return len(done.stdout.splitlines())


def cli_command() -> list[str]:
    script = Path(sys.executable).parent / "patchwitness"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from patchwitness.cli import main; main()"]


@dataclass
class TreeSize:
    files: int
    nbytes: int

    def text(self, items: int | None = None) -> str:
        out = f"{mb(self.nbytes)}, {self.files:,} files"
        return out if items is None else f"{out}, {items:,} items"


def tree_size(root: Path, files: list[str]) -> TreeSize:
    return TreeSize(len(files), sum((root / rel).stat().st_size for rel in files))


def kinds(inventory: Inventory) -> str:
    counts = Counter(item.kind for item in inventory.items)
    return ", ".join(f"{k} {counts[k]:,}" for k in ("test", "case", "assert", "skip", "define"))


@dataclass
class Figures:
    census_cold: Cost = NO_COST
    census_warm: Cost = NO_COST
    census_serial: Cost = NO_COST
    rg_cold: Cost = NO_COST
    rg_warm: Cost = NO_COST
    rg_serial: Cost = NO_COST
    items: int = 0


def same_files(root: Path, files: list[str]) -> str:
    """Whether ripgrep, given the census globs, lists the files the census reads."""
    listed = rg_files(root)
    links = sum(1 for rel in files if (root / rel).is_symlink())
    if listed == len(files):
        verdict = "the same set"
    elif listed + links == len(files):
        verdict = (
            f"the same but for {links} symlinked files the census reads and rg does not follow"
        )
    else:
        verdict = f"DIFFERENT: the census reads {len(files):,}"
    return f"{listed:,} files ({verdict})"


def measure(root: Path, label: str, reps: int, cold: bool, cli: bool) -> tuple[Figures, Inventory]:
    """(a) and (b) for one tree: census and ripgrep, cold then warm, all cores then one."""
    fig = Figures()
    options = ScanOptions(pytest=read_root_config(root))
    walk_cost, files = timed(lambda: walk(root, options))
    size = tree_size(root, files)
    on_disk = all_files(root)
    heading(f"{label}: {root}")
    line(f"census file set: {size.text()} (of {len(on_disk):,} files under the root)")
    line(f"ripgrep file set with the census globs: {same_files(root, files)}")
    line(f"walk (os.walk + filters, part of every scan_tree): {walk_cost}")

    if cold and evict(on_disk):
        fig.census_cold, inventory = timed(lambda: scan_tree(root, options))
        line(f"census scan_tree, cold cache, jobs={cores()}: {fig.census_cold}")
    warm, inventory = repeat(lambda: scan_tree(root, options), reps)
    fig.census_warm = median_cost(warm)
    fig.items = len(inventory.items)
    line(f"census scan_tree, warm cache, jobs={cores()}: {runs(warm)}")
    serial_opts = ScanOptions(pytest=options.pytest, jobs=1)
    fig.census_serial, _ = timed(lambda: scan_tree(root, serial_opts))
    line(f"census scan_tree, warm cache, jobs=1: {fig.census_serial}")
    line(f"items: {fig.items:,} ({kinds(inventory)}); unreadable {len(inventory.unreadable)}")
    if cli:  # the generated tree: its vendored directories hold test macros the census skips
        vendored = sum(1 for it in inventory.items if it.file.startswith(VENDORED))
        line(f"items from third_party/ or build/ (must be 0): {vendored}")
        census_command(root, inventory)

    rg_matches = 0
    if cold and evict(on_disk):
        fig.rg_cold, rg_matches = timed(lambda: rg_count(root))
        line(f"ripgrep, cold cache, default threads: {fig.rg_cold}")
    rg_warm, rg_matches = repeat(lambda: rg_count(root), max(reps, 3))
    fig.rg_warm = median_cost(rg_warm)
    line(f"ripgrep, warm cache, default threads: {runs(rg_warm)}")
    fig.rg_serial, _ = timed(lambda: rg_count(root, jobs=1))
    line(f"ripgrep, warm cache, --threads 1: {fig.rg_serial}")
    line(f"ripgrep matches: {rg_matches:,} (comments and string literals included)")

    text = size.text(fig.items)
    if fig.census_cold is not NO_COST and fig.rg_cold is not NO_COST:
        print_ratio(f"census/ripgrep cold [{label}]", fig.census_cold, fig.rg_cold, text)
    print_ratio(f"census/ripgrep warm [{label}]", fig.census_warm, fig.rg_warm, text)
    print_ratio(f"census/ripgrep one thread [{label}]", fig.census_serial, fig.rg_serial, text)
    print_ratio(f"census jobs=1/jobs={cores()} [{label}]", fig.census_serial, fig.census_warm, text)
    return fig, inventory


def census_command(root: Path, inventory: Inventory) -> None:
    """`patchwitness census write` once, and where its time goes beyond scan_tree."""
    with tempfile.TemporaryDirectory(prefix="pw-census-") as tmp:
        out = Path(tmp) / "census.json"
        cmd = [*cli_command(), "census", "write", str(root), str(out)]
        cost, done = timed(lambda: subprocess.run(cmd, capture_output=True, text=True))
        status = "ok" if done.returncode == 0 else f"exit {done.returncode}"
        json_size = out.stat().st_size if out.exists() else 0
        line(
            f"`patchwitness census write` (warm, jobs={cores()}): {cost} [{status}], "
            f"printed {done.stdout.strip()[-20:]} items, wrote {mb(json_size)} of JSON"
        )
        to_json, data = timed(inventory.to_json)
        write, _ = timed(lambda: write_json(out, data))
        line(
            f"   its JSON output, timed in-process: Inventory.to_json {to_json} + "
            f"atomic.write_json (indent=2) {write} for {len(inventory.items):,} items"
        )


def whole_processes(source: Path, reps: int) -> None:
    """(e): the census command and ripgrep as processes, by turns, over a copy of `source`."""
    with tempfile.TemporaryDirectory(prefix="pw-census-copy-") as tmp:
        root = Path(tmp) / "include"
        subprocess.run(["cp", "-a", str(source), str(root)], check=True)
        options = ScanOptions(pytest=read_root_config(root))
        size = tree_size(root, walk(root, options))
        out = Path(tmp) / "census.json"
        census = [*cli_command(), "census", "write", str(root), str(out)]
        grep = rg_command(root, None, "--count-matches", "-e", RG_PATTERN)
        heading(f"whole processes on a copy of {source}: {size.text()}")
        ours: list[Cost] = []
        theirs: list[Cost] = []
        for _ in range(reps):
            cost, done = timed(lambda: subprocess.run(census, capture_output=True, text=True))
            if done.returncode != 0:
                line(f"`patchwitness census write` failed: {done.stderr[-300:]}")
                return
            ours.append(cost)
            theirs.append(timed(lambda: subprocess.run(grep, capture_output=True))[0])
        line(f"`patchwitness census write`: {runs(ours)}; {done.stdout.strip()} items")
        line(f"ripgrep ({len(grep)} arguments, --count-matches): {runs(theirs)}")
        text = f"{size.text()}, {done.stdout.strip()} items"
        print_ratio(
            f"census/ripgrep whole processes [copy of {source}]",
            median_cost(ours),
            median_cost(theirs),
            text,
        )


def after_snapshot(
    root: Path, base: Inventory, full_rescan: Cost, reps: int, sizes: tuple[int, ...]
) -> None:
    """(c) The after-snapshot re-scans the touched files only; its cost follows the patch."""
    options = ScanOptions(pytest=read_root_config(root))
    files = [f for f in walk(root, options) if not f.endswith("CMakeLists.txt")]
    tests = {it.file for it in base.items if it.kind == "test"}
    heading(f"after-snapshot vs full re-scan ({len(base.items):,} items in the baseline)")
    rng = random.Random(7)
    for count in sizes:
        if count > len(files):
            continue
        touched = sorted(rng.sample(files, count))
        nbytes = sum((root / rel).stat().st_size for rel in touched)
        scans: list[Cost] = []
        splices: list[Cost] = []
        after = base
        for _ in range(reps):
            cost, part = timed(functools.partial(scan_paths, root, touched, options))
            scans.append(cost)
            cost, after = timed(functools.partial(base.replace_files, part, touched))
            splices.append(cost)
        scan, splice = median_cost(scans), median_cost(splices)
        total = scan + splice
        same = "same" if after.counts() == base.counts() else "DIFFERENT"
        size = f"patch of {count} file(s), {mb(nbytes)}, {len(set(touched) & tests)} test files"
        line(
            f"{size}: scan_paths {secs(scan.wall)} + replace_files {secs(splice.wall)} = "
            f"{secs(total.wall)}; the full re-scan ({secs(full_rescan.wall)}) takes "
            f"{full_rescan.wall / total.wall:,.0f}x as long (inventory after splice: {same})"
        )
        print_ratio(
            f"after-snapshot/full-rescan [{count} files]",
            total,
            full_rescan,
            f"{size}; full tree {len(base.items):,} items",
        )
    # A grade with a cached baseline loads the whole before-inventory from JSON first.
    blob = json.dumps(base.to_json())
    loads, _ = repeat(lambda: Inventory.from_json(json.loads(blob)), reps)
    line(
        f"loading the baseline inventory from JSON (cached baseline): {median_cost(loads)} "
        f"for {len(base.items):,} items, {mb(len(blob))} of JSON"
    )


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, help="keep the generated tree here (and reuse it)")
    parser.add_argument("--quick", action="store_true", help="a small tree: a smoke run")
    parser.add_argument("--no-real", action="store_true", help="skip the real trees (d)")
    parser.add_argument("--reps", type=int, default=0, help="warm repetitions (default 2, quick 1)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if shutil.which("rg") is None:
        print("census_speed: ripgrep (rg) is not installed; it is the peer of this benchmark")
        return 2
    spec = QUICK if args.quick else TreeSpec()
    reps = args.reps or (1 if args.quick else 2)
    print(f"census speed: {cores()} cores, python {sys.version.split()[0]}; {load_note()}")
    with private_cache(), tempfile.TemporaryDirectory(prefix="pw-bench-tree-") as tmp:
        root = (args.root or Path(tmp) / "tree").resolve()
        cost, info = timed(lambda: ensure_tree(root, spec, log=line))
        state = "reused" if info.reused else f"generated in {secs(cost.wall)}"
        heading(
            f"generated tree ({state}): {mb(info.scanned_bytes)} in {info.scanned_files:,} "
            f"census files ({info.gtest_files} gtest, {info.catch2_files} Catch2) + "
            f"{mb(info.vendored_bytes)} in {info.vendored_files:,} vendored files"
        )
        fig, inventory = measure(root, "generated", reps, cold=True, cli=True)
        sizes = (1, 10, 100)
        after_snapshot(root, inventory, fig.census_warm, 3 if args.quick else 5, sizes)
        if not args.no_real:
            trees = ("/usr/src/googletest",) if args.quick else REAL_TREES
            for path in trees:
                real = Path(path)
                if real.is_dir():
                    measure(real, path, reps, cold=False, cli=False)
                else:
                    line(f"{path}: not on this machine")
            if Path(REAL_TREES[0]).is_dir():
                whole_processes(Path(REAL_TREES[0]), 3 if args.quick else 7)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
