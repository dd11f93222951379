"""The census's prefilter: files without a word an item starts with are never lexed, and the
inventory is exactly the one a full lex gives (with ripgrep or without)."""

from __future__ import annotations

import shutil

import pytest

from patchwitness.census import prefilter, scan
from patchwitness.census.cpp import file_pattern
from patchwitness.census.scan import ScanOptions, scan_tree


@pytest.mark.parametrize(
    ("text", "holds"),
    [
        (b"int f() { return 1; }\n", False),
        (b"TEST(A, B) { EXPECT_EQ(1, 1); }\n", True),
        (b"#define NDEBUG\n", True),
        (b"static_assert(sizeof(int) == 4);\n", True),
        (b"// ASSERT_TRUE(x) in a comment still counts as a word\n", True),
        (b"GOLDEN_CHECKPOINT(x);\n", True),
        (b"void my_helper(int) {}\n", False),
    ],
)
def test_which_bytes_may_hold_items(text, holds):
    assert prefilter.may_hold_items(text) is holds


TREE = {
    "src/plain.cpp": "int add(int a, int b) { return a + b; }\n",
    "src/plain.h": "#pragma once\n#define ADD(a, b) ((a) + (b))\nint add(int, int);\n",
    "src/checks.h": "#pragma once\n#include <cassert>\ninline int f(int x) { assert(x > 0); "
    "return x; }\n",
    # a helper macro that asserts, used under its own name
    "tests/helpers.h": "#define CHECK_POSITIVE(x) EXPECT_GT(x, 0)\n",
    "tests/a_test.cpp": '#include "helpers.h"\nTEST(A, One) { CHECK_POSITIVE(1); }\n'
    "TEST(A, Two) {\n  /* EXPECT_EQ(1, 2); */\n  EXPECT_EQ(2, 2);\n}\n",
    "tests/ndebug.cpp": "#define NDEBUG\n#include <cassert>\n",
    "include/lib/span": "#pragma once\nnamespace lib { template <class T> class span {}; }\n",
    # words an item starts with, but no whole name the census counts: ripgrep passes it over
    "src/words.h": "#define CHECKSUM_LEN 4\n// the assertion above; FAILURE_MODE, TESTING\n",
    # a name after a non-ASCII letter: a candidate for ripgrep's ASCII word boundary, and the
    # lexer, not ripgrep, says it is no call
    "src/accent.h": "int \u00e9ASSERT_TRUE(int);\n",
}


def _tree(root, count):
    for rel, text in TREE.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    # enough files without a word for ripgrep to be worth a process
    for i in range(count):
        (root / "gen" / f"f{i}.cpp").parent.mkdir(parents=True, exist_ok=True)
        (root / "gen" / f"f{i}.cpp").write_text(f"int g{i}() {{ return {i}; }}\n")


def _full_lex(monkeypatch):
    monkeypatch.setattr(prefilter, "candidates", lambda *args: None)
    monkeypatch.setattr(prefilter, "may_hold_items", lambda data, prefix="": True)
    monkeypatch.setattr(scan.prefilter, "may_hold_items", lambda data, prefix="": True)


@pytest.mark.parametrize("ripgrep", [True, False])
def test_the_prefiltered_inventory_is_the_full_one(tmp_path, monkeypatch, ripgrep):
    if ripgrep and shutil.which("rg") is None:
        pytest.skip("ripgrep is not installed (make installs it)")
    _tree(tmp_path, prefilter.RG_THRESHOLD + 10)
    if not ripgrep:
        monkeypatch.setattr(prefilter, "ripgrep", lambda: None)
    fast = scan_tree(tmp_path, ScanOptions(jobs=1))
    with monkeypatch.context() as m:
        _full_lex(m)
        full = scan_tree(tmp_path, ScanOptions(jobs=1))
    assert fast.to_json() == full.to_json()
    kinds = {(i.file, i.kind) for i in fast.items}
    assert ("tests/a_test.cpp", "test") in kinds
    assert ("src/checks.h", "assert") in kinds
    assert ("tests/ndebug.cpp", "define") in kinds
    assert not any(i.file.startswith("gen/") for i in fast.items)


@pytest.mark.parametrize("chunk_bytes", [1 << 20, 64])  # one ripgrep command, or many
def test_ripgrep_names_the_candidates(tmp_path, monkeypatch, chunk_bytes):
    if shutil.which("rg") is None:
        pytest.skip("ripgrep is not installed (make installs it)")
    monkeypatch.setattr(prefilter, "_CHUNK_BYTES", chunk_bytes)
    _tree(tmp_path, prefilter.RG_THRESHOLD)
    rels = [p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()]
    found = prefilter.candidates(tmp_path, rels, file_pattern("GOLDEN_"))
    assert found == {
        "src/checks.h",
        "src/accent.h",
        "tests/helpers.h",
        "tests/a_test.cpp",
        "tests/ndebug.cpp",
    }


def test_an_unreadable_file_is_still_unreadable_when_not_lexed(tmp_path, monkeypatch):
    # A symlink out of the tree is unreadable to the census, lexed or not (chmod would not do:
    # CI runs as root, who reads any file).
    _tree(tmp_path, 0)
    outside = tmp_path.parent / f"{tmp_path.name}-outside.cpp"
    outside.write_text("int elsewhere;\n")
    (tmp_path / "src" / "escape.cpp").symlink_to(outside)
    monkeypatch.setattr(prefilter, "candidates", lambda *args: set())  # nothing is lexed
    inventory = scan_tree(tmp_path, ScanOptions(jobs=1))
    assert inventory.unreadable == ["src/escape.cpp"]
