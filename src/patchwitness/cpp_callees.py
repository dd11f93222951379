"""Which function each call of a test's body reaches, over the reference's tree and the patch's.

The same spelling can reach another function in each tree: a patch that leaves the buggy
function as it was and adds, in a namespace the enclosing one opens with `using namespace`, an
overload that wins the tests' unqualified `narrow<unsigned>(n)` while a user's qualified
`gsl::narrow<unsigned>(n)` still reaches the old one (red team round 42). Both programs are
built from the same bodies: where the patch's body calls a function of the same name as the
reference's but in another scope, the tests' calls were moved to a function the reference's
fix does not have them reach.

Pure: reads the disassembly of the user's program's object (`objdump -dr`) and the names
`c++filt` gave its symbols; phases/cpp_reference.py runs both tools.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

_FUNCTION = re.compile(r"^[0-9a-f]+ <(?P<symbol>[^>]+)>:$")
_RELOCATION = re.compile(r"^\s+[0-9a-f]+: R_\w+\s+(?P<symbol>[^\s+-]+)(?:[-+]0x[0-9a-f]+)?\s*$")
_CALL = re.compile(r"\bcall[a-z]*\s+[0-9a-f]+\s+<(?P<symbol>[^>+]+)(?:\+0x[0-9a-f]+)?>")


def callees(disassembly: str) -> dict[str, set[str]]:
    """Each function's symbols (mangled) and the symbols it calls or refers to: its
    relocations, and its direct calls within its own section (which need none)."""
    out: dict[str, set[str]] = {}
    current: set[str] | None = None
    for line in disassembly.splitlines():
        head = _FUNCTION.match(line)
        if head is not None:
            current = out.setdefault(head.group("symbol"), set())
            continue
        if current is None:
            continue
        for pattern in (_RELOCATION, _CALL):
            found = pattern.search(line)
            if found is not None and not found.group("symbol").startswith("."):
                current.add(found.group("symbol"))
    return out


def scope_name(demangled: str) -> str | None:
    """A function's qualified name without its template arguments, parameters and return type
    (`unsigned int gsl::narrow<unsigned int, int>(int)` -> `gsl::narrow`); None for what is no
    function (a variable, a vtable, a C symbol without parameters)."""
    text = demangled.replace("(anonymous namespace)", "{anonymous}")
    if text.startswith(("vtable for", "typeinfo", "VTT for", "guard variable", "construction")):
        return None
    kept: list[str] = []
    depth = 0
    index = 0
    while index < len(text):
        char = text[index]
        if text.startswith("operator", index) and depth == 0:
            end = _operator_end(text, index)
            kept.append(text[index:end])
            index = end
            continue
        if char == "<":
            depth += 1
        elif char == ">" and depth:
            depth -= 1
        elif char == "(" and depth == 0:
            return _last_name("".join(kept).strip()) or None
        elif depth == 0:
            kept.append(char)
        index += 1
    return None


def _last_name(text: str) -> str:
    """The qualified name at the end of `text`, past a return type (`unsigned int gsl::f`);
    an operator's name may hold a space (`A::operator bool`)."""
    operator = text.find("operator")
    before = text[:operator] if operator >= 0 else text
    start = before.rfind(" ") + 1
    return text[start:]


def _operator_end(text: str, start: int) -> int:
    """Where the operator's name that starts at `start` ends (`operator()`, `operator<<`,
    `operator new`, a conversion `operator int`)."""
    index = start + len("operator")
    symbols = _OPERATOR.match(text, index)
    if symbols is not None:
        return symbols.end()
    converted = re.compile(r"\s*[\w: ]+?(?=\()").match(text, index)
    return converted.end() if converted else index


# The language's operator tokens, longest first: `operator==<char>` is `==` then a template's
# arguments.
_OPERATOR = re.compile(
    r"\s*(?:new\[\]|delete\[\]|new\b|delete\b|co_await\b|\(\)|\[\]|<=>|<<=|>>=|->\*|->|<<|>>|<=|>="
    r"|==|!=|&&|\|\||\+\+|--|\+=|-=|\*=|/=|%=|&=|\|=|\^=|[-+*/%^&|~!=<>,])"
)


@dataclass(frozen=True)
class Moved:
    """A body whose call of `name` reaches another function under the patch."""

    function: str  # the body's function in the program (demangled)
    name: str  # the call's name, unqualified
    reference: tuple[str, ...]  # the functions of that name it reaches under the reference
    patch: tuple[str, ...]  # those it reaches under the patch and not under the reference


def moved_calls(
    reference: Mapping[str, set[str]],
    patch: Mapping[str, set[str]],
    names: Mapping[str, str],
    bodies: Iterable[str],
) -> list[Moved]:
    """The bodies (functions by mangled symbol, in both programs) that call, under the patch,
    a function of a name they also call under the reference but in a scope they do not reach
    there. `names`: the demangled name of each symbol."""
    out = []
    for body in bodies:
        if body not in reference or body not in patch:
            continue
        ref = _scopes(reference[body], names)
        pat = _scopes(patch[body], names)
        for name in sorted(set(ref) & set(pat)):
            new = pat[name] - ref[name]
            if new:
                shown = names.get(body, body)
                out.append(Moved(shown, name, tuple(sorted(ref[name])), tuple(sorted(new))))
    return out


def _scopes(symbols: Iterable[str], names: Mapping[str, str]) -> dict[str, set[str]]:
    """The functions among `symbols` by their unqualified name: {name: {qualified names}}."""
    out: dict[str, set[str]] = {}
    for symbol in symbols:
        qualified = scope_name(names.get(symbol, symbol))
        if qualified is None:
            continue
        out.setdefault(qualified.rsplit("::", 1)[-1], set()).add(qualified)
    return out
