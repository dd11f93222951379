"""Which files are source: by suffix, and C++ headers without one by their content. Pure."""

from __future__ import annotations

import pytest

from patchwitness import sourcefiles

HEADERS = {
    "guard": "// Copyright\n#ifndef LIB_SPAN\n#define LIB_SPAN\nint f();\n#endif\n",
    "pragma": "/* licence\n * text */\n\n#pragma once\nnamespace lib {}\n",
    "include-first": "#include <cstddef>\nnamespace gsl { template <class T> class span; }\n",
    "namespace-first": "namespace lib {\ntemplate <class T> T id(T x) { return x; }\n}\n",
    "if-defined": "#if defined(_MSC_VER)\n#pragma warning(push)\n#endif\n#include <x>\n",
}
NOT_CPP = {
    "readme": "Span\n====\n\n    #include <lib/span>\n",
    "shell": "#!/bin/sh\n# if you want\n#include <x>\necho hi\n",
    "config-comment": "# if you set this\n#include <x>\n",
    "makefile": "all:\n\tcc -o x x.c\n",
    "binary": "\0\0#pragma once\n",
    "empty": "",
    "prose-namespace": "Notes on the namespace lib { design }\n",
}


@pytest.mark.parametrize("text", HEADERS.values(), ids=HEADERS.keys())
def test_headers_without_a_suffix_are_cpp(text):
    assert sourcefiles.is_cpp("include/lib/span", text)
    assert sourcefiles.is_cpp("include/lib/span", text.encode())


@pytest.mark.parametrize("text", NOT_CPP.values(), ids=NOT_CPP.keys())
def test_other_files_without_a_suffix_are_not(text):
    assert not sourcefiles.is_cpp("docs/NOTES", text)


def test_a_suffix_decides_without_the_content():
    assert sourcefiles.is_cpp("src/x.cc")
    assert sourcefiles.is_cpp("src/X.HPP")
    assert not sourcefiles.is_cpp("src/x.py", "#include <x>\n")
    assert not sourcefiles.is_cpp("include/lib/span")  # no content given: unknown, not C++


def test_suffix():
    assert sourcefiles.suffix("a/b.tar.GZ") == ".gz"
    assert sourcefiles.suffix("a.d/span") == ""
