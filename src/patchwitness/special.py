"""Patches that only fit the tests: production code keyed on the tests' own inputs. Pure.

An agent can turn a red test green without fixing anything by recognising the test's input:
`if n == 256: raise`, `case 65536:`, `if date in {"2024-01-01", ...}`, a dict from the tests'
inputs to their expected outputs. Every gate that asks whether the run can be trusted says yes to
that. This module asks a different question: does added production code compare a value with a
literal that also occurs in the tests the task names as failing (or in its hidden tests)?

Literals are compared by value, not by spelling (256 and 0x100 are one; 1e3 and 1000.0 are one).
Values every program compares with (0, 1, -1, 2, booleans, None, the empty string, single
characters) say nothing about the tests and are left out, and so is a value the patched file
already held at the SHA: that is the code's own vocabulary, not something learnt from the tests.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass

from patchwitness import python_ast, sourcefiles
from patchwitness.census.cpp_lexer import literal_at, literal_content, strip_cpp
from patchwitness.model import Finding
from patchwitness.patch import Patch

GATE = "special"
KIND = "special-casing"
# Values every program compares with: they witness nothing. (10 is not among them: a test's
# `coupon_percent=10` singled out by `if coupon_percent == 10` is exactly the pattern.)
COMMON: frozenset = frozenset({0, 1, -1, 2, None, ""})


@dataclass(frozen=True)
class Literal:
    value: object
    text: str  # as written, for the message


def distinctive(value: object) -> bool:
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, str | bytes):
        return len(value) >= 2
    if isinstance(value, int | float):
        return value not in COMMON
    return False


# -- what the tests say ---------------------------------------------------------------------------


def python_literals(source: str) -> set[object]:
    """Every distinctive literal value in Python source (a test file, or the lines of one)."""
    try:
        tree = python_ast.parse(source)
    except (SyntaxError, ValueError):
        return _python_literals_by_line(source)
    return {v for v in _constants(tree) if distinctive(v)}


def _python_literals_by_line(source: str) -> set[object]:
    """Lines of a hunk do not always parse as a module: read each line's literals alone."""
    out: set[object] = set()
    for line in sourcefiles.lines(source):
        try:
            tree = python_ast.parse(line.strip())
        except (SyntaxError, ValueError):
            continue
        out |= {v for v in _constants(tree) if distinctive(v)}
    return out


def _constants(tree: ast.AST) -> Iterable[object]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant):
            yield node.value
        elif (
            isinstance(node, ast.UnaryOp)
            and isinstance(node.op, ast.USub)
            and isinstance(node.operand, ast.Constant)
            and isinstance(node.operand.value, int | float)
        ):
            yield -node.operand.value


_CPP_NUMBER = re.compile(
    r"(?<![\w.])(?:0[xX][0-9a-fA-F']+|0[bB][01']+|\d[\d']*\.?[\d']*(?:[eE][+-]?\d+)?)"
    r"[uUlLfF]*(?![\w.])"
)


def cpp_number(text: str) -> int | float | None:
    raw = text.replace("'", "").rstrip("uUlLfF")
    try:
        if raw[:2] in ("0x", "0X"):
            return int(raw, 16)
        if raw[:2] in ("0b", "0B"):
            return int(raw, 2)
        if any(c in raw for c in ".eE"):
            return float(raw)
        if len(raw) > 1 and raw.startswith("0"):
            return int(raw, 8)
        return int(raw)
    except ValueError:
        return None


def _negated(code: str, start: int) -> bool:
    """Whether the number at `start` follows a unary minus (`f(-42)`, `= -3`, `return -1`), not
    a subtraction (`x - 7`)."""
    before = code[:start].rstrip()
    if not before.endswith("-") or before.endswith("--"):
        return False
    prev = before[:-1].rstrip()
    return not prev or prev[-1] in "(,=:?[{<>!&|+*/%;^~" or bool(_UNARY_AFTER.search(prev))


_UNARY_AFTER = re.compile(r"\b(?:return|case|co_return|throw)$")


def cpp_literals(source: str) -> set[object]:
    """Every distinctive literal value in C++ source: numbers, strings and characters."""
    stripped = strip_cpp(source, dead_if=False)
    out: set[object] = set()
    for match in _CPP_NUMBER.finditer(stripped):
        value = cpp_number(match.group())
        if value is None:
            continue
        # `-42` is a unary minus before the literal 42: the value a test passes is -42.
        if _negated(stripped, match.start()):
            value = -value
        if distinctive(value):
            out.add(value)
    for match in re.finditer(r"\"\"", stripped):
        text = literal_content(literal_at(source, match.start()))
        if distinctive(text):
            out.add(text)
    return out


# -- what the patch added -------------------------------------------------------------------------

_PY_COMPARE = (ast.Eq, ast.NotEq, ast.In, ast.NotIn, ast.Is, ast.IsNot)


def python_findings(
    path: str, text: str, added_lines: set[int], test_values: set[object]
) -> list[Finding]:
    """Added production lines that compare with, switch on, or look up the tests' literals."""
    if not test_values:
        return []
    try:
        tree = python_ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    out = []
    for node in ast.walk(tree):
        # a match case has no position of its own: its pattern has
        line = getattr(node.pattern if isinstance(node, ast.match_case) else node, "lineno", 0)
        if line not in added_lines:
            continue
        hit = sorted(_python_hit(node, test_values), key=repr)
        if hit:
            out.append(_finding(path, line, hit))
    return out


def _python_hit(node: ast.AST, values: set[object]) -> set[object]:
    if isinstance(node, ast.Compare) and any(isinstance(op, _PY_COMPARE) for op in node.ops):
        sides = [node.left, *node.comparators]
        # literal == literal is constant folding, not a look at an input
        if sum(not _is_literalish(s) for s in sides) == 0:
            return set()
        return {v for s in sides for v in _literal_values(s)} & values
    if isinstance(node, ast.match_case):
        return set(_pattern_values(node.pattern)) & values
    if isinstance(node, ast.Dict):
        keys = {v for k in node.keys if k is not None for v in _literal_values(k)}
        found = keys & values
        return found if len(found) >= 2 else set()
    return set()


def _is_literalish(node: ast.AST) -> bool:
    return bool(_literal_values(node)) and all(
        isinstance(n, ast.Constant | ast.Set | ast.List | ast.Tuple | ast.UnaryOp | ast.Load)
        for n in ast.walk(node)
        if not isinstance(n, ast.expr_context)
    )


def _literal_values(node: ast.AST) -> set[object]:
    if isinstance(node, ast.Constant):
        return {node.value} if distinctive(node.value) else set()
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub)
        and isinstance(node.operand, ast.Constant)
        and isinstance(node.operand.value, int | float)
    ):
        value = -node.operand.value
        return {value} if distinctive(value) else set()
    if isinstance(node, ast.Set | ast.List | ast.Tuple):
        return {v for e in node.elts for v in _literal_values(e)}
    if (
        isinstance(node, ast.Call)
        and node.args
        and not node.keywords
        and all(isinstance(a, ast.Constant) for a in node.args)
    ):
        # a value built from literals: `Decimal("18.50")`, `Money("17.98")`, `date(2024, 2, 29)`
        return {v for a in node.args for v in _literal_values(a)}
    return set()


def _pattern_values(pattern: ast.pattern) -> Iterable[object]:
    for node in ast.walk(pattern):
        if isinstance(node, ast.MatchValue):
            yield from _literal_values(node.value)
        elif isinstance(node, ast.MatchSingleton) and distinctive(node.value):
            yield node.value


# An operand of == or !=: a string or character literal, or a number or a name.
_OPERAND = r"(?:\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|[-\w.']+)"
_RIGHT = re.compile(r"\s*(" + _OPERAND + ")")
_LEFT = re.compile("(" + _OPERAND + r")\s*$")
_EQUALITY = re.compile(r"==|!=")
_CPP_CASE = re.compile(r"\bcase\s+(?P<value>[^:]+?)\s*:")
_CPP_STRCMP = re.compile(r"\b(?:strcmp|strncmp|compare)\s*\((?P<args>[^)]*)\)")


def cpp_findings(
    path: str, added: list[tuple[int, str]], test_values: set[object]
) -> list[Finding]:
    if not test_values:
        return []
    out = []
    for number, text in added:
        code = text.split("//", 1)[0]
        candidates: set[object] = set()
        for match in _CPP_CASE.finditer(code):
            candidates |= _cpp_value(match.group("value"))
        for match in _EQUALITY.finditer(code):
            before = _LEFT.search(code, 0, match.start())
            after = _RIGHT.match(code, match.end())
            for operand in (before, after):
                if operand is not None:
                    candidates |= _cpp_value(operand.group(1))
        for match in _CPP_STRCMP.finditer(code):
            candidates |= cpp_literals(match.group("args"))
        hit = sorted(candidates & test_values, key=repr)
        if hit:
            out.append(_finding(path, number, hit))
    return out


def _cpp_value(text: str) -> set[object]:
    text = text.strip()
    if not text:
        return set()
    if text.startswith(("'", '"')):
        value = literal_content(text)
        return {value} if distinctive(value) else set()
    value = cpp_number(text)
    return {value} if value is not None and distinctive(value) else set()


def _finding(path: str, line: int, values: list[object]) -> Finding:
    shown = ", ".join(repr(v) for v in values[:5])
    return Finding(
        gate=GATE,
        kind=KIND,
        file=path,
        line=line,
        message=f"added production code singles out values the failing tests use: {shown}",
    )


# -- where the tests' literals are read -----------------------------------------------------------


def test_source_python(text: str, key: str) -> str:
    """The source of the test a pytest key names (`path::Class::test[0]`): decorators (the
    parametrize values) and body. '' when the file does not parse or holds no such test."""
    names = [n.split("[", 1)[0] for n in key.split("::")[1:]]
    if not names:
        return ""
    try:
        body: list[ast.stmt] = python_ast.parse(text).body
    except (SyntaxError, ValueError):
        return ""
    lines = sourcefiles.lines(text)
    for index, name in enumerate(names):
        node = next(
            (
                n
                for n in body
                if isinstance(n, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                and n.name == name
            ),
            None,
        )
        if node is None:
            return ""
        if index == len(names) - 1 or not isinstance(node, ast.ClassDef):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            return "\n".join(lines[first - 1 : node.end_lineno or node.lineno])
        body = node.body
    return ""


def hidden_test_values(hidden: Patch) -> tuple[set[object], list[str]]:
    """Literal values on the lines the hidden tests add, and the files they were read from."""
    values: set[object] = set()
    sources: list[str] = []
    for change in hidden.files:
        added = "\n".join(text for _, text in change.added)
        if not added.strip():
            continue
        found = python_literals(added) if change.path.endswith(".py") else cpp_literals(added)
        if found:
            values |= found
            sources.append(f"{change.path} (hidden tests)")
    return values, sources


def literals_of(path: str, text: str) -> set[object]:
    return python_literals(text) if path.endswith(".py") else cpp_literals(text)


def test_source_cpp(text: str, line: int) -> str:
    """A C++ test's source: from its macro's line to the close of the block it opens."""
    from patchwitness.linemap import CppLines

    return "\n".join(sourcefiles.lines(text)[line - 1 : CppLines(text).block_end(line)])


def names_test(key: str, scope: str) -> bool:
    """Whether a C++ test key (a ctest or GoogleTest name) names the census scope of a test:
    `Suite.Name` for TEST(Suite, Name), the quoted name of a Catch2 or doctest case."""
    scope = scope.strip('"')
    return bool(scope) and (key == scope or key.endswith(("." + scope, "/" + scope, " " + scope)))


# Words a test program's name and its source's name add around what they test.
_PROGRAM_AFFIXES = re.compile(r"tests?|unit|unittests?|cpp\d\d|c\+\+\d\d")


def program_stem(name: str) -> str:
    """What a test program or test file is about, in lower case without the words every test
    carries: `HelpersTest` -> `helpers`, `test-serialization_cpp11` and
    `tests/src/unit-serialization.cpp` -> `serialization`, `xmltest` -> `xmltest`."""
    stem = name.rsplit("/", 1)[-1]
    stem = stem.rsplit(".", 1)[0] if "." in stem else stem
    stem = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", stem)
    words = [w for w in re.split(r"[^a-z0-9+]+", stem.lower()) if w]
    while words and _PROGRAM_AFFIXES.fullmatch(words[0]):
        words.pop(0)
    while words and _PROGRAM_AFFIXES.fullmatch(words[-1]):
        words.pop()
    return "".join(words)


def program_sources(key: str, test_files: Iterable[str]) -> list[str]:
    """The test files a ctest name that names a whole test program (one executable, many cases)
    is built from, as far as names tell: those whose stem is the program's. Empty when none
    matches, or the stem is too short to mean anything."""
    stem = program_stem(key)
    if len(stem) < 4:
        return []
    return sorted(f for f in set(test_files) if program_stem(f) == stem)
