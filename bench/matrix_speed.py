"""Flag-matrix speed (issue 5, "Speed"): the compile cache and the parallel speed-up.

Input: a generated subject of G goldens (each one translation unit including a shared header
that pulls in <map>, <string>, <vector>, <algorithm>, <sstream>), built under E envelopes (the
seed's four: dbg, rel, asan, ubsan2), so G x E cells, each a compile and a run.

Measured, all through the runner of the sandbox named by --sandbox (`sandbox.make_runner`):
  (a) cold vs warm: the SHA's matrix with an empty compile cache, then again in a fresh checkout
      (every compile a cache hit), then a patch touching one golden (E compiles);
  (b) parallel speed-up: the matrix without the cache (every cell compiles) with 1 worker and
      with one worker per core;
  (c) with --cmake: CMake mode on the demo's ringlib (GoogleTest), cold, 1 worker vs all cores.

Peers are runs in the same process; every figure carries its size.

    .venv/bin/python bench/matrix_speed.py [--quick] [--goldens 8] [--sandbox auto] [--cmake]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import cores, heading, line, print_ratio, private_cache, sandbox_runner, secs, timed

from patchwitness import environment
from patchwitness.demo import build
from patchwitness.environment import Environment
from patchwitness.matrix import collect as matrix
from patchwitness.matrix import run
from patchwitness.matrix.cache import CompileCache
from patchwitness.matrix.tools import Tools
from patchwitness.runner import Runner
from patchwitness.task import Task, load_task
from patchwitness.workspace import Workspace

COMMON = """\
#pragma once

#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace bench {

template <typename K, typename V>
std::string describe(const std::map<K, V>& table) {
  std::ostringstream out;
  std::vector<K> keys;
  for (const auto& [k, v] : table) keys.push_back(k);
  std::sort(keys.begin(), keys.end());
  for (const auto& k : keys) out << k << '=' << table.at(k) << ';';
  return out.str();
}

}  // namespace bench
"""

GOLDEN = """\
#include <cstdio>
#include <map>
#include <string>

#include "bench/common.hpp"

int main() {{
  std::map<std::string, int> table;
  for (int i = 0; i < {n}; ++i) table["key" + std::to_string(i % 7)] += i;
  std::printf("golden {index}: %s\\n", bench::describe(table).c_str());
  return 0;
}}
"""


def subject_files(goldens: int) -> dict[str, str]:
    files = {"include/bench/common.hpp": COMMON}
    for index in range(goldens):
        files[f"goldens/g{index:02d}.cpp"] = GOLDEN.format(index=index, n=100 + index)
    return files


def make_task(root: Path, goldens: int) -> tuple[Task, dict[str, str]]:
    files = subject_files(goldens)
    sha = build.make_repo(root / "repo", files)
    task_dir = root / "task"
    build.write_task(
        task_dir,
        sha=sha,
        test_cmd="true",
        allow_test_edits=False,
        failing=[],
        toml='language = "cpp"\nrepo = "../repo"\n[matrix]\nmanifest = "matrix.json"\n',
    )
    manifest = {
        "goldens": sorted(p for p in files if p.startswith("goldens/")),
        "include": ["include"],
        "envelopes": ["dbg", "rel", "asan", "ubsan2"],
    }
    (task_dir / "matrix.json").write_text(json.dumps(manifest))
    return load_task(task_dir), files


def sha_matrix(
    task: Task, workers: int, cache: CompileCache, runner: Runner, env: Environment | None = None
) -> list:
    """The SHA's cells in a fresh checkout. `env` is the task's environment (CMake mode runs its
    setup's tools; goldens mode needs none)."""
    with Workspace.create(task.repo, task.sha) as ws:
        tools = Tools(runner=runner, env=env, workers=workers, compiles=cache)
        return run.baseline_cells(task, ws.repo, ws.new_dir("m"), tools=tools)


def patched_matrix(
    task: Task, files: dict[str, str], baseline: list, cache: CompileCache, runner: Runner
) -> list:
    edits = [("goldens/g00.cpp", "golden 0:", "golden zero:")]
    patch = build.make_diff(files, build.apply_edits(files, edits)).encode()
    with Workspace.create(task.repo, task.sha) as ws:
        ws.apply(patch)
        tools = Tools(runner=runner, workers=cores(), compiles=cache)
        return run.patched_cells(task, ws.repo, ws.new_dir("m"), baseline, tools=tools)


def compiled(cells: list) -> int:
    return sum(1 for c in cells if not c.cached and c.compile_rc == 0)


def cache_figures(task: Task, files: dict[str, str], size: str, runner: Runner) -> None:
    heading(f"(a) compile cache, {cores()} workers")
    cache = CompileCache()
    # The toolchain probes (can this machine build and run each envelope?) are remembered per
    # machine (under the compile cache's directory, per confinement); paid once here so that
    # "cold" means a cold compile cache and nothing else.
    probe_s, _ = timed(
        lambda: run.probe_envelopes(matrix.load_plan(task), cores(), runner, cache.base)
    )
    line(f"toolchain probes, once per machine: {secs(probe_s)}")
    cold_s, cold = timed(lambda: sha_matrix(task, cores(), cache, runner))
    warm_s, warm = timed(lambda: sha_matrix(task, cores(), cache, runner))
    line(
        f"cold: {secs(cold_s)}, {compiled(cold)} compiles; warm: {secs(warm_s)}, "
        f"{compiled(warm)} compiles, {sum(c.cached for c in warm)} cache hits"
    )
    bad = [c for c in cold + warm if c.status != "pass"]
    if bad:
        line(f"warning: {len(bad)} cell(s) not passing: {bad[0].golden}@{bad[0].envelope}")
    print_ratio("matrix cold / warm (cache)", cold_s, warm_s, size)
    one_s, one = timed(lambda: patched_matrix(task, files, warm, cache, runner))
    line(f"re-grade with one golden patched: {secs(one_s)}, {compiled(one)} compiles")
    print_ratio("matrix cold / one golden patched", cold_s, one_s, size)


def parallel_figures(task: Task, size: str, runner: Runner) -> None:
    heading("(b) parallel speed-up, cache off (every cell compiles)")
    off = CompileCache(enabled=False)
    sha_matrix(task, cores(), off, runner)  # warm the page cache and the toolchain probes
    serial_s, _ = timed(lambda: sha_matrix(task, 1, off, runner))
    parallel_s, _ = timed(lambda: sha_matrix(task, cores(), off, runner))
    line(f"1 worker: {secs(serial_s)}; {cores()} workers: {secs(parallel_s)}")
    print_ratio(f"matrix 1 worker / {cores()} workers", serial_s, parallel_s, size)


def cmake_figures(root: Path, runner: Runner) -> None:
    from patchwitness.demo import ringlib

    heading("(c) CMake mode: the demo's ringlib (GoogleTest), four envelopes, cold")
    sha = build.make_repo(root / "ringlib", ringlib.FILES)
    task_dir = root / "ringlib-task"
    build.write_task(
        task_dir,
        sha=sha,
        test_cmd=ringlib.TEST_CMD,
        allow_test_edits=False,
        failing=[],
        toml='language = "cpp"\nrepo = "../ringlib"\n',
    )
    task = load_task(task_dir)
    env = environment.prepare(task, runner) if task.options.setup else None
    timings = {}
    for workers in (1, cores()):
        took, cells = timed(
            lambda w=workers: sha_matrix(task, w, CompileCache(enabled=False), runner, env)
        )
        timings[workers] = took
        tests = len({c.golden for c in cells})
        line(f"{workers} worker(s): {secs(took)} for {tests} ctest tests x 4 envelopes")
    size = f"{len(ringlib.FILES)} files, 4 builds"
    print_ratio(f"cmake matrix 1 worker / {cores()} workers", timings[1], timings[cores()], size)


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="2 goldens: a smoke run")
    parser.add_argument("--goldens", type=int, default=0, help="goldens (default 8, quick 2)")
    parser.add_argument("--sandbox", default="auto", help="auto | bwrap | none")
    parser.add_argument("--cmake", action="store_true", help="also time CMake mode (slow)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    goldens = args.goldens or (2 if args.quick else 8)
    runner, described = sandbox_runner(args.sandbox)
    with private_cache(), tempfile.TemporaryDirectory(prefix="pw-bench-matrix-") as tmp:
        task, files = make_task(Path(tmp), goldens)
        plan = matrix.load_plan(task)
        cells = goldens * len(plan.envelopes)
        lines = sum(text.count("\n") for text in files.values())
        size = f"{goldens} goldens x {len(plan.envelopes)} envelopes = {cells} cells, {lines} lines"
        print(
            f"matrix speed: {cores()} cores, sandbox {args.sandbox}: {described}, {size}, "
            f"each golden one TU with <map>/<sstream>/<algorithm>",
            flush=True,
        )
        cache_figures(task, files, size, runner)
        parallel_figures(task, size, runner)
        if args.cmake and not args.quick:
            cmake_figures(Path(tmp), runner)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
