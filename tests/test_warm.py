"""Warm C++ build trees (warm.py): a patch rebuilds only what it dirtied, and never less.

End to end on a real CMake project: consecutive grades through the same warm slot must each see
exactly their own patch (a header changed to bytes of the same length included), and nothing a
graded run leaves in the slot may reach the next grade.
"""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import pytest

from patchwitness import warm
from patchwitness.api import grade
from patchwitness.demo import build
from patchwitness.settings import Settings

from .conftest import Built, make_cmake_task

needs_cpp = pytest.mark.skipif(
    not (shutil.which("cmake") and shutil.which("ninja") and shutil.which("c++")),
    reason="needs cmake, ninja and a C++ compiler (make installs them)",
)

# -- the slot's files ---------------------------------------------------------------------------


def test_restore_makes_a_whole_copy_whatever_the_target_held(tmp_path):
    source = tmp_path / "snapshot"
    (source / "sub").mkdir(parents=True)
    (source / "a.o").write_bytes(b"good object")
    (source / "sub" / "b.o").write_bytes(b"another")
    os.utime(source / "a.o", (1000, 1000))
    target = tmp_path / "build"
    warm.restore(source, target)
    # A run forges an object with the snapshot's size and mtime, and leaves a stray file.
    (target / "a.o").write_bytes(b"evil object")
    os.utime(target / "a.o", (1000, 1000))
    (target / "stray").write_text("left behind")
    warm.restore(source, target)
    assert (target / "a.o").read_bytes() == b"good object"
    assert not (target / "stray").exists()
    assert (target / "a.o").stat().st_mtime == 1000
    assert (target / "sub" / "b.o").read_bytes() == b"another"


def test_pristine_sources_are_older_than_any_build(tmp_path):
    tree = tmp_path / "checkout"
    (tree / "src").mkdir(parents=True)
    (tree / "src" / "x.cpp").write_text("int x;\n")
    slot = warm.Slot(tmp_path / "slot")
    warm.make_pristine(slot, tree, "a" * 40)
    assert slot.ready()
    assert (slot.pristine / "src" / "x.cpp").stat().st_mtime == warm.FIXED_MTIME


def test_concurrent_grades_get_different_slots(tmp_path):
    seen: list[Path] = []
    inside = threading.Barrier(2)

    def hold():
        with warm.acquire(tmp_path, "key", "a" * 40) as slot:
            seen.append(slot.root)
            inside.wait(timeout=10)

    threads = [threading.Thread(target=hold) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(seen)) == 2


def _slot_at(tmp_path: Path, name: str, files: dict[str, str], sha: str) -> warm.Slot:
    tree = tmp_path / f"checkout-{sha}"
    for path, text in files.items():
        (tree / path).parent.mkdir(parents=True, exist_ok=True)
        (tree / path).write_text(text)
    slot = warm.Slot(tmp_path / name)
    warm.make_pristine(slot, tree, sha)
    return slot


def test_a_slot_prefers_its_commit_then_a_near_one_then_a_new_one(tmp_path):
    for index, sha in enumerate(("a", "b")):
        _slot_at(tmp_path / "warm" / "key", f"slot-{index}", {"x": sha}, sha)
    with warm.acquire(tmp_path, "key", "b") as slot:
        assert slot.sha() == "b"
    with warm.acquire(tmp_path, "key", "c", near=lambda other: other == "a") as slot:
        assert slot.sha() == "a"
    # Nothing near: a slot never made, before any slot of another commit is moved.
    with warm.acquire(tmp_path, "key", "c") as slot:
        assert not slot.ready()


def test_a_moved_slot_takes_exactly_the_new_commits_files(tmp_path):
    slot = _slot_at(
        tmp_path,
        "slot",
        {"keep.hpp": "same\n", "edit.hpp": "old\n", "src/gone.cpp": "bye\n", "src/a.cpp": "a\n"},
        "a",
    )
    snapshot = slot.snapshot("plain")
    snapshot.mkdir(parents=True)
    (snapshot / ".ninja_deps").write_text("deps")
    (snapshot / ".pw-complete").write_text("built\n")
    fresh = tmp_path / "checkout-b"
    for path, text in {"keep.hpp": "same\n", "edit.hpp": "new\n", "src/a.cpp": "a\n"}.items():
        (fresh / path).parent.mkdir(parents=True, exist_ok=True)
        (fresh / path).write_text(text)
    changed = warm.move(slot, fresh, "b")
    assert sorted(changed) == ["edit.hpp", "src/gone.cpp"]
    assert slot.sha() == "b" and slot.ready()
    assert not (slot.pristine / "src" / "gone.cpp").exists()
    assert (slot.pristine / "edit.hpp").read_text() == "new\n"
    # What did not change keeps the fixed instant, older than any build; what changed is newer.
    assert (slot.pristine / "keep.hpp").stat().st_mtime == warm.FIXED_MTIME
    assert (slot.pristine / "edit.hpp").stat().st_mtime > warm.FIXED_MTIME
    # The snapshot is a start for the next build of its name, never a finished one; a removed
    # source leaves its dependency log (ninja sees a missing input), a removed header would not.
    assert not slot.has_snapshot("plain") and slot.has_stale("plain")
    build = warm.start_build(slot, "plain")
    assert (build / ".ninja_deps").exists() and not (build / warm.STALE).exists()
    # A header the move adds could shadow one an include found before: the log goes.
    (fresh / "new.hpp").write_text("shadow\n")
    warm.move(slot, fresh, "c")
    assert not (slot.snapshot("plain") / ".ninja_deps").exists()


# -- end to end ---------------------------------------------------------------------------------

CMAKE = """\
cmake_minimum_required(VERSION 3.20)
project(limits CXX)
enable_testing()
add_library(limits src/limits.cpp)
target_include_directories(limits PUBLIC include)
add_executable(golden_limit tests/golden_limit.cpp)
target_link_libraries(golden_limit limits)
add_test(NAME golden_limit COMMAND golden_limit)
add_executable(golden_twice tests/golden_twice.cpp)
target_link_libraries(golden_twice limits)
add_test(NAME golden_twice COMMAND golden_twice)
"""

FILES = {
    "CMakeLists.txt": CMAKE,
    "include/limits.hpp": "#pragma once\ninline int limit() { return 7; }\nint twice(int x);\n",
    "src/limits.cpp": '#include "limits.hpp"\n\nint twice(int x) { return x + x; }\n',
    # A test case the census knows: its file is a test source, so the coverage build runs
    # through the grader's compiler launcher (-fkeep-inline-functions for tests only), which a
    # warm slot keeps outside the run's scratch folder.
    "tests/check.hpp": "#pragma once\n#define TEST_CASE(name) static bool test_body()\n",
    "tests/golden_limit.cpp": '#include "limits.hpp"\n#include "check.hpp"\n\n'
    'TEST_CASE("limit") { return limit() == 8; }\n\n'
    "int main() { return test_body() ? 0 : 1; }\n",
    "tests/golden_twice.cpp": '#include "limits.hpp"\n\n'
    "int main() { return twice(4) == 8 ? 0 : 1; }\n",
}
HEADER = "include/limits.hpp"


@pytest.fixture(scope="module")
def limits(tmp_path_factory) -> Built:
    return make_cmake_task(tmp_path_factory.mktemp("warm"), FILES, failing=["golden_limit"])


def run(limits: Built, edits, name: str, settings: Settings):
    return grade(limits.task_dir, limits.patch(edits, f"{name}.diff"), settings=settings)


@needs_cpp
def test_each_grade_sees_exactly_its_own_header(limits, tmp_path):
    settings = Settings(cache=tmp_path / "cache")
    # Same length as "return 7;": only the bytes differ, never the size.
    right = (HEADER, "return 7;", "return 8;")
    wrong = (HEADER, "return 7;", "return 9;")
    labels = [
        run(limits, [edit], name, settings).label
        for name, edit in (
            ("right", right),
            ("wrong", wrong),
            ("right-again", right),
            ("wrong-again", wrong),
        )
    ]
    assert labels == ["passed", "no-op", "passed", "no-op"]
    # Every grade after the first rebuilt only what the header dirtied, from the slot's snapshot.
    assert list((tmp_path / "cache" / "warm").glob("*/slot-0/snapshots/*/.pw-complete"))


@needs_cpp
def test_warm_and_cold_grades_agree(limits, tmp_path):
    warm_settings = Settings(cache=tmp_path / "cache")
    cold_settings = Settings(cache=tmp_path / "cache", warm=False)
    patches = {
        "fix": [(HEADER, "return 7;", "return 8;")],
        "break": [(HEADER, "return 7;", "return 8;"), ("src/limits.cpp", "x + x", "x * x + 1")],
        "idle": [("src/limits.cpp", "int twice", "// doubles\nint twice")],
    }
    for name, edits in patches.items():
        hot = run(limits, edits, f"{name}-warm", warm_settings)
        cold = run(limits, edits, f"{name}-cold", cold_settings)
        assert (hot.label, hot.grade) == (cold.label, cold.grade), name
        assert hot.gates.drift.facts.after == cold.gates.drift.facts.after, name


@needs_cpp
def test_nothing_a_graded_run_leaves_in_the_slot_reaches_the_next_grade(limits, tmp_path):
    settings = Settings(cache=tmp_path / "cache", coverage=False)
    # A hostile golden: it overwrites every object file of its build tree with a copy of the
    # one that makes golden_limit pass, and plants a file in the source tree.
    vandal = (
        "tests/golden_twice.cpp",
        "int main() { return twice(4) == 8 ? 0 : 1; }",
        "#include <cstdlib>\n"
        "int main() {\n"
        '  std::system("for f in $(find \\"$PW_BUILD\\" -name \'*.o\'); do '
        'printf garbage > \\"$f\\"; touch -d @946684800 \\"$f\\"; done; '
        'echo \'int planted;\' > \\"$PW_REPO/src/planted.cpp\\"");\n'
        "  return twice(4) == 8 ? 0 : 1;\n}",
    )
    first = run(limits, [vandal], "vandal", settings)
    assert first.label in ("UNPRINTABLE", "no-op")
    honest = run(limits, [(HEADER, "return 7;", "return 8;")], "honest-after", settings)
    assert honest.label == "passed", honest.reasons
    slot = next((tmp_path / "cache" / "warm").glob("*/slot-0"))
    assert not (slot / "repo" / "src" / "planted.cpp").exists()


needs_bwrap = pytest.mark.skipif(
    shutil.which("bwrap") is None and not os.environ.get("CI"),
    reason="needs bubblewrap (make installs it; CI must have it)",
)


@needs_cpp
@needs_bwrap
def test_a_warm_grade_in_the_sandbox_reaches_the_slots_compiler_launcher(limits, tmp_path):
    """The launcher of a warm slot lives in the slot, outside the run's scratch folder: the
    sandbox must let the build see it, or every warm coverage build fails for the grader's own
    reason (each honest patch then reads 'failed')."""
    from patchwitness import sandbox

    settings = Settings(cache=tmp_path / "cache", runner=sandbox.make_runner("bwrap"))
    for name in ("first", "second"):  # the first primes the slot, the second starts warm
        verdict = run(limits, [(HEADER, "return 7;", "return 8;")], f"sandboxed-{name}", settings)
        assert (verdict.label, verdict.grade) == ("passed", "accept"), verdict.reasons
        assert "-fkeep-inline-functions" in verdict.gates.coverage.facts.flags


# A golden that writes into the source tree, as tinyxml2's xmltest writes resources/out/.
WRITER_CMAKE = CMAKE + (
    "add_executable(golden_writes tests/golden_writes.cpp)\n"
    "target_link_libraries(golden_writes limits)\n"
    'add_test(NAME golden_writes COMMAND golden_writes WORKING_DIRECTORY "${CMAKE_SOURCE_DIR}")\n'
)
WRITER_FILES = {
    **FILES,
    "CMakeLists.txt": WRITER_CMAKE,
    "out/.keep": "",
    "tests/golden_writes.cpp": '#include <cstdio>\n#include "limits.hpp"\n\n'
    'int main() {\n  std::FILE* f = std::fopen("out/twice.txt", "w");\n'
    '  if (!f) return 1;\n  std::fprintf(f, "%d\\n", twice(3));\n'
    "  return std::fclose(f) == 0 && twice(3) == 6 ? 0 : 1;\n}\n",
}


@needs_cpp
@needs_bwrap
def test_a_warm_sandboxed_matrix_builds_every_envelope_and_lets_tests_write(tmp_path):
    """The flag matrix of a warm slot: each envelope's toolchain file lives in the slot (outside
    the run's scratch), and a test may write into the source tree as it does in the plain run.
    Either hidden from the envelope made every cell red at the SHA and after, which the gate
    once called all-green (the UB of a patch then passed unseen)."""
    from patchwitness import sandbox

    task = make_cmake_task(
        tmp_path / "writer",
        WRITER_FILES,
        failing=["golden_limit"],
        matrix='{"mode": "cmake", "envelopes": ["dbg", "asan"]}\n',
    )
    settings = Settings(cache=tmp_path / "cache", runner=sandbox.make_runner("bwrap"))
    for name in ("first", "second"):  # the first primes the slot, the second starts warm
        heard: list[str] = []
        patch = task.patch([(HEADER, "return 7;", "return 8;")], f"matrix-{name}.diff")
        verdict = grade(task.task_dir, patch, settings=settings, progress=heard.append)
        # A person watching sees each envelope finish.
        assert "the flag matrix: 2 of 2 envelopes done" in heard, heard
        matrix = verdict.gates.matrix
        assert matrix is not None and matrix.row == "all-green", matrix and matrix.detail
        statuses = {f"{c.golden}@{c.envelope}": c.status for c in matrix.facts.cells}
        assert set(statuses.values()) == {"pass"}, statuses
        assert {"golden_writes@dbg", "golden_limit@asan"} <= set(statuses)
        assert (verdict.label, verdict.grade) == ("passed", "accept"), verdict.reasons


# A header found through the include path, where an earlier include directory is empty at the
# SHA: a header the patch adds there is what `#include <value.hpp>` finds from then on.
SHADOWED = {
    "CMakeLists.txt": CMAKE.replace(
        "target_include_directories(limits PUBLIC include)",
        "target_include_directories(limits PUBLIC overrides include)",
    ),
    "include/value.hpp": "#pragma once\ninline int value() { return 7; }\n",
    "include/limits.hpp": "#pragma once\n#include <value.hpp>\n"
    "inline int limit() { return value(); }\nint twice(int x);\n",
    "src/limits.cpp": FILES["src/limits.cpp"],
    "tests/check.hpp": FILES["tests/check.hpp"],
    "tests/golden_limit.cpp": FILES["tests/golden_limit.cpp"],
    "tests/golden_twice.cpp": FILES["tests/golden_twice.cpp"],
}


@needs_cpp
def test_a_header_the_patch_adds_earlier_on_the_include_path_is_built(tmp_path):
    """Ninja's log lists what each object read, not what it did not find: the new header is
    missed unless the warm build forgets that log. Warm and cold grades must agree."""
    built = make_cmake_task(tmp_path, SHADOWED, failing=["golden_limit"], name="shadow")
    override = ("overrides/value.hpp", "", "#pragma once\ninline int value() { return 8; }\n")
    settings = Settings(cache=tmp_path / "cache")
    primed = run(
        built, [("src/limits.cpp", "int twice", "// doubles\nint twice")], "prime", settings
    )
    assert primed.label == "no-op"  # the slot now holds a built snapshot
    hot = run(built, [override], "override-warm", settings)
    cold = run(built, [override], "override-cold", Settings(cache=tmp_path / "cache", warm=False))
    assert (cold.label, cold.grade) == ("passed", "accept"), cold.reasons
    assert (hot.label, hot.grade) == (cold.label, cold.grade), hot.reasons


def test_what_a_patch_added_decides_whether_the_dependency_log_stays(tmp_path):
    slot = warm.Slot(tmp_path / "slot")
    (slot.snapshot("plain")).mkdir(parents=True)
    (slot.snapshot("plain") / ".ninja_deps").write_bytes(b"log")
    warm.note_added(slot, ["src/new.cpp", "src/CMakeLists.txt"])
    assert (warm.restore_build(slot, "plain") / ".ninja_deps").exists()
    warm.note_added(slot, ["include/gtest/gtest.h"])
    assert not (warm.restore_build(slot, "plain") / ".ninja_deps").exists()
    warm.note_added(slot, [])
    assert (warm.restore_build(slot, "plain") / ".ninja_deps").exists()


def test_a_file_no_include_of_the_build_spells_keeps_the_dependency_log(tmp_path):
    """With the names the snapshot's includes spell noted, only a file an include could find
    (by its name, or as a folder on the way) makes the build forget its log."""
    slot = warm.Slot(tmp_path / "slot")
    (slot.snapshot("plain")).mkdir(parents=True)
    (slot.snapshot("plain") / ".ninja_deps").write_bytes(b"log")
    (slot.snapshot("plain") / warm.SPELLED).write_text('["gtest", "gtest.h", "limits.hpp"]')
    kept = {
        "docs/notes.md": True,
        "tests/data/input.txt": True,
        "include/gtest/gtest.h": False,
        "overrides/limits.hpp": False,
        "include/gtest": False,  # a symlink to a folder of headers
    }
    for path, stays in kept.items():
        warm.note_added(slot, [path])
        assert (warm.restore_build(slot, "plain") / ".ninja_deps").exists() is stays, path


@needs_cpp
def test_the_baselines_builds_are_the_snapshots_every_grade_starts_from(limits, tmp_path):
    from patchwitness import baseline as baselines
    from patchwitness.phases.prepare import prepare
    from patchwitness.task import load_task

    task = load_task(limits.task_dir)
    warm_settings = Settings(cache=tmp_path / "warm-cache")
    suite = prepare(task, warm_settings).suite
    hot = baselines.obtain(task, suite, warm_settings)
    # A first grade's baseline built the SHA once per instrumentation, in the slot, and kept
    # each build as the snapshot a grade's priming would otherwise build again.
    kept = {
        p.parent.name
        for p in (tmp_path / "warm-cache" / "warm").glob("*/slot-*/snapshots/*/.pw-complete")
    }
    assert hot.instrumentation is not None
    assert kept == {"plain", suite.warm_name(hot.instrumentation)}
    # Built there or in a fresh checkout, the SHA's tests say the same.
    cold_settings = Settings(cache=tmp_path / "cold-cache", warm=False)
    cold = baselines.obtain(task, prepare(task, cold_settings).suite, cold_settings)
    assert hot.outcomes == cold.outcomes
    assert hot.instrumented_outcomes == cold.instrumented_outcomes
    assert hot.instrumentation == cold.instrumentation
    assert hot.graph == cold.graph
    assert not list((tmp_path / "cold-cache").glob("warm/*/slot-*/snapshots/*"))
    # The grade that follows finds its snapshots made, and grades as a cold grade does.
    verdict = run(limits, [(HEADER, "return 7;", "return 8;")], "after-baseline", warm_settings)
    assert verdict.label == "passed"


# Commit A and its child B: B changes a header, a compile definition in CMakeLists.txt, and
# removes a header a source only asks about (`__has_include`), which no dependency log lists.
MOVE_A = {
    "CMakeLists.txt": """\
cmake_minimum_required(VERSION 3.20)
project(moving CXX)
enable_testing()
add_library(moving src/moving.cpp)
target_include_directories(moving PUBLIC include)
target_compile_definitions(moving PRIVATE BONUS=0)
add_library(probing src/probe.cpp)
target_include_directories(probing PUBLIC include)
foreach(name value bonus probe)
  add_executable(golden_${name} tests/golden_${name}.cpp)
  target_link_libraries(golden_${name} moving probing)
  add_test(NAME golden_${name} COMMAND golden_${name})
endforeach()
""",
    "include/moving.hpp": "#pragma once\ninline int value() { return 7; }\n"
    "int bonus();\nint probe();\n",
    "include/extra.hpp": "#pragma once\n",
    "src/moving.cpp": '#include "moving.hpp"\n\nint bonus() { return BONUS; }\n',
    # Its own target, reading no header: neither the changed definition nor the changed header
    # recompiles it, only the removed header may (and no dependency log names that one).
    "src/probe.cpp": '#if __has_include("../include/extra.hpp")\n'
    "int probe() { return 1; }\n#else\nint probe() { return 0; }\n#endif\n",
    "tests/golden_value.cpp": '#include "moving.hpp"\n'
    "int main() { return value() == 6 ? 0 : 1; }\n",
    "tests/golden_bonus.cpp": '#include "moving.hpp"\n'
    "int main() { return bonus() == 1 ? 0 : 1; }\n",
    "tests/golden_probe.cpp": '#include "moving.hpp"\n'
    "int main() { return probe() == 0 ? 0 : 1; }\n",
}
MOVE_B = {
    **MOVE_A,
    "CMakeLists.txt": MOVE_A["CMakeLists.txt"].replace("BONUS=0", "BONUS=1"),
    "include/moving.hpp": MOVE_A["include/moving.hpp"].replace("return 7", "return 6"),
    "tests/golden_value.cpp": MOVE_A["tests/golden_value.cpp"].replace("== 6", "== 5"),
}
del MOVE_B["include/extra.hpp"]


@needs_cpp
def test_a_slot_moved_to_the_next_commit_sees_every_change_a_fresh_build_sees(tmp_path):
    import subprocess

    from patchwitness import baseline as baselines
    from patchwitness.phases.prepare import prepare
    from patchwitness.task import load_task

    repo = tmp_path / "repo"
    sha_a = build.make_repo(repo, MOVE_A)
    for path in set(MOVE_A) - set(MOVE_B):
        (repo / path).unlink()
    build.write_files(repo, MOVE_B)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", "B"], cwd=repo, check=True)
    sha_b = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.strip()

    def baseline_at(sha: str, failing: str, settings: Settings):
        task_dir = tmp_path / "tasks" / f"{sha[:8]}-{settings.warm}"
        build.write_task(
            task_dir,
            sha=sha,
            test_cmd='ctest --test-dir "$PW_BUILD"',
            allow_test_edits=False,
            failing=[failing],
            toml='language = "cpp"\nrepo = "../../repo"\ntimeout = 120\n'
            "[matrix]\nenabled = false\n",
        )
        task = load_task(task_dir)
        return baselines.obtain(task, prepare(task, settings).suite, settings)

    warm_settings = Settings(cache=tmp_path / "cache")
    at_a = baseline_at(sha_a, "golden_value", warm_settings)
    assert at_a.outcomes["golden_probe"] != "passed"  # extra.hpp is there at A
    slots = list((tmp_path / "cache" / "warm").glob("*/slot-*/.pw-sha"))
    assert [p.read_text() for p in slots] == [sha_a]
    moved = baseline_at(sha_b, "golden_value", warm_settings)
    # The one slot moved to B, in place: no second slot was made from nothing.
    assert [p.read_text() for p in slots] == [sha_b]
    assert len(list((tmp_path / "cache" / "warm").glob("*/slot-*/.pw-sha"))) == 1
    fresh = baseline_at(sha_b, "golden_value", Settings(cache=tmp_path / "cold", warm=False))
    # The changed header, the changed definition and the removed header are all seen.
    assert moved.outcomes == fresh.outcomes
    assert moved.outcomes["golden_bonus"] == "passed"
    assert moved.outcomes["golden_probe"] == "passed"
    assert moved.instrumented_outcomes == fresh.instrumented_outcomes
    assert moved.graph == fresh.graph


@needs_cpp
def test_a_patch_that_removes_a_header_a_build_only_asked_about_is_built_again(tmp_path):
    task_dir = make_cmake_task(tmp_path, MOVE_A, failing=["golden_probe"], name="probe").task_dir
    after = dict(MOVE_A)
    del after["include/extra.hpp"]
    patch = tmp_path / "remove.diff"
    patch.write_text(build.make_diff(MOVE_A, after))
    settings = Settings(cache=tmp_path / "cache", coverage=False)
    grade(task_dir, patch, agent="first", settings=settings)  # the slot's snapshots are made
    hot = grade(task_dir, patch, agent="warm", settings=settings)
    cold = grade(task_dir, patch, agent="cold", settings=settings.but(warm=False))
    assert hot.gates.drift.facts.after == cold.gates.drift.facts.after
    assert hot.gates.drift.facts.after["golden_probe"] == "passed"


@needs_cpp
def test_the_shas_matrix_is_run_in_the_slots_envelope_builds(monkeypatch, tmp_path):
    """A warm grade's SHA cells are the tests of the slot's envelope snapshots, built once at the
    SHA, never a second set of builds in a fresh checkout; and they are the cells a fresh
    checkout gives: red where the SHA is red, whatever the patch does to the slot's tree."""
    from patchwitness.matrix import collect

    task = make_cmake_task(
        tmp_path / "limits",
        FILES,
        failing=["golden_limit"],
        matrix='{"mode": "cmake", "envelopes": ["dbg", "rel"]}\n',
    )
    task_dir = task.task_dir
    patch = task.patch([(HEADER, "return 7;", "return 8;")], "fix.diff")

    def at_sha(verdict) -> dict[str, str]:
        matrix = verdict.gates.matrix
        assert matrix is not None, verdict.reasons
        return {f"{c.golden}@{c.envelope}": c.status for c in matrix.facts.baseline}

    cold = grade(task_dir, patch, settings=Settings(cache=tmp_path / "cold", warm=False))

    def no_fresh_checkout(*args, **kwargs):
        raise AssertionError("the SHA's cells were built in a fresh checkout")

    monkeypatch.setattr(collect, "_compute_baseline", no_fresh_checkout)
    hot = grade(task_dir, patch, settings=Settings(cache=tmp_path / "warm"))
    assert at_sha(hot) == at_sha(cold)
    assert at_sha(hot)["golden_limit@dbg"] == "run_fail"
    assert at_sha(hot)["golden_twice@rel"] == "pass"
    assert (hot.label, hot.grade) == (cold.label, cold.grade) == ("passed", "accept")
    patched = {c.status for c in hot.gates.matrix.facts.cells}
    assert patched == {"pass"}


@needs_cpp
def test_a_file_no_include_spells_leaves_every_other_object_as_built(limits, tmp_path):
    """A snapshot notes the names its build's includes spell; a patch that adds a file none of
    them names (a note, a data file) rebuilds only what it changed, where any added file once
    made every object build again."""
    import json

    settings = Settings(cache=tmp_path / "cache", coverage=False)
    idle = ("src/limits.cpp", "int twice", "// doubles\nint twice")
    run(limits, [idle], "prime-notes", settings)  # the slot's snapshot is made
    slot_root = next((tmp_path / "cache" / "warm").glob("*/slot-0"))
    spelled = sorted(slot_root.glob("snapshots/*/" + warm.SPELLED))
    assert spelled, "the snapshot noted no names"
    assert {"limits.hpp", "check.hpp"} <= set(json.loads(spelled[0].read_text()))
    notes = ("docs/notes.md", "", "how the limits are chosen\n")
    verdict = run(limits, [idle, notes], "notes", settings)
    assert verdict.label == "no-op", verdict.reasons
    name = spelled[0].parent.name
    objects = sorted((slot_root / "snapshots" / name).rglob("golden_*.cpp.o"))
    assert objects
    for built in objects:
        now = slot_root / "builds" / name / built.relative_to(slot_root / "snapshots" / name)
        assert now.stat().st_mtime_ns == built.stat().st_mtime_ns, now
