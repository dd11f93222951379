"""The flag matrix's pure parts: the manifest, sanitizer reports, dependency files, -Werror
diagnostics, the CMake toolchain file and ctest's report, and shell quoting."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from patchwitness.errors import InvalidTask
from patchwitness.matrix import cache, cells, cmake, commands, manifest, sanitizers

SEED_MANIFEST = {
    "cxx": "c++",
    "std": "c++17",
    "goldens": ["eval/golden_ring.cpp"],
    "include": ["subject"],
    "envelopes": [
        {"name": "dbg", "cxxflags": ["-O0", "-g", "-Wall", "-Wextra", "-Werror"]},
        {"name": "rel", "cxxflags": ["-O2", "-DNDEBUG", "-Wall", "-Wextra", "-Werror"]},
        {
            "name": "asan",
            "cxxflags": ["-O0", "-g", "-fsanitize=address,undefined", "-fno-omit-frame-pointer"],
        },
        {"name": "ubsan2", "cxxflags": ["-O2", "-fsanitize=undefined", "-fno-sanitize-recover"]},
    ],
}


def parse(data: dict, extra: tuple[str, ...] = ()) -> manifest.Matrix:
    return manifest.parse(json.dumps(data).encode(), "matrix.json", extra)


# --- the manifest -----------------------------------------------------------------------------


def test_the_seeds_manifest_is_accepted_as_is():
    plan = parse(SEED_MANIFEST)
    assert plan.mode == "goldens"
    assert [g.source for g in plan.goldens] == ["eval/golden_ring.cpp"]
    assert [e.name for e in plan.envelopes] == ["dbg", "rel", "asan", "ubsan2"]
    assert all(e.required for e in plan.envelopes)
    assert [e.kind for e in plan.envelopes] == ["debug", "release", "sanitizer", "sanitizer"]
    assert plan.goldens[0].fixture == "eval/golden_ring.expected"
    assert len(plan.sha256) == 64


def test_the_extensions():
    data = {
        "goldens": [
            "g/one.cpp",
            {
                "source": "g/two.cpp",
                "sources": ["src/a.cpp"],
                "ldflags": ["-lm"],
                "expected": "g/two.out",
            },
        ],
        "include": ["include", "lib/include"],
        "envelopes": [
            "dbg",
            {"name": "asan", "env": {"ASAN_OPTIONS": "detect_leaks=0"}},
            {
                "name": "relaxed",
                "cxxflags": ["-O1"],
                "required": False,
                "werror_exception": {"reason": "gcc 12 warns on -fsanitize with -O3"},
            },
            "tsan",
        ],
        "resources": {"rss_ratio": 3, "rss_mb": 100},
    }
    plan = parse(data)
    two = plan.goldens[1]
    assert two.all_sources == ("g/two.cpp", "src/a.cpp") and two.fixture == "g/two.out"
    assert plan.include == ("include", "lib/include")
    asan = plan.envelope("asan")
    assert asan.cxxflags == tuple(manifest.BUILTIN_ENVELOPES["asan"]["cxxflags"])
    assert dict(asan.env) == {"ASAN_OPTIONS": "detect_leaks=0"}
    relaxed = plan.envelope("relaxed")
    assert relaxed.werror_exception == "gcc 12 warns on -fsanitize with -O3"
    assert not relaxed.required
    assert not plan.envelope("tsan").required  # optional built-ins are not required by default
    assert plan.resources.rss_ratio == 3 and plan.resources.cpu_s == 1.0


def test_optional_envelopes_by_name():
    plan = parse(SEED_MANIFEST, extra=("tsan", "o3", "lto", "clang"))
    names = [e.name for e in plan.envelopes]
    assert names[-4:] == ["tsan", "o3", "lto", "clang"]
    assert plan.envelope("clang").cxx == "clang++"
    assert plan.compiler(plan.envelope("clang")) == "clang++"
    assert plan.envelope("lto").ldflags == ("-flto",)


def test_cmake_mode_and_the_default():
    assert parse({"mode": "cmake"}).mode == "cmake"
    default = manifest.parse(manifest.default_bytes(), "default")
    assert default.mode == "cmake"
    assert [e.name for e in default.envelopes] == manifest.DEFAULT_ENVELOPES
    assert default.envelope("ubsan2").cxxflags == (
        "-O2",
        "-fsanitize=undefined",
        "-fno-sanitize-recover=all",
    )


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"goldens": []}, "no goldens"),
        ({"goldens": ["/etc/passwd.cpp"]}, "inside the repository"),
        ({"goldens": ["../x.cpp"]}, "inside the repository"),
        ({"goldens": ["a.cpp"], "include": ["-Dx"]}, "inside the repository"),
        ({"goldens": ["a.cpp"], "envelopes": ["nope"]}, "not a built-in"),
        ({"goldens": ["a.cpp"], "envelopes": [{"name": "a b", "cxxflags": []}]}, "envelopes"),
        ({"goldens": ["a.cpp"], "envelopes": ["dbg", "dbg"]}, "twice"),
        ({"goldens": ["a.cpp", "a.cpp"]}, "twice"),
        ({"goldens": ["a.cpp"], "colour": "red"}, "colour"),
        ({"mode": "cmake", "goldens": ["a.cpp"]}, "cmake"),
        (
            {
                "goldens": ["a.cpp"],
                "envelopes": [
                    {"name": "x", "cxxflags": ["-Werror"], "werror_exception": {"reason": "y"}}
                ],
            },
            "werror_exception",
        ),
        ({"goldens": ["a.cpp"], "resources": {"rss_ratio": 0.5}}, "rss_ratio"),
    ],
)
def test_invalid_manifests_are_invalid_tasks(data, message):
    with pytest.raises(InvalidTask, match=message):
        parse(data)


def test_a_manifest_that_is_not_json():
    with pytest.raises(InvalidTask, match="not JSON"):
        manifest.parse(b"{nope", "matrix.json")


@pytest.mark.parametrize(
    ("flags", "kind"),
    [
        (["-O0", "-g"], "debug"),
        (["-g"], "debug"),
        (["-Og"], "debug"),
        (["-O2"], "release"),
        (["-O0", "-DNDEBUG"], "release"),
        (["-O0", "-O3"], "release"),
        (["-O2", "-fsanitize=undefined"], "sanitizer"),
        (["-O0", "-fsanitize-recover=all"], "debug"),
    ],
)
def test_envelope_kind(flags, kind):
    assert manifest.envelope_kind(flags) == kind


# --- sanitizer reports --------------------------------------------------------------------------

UBSAN = """\
starting
/tmp/patchwitness-abc/repo/subject/ring.hpp:14:20: runtime error: signed integer overflow: \
2147483647 + 1 cannot be represented in type 'int'
    #0 0x55 in Ring::push(unsigned int) /tmp/patchwitness-abc/repo/subject/ring.hpp:14
SUMMARY: UndefinedBehaviorSanitizer: undefined-behavior subject/ring.hpp:14:20 in
"""

ASAN = """\
=================================================================
==12==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000020 at pc 0x5 bp 0x7
WRITE of size 4 at 0x602000000020 thread T0
    #0 0x55cf7d7a72a4 in main eval/golden_heap.cpp:9
    #1 0x7fb8cf245249 in __libc_start_call_main ../sysdeps/nptl/libc_start_call_main.h:58

SUMMARY: AddressSanitizer: heap-buffer-overflow eval/golden_heap.cpp:9 in main
==12==ABORTING
"""

LSAN = """\
==7==ERROR: LeakSanitizer: detected memory leaks

Direct leak of 100 byte(s) in 1 object(s) allocated from:
    #0 0x7f01 in __interceptor_malloc ../../../../src/libsanitizer/asan/asan_malloc_linux.cpp:69
    #1 0x55c4 in main eval/leak.cpp:3

SUMMARY: AddressSanitizer: 100 byte(s) leaked in 1 allocation(s).
"""

TSAN = """\
==================
WARNING: ThreadSanitizer: data race (pid=2)
  Read of size 4 at 0x56 by main thread:
    #0 main /repo/eval/race.cpp:4 (race+0x136e)
SUMMARY: ThreadSanitizer: data race /repo/eval/race.cpp:4 in main
==================
"""


def test_ubsan_report():
    found = sanitizers.parse(UBSAN, ["/tmp/patchwitness-abc/repo"])
    assert found == [
        {
            "tool": "UndefinedBehaviorSanitizer",
            "kind": "signed integer overflow",
            "location": "subject/ring.hpp:14:20",
            "message": found[0]["message"],
            "frames": "subject/ring.hpp:14",
            "functions": "Ring::push(unsigned int)",
        }
    ]


def test_asan_report_takes_the_summary_location():
    found = sanitizers.parse(ASAN)
    assert [(f["tool"], f["kind"], f["location"]) for f in found] == [
        ("AddressSanitizer", "heap-buffer-overflow", "eval/golden_heap.cpp:9")
    ]


def test_leak_report_takes_the_first_frame_outside_the_runtime():
    found = sanitizers.parse(LSAN)
    assert [(f["tool"], f["kind"], f["location"]) for f in found] == [
        ("LeakSanitizer", "detected memory leaks", "eval/leak.cpp:3")
    ]


def test_tsan_report():
    found = sanitizers.parse(TSAN, ["/repo"])
    assert [(f["kind"], f["location"]) for f in found] == [("data race", "eval/race.cpp:4")]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "warning: the ring is nearly full\n",
        "error: not a sanitizer, just a golden talking\n",
        "==1==WARNING: ASan is ignoring requested __asan_handle_no_return\n",
        "AddressSanitizer:DEADLYSIGNAL\n",
    ],
)
def test_ordinary_stderr_is_not_a_report(text):
    assert sanitizers.parse(text) == []


# A report whose own location is a system header: its stack says where the project called it.
ASAN_IN_LIBRARY = """\
==9==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6 at pc 0x5 bp 0x7 sp 0x8
READ of size 4 at 0x6 thread T0
    #0 0x55 in __interceptor_memcpy ../../../../src/libsanitizer/sanitizer_common/x.inc:827
    #1 0x56 in std::vector<int>::front() /usr/include/c++/12/bits/stl_vector.h:1224
    #2 0x57 in first(std::vector<int> const&) /w/repo/src/first.cpp:4
    #3 0x58 in main /w/repo/tests/golden_first.cpp:6
    #4 0x59 in __libc_start_call_main ../sysdeps/nptl/libc_start_call_main.h:58
    #5 0x5a in _start (/w/build/golden_first+0x11a4)

0x6 is located 0 bytes after 4-byte region [0x2,0x6)
allocated by thread T0 here:
    #0 0x60 in operator new(unsigned long) ../../../../src/libsanitizer/asan/new.cpp:95
    #1 0x61 in main /w/repo/tests/golden_first.cpp:5

SUMMARY: AddressSanitizer: heap-buffer-overflow /usr/include/c++/12/bits/stl_vector.h:1224 in x
"""


def test_a_report_keeps_its_first_stack_outside_the_runtime():
    found = sanitizers.parse(ASAN_IN_LIBRARY, ["/w/repo", "/w/build"])
    assert found[0]["location"] == "/usr/include/c++/12/bits/stl_vector.h:1224"
    assert found[0]["frames"].split("\n") == [
        "/usr/include/c++/12/bits/stl_vector.h:1224",
        "src/first.cpp:4",
        "tests/golden_first.cpp:6",
    ]
    assert found[0]["functions"].split("\n") == [
        "std::vector<int>::front()",
        "first(std::vector<int> const&)",
        "main",
    ]
    # Frames without a source line keep their function; a report without a stack has none.
    bare = (
        "==1==ERROR: AddressSanitizer: SEGV on unknown address 0x0\n    #0 0x4f in f (/b/x+0x4f)\n"
    )
    assert [(f["frames"], f["functions"]) for f in sanitizers.parse(bare)] == [("", "f")]
    plain = "a.cpp:3:5: runtime error: load of null pointer of type 'int'\n"
    assert [(f["frames"], f["functions"]) for f in sanitizers.parse(plain)] == [("", "")]


def test_ubsan_kinds_are_stable():
    assert sanitizers.ubsan_kind("index 10 out of bounds for type 'int [4]'") == (
        "index N out of bounds for type 'T'"
    )
    assert sanitizers.ubsan_kind("load of null pointer of type 'int'") == (
        "load of null pointer of type 'T'"
    )


# --- dependency files and the cache key ---------------------------------------------------------


def test_parse_depfile():
    text = (
        "/tmp/out/golden: eval/golden_ring.cpp subject/ring.hpp \\\n"
        " /usr/include/c++/12/vector lib/with\\ space.hpp \\\n"
        " lib/dollar$$.hpp\n"
    )
    assert cache.parse_depfile(text) == [
        "eval/golden_ring.cpp",
        "subject/ring.hpp",
        "/usr/include/c++/12/vector",
        "lib/with space.hpp",
        "lib/dollar$.hpp",
    ]


def test_normalize_deps(tmp_path: Path):
    tree = tmp_path / "tree"
    tree.mkdir()
    deps = ["eval/x.cpp", f"{tree}/subject/r.hpp", "eval/../subject/r.hpp", "/usr/include/stdio.h"]
    assert cache.normalize_deps(deps, tree) == [
        "/usr/include/stdio.h",
        "eval/x.cpp",
        "subject/r.hpp",
    ]
    assert cache.normalize_deps(["/proc/self/environ"], tree) is None
    assert cache.normalize_deps(["../outside.hpp"], tree) is None


def test_the_primary_key_never_holds_the_worktree_path(tmp_path: Path):
    inputs = cache.CompileInputs(
        cxx="c++",
        compiler_id="gcc 12",
        std="c++17",
        cxxflags=("-O2",),
        ldflags=(),
        include=("subject",),
        sources=("eval/g.cpp",),
    )
    keys = []
    for name in ("one", "two"):
        tree = tmp_path / name
        (tree / "eval").mkdir(parents=True)
        (tree / "subject").mkdir()
        (tree / "eval/g.cpp").write_text("int main() {}\n")
        (tree / "subject/r.hpp").write_text("#pragma once\n")
        keys.append(inputs.primary_key(tree))
    assert keys[0] == keys[1]
    # A header added next to the golden may shadow another: the key changes.
    (tmp_path / "two/eval/r.hpp").write_text("#pragma once\n")
    assert inputs.primary_key(tmp_path / "two") != keys[0]


# --- compiler diagnostics -----------------------------------------------------------------------

GCC_WERROR = """\
eval/g.cpp: In function 'int main()':
eval/g.cpp:3:7: error: unused variable 'spare' [-Werror=unused-variable]
    3 |   int spare = 3;
      |       ^~~~~
cc1plus: all warnings being treated as errors
"""
CLANG_WERROR = "eval/g.cpp:3:7: error: unused variable 'spare' [-Werror,-Wunused-variable]\n"
REAL_ERROR = "eval/g.cpp:3:7: error: 'spare' was not declared in this scope\n"
LINK_ERROR = "/usr/bin/ld: g.o: undefined reference to `f()'\ncollect2: error: ld returned 1\n"


def test_werror_only():
    assert cells.werror_only(GCC_WERROR)
    assert cells.werror_only(CLANG_WERROR)
    assert not cells.werror_only(REAL_ERROR)
    assert not cells.werror_only(GCC_WERROR + REAL_ERROR)
    assert not cells.werror_only(GCC_WERROR + LINK_ERROR)
    assert not cells.werror_only("")


# --- CMake mode ---------------------------------------------------------------------------------


def test_the_toolchain_file_pins_the_envelope():
    envelope = manifest.parse(manifest.default_bytes(), "default").envelope("rel")
    text = cmake.toolchain_file(envelope)
    assert 'set(CMAKE_CXX_FLAGS_INIT "-O2 -DNDEBUG -Wall -Wextra -Werror")' in text
    assert 'set(CMAKE_CXX_FLAGS_${config} "" CACHE STRING "patchwitness matrix" FORCE)' in text


def test_ctest_junit_output_and_timeouts():
    junit = """<?xml version="1.0"?><testsuite>
      <testcase name="ok" time="0.01" status="run"><system-out>hello
</system-out></testcase>
      <testcase name="ub" time="0.2" status="fail"><failure message=""/>
        <system-out>a.cpp:3:26: runtime error: signed integer overflow: x</system-out></testcase>
    </testsuite>"""
    reports = cmake.parse_junit_output(junit)
    assert reports["ok"].output == "hello\n"
    assert sanitizers.parse(reports["ub"].output)[0]["kind"] == "signed integer overflow"
    listing = {"tests": [{"name": "slow", "properties": [{"name": "TIMEOUT", "value": 2}]}]}
    assert cmake.parse_timeouts(json.dumps(listing)) == {"slow": 2.0}


# --- the shell script ---------------------------------------------------------------------------


def test_shell_words_keep_placeholders_as_variables():
    assert commands.sh_word(f"-ffile-prefix-map={commands.TREE_MARK}=.") == (
        '-ffile-prefix-map="$TREE"=.'
    )
    assert commands.sh_word(f"{commands.OUT_MARK}/0.d") == '"$d"/0.d'
    assert commands.sh_word("it's") == "'it'\"'\"'s'"


# --- where the manifest comes from ------------------------------------------------------------


def _task(tmp_path: Path, toml: str, files: dict[str, str] | None = None):
    from patchwitness.demo import build
    from patchwitness.task import load_task

    sha = build.make_repo(tmp_path / "repo", files or {"README": "x\n"})
    task_dir = tmp_path / "task"
    build.write_task(
        task_dir,
        sha=sha,
        test_cmd="true",
        allow_test_edits=False,
        failing=[],
        toml=f'language = "cpp"\nrepo = "../repo"\n{toml}',
    )
    return load_task(task_dir)


def test_a_manifest_read_at_the_sha_is_hashed_and_grader_owned(tmp_path: Path):
    raw = json.dumps(SEED_MANIFEST)
    task = _task(
        tmp_path, '[matrix]\nmanifest = "repo:eval/matrix.json"\n', {"eval/matrix.json": raw}
    )
    plan = manifest.load(task)
    assert plan.source == "repo:eval/matrix.json"
    assert plan.sha256 == hashlib.sha256(raw.encode()).hexdigest()
    assert "eval/matrix.json" in task.grader_owned()


def test_a_missing_manifest_is_an_invalid_task(tmp_path: Path):
    task = _task(tmp_path, '[matrix]\nmanifest = "repo:eval/matrix.json"\n')
    with pytest.raises(InvalidTask, match="does not exist at the SHA"):
        manifest.load(task)
    task = _task(tmp_path / "other", '[matrix]\nmanifest = "matrix.json"\n')
    with pytest.raises(InvalidTask, match="not found"):
        manifest.load(task)


def test_without_a_manifest_the_default_is_hashed_too(tmp_path: Path):
    task = _task(tmp_path, "")
    plan = manifest.load(task)
    assert plan.mode == "cmake" and plan.source == "default"
    assert plan.sha256 == manifest.parse(manifest.default_bytes(), "default").sha256


def test_two_grades_missing_the_shas_cells_build_them_once(tmp_path, monkeypatch):
    """Workers of a bag grading one task both miss the matrix baseline at first: the second
    waits for the first's cells instead of building every envelope beside it."""
    import threading
    import time

    from patchwitness.matrix import collect
    from patchwitness.model import Cell

    built: list[int] = []

    def compute(task, plan, tools):
        built.append(1)
        time.sleep(0.3)
        return [Cell(patch="baseline", golden="t", envelope="dbg", status="pass")]

    monkeypatch.setattr(collect, "_compute_baseline", compute)
    monkeypatch.setattr(collect, "cells_key", lambda task, plan, runner: "key")
    tools = collect.Tools(compiles=cache.CompileCache(tmp_path))
    found: list[list] = []
    threads = [
        threading.Thread(target=lambda: found.append(collect.obtain_baseline(None, None, tools)))
        for _ in range(2)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(built) == 1
    assert [[c.status for c in cells] for cells in found] == [["pass"], ["pass"]]


@pytest.mark.parametrize(
    ("configure", "expected"),
    [
        ("cmake -S . -B b -DLIB_COMPILED=ON", "cmake -S . -B b -ULIB_COMPILED"),
        ("cmake -D LIB_COMPILED:BOOL=ON -B b", "cmake -ULIB_COMPILED -B b"),
        ('cmake "-DLIB_COMPILED=ON" -B b', "cmake -ULIB_COMPILED -B b"),
        ("cmake '-DLIB_COMPILED=ON' -B b", "cmake -ULIB_COMPILED -B b"),
        ('cmake -DLIB_COMPILED="ON" && ninja', "cmake -ULIB_COMPILED && ninja"),
        # another name that starts alike, the tests' switch and CMake's own stay as they are
        (
            "cmake -DLIB_COMPILED_X=ON -DLIB_TESTS=ON -DCMAKE_BUILD_TYPE=Debug",
            "cmake -DLIB_COMPILED_X=ON -DLIB_TESTS=ON -DCMAKE_BUILD_TYPE=Debug",
        ),
        # part of a longer word is no option
        ("cmake -XDLIB_COMPILED=ON", "cmake -XDLIB_COMPILED=ON"),
        ("cmake -DLIB_COMPILED=ON -DLIB_EXTRA=1", "cmake -ULIB_COMPILED -ULIB_EXTRA"),
    ],
)
def test_a_users_configure_takes_the_projects_options_at_their_defaults(configure, expected):
    assert cmake.with_defaults(configure, ["LIB_COMPILED", "LIB_EXTRA"]) == expected
