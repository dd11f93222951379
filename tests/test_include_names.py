"""include_names.py: the path components an include spells, and which appearing or vanishing
files an include spelling them could resolve to. Row by row."""

from __future__ import annotations

import pytest

from patchwitness.include_names import could_be_found, spelled


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("#include <gsl/narrow>\n", {"gsl", "narrow"}),
        ('#include "detail/x.hpp"\n', {"detail", "x.hpp"}),
        ("  #  include_next <gtest/gtest.h>\n", {"gtest", "gtest.h"}),
        ("#import <objc.h>\n", {"objc.h"}),
        ("#if __has_include(<optional>)\n#endif\n", {"optional"}),
        ('#if __has_include_next("cfg.h")\n#endif\n', {"cfg.h"}),
        ("%:include <digraph.h>\n", {"digraph.h"}),  # a digraph is the same directive
        ("#include \\\n<spliced.h>\n", {"spliced.h"}),  # a line continuation
        ("// #include <commented.h>\n/* #include <also.h> */\nint x;\n", set()),
        ("int main() { return 0; }\n", set()),
        ('#include "../up/one.h"\n', {"..", "up", "one.h"}),
        ('import <vector>;\nexport import "unit.h";\n', {"vector", "unit.h"}),  # header units
    ],
)
def test_what_an_include_spells(text, names):
    assert spelled(text) == names


@pytest.mark.parametrize(
    "text",
    [
        "#include HEADER\n",
        "#define PICK(x) __has_include(x)\n",
        "#include\n",
        "#include <unclosed\n",
    ],
)
def test_an_include_spelled_by_a_macro_could_be_any_name(text):
    assert spelled(text) is None


@pytest.mark.parametrize(
    ("names", "path", "found"),
    [
        ({"gsl", "narrow"}, "include/gsl/narrow", True),
        ({"gsl", "narrow"}, "overrides/narrow", True),  # earlier on some include path
        ({"gtest", "gtest.h"}, "include/gtest", True),  # a directory, or a symlink to one
        ({"gsl", "narrow"}, "docs/notes.md", False),
        ({"gsl", "narrow"}, "tests/data/input.txt", False),
        (None, "docs/notes.md", True),  # unknown: every file counts
    ],
)
def test_which_files_an_include_could_find(names, path, found):
    assert could_be_found(names, path) is found
