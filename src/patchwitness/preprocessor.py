"""The conditional structure of a C or C++ file, and the value of its `#if` expressions under a
set of macros. Pure.

    groups = conditionals(text)
    active(line, groups, {"__cplusplus": 201402}) -> True, False or None (cannot tell)

Enough of the preprocessor to tell which lines a build compiles when it differs from another in a
few known macros (the language dialect, a test framework's): identifiers it does not know are 0,
as the preprocessor takes them; `defined`, `__has_include` (answered from a set of headers), the
C operators, and object-like macros the file itself defines. A function-like macro in a condition
makes its value unknown (None), and an unknown is never taken for a difference.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from patchwitness import sourcefiles
from patchwitness.census.cpp_lexer import blank_comments

_DIRECTIVE = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|else|endif|define)\b(.*)$")
_TOKEN = re.compile(
    r"\s*(?:(?P<num>0[xX][0-9a-fA-F]+|\d+)[uUlL]*|(?P<name>[A-Za-z_]\w*)"
    r"|(?P<op>&&|\|\||==|!=|<=|>=|<<|>>|[-+*/%<>!~&|^?:(),]))"
)
_HAS_INCLUDE = re.compile(r"__has_include(?:_next)?\s*\(\s*([<\"][^>\"]*[>\"])\s*\)")


@dataclass(frozen=True)
class Arm:
    """One arm of a conditional group: the directive's line, its condition (for `#else`, the
    negation of the arms before it), the lines it holds, and the arm around it."""

    line: int
    kind: str  # if | ifdef | ifndef | elif | else
    condition: str
    first: int
    last: int
    earlier: tuple[str, ...] = ()  # conditions of the earlier arms of the same group
    parent: int | None = None  # index of the enclosing arm


def strip_comments(text: str) -> str:
    """Comments blanked, line breaks kept (so line numbers stay). Literals are read as the
    lexer reads them, raw strings included: a `//` or `/*` inside one starts no comment (else a
    literal could hide the rest of its line from every scan)."""
    return blank_comments(text)


def conditionals(text: str) -> list[Arm]:
    """Every arm of every `#if` group, outermost first within a group."""
    lines = _spans(strip_comments(text))
    arms: list[Arm] = []
    stack: list[list[int]] = []  # open groups: indices of their arms
    open_arm: list[int] = []  # the arm each open group is in
    for number, last_line, line in lines:
        match = _DIRECTIVE.match(line)
        if match is None:
            continue
        kind, rest = match.group(1), match.group(2).strip()
        if kind == "define":
            continue
        if kind in ("if", "ifdef", "ifndef"):
            condition = {"ifdef": f"defined({rest})", "ifndef": f"!defined({rest})"}.get(kind, rest)
            parent = open_arm[-1] if open_arm else None
            arms.append(Arm(number, kind, condition, last_line + 1, number, (), parent))
            stack.append([len(arms) - 1])
            open_arm.append(len(arms) - 1)
        elif kind in ("elif", "else") and stack:
            _close(arms, open_arm[-1], number - 1)
            earlier = tuple(arms[i].condition for i in stack[-1])
            condition = rest if kind == "elif" else "1"
            parent = arms[stack[-1][0]].parent
            arms.append(Arm(number, kind, condition, last_line + 1, number, earlier, parent))
            stack[-1].append(len(arms) - 1)
            open_arm[-1] = len(arms) - 1
        elif kind == "endif" and stack:
            _close(arms, open_arm[-1], number - 1)
            stack.pop()
            open_arm.pop()
    end = lines[-1][1] if lines else 0
    for index in open_arm:
        _close(arms, index, end)
    return arms


def _close(arms: list[Arm], index: int, last: int) -> None:
    arm = arms[index]
    arms[index] = Arm(arm.line, arm.kind, arm.condition, arm.first, last, arm.earlier, arm.parent)


def _logical_lines(text: str) -> list[tuple[int, str]]:
    """(number of the first physical line, text) with backslash continuations joined."""
    return [(start, line) for start, _, line in _spans(text)]


def _spans(text: str) -> list[tuple[int, int, str]]:
    """(first physical line, last physical line, text) of each logical line."""
    out: list[tuple[int, int, str]] = []
    pending, start = "", 0
    number = 0
    for number, raw in enumerate(sourcefiles.lines(text), start=1):
        if not pending:
            start = number
        if raw.endswith("\\"):
            pending += raw[:-1] + " "
            continue
        out.append((start, number, pending + raw))
        pending = ""
    if pending:
        out.append((start, number, pending))
    return out


def defines(text: str) -> dict[str, str]:
    """Object-like macros the file defines (`#define NAME value`), last definition wins."""
    return {name: m.body or "1" for name, m in macros(text).items() if m.params is None}


_DEFINE = re.compile(r"^\s*#\s*define\s+([A-Za-z_]\w*)", re.MULTILINE)


def defined_names(text: str) -> set[str]:
    """Every macro the text defines, object-like or function-like."""
    return set(_DEFINE.findall(text))


def names(condition: str) -> set[str]:
    """The identifiers a condition reads (`defined(X)` reads X)."""
    return {m.group("name") for m in _TOKEN.finditer(condition) if m.group("name")} - {
        "defined",
        "__has_include",
        "__has_include_next",
    }


def included(condition: str) -> set[str]:
    """The headers a condition's `__has_include(...)` asks for, without their brackets."""
    return {h[1:-1] for h in _HAS_INCLUDE.findall(condition)}


class _Unknown(Exception):
    pass


def evaluate(
    condition: str,
    macros: Mapping[str, int | str],
    has_include: Callable[[str], bool] = lambda header: False,
    depth: int = 0,
) -> int | None:
    """The value of an `#if` expression; None when it cannot be told (a function-like macro,
    a syntax this evaluator does not read)."""
    condition = _HAS_INCLUDE.sub(lambda m: "1" if has_include(m.group(1)[1:-1]) else "0", condition)
    try:
        tokens = _tokens(condition, macros, depth)
        value, rest = _ternary(tokens, 0)
        if rest != len(tokens):
            return None
        return value
    except (_Unknown, IndexError, ZeroDivisionError, RecursionError):
        return None


def _tokens(condition: str, macros: Mapping[str, int | str], depth: int) -> list[object]:
    raw = [m for m in _TOKEN.finditer(condition) if m.group(0).strip()]
    if "".join(m.group(0) for m in raw).replace(" ", "") != condition.replace(" ", "").replace(
        "\t", ""
    ):
        raise _Unknown
    out: list[object] = []
    index = 0
    while index < len(raw):
        match = raw[index]
        name, op = match.group("name"), match.group("op")
        if match.group("num"):
            out.append(int(match.group("num"), 0))
        elif name in ("defined",):
            index, target = _operand(raw, index + 1)
            out.append(1 if target in macros else 0)
        elif name is not None:
            if index + 1 < len(raw) and raw[index + 1].group("op") == "(":
                raise _Unknown  # a function-like macro
            value = macros.get(name, 0)
            if isinstance(value, str):
                if depth > 8:
                    raise _Unknown
                found = evaluate(value, macros, depth=depth + 1)
                if found is None:
                    raise _Unknown
                value = found
            out.append(int(value))
        elif op is not None:
            out.append(op)
        else:
            raise _Unknown
        index += 1
    return out


def _operand(raw: list[re.Match[str]], index: int) -> tuple[int, str]:
    """`defined X` or `defined ( X )`: the index of the operand's last token, and its name."""
    if raw[index].group("op") == "(":
        return index + 2, raw[index + 1].group("name") or ""
    return index, raw[index].group("name") or ""


_BINARY = [
    ("||",),
    ("&&",),
    ("|",),
    ("^",),
    ("&",),
    ("==", "!="),
    ("<", ">", "<=", ">="),
    ("<<", ">>"),
    ("+", "-"),
    ("*", "/", "%"),
]


def _ternary(tokens: list[object], at: int) -> tuple[int, int]:
    value, at = _binary(tokens, at, 0)
    if at < len(tokens) and tokens[at] == "?":
        yes, at = _ternary(tokens, at + 1)
        if tokens[at] != ":":
            raise _Unknown
        no, at = _ternary(tokens, at + 1)
        return (yes if value else no), at
    return value, at


def _binary(tokens: list[object], at: int, level: int) -> tuple[int, int]:
    if level == len(_BINARY):
        return _unary(tokens, at)
    value, at = _binary(tokens, at, level + 1)
    while at < len(tokens) and tokens[at] in _BINARY[level]:
        op = tokens[at]
        right, at = _binary(tokens, at + 1, level + 1)
        value = _apply(str(op), value, right)
    return value, at


def _apply(op: str, a: int, b: int) -> int:
    if op == "/":
        return int(a / b)
    if op == "%":
        return a - b * int(a / b)
    return {
        "||": lambda: int(bool(a) or bool(b)),
        "&&": lambda: int(bool(a) and bool(b)),
        "|": lambda: a | b,
        "^": lambda: a ^ b,
        "&": lambda: a & b,
        "==": lambda: int(a == b),
        "!=": lambda: int(a != b),
        "<": lambda: int(a < b),
        ">": lambda: int(a > b),
        "<=": lambda: int(a <= b),
        ">=": lambda: int(a >= b),
        "<<": lambda: a << b,
        ">>": lambda: a >> b,
        "+": lambda: a + b,
        "-": lambda: a - b,
        "*": lambda: a * b,
    }[op]()


def _unary(tokens: list[object], at: int) -> tuple[int, int]:
    token = tokens[at]
    if token == "!":
        value, at = _unary(tokens, at + 1)
        return int(not value), at
    if token == "-":
        value, at = _unary(tokens, at + 1)
        return -value, at
    if token == "+":
        return _unary(tokens, at + 1)
    if token == "~":
        value, at = _unary(tokens, at + 1)
        return ~value, at
    if token == "(":
        value, at = _ternary(tokens, at + 1)
        if tokens[at] != ")":
            raise _Unknown
        return value, at + 1
    if isinstance(token, int):
        return token, at + 1
    raise _Unknown


def arm_is_taken(
    arm: Arm, macros: Mapping[str, int | str], has_include: Callable[[str], bool]
) -> bool | None:
    """Whether the build compiles this arm (its group's earlier arms all false, its own true)."""
    for earlier in arm.earlier:
        value = evaluate(earlier, macros, has_include)
        if value is None:
            return None
        if value:
            return False
    value = evaluate(arm.condition, macros, has_include)
    return None if value is None else bool(value)


def active(
    line: int,
    arms: list[Arm],
    macros: Mapping[str, int | str],
    has_include: Callable[[str], bool] = lambda header: False,
) -> bool | None:
    """Whether the build compiles `line`: every arm around it is taken."""
    for arm in arms:
        if arm.first <= line <= arm.last:
            taken = arm_is_taken(arm, macros, has_include)
            if taken is None:
                return None
            if not taken:
                return False
    return True


# -- the file's own macros, expanded --------------------------------------------------------


@dataclass(frozen=True)
class Macro:
    params: tuple[str, ...] | None  # None: object-like
    body: str


_DEFINITION = re.compile(r"^\s*#\s*define\s+([A-Za-z_]\w*)(\(([^)]*)\))?\s*(.*)$")
_IDENT = re.compile(r"[A-Za-z_]\w*")


def macros(text: str) -> dict[str, Macro]:
    """Every macro the file defines, object-like and function-like (last definition wins)."""
    out: dict[str, Macro] = {}
    for _, line in _logical_lines(strip_comments(text)):
        match = _DEFINITION.match(line)
        if match is None:
            continue
        params = None
        if match.group(2) is not None:
            params = tuple(p.strip() for p in match.group(3).split(",") if p.strip())
        out[match.group(1)] = Macro(params, match.group(4).strip())
    return out


def expand(line: str, defined: dict[str, Macro], depth: int = 0) -> str:
    """`line` with the file's macros replaced by their bodies, arguments substituted, `#x`
    stringized and `a ## b` pasted, to a fixed point (bounded): what the compiler reads where
    the line only names a macro. Close enough to read what a line asks, not a preprocessor."""
    if depth > 6 or not defined:
        return line
    out: list[str] = []
    at = 0
    changed = False
    for match in _IDENT.finditer(line):
        if match.start() < at:
            continue
        name = match.group(0)
        macro = defined.get(name)
        if macro is None or _in_literal(line, match.start()):
            continue
        if macro.params is None:
            out.append(line[at : match.start()] + macro.body)
            at = match.end()
            changed = True
            continue
        args, end = _arguments(line, match.end())
        if args is None:
            continue
        out.append(line[at : match.start()] + _substitute(macro, args))
        at = end
        changed = True
    out.append(line[at:])
    expanded = "".join(out)
    return expand(expanded, defined, depth + 1) if changed else expanded


def _in_literal(line: str, index: int) -> bool:
    return line[:index].count('"') % 2 == 1


def _arguments(line: str, start: int) -> tuple[list[str] | None, int]:
    """The comma-separated arguments of a call whose `(` follows `start` (spaces allowed)."""
    at = start
    while at < len(line) and line[at].isspace():
        at += 1
    if at >= len(line) or line[at] != "(":
        return None, start
    depth, current, args = 0, "", []
    in_string = False
    for index in range(at + 1, len(line)):
        char = line[index]
        if char == '"' and line[index - 1] != "\\":
            in_string = not in_string
        if not in_string:
            if char == "(":
                depth += 1
            elif char == ")":
                if depth == 0:
                    args.append(current.strip())
                    return args, index + 1
                depth -= 1
            elif char == "," and depth == 0:
                args.append(current.strip())
                current = ""
                continue
        current += char
    return None, start


def _substitute(macro: Macro, args: list[str]) -> str:
    values = dict(zip(macro.params or (), args, strict=False))
    body = re.sub(r"\s*##\s*", "\x00", macro.body)  # pasting first: `##` is no `#`
    body = re.sub(
        r"#\s*([A-Za-z_]\w*)",
        lambda m: (
            '"' + values[m.group(1)].replace('"', '\\"') + '"'
            if m.group(1) in values
            else m.group(0)
        ),
        body,
    )
    body = _IDENT.sub(lambda m: values.get(m.group(0), m.group(0)), body)
    return body.replace("\x00", "")
