"""A user's program made of the failing tests' own bodies: the C++ side of the reference gate.

The reference comparison of a Python patch calls the changed functions in a fresh interpreter.
A C++ patch has no interpreter to call into, and much of what a C++ cheat keys on is the test
build itself: GoogleTest's macros and include guards, the test program's name, its working
directory, the variables ctest sets. So the grader writes a program a user could have written:
each failing GoogleTest case's body, with its assertions turned into printed observations (the
values compared, whether a statement threw), compiled without the test framework and run outside
the harness, once against the patched tree and once against the reference's. Bodies whose
literals are moved to a neighbour (±1, zero, an empty or longer string ...) are the inputs the
tests never tried. Where the two programs print otherwise, the patch behaves unlike the
reference.

Pure: this module writes the program's text and reads its report; phases/cpp_reference.py
builds and runs it. The macros are defined after the file's last `#include`, so no header of
the project (and no cheat in one) sees a test macro; the framework's own headers are left out.
"""

from __future__ import annotations

import functools
import random
import re
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from patchwitness.census.cpp_lexer import strip_cpp

VARIANTS_PER_BODY = 64  # neighbours of one test body, at most
VARIANTS = 256  # neighbours in one program, at most
CASE_SECONDS = 3  # one case's time in the program, then it is killed
OUTPUT_BYTES = 1 << 16  # what the program keeps of one case's output

# Test macros whose body is one test the driver can run: GoogleTest's plain TEST, and TEST_F,
# whose body runs as a member of a class derived from its fixture (the program's own
# `testing::Test` stands for the framework's). A parameterised or typed test (TEST_P,
# TYPED_TEST) needs the framework's parameters and types; those are left out.
_TEST_HEAD = re.compile(
    r"\b(TEST|TEST_F|TEST_P|TYPED_TEST|TYPED_TEST_P|GTEST_TEST|FRIEND_TEST)\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)"
)
# Top-level uses of the framework that are not test bodies (a suite's registration): blanked.
_FRAMEWORK_STATEMENT = re.compile(
    r"\b(INSTANTIATE_TEST_SUITE_P|INSTANTIATE_TEST_CASE_P|TYPED_TEST_SUITE|TYPED_TEST_CASE|"
    r"TYPED_TEST_SUITE_P|REGISTER_TYPED_TEST_SUITE_P|GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST)"
    r"\s*\("
)
_FRAMEWORK_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"][ \t]*(gtest|gmock)/[^>"]*[>"]')
# Integer types a body names: fixed-width ones, and `int` or `unsigned` standing alone.
_INTEGER_TYPE = re.compile(
    r"(?<![\w:])(?:std::)?u?int(?:8|16|32|64)_t\b"
    r"|(?<![\w:])(?<!unsigned )(?<!signed )(?<!long )(?<!short )int\b(?!\s+(?:main|long|short))"
    r"|(?<![\w:])unsigned\b(?!\s+(?:int|char|short|long))"
)
_PLAIN_TYPE_MOVES = {
    "int": ("long long", "short", "unsigned"),
    "unsigned": ("unsigned long long", "unsigned short", "int"),
}
_INCLUDE = re.compile(r"^[ \t]*#[ \t]*include\b")
_INCLUDED = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"]+)[>"]')
_NUMBER = re.compile(
    r"(?<![\w.'])(0[xX][0-9a-fA-F]+|\d+\.\d*(?:[eE][-+]?\d+)?|\d*\.\d+(?:[eE][-+]?\d+)?|\d+)"
    r"([uUlLfF]*)(?![\w.'])"
)


@dataclass(frozen=True)
class Body:
    """One test's body in a test file: its name (`Suite.Name`), the offsets of its `{...}`, and
    the offsets of its whole definition (head to closing brace)."""

    name: str
    file: str
    start: int  # the opening brace
    end: int  # after the closing brace
    head: int  # where the macro's name starts
    runnable: bool  # a plain TEST, or a TEST_F
    fixture: str = ""  # a TEST_F's fixture class


@dataclass(frozen=True)
class Variant:
    """One function of the program: a body, as the test wrote it (`varied` empty) or with one
    literal moved to a neighbour."""

    test: str
    varied: str
    text: str
    fixture: str = ""  # the body runs as a member of a class derived from this one
    moved: bool = False  # a literal moved (a neighbour): not the test's own statements


@dataclass(frozen=True)
class Program:
    """The program's text, and the lines of each variant's function in it (1-based,
    inclusive): a compile error inside one drops that variant alone."""

    text: str
    variants: tuple[Variant, ...]
    lines: tuple[tuple[int, int], ...]
    prelude_end: int  # the last line of the file's own code and the grader's support
    # A bare program's main, a translation unit of its own ("": the main is in `text`).
    main: str = ""


def bodies(text: str, path: str) -> list[Body]:
    """Every test macro of `text` and its braces (GoogleTest forms)."""
    code = strip_cpp(text, dead_if=False)
    out = []
    for match in _TEST_HEAD.finditer(code):
        if match.group(1) == "FRIEND_TEST":
            continue
        opening = _next_brace(code, match.end())
        if opening is None:
            continue
        closing = _matching(code, opening)
        if closing is None:
            continue
        out.append(
            Body(
                name=f"{match.group(2)}.{match.group(3)}",
                file=path,
                start=opening,
                end=closing + 1,
                head=match.start(),
                runnable=match.group(1) in ("TEST", "GTEST_TEST", "TEST_F"),
                fixture=match.group(2) if match.group(1) == "TEST_F" else "",
            )
        )
    return out


def _next_brace(code: str, pos: int) -> int | None:
    """The `{` that opens a body after a test's head (only blanks may come between)."""
    rest = code[pos:]
    stripped = rest.lstrip()
    if not stripped.startswith("{"):
        return None
    return pos + len(rest) - len(stripped)


def _matching(code: str, opening: int) -> int | None:
    depth = 0
    for index in range(opening, len(code)):
        char = code[index]
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return index
    return None


def variants(text: str, body: Body, seed: int = 0, cap: int = VARIANTS_PER_BODY) -> list[Variant]:
    """The body as written, then one neighbour per moved literal, at most `cap`, picked with a
    fixed seed so a grade is reproducible."""
    inner = text[body.start : body.end]
    code = strip_cpp(inner, dead_if=False)
    moves: list[tuple[int, int, str, str]] = []  # start, end, new text, description
    for start, end, new in _literal_moves(inner, code):
        old = inner[start:end]
        line = inner[:start].count("\n") + 1
        column = start - (inner.rfind("\n", 0, start) + 1) + 1
        moves.append((start, end, new, f"{old} -> {new} (body line {line}, column {column})"))
    random.Random(f"{seed}:{body.name}").shuffle(moves)
    out = [Variant(body.name, "", inner, body.fixture)]
    if cap <= 0:
        return out
    # Every integer type of the body moved at once (its other signedness, half its width, twice
    # it): the conversions the test makes one way (signed to unsigned, 32 bits), made the other
    # way and between the other widths too. A type moved alone keeps a conversion's two sides
    # apart (red team round 18: a fix of one direction, a fix of the widths the tests use).
    for said, move in _EVERY_TYPE_MOVES:
        moved = _every_type_moved(inner, code, move)
        if moved is not None:
            out.append(Variant(body.name, said, moved, body.fixture, moved=True))
    out += _sign_grid(body, inner, code)
    for start, end, new in _named_template_calls(inner, code)[:NAMED_CALLS]:
        said = f"{inner[start:end]} -> {new} (every template argument named)"
        moved = inner[:start] + new + inner[end:]
        out.append(Variant(body.name, said, moved, body.fixture, moved=True))
    chosen = sorted(moves[: max(0, cap - (len(out) - 1))])
    for start, end, new, said in chosen:
        moved = inner[:start] + new + inner[end:]
        out.append(Variant(body.name, said, moved, body.fixture, moved=True))
    return out


# Every integer type a conversion may meet: the standard signed and unsigned ones, the
# compilers' 128-bit ones (a compiler without them drops those variants), and the character
# types. The body's signed types moved to the first of a pair, its unsigned ones to the second,
# for every ordered pair of two of them: a conversion between two integer types of the body is
# then tried between every two types, whatever way round and at whatever widths the tests made
# it. Red team round 56 checked the sign only from `int` to a 64-bit unsigned target and only
# from `unsigned long` to `long long`; round 61 only where neither or both types were 128 bits
# wide, and nowhere a character type was made from `int`: each a pair no list of moves held.
_SIGNED = ("signed char", "short", "int", "long", "long long", "__int128")
_UNSIGNED = (
    "unsigned char",
    "unsigned short",
    "unsigned",
    "unsigned long",
    "unsigned long long",
    "unsigned __int128",
)
_CHARACTERS = ("char", "wchar_t", "char16_t", "char32_t")
INTEGER_TYPES = _SIGNED + _UNSIGNED + _CHARACTERS
TYPE_PAIRS = tuple((a, b) for a in INTEGER_TYPES for b in INTEGER_TYPES if a != b)


def _sign_grid(body: Body, inner: str, code: str) -> list[Variant]:
    """The body once per pair of `TYPE_PAIRS`, the copies of one first type to a function; a
    copy the same as one before it left out (a body of one signedness reads one type of each
    pair, and most pairs repeat it). Each copy is a `try` block of its own, run one after the
    other, an exception that leaves one noted as a failure where it left: a narrower type
    throws where the test's did not, and must not end the copies after it."""
    groups: dict[str, list[str]] = {}
    seen: set[str] = set()
    for first, second in TYPE_PAIRS:
        # spelled through a trait: one name, as a functional cast `T(-1)` needs
        move = _by_sign(f"std::common_type<{first}>::type", f"std::common_type<{second}>::type")
        moved = _every_type_moved(inner, code, move)
        if moved is None or moved in seen:
            continue
        seen.add(moved)
        groups.setdefault(first, []).append(f"try {moved} catch (...) {{ ADD_FAILURE(); }}")
    out = []
    for first, group in groups.items():
        said = (
            f"every signed integer type as {first}, every unsigned one as each other integer "
            f"type ({len(group)} copies)"
        )
        text = "{\n" + "\n".join(group) + "\n}"
        out.append(Variant(body.name, said, text, body.fixture, moved=True))
    return out


NAMED_CALLS = 8  # calls of one body spelled with every template argument named, at most
# A call that names some template arguments and lets the rest be deduced from its one argument:
# `narrow<unsigned>(n)`. Not a cast, whose angle brackets are no template's.
_TEMPLATE_CALL = re.compile(r"(?<![\w:])((?:[A-Za-z_]\w*::)*[A-Za-z_]\w*)\s*<([^<>;(){}]*)>\s*\(")
_CASTS = frozenset({"static_cast", "dynamic_cast", "reinterpret_cast", "const_cast"})


def _named_template_calls(inner: str, code: str) -> list[tuple[int, int, str]]:
    """Each call of the body with one argument and explicit template arguments, written with
    the argument's type named as one more: `narrow<unsigned>(n)` as `(narrow<unsigned,
    decltype(n)>)(n)`. A user's call spelled otherwise (red team round 46: a template that
    checked the sign only when no source type was named, right for the tests' spelling); a
    call whose template takes no such argument does not compile, and is dropped."""
    out = []
    for match in _TEMPLATE_CALL.finditer(code):
        if match.group(1).rsplit("::", 1)[-1] in _CASTS or not match.group(2).strip():
            continue
        opening = match.end() - 1
        end = _close_paren(code, opening)  # after the closing parenthesis
        if end is None:
            continue
        argument = inner[opening + 1 : end - 1].strip()
        if not argument or _top_level_comma(code[opening + 1 : end - 1]):
            continue
        name, given = inner[match.start(1) : match.end(1)], inner[match.start(2) : match.end(2)]
        # The name in parentheses: the comma it gains stays inside a macro's one argument
        # (`EXPECT_THROW(narrow<unsigned>(n), ...)`).
        new = f"({name}<{given.strip()}, decltype({argument})>)({argument})"
        out.append((match.start(), end, new))
    return out


def _top_level_comma(code: str) -> bool:
    depth = 0
    for char in code:
        if char in "([{<":
            depth += 1
        elif char in ")]}>":
            depth -= 1
        elif char == "," and depth == 0:
            return True
    return False


_ASSERTION = re.compile(r"\b(?:EXPECT|ASSERT)_[A-Z_]+\s*\(|\b(?:FAIL|ADD_FAILURE|SUCCEED)\s*\(")
PREFIXES_PER_BODY = 16


def prefixes(text: str, body: Body, cap: int = PREFIXES_PER_BODY) -> list[Variant]:
    """The body cut short after each of its top-level statements that asserts (the last one
    excepted: that is the whole body): the same calls in the same order, as far as that
    assertion. A prefix needs only what its own statements name, so a program with fewer
    headers than the test file's can still run it."""
    inner = text[body.start : body.end]
    code = strip_cpp(inner, dead_if=False)
    cuts = [end for start, end in _statements(code) if _ASSERTION.search(code[start:end])]
    out = []
    for end in cuts[:-1][:cap]:
        line = inner[:end].count("\n") + 1
        out.append(
            Variant(body.name, f"as far as body line {line}", inner[:end] + "\n}", body.fixture)
        )
    return out


def _statements(code: str) -> list[tuple[int, int]]:
    """The top-level statements of a body `{...}` (start, end after it): one ends at a `;`
    outside every bracket, or at the `}` that closes a compound statement (unless `else`,
    `while`, `catch` or a `;` goes on with it)."""
    out: list[tuple[int, int]] = []
    depth = 0  # braces, the body's own counted
    brackets = 0  # parentheses and square brackets
    start = 1
    for index, char in enumerate(code):
        if char in "([":
            brackets += 1
        elif char in ")]":
            brackets -= 1
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 1 and brackets == 0:
                rest = code[index + 1 :].lstrip()
                if not re.match(r"(?:else|while|catch)\b|[;,)]", rest):
                    out.append((start, index + 1))
                    start = index + 1
        elif char == ";" and depth == 1 and brackets == 0:
            out.append((start, index + 1))
            start = index + 1
    return out


def _literal_moves(inner: str, code: str) -> list[tuple[int, int, str]]:
    """Where a literal of the body may move, and to what: numbers, characters and strings."""
    blocked = _blocked_spans(code)
    out: list[tuple[int, int, str]] = []
    for match in _NUMBER.finditer(code):
        if _inside(match.start(), blocked):
            continue
        out.extend((match.start(1), match.end(1), new) for new in _number_moves(match.group(1)))
    for match in _INTEGER_TYPE.finditer(code):
        if _inside(match.start(), blocked):
            continue
        out.extend((match.start(), match.end(), new) for new in _type_moves(match.group(0)))
    for start in _quotes(code, '""'):
        end = _literal_end(inner, start, '"')
        if end is None or _inside(start, blocked):
            continue
        if start > 0 and (code[start - 1].isalnum() or code[start - 1] == "_"):
            continue  # a prefixed or raw literal (u8"", R"()"): left as written
        out.extend((start, end, f'"{new}"') for new in _string_moves(inner[start + 1 : end - 1]))
    for start in _quotes(code, "''"):
        end = _literal_end(inner, start, "'")
        if end is None or _inside(start, blocked) or (start > 0 and code[start - 1].isalnum()):
            continue
        content = inner[start + 1 : end - 1]
        if len(content) == 1 and content.isalnum():
            out.extend((start, end, f"'{new}'") for new in _char_moves(content))
    return out


def _quotes(code: str, pair: str) -> list[int]:
    """Where literals start: the lexer keeps a literal's two quotes together and blanks what
    was between them after."""
    return [m.start() for m in re.finditer(re.escape(pair), code)]


def _literal_end(text: str, start: int, quote: str) -> int | None:
    """After the closing quote of the literal that opens at `start` in the original text."""
    index = start + 1
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if char == quote:
            return index + 1
        if char == "\n":
            return None
        index += 1
    return None


def _blocked_spans(code: str) -> list[tuple[int, int]]:
    """Where a moved literal would make another program or none: preprocessor lines,
    `static_assert`s, array bounds and template arguments that hold only a literal."""
    spans = [(m.start(), m.end()) for m in re.finditer(r"(?m)^[ \t]*#.*$", code)]
    for match in re.finditer(r"\bstatic_assert\s*\(", code):
        end = _close_paren(code, match.end() - 1)
        spans.append((match.start(), end if end is not None else len(code)))
    spans += [(m.start(), m.end()) for m in re.finditer(r"\[[^\[\]]*\]", code)]
    template_literal = r"<\s*(?:[\w:]+\s*,\s*)?\d+[uUlL]*\s*>"
    spans += [(m.start(), m.end()) for m in re.finditer(template_literal, code)]
    return spans


def _close_paren(code: str, opening: int) -> int | None:
    depth = 0
    for index in range(opening, len(code)):
        if code[index] == "(":
            depth += 1
        elif code[index] == ")":
            depth -= 1
            if depth == 0:
                return index + 1
    return None


def _inside(pos: int, spans: Iterable[tuple[int, int]]) -> bool:
    return any(start <= pos < end for start, end in spans)


def _number_moves(literal: str) -> list[str]:
    """Neighbours of a number: one more, one less, zero, and a large one."""
    try:
        if literal.lower().startswith("0x"):
            value: float = int(literal, 16)
        elif "." in literal or "e" in literal.lower():
            value = float(literal)
        else:
            value = int(literal, 8 if len(literal) > 1 and literal.startswith("0") else 10)
    except ValueError:
        return []
    if isinstance(value, float):
        moved = [value + 1.0, value / 2 if value else 0.5, 0.0, value * 1e6]
        return list(dict.fromkeys(repr(v) for v in moved if v != value))
    # and one, two and three orders up (red team round 31: a check off only for magnitudes
    # from 99 to 999, between the tests' 42 and its thousandfold)
    moved_ints = [value + 1, value - 1, 0, value * 10 + 3, value * 100 + 7, value * 1000 + 7]
    return [str(v) for v in dict.fromkeys(moved_ints) if v != value and v >= 0]


def _every_type_moved(inner: str, code: str, move) -> str | None:
    """The body with each integer type it names moved by `move` (None: left as it is); None
    when it names fewer than two (one moved alone is an ordinary neighbour already)."""
    blocked = _blocked_spans(code)
    found = [m for m in _INTEGER_TYPE.finditer(code) if not _inside(m.start(), blocked)]
    if len(found) < 2:
        return None
    out, last = [], 0
    for match in found:
        out += [inner[last : match.start()], move(match.group(0)) or match.group(0)]
        last = match.end()
    out.append(inner[last:])
    return "".join(out)


def _qualified(qualifier: str):
    """A move to the same type `qualifier`-qualified, spelled through the standard trait so a
    type already qualified takes it twice without error (red team round 31 skipped the check
    for a `const` target)."""

    def move(name: str) -> str | None:
        return f"std::add_{qualifier}<{name}>::type"

    return move


def _other_signedness(name: str) -> str | None:
    bare = name.removeprefix("std::")
    prefix = name[: len(name) - len(bare)]
    if bare in ("int", "unsigned"):
        return "unsigned" if bare == "int" else "int"
    return prefix + (bare[1:] if bare.startswith("u") else "u" + bare)


def _resized(factor: float):
    """A move to `factor` times the width (None where there is no such type)."""
    plain = {
        0.5: {"int": "short", "unsigned": "unsigned short"},
        2: {"int": "long long", "unsigned": "unsigned long long"},
    }[factor]

    def move(name: str) -> str | None:
        bare = name.removeprefix("std::")
        prefix = name[: len(name) - len(bare)]
        fixed = re.fullmatch(r"(u?)int(8|16|32|64)_t", bare)
        if fixed is None:
            return plain.get(bare)
        width = int(int(fixed.group(2)) * factor)
        return f"{prefix}{fixed.group(1)}int{width}_t" if width in (8, 16, 32, 64) else None

    return move


def _bytes(name: str) -> str | None:
    """A move to the narrowest width, a byte (red team round 18 left byte targets unchecked)."""
    bare = name.removeprefix("std::")
    prefix = name[: len(name) - len(bare)]
    if bare in ("int", "unsigned"):
        return "signed char" if bare == "int" else "unsigned char"
    fixed = re.fullmatch(r"(u?)int(8|16|32|64)_t", bare)
    return f"{prefix}{fixed.group(1)}int8_t" if fixed else None


def _by_sign(signed: str, unsigned: str):
    """A move of every integer type to `signed` for the signed ones, `unsigned` for the others:
    character types (red team round 21 left char32_t, char16_t and wchar_t, which no test
    names, unchecked), or two types of one width that are not each other's signed and
    unsigned (round 46 checked the sign only across widths or between such twins: `long long`
    to `unsigned long` passed by)."""

    def move(name: str) -> str | None:
        bare = name.removeprefix("std::")
        return unsigned if bare == "unsigned" or bare.startswith("uint") else signed

    return move


def _unsigned(name: str) -> bool:
    bare = name.removeprefix("std::")
    return bare == "unsigned" or bare.startswith("uint")


def _only(unsigned: bool, move):
    """`move` for the types of one signedness alone, the others kept: a conversion's two sides
    at different widths (red team round 25: a sign check skipped where the target is narrower
    than the source, every move having kept the two at one width)."""

    def moved(name: str) -> str | None:
        return move(name) if _unsigned(name) == unsigned else None

    return moved


def _swapped_then(unsigned: bool, move):
    """The other signedness, then `move` for the types that have become of the one given, the
    others swapped alone: an unsigned source twice the width of a signed target (red team
    round 25: `narrow<int>(size - 1)` from an empty vector, checked only at equal widths)."""

    def moved(name: str) -> str | None:
        swapped = _other_signedness(name)
        if swapped is None or _unsigned(swapped) != unsigned:
            return swapped
        return move(swapped) or swapped

    return moved


def _both(first, then):
    """Two moves made one after the other (None where either has no type)."""

    def move(name: str) -> str | None:
        moved = first(name)
        return then(moved) if moved is not None else None

    return move


_EVERY_TYPE_MOVES = (
    ("every integer type with its other signedness", _other_signedness),
    ("every integer type at half its width", _resized(0.5)),
    ("every integer type at twice its width", _resized(2)),
    ("every integer type at 8 bits", _bytes),
    # the other signedness at another width, at once (red team round 21: a sign read wrong
    # only for unsigned 64-bit sources, from a test of signed 32-bit ones)
    (
        "every integer type with its other signedness at twice its width",
        _both(_other_signedness, _resized(2)),
    ),
    (
        "every integer type with its other signedness at half its width",
        _both(_other_signedness, _resized(0.5)),
    ),
    ("every signed integer type at half its width", _only(False, _resized(0.5))),
    ("every unsigned integer type at half its width", _only(True, _resized(0.5))),
    (
        "every integer type with its other signedness, the unsigned ones at twice its width",
        _swapped_then(True, _resized(2)),
    ),
    (
        "every integer type with its other signedness, the signed ones at twice its width",
        _swapped_then(False, _resized(2)),
    ),
    ("every integer type const-qualified", _qualified("const")),
    ("every integer type volatile-qualified", _qualified("volatile")),
)


def _type_moves(name: str) -> list[str]:
    """Neighbours of an integer type: half and double the width, and the other signedness
    (the other types a template or an overload accepts for the same argument)."""
    bare = name.removeprefix("std::")
    prefix = name[: len(name) - len(bare)]
    fixed = re.fullmatch(r"(u?)int(8|16|32|64)_t", bare)
    if fixed:
        sign, width = fixed.group(1), int(fixed.group(2))
        widths = [w for w in (width // 2, width * 2) if w in (8, 16, 32, 64)]
        other = "" if sign else "u"
        return [f"{prefix}{sign}int{w}_t" for w in widths] + [f"{prefix}{other}int{width}_t"]
    return list(_PLAIN_TYPE_MOVES.get(bare, ()))


def _string_moves(content: str) -> list[str]:
    """Neighbours of a string literal's source text: empty, one character more or less, and
    one more non-ASCII character."""
    moved = ["", content + content[-1:] if content else "x", content + "\\xc3\\xa9"]
    if content and not content.endswith("\\"):
        shorter = content[:-1]
        if not shorter.endswith("\\") and not re.search(r"\\[0-7]{0,2}$|\\x[0-9a-fA-F]*$", shorter):
            moved.append(shorter)
    if content.endswith("\\") or re.search(r"\\x[0-9a-fA-F]*$", content):
        moved = [m for m in moved if not m.startswith(content) or m == content]
    return [m for m in dict.fromkeys(moved) if m != content]


def _char_moves(content: str) -> list[str]:
    char = content
    moved = [chr(ord(char) + 1), char.swapcase()]
    return [m for m in dict.fromkeys(moved) if m != char and (m.isalnum())]


def program(
    text: str,
    all_bodies: Sequence[Body],
    names: Names,
    every: Sequence[Variant],
    keep_include: Callable[[str], bool] | None = None,
    bare: bool = False,
) -> Program:
    """The test file as a user's program: the framework's includes and every test body taken
    out, the grader's support after the last include, and one function per variant. With
    `keep_include` (an include's header name -> keep it?), only the includes it keeps stay.
    `bare`: the support includes nothing and prints nothing, and the main is a translation unit
    of its own (`Program.main`): nothing of the grader's is in the unit the bodies compile in."""
    code = strip_cpp(text, dead_if=False)
    spans = [(b.head, b.end) for b in all_bodies]
    for match in _FRAMEWORK_STATEMENT.finditer(code):
        end = _close_paren(code, match.end() - 1)
        if end is not None:
            semicolon = end + 1 if code[end : end + 1] == ";" else end
            spans.append((match.start(), semicolon))
    kept = _blank(text, spans)
    lines = kept.split("\n")
    for index, line in enumerate(lines):
        named = _INCLUDED.match(line)
        if _FRAMEWORK_INCLUDE.match(line) or (
            keep_include is not None and named is not None and not keep_include(named.group(1))
        ):
            lines[index] = ""
    last_include = max((i for i, line in enumerate(lines) if _INCLUDE.match(line)), default=-1)
    head = lines[: last_include + 1]
    tail = lines[last_include + 1 :]
    pieces = [*head, bare_support(names) if bare else support(names), *tail]
    out = "\n".join(pieces).split("\n")
    prelude_end = len(out)
    spans_out: list[tuple[int, int]] = []
    for index, variant in enumerate(every):
        first = len(out) + 1
        out.extend(_function(names, index, variant, "" if bare else "static ").split("\n"))
        spans_out.append((first, len(out)))
    separate = main_unit(names, len(every)) if bare else ""
    if not bare:
        out.extend(main(names, len(every)).split("\n"))
    return Program("\n".join(out) + "\n", tuple(every), tuple(spans_out), prelude_end, separate)


def _function(names: Names, index: int, variant: Variant, linkage: str) -> str:
    """The variant as a function of the program. A fixture's body is a member of a class
    derived from the fixture, run as GoogleTest runs it: the suite's set-up, the object made,
    SetUp, the body, TearDown, the object gone, the suite's tear-down."""
    name = f"{names.case}{index}"
    if not variant.fixture:
        return f"{linkage}void {name}()\n{variant.text}"
    # Members of the derived class, so that what the fixture keeps protected is theirs to call.
    return (
        f"struct {name}_t final : {variant.fixture} {{\n"
        f"  void {name}_body();\n"
        f"  void {name}_run() {{ SetUp(); {name}_body(); TearDown(); }}\n"
        f"  static void {name}_suite() {{\n"
        f"    SetUpTestSuite();\n    {{ {name}_t t; t.{name}_run(); }}\n    TearDownTestSuite();\n"
        "  }\n"
        "};\n"
        f"{linkage}void {name}() {{ {name}_t::{name}_suite(); }}\n"
        f"void {name}_t::{name}_body()\n{variant.text}"
    )


def _blank(text: str, spans: Iterable[tuple[int, int]]) -> str:
    chars = list(text)
    for start, end in spans:
        for index in range(start, min(end, len(chars))):
            if chars[index] != "\n":
                chars[index] = " "
    return "".join(chars)


@dataclass(frozen=True)
class Names:
    """The program's own names, drawn per grade: no header can name them in advance."""

    space: str
    case: str
    done: int  # the status a case's child exits with when it came back (one more: unheld)

    @classmethod
    def drawn(cls, token: str) -> Names:
        done = 16 + zlib.crc32(token.encode()) % 96
        return cls(space=f"pw_user_{token}", case=f"pw_case_{token}_", done=done)


def support(names: Names) -> str:
    """Printing of observations and the framework's assertion macros, as the program's own."""
    text = _read("pw_user_support.hpp") + _read("pw_user_macros.hpp")
    return text.replace("PWNS", names.space)


def bare_support(names: Names) -> str:
    """The framework's assertion macros over checks that include and print nothing."""
    return (_read("pw_user_bare.hpp") + _read("pw_user_macros.hpp")).replace("PWNS", names.space)


_MAIN_UNIT_PRELUDE = """\
#include <cstdio>
#include <exception>
#include <string>
#include <typeinfo>
namespace PWNS {
int& unheld() { static int count = 0; return count; }
inline bool kept(bool held) { if (!held) ++unheld(); return held; }
inline void say(const std::string& line) {
  std::string out = line + "\\n";
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
}
}  // namespace PWNS
"""


def main_unit(names: Names, count: int) -> str:
    """A bare program's main as a translation unit of its own: the count of assertions that did
    not hold, and the cases it runs, declared."""
    declared = "".join(f"void {names.case}{i}();\n" for i in range(count))
    prelude = _MAIN_UNIT_PRELUDE.replace("PWNS", names.space)
    return prelude + declared + main(names, count)


def main(names: Names, count: int) -> str:
    """Each case in a child process of its own, its output kept in a file (a user's redirect,
    not the harness's pipe) and read after it ended, so a crash or a hang of one case is its
    outcome and not the next one's; the report is written by the parent alone: `<index>
    <status> <length>` then the output's bytes."""
    table = ", ".join(f"{names.case}{i}" for i in range(count))
    return (
        _read("pw_user_main.cpp")
        .replace("PWNS", names.space)
        .replace("PWTABLE", table or "0")
        .replace("PWCOUNT", str(count))
        .replace("PWSECONDS", str(CASE_SECONDS))
        .replace("PWBYTES", str(OUTPUT_BYTES))
        .replace("PWDONE", str(names.done))
    )


def error_lines(output: str, filename: str) -> set[int]:
    """The lines of `filename` a compiler's errors point at (an instantiation's `required from
    here` too)."""
    pattern = re.compile(re.escape(filename) + r":(\d+):(?:\d+:)?")
    return {int(m.group(1)) for m in pattern.finditer(output)}


def failing_variants(spans: Sequence[tuple[int, int]], lines: set[int]) -> tuple[set[int], bool]:
    """The variants whose lines (`spans`: each variant's first and last line in the program, a
    `Program`'s or a `cpp_plain_program.PlainProgram`'s `lines`) the error lines fall in, and
    whether any falls outside every variant (the file's own code or the support: no variant
    dropped mends that)."""
    hit: set[int] = set()
    outside = False
    for line in lines:
        found = [i for i, (a, b) in enumerate(spans) if a <= line <= b]
        if found:
            hit.update(found)
        else:
            outside = True
    return hit, outside


CAME_BACK = "came back"
UNHELD = "came back, an assertion did not hold"


def read_report(data: bytes, done: int) -> dict[int, tuple[str, str]]:
    """The program's report: case index -> (how it ended, what it printed). `done`: the status
    the program's children exit with when their case returned (`Names.done`)."""
    out: dict[int, tuple[str, str]] = {}
    pos = 0
    while pos < len(data):
        newline = data.find(b"\n", pos)
        if newline < 0:
            break
        fields = data[pos:newline].split()
        if len(fields) != 3 or not all(f.lstrip(b"-").isdigit() for f in fields):
            break
        index, status, length = (int(f) for f in fields)
        start = newline + 1
        chunk = data[start : start + length]
        if len(chunk) < length:
            break
        out[index] = (_ending(status, done), chunk.decode("utf-8", "replace"))
        pos = start + length + 1
    return out


def _ending(status: int, done: int) -> str:
    if status == done:
        return CAME_BACK
    if status == done + 1:
        return UNHELD
    if status == -1:
        return "timed out"
    if status >= 128:
        return f"killed by signal {status - 128}"
    return f"exited {status}"


def unheld(program_: Program, report: dict[int, tuple[str, str]]) -> dict[str, str]:
    """The tests whose own statements (the body, or a prefix of it: no literal moved) did not
    come back with every assertion held, and how the first that did not ended: its first
    observation that did not hold, or its ending."""
    out: dict[str, str] = {}
    for index, variant in enumerate(program_.variants):
        if variant.moved or variant.test in out:
            continue
        where = f" ({variant.varied})" if variant.varied else ""
        if index not in report:
            out[variant.test] = "the program ended before this case" + where
            continue
        ending, printed = report[index]
        if ending == CAME_BACK:
            continue
        failed = [line for line in printed.split("\n") if _unheld_line(line)]
        out[variant.test] = (f"{ending}: {failed[0][:200]}" if failed else ending) + where
    return out


_MAIN_HEAD = re.compile(r"\b(?:int|auto)\s+main\s*\([^)]*\)\s*(?:->\s*int\s*)?\{")
# What a GoogleTest main may do that sets nothing up for a test: parse the framework's flags,
# run the tests, return.
_FRAMEWORK_ONLY = re.compile(
    r"^(?:(?:::)?testing::(?:InitGoogleTest|InitGoogleMock)\s*\(.*\)"
    r"|(?:(?:::)?testing::)?GTEST_FLAG_SET\s*\(.*\)"
    r"|(?:(?:::)?testing::)?GTEST_FLAG\s*\(\s*\w+\s*\)\s*=.*"
    r"|(?:return\s+)?(?:int\s+\w+\s*=\s*)?RUN_ALL_TESTS\s*\(\s*\)"
    r"|return\s+\w+|return\s+0|\(void\)\s*\w+)$",
    re.DOTALL,
)


def test_main_setup(text: str) -> str:
    """What a test program's own `main` does besides GoogleTest's flags and run (a statement,
    cut short), or "" when it does nothing else or `text` holds no main that runs the tests: a
    body may honestly lean on what such a main set up, which a user's program does not do."""
    code = strip_cpp(text, dead_if=False)
    head = _MAIN_HEAD.search(code)
    if head is None or "RUN_ALL_TESTS" not in code[head.end() :]:
        return ""
    closing = _matching(code, head.end() - 1)
    end = closing if closing is not None else len(code)
    for piece in re.finditer(r"[^;{}]+", code[head.end() : end]):
        said = " ".join(piece.group(0).split())
        if said and not _FRAMEWORK_ONLY.match(said):
            start = head.end() + piece.start()
            return " ".join(text[start : start + len(piece.group(0))].split())[:120]
    return ""


def _unheld_line(line: str) -> bool:
    """An observation that says an assertion did not hold (for a witness: the exit status is
    what decides)."""
    if line.endswith(" false") or line == "did not throw" or line.startswith("uncaught "):
        return True
    return line.startswith("threw ") and line != "threw the expected exception"


def first_difference(reference: str, patch: str) -> tuple[str, str]:
    """The first observation on which two outputs differ, numbered, for the witness."""
    ref_lines, pat_lines = reference.split("\n"), patch.split("\n")
    for index in range(max(len(ref_lines), len(pat_lines))):
        ref = ref_lines[index] if index < len(ref_lines) else "(nothing more)"
        pat = pat_lines[index] if index < len(pat_lines) else "(nothing more)"
        if ref != pat:
            return f"#{index + 1} {ref}", f"#{index + 1} {pat}"
    return reference, patch


@functools.cache
def _read(name: str) -> str:
    return (Path(__file__).resolve().parent / "probe" / name).read_text()
