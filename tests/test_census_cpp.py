"""The C++ census: which witnesses one file holds, under which keys, at which lines."""

from __future__ import annotations

from collections import Counter

import pytest

from patchwitness.census.cpp import inventory_cpp
from patchwitness.census.cpp_lexer import normalize
from patchwitness.census.items import Item, fingerprint


def inv(src: str, golden_prefix: str = "GOLDEN_") -> list[Item]:
    return inventory_cpp(src, "t/a_test.cc", golden_prefix)


def keyed(src: str, **kwargs: str) -> list[tuple[int, str]]:
    """(line, key) of every item, in order."""
    return [(item.line, item.key) for item in inv(src, **kwargs)]


def asserts(src: str) -> list[tuple[int, str, str, str]]:
    """(line, scope, name, text) of the assertions."""
    return [(i.line, i.scope, i.name, i.text) for i in inv(src) if i.kind == "assert"]


def fp(args: str) -> str:
    return fingerprint(normalize(args))


# -- tests and scopes -------------------------------------------------------------------------


def test_gtest_tests_and_their_assertions() -> None:
    src = (
        "TEST(Retry, HonorsDeadline) {\n"
        "  ASSERT_EQ(deadline, k);\n"
        "}\n"
        "TEST_F(RetryFixture, Backoff) {\n"
        "  EXPECT_THAT(delays, ElementsAre(1, 2));\n"
        "}\n"
    )
    assert keyed(src) == [
        (1, f"test|t/a_test.cc|Retry.HonorsDeadline|TEST|{fp('Retry , HonorsDeadline')}"),
        (2, f"assert|t/a_test.cc|Retry.HonorsDeadline|ASSERT_EQ|{fp('deadline, k')}"),
        (4, f"test|t/a_test.cc|RetryFixture.Backoff|TEST_F|{fp('RetryFixture , Backoff')}"),
        (
            5,
            "assert|t/a_test.cc|RetryFixture.Backoff|EXPECT_THAT|"
            + fp("delays, ElementsAre(1, 2)"),
        ),
    ]


def test_every_gtest_test_macro_is_a_test() -> None:
    src = "".join(
        f"{macro}(S, C{n}) {{ EXPECT_TRUE(x); }}\n"
        for n, macro in enumerate(["TEST", "TEST_F", "TEST_P", "TYPED_TEST", "TYPED_TEST_P"])
    )
    tests = [(i.name, i.scope) for i in inv(src) if i.kind == "test"]
    assert tests == [
        ("TEST", "S.C0"),
        ("TEST_F", "S.C1"),
        ("TEST_P", "S.C2"),
        ("TYPED_TEST", "S.C3"),
        ("TYPED_TEST_P", "S.C4"),
    ]
    assert [i.scope for i in inv(src) if i.kind == "assert"] == [
        "S.C0",
        "S.C1",
        "S.C2",
        "S.C3",
        "S.C4",
    ]


def test_friend_test_instantiations_and_declarations_are_not_tests() -> None:
    src = (
        "class A { FRIEND_TEST(A, B); };\n"
        "INSTANTIATE_TEST_SUITE_P(Ints, ParamTest, Values(1, 2));\n"
        "TYPED_TEST_SUITE(Typed, Types);\n"
        "REGISTER_TYPED_TEST_SUITE_P(Typed, C1);\n"
        "TEST(NoBody, Declared);\n"
    )
    assert inv(src) == []


def test_catch2_test_case_and_nested_sections_scope_their_assertions() -> None:
    src = (
        'TEST_CASE("vectors can be sized", "[vector]") {\n'
        "  std::vector<int> v(5);\n"
        "  REQUIRE(v.size() == 5);\n"
        '  SECTION("resizing bigger") {\n'
        "    v.resize(10);\n"
        "    REQUIRE(v.size() == 10);\n"
        '    SECTION("and smaller") {\n'
        "      CHECK_FALSE(v.empty());\n"
        "    }\n"
        "  }\n"
        "  CHECK(v.capacity() >= 5);\n"
        "}\n"
    )
    name = "vectors can be sized"
    assert [(i.line, i.kind, i.scope, i.name) for i in inv(src)] == [
        (1, "test", name, "TEST_CASE"),
        (3, "assert", name, "REQUIRE"),
        (4, "case", f"{name}/resizing bigger", "SECTION"),
        (6, "assert", f"{name}/resizing bigger", "REQUIRE"),
        (7, "case", f"{name}/resizing bigger/and smaller", "SECTION"),
        (8, "assert", f"{name}/resizing bigger/and smaller", "CHECK_FALSE"),
        (11, "assert", name, "CHECK"),
    ]
    test = inv(src)[0]
    assert test.fp == fingerprint(f'"{name}"')  # the tags are not part of the identity
    assert test.text == '"vectors can be sized", "[vector]"'


def test_catch2_fixture_bdd_and_doctest_forms() -> None:
    src = (
        'TEST_CASE_METHOD(Fixture, "uses fixture", "[f]") { REQUIRE(x == 1); }\n'
        'SCENARIO("baskets") {\n'
        '  GIVEN("a basket") {\n'
        '    WHEN("emptied") { THEN("it is empty") { REQUIRE(b.empty()); } }\n'
        "  }\n"
        "}\n"
        'TEST_CASE_FIXTURE(F, "doc fixture") { CHECK_EQ(a, 1); SUBCASE("sub") { CHECK(b); } }\n'
    )
    assert [(i.kind, i.scope, i.name) for i in inv(src)] == [
        ("test", "uses fixture", "TEST_CASE_METHOD"),
        ("assert", "uses fixture", "REQUIRE"),
        ("test", "baskets", "SCENARIO"),
        ("case", "baskets/a basket", "GIVEN"),
        ("case", "baskets/a basket/emptied", "WHEN"),
        ("case", "baskets/a basket/emptied/it is empty", "THEN"),
        ("assert", "baskets/a basket/emptied/it is empty", "REQUIRE"),
        ("test", "doc fixture", "TEST_CASE_FIXTURE"),
        ("assert", "doc fixture", "CHECK_EQ"),
        ("case", "doc fixture/sub", "SUBCASE"),
        ("assert", "doc fixture/sub", "CHECK"),
    ]
    assert inv(src)[0].fp == fingerprint('Fixture , "uses fixture"')


def test_test_name_is_read_from_the_original_literal() -> None:
    src = 'TEST_CASE("a, (tricky) \\"name\\"" "joined", "[x]") { CHECK(1); }\n'
    assert inv(src)[0].scope == 'a, (tricky) \\"name\\"joined'


def test_section_outside_a_test_is_not_a_case() -> None:
    src = 'void helper() { SECTION("x") { CHECK(a); } }\n'
    assert [(i.kind, i.scope) for i in inv(src)] == [("assert", "")]


def test_asserts_outside_tests_have_an_empty_scope() -> None:
    src = (
        'static_assert(sizeof(int) == 4, "int");\n'
        "void check(int x) {\n"
        "  assert(x > 0);\n"
        "  EXPECT_GT(x, 0);\n"
        "}\n"
        "TEST(A, B) { check(1); }\n"
    )
    assert asserts(src) == [
        (1, "", "static_assert", 'sizeof(int) == 4, "int"'),
        (3, "", "assert", "x > 0"),
        (4, "", "EXPECT_GT", "x, 0"),
    ]


# -- arguments --------------------------------------------------------------------------------


def test_nested_parentheses_in_arguments_are_balanced() -> None:
    src = "TEST(A, B) { ASSERT_EQ(f(g(1), 2), h(3)); }"
    (item,) = [i for i in inv(src) if i.kind == "assert"]
    assert item.text == "f(g(1), 2), h(3)"
    assert item.fp == fingerprint("f ( g ( 1 ) , 2 ) , h ( 3 )")


def test_semicolons_inside_arguments_do_not_end_them() -> None:
    src = "TEST(A, B) {\n  EXPECT_NO_THROW({ run(); stop(); });\n}\n"
    assert asserts(src) == [(2, "A.B", "EXPECT_NO_THROW", "{ run(); stop(); }")]


def test_multi_line_invocation_is_one_assert_at_the_macro_line() -> None:
    src = (
        "TEST(A, B) {\n"
        "  int a = 1;\n"
        "  ASSERT_EQ(\n"
        "      a,\n"
        "      compute(1,\n"
        "              2));\n"
        "}\n"
    )
    assert asserts(src) == [(3, "A.B", "ASSERT_EQ", "a, compute(1, 2)")]


def test_fingerprint_ignores_layout_and_comments_but_not_literals() -> None:
    one = inv('TEST(A, B) { ASSERT_EQ(name, "alice"); }')[1]
    two = inv('TEST(A, B) {\n  ASSERT_EQ( name,  // who\n   "alice" );\n}')[1]
    other = inv('TEST(A, B) { ASSERT_EQ(name, "bob"); }')[1]
    assert one.key == two.key
    assert one.key != other.key
    assert one.fp == fp('name, "alice"')


def test_weakening_changes_the_name_or_the_fingerprint() -> None:
    before = inv("TEST(A, B) { ASSERT_EQ(price, 19.99); }")[1]
    truthy = inv("TEST(A, B) { ASSERT_TRUE(price); }")[1]
    assert before.key != truthy.key


@pytest.mark.parametrize(
    "assertion",
    [
        "ASSERT_TRUE(true)",
        "EXPECT_TRUE(1)",
        "ASSERT_FALSE(false)",
        "REQUIRE(true)",
        "CHECK( true )",
        "assert(1)",
        'static_assert(true, "x")',
        "ASSERT_EQ(x, x)",
        "EXPECT_EQ(f(1),  f(1))",
    ],
)
def test_tautologies_witness_nothing(assertion: str) -> None:
    assert [i.kind for i in inv(f"TEST(A, B) {{ {assertion}; }}")] == ["test"]


@pytest.mark.parametrize(
    "assertion", ["ASSERT_TRUE(ok)", "ASSERT_FALSE(true)", "ASSERT_EQ(x, y)", "assert(n)"]
)
def test_assertions_that_can_fail_count(assertion: str) -> None:
    assert [i.kind for i in inv(f"TEST(A, B) {{ {assertion}; }}")] == ["test", "assert"]


def test_long_argument_text_is_clipped() -> None:
    src = "TEST(A, B) { ASSERT_TRUE(" + " && ".join(f"x{n}" for n in range(100)) + "); }"
    text = inv(src)[1].text
    assert len(text) == 200
    assert text.endswith("...")


# -- multiset -----------------------------------------------------------------------------------


def test_duplicate_asserts_are_two_items_with_one_key() -> None:
    src = "TEST(A, B) {\n  ASSERT_TRUE(ok);\n  ASSERT_TRUE(ok);\n}\n"
    key = f"assert|t/a_test.cc|A.B|ASSERT_TRUE|{fp('ok')}"
    assert Counter(i.key for i in inv(src) if i.kind == "assert") == Counter({key: 2})
    assert [i.line for i in inv(src) if i.kind == "assert"] == [2, 3]


def test_line_numbers_are_not_part_of_the_key() -> None:
    src = "TEST(A, B) {\n  ASSERT_TRUE(ok);\n}\n"
    moved = "// a new comment\n\nTEST(A, B) {\n\n  ASSERT_TRUE(ok);\n}\n"
    assert [i.key for i in inv(src)] == [i.key for i in inv(moved)]
    assert [i.line for i in inv(moved)] == [3, 5]


# -- what is not an assertion -------------------------------------------------------------------


def test_asserts_in_comments_strings_and_dead_code_are_not_counted() -> None:
    src = (
        "TEST(A, B) {\n"
        "  // ASSERT_EQ(1, 2);\n"
        "  /* EXPECT_TRUE(x);\n"
        "     REQUIRE(y); */\n"
        '  const char* s = "ASSERT_EQ(a,b)";\n'
        '  auto r = R"x(CHECK(z); )" )x";\n'
        "#if 0\n"
        "  ASSERT_TRUE(dead);\n"
        "#endif\n"
        "  if (false) { ASSERT_TRUE(never); }\n"
        "  if (0) EXPECT_TRUE(never);\n"
        "  ASSERT_TRUE(live);\n"
        "}\n"
    )
    assert asserts(src) == [(12, "A.B", "ASSERT_TRUE", "live")]


def test_if_0_else_branch_is_counted() -> None:
    src = "TEST(A, B) {\n#if 0\n  ASSERT_TRUE(a);\n#else\n  ASSERT_TRUE(b);\n#endif\n}\n"
    assert asserts(src) == [(5, "A.B", "ASSERT_TRUE", "b")]


def test_identifiers_containing_macro_names_and_names_without_call_are_not_asserts() -> None:
    src = (
        "TEST(A, B) {\n"
        "  MY_ASSERT_EQ(1, 2);\n"
        "  my_assert(x);\n"
        "  obj.assert(x);\n"
        "  ptr->assert(x);\n"
        "  ns::assert(x);\n"
        "  XASSERT_TRUE(y);\n"
        "  auto f = ASSERT_EQ;\n"
        "  int CHECKSUM(int);\n"
        "  CHECKED_IF(a) {}\n"
        "  TEST_CASE_X(y);\n"
        "  ASSERT_TRUE (spaced);\n"
        "}\n"
    )
    assert asserts(src) == [(12, "A.B", "ASSERT_TRUE", "spaced")]


def test_every_assertion_family_is_counted() -> None:
    names = [
        "ASSERT_EQ",
        "ASSERT_DEATH",
        "EXPECT_NO_THROW",
        "EXPECT_CALL",
        "GTEST_ASSERT_EQ",
        "REQUIRE",
        "REQUIRE_FALSE",
        "REQUIRE_THROWS_AS",
        "CHECK_THAT",
        "STATIC_REQUIRE",
        "CATCH_REQUIRE",
        "DOCTEST_CHECK_EQ",
        "FAIL",
        "ADD_FAILURE",
        "static_assert",
        "assert",
    ]
    src = "TEST(A, B) {\n" + "".join(f"  {name}(x);\n" for name in names) + "}\n"
    assert [i.name for i in inv(src) if i.kind == "assert"] == names


# -- golden prefix ----------------------------------------------------------------------------


def test_golden_prefix_calls_are_assertions() -> None:
    src = 'TEST(G, Out) {\n  GOLDEN_MATCH("out.txt", run());\n  NOT_GOLDEN_X(1);\n}\n'
    assert asserts(src) == [(2, "G.Out", "GOLDEN_MATCH", '"out.txt", run()')]


def test_golden_prefix_is_configurable() -> None:
    src = "TEST(G, Out) { PW_GOLD(a); GOLDEN_MATCH(b); }"
    names = [i.name for i in inv(src, golden_prefix="PW_") if i.kind == "assert"]
    assert names == ["PW_GOLD"]


# -- skips ------------------------------------------------------------------------------------


def test_disabled_prefix_on_suite_or_case_is_a_skip() -> None:
    src = "TEST(Suite, DISABLED_Case) {}\nTEST_F(DISABLED_Suite, Case) {}\nTEST(S, C) {}\n"
    skips = [(i.line, i.key) for i in inv(src) if i.kind == "skip"]
    assert skips == [
        (
            1,
            "skip|t/a_test.cc|Suite.DISABLED_Case|DISABLED_|"
            + fingerprint("DISABLED_ Suite.DISABLED_Case"),
        ),
        (
            2,
            "skip|t/a_test.cc|DISABLED_Suite.Case|DISABLED_|"
            + fingerprint("DISABLED_ DISABLED_Suite.Case"),
        ),
    ]


def test_gtest_skip_is_a_skip_in_its_test() -> None:
    src = 'TEST(A, B) {\n  GTEST_SKIP() << "later";\n  ASSERT_TRUE(x);\n}\n'
    assert [(i.line, i.kind, i.scope, i.name) for i in inv(src)] == [
        (1, "test", "A.B", "TEST"),
        (2, "skip", "A.B", "GTEST_SKIP"),
        (3, "assert", "A.B", "ASSERT_TRUE"),
    ]


def test_catch2_hiding_tags_are_skips() -> None:
    src = (
        'TEST_CASE("a", "[.]") {}\n'
        'TEST_CASE("b", "[fast][.integration]") {}\n'
        'TEST_CASE("c", "[!mayfail][!shouldfail]") {}\n'
        'TEST_CASE("d", "[!HIDE][!benchmark]") {}\n'
        'TEST_CASE("e", "[fast][!throws]") {}\n'
        'TEST_CASE("./f") {}\n'
    )
    skips = [(i.line, i.scope, i.name) for i in inv(src) if i.kind == "skip"]
    assert skips == [
        (1, "a", "[.]"),
        (2, "b", "[.integration]"),
        (3, "c", "[!mayfail]"),
        (3, "c", "[!shouldfail]"),
        (4, "d", "[!HIDE]"),
        (4, "d", "[!benchmark]"),
        (6, "./f", "./"),
    ]


def test_adding_a_hiding_tag_keeps_the_test_key_and_adds_a_skip() -> None:
    before = inv('TEST_CASE("t", "[fast]") { CHECK(x); }')
    after = inv('TEST_CASE("t", "[fast][.]") { CHECK(x); }')
    renamed = inv('TEST_CASE("t", "[slow][.]") { CHECK(x); }')
    assert before[0].key == after[0].key
    assert [i.key for i in after if i.kind == "skip"] == [
        f"skip|t/a_test.cc|t|[.]|{fingerprint('[.] [.]')}"
    ]
    assert [i.key for i in renamed] == [i.key for i in after]


def test_doctest_skip_decorators() -> None:
    src = (
        'TEST_CASE("a" * doctest::skip()) { CHECK(x); }\n'
        'TEST_CASE("b" * doctest::may_fail() * doctest::timeout(1)) {}\n'
        'TEST_CASE("c" * doctest::skip(false)) {}\n'
        'TEST_SUITE("s" * doctest::should_fail()) {}\n'
    )
    assert [(i.line, i.kind, i.scope, i.name) for i in inv(src)] == [
        (1, "test", "a", "TEST_CASE"),
        (1, "skip", "a", "doctest::skip"),
        (1, "assert", "a", "CHECK"),
        (2, "test", "b", "TEST_CASE"),
        (2, "skip", "b", "doctest::may_fail"),
        (3, "test", "c", "TEST_CASE"),
        (4, "skip", "s", "doctest::should_fail"),
    ]
    assert inv(src)[0].fp == inv('TEST_CASE("a") {}')[0].fp  # decorators are not the identity


# -- macro definitions --------------------------------------------------------------------------


def test_redefining_and_undefining_an_assertion_macro_are_define_items() -> None:
    src = (
        "#define ASSERT_EQ(a, b) \\\n"
        "    ASSERT_TRUE(true)\n"
        "#undef EXPECT_TRUE\n"
        "#define NDEBUG\n"
        "#define TEST_F(a, b) void a##b()\n"
        "#define WIDGET_SIZE 4\n"
        "TEST(A, B) { ASSERT_EQ(x, 1); }\n"
    )
    assert [(i.line, i.kind, i.scope, i.name, i.text) for i in inv(src)] == [
        (1, "define", "", "#define ASSERT_EQ", "#define ASSERT_EQ(a, b) ASSERT_TRUE(true)"),
        (3, "define", "", "#undef EXPECT_TRUE", "#undef EXPECT_TRUE"),
        (4, "define", "", "#define NDEBUG", "#define NDEBUG"),
        (5, "define", "", "#define TEST_F", "#define TEST_F(a, b) void a##b()"),
        (7, "test", "A.B", "TEST", "A, B"),
        (7, "assert", "A.B", "ASSERT_EQ", "x, 1"),
    ]


def test_a_directive_spelled_with_a_digraph_is_the_directive() -> None:
    """Red team round 12: `%:` is `#` to the compiler, so to the census."""
    src = "%:define ASSERT_EQ(a, b) ASSERT_TRUE(true)\nTEST(A, B) <% ASSERT_EQ(x, 1); %>\n"
    assert [(i.line, i.kind, i.scope, i.name) for i in inv(src)] == [
        (1, "define", "", "#define ASSERT_EQ"),
        (2, "test", "A.B", "TEST"),
        (2, "assert", "A.B", "ASSERT_EQ"),
    ]


def test_asserts_inside_a_define_body_belong_to_the_definition() -> None:
    src = (
        "TEST(A, B) {\n"
        "#define CHECK_POINT(p) \\\n"
        "    EXPECT_EQ((p).x, 1); \\\n"
        "    EXPECT_EQ((p).y, 2)\n"
        "  CHECK_POINT(origin);\n"
        "}\n"
    )
    assert [(i.line, i.kind, i.scope, i.name) for i in inv(src)] == [
        (1, "test", "A.B", "TEST"),
        (2, "define", "A.B", "#define CHECK_POINT"),
        (5, "assert", "A.B", "CHECK_POINT"),
    ]


def test_helper_macros_by_any_name_count_their_uses() -> None:
    src = (
        "#define VERIFY_OK(s) ASSERT_TRUE((s).ok())\n"
        "#define VERIFY_ALL(a, b) VERIFY_OK(a); VERIFY_OK(b)\n"
        "#define PLAIN(x) (x + 1)\n"
        "TEST(A, B) { VERIFY_OK(run()); VERIFY_ALL(p, q); PLAIN(3); }\n"
    )
    assert [(i.line, i.kind, i.name) for i in inv(src)] == [
        (1, "define", "#define VERIFY_OK"),
        (2, "define", "#define VERIFY_ALL"),
        (4, "test", "TEST"),
        (4, "assert", "VERIFY_OK"),
        (4, "assert", "VERIFY_ALL"),
    ]


def test_changing_a_macro_body_changes_its_key() -> None:
    before = inv("#define ASSERT_OK(s) ASSERT_TRUE((s).ok())\n")[0]
    after = inv("#define ASSERT_OK(s) ASSERT_TRUE(true)\n")[0]
    assert before.name == after.name == "#define ASSERT_OK"
    assert before.key != after.key


def test_defines_in_comments_and_if_0_are_not_items() -> None:
    src = "// #define ASSERT_EQ(a, b)\n/* #undef REQUIRE */\n#if 0\n#define assert(x)\n#endif\n"
    assert inv(src) == []


def test_item_fields_for_each_kind() -> None:
    src = (
        "#define ASSERT_EQ(a, b) (void)0\n"
        'TEST_CASE("t", "[.]") {\n'
        '  SECTION("s") { REQUIRE(x); }\n'
        "}\n"
    )
    items = inv(src)
    assert [(i.kind, i.lang, i.file) for i in items] == [
        ("define", "cpp", "t/a_test.cc"),
        ("test", "cpp", "t/a_test.cc"),
        ("skip", "cpp", "t/a_test.cc"),
        ("case", "cpp", "t/a_test.cc"),
        ("assert", "cpp", "t/a_test.cc"),
    ]
    assert [i.key for i in items] == [
        f"define|t/a_test.cc||#define ASSERT_EQ|{fp('#define ASSERT_EQ(a, b) (void)0')}",
        f"test|t/a_test.cc|t|TEST_CASE|{fingerprint(chr(34) + 't' + chr(34))}",
        f"skip|t/a_test.cc|t|[.]|{fingerprint('[.] [.]')}",
        f"case|t/a_test.cc|t/s|SECTION|{fingerprint('s')}",
        f"assert|t/a_test.cc|t/s|REQUIRE|{fp('x')}",
    ]


def test_header_guards_matching_a_macro_family_are_not_defines() -> None:
    src = "#ifndef CHECK_UTILS_H\n#define CHECK_UTILS_H\n#define ASSERT_EQ\n#endif\n"
    assert [(i.line, i.name) for i in inv(src)] == [(3, "#define ASSERT_EQ")]


def test_crlf_line_endings_and_a_byte_order_mark() -> None:
    src = "\ufeff#define ASSERT_EQ(a, b)\r\nTEST(A, B) {\r\n  ASSERT_EQ(x,\r\n    1);\r\n}\r\n"
    assert [(i.line, i.kind, i.text) for i in inv(src)] == [
        (1, "define", "#define ASSERT_EQ(a, b)"),
        (2, "test", "A, B"),
        (3, "assert", "x, 1"),
    ]


def test_a_file_the_patch_deleted_is_absent_not_unreadable(tmp_path):
    from patchwitness.census.scan import ScanOptions, scan_paths

    (tmp_path / "kept.hpp").write_text("#pragma once\nint f();\n")
    inventory = scan_paths(tmp_path, ["kept.hpp", "src/deleted.cpp"], ScanOptions())
    assert inventory.unreadable == []
