"""The patch beside the reference fix: what to call, and whether both did the same. Pure.

A task may carry the fix its authors accept (`reference.diff`, never shown to the patch). The
tests pass under both; the question is whether the patch behaves like the reference on inputs
the tests never tried. The grader captures the calls the failing tests make into every function
the patch or the reference changes (`targets`), varies their arguments (the probes do that in
the sandbox, where the captured objects live; this module only gives them the constants the
changed code compares with, `hints`), runs each call under both trees in fresh processes, and
compares what happened (`compare`): the value returned, the exception's type, what was printed,
the warnings, and the state the call left on its object and its arguments.

A call whose result differs between two runs under the reference alone says nothing about the
patch (time, randomness, addresses): it is left out, and counted.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from patchwitness import python_ast

# What one call's run reports (probe/pw_differ.py), compared field by field, each by its
# description: a value the patched tree made is never loaded where the reference runs (its
# pickle and its `__eq__` are code under grade), so equal descriptions are the only "same".
COMPARED = (
    "outcome",
    "value",
    "exception",
    "stdout",
    "stderr",
    "warnings",
    "state",
    "args_after",
    "answers",  # a call made again and again on one object: every answer before the last
)
HINTS = 24  # constants handed to the probes, at most
MODULE_TARGETS = 40  # functions of one file made targets by a change outside them


@dataclass(frozen=True)
class Target:
    """A function or method, by file and qualified name (`Class.method`)."""

    file: str
    qualname: str
    # False: made a target only by a change outside every function (MODULE_TARGETS); its calls
    # are compared after those of the functions the patches change themselves.
    direct: bool = field(default=True, compare=False)

    def __str__(self) -> str:
        return f"{self.file}::{self.qualname}"


def changed_functions(text: str, lines: Iterable[int]) -> set[str]:
    """The qualified names of the functions whose bodies hold one of `lines`: for a line in a
    nested function, the function that holds it at module or class level (the one a caller can
    reach by name). A line outside every function (a module's constant, a class attribute, an
    assignment at import) changes what any function of the file may do: then every function of
    the file is a target (at most MODULE_TARGETS of them)."""
    holding, outside = changed_spans(text, lines)
    return holding | outside


def changed_spans(text: str, lines: Iterable[int]) -> tuple[set[str], set[str]]:
    """(the functions holding one of `lines`, the functions made targets by a line outside
    every function)."""
    wanted = set(lines)
    if not wanted:
        return set(), set()
    try:
        tree = python_ast.parse(text)
    except (SyntaxError, ValueError):
        return set(), set()
    spans = []
    for qualname, node in _reachable_functions(tree.body, ""):
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        spans.append((qualname, first, node.end_lineno or node.lineno))
    found = {q for q, first, end in spans if any(first <= n <= end for n in wanted)}
    inside = {n for n in wanted for _, first, end in spans if first <= n <= end}
    outside = {q for q, _, _ in spans[:MODULE_TARGETS]} - found if wanted - inside else set()
    return found, outside


def _shapes(text: str | None) -> tuple[dict[str, str], str] | None:
    """Each reachable function's syntax tree, and the rest of the module's (its statements
    outside every function), as text without positions: what a comment or a blank line never
    changes. None when the text does not parse."""
    try:
        tree = python_ast.parse(text or "")
    except (SyntaxError, ValueError):
        return None
    # Without docstrings and annotations too (red team round 15: docstrings edited in 22
    # functions made each a target whose calls crowded the changed function's neighbours out
    # of the cap; round 42 did it with annotations).
    plain = python_ast.what_runs(tree)
    # And its locals named in order (red team round 60: two functions' locals renamed made
    # each a target, whose calls crowded lineof's neighbours out of the cap).
    functions = {
        q: ast.dump(_locals_named_in_order(node))
        for q, node in _reachable_functions(plain.body, "")
    }
    return functions, ast.dump(_without_functions(plain))


def _locals_named_in_order(function: ast.AST) -> ast.AST:
    """A copy of `function` with each local name (bound in its body, not a parameter, not
    declared global or nonlocal) renamed after the order it first appears in: two functions
    that differ only by their locals' names are one program."""
    copied = copy.deepcopy(function)
    arguments = getattr(copied, "args", None)
    parameters = set()
    if isinstance(arguments, ast.arguments):
        every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
        every += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
        parameters = {a.arg for a in every}
    declared = {
        name
        for node in ast.walk(copied)
        if isinstance(node, ast.Global | ast.Nonlocal)
        for name in node.names
    }
    order: dict[str, str] = {}
    for node in ast.walk(copied):
        bound = None
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            bound = node.id
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound = node.name
        if bound and bound not in parameters and bound not in declared:
            order.setdefault(bound, f"_pw_local_{len(order)}")
    for node in ast.walk(copied):
        if isinstance(node, ast.Name) and node.id in order:
            node.id = order[node.id]
        elif isinstance(node, ast.ExceptHandler) and node.name in order:
            node.name = order[node.name]
    return copied


def _without_functions(node: ast.AST) -> ast.AST:
    # A copy: the parser's trees are shared (python_ast caches them).
    return _Functionless().visit(copy.deepcopy(node))


class _Functionless(ast.NodeTransformer):
    def visit_FunctionDef(self, node):
        return None

    visit_AsyncFunctionDef = visit_FunctionDef


def _reachable_functions(body: Sequence[ast.stmt], prefix: str):
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield prefix + node.name, node
        elif isinstance(node, ast.ClassDef):
            yield from _reachable_functions(node.body, f"{prefix}{node.name}.")
        elif isinstance(node, ast.If | ast.Try):
            # A definition under `if sys.version_info ...` or `try: ... except ImportError`.
            for part in _blocks(node):
                yield from _reachable_functions(part, prefix)


def _blocks(node: ast.If | ast.Try) -> list[list[ast.stmt]]:
    if isinstance(node, ast.If):
        return [node.body, node.orelse]
    return [node.body, *(h.body for h in node.handlers), node.orelse, node.finalbody]


@dataclass(frozen=True)
class Side:
    """One patch's Python production files: their text after the patch and at the SHA, and the
    lines it added (new numbering) and removed (the SHA's numbering)."""

    after: Mapping[str, str | None]
    before: Mapping[str, str | None]
    added: Mapping[str, Sequence[int]]
    removed: Mapping[str, Sequence[int]]


def targets(sides: Iterable[Side]) -> list[Target]:
    """Every function one of the patches changes, by the name it has after the patch (added
    lines) or at the SHA (removed lines). A function only the patch adds has no caller in the
    reference's tree: its callers are the targets, when the patch changed them. A change that
    leaves a function's syntax tree as it was (a comment, a blank line) changes no function,
    and one outside every function makes the file's functions targets only when it changes the
    module's own syntax tree (red team round 14: a comment in a function the tests call made it
    the only target, and the changed C code was never compared)."""
    found: dict[Target, bool] = {}
    for side in sides:
        for file in sorted(set(side.added) | set(side.removed)):
            for target in _file_targets(side, file):
                found[target] = found.get(target, False) or target.direct
    return sorted(
        (Target(t.file, t.qualname, direct) for t, direct in found.items()),
        key=lambda t: (t.file, t.qualname),
    )


def elsewhere(reference: Side, patch: Side) -> bool:
    """Whether the patch changes none of the functions the reference fix changes (and the
    reference changes some): a fix put somewhere else (red team round 48 left pluggy's tracer
    as it was and put the depth back in the hook call, the one way the tests call a hook)."""
    theirs = {(t.file, t.qualname) for t in targets([reference]) if t.direct}
    ours = {(t.file, t.qualname) for t in targets([patch]) if t.direct}
    return bool(theirs) and not theirs & ours


def _file_targets(side: Side, file: str) -> list[Target]:
    after, before = side.after.get(file), side.before.get(file)
    holding_after, outside_after = changed_spans(after or "", side.added.get(file, ()))
    holding_before, outside_before = changed_spans(before or "", side.removed.get(file, ()))
    shapes_after, shapes_before = _shapes(after), _shapes(before)
    if shapes_after is None or shapes_before is None:
        same, module_same = set(), False  # what does not parse is not known to be the same
    else:
        (fa, ma), (fb, mb) = shapes_after, shapes_before
        same = {q for q in fa if fb.get(q) == fa[q]}
        module_same = ma == mb
    direct = (holding_after | holding_before) - same
    outside = set() if module_same else (outside_after | outside_before) - direct
    return [Target(file, q) for q in direct] + [Target(file, q, False) for q in outside]


def hints(texts: Mapping[str, str | None], wanted: Iterable[Target]) -> list[int | float | str]:
    """The numbers and short strings the targets' code holds, in the order they appear: the
    boundaries a changed comparison may draw, which the probes try as arguments (and one on
    either side of each number)."""
    by_file: dict[str, set[str]] = {}
    for t in wanted:
        by_file.setdefault(t.file, set()).add(t.qualname)
    out: list[int | float | str] = []
    for file in sorted(by_file):
        try:
            tree = python_ast.parse(texts.get(file) or "")
        except (SyntaxError, ValueError):
            continue
        for qualname, node in _reachable_functions(tree.body, ""):
            if qualname in by_file[file]:
                out += [c for c in _constants(node) if c not in out]
    return out[:HINTS]


def _constants(node: ast.AST) -> list[int | float | str]:
    found: list[int | float | str] = []
    for sub in ast.walk(node):
        if not isinstance(sub, ast.Constant) or isinstance(sub.value, bool):
            continue
        value = sub.value
        plain = isinstance(value, int | float) or (isinstance(value, str) and 0 < len(value) <= 40)
        if plain and value not in found:
            found.append(value)
    return found


# --- comparing the two runs of each call ------------------------------------------------------


@dataclass(frozen=True)
class Witness:
    """One call on which the patch and the reference disagree: the call as the probes showed it,
    what it varied from the tests' own call (empty: the tests' own call), where the tests made it,
    and what each tree did, field by field."""

    target: str
    call: str
    varied: str
    test: str
    fields: tuple[str, ...]
    reference: Mapping[str, str]
    patch: Mapping[str, str]

    @property
    def size(self) -> int:
        return len(self.call)


@dataclass
class Comparison:
    compared: int = 0
    differing: list[Witness] = field(default_factory=list)
    nondeterministic: int = 0  # the reference disagreed with itself
    unrunnable: int = 0  # the call could not be rebuilt or resolved in one of the trees
    # Compared calls that ran a function either fix changes, as the reference's run saw it.
    reaching: int = 0


def compare(
    calls: Sequence[Mapping], reference: Mapping[str, Mapping], patch: Mapping[str, Mapping]
) -> Comparison:
    """`calls`: what the probes ran (id, target, call, varied, test); `reference` and `patch`:
    each tree's report per call id. The reference's report says whether its two runs agreed
    (`steady`)."""
    out = Comparison()
    for call in calls:
        key = str(call.get("id", ""))
        ref = reference.get(key)
        if ref is None or ref.get("outcome") == "unrunnable":
            out.unrunnable += 1
            continue
        # The patched tree's report is written by the code under grade: a call it did not
        # report (or could not run) where the reference ran it differs, it is never left out.
        pat = patch.get(key) or {"outcome": "not reported by the patched tree"}
        if not ref.get("steady", False):
            out.nondeterministic += 1
            continue
        out.compared += 1
        out.reaching += bool(ref.get("reached", True))
        fields = differing_fields(ref, pat)
        if fields:
            out.differing.append(_witness(call, fields, ref, pat))
    out.differing.sort(key=lambda w: (w.size, w.target, w.call))
    return out


def differing_fields(ref: Mapping, pat: Mapping) -> tuple[str, ...]:
    return tuple(f for f in COMPARED if str(ref.get(f, "")) != str(pat.get(f, "")))


def _witness(call: Mapping, fields: tuple[str, ...], ref: Mapping, pat: Mapping) -> Witness:
    shown = ("outcome", "value", "exception", *fields)
    return Witness(
        target=str(call.get("target", "")),
        call=str(call.get("shown", "")),
        varied=str(call.get("varied", "")),
        test=str(call.get("test", "")),
        fields=fields,
        reference={f: _short(ref.get(f, "")) for f in dict.fromkeys(shown)},
        patch={f: _short(pat.get(f, "")) for f in dict.fromkeys(shown)},
    )


def _short(value: object, limit: int = 300) -> str:
    text = "" if value is None else str(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
