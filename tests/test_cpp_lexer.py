"""The C++ lexer: what is blanked, what survives, and that offsets and lines never move."""

from __future__ import annotations

import random

import pytest

from patchwitness.census.cpp_lexer import (
    directives,
    literal_at,
    literal_content,
    match_close,
    normalize,
    pp_value,
    restore_literals,
    strip_cpp,
    tokens,
)


def strip(text: str, **kwargs: bool) -> str:
    """strip_cpp, checking the invariant every caller relies on: same length, same newlines."""
    out = strip_cpp(text, **kwargs)
    assert len(out) == len(text)
    assert [i for i, c in enumerate(out) if c == "\n"] == [
        i for i, c in enumerate(text) if c == "\n"
    ]
    return out


# -- comments -------------------------------------------------------------------------------


def test_line_comment_is_blanked_to_the_end_of_its_line() -> None:
    src = "int a; // ASSERT_EQ(a, b)\nint b;"
    assert strip(src) == "int a;" + " " * 19 + "\nint b;"


def test_block_comment_over_several_lines_keeps_its_newlines() -> None:
    src = "x = 1; /* ASSERT_TRUE(x);\n   EXPECT_EQ(1, 2); */ y = 2;"
    assert strip(src) == "x = 1;" + " " * 19 + "\n" + " " * 23 + "y = 2;"


def test_comment_markers_inside_a_comment_do_not_nest() -> None:
    src = "/* a /* b */ c; // d"
    assert strip(src) == "             c;     "


def test_line_comment_continued_by_a_backslash_swallows_the_next_line() -> None:
    src = "// hidden \\\nASSERT_EQ(1, 2);\nASSERT_EQ(3, 4);"
    assert strip(src) == "           \n                \nASSERT_EQ(3, 4);"


def test_unterminated_block_comment_runs_to_the_end() -> None:
    assert strip("a; /* b\nc;") == "a;     \n  "


# -- string literals --------------------------------------------------------------------------


def test_string_holding_an_assertion_becomes_an_empty_literal() -> None:
    src = 'const char* s = "ASSERT_EQ(a,b)";'
    assert strip(src) == 'const char* s = ""              ;'


def test_escaped_quotes_do_not_end_the_string() -> None:
    src = r'f("say \"ASSERT_TRUE(x)\" now"); ASSERT_TRUE(y);'
    assert strip(src) == 'f(""' + " " * 26 + "); ASSERT_TRUE(y);"


def test_comment_markers_inside_a_string_are_not_comments() -> None:
    src = 'url("http://x/*y*/"); ASSERT_TRUE(ok);'
    assert strip(src) == 'url(""' + " " * 13 + "); ASSERT_TRUE(ok);"


def test_string_continued_by_a_backslash_keeps_the_newline() -> None:
    src = 'f("abc\\\nASSERT_TRUE(1)"); g();'
    assert strip(src) == 'f(""   \n' + " " * 15 + "); g();"


def test_unterminated_string_stops_at_the_end_of_its_line() -> None:
    src = 'f("abc\nASSERT_TRUE(1);'
    assert strip(src) == 'f(""  \nASSERT_TRUE(1);'


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        ('s = u8"ASSERT(1)";', 's =   ""         ;'),
        ('s = u"x";', 's =  "" ;'),
        ('s = U"x";', 's =  "" ;'),
        ('s = L"x";', 's =  "" ;'),
        ("c = L'x';", "c =  '' ;"),
        ("c = u8'x';", "c =   '' ;"),
    ],
)
def test_encoding_prefixes_are_blanked_with_their_literal(src: str, expected: str) -> None:
    assert strip(src) == expected


def test_a_prefix_letter_at_the_end_of_an_identifier_is_not_a_prefix() -> None:
    # `xL` is an identifier; the string after it is an ordinary literal.
    assert strip('xL"a";') == 'xL"" ;'


# -- raw strings ------------------------------------------------------------------------------


def test_raw_string_with_delimiter_hides_asserts_and_a_bare_close_quote() -> None:
    src = 'auto r = R"x(ASSERT_EQ(1, 2); )" still raw\n EXPECT_TRUE(0))x"; ASSERT_TRUE(ok);'
    out = strip(src)
    # The R prefix is blanked too: the empty literal sits at the opening quote.
    assert out == 'auto r =  ""' + " " * 30 + "\n" + " " * 18 + "; ASSERT_TRUE(ok);"


def test_raw_string_without_delimiter_and_with_prefix() -> None:
    src = 'a = LR"(ASSERT_TRUE(1))"; b = u8R"(x)";'
    assert strip(src) == 'a =   ""                ; b =    ""   ;'


def test_identifier_ending_in_R_does_not_start_a_raw_string() -> None:
    # `BAR"(` is not a raw string: the literal is "(" and the code after it is live.
    src = 'BAR"(" ASSERT_TRUE(x); ")"'
    assert strip(src) == 'BAR""  ASSERT_TRUE(x); "" '


# -- character literals and digit separators --------------------------------------------------


def test_char_literals_quote_and_double_quote_do_not_open_strings() -> None:
    src = "char q = '\\''; char d = '\"'; ASSERT_TRUE(q != d);"
    assert strip(src) == "char q = ''  ; char d = '' ; ASSERT_TRUE(q != d);"


def test_digit_separators_are_not_char_literals() -> None:
    src = "int n = 1'000'000; ASSERT_EQ(n, 0x10'00); long b = 0b1010'1010;"
    assert strip(src) == src


def test_apostrophe_after_a_letter_is_not_a_char_literal() -> None:
    src = "#error don't do this\nASSERT_TRUE(ok);"
    assert strip(src) == src


# -- the preprocessor -----------------------------------------------------------------------


def test_if_0_blanks_its_body_and_nested_conditionals_and_keeps_else() -> None:
    src = (
        "#if 0\n"
        "ASSERT_EQ(1, 2);\n"
        "#ifdef FOO\n"
        "EXPECT_TRUE(x);\n"
        "#else\n"
        "EXPECT_TRUE(y);\n"
        "#endif\n"
        "#else\n"
        "ASSERT_EQ(3, 4);\n"
        "#endif\n"
        "ASSERT_EQ(5, 6);\n"
    )
    assert strip(src) == (
        "#if 0\n"
        "                \n"
        "          \n"
        "               \n"
        "     \n"
        "               \n"
        "      \n"
        "#else\n"
        "ASSERT_EQ(3, 4);\n"
        "#endif\n"
        "ASSERT_EQ(5, 6);\n"
    )


@pytest.mark.parametrize(
    "opening",
    ["#if false", "#if (0)", "#  if 0 // off", "#if 0 && defined(X)", "#if !1", "#if 0x0"],
)
def test_constant_false_conditions_are_dead(opening: str) -> None:
    src = f"{opening}\nASSERT_TRUE(x);\n#endif\n"
    assert strip(src).splitlines()[1] == " " * len("ASSERT_TRUE(x);")


@pytest.mark.parametrize("opening", ["#if FOO", "#ifdef FOO", "#ifndef FOO", "#if 0 || FOO"])
def test_conditions_that_are_not_constant_are_live(opening: str) -> None:
    src = f"{opening}\nASSERT_TRUE(x);\n#endif\n"
    assert strip(src).splitlines()[1] == "ASSERT_TRUE(x);"


def test_else_of_if_1_and_elif_after_a_taken_branch_are_dead() -> None:
    src = "#if 1\nA(1);\n#elif X\nB(2);\n#else\nC(3);\n#endif\n"
    # The dead stretch runs from `#elif X` to `#endif`; the `#else` inside it is blanked too.
    assert strip(src) == "#if 1\nA(1);\n#elif X\n     \n     \n     \n#endif\n"


def test_elif_0_is_dead_and_the_next_branch_is_live() -> None:
    src = "#if X\nA(1);\n#elif 0\nB(2);\n#else\nC(3);\n#endif\n"
    assert strip(src) == "#if X\nA(1);\n#elif 0\n     \n#else\nC(3);\n#endif\n"


def test_if_0_inside_a_comment_is_not_a_directive() -> None:
    src = "/*\n#if 0\n*/\nASSERT_TRUE(x);\n// #endif\n"
    assert strip(src).splitlines()[3] == "ASSERT_TRUE(x);"


def test_if_0_condition_continued_on_the_next_line() -> None:
    src = "#if 0 \\\n  && FOO\nASSERT_TRUE(x);\n#endif\n"
    assert strip(src).splitlines()[2] == " " * 15


def test_unterminated_if_0_blanks_to_the_end() -> None:
    assert strip("#if 0\nA(1);\n") == "#if 0\n     \n"


def test_directives_reports_logical_lines_and_skips_pasting() -> None:
    src = "#define M(a) \\\n  a ## b # a\n  #  include <x>\nint y; # not\n"
    found = [(d.name, d.start, d.end) for d in directives(src)]
    assert found == [("define", 0, 27), ("include", 30, 44)]


# -- if (false) -----------------------------------------------------------------------------


def test_if_false_block_is_blanked_with_balanced_braces() -> None:
    src = "if (false) { if (x) { ASSERT_TRUE(a); } ASSERT_TRUE(b); } ASSERT_TRUE(c);"
    assert strip(src) == "if (false) {" + " " * 44 + "} ASSERT_TRUE(c);"


@pytest.mark.parametrize("cond", ["0", "false", "(false)", "!true", "false && ready()"])
def test_if_constant_false_variants(cond: str) -> None:
    src = f"if ({cond}) {{\n  ASSERT_TRUE(a);\n}}\nASSERT_TRUE(b);"
    assert strip(src).splitlines()[1:] == [" " * 17, "}", "ASSERT_TRUE(b);"]


def test_if_false_without_braces_blanks_one_statement() -> None:
    src = "if (0) ASSERT_TRUE(f(a, b));\nASSERT_TRUE(c);"
    assert strip(src) == "if (0)                     ;\nASSERT_TRUE(c);"


def test_if_constexpr_false() -> None:
    src = "if constexpr (false) { ASSERT_TRUE(a); }"
    assert strip(src) == "if constexpr (false) {                 }"


def test_else_of_if_true_is_blanked() -> None:
    src = "if (true) { A(); } else { ASSERT_TRUE(a); }"
    assert strip(src) == "if (true) { A(); } else {                 }"


def test_live_conditions_and_identifiers_ending_in_if_are_untouched() -> None:
    src = "if (flag) { ASSERT_TRUE(a); } elif(0) { B(); } if (0 < n) { C(); }"
    assert strip(src) == src


def test_if_false_inside_a_macro_definition_is_left_alone() -> None:
    src = "#define SKIP_IT if (0) {\nASSERT_TRUE(a);\n}\n"
    assert strip(src) == src


def test_dead_if_can_be_turned_off() -> None:
    src = "if (false) { ASSERT_TRUE(a); }"
    assert strip(src, dead_if=False) == src


# -- tokens and normalization ---------------------------------------------------------------


def test_tokens_keep_literals_and_numbers_whole_and_drop_comments() -> None:
    src = 'ASSERT_EQ( f(1\'000, "a b"),/* c */x->y ) // end\n'
    assert tokens(src) == [
        "ASSERT_EQ",
        "(",
        "f",
        "(",
        "1'000",
        ",",
        '"a b"',
        ")",
        ",",
        "x",
        "->",
        "y",
        ")",
    ]


def test_tokens_of_raw_strings_operators_and_continuations() -> None:
    src = 'a <= R"d(x )" y)d" && b::c \\\n != 1.5e-3'
    assert tokens(src) == ["a", "<=", 'R"d(x )" y)d"', "&&", "b", "::", "c", "!=", "1.5e-3"]


def test_normalize_ignores_layout_but_not_content() -> None:
    assert normalize("f( a,\n   b )") == normalize("f(a, b) /* note */") == "f ( a , b )"
    assert normalize('f("a")') != normalize('f("b")')


# -- helpers ----------------------------------------------------------------------------------


def test_restore_literals_puts_back_every_literal() -> None:
    src = 'f(u8"a b", R"x(q)" )x", L\'c\', 1\'000, "", "e\\"f") // g'
    out = strip(src)
    assert restore_literals(src, out, 0, len(src)) == src[: src.index(" //")] + " " * 5


def test_literal_at_and_literal_content() -> None:
    src = 'a = "x y"; b = R"d(raw)d"; c = u8"q";'
    out = strip(src)
    quotes = [i for i in range(len(out) - 1) if out[i : i + 2] == '""']
    assert [literal_at(src, q) for q in quotes] == ['"x y"', 'R"d(raw)d"', 'u8"q"']
    assert [literal_content(literal_at(src, q)) for q in quotes] == ["x y", "raw", "q"]


def test_match_close_counts_nesting_and_reports_unbalanced() -> None:
    text = "ASSERT_EQ(f(g(1), 2), h(3)) {a{b}c}"
    assert match_close(text, 9) == 26
    assert match_close(text, 28) == 34
    assert match_close("f(a, (b)", 1) is None


@pytest.mark.parametrize(
    ("cond", "value"),
    [
        ("0", False),
        ("1", True),
        ("false", False),
        ("true", True),
        ("(0)", False),
        ("!0", True),
        ("0 && defined(X)", False),
        ("defined(X) || 1", True),
        ("X", None),
        ("0 || X", None),
        ("1 + 1", None),
        ("(1) + 2", None),
        ("0x0", False),
        ("0x10UL", True),
        ("1'000", True),
        ("", None),
    ],
)
def test_pp_value(cond: str, value: bool | None) -> None:
    assert pp_value(cond) is value


def test_offsets_and_newlines_survive_any_input() -> None:
    # Deterministic fuzz over the lexer's hard cases: whatever the text, every character is kept
    # or replaced by a space or a quote, and newlines never move.
    pieces = ['"', "'", "/", "*", "\\", "\n", "\r\n", "R", "u8", "L", "(", ")", "{", "}", "#",
              "#if 0\n", "#else\n", "#endif\n", "#define ", 'R"d(', ')d"', "if (false) ", "if (0)",
              "ASSERT_EQ(", "x", "1", ",", ";", " "]  # fmt: skip
    rng = random.Random(20240501)
    for _ in range(3000):
        src = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 40)))
        out = strip(src)
        assert all(o == c or o in " \"'" for c, o in zip(src, out, strict=True)), repr(src)


@pytest.mark.parametrize(
    ("text", "read"),
    [
        # a spliced line joined on its first line; its lines and length kept
        ('int a = get\\\nenv("V");\nint b;\n', 'int a = getenv("V"); \n\nint b;\n'),
        # the same in a file of CRLF lines (tinyxml2's)
        ('int a = get\\\r\nenv("V");\r\n', 'int a = getenv("V");  \n\r\n'),
        # digraphs and the alternative tokens as their punctuators
        ("%:ifdef T\nx = y <: 0 :>;\n%:endif\n", "# ifdef T\nx = y [  0 ] ;\n# endif\n"),
        ("if (a and not b) {}\n", "if (a &&  !   b) {}\n"),
        # `<::` is `<` then `::`
        ("std::vector<::Foo> v;\n", "std::vector<::Foo> v;\n"),
        # a raw string's `//` is no comment; a comment is blanked
        ('auto s = R"x(a // b)x"; f(); // note\n', 'auto s = R"x(a // b)x"; f();        \n'),
        # the pragma operator is the pragma
        ('_Pragma("weak g") int f();\n', "#pragma weak g    int f();\n"),
        # literals keep their text
        ('puts("a and b %> c");\n', 'puts("a and b %> c");\n'),
    ],
)
def test_the_text_as_the_compiler_reads_it(text, read):
    from patchwitness.census.cpp_lexer import as_read

    assert as_read(text) == read
    assert len(as_read(text)) == len(text) and as_read(text).count("\n") == text.count("\n")
