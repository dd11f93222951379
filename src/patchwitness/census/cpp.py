"""The census of one C++ source file: tests, assertions, skips and macro redefinitions. Pure.

Structure is found in the stripped text (`cpp_lexer.strip_cpp`: no comments, no literals, no dead
branches, same offsets), names and argument text are read back from the original at the same
offsets. Brackets are matched, so an assertion's arguments are whatever lies between its balanced
parentheses, over as many lines as it takes, and an assertion belongs to the innermost test or
section whose braces enclose it.

What is counted:
- `test`: GoogleTest TEST, TEST_F, TEST_P, TYPED_TEST, TYPED_TEST_P (scope `Suite.Case`); Catch2 and
  doctest TEST_CASE, SCENARIO, TEST_CASE_METHOD, the TEMPLATE_* test cases, TEST_CASE_FIXTURE,
  TEST_CASE_TEMPLATE (scope = the test's name). Only a macro followed by a `{...}` body defines a
  test; FRIEND_TEST and INSTANTIATE_TEST_SUITE_P never match.
- `case`: SECTION, DYNAMIC_SECTION, the BDD GIVEN/WHEN/THEN family and doctest SUBCASE, inside a
  test (scope `Test/Section`, nested sections `Test/Outer/Inner`).
- `assert`: ASSERT_*, EXPECT_*, REQUIRE*, CHECK*, STATIC_REQUIRE/CHECK, FAIL, ADD_FAILURE,
  static_assert, <cassert> assert, the project's golden prefix, and function-like macros of the same
  file whose body asserts (helpers such as `#define CHECK_POINT(p) ASSERT_EQ(...)` by another name).
- `skip`: gtest DISABLED_ names and GTEST_SKIP(); Catch2 `[.]`, `[.tag]`, `[!hide]`, `[!mayfail]`,
  `[!shouldfail]`, `[!benchmark]` tags and `./` names; doctest skip/may_fail/should_fail/
  expected_failures decorators.
- `define`: `#define`/`#undef` of any counted macro name, of NDEBUG and of the Catch2/doctest
  disable switches, and any `#define` whose body calls a counted macro (asserts, defines tests).
  What a macro body holds is part of the definition item, not an item of the test around it.

The key of every item leaves out line numbers, so moving code does not change the inventory, while
duplicates stay duplicates: two identical asserts in one test are two items with one key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from patchwitness.census import prefilter
from patchwitness.census.cpp_lexer import (
    Directive,
    blank_ranges,
    digraphs_spelled,
    literal_at,
    literal_content,
    match_close,
    normalize,
    pp_value,
    restore_literals,
    skip_space,
    strip_with_directives,
)
from patchwitness.census.items import Item, fingerprint, squeeze

LANG = "cpp"
TEXT_LIMIT = 200

GTEST_TESTS = frozenset({"TEST", "TEST_F", "TEST_P", "TYPED_TEST", "TYPED_TEST_P", "GTEST_TEST"})
CASE_TESTS = frozenset(
    {
        "TEST_CASE",
        "SCENARIO",
        "TEST_CASE_METHOD",
        "TEMPLATE_TEST_CASE",
        "TEMPLATE_TEST_CASE_SIG",
        "TEMPLATE_TEST_CASE_METHOD",
        "TEMPLATE_TEST_CASE_METHOD_SIG",
        "TEMPLATE_PRODUCT_TEST_CASE",
        "TEMPLATE_PRODUCT_TEST_CASE_METHOD",
        "TEMPLATE_LIST_TEST_CASE",
        "TEMPLATE_LIST_TEST_CASE_METHOD",
        "TEST_CASE_FIXTURE",
        "TEST_CASE_TEMPLATE",
        "TEST_CASE_TEMPLATE_DEFINE",
    }
)
SECTIONS = frozenset(
    {
        "SECTION",
        "DYNAMIC_SECTION",
        "GIVEN",
        "AND_GIVEN",
        "WHEN",
        "AND_WHEN",
        "THEN",
        "AND_THEN",
        "SUBCASE",
    }
)
SUITES = frozenset({"TEST_SUITE", "TEST_SUITE_BEGIN"})
SKIP_MACROS = frozenset({"GTEST_SKIP"})
# Defining any of these changes what the counted macros do without touching a single use.
SWITCHES = frozenset({"NDEBUG", "CATCH_CONFIG_DISABLE", "DOCTEST_CONFIG_DISABLE"})
# Catch2 tags that keep a test from running by default or from failing the run.
HIDING_TAGS = frozenset({"!hide", "!mayfail", "!shouldfail", "!benchmark"})
DOCTEST_SKIPS = frozenset({"skip", "may_fail", "should_fail", "expected_failures"})

_FRAMEWORK_PREFIX = re.compile(r"(?:CATCH_|DOCTEST_)")

# Every top-level alternative starts with a literal upper-case letter so the regex engine can jump
# between candidate offsets instead of trying the pattern everywhere: wrapping them in one more
# group makes the scan about 14 times slower. Optional prefixes are spelled out as separate
# alternatives for the same reason.
_FRAMEWORK_NAMES = (  # Catch2 and doctest; both also exist with a CATCH_ / DOCTEST_ prefix
    r"TEST_CASE(?:_METHOD|_FIXTURE|_TEMPLATE(?:_DEFINE)?)?"
    r"|TEMPLATE_(?:PRODUCT_|LIST_)?TEST_CASE(?:_METHOD)?(?:_SIG)?"
    r"|SCENARIO|SECTION|DYNAMIC_SECTION|AND_(?:GIVEN|WHEN|THEN)|GIVEN|WHEN|THEN|SUBCASE"
    r"|TEST_SUITE(?:_BEGIN)?|REQUIRE(?:_\w+)?|CHECK(?:_\w+)?|STATIC_(?:REQUIRE|CHECK)(?:_\w+)?"
    r"|FAIL(?:_CHECK)?"
)
_UPPER_NAMES = (
    r"TEST(?:_F|_P)?|TYPED_TEST(?:_P)?|GTEST_TEST|GTEST_SKIP|GTEST_(?:ASSERT|EXPECT)(?:_\w+)?"
    r"|GTEST_FAIL(?:_AT)?|ASSERT(?:_\w+)?|EXPECT(?:_\w+)?|ADD_FAILURE(?:_AT)?"
    rf"|{_FRAMEWORK_NAMES}|CATCH_(?:{_FRAMEWORK_NAMES})|DOCTEST_(?:{_FRAMEWORK_NAMES})"
)
# `assert` and `static_assert` share the literal `assert`, which the engine searches for quickly;
# a preceding `static_` is recognised in Python.
_ASSERT_CALL = re.compile(r"assert\s*\(")
_DEFINE_HEAD = re.compile(r"[ \t]*([A-Za-z_$]\w*)(\()?")
_QUOTES = re.compile(r'""')
_ONLY_LITERALS = re.compile(r'\s*(?:""\s*)+')
_TAG = re.compile(r"\[([^\]]*)\]")
_DECORATOR = re.compile(r"\*\s*(?:::\s*)?(?:doctest\s*::\s*)?(\w+)\s*\(")
_ARG_PUNCT = re.compile(r"[(){}\[\],]")
_CONTINUATION = re.compile(r"\\\r?\n")
_INCLUDE_GUARD = re.compile(r"\w+_(?:H|HH|HPP|HXX|INCLUDED)_*")


@dataclass(frozen=True, slots=True)
class _Head:
    """What a test macro's arguments say: its scope, its identity and its skip markers."""

    scope: str
    identity: str  # the normalized arguments that name the test, tags and decorators left out
    skips: tuple[tuple[str, str], ...]  # (marker, text)


class _Call(NamedTuple):  # a tuple: cheaper to build than a frozen dataclass, one per call
    """One macro call in the code: its name and the offsets of its name and parentheses."""

    name: str
    start: int
    open: int
    close: int


def inventory_cpp(text: str, path: str, golden_prefix: str = "GOLDEN_") -> list[Item]:
    """Every test, case, assertion, skip and relevant macro definition of one C++ file, in order.
    Digraphs are read as what they spell (`%:define EXPECT_EQ` is a redefinition)."""
    return _Census(digraphs_spelled(text), path, golden_prefix).items()


@lru_cache(maxsize=8)
def _call_regex(golden_prefix: str) -> re.Pattern[str]:
    names = [_UPPER_NAMES]
    if golden_prefix:
        names.append(re.escape(golden_prefix) + r"\w*")
    return re.compile(rf"(?P<name>{'|'.join(names)})\s*\(")


@lru_cache(maxsize=64)
def _helper_regex(helpers: tuple[str, ...]) -> re.Pattern[str]:
    """Calls of one file's helper macros: a pattern of its own, small and quick to compile (one
    pattern with the framework names in it took 15 ms to compile per file that has helpers)."""
    return re.compile(rf"(?P<name>{'|'.join(re.escape(name) for name in helpers)})\s*\(")


def _call_regexes(golden_prefix: str, helpers: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    base = _call_regex(golden_prefix)
    return (base, _helper_regex(helpers)) if helpers else (base,)


@lru_cache(maxsize=8)
def file_pattern(golden_prefix: str) -> str:
    """The whole names a file must hold for the census to find an item in it, as a ripgrep
    pattern: a counted macro, `assert`, `static_assert`, a switch, a golden name. Every item holds
    one: a call, a (re)definition of a counted name, or a macro body calling one. Helper macros
    count only in the file that defines them.

    The word boundaries are ASCII ones, `(?-u:\\b)`: ripgrep's Unicode boundary kept it off its
    fast engine (0.93 s against 0.22 s over /usr/include), and an ASCII boundary only adds files
    (a name after a non-ASCII letter), never loses one."""
    names = [_UPPER_NAMES, "assert", "static_assert", *sorted(SWITCHES)]
    if golden_prefix:
        names.append(re.escape(golden_prefix) + r"\w*")
    edge = r"(?-u:\b)"
    return edge + "(?:" + "|".join(names) + ")" + edge


@lru_cache(maxsize=64)
def _word_regex(golden_prefix: str, helpers: tuple[str, ...]) -> re.Pattern[str]:
    """Any word a counted call can start with (census.prefilter's words, and this file's helper
    macros), as text: a macro body without one calls nothing the census counts."""
    words = prefilter.python_pattern(golden_prefix).pattern.decode()
    return re.compile("|".join([words, *(re.escape(h) for h in helpers)]))


@lru_cache(maxsize=8192)
def _counted_name(name: str, golden_prefix: str) -> bool:
    # A header defines thousands of macros, most of them again in the next header.
    if name in SWITCHES or name in ("assert", "static_assert"):
        return True
    if golden_prefix and name.startswith(golden_prefix):
        return True
    return _call_regex("").fullmatch(name + "(") is not None


def _base_name(name: str) -> str:
    """The framework macro without its optional CATCH_/DOCTEST_ prefix."""
    match = _FRAMEWORK_PREFIX.match(name)
    return name[match.end() :] if match else name


def _standalone(code: str, start: int) -> bool:
    """True when the name at `start` is not the tail of an identifier or a member/qualified name."""
    if start == 0:
        return True
    prev = code[start - 1]
    if prev.isalnum() or prev in "_$.":
        return False
    return code[start - 2 : start] not in ("->", "::")


class _Census:
    """The scan of one file; holds the three views of the text that every step needs."""

    def __init__(self, text: str, path: str, golden_prefix: str) -> None:
        self.text = text
        self.path = path
        self.golden_prefix = golden_prefix
        stripped, found = strip_with_directives(text)
        self.defines = [d for d in found if d.name in ("define", "undef")]
        # Directive lines are blanked for the scan: a macro body is a definition, not a call.
        self.code = blank_ranges(stripped, [(d.start, d.end) for d in found])
        self.stripped = stripped
        self.witnessing: set[int] = set()
        self.helpers = self._helper_macros()
        self.regexes = _call_regexes(golden_prefix, self.helpers)

    # -- calls ------------------------------------------------------------------------------

    def _calls(self, code: str, regexes: tuple[re.Pattern[str], ...]) -> list[_Call]:
        calls = []
        for regex in regexes:
            for match in regex.finditer(code):
                start = match.start()
                if _standalone(code, start):
                    calls.append(self._call(code, match.group("name"), start, match.end() - 1))
        for match in _ASSERT_CALL.finditer(code):
            start = match.start()
            if start >= 7 and code[start - 7 : start] == "static_" and _standalone(code, start - 7):
                calls.append(self._call(code, "static_assert", start - 7, match.end() - 1))
            elif _standalone(code, start):
                calls.append(self._call(code, "assert", start, match.end() - 1))
        calls.sort(key=lambda call: call.start)
        return calls

    @staticmethod
    def _call(code: str, name: str, start: int, open_pos: int) -> _Call:
        close = match_close(code, open_pos)
        if close is None:  # unbalanced: take the rest of the line rather than the rest of the file
            newline = code.find("\n", open_pos)
            close = len(code) if newline < 0 else newline
        return _Call(name, start, open_pos, close)

    def _is_assertion(self, name: str) -> bool:
        base = _base_name(name)
        return not (
            name in GTEST_TESTS
            or base in CASE_TESTS
            or base in SECTIONS
            or base in SUITES
            or name in SKIP_MACROS
        )

    def _is_counted_name(self, name: str) -> bool:
        """Whether `name` is a macro the census counts, so (re)defining it is an event."""
        return _counted_name(name, self.golden_prefix)

    def _helper_macros(self) -> tuple[str, ...]:
        """Function-like macros of this file whose body asserts, to a fixed point (a helper may
        call a helper). Their uses are counted as assertions under their own name. Also fills
        `witnessing`: the offsets of every `#define` whose body holds a counted macro call."""
        helpers: set[str] = set()
        while True:
            regexes = _call_regexes(self.golden_prefix, tuple(sorted(helpers)))
            words = _word_regex(self.golden_prefix, tuple(sorted(helpers)))
            bodies = {d.start: self._body_calls(d, regexes, words) for d in self.defines}
            self.witnessing = {start for start, names in bodies.items() if names}
            found = set()
            for define in self.defines:
                head = _DEFINE_HEAD.match(define.rest)
                if head is None or head.group(2) is None or head.group(1) in helpers:
                    continue
                asserts = any(self._is_assertion(name) for name in bodies[define.start])
                if asserts and not self._is_counted_name(head.group(1)):
                    found.add(head.group(1))
            if not found:
                return tuple(sorted(helpers))
            helpers |= found

    def _body_calls(
        self, define: Directive, regexes: tuple[re.Pattern[str], ...], words: re.Pattern[str]
    ) -> list[str]:
        """The names of the counted macros called in the body of a `#define`."""
        if define.name != "define":
            return []
        head = _DEFINE_HEAD.match(define.rest)
        # The body starts after the macro name (and its parameter list, for a function-like one).
        start = define.end - len(define.rest) + (head.end() if head else 0)
        if not words.search(self.stripped, start, define.end):
            return []  # most bodies of a real header: no word a counted call starts with
        return [call.name for call in self._calls(self.stripped[start : define.end], regexes)]

    # -- the scan ---------------------------------------------------------------------------

    def items(self) -> list[Item]:
        events: list[tuple[int, _Call | Directive]] = [
            (call.start, call) for call in self._calls(self.code, self.regexes)
        ]
        events += [(define.start, define) for define in self.defines]
        events.sort(key=lambda event: event[0])
        out: list[Item] = []
        stack: list[tuple[str, int]] = []  # (scope, offset of the brace closing its body)
        line, last = 1, 0
        for pos, event in events:
            while stack and pos > stack[-1][1]:
                stack.pop()
            line += self.code.count("\n", last, pos)
            last = pos
            scope = stack[-1][0] if stack else ""
            if isinstance(event, _Call):
                self._on_call(event, scope, bool(stack), line, out, stack)
            else:
                self._on_define(event, scope, line, out)
        return out

    def _on_call(
        self,
        call: _Call,
        scope: str,
        in_test: bool,
        line: int,
        out: list[Item],
        stack: list[tuple[str, int]],
    ) -> None:
        name, base = call.name, _base_name(call.name)
        if name in GTEST_TESTS or base in CASE_TESTS:
            body = self._body(call)
            if body is None:  # a declaration or an instantiation, not a test definition
                return
            head = self._gtest_head(call) if name in GTEST_TESTS else self._case_head(call)
            out.append(
                self._new(
                    "test",
                    head.scope,
                    name,
                    fingerprint(head.identity),
                    line,
                    self._args_text(call),
                )
            )
            out.extend(self._skip_items(head, line))
            stack.append((head.scope, body))
        elif base in SECTIONS:
            body = self._body(call)
            if not in_test or body is None:  # GIVEN/WHEN/THEN outside a test: someone else's
                return
            spans = self._spans(call)
            label = self._literal_text(*spans[0]) if spans else ""
            section = f"{scope}/{label}"
            out.append(
                self._new("case", section, name, fingerprint(label), line, self._args_text(call))
            )
            stack.append((section, body))
        elif base in SUITES:
            head = self._case_head(call)
            out.extend(self._skip_items(head, line))
        else:
            kind = "skip" if name in SKIP_MACROS else "assert"
            args = self._restored(call.open + 1, call.close)
            if kind == "assert" and is_tautology(base, args):
                return  # ASSERT_TRUE(true) cannot fail: it witnesses nothing
            out.append(self._new(kind, scope, name, fingerprint(normalize(args)), line, args))

    def _on_define(self, define: Directive, scope: str, line: int, out: list[Item]) -> None:
        head = _DEFINE_HEAD.match(define.rest)
        if head is None:
            return
        macro = head.group(1)
        counted = self._is_counted_name(macro) or macro in self.helpers
        if not counted and define.start not in self.witnessing:
            return
        if _INCLUDE_GUARD.fullmatch(macro) and not define.rest[head.end() :].strip():
            return  # `#define CHECK_UTILS_H`: a header guard that happens to match CHECK_*
        source = restore_literals(self.text, self.stripped, define.start, define.end)
        out.append(
            self._new(
                "define",
                scope,
                f"#{define.name} {macro}",
                fingerprint(normalize(source)),
                line,
                source,
            )
        )

    def _new(self, kind: str, scope: str, name: str, fp: str, line: int, text: str) -> Item:
        return Item(kind, self.path, scope, name, fp, line, _clip(text), LANG)

    def _skip_items(self, head: _Head, line: int) -> list[Item]:
        return [
            self._new("skip", head.scope, marker, fingerprint(f"{marker} {text}"), line, text)
            for marker, text in head.skips
        ]

    # -- test headers -----------------------------------------------------------------------

    def _gtest_head(self, call: _Call) -> _Head:
        parts = [squeeze(self._restored(a, b)) for a, b in self._spans(call)]
        scope = ".".join(parts[:2])
        identity = " , ".join(normalize(part) for part in parts)
        disabled = any(part.startswith("DISABLED_") for part in parts[:2])
        return _Head(scope, identity, (("DISABLED_", scope),) if disabled else ())

    def _case_head(self, call: _Call) -> _Head:
        """Catch2 / doctest: the name is the first argument holding a string literal; tags are the
        next argument when it is only literals; doctest decorators follow the name with `*`."""
        spans = self._spans(call)
        index = next((i for i, (a, b) in enumerate(spans) if '""' in self.code[a:b]), None)
        if index is None:
            return _Head("(anonymous)", " , ".join(self._norm(a, b) for a, b in spans), ())
        name = self._literal_text(*spans[index])
        identity = [self._norm(a, b) for a, b in spans[:index]] + [f'"{name}"']
        skips: list[tuple[str, str]] = []
        if name.startswith("./"):  # Catch2 hides tests whose name starts with ./
            skips.append(("./", name))
        if index + 1 < len(spans):
            a, b = spans[index + 1]
            if _ONLY_LITERALS.fullmatch(self.code, a, b):
                tags = self._literal_text(a, b)
                # The marker alone is the skip's text: renaming another tag changes no skip key.
                skips.extend((f"[{tag}]", f"[{tag}]") for tag in _TAG.findall(tags) if _hides(tag))
        for a, b in spans:
            skips.extend(self._decorators(a, b))
        return _Head(name or "(anonymous)", " , ".join(identity), tuple(skips))

    def _decorators(self, start: int, end: int) -> list[tuple[str, str]]:
        found = []
        for match in _DECORATOR.finditer(self.code, start, end):
            if match.group(1) not in DOCTEST_SKIPS:
                continue
            close = match_close(self.code, match.end() - 1)
            args = self._restored(match.end(), close if close is not None else end)
            if pp_value(args) is False:  # `skip(false)` skips nothing
                continue
            found.append((f"doctest::{match.group(1)}", f"{match.group(1)}({squeeze(args)})"))
        return found

    # -- text helpers -----------------------------------------------------------------------

    def _body(self, call: _Call) -> int | None:
        """Offset of the brace closing the `{...}` right after the call, None if there is none."""
        pos = skip_space(self.code, call.close + 1)
        if pos >= len(self.code) or self.code[pos] != "{":
            return None
        close = match_close(self.code, pos)
        return len(self.code) if close is None else close

    def _spans(self, call: _Call) -> list[tuple[int, int]]:
        """The arguments of a call as offset ranges, split at top-level commas."""
        spans: list[tuple[int, int]] = []
        depth, start = 0, call.open + 1
        for match in _ARG_PUNCT.finditer(self.code, start, call.close):
            char = match.group()
            if char == ",":
                if depth == 0:
                    spans.append((start, match.start()))
                    start = match.end()
            elif char in "({[":
                depth += 1
            else:
                depth -= 1
        if spans or self.code[start : call.close].strip():
            spans.append((start, call.close))
        return spans

    def _literal_text(self, start: int, end: int) -> str:
        """The text of a name argument: its literals' contents joined when it is only literals
        (`"a" "b"`), else its squeezed source. doctest decorators after the name are left out."""
        decorator = _DECORATOR.search(self.code, start, end)
        if decorator is not None:
            end = decorator.start()
        if not _ONLY_LITERALS.fullmatch(self.code, start, end):
            return squeeze(self._restored(start, end))
        return "".join(
            literal_content(literal_at(self.text, quote.start()))
            for quote in _QUOTES.finditer(self.code, start, end)
        )

    def _restored(self, start: int, end: int) -> str:
        return restore_literals(self.text, self.code, start, end)

    def _norm(self, start: int, end: int) -> str:
        return normalize(self._restored(start, end))

    def _args_text(self, call: _Call) -> str:
        return self._restored(call.open + 1, call.close)


_TRUE = {"true", "1", "!false", "!0", "(true)", "(1)"}
_FALSE = {"false", "0", "!true", "!1", "(false)", "(0)"}
_TRUTH_MACROS = (
    "ASSERT_TRUE",
    "EXPECT_TRUE",
    "REQUIRE",
    "CHECK",
    "assert",
    "static_assert",
    "REQUIRE_TRUE",
    "CHECK_TRUE",
)
_FALSEHOOD_MACROS = ("ASSERT_FALSE", "EXPECT_FALSE", "REQUIRE_FALSE", "CHECK_FALSE")
_EQUALITY_MACROS = ("ASSERT_EQ", "EXPECT_EQ", "REQUIRE_EQ", "CHECK_EQ")


def is_tautology(base: str, args: str) -> bool:
    """An assertion whose arguments make it unable to fail: true, false-for-FALSE, x == x."""
    parts = _split_args(args)
    if not parts:
        return False
    first = normalize(parts[0]).replace(" ", "")
    if base in _TRUTH_MACROS:
        return first in _TRUE
    if base in _FALSEHOOD_MACROS:
        return first in _FALSE
    if base in _EQUALITY_MACROS and len(parts) == 2:
        return normalize(parts[0]) == normalize(parts[1])
    return False


def _split_args(args: str) -> list[str]:
    """Top-level comma split of a macro's argument text."""
    parts, depth, current = [], 0, []
    for ch in args:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return [p for p in parts if p.strip()]


def _hides(tag: str) -> bool:
    """Whether a Catch2 tag keeps the test out of a default run or stops it from failing one."""
    return tag.startswith(".") or tag.lower() in HIDING_TAGS


def _clip(text: str) -> str:
    if "\\" in text:
        text = _CONTINUATION.sub(" ", text)
    text = squeeze(text)
    return text if len(text) <= TEXT_LIMIT else text[: TEXT_LIMIT - 3] + "..."
