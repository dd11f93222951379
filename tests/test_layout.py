"""layout.py: a change of layout alone is the same program; anything it cannot see through is a
change. Row by row, both languages."""

from __future__ import annotations

import pytest

from patchwitness.layout import same_program

CPP = "int twice(int x)\n{\n    return x + x;\n}\n"
PY = "def twice(x):\n    return x + x\n"


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (CPP, "int twice(int x) { return x + x; }\n"),  # braces and lines moved
        (CPP, "int  twice( int x )\n{\n\treturn x+x;\n}\n"),  # spacing inside a line
        (CPP, "// doubles\nint twice(int x)\n{\n    return x + x; /* sum */\n}\n"),  # comments
        (CPP, "int twice(int x)\n{\n    return x \\\n+ x;\n}\n"),  # a line continuation
        ("#define N 3\nint n = N;\n", "#define N  3\nint n =\n    N;\n"),
        ("#define CAT(a, b) a##b\n", "#define CAT(a,b) a ## b\n"),  # pasting is no spelling
    ],
)
def test_cpp_layout_alone_is_the_same_program(before, after):
    assert same_program("src/a.cpp", before, after)


@pytest.mark.parametrize(
    ("before", "after", "why"),
    [
        (CPP, CPP.replace("x + x", "x + 1"), "a token changed"),
        (CPP, CPP.replace("x + x", "x ++x"), "maximal munch: + + is not ++"),
        ("#define N 3\nint n = N;\n", "#define N 3 int n = N;\n", "a directive's end moved"),
        ('const char* s = "a b";\n', 'const char* s = "a  b";\n', "a literal's spacing"),
        ('auto s = R"(a b)";\n', 'auto s = R"(a  b)";\n', "a raw string"),
        ("int l = __LINE__;\n", "\nint l = __LINE__;\n", "the line is read"),
        (
            "auto w = std::source_location::current();\n",
            "\nauto w = std::source_location::current();\n",
            "the line is read",
        ),
        ("int c = __builtin_COLUMN();\n", "int c =  __builtin_COLUMN();\n", "the column is read"),
        ("#define S(x) #x\nauto s = S(a+b);\n", "#define S(x) #x\nauto s = S(a + b);\n", "#x"),
        (CPP, None, "gone"),
        (None, CPP, "unread"),
    ],
)
def test_cpp_anything_else_is_a_change(before, after, why):
    assert not same_program("src/a.cpp", before, after), why


def test_a_header_without_a_suffix_is_read_by_its_content():
    header = "#pragma once\nnamespace gsl {\ninline int one() { return 1; }\n}\n"
    moved = "#pragma once\nnamespace gsl\n{\ninline int one()\n{\n    return 1;\n}\n}\n"
    assert same_program("include/gsl/one", header, moved)
    assert not same_program("docs/notes.txt", "a b\n", "a  b\n")  # no language read here


@pytest.mark.parametrize(
    "after",
    [
        "def twice(x):  # doubles\n    return x + x\n",
        "def twice(x):\n    return x + x   \n",
        "def twice(x):\n    return x + x  # the sum\n",
    ],
)
def test_python_comments_and_whitespace_that_move_nothing_are_the_same_program(after):
    assert same_program("pkg/a.py", PY, after)


@pytest.mark.parametrize(
    ("before", "after", "why"),
    [
        (PY, PY.replace("x + x", "x + 1"), "a constant"),
        (PY, 'def twice(x):\n    """Doubles."""\n    return x + x\n', "a docstring is a value"),
        (PY, "def twice(x):\n  return x + x\nreturn_ = 1\n", "a statement added"),
        (PY, "def twice(x):\nreturn x + x\n", "no longer parses"),
        # Any code may read its own positions (a frame's line, a traceback's column).
        (PY, "def twice(x):\n\n    return x + x\n", "a statement moved down a line"),
        (PY, "def twice(x):\n    return x+x\n", "an operand moved along its line"),
        (PY, "def twice(x):\n    return (x +\n            x)\n", "a line broken"),
    ],
)
def test_python_anything_else_is_a_change(before, after, why):
    assert not same_program("pkg/a.py", before, after), why
