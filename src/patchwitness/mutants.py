"""Mutants of the lines a patch added to a Python module. Pure: text in, mutated texts out.

A patch whose every line ran can still be unconstrained by the tests: change one of its lines and
nothing fails. Each mutant changes one thing on an added line, the smallest change that would
matter if the line matters:

- `condition-true` / `condition-false`: a decision's test (an `if`, `elif`, `while`, conditional
  expression or comprehension `if`, and each operand of an `and`/`or` in one) replaced by a
  constant: the code behaves as if the decision always, or never, went that way;
- `value-picked`: a call that picks one of its arguments, or a default, as a decision would,
  replaced by each value it can pick: `min(a, b)` and `max(a, b)` by `a` and by `b`, `abs(x)` by
  `x`, `d.get(k, default)` and `getattr(o, name, default)` by `default` (the lookup always
  missed): a pick no test tells apart is an `if` the tests do not pin (red team round 11 wrote
  `lineno + min(len(sections) - 1, 1)`, right only for the tests' two sections);
- `value-frozen`: a step by a constant (`n // 4`, `n % 2`, `n >> 3`, `n ** 2`), a ratio
  rounded (`round(64 / (64 + n))`) or a count of digits (`len(str(n))`) on an added line
  kept, in each test process, at the first value it took: such a value moves by jumps, and a
  jump the tests never reach is a threshold no comparison shows (red team round 23: `lineno
  + len(str(lineno // 4)) % 2` was 1 before line 41 and 0 after, and no test config is 41
  lines long); so is a count taken as a step (`indent -= len(kwargs)`: red team round 12
  dedented by the number of a hook's arguments, one in every hook the tests call);
- `statement-deleted`: a simple statement wholly on added lines replaced by `pass`, and each
  pair of a multiple assignment (`a, b = x, y`) left out alone (red team round 22 fixed the
  value the test reads and broke the one it stands for, in one statement);
- `loop-trips`: a `for` loop's (or a comprehension's) iterable on an added line made empty
  and cut to its first element: how many times the body runs is a decision too (red team
  round 22 dedented once per item of `methods[1:]`, right for the tests' two items only);
- `boundary`: a comparison's `<` made `<=`, `>` made `>=`, and back;
- `assert-removed`: an added `assert` replaced by `pass`, as `python -O` runs it. Its meaning
  is the other way round: a test that fails without the assert depends on it, and a program
  run with `-O` does not have it (red team round 18 did the fix inside an assert's test).

Before all of them, `change-reverted` (reverted()): each change of the patch to a file undone
alone, the SHA's lines put back in its place, when that changes the program (not only comments,
blank lines or docstrings). A change the tests pass without is no part of what they pin (red team
round 22 added a second change to iniconfig, blank lines dropped before lines were numbered,
that every test passed with and without).

A `case` pattern is a decision too (`condition-true`: `case _ if True`; `condition-false`: the
pattern kept, its guard made False), and so is a comparison used as a value rather than a test
(`indent -= exc.__context__ is None`), made True and False (red team round 18 hid one-way
decisions in both), and a negation used as one (`lineno + (not lineno & -128)`: round 26).

What says nothing is not made: statements that only log, print, warn, assert, import, declare or
document; the boundary of a clamp, where both ways give the same value (`if x > high: return
high`); a mutant whose text does not compile. The mutants of decisions come first (conditions,
then boundaries), then the deleted statements, each in the order of its lines: a cap keeps the
most telling ones, and statements added ahead of a decision cannot push its mutants out (what a
cap leaves unrun the pinning gate counts as not known, never as pinned).
"""

from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass

from patchwitness import python_ast
from patchwitness.probe import pw_lines

CONDITION_TRUE = "condition-true"
CONDITION_FALSE = "condition-false"
STATEMENT_DELETED = "statement-deleted"
BOUNDARY = "boundary"
VALUE_PICKED = "value-picked"
ASSERT_REMOVED = "assert-removed"
LOOP_TRIPS = "loop-trips"
VALUE_FROZEN = "value-frozen"
CHANGE_REVERTED = "change-reverted"
TERM_DROPPED = "term-dropped"
OPERATORS = (
    CHANGE_REVERTED,
    CONDITION_TRUE,
    CONDITION_FALSE,
    LOOP_TRIPS,
    VALUE_PICKED,
    VALUE_FROZEN,
    STATEMENT_DELETED,
    BOUNDARY,
    TERM_DROPPED,
    ASSERT_REMOVED,
)

# Builtins whose value is one of their arguments, chosen by comparing them.
PICKERS = frozenset({"min", "max"})

# A logger's methods whose call changes only what a person reads; what the call is made on
# must be a logger (`_loggers`), not any object with a method of that name (red team round 58
# traced a hook's error through a tracer named `error` the tests never looked at).
LOGGER_METHODS = frozenset(
    {"debug", "info", "warning", "warn", "error", "exception", "critical", "log", "fatal"}
)
SWAPPED: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
}
SYMBOLS: dict[type[ast.cmpop], str] = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}


@dataclass(frozen=True)
class Mutant:
    file: str
    line: int
    operator: str
    description: str  # what changed, in words: "`value > high` replaced by True"
    text: str  # the whole mutated module

    def diff(self, original: str) -> str:
        """The mutant as a unified diff of its file."""
        lines = difflib.unified_diff(
            original.splitlines(keepends=True),
            self.text.splitlines(keepends=True),
            f"a/{self.file}",
            f"b/{self.file}",
            n=1,
        )
        return "".join(lines)


def mutants_of(path: str, text: str, added: list[int]) -> list[Mutant]:
    """Every mutant of `added` lines of the module `text`, in the order described above; []
    for a text that does not parse."""
    # A byte-order mark is no part of the program (red team round 17 hid every mutant behind
    # one): mutants are made on the text after it, and each keeps it.
    mark = "\ufeff" if text.startswith("\ufeff") else ""
    text = text.removeprefix(mark)
    try:
        tree = python_ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    lines = set(added)
    edits = [*_conditions(tree, text, added), *_cases(tree, text, lines)]
    edits += _compared_values(tree, text, added)
    edits += _picks_of(tree, text, lines)
    edits += _table_picks(tree, text, lines)
    edits += _steps_for_resets(tree, text, lines)
    edits += _starred(tree, text, lines)
    edits += _suppressions(tree, text, lines)
    edits += _registrations(tree, text, lines)
    edits += _by_a_variable(tree, text, lines)
    edits += _frozen(tree, text, lines)
    edits += _loops(tree, text, lines)
    edits += _handlers(tree, text, lines)
    edits += _boundaries(tree, text, lines)
    edits += _sums(tree, text, lines)
    edits += _deletions(tree, text, lines)
    edits += _calls_in_a_display(tree, text, lines)
    edits += _assignment_parts(tree, text, lines)
    edits += _asserts(tree, text, lines)
    out = []
    for operator, node, replacement, description in edits:
        mutated = _replace(text, node, replacement)
        if mutated != text and _compiles(mutated, path):
            out.append(Mutant(path, node.lineno, operator, description, mark + mutated))
    return out


Edit = tuple[str, ast.AST, str, str]


def reverted(path: str, before: str | None, after: str) -> list[Mutant]:
    """Each change from `before` (the file at the SHA; None for a new file) to `after` undone
    alone, where undoing it changes the program; [] for a text that does not parse."""
    if before is None:
        return []
    try:
        shape = _program(after)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    out = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        text = "".join(new[:j1] + old[i1:i2] + new[j2:])
        if not _compiles(text, path) or _program(text) == shape:
            continue
        where = f"line {j1 + 1}" if j2 - j1 <= 1 else f"lines {j1 + 1}-{j2}"
        said = f"the change at {where} undone: the SHA's {i2 - i1} line(s) back in its place"
        out.append(Mutant(path, j1 + 1 if j2 > j1 else max(j1, 1), CHANGE_REVERTED, said, text))
    return out


def _program(text: str) -> str:
    """What runs of a module: its syntax tree without docstrings and functions' annotations
    (comments and blank lines are no part of it)."""
    return ast.dump(python_ast.what_runs(python_ast.parse(text)))


def _conditions(tree: ast.Module, text: str, added: list[int]) -> list[Edit]:
    out: list[Edit] = []
    loops = {id(n.test): n for n in ast.walk(tree) if isinstance(n, ast.While)}
    for node, in_test in pw_lines.decisions(tree, added):
        if not in_test or isinstance(node, ast.BoolOp):
            # a value an and/or hands back (replacing it changes more than a decision), or an
            # and/or as a whole (its operands' mutants say more)
            continue
        shown = _segment(text, node)
        loop = loops.get(id(node))
        if loop is not None:
            # A loop's whole test made True runs forever, and a hang told nothing (red team
            # round 17 ran a `while` as an `if`: its telling mutants hung and counted as
            # killed). Its body run at most once, as an `if`, is the mutant that asks whether
            # the tests need the loop.
            said = f"`while {shown}` run as `if {shown}` (its body at most once)"
            out.append((CONDITION_TRUE, loop, _as_if(text, loop), said))
        else:
            out.append((CONDITION_TRUE, node, "True", f"`{shown}` replaced by True"))
        out.append((CONDITION_FALSE, node, "False", f"`{shown}` replaced by False"))
    # all the always-true mutants first, then the always-false ones
    return sorted(out, key=lambda e: (e[0] != CONDITION_TRUE, e[1].lineno))


@dataclass(frozen=True)
class _Span:
    """A stretch of text by the positions `_replace` reads (several nodes' together)."""

    lineno: int
    col_offset: int
    end_lineno: int
    end_col_offset: int


def _cases(tree: ast.Module, text: str, lines: set[int]) -> list[Edit]:
    """Each `case` whose pattern is on an added line: made to match always (`_ if True`: a
    guarded wildcard may stand anywhere), and never (the pattern kept, its guard made False)."""
    out: list[Edit] = []
    for node in ast.walk(tree):
        if type(node).__name__ != "match_case" or node.pattern.lineno not in lines:
            continue
        last = node.guard if node.guard is not None else node.pattern
        span = _Span(
            node.pattern.lineno,
            node.pattern.col_offset,
            last.end_lineno or last.lineno,
            last.end_col_offset or 0,
        )
        pattern = _segment(text, node.pattern)
        out.append((CONDITION_TRUE, span, "_ if True", f"`case {pattern}` made to match always"))
        kept = ast.get_source_segment(text, node.pattern) or ast.unparse(node.pattern)
        out.append(
            (CONDITION_FALSE, span, f"{kept} if False", f"`case {pattern}` made never to match")
        )
    return out


def _compared_values(tree: ast.Module, text: str, added: list[int]) -> list[Edit]:
    """A comparison or a negation on an added line that no decision tests as a whole (a value:
    `x -= a is None`, `return n == 0`, `n + (not m)`, an argument) replaced by True and by
    False."""
    decided = {id(node) for node, _ in pw_lines.decisions(tree, added)}
    # An assert's own comparison: made True it asserts nothing, made False it always fails;
    # whether the assert matters is its removal's question (`assert-removed`).
    decided |= {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.Assert)
        for inner in ast.walk(node.test)
    }
    lines = set(added)
    # A question's answer used as a number (`1 + 999 * isinstance(tz, timezone)`, `lineno +
    # section.isidentifier()`): a decision written as arithmetic (red team rounds 20 and 21).
    counted = {
        id(operand)
        for node in ast.walk(tree)
        if isinstance(node, ast.BinOp | ast.UnaryOp)
        for operand in ((node.left, node.right) if isinstance(node, ast.BinOp) else (node.operand,))
        if _is_predicate(operand)
    }
    # A negation used as a value (`lineno + (not lineno & -128)`, `n + (not s.find(c) + 1)`):
    # always a yes or no, whatever it negates, so a decision written as arithmetic too (red team
    # round 26); in a decision's test its operand is already the decision.
    negated = {
        id(node)
        for node in ast.walk(tree)
        if isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.Not)
        and id(node.operand) not in decided
    }
    values = counted | negated
    out: list[Edit] = []
    for node in ast.walk(tree):
        asked = isinstance(node, ast.Compare) or id(node) in values
        if not asked or node.lineno not in lines or id(node) in decided:
            continue
        shown = _segment(text, node)
        out.append((CONDITION_TRUE, node, "True", f"`{shown}` replaced by True"))
        out.append((CONDITION_FALSE, node, "False", f"`{shown}` replaced by False"))
    return out + _questions_handed_on(tree, text, lines)


def _questions_handed_on(tree: ast.Module, text: str, lines: set[int]) -> list[Edit]:
    """A question handed to a call as a value, not asked (`get(..., convert=str.isalpha)`,
    `filter(os.path.exists, names)`): the call decides by it where no added line shows it (red
    team round 45: iniconfig's `lineno + 1 - self.get(section, name, False, str.isalpha)`).
    Replaced by a function that always answers True, and one that always answers False."""
    out: list[Edit] = []
    imported = _imported_names(tree)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or node.lineno not in lines:
            continue
        for argument in [*node.args, *(k.value for k in node.keywords)]:
            if not _names_a_question(argument, imported):
                continue
            shown = _segment(text, argument)
            said = f"`{shown}` handed on replaced by a function that answers"
            out.append((CONDITION_TRUE, argument, "(lambda *_a, **_k: True)", f"{said} True"))
            out.append((CONDITION_FALSE, argument, "(lambda *_a, **_k: False)", f"{said} False"))
    return out


def _names_a_question(node: ast.AST, imported: set[str]) -> bool:
    """A question of a type's or a module's, named and not asked (`str.isalpha`,
    `os.path.exists`, `Path.is_dir`, `callable`): not an object's state (`self.is_ready` may
    hold a yes or no, which a function in its place would not be)."""
    if isinstance(node, ast.Name):
        return node.id in _PREDICATES - {"bool"}
    if not isinstance(node, ast.Attribute) or _QUESTION.match(node.attr) is None:
        return False
    root = node.value
    while isinstance(root, ast.Attribute):
        root = root.value
    return isinstance(root, ast.Name) and (root.id in _BUILTIN_TYPES or root.id in imported)


_BUILTIN_TYPES = frozenset({"str", "bytes", "int", "float", "dict", "list", "set", "frozenset"})


def _imported_names(tree: ast.Module) -> set[str]:
    """The names the module's imports bind (`import os.path` binds `os`)."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {(a.asname or a.name).split(".", 1)[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            out |= {a.asname or a.name for a in node.names}
    return out


# Calls whose answer is yes or no: the builtins that ask, and methods named as questions.
_PREDICATES = frozenset({"isinstance", "issubclass", "hasattr", "callable", "bool", "any", "all"})
_QUESTION = re.compile(r"^(?:is|has)[a-z_]|^(?:startswith|endswith|exists|is_\w+)$")
# The operator module's functions that answer yes or no (red team round 32 added
# `operator.truth(...)` to a line number): asked by name, `operator.truth` or `truth`.
_OPERATOR_QUESTIONS = frozenset(
    {"truth", "not_", "contains", "is_", "is_not", "eq", "ne", "lt", "le", "gt", "ge"}
)


def _is_predicate(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    if isinstance(node.func, ast.Name):
        return node.func.id in _PREDICATES | _OPERATOR_QUESTIONS
    if not isinstance(node.func, ast.Attribute):
        return False
    owner = node.func.value
    if isinstance(owner, ast.Name) and owner.id == "operator":
        return node.func.attr in _OPERATOR_QUESTIONS
    return _QUESTION.match(node.func.attr) is not None


def _asserts(tree: ast.Module, text: str, lines: set[int]) -> list[Edit]:
    """Each `assert` wholly on added lines removed, as `python -O` removes it."""
    out: list[Edit] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assert):
            continue
        end = node.end_lineno or node.lineno
        if all(n in lines for n in range(node.lineno, end + 1)):
            shown = _segment(text, node)
            said = f"`{shown}` removed, as python -O removes it"
            out.append((ASSERT_REMOVED, node, "pass", said))
    return sorted(out, key=lambda e: e[1].lineno)


# What a step of arithmetic by a variable can hide a decision in: `a ** b` is a decision when
# `a` or `b` may be 0 or 1; `a // b` is `a` while `b` is 1 and 0 once `b` is larger than `a`;
# `a % b`, `a >> b`, `a << b` alike.
_STEPS = (ast.FloorDiv, ast.Mod, ast.RShift, ast.LShift)
# Arithmetic written as a call (red team round 30 shifted by `.__rshift__(39)`): each operator's
# method, and the operator module's function of it.
_FUNCTIONS = {
    "floordiv": ast.FloorDiv,
    "mod": ast.Mod,
    "rshift": ast.RShift,
    "lshift": ast.LShift,
    "pow": ast.Pow,
    "and_": ast.BitAnd,
    "or_": ast.BitOr,
    "xor": ast.BitXor,
}
_METHODS = {f"__{name.rstrip('_')}__": op for name, op in _FUNCTIONS.items()}


def _called_name(node: ast.AST) -> str | None:
    """The name a call is made by, `f(...)` or `x.f(...)`; None for anything else."""
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)


def _arithmetic(node: ast.AST) -> tuple[type, ast.expr, ast.expr] | None:
    """`(operator, left, right)` of arithmetic however it is written: `a >> b`,
    `a.__rshift__(b)`, `operator.rshift(a, b)`, `pow(a, b)`; None for anything else."""
    if isinstance(node, ast.BinOp):
        return type(node.op), node.left, node.right
    if not isinstance(node, ast.Call) or node.keywords:
        return None
    func, args = node.func, node.args
    if any(isinstance(a, ast.Starred) for a in args):
        return None
    if isinstance(func, ast.Attribute) and func.attr in _METHODS and len(args) == 1:
        return _METHODS[func.attr], func.value, args[0]
    name = _called_name(node)
    if name in _FUNCTIONS and len(args) == 2:
        module = func.value if isinstance(func, ast.Attribute) else None
        if module is None or (isinstance(module, ast.Name) and module.id == "operator"):
            return _FUNCTIONS[name], args[0], args[1]
    return None


def _constant_like(node: ast.AST) -> bool:
    """A value fixed when the program is written: a literal, a module's capitals
    (`constants.EPOCH_BIT`), or arithmetic of such (`1 << 39`)."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Name):
        return node.id.isupper()
    if isinstance(node, ast.Attribute):
        return node.attr.isupper()
    if isinstance(node, ast.UnaryOp):
        return _constant_like(node.operand)
    if isinstance(node, ast.BinOp):
        return _constant_like(node.left) and _constant_like(node.right)
    return False


def _by_a_variable(tree: ast.Module, text: str, lines: set[int]) -> list[Edit]:
    """Arithmetic by a variable on an added line made as if the variable never moved it: `a **
    b` replaced by `a` and by `1` (red team round 19: `1000 ** (0 ** offset**2)` is 1000 at
    offset zero and 1 elsewhere), `a // b` (or `%`, `>>`, `<<`) by `a` (round 20: `lineno + 1
    // (1 + lineno // 8)` added the 1 only before the ninth line, no comparison anywhere); and
    a constant's bits set or flipped, `a | BIT` and `a ^ BIT`, replaced by `a` (round 30 set
    bit 39 of a count the tests' every value already had set). Written as operators or as
    calls (`a.__rshift__(b)`)."""
    out: list[Edit] = []
    for node in ast.walk(tree):
        found = _arithmetic(node)
        if found is None or getattr(node, "lineno", None) not in lines:
            continue
        op, left_node, right = found
        shown = _segment(text, node)
        left = _segment(text, left_node)
        if op in (ast.BitOr, ast.BitXor):
            if _constant_like(right) and not _constant_like(left_node):
                out.append((VALUE_PICKED, node, f"({left})", f"`{shown}` replaced by `{left}`"))
            continue
        if op not in (ast.Pow, *_STEPS) or isinstance(right, ast.Constant):
            continue
        out.append((VALUE_PICKED, node, f"({left})", f"`{shown}` replaced by `{left}`"))
        if op is ast.Pow:
            out.append((VALUE_PICKED, node, "(1)", f"`{shown}` replaced by `1`"))
        elif op in (ast.FloorDiv, ast.Mod) and isinstance(left_node, ast.Constant):
            # A constant stepped by a variable (`2 // len(self.sections)`, `11 //
            # sys.version_info.minor`): a few small answers, each the tests' maybe (red team
            # round 23: `a` itself was wrong for the tests, so killed for the wrong reason).
            for value in ("0", "1"):
                if value != left:
                    said = f"`{shown}` replaced by `{value}`"
                    out.append((VALUE_PICKED, node, f"({value})", said))
    return out


def _table_picks(tree: ast.Module, text: str, lines: set[int]) -> list[Edit]:
    """A subscript on an added line that picks out of a table the patch wrote (a tuple, list,
    dict, text or bytes written in place, or a tuple, list, dict or `dict.fromkeys(...)` bound
    to a name on an added line) by a key computed at run time: replaced by each of its first
    four elements (red team round 24 picked markupsafe's escaper out of `{kind2, kind4}` in C
    by `(size - 1024) >> 63`: no decision anywhere), and the key (or a slice's bounds) kept at
    the first value it took (`value-frozen`): a key the tests give one value is a choice they
    never see made (red team round 58 sliced `"000000001000..."[len(zone) :: 6]`, 1000 for
    every zone module of eight letters and 0 for another, and looked a zone's module up in a
    `dict.fromkeys` of three names)."""
    tables: dict[str, ast.expr] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and node.lineno in lines and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and _a_table(node.value):
                tables[target.id] = node.value
    out: list[Edit] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Subscript) or node.lineno not in lines:
            continue
        if not isinstance(node.ctx, ast.Load):
            continue
        table = node.value
        if isinstance(table, ast.Name):
            table = tables.get(table.id, table)
        if not (_a_table(table) or _a_text(table)):
            continue
        keys = node.slice
        bounds = [keys.lower, keys.upper, keys.step] if isinstance(keys, ast.Slice) else [keys]
        for key in bounds:
            # A constant key picks nothing; a comparison's own mutants make it 1 and 0.
            if key is None or isinstance(key, ast.Constant | ast.Compare):
                continue
            if not _reads_a_name(key):
                continue
            said = f"the key `{_segment(text, key)}` kept at the first value it took"
            out.append((VALUE_FROZEN, key, _kept_first(text, key), said))
        if isinstance(keys, ast.Slice | ast.Constant | ast.Compare):
            continue
        if isinstance(table, ast.Dict):
            constants = [k for k in table.keys if isinstance(k, ast.Constant)]
            picked = [_source(text, k) for k in constants[:4]]
        elif isinstance(table, ast.Tuple | ast.List):
            picked = [str(k) for k in range(min(len(table.elts), 4))]
        elif isinstance(table, ast.Constant) and isinstance(table.value, str | bytes):
            picked = [str(k) for k in range(min(len(table.value), 4))]
        else:
            continue
        shown = _segment(text, keys)
        for key in picked:
            said = f"the key `{shown}` made `{key}`"
            out.append((VALUE_PICKED, keys, f"({key})", said))
    return out


def _a_table(node: ast.AST) -> bool:
    """A table written out: a tuple, list or dict display, or `dict.fromkeys(...)`."""
    if isinstance(node, ast.Tuple | ast.List | ast.Dict):
        return True
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "fromkeys"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "dict"
    )


def _steps_for_resets(tree: ast.Module, text: str, lines: set[int]) -> list[Edit]:
    """A constant written on an added line to what the module elsewhere steps by a constant
    (`depth = 0` where `depth += 1` and `depth -= 1` are), made each of those steps: where the
    tests only look one step from the reset, a reset and a step agree (red team round 58 set
    pluggy's tracer depth to 0 after a raise, right for the tests' top-level calls and wrong
    for a hook called inside another's call)."""
    steps: dict[str, list[tuple[str, str]]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.AugAssign) or not isinstance(node.op, ast.Add | ast.Sub):
            continue
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, int | float):
            symbol = "+=" if isinstance(node.op, ast.Add) else "-="
            taken = steps.setdefault(ast.dump(node.target), [])
            if (symbol, _source(text, node.value)) not in taken:
                taken.append((symbol, _source(text, node.value)))
    out: list[Edit] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign) or node.lineno not in lines or len(node.targets) != 1:
            continue
        if not _constant_like(node.value):
            continue
        target = node.targets[0]
        shown = _segment(text, node)
        for symbol, step in steps.get(ast.dump(target), []):
            made = f"{_source(text, target)} {symbol} {step}"
            said = f"`{shown}` made `{made}`, a step the module takes on it elsewhere"
            out.append((VALUE_PICKED, node, made, said))
    return out


def _starred(tree: ast.Module, text: str, lines: set[int]) -> list[Edit]:
    """The arguments a call on an added line is given by a star (`round(x, *places)`), kept
    at the first they were in the test (`value-frozen`): how many arguments a call gets is a
    decision too (red team round 58 rounded to `*map(len, re.findall(...))` places, none for
    a zone the tests never used: an int where the tests got a float)."""
    out: list[Edit] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or node.lineno not in lines:
            continue
        for argument in node.args:
            if not isinstance(argument, ast.Starred) or not _reads_a_name(argument.value):
                continue
            value = argument.value
            said = f"`*{_segment(text, value)}` kept at the arguments it first gave"
            kept = _kept_first(text, value, f"[*({_source(text, value)})]")
            out.append((VALUE_FROZEN, value, kept, said))
    return out


def _suppressions(tree: ast.Module, text: str, lines: set[int]) -> list[Edit]:
    """A `with` on an added line whose manager swallows an exception (`contextlib.suppress`,
    or a class of the module whose `__exit__` answers anything but None or False) made to
    swallow nothing (`condition-false`): whether the body got through is a decision, and
    what follows the `with` its other way (red team round 58 put the fix in `with
    suppress(KeyError):`, and a zone the tests never used fell through to the SHA's line)."""
    swallowing = _swallowing_classes(tree)
    out: list[Edit] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.With | ast.AsyncWith) or node.lineno not in lines:
            continue
        for item in node.items:
            manager = item.context_expr
            name = _called_name(manager)
            if name != "suppress" and name not in swallowing:
                continue
            said = f"`{_segment(text, manager)}` made to swallow nothing"
            replaced = f"__import__('contextlib').nullcontext(({_source(text, manager)}))"
            out.append((CONDITION_FALSE, manager, replaced, said))
    return out


def _registrations(tree: ast.Module, text: str, lines: set[int]) -> list[Edit]:
    """A function on an added line registered as an overload by a decorator (`@f.register`,
    `@f.register(T)`: `functools.singledispatch` and its kin) made never chosen
    (`condition-false`): the decorator left out, its calls go to the generic function. A
    choice by an argument's type is a decision (red team round 59 gave pluggy's dedent a
    do-nothing overload for module plugins and for OSError, kinds no test used)."""
    out: list[Edit] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for decorator in node.decorator_list:
            if decorator.lineno not in lines and node.lineno not in lines:
                continue
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            if isinstance(target, ast.Attribute) and target.attr == "register":
                said = f"`@{_segment(text, decorator)}` left out: the overload is never chosen"
                out.append((CONDITION_FALSE, decorator, "(lambda _pw_f: _pw_f)", said))
    return out


def _swallowing_classes(tree: ast.Module) -> set[str]:
    """The classes of the module whose `__exit__` may answer true (a `return` of anything but
    None or False)."""
    out = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        for member in node.body:
            if not isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            if member.name not in ("__exit__", "__aexit__"):
                continue
            for returned in ast.walk(member):
                if isinstance(returned, ast.Return) and returned.value is not None:
                    value = returned.value
                    if not (isinstance(value, ast.Constant) and value.value in (None, False)):
                        out.add(node.name)
    return out


# What makes a ratio a whole number: the builtins and math's.
_ROUNDING = frozenset({"round", "int", "floor", "ceil", "trunc"})
# What turns a number into the text whose length counts its digits.
_AS_TEXT = frozenset({"str", "repr", "format", "hex", "oct", "bin"})


def _frozen(tree: ast.Module, text: str, lines: set[int]) -> list[Edit]:
    """Each outermost step by a constant or count of digits on an added line, kept at its first
    value (`value-frozen`) in each test (`_kept_first`); the expression still runs each time, so
    what it raises or changes on the way is kept."""
    out: list[Edit] = []

    def visit(node: ast.AST, operand: bool) -> None:
        frozen = _jumps(node) or _called_step(node, operand)
        if getattr(node, "lineno", None) in lines and frozen and _reads_a_name(node):
            assert isinstance(node, ast.expr)
            shown = _segment(text, node)
            said = f"`{shown}` kept at the first value it took"
            out.append((VALUE_FROZEN, node, _kept_first(text, node), said))
            return
        cast = operand and _is_cast(node)
        for child in ast.iter_child_nodes(node):
            visit(child, _an_operand(node, child) or cast)

    visit(tree, False)
    # A count kept in a name first and taken as a step where the name is used (red team round
    # 36: `headers = len(sections)` on a line of its own, then `lineno + headers - 1`): the
    # count is frozen where it is made.
    stepped = _names_taken_as_steps(tree, lines)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign | ast.AnnAssign) or node.lineno not in lines:
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        names = {t.id for t in targets if isinstance(t, ast.Name)}
        value = node.value
        if value is None:
            continue
        counted = _called_step(value, True) or (
            _is_cast(value) and _called_step(value.args[0], True)  # type: ignore[attr-defined]
        )
        if names & stepped and counted and _reads_a_name(value):
            shown = _segment(text, value)
            said = f"`{shown}` kept at the first value it took (it is a step where it is used)"
            out.append((VALUE_FROZEN, value, _kept_first(text, value), said))
    frozen = {id(edit[1]) for edit in out}
    for value in _kept_state_steps(tree, lines):
        if id(value) not in frozen:
            shown = _segment(text, value)
            said = f"`{shown}` kept at the first value it took (a step of kept state)"
            out.append((VALUE_FROZEN, value, _kept_first(text, value), said))
    return out


def _kept_state_steps(tree: ast.Module, lines: set[int]) -> list[ast.expr]:
    """What an added line steps kept state by (`self.depth -= x`, `table[k] += x`, a global's
    or an enclosing function's name), when it is computed: a call, arithmetic, a subscript; and
    what a name so used was made of on an added line. A step no test varies is a constant to
    them, whatever computes it (red team round 62 dedented pluggy's tracer by a call's answer,
    a bit of the depth, the digits of a hook's name, an option of the last hook, each 1
    wherever the tests raised). A constant, or a value handed in whole (a name, an
    attribute), is left alone: an honest step by the caller's amount reads so."""
    shared: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Global | ast.Nonlocal):
            shared.update(node.names)
    out: list[ast.expr] = []
    named: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.AugAssign) or node.lineno not in lines:
            continue
        target = node.target
        kept = isinstance(target, ast.Attribute | ast.Subscript) or (
            isinstance(target, ast.Name) and target.id in shared
        )
        if not kept:
            continue
        if isinstance(node.value, ast.Name):
            named.add(node.value.id)
        elif _computed(node.value):
            out.append(node.value)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign) or node.lineno not in lines:
            continue
        made = any(isinstance(t, ast.Name) and t.id in named for t in node.targets)
        if made and _computed(node.value):
            out.append(node.value)
    return out


def _computed(value: ast.expr) -> bool:
    """A value worked out where it stands, that can change: not a constant, a name or an
    attribute handed on whole."""
    if isinstance(value, ast.Constant | ast.Name | ast.Attribute):
        return False
    return _reads_a_name(value)


def _kept_first(text: str, node: ast.expr, source: str = "") -> str:
    """`node` evaluated each time and its first value in the running test given back: kept in
    `sys`'s namespace (the one place every module of the run shares) under the expression's
    place and the test pytest says is running. Per test, not per process: a mutant run holds
    every test that covers the line, and a value the failing test never varies is a constant
    to it even where an earlier test made it otherwise (red team round 36: the first value of
    `len(sections)` came from a test's one-section config, and the failing test's two-section
    one killed the mutant)."""
    place = f"_pw_frozen_{node.lineno}_{node.col_offset}"
    test = "__import__('os').environ.get('PYTEST_CURRENT_TEST', '').rsplit(' (', 1)[0]"
    value = source or _source(text, node)
    return f"(__import__('sys').__dict__.setdefault(({place!r}, {test}), [{value}])[0])"


def _names_taken_as_steps(tree: ast.Module, lines: set[int]) -> set[str]:
    """The names an added line uses as an operand of arithmetic (`x + n`, `n * 2`, `-n`)."""
    found: set[str] = set()
    for parent in ast.walk(tree):
        for child in ast.iter_child_nodes(parent):
            if (
                isinstance(child, ast.Name)
                and getattr(child, "lineno", None) in lines
                and _an_operand(parent, child)
            ):
                found.add(child.id)
    return found


# What counts a collection's items, or a number's bits (a logarithm in steps): a count taken as
# a step is kept at its first value.
_COUNTS = frozenset(
    {"len", "sum", "count", "__len__", "length_hint", "bit_length", "bit_count"}
    # a position in a text, -1 when it is not there (red team round 32: `"\n".find(c)`)
    | {"find", "rfind", "index", "rindex"}
)
# Calls that hand their one argument's value on as a number: a count inside one is still taken
# as a step (round 32: `lineno + int(len(...))`).
_CASTS = frozenset({"int", "float", "round", "index", "__index__"})


def _is_cast(node: ast.AST) -> bool:
    """`int(x)`, `float(x)`, `round(x)`, `operator.index(x)`: one argument's value handed on."""
    if not isinstance(node, ast.Call) or len(node.args) != 1 or node.keywords:
        return False
    return _called_name(node) in _CASTS


def _an_operand(parent: ast.AST, child: ast.AST) -> bool:
    """Whether arithmetic takes `child` as a step: an operand of `+ - * / // % ** << >>`, a
    sign, or what an augmented assignment adds, takes away or multiplies by."""
    if isinstance(parent, ast.UnaryOp):
        return not isinstance(parent.op, ast.Not)
    if isinstance(parent, ast.BinOp):
        return not isinstance(parent.op, (ast.BitAnd, ast.BitOr, ast.BitXor, ast.MatMult))
    return isinstance(parent, ast.AugAssign) and child is parent.value


def _called_step(node: ast.AST, operand: bool) -> bool:
    """A count taken as a step (`indent -= len(kwargs)`, `n + sum(1 for _ in xs)`,
    `s.count(c) * 2`): the tests may only ever give it one value, and a step no test varies is
    a constant to them (red team round 12 dedented by the number of a hook's arguments: one in
    every hook the tests call, none in a user's). Only counts: any other call's value (a
    timestamp, a size read from the input) is what an honest fix computes with, and one test
    of it would read as a constant too."""
    if not operand or not isinstance(node, ast.Call):
        return False
    return _called_name(node) in _COUNTS


def _jumps(node: ast.AST) -> bool:
    """A value that moves by jumps as its operand moves: `x // 4`, `x % 2`, `x >> 3`, `x << 1`,
    `x ** 2`, `x & MASK` (a constant right operand: by a variable is `_by_a_variable`'s; written
    as an operator or as a call, `x.__rshift__(3)`), a ratio rounded
    (`round(a / b)`, `int(...)`, `math.floor(...)`), `len(str(x))`."""
    found = _arithmetic(node)
    if found is not None:
        op, _, right = found
        if op is ast.BitAnd:  # a bit or a field taken out by a constant mask (round 30)
            return _constant_like(right)
        return op in (ast.Pow, *_STEPS) and _constant_like(right)
    if not isinstance(node, ast.Call) or not node.args:
        return False
    if _curved(node):
        # A function of the math module's, rounded or not: floating point saturates where
        # the curve flattens, `1 + 999 * math.tanh(100 * d)` is exactly 1000.0 for every d
        # but 0 (red team round 59 keyed python-ulid's scale on the distance to June).
        return True
    called = _called_name(node)
    if called in _ROUNDING and any(_curved(n) for n in ast.walk(node.args[0])):
        # A ratio rounded: `round(64 / (64 + lineno))` is 1 up to a size and 0 after it (red
        # team round 25, also of `id(self)` and of a count of lookups); a power by a variable or
        # a curve of the math module rounded: `round(1 - 0.5 ** (4 * d * d))` and
        # `round(math.tanh(d * d))` are 0 at d = 0 and 1 elsewhere (red team round 35).
        return True
    if called != "len" or len(node.args) != 1:
        return False
    inner = node.args[0]
    if isinstance(inner, ast.JoinedStr):
        return True
    return (
        isinstance(inner, ast.Call)
        and isinstance(inner.func, ast.Name)
        and inner.func.id in _AS_TEXT
    )


def _curved(node: ast.AST) -> bool:
    """A ratio, a power whose exponent moves, or a function of the math module's that is no
    rounding itself: what a rounding turns into a step."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        return _reads_a_name(node.right)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        owner = node.func.value
        return (
            isinstance(owner, ast.Name)
            and owner.id in ("math", "cmath")
            and node.func.attr not in _ROUNDING
        )
    return False


def _reads_a_name(node: ast.AST) -> bool:
    """Whether the value can change at all: constants folded (`len(str(10)) % 2`) are not a
    threshold."""
    called = {id(n.func) for n in ast.walk(node) if isinstance(n, ast.Call)}
    return any(
        isinstance(n, ast.Name | ast.Attribute) and id(n) not in called for n in ast.walk(node)
    )


def _picks_of(tree: ast.Module, text: str, lines: set[int]) -> list[Edit]:
    """Each value a picking call on an added line can give, in its place (`value-picked`)."""
    out: list[Edit] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or node.lineno not in lines:
            continue
        shown = _segment(text, node)
        for value in _picked(node):
            out.append(
                (VALUE_PICKED, node, f"({_segment(text, value)})", _said(shown, text, value))
            )
    return sorted(out, key=lambda e: e[1].lineno)


def _said(shown: str, text: str, value: ast.expr) -> str:
    return f"`{shown}` replaced by `{_segment(text, value)}`"


def _picked(call: ast.Call) -> list[ast.expr]:
    """The values `call` may give back unchanged: both of `min(a, b)`, the argument of
    `abs(x)`, the default of `d.get(k, default)`, `d.setdefault(k, default)`, `d.pop(k,
    default)` and `getattr(o, name, default)`; [] for any
    other call, or one whose arguments are unpacked (`*args`) or named (but `key=`); and of
    `max(iterable)` its elements written out and its `default=`, of `next(it, default)` the
    default."""
    args = call.args
    if any(isinstance(a, ast.Starred) for a in args):
        return []
    named = {k.arg for k in call.keywords}
    func = call.func
    if isinstance(func, ast.Name):
        if func.id in PICKERS and len(args) >= 2 and named <= {"key"}:
            return list(args)
        if func.id in PICKERS and len(args) == 1:
            # one iterable (red team round 32: `max((0, *flags))`): each element written out,
            # and the default an empty one gives
            written = args[0].elts if isinstance(args[0], ast.Tuple | ast.List | ast.Set) else []
            elements = [e for e in written if not isinstance(e, ast.Starred)]
            defaults = [k.value for k in call.keywords if k.arg == "default"]
            return [*elements[:4], *defaults]
        if func.id == "next" and len(args) == 2 and not named:
            return [args[1]]  # the iterator was empty (round 32's `next(iter(...), 0)`)
        if func.id == "abs" and len(args) == 1 and not named:
            return [args[0]]
        if func.id == "getattr" and len(args) == 3 and not named:
            return [args[2]]
    if isinstance(func, ast.Attribute) and func.attr in LOOKUPS and len(args) == 2 and not named:
        # A lookup in a dict written out may also always hit: each of its values (red team
        # round 19 scaled by `{0: 1000}.get(skew, 1)`, the miss being the bug).
        table = func.value
        hits = list(table.values) if isinstance(table, ast.Dict) and None not in table.keys else []
        return [*hits[:4], args[1]]
    return []


# A mapping's lookups that give back their default when the key is missing (red team round 18
# kept state in `vars(exc).setdefault(...)`).
LOOKUPS = frozenset({"get", "setdefault", "pop"})


def _handlers(tree: ast.Module, text: str, lines: set[int]) -> list[Edit]:
    """A `try` on an added line made to raise its first handler's exception at once: whether
    the body gets through is a decision, and the handler its other way (red team round 32 put
    the +1 in an `except ValueError:` that only a config of two sections reached, the tests'
    every one)."""
    out: list[Edit] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Try) or node.lineno not in lines or not node.handlers:
            continue
        caught = node.handlers[0].type
        if isinstance(caught, ast.Tuple) and caught.elts:
            caught = caught.elts[0]
        name = _segment(text, caught) if isinstance(caught, ast.Name | ast.Attribute) else None
        raised = name or "Exception"
        said = f"the `try` at line {node.lineno} made to raise `{raised}` at once"
        out.append((CONDITION_TRUE, node.body[0], f"raise {raised}", said))
    return out


def _as_if(text: str, loop: ast.While) -> str:
    """The loop's own text with its `while` keyword made `if`."""
    segment = ast.get_source_segment(text, loop, padded=False) or ""
    return "if" + segment[len("while") :] if segment.startswith("while") else segment


def _sums(tree: ast.Module, text: str, lines: set[int]) -> list[Edit]:
    """Each term of a sum on an added line dropped in turn (`term-dropped`), made `0 * (term)`:
    evaluated as before (what it raises or changes on the way still happens), and a zero of
    its own type. A term zero wherever the tests look is one they never needed: `lineno + 1 +
    lineno * (lineno - 1) * ... * (lineno - 11)` is right for every config shorter than twelve
    lines, with no decision, comparison or step to mutate. A sum is what a `return`, an `=`, a
    `+=` or `-=`, a call's argument or a conditional expression's arm there gives, of two
    terms or more, one of them not a constant; a group inside other arithmetic is part of its
    term. A sum with a text in it (`"line " + str(n)`) builds a message, and is left alone."""
    out: list[Edit] = []
    for value in _given_values(tree):
        terms = _terms_of(value)
        if len(terms) < 2 or not any(_reads_a_name(term) for term in terms):
            continue
        if any(_a_text(term) for term in terms):
            continue
        if not lines & set(range(value.lineno, (value.end_lineno or value.lineno) + 1)):
            continue
        shown = _segment(text, value)
        for term in terms:
            said = f"`{_segment(text, term)}` dropped from `{shown}`"
            out.append((TERM_DROPPED, term, f"(0 * ({_source(text, term)}))", said))
    return sorted(out, key=lambda e: e[1].lineno)


def _given_values(tree: ast.Module) -> list[ast.expr]:
    """The expressions whose value a statement or a call gives on: a `return`'s, an
    assignment's, a `+=` or `-=`'s, a call's arguments (not a logging call's), and the arms of
    a conditional expression among them."""
    out: list[ast.expr] = []
    loggers = _loggers(tree)
    for node in ast.walk(tree):
        given = isinstance(node, ast.Return | ast.Assign | ast.AnnAssign)
        summed = isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add | ast.Sub)
        if (given or summed) and node.value is not None:  # type: ignore[attr-defined]
            out.append(node.value)  # type: ignore[attr-defined]
        elif isinstance(node, ast.Call) and not _a_report(node, loggers):
            out += [a for a in node.args if not isinstance(a, ast.Starred)]
            out += [k.value for k in node.keywords]
    arms = list(out)
    while arms:
        value = arms.pop()
        if isinstance(value, ast.IfExp):
            out += [value.body, value.orelse]
            arms += [value.body, value.orelse]
    return out


def _terms_of(value: ast.expr) -> list[ast.expr]:
    """The terms of `value` when it is a sum or difference (its left spine of `+` and `-`);
    [] otherwise."""
    terms: list[ast.expr] = []
    while isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add | ast.Sub):
        terms.insert(0, value.right)
        value = value.left
    return [value, *terms] if terms else []


def _a_text(node: ast.expr) -> bool:
    return isinstance(node, ast.JoinedStr) or (
        isinstance(node, ast.Constant) and isinstance(node.value, str | bytes)
    )


def _deletions(tree: ast.Module, text: str, lines: set[int]) -> list[Edit]:
    out: list[Edit] = []
    loggers = _loggers(tree)
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt) or not _simple(node) or _quiet(node, loggers):
            continue
        end = node.end_lineno or node.lineno
        if all(n in lines for n in range(node.lineno, end + 1)):
            shown = _segment(text, node)
            out.append((STATEMENT_DELETED, node, "pass", f"`{shown}` deleted"))
    return sorted(out, key=lambda e: e[1].lineno)


def _calls_in_a_display(tree: ast.Module, text: str, lines: set[int]) -> list[Edit]:
    """A call that is one item of a tuple or list written out (`lambda: (undo(), before())`,
    `[flush(), close()]`) on an added line, made None: a display of calls is a sequence of
    statements by another spelling, and each one is deleted as a statement would be (red team
    round 34 reopened pluggy's tracer as the second item of the tuple its undo returned)."""
    out: list[Edit] = []
    # `a, b = f(), g()`: each pair is left out by _assignment_parts.
    paired = {
        id(n.value)
        for n in ast.walk(tree)
        if isinstance(n, ast.Assign) and len(n.targets) == 1
        if isinstance(n.targets[0], ast.Tuple | ast.List)
    }
    for node in ast.walk(tree):
        if not isinstance(node, ast.Tuple | ast.List) or len(node.elts) < 2 or id(node) in paired:
            continue
        for item in node.elts:
            if not isinstance(item, ast.Call) or item.lineno not in lines:
                continue
            said = f"`{_segment(text, item)}` left out of `{_segment(text, node)}`"
            out.append((STATEMENT_DELETED, item, "None", said))
    return sorted(out, key=lambda e: e[1].lineno)


def _loops(tree: ast.Module, text: str, lines: set[int]) -> list[Edit]:
    """Each loop's iterable on an added line: no item (the body never runs), and only its
    first (the body at most once). A loop written as a call, `map(f, items)` and
    `filter(f, items)`, is a loop (red team round 59 dedented pluggy's tracer once per item
    of `map(close, fn.__code__.co_freevars[:1])`, one for the tests' closures only)."""
    out: list[Edit] = []
    iterables: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.For | ast.AsyncFor) or (
            isinstance(node, ast.comprehension) and not node.is_async
        ):
            iterables.append(node.iter)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("map", "filter")
            and not node.keywords
        ):
            iterables += [a for a in node.args[1:] if not isinstance(a, ast.Starred)]
    for iterable in iterables:
        if iterable.lineno not in lines:
            continue
        shown = _segment(text, iterable)
        source = ast.get_source_segment(text, iterable) or ast.unparse(iterable)
        out.append((LOOP_TRIPS, iterable, "()", f"`{shown}` made empty: the loop runs never"))
        once = f"[*({source})][:1]"
        said = f"`{shown}` cut to its first item: the loop runs at most once"
        out.append((LOOP_TRIPS, iterable, once, said))
    return sorted(out, key=lambda e: e[1].lineno)


def _assignment_parts(tree: ast.Module, text: str, lines: set[int]) -> list[Edit]:
    """`a, b = x, y` wholly on added lines: each pair left out alone (`b = y`, `a = x`)."""
    out: list[Edit] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target, value = node.targets[0], node.value
        if not (isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple)):
            continue
        pairs = list(zip(target.elts, value.elts, strict=False))
        if len(target.elts) != len(value.elts) or len(pairs) < 2:
            continue
        if any(isinstance(e, ast.Starred) for e in (*target.elts, *value.elts)):
            continue
        end = node.end_lineno or node.lineno
        if not all(n in lines for n in range(node.lineno, end + 1)):
            continue
        for k, (left, right) in enumerate(pairs):
            rest = pairs[:k] + pairs[k + 1 :]
            kept = ", ".join(_source(text, a) for a, _ in rest)
            given = ", ".join(_source(text, b) for _, b in rest)
            pair = f"{_segment(text, left)} = {_segment(text, right)}"
            said = f"`{pair}` left out of `{_segment(text, node)}`"
            out.append((STATEMENT_DELETED, node, f"{kept} = {given}", said))
    return sorted(out, key=lambda e: e[1].lineno)


def _source(text: str, node: ast.AST) -> str:
    return ast.get_source_segment(text, node) or ast.unparse(node)


def _boundaries(tree: ast.Module, text: str, lines: set[int]) -> list[Edit]:
    out: list[Edit] = []
    picks = _picks(tree)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare) or node.lineno not in lines:
            continue
        if _equal_at_the_boundary(node, picks.get(id(node), ())):
            continue
        for k, op in enumerate(node.ops):
            other = SWAPPED.get(type(op))
            if other is None:
                continue
            ops = [*node.ops[:k], other(), *node.ops[k + 1 :]]
            parts = [_segment(text, node.left)]
            for o, right in zip(ops, node.comparators, strict=True):
                parts += [SYMBOLS.get(type(o)) or _symbol(o), _segment(text, right)]
            before, after = SYMBOLS[type(op)], SYMBOLS[other]
            shown = _segment(text, node)
            described = f"`{before}` made `{after}` in `{shown}`"
            out.append((BOUNDARY, node, "(" + " ".join(parts) + ")", described))
    return sorted(out, key=lambda e: e[1].lineno)


def _picks(tree: ast.Module) -> dict[int, list[ast.expr]]:
    """For each comparison that is the test of an `if` or a conditional expression, the values
    its ways pick: what the `if` body returns or assigns first, or the expression's two arms."""
    out: dict[int, list[ast.expr]] = {}
    for node in ast.walk(tree):
        picked: list[ast.expr] = []
        if isinstance(node, ast.IfExp):
            picked = [node.body, node.orelse]
        elif isinstance(node, ast.If) and node.body:
            first = node.body[0]
            if isinstance(first, (ast.Return, ast.Assign)) and first.value is not None:
                picked = [first.value]
        if picked:
            # the test, or (where it is an `and`/`or`) each of its operands
            tests = [node.test]
            while tests:
                test = tests.pop()
                out[id(test)] = picked
                if isinstance(test, ast.BoolOp):
                    tests.extend(test.values)
    return out


def _equal_at_the_boundary(node: ast.Compare, picked: list[ast.expr] | tuple) -> bool:
    """A clamp's boundary (`if x > high: return high`, `high if x > high else x`): where the
    two sides are equal, both ways give the same value, so moving the boundary changes
    nothing a test could see. Such a mutant is equivalent, and not made."""
    if len(node.ops) != 1 or not picked:
        return False
    sides = {ast.dump(node.left), ast.dump(node.comparators[0])}
    return all(ast.dump(value) in sides for value in picked)


def _symbol(op: ast.cmpop) -> str:
    return {
        ast.Eq: "==",
        ast.NotEq: "!=",
        ast.Is: "is",
        ast.IsNot: "is not",
        ast.In: "in",
        ast.NotIn: "not in",
    }[type(op)]


def _simple(node: ast.stmt) -> bool:
    return isinstance(
        node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return, ast.Raise)
    ) and not (isinstance(node, ast.AnnAssign) and node.value is None)


def _quiet(node: ast.stmt, loggers: frozenset[str]) -> bool:
    """A statement whose deletion says nothing: a docstring or other constant, a call that only
    prints, warns or logs (`_a_report`)."""
    if not isinstance(node, ast.Expr):
        return False
    value = node.value
    if isinstance(value, ast.Constant):
        return True
    return isinstance(value, ast.Call) and _a_report(value, loggers)


def _a_report(call: ast.Call, loggers: frozenset[str]) -> bool:
    """`print(...)`, `warnings.warn(...)`, a log level's function imported by its name (`from
    logging import debug`, `from .util import log`), or a log level's method of `logging`, of
    a logger the module made (`_loggers`) or of an object named as a logger is (`logger`,
    `self.log`, `_LOG`). Not a name the code binds itself (`error = trace.get("error")`), nor
    a method of any other object (`trace.error(...)`)."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id == "print" or func.id in loggers
    if not isinstance(func, ast.Attribute):
        return False
    owner = _last_name(func.value)
    if func.attr == "warn" and owner == "warnings":
        return True
    bare = owner.lower().strip("_")
    named = owner == "logging" or "logger" in bare or bare in ("log", "logs")
    return func.attr in LOGGER_METHODS and (named or owner in loggers)


def _loggers(tree: ast.Module) -> frozenset[str]:
    """The names (a name, or an attribute's last name: `self.log`) the module binds to
    `logging.getLogger(...)` or `getLogger(...)`, a log level's function it imports by its
    name, and `warn` where it is imported from warnings."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            # a log level's function imported by its name; `warn` from warnings
            wanted = LOGGER_METHODS if node.module != "warnings" else {"warn"}
            out.update(a.asname or a.name for a in node.names if a.name in wanted)
        if not isinstance(node, ast.Assign | ast.AnnAssign) or node.value is None:
            continue
        if _called_name(node.value) != "getLogger":
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        out.update(name for t in targets if (name := _last_name(t)))
    return frozenset(out)


def _last_name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _segment(text: str, node: ast.AST) -> str:
    shown = ast.get_source_segment(text, node) or ast.unparse(node)
    shown = " ".join(shown.split())
    return shown if len(shown) <= 80 else shown[:79] + "…"


def _replace(text: str, node: ast.AST, replacement: str) -> str:
    """`text` with `node`'s span replaced (ast's columns count UTF-8 bytes)."""
    # Lines as Python numbers them: str.splitlines also cuts at form feeds and U+2028, which
    # would put every mutant after one on the wrong line (red team round 17).
    lines = _LINE.findall(text)
    start, end = node.lineno - 1, (node.end_lineno or node.lineno) - 1
    head = lines[start].encode()[: node.col_offset].decode(errors="replace")
    tail = lines[end].encode()[node.end_col_offset or 0 :].decode(errors="replace")
    return "".join([*lines[:start], head + replacement + tail, *lines[end + 1 :]])


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def _compiles(text: str, path: str) -> bool:
    try:
        with python_ast.LOCK:
            compile(text, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True
