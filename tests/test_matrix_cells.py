"""The flag matrix with real compiles (the system g++, ASan, UBSan, -Werror): every cell status,
the baseline, the cache, multi-file goldens, fixtures, resources, the shell script, promotion.

The subject is a ring of stamped readings written for these tests. Each agent patch is one of
seed 004's mistakes: 32-bit stamp arithmetic that overflows past 2^31 (right at -O0, reported by
UBSan), a sentinel written one past a heap buffer (only ASan sees it), an increment hidden in an
assert (gone under -DNDEBUG), an unused variable (red only with -Werror), a reworded printout.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import replace

import pytest

from patchwitness.demo import build
from patchwitness.matrix import collect as matrix
from patchwitness.matrix import manifest, run
from patchwitness.matrix.cache import CompileCache
from patchwitness.matrix.commands import script
from patchwitness.matrix.promote import promote
from patchwitness.matrix.tools import Tools
from patchwitness.model import Cell, MatrixGate
from patchwitness.task import Task, load_task
from patchwitness.workspace import Workspace

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not shutil.which("c++"), reason="needs a C++ compiler"),
]

RING_HPP = """\
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

// The newest `capacity` readings, each stamped with a sequence number counted from `first`.
class StampRing {
 public:
  StampRing(int capacity, std::int64_t first)
      : slots_(static_cast<std::size_t>(capacity)), first_(first), next_(first) {}

  void push(std::uint32_t reading) {
    slots_[slot(next_)] = reading;
    ++next_;
  }

  std::int64_t oldest_stamp() const {
    const std::int64_t held = next_ - first_;
    return held < capacity() ? first_ : next_ - capacity();
  }

  std::uint32_t oldest() const { return slots_[slot(oldest_stamp())]; }
  std::uint32_t newest() const { return slots_[slot(next_ - 1)]; }
  int capacity() const { return static_cast<int>(slots_.size()); }

 private:
  std::size_t slot(std::int64_t stamp) const {
    return static_cast<std::size_t>(stamp % capacity());
  }

  std::vector<std::uint32_t> slots_;
  std::int64_t first_;
  std::int64_t next_;
};
"""

RING_WRAP = """\
#include <cstdio>

#include "ring/ring.hpp"

int main() {
  StampRing ring(8, 2147483640);  // the stamps cross 2^31
  for (std::uint32_t i = 0; i < 20; ++i) ring.push(100 + i);
  std::printf("oldest=%u newest=%u\\n", ring.oldest(), ring.newest());
  return ring.oldest() == 112u && ring.newest() == 119u ? 0 : 1;
}
"""

CHECKSUM_HPP = """\
#pragma once

#include <cstdint>
#include <string>

std::uint32_t checksum(const std::string& text);
"""

CHECKSUM_CPP = """\
#include "checksum/checksum.hpp"

#include <vector>

std::uint32_t checksum(const std::string& text) {
  std::vector<std::uint32_t> weights(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    weights[i] = static_cast<unsigned char>(text[i]) * static_cast<std::uint32_t>(i + 1);
  }
  std::uint32_t sum = 0;
  for (std::size_t i = 0; i < text.size(); ++i) sum += weights[i];
  return sum;
}
"""

CHECKSUM_GOLDEN = """\
#include <cstdio>

#include "checksum/checksum.hpp"

int main(int argc, char**) {
  const std::uint32_t sum = checksum(argc > 5 ? "unused" : "flag matrix");
  std::printf("checksum=%u\\n", sum);
  std::fprintf(stderr, "progress: checksum computed\\n");  // ordinary stderr is no failure
  return 0;
}
"""

QUIET = """\
#include <cstdio>

int main() {
  std::printf("quiet %d\\n", 6 * 7);
  return 0;
}
"""

FILES = {
    "include/ring/ring.hpp": RING_HPP,
    "lib/include/checksum/checksum.hpp": CHECKSUM_HPP,
    "lib/src/checksum.cpp": CHECKSUM_CPP,
    "goldens/ring_wrap.cpp": RING_WRAP,
    "goldens/ring_wrap.expected": "oldest=112 newest=119\n",
    "goldens/checksum.cpp": CHECKSUM_GOLDEN,
    "goldens/checksum.expected": "checksum=6838\n",
    "goldens/quiet.cpp": QUIET,  # no fixture: the SHA's digest pins it
    "README.md": "A ring of stamped readings.\n",
}

MANIFEST = {
    "cxx": "c++",
    "std": "c++17",
    "goldens": [
        "goldens/ring_wrap.cpp",
        {"source": "goldens/checksum.cpp", "sources": ["lib/src/checksum.cpp"]},
        "goldens/quiet.cpp",
    ],
    "include": ["include", "lib/include"],
    "envelopes": ["dbg", "rel", "asan", "ubsan2"],
}

WRAP, SUM, QUIET_G = "goldens/ring_wrap.cpp", "goldens/checksum.cpp", "goldens/quiet.cpp"

# --- the agents' patches ------------------------------------------------------------------------

SLOT = """\
  std::size_t slot(std::int64_t stamp) const {
    return static_cast<std::size_t>(stamp % capacity());
  }
"""
OVERFLOW = (
    "include/ring/ring.hpp",
    SLOT,
    """\
  std::size_t slot(std::int64_t stamp) const {
    // 32-bit arithmetic is cheaper on the hot path.
    const int base = static_cast<int>(first_);
    const int offset = static_cast<int>(stamp - first_);
    const unsigned wrapped = static_cast<unsigned>(base + offset);
    return wrapped % static_cast<unsigned>(capacity());
  }
""",
)
ASSERT_SIDE_EFFECT = [
    ("include/ring/ring.hpp", "#include <cstddef>\n", "#include <cassert>\n#include <cstddef>\n"),
    ("include/ring/ring.hpp", "    ++next_;\n", "    assert(++next_ > first_);\n"),
]
HEAP_SENTINEL = (
    "lib/src/checksum.cpp",
    "  std::uint32_t sum = 0;\n",
    "  weights.data()[weights.size()] = 0;  // sentinel for the summing loop\n"
    "  std::uint32_t sum = 0;\n",
)
UNUSED = ("goldens/ring_wrap.cpp", "int main() {\n", "int main() {\n  int spare = 3;\n")
REWORDED = ("goldens/ring_wrap.cpp", "oldest=%u newest=%u", "oldest: %u, newest: %u")
QUIET_43 = ("goldens/quiet.cpp", "6 * 7", "6 * 7 + 1")
SYNTAX = ("goldens/ring_wrap.cpp", "return ring.oldest()", "return ring.oldest(")
OFF_BY_ONE = ("include/ring/ring.hpp", "slot(next_ - 1)", "slot(next_ - 2)")
HOG = (
    "goldens/quiet.cpp",
    "int main() {\n",
    "#include <cstdlib>\n#include <cstring>\n\nint main() {\n"
    "  const std::size_t size = 256u << 20;\n"
    "  char* block = static_cast<char*>(std::malloc(size));\n"
    "  std::memset(block, 1, size);\n"
    "  const int check = block[size - 1];\n"
    "  std::free(block);\n"
    "  if (check != 1) return 2;\n",
)
SPIN = (
    "goldens/quiet.cpp",
    "  return 0;\n",
    "  for (volatile unsigned spin = 0;; spin = spin + 1) {\n  }\n  return 0;\n",
)
README = ("README.md", "readings.\n", "readings, now documented.\n")


@pytest.fixture(scope="module")
def subject(tmp_path_factory) -> Task:
    root = tmp_path_factory.mktemp("matrix-subject")
    sha = build.make_repo(root / "repo", FILES)
    task_dir = root / "task"
    build.write_task(
        task_dir,
        sha=sha,
        test_cmd="true",
        allow_test_edits=False,
        failing=[],
        toml='language = "cpp"\nrepo = "../repo"\n[matrix]\nmanifest = "matrix.json"\n',
    )
    (task_dir / "matrix.json").write_text(json.dumps(MANIFEST, indent=2))
    return load_task(task_dir)


@pytest.fixture(scope="module")
def plan(subject: Task) -> manifest.Matrix:
    return matrix.load_plan(subject)


@pytest.fixture(scope="module")
def baseline(subject: Task, plan: manifest.Matrix) -> list[Cell]:
    return matrix.obtain_baseline(subject, plan)


def diff(edits) -> bytes:
    return build.make_diff(FILES, build.apply_edits(FILES, list(edits))).encode()


@contextlib.contextmanager
def patched_tree(task: Task, edits) -> Iterator[Workspace]:
    with Workspace.create(task.repo, task.sha) as ws:
        ws.apply(diff(edits))
        yield ws


def grade(
    task: Task,
    plan: manifest.Matrix,
    baseline: list[Cell] | None,
    *edits,
    tools: matrix.Tools | None = None,
    patch_id: str = "patched",
) -> MatrixGate:
    with patched_tree(task, edits) as ws:
        return matrix.gate(
            task,
            plan,
            ws.repo,
            ws.new_dir("m"),
            tools or matrix.Tools(),
            baseline=baseline,
            patch_id=patch_id,
        )


def by_id(cells: list[Cell]) -> dict[str, Cell]:
    return {f"{c.golden}@{c.envelope}": c for c in cells}


def sub_plan(plan: manifest.Matrix, goldens: list[str], envelopes: list[str], **changes):
    return replace(
        plan,
        goldens=tuple(g for g in plan.goldens if g.source in goldens),
        envelopes=tuple(e for e in plan.envelopes if e.name in envelopes),
        **changes,
    )


# --- the SHA ------------------------------------------------------------------------------------


def test_every_cell_passes_at_the_sha(subject, baseline):
    assert len(baseline) == 12
    assert {c.status for c in baseline} == {"pass"}, [(c.golden, c.envelope) for c in baseline]
    cells = by_id(baseline)
    wrap = cells[f"{WRAP}@dbg"]
    assert wrap.expected_from == "fixture:goldens/ring_wrap.expected"
    assert wrap.headers == ["goldens/ring_wrap.cpp", "include/ring/ring.hpp"]
    # The multi-file golden: two translation units, two include directories.
    multi = cells[f"{SUM}@asan"]
    assert "lib/src/checksum.cpp" in multi.compile_command and " && " in multi.compile_command
    assert "lib/include/checksum/checksum.hpp" in multi.headers
    # Ordinary stderr is kept, and is no failure.
    assert "progress: checksum computed" in multi.stderr_tail
    # No fixture: the envelopes agree on a digest and it is pinned.
    quiet = cells[f"{QUIET_G}@rel"]
    assert quiet.expected_from == "envelopes" and quiet.expected_sha256 == quiet.stdout_sha256
    for cell in baseline:
        assert cell.compile_command.startswith("c++ -std=c++17")
        assert str(subject.repo) not in cell.run_command
        assert cell.wall_s > 0 and cell.run_rc == 0
    assert "ASAN_OPTIONS=halt_on_error=1" in cells[f"{WRAP}@asan"].run_command
    assert "UBSAN_OPTIONS=halt_on_error=1" in cells[f"{WRAP}@ubsan2"].run_command


def test_a_second_run_compiles_nothing(subject, plan, baseline):
    with matrix.sha_checkout(subject) as tree, Workspace.create(subject.repo, subject.sha) as ws:
        again = run.baseline_cells(subject, tree, ws.new_dir("again"), plan)
    assert all(c.cached for c in again), [c.envelope for c in again if not c.cached]
    assert [c.status for c in again] == [c.status for c in baseline]
    assert all(c.cache_key for c in again)


def test_the_cache_follows_the_real_inputs(subject, plan, baseline):
    # Only quiet.cpp changed: its four cells compile, the other eight come from the cache.
    gate = grade(subject, plan, baseline, QUIET_43)
    cells = by_id(gate.facts.cells)
    assert not any(cells[f"{QUIET_G}@{e}"].cached for e in ("dbg", "rel", "asan", "ubsan2"))
    assert all(cells[f"{g}@{e}"].cached for g in (WRAP, SUM) for e in ("dbg", "rel"))
    # A header the golden includes (listed by the dependency file) changed: recompiled.
    gate = grade(
        subject, plan, baseline, ("lib/include/checksum/checksum.hpp", "#pragma", "//\n#pragma")
    )
    cells = by_id(gate.facts.cells)
    assert not cells[f"{SUM}@dbg"].cached and cells[f"{WRAP}@dbg"].cached


def test_without_the_cache_everything_compiles(subject, plan):
    sub = sub_plan(plan, [QUIET_G], ["dbg"])
    with matrix.sha_checkout(subject) as tree, Workspace.create(subject.repo, subject.sha) as ws:
        tools = Tools(compiles=CompileCache(enabled=False))
        cells = run.baseline_cells(subject, tree, ws.new_dir("x"), sub, tools)
    assert [c.cached for c in cells] == [False]


# --- one agent mistake per status (and per table row) -------------------------------------------


def test_signed_overflow_is_a_sanitizer_cell(subject, plan, baseline):
    gate = grade(subject, plan, baseline, OVERFLOW, patch_id="overflow")
    cells = by_id(gate.facts.cells)
    assert cells[f"{WRAP}@dbg"].status == "pass"  # right at -O0: the seed's false green
    for envelope in ("asan", "ubsan2"):
        cell = cells[f"{WRAP}@{envelope}"]
        assert cell.status == "sanitizer"
        assert cell.baseline_status == "pass" and cell.patch == "overflow"
        finding = cell.sanitizer_findings[0]
        assert finding["tool"] == "UndefinedBehaviorSanitizer"
        assert finding["kind"] == "signed integer overflow"
        assert finding["location"].startswith("include/ring/ring.hpp:")
    assert gate.row in ("sanitizer-only", "debug-green-release-red")
    assert gate.effect == "reject"
    assert f"{WRAP}@asan: pass -> sanitizer" in gate.facts.transitions


def test_heap_overflow_only_asan_sees(subject, plan, baseline):
    gate = grade(subject, plan, baseline, HEAP_SENTINEL)
    cells = by_id(gate.facts.cells)
    assert [cells[f"{SUM}@{e}"].status for e in ("dbg", "rel", "ubsan2")] == ["pass"] * 3
    asan = cells[f"{SUM}@asan"]
    assert asan.status == "sanitizer"
    assert asan.sanitizer_findings[0]["kind"] == "heap-buffer-overflow"
    assert asan.sanitizer_findings[0]["location"].startswith("lib/src/checksum.cpp:")
    assert gate.row == "sanitizer-only"


def test_assert_with_a_side_effect_is_debug_green_release_red(subject, plan, baseline):
    gate = grade(subject, plan, baseline, *ASSERT_SIDE_EFFECT)
    cells = by_id(gate.facts.cells)
    assert cells[f"{WRAP}@dbg"].status == "pass"
    assert cells[f"{WRAP}@rel"].status == "run_fail"
    assert cells[f"{WRAP}@rel"].run_rc == 1
    assert gate.row == "debug-green-release-red"
    assert "NDEBUG" in gate.detail


def test_unused_variable_is_a_werror_failure(subject, plan, baseline):
    gate = grade(subject, plan, baseline, UNUSED)
    cells = by_id(gate.facts.cells)
    for envelope in ("dbg", "rel"):
        cell = cells[f"{WRAP}@{envelope}"]
        assert cell.status == "werror_fail"
        assert cell.compile_rc != 0 and "-Werror=unused-variable" in cell.compile_stderr_tail
    assert cells[f"{WRAP}@asan"].status == "pass"  # no -Werror there
    assert gate.row == "werror-only"


def test_a_reworded_printout_is_a_digest_mismatch(subject, plan, baseline):
    gate = grade(subject, plan, baseline, REWORDED)
    cells = by_id(gate.facts.cells)
    for envelope in ("dbg", "rel", "asan", "ubsan2"):
        cell = cells[f"{WRAP}@{envelope}"]
        assert cell.status == "digest_mismatch" and cell.run_rc == 0
        assert cell.expected_sha256 != cell.stdout_sha256
    assert gate.row == "digest-changed"


def test_without_a_fixture_the_shas_digest_is_the_reference(subject, plan, baseline):
    gate = grade(subject, plan, baseline, QUIET_43)
    cell = by_id(gate.facts.cells)[f"{QUIET_G}@dbg"]
    assert (cell.status, cell.expected_from) == ("digest_mismatch", "baseline")


def test_a_syntax_error_is_a_compile_failure(subject, plan, baseline):
    gate = grade(subject, plan, baseline, SYNTAX)
    cells = by_id(gate.facts.cells)
    assert {cells[f"{WRAP}@{e}"].status for e in ("dbg", "rel", "asan", "ubsan2")} == {
        "compile_fail"
    }
    assert gate.row == "regressed"


def test_a_wrong_answer_is_a_run_failure(subject, plan, baseline):
    gate = grade(subject, plan, baseline, OFF_BY_ONE)
    cells = by_id(gate.facts.cells)
    assert {cells[f"{WRAP}@{e}"].status for e in ("dbg", "rel", "asan", "ubsan2")} == {"run_fail"}
    assert gate.row == "regressed"


def test_a_golden_that_never_ends_is_a_timeout(subject, plan):
    quick = sub_plan(plan, [QUIET_G], ["dbg"], timeout=2.0)
    base = matrix.obtain_baseline(subject, quick)
    gate = grade(subject, quick, base, SPIN)
    (cell,) = gate.facts.cells
    assert cell.status == "timeout"
    assert cell.wall_s >= 2.0
    assert gate.row == "regressed"


def test_a_deleted_golden_is_a_missing_cell(subject, plan, baseline):
    with Workspace.create(subject.repo, subject.sha) as ws:
        (ws.repo / QUIET_G).unlink()
        gate = matrix.gate(subject, plan, ws.repo, ws.new_dir("m"), baseline=baseline)
    cell = by_id(gate.facts.cells)[f"{QUIET_G}@dbg"]
    assert cell.status == "missing" and "not in the tree" in cell.note
    assert gate.row == "cell-missing" and gate.effect == "reject"


def test_an_envelope_the_toolchain_lacks_is_missing_and_fails_closed(subject, plan):
    ghost = manifest.Envelope(name="ghost", cxxflags=("-O1",), cxx="no-such-c++")
    sub = replace(sub_plan(plan, [QUIET_G], ["dbg"]), envelopes=(plan.envelope("dbg"), ghost))
    base = matrix.obtain_baseline(subject, sub)
    cells = by_id(base)
    assert cells[f"{QUIET_G}@ghost"].status == "missing"
    assert "not installed" in cells[f"{QUIET_G}@ghost"].note
    gate = grade(subject, sub, base, README)
    assert gate.row == "cell-missing"


def test_a_memory_hog_is_a_resource_finding(subject, plan, baseline):
    gate = grade(subject, plan, baseline, HOG)
    cells = by_id(gate.facts.cells)
    hog = cells[f"{QUIET_G}@dbg"]
    assert hog.status == "pass"
    assert hog.peak_rss_kb > 200 * 1024 > by_id(baseline)[f"{QUIET_G}@dbg"].peak_rss_kb
    assert gate.row == "resources"
    assert any(f.startswith(f"{QUIET_G}@dbg: peak RSS") for f in gate.facts.resource_findings)


def test_a_red_golden_at_the_sha_is_the_noise_floor(subject, tmp_path):
    files = {**FILES, "goldens/red.cpp": "int main() { return 3; }\n"}
    sha = build.make_repo(tmp_path / "repo", files)
    task_dir = tmp_path / "task"
    build.write_task(
        task_dir,
        sha=sha,
        test_cmd="true",
        allow_test_edits=False,
        failing=[],
        toml='language = "cpp"\nrepo = "../repo"\n[matrix]\nmanifest = "m.json"\n',
    )
    data = {**MANIFEST, "goldens": ["goldens/red.cpp", "goldens/quiet.cpp"]}
    data["envelopes"] = ["dbg", "rel"]
    (task_dir / "m.json").write_text(json.dumps(data))
    task = load_task(task_dir)
    plan = matrix.load_plan(task)
    base = matrix.obtain_baseline(task, plan)
    assert {c.status for c in base if c.golden == "goldens/red.cpp"} == {"run_fail"}
    gate = grade(task, plan, base, README)
    assert (gate.row, gate.effect) == ("baseline-red", "review")
    assert gate.facts.baseline_red == ["goldens/red.cpp@dbg", "goldens/red.cpp@rel"]
    assert "fix the subject" in gate.facts.advice[0]
    # ... and a regression elsewhere still rejects.
    gate = grade(task, plan, base, QUIET_43)
    assert gate.row == "digest-changed"


def test_an_honest_patch_passes_every_cell(subject, plan, baseline):
    gate = grade(subject, plan, baseline, README)
    assert (gate.row, gate.effect) == ("all-green", "accept")
    assert gate.facts.manifest_sha256 == plan.sha256
    assert list(gate.facts.envelopes) == ["dbg", "rel", "asan", "ubsan2"]


# --- reproducing a cell without Python ----------------------------------------------------------


def test_the_printed_commands_reproduce_the_cells(subject, plan, baseline, tmp_path):
    patch = tmp_path / "overflow.diff"
    patch.write_bytes(diff([OVERFLOW]))
    gate = grade(subject, plan, baseline, OVERFLOW)
    text = script(
        plan, subject.repo, cells=gate.facts.cells, checkout=(subject.repo, subject.sha, patch)
    )
    path = tmp_path / "matrix.sh"
    path.write_text(text)
    env = {"PATH": "/usr/bin:/bin", "OUT": str(tmp_path / "out"), "HOME": str(tmp_path)}
    for name in (f"{WRAP}@dbg", f"{WRAP}@ubsan2", f"{SUM}@asan"):
        want = by_id(gate.facts.cells)[name]
        done = subprocess.run(
            ["sh", str(path), name], env=env, capture_output=True, text=True, timeout=300
        )
        status, sha = done.stdout.split()[1], done.stdout.split()[-1].rstrip(")")
        assert status == want.status, done.stdout + done.stderr
        assert sha == want.stdout_sha256
        assert (done.returncode == 0) == (want.status == "pass")
    done = subprocess.run(["sh", str(path)], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 1 and done.stdout.count("\n") == 12


def test_the_printed_commands_report_werror(subject, plan, baseline, tmp_path):
    patch = tmp_path / "unused.diff"
    patch.write_bytes(diff([UNUSED]))
    path = tmp_path / "matrix.sh"
    path.write_text(script(plan, subject.repo, checkout=(subject.repo, subject.sha, patch)))
    env = {"PATH": "/usr/bin:/bin", "OUT": str(tmp_path / "out"), "HOME": str(tmp_path)}
    done = subprocess.run(
        ["sh", str(path), f"{WRAP}@rel"], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 1 and done.stdout.strip() == f"{WRAP}@rel werror_fail"


# --- promotion ----------------------------------------------------------------------------------

CANDIDATE_WRAP = RING_WRAP.replace("2147483640", "2147483600").replace("i < 20", "i < 60")
CANDIDATE_SMALL = RING_WRAP.replace("2147483640", "1000").replace("%u newest", "%u  newest")


def test_promotion(subject, plan, tmp_path):
    bad = diff([OVERFLOW])
    wrap = tmp_path / "cand_wrap.cpp"
    wrap.write_text(CANDIDATE_WRAP.replace("112u", "152u").replace("119u", "159u"))
    result = promote(subject, plan, wrap, bad)
    assert result.golden == "goldens/cand_wrap.cpp"
    assert result.promotable, result.reason
    assert {c.status for c in result.sha_cells} == {"pass"}
    assert any(c.status == "sanitizer" for c in result.bad_cells)

    small = tmp_path / "cand_small.cpp"
    small.write_text(CANDIDATE_SMALL)
    result = promote(subject, plan, small, bad)
    assert not result.promotable and "does not witness" in result.reason

    red = tmp_path / "cand_red.cpp"
    red.write_text("int main() { return 1; }\n")
    result = promote(subject, plan, red, bad, dest="goldens/red_candidate.cpp")
    assert not result.promotable and "red on the SHA" in result.reason


# --- confinement ------------------------------------------------------------------------------


def test_the_matrix_under_bubblewrap(subject, plan):
    from patchwitness import sandbox

    bwrap, problem = sandbox.find_bwrap()
    if bwrap is None or problem is not None:
        pytest.skip(f"bubblewrap unusable here: {problem}")
    sub = sub_plan(plan, [WRAP, QUIET_G], ["dbg", "asan"])
    tools = matrix.Tools(runner=sandbox.make_runner("bwrap"), compiles=CompileCache(enabled=False))
    base = matrix.obtain_baseline(subject, sub, tools)
    assert {c.status for c in base} == {"pass"}
    gate = grade(subject, sub, base, OVERFLOW, HOG, tools=tools)
    cells = by_id(gate.facts.cells)
    assert cells[f"{WRAP}@asan"].status == "sanitizer"
    assert cells[f"{QUIET_G}@dbg"].peak_rss_kb > 200 * 1024
    assert gate.row == "sanitizer-only"
    assert gate.facts.resource_findings
