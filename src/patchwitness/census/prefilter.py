"""Which C++ files cannot hold a census item, found without lexing them.

Every item of the C++ census (cpp.py) starts with one of a few words: a test or assertion macro
(TEST, ASSERT_*, REQUIRE, CHECK, SECTION ...), `assert`, `static_assert`, the golden prefix, or
a switch such as NDEBUG; a helper macro that asserts holds one of them in its body. A file with
none of these words anywhere (comments and strings included) has no item, so it is never decoded
or lexed. Most of a large tree is such files (the system headers, production code).

The search is a superset by construction: it ignores comments, literals and dead branches, which
the lexer then handles for the files that remain. With ripgrep installed, a tree's files are
searched by it, on every core, at its speed, for the whole names the census counts (cpp.py's
`file_pattern`: `CHECKSUM` or `assertion` is no reason to lex a system header); without it each
file is searched by one compiled pattern of Python's re (literal words, no boundaries: a cheaper
and wider net).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

# The words an item can start with. Each also names its family: TEST covers TEST_F, TEST_CASE,
# TYPED_TEST's tail; CHECK covers CHECK_EQ; STATIC_ covers STATIC_REQUIRE.
WORDS = (
    "TEST",
    "ASSERT",
    "EXPECT",
    "REQUIRE",
    "CHECK",
    "SECTION",
    "SCENARIO",
    "GIVEN",
    "WHEN",
    "THEN",
    "SUBCASE",
    "FAIL",
    "STATIC_",
    "TEMPLATE_",
    "GTEST_",
    "CATCH_",
    "DOCTEST_",
    "ADD_FAILURE",
    "NDEBUG",
    "assert",
)
# ripgrep and a whole tree: worth a process from this many files on.
RG_THRESHOLD = 200
# Bytes of paths per ripgrep command line: well under the kernel's limit (2 MB on Linux, with
# the environment), and one command for most trees (7,817 paths of /usr/include are 0.3 MB).
_CHUNK_BYTES = 1 << 20


@lru_cache(maxsize=16)
def python_pattern(golden_prefix: str) -> re.Pattern[bytes]:
    words = [re.escape(w) for w in (*WORDS, golden_prefix) if w]
    return re.compile("|".join(words).encode())


def may_hold_items(data: bytes, golden_prefix: str = "GOLDEN_") -> bool:
    return python_pattern(golden_prefix).search(data) is not None


def ripgrep() -> str | None:
    return shutil.which("rg")


def candidates(root: Path, rels: Sequence[str], pattern: str) -> set[str] | None:
    """The files among `rels` (C++ files under `root`) in which ripgrep finds `pattern`; None
    when ripgrep is missing or fails, and the caller searches each file itself."""
    rg = ripgrep()
    if rg is None or len(rels) < RG_THRESHOLD:
        return None
    found: set[str] = set()
    for chunk in _chunks(rels):
        try:
            done = subprocess.run(
                # -a: binary-looking files are text too; no config, ignore files or hidden-file
                # rules: the census, not ripgrep, says which files count.
                [
                    rg,
                    "--no-config",
                    "-l",
                    "-a",
                    "--no-ignore",
                    "--hidden",
                    "-e",
                    pattern,
                    "--",
                    *chunk,
                ],
                cwd=root,
                capture_output=True,
                timeout=600,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return None
        if done.returncode not in (0, 1):  # 1: nothing matched
            return None
        found.update(line for line in done.stdout.decode("utf-8", "surrogateescape").splitlines())
    return found


def _chunks(rels: Sequence[str]) -> list[list[str]]:
    out: list[list[str]] = [[]]
    size = 0
    for rel in rels:
        nbytes = len(rel.encode("utf-8", "surrogateescape")) + 1
        if out[-1] and size + nbytes > _CHUNK_BYTES:
            out.append([])
            size = 0
        out[-1].append(rel)
        size += nbytes
    return out
