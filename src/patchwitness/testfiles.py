"""What a repository itself says about which of its files are tests, beyond their names: the
sources of its CMake test programs, and the data files its tests open.

A project whose test is a plain program (`add_executable(xmltest xmltest.cpp)` + `add_test`) has
no test macro the census can see and no test-like file name; only its build says that
`xmltest.cpp` is a test. And the golden files a test compares with are test data wherever they sit
(`resources/`, `data/`): the test's own string literals name them. Reads git and the tree; the
decisions are `census.cmake.test_sources` and `classify.named_by_tests`.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from patchwitness import sourcefiles
from patchwitness.census.cmake import project_options, test_sources
from patchwitness.workspace import files_at, safe_read, show_at

# Quoted strings of C++ and Python source, one line at a time (a path never spans lines).
_STRING = re.compile(r"\"((?:[^\"\\\n]|\\.){3,300})\"|'((?:[^'\\\n]|\\.){3,300})'")


def cmake_texts(repo: Path, sha: str) -> dict[str, str]:
    """Every CMake file at the SHA: repository path -> text."""
    texts: dict[str, str] = {}
    for path in files_at(repo, sha):
        name = path.rsplit("/", 1)[-1]
        if name == "CMakeLists.txt" or name.endswith(".cmake"):
            data = show_at(repo, sha, path)
            if data is not None:
                texts[path] = data.decode("utf-8", "replace")
    return texts


@functools.lru_cache(maxsize=32)
def cmake_test_sources(repo: Path, sha: str) -> frozenset[str]:
    """The sources that build only test programs, read from every CMake file at the SHA."""
    texts = cmake_texts(repo, sha)
    return frozenset(test_sources(texts)) if texts else frozenset()


@functools.lru_cache(maxsize=32)
def cmake_project_options(repo: Path, sha: str) -> frozenset[str]:
    """The project's own options at the SHA, test switches aside
    (`census.cmake.project_options`)."""
    return frozenset(project_options(cmake_texts(repo, sha)))


def string_literals(tree: Path, files: set[str]) -> dict[str, set[str]]:
    """The quoted strings of each test file that look like a path (a name with an extension), as
    written in the tree: test file -> strings."""
    out: dict[str, set[str]] = {}
    for path in sorted(files):
        data = safe_read(tree, path)
        if data is None or not (
            sourcefiles.suffix(path) in sourcefiles.PY or sourcefiles.is_cpp(path, data)
        ):
            continue
        found = {
            a or b
            for a, b in _STRING.findall(data.decode("utf-8", "replace"))
            if "." in (a or b).rsplit("/", 1)[-1]
        }
        if found:
            out[path] = found
    return out
