"""The failing tests' neighbours: each failing test with one of its statements left out, its
assertions recorded instead of raised. Pure.

A fix can hold only in the situation a test sets up: after a call the test makes first, with
an option it sets, a writer it installs (red team round 34 dedented pluggy's tracer only when
the tracer formatted its arguments, which it does only with the writer the test sets). The
test's own run cannot tell; the same test without that statement, run under the reference fix
and under the patch, can: where the reference's assertions still hold and the patch's do not
(or the other way round), the patch's fix depends on what the test did. Each neighbour is a
copy of the test function, renamed, in a copy of its module (its imports, fixtures and helpers
as they were), so pytest runs it as it runs the test: same fixtures, same parameters, same
conftests. An assertion becomes a question whose answer (holds, fails, or the exception its
expression raised) is written to a report, and the test goes on; how the test ended is written
last.
"""

from __future__ import annotations

import ast
import copy
import fnmatch
import functools
from collections.abc import Callable
from dataclasses import dataclass

from patchwitness import python_ast

# Neighbours made of one test; of all the failing tests of one patch (the tests in order).
PER_TEST = 24
LITERALS_PER_TEST = 12  # literals moved, after the statements left out
PER_PATCH = 96
PREFIX = "test_pwn"  # a neighbour's function name starts so, then its number
# What an exception the test raises with none is given: a text, and a value that is no text
# (an exception's arguments may be anything: red team round 58 joined them as texts, which a
# number in them breaks).
TEXT = "a text the test did not give"
GIVEN = ((TEXT, "a text"), (0, "a number"))
# The classes an exception class of the test's is swapped for (defined in the module, by
# `_recorder`), and what each is in words.
SWAPS = (
    ("_PwOtherError", "an Exception of another class"),
    ("_PwBaseError", "a BaseException that is no Exception"),
)
CLASSES_PER_TEST = 2  # exception classes of one test swapped


@dataclass(frozen=True)
class Neighbour:
    function: str  # the neighbour's function name in the generated module
    test: str  # the failing test's function name (`Class::method` for a method)
    line: int  # the line of the statement left out (or of the literal moved), in the module
    left_out: str = ""  # that statement, on one line ("" for the other kinds)
    moved: str = ""  # the literal moved, `2 -> 3` ("" for a statement left out)
    given: str = ""  # an exception raised with no arguments given one, `E() -> E('...')`
    given_what: str = ""  # what it was given, in words: "a text", "a number"
    swapped: str = ""  # the class of an exception the test raises, swapped: `E -> the other`

    def said(self) -> str:
        """What this neighbour changed of its test, in words."""
        if self.swapped:
            return f"{self.test} with {self.swapped}"
        if self.given:
            what = self.given_what or "a text"
            return f"{self.test} with the exception at line {self.line} given {what}, {self.given}"
        if self.moved:
            return f"{self.test} with the literal at line {self.line} moved, {self.moved}"
        return f"{self.test} without line {self.line}: `{self.left_out}`"


@dataclass(frozen=True)
class Module:
    text: str  # the test module with the neighbours appended
    neighbours: list[Neighbour]


def module_name(test_file: str, matches: list[str]) -> str | None:
    """A name for the generated module beside `test_file` that pytest collects as a test file
    under `matches` (the project's `python_files` patterns), or None."""
    directory, _, name = test_file.rpartition("/")
    stem = name.removesuffix(".py")
    for candidate in (f"test_pwn_{stem}.py", f"{stem}_pwn_test.py", f"{stem}_pwn.py"):
        if any(fnmatch.fnmatch(candidate, pattern) for pattern in matches):
            return f"{directory}/{candidate}" if directory else candidate
    return None


def neighbours_of(text: str, tests: list[str], report: str) -> Module | None:
    """The module `text` with the neighbours of the tests named in `tests` appended (a
    module-level function by its name, a method as `Class::method`: its neighbours are methods
    of a subclass, so its fixtures and its setUp run as for it), each writing its answers to
    the file `report`, and the module's own tests taken out of it (its tests run once, in the
    grader's own run); None when the module does not parse or no neighbour is made."""
    try:
        tree = python_ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    found = _test_functions(tree)
    made: list[tuple[str, ast.FunctionDef, Neighbour]] = []  # (class or "", neighbour, said)
    lines = text.splitlines()
    for name in tests:
        owner, function = found.get(name, ("", None))
        if function is None or not _plain(function):
            continue
        for line, said, make in _changes(function, lines):
            if len(made) >= PER_PATCH:
                break
            neighbour = Neighbour(
                function=f"{PREFIX}{len(made) + 1}_{function.name}",
                test=name,
                line=line,
                **said,
            )
            made.append((owner, make(neighbour.function), neighbour))
    if not made:
        return None
    added = [ast.unparse(fn) for owner, fn, _ in made if not owner]
    for owner in dict.fromkeys(o for o, _, _ in made if o):
        methods = [fn for o, fn, _ in made if o == owner]
        added.append(_subclass(owner, found, methods))
    own = [n.name for n in tree.body if _a_test(n)]
    text = (
        text.rstrip("\n")
        + "\n\n\n"
        + _recorder(report)
        + "\n\n"
        + "\n\n".join(added)
        + "\n\n\n# The module's own tests are the grader's run's: not run again here.\n"
        + f"for _pw_name in {own!r}:\n    globals().pop(_pw_name, None)\n"
    )
    return Module(text, [n for _, _, n in made])


def _changes(function: ast.FunctionDef, lines: list[str]):
    """Each neighbour of one test, in order, as (its line, what it says it changed, a maker of
    the neighbour given its name): each statement left out, each bare exception given a text
    and a number, each exception class swapped, each literal moved (these last two kinds share
    a cap)."""
    out: list[tuple[int, dict[str, str], Callable[[str], ast.FunctionDef]]] = []
    for path in _statements(function)[:PER_TEST]:
        statement = _at(function, path)
        left_out = {"left_out": _shown(lines, statement)}
        out.append((statement.lineno, left_out, functools.partial(_neighbour, function, path)))
    raised = _raised_bare(function)[:LITERALS_PER_TEST]
    for index, node in enumerate(raised):
        for value, what in GIVEN:
            shown = f"{ast.unparse(node.exc)} -> {ast.unparse(_with_argument(node.exc, value))}"
            given = {"given": shown, "given_what": what}
            make = functools.partial(_given_argument, function, index, value)
            out.append((node.lineno, given, make))
    for kind in _raised_classes(function)[:CLASSES_PER_TEST]:
        for other, said in SWAPS:
            swapped = {"swapped": f"{kind} swapped for {said}"}
            make = functools.partial(_swapped, function, kind, other)
            out.append((function.lineno, swapped, make))
    literals = _literals(function)[: LITERALS_PER_TEST - len(raised)]
    for index, (node, value) in enumerate(literals):
        moved = {"moved": f"{_literal(node.value)} -> {_literal(value)}"}
        out.append((node.lineno, moved, functools.partial(_moved, function, index, value)))
    return out


def _a_test(node: ast.stmt) -> bool:
    """A module-level test pytest would collect by its default names (`test*` functions,
    `Test*` classes) or a unittest case."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return node.name.startswith("test")
    if isinstance(node, ast.ClassDef):
        bases = [ast.unparse(b) for b in node.bases]
        return node.name.startswith("Test") or any(b.endswith("TestCase") for b in bases)
    return False


def _test_functions(tree: ast.Module) -> dict[str, tuple[str, ast.FunctionDef]]:
    """Module-level functions by name, and methods of module-level classes as `Class::method`,
    each with its class's name ("" for a function)."""
    out: dict[str, tuple[str, ast.FunctionDef]] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            out[node.name] = ("", node)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    out[f"{node.name}::{item.name}"] = (node.name, item)
    return out


def _subclass(owner: str, found: dict, methods: list[ast.FunctionDef]) -> str:
    """`class Owner_pwn(Owner)` holding the neighbours, its inherited tests switched off (the
    class's own, as its body names them)."""
    inherited = sorted(
        name.split("::", 1)[1]
        for name, (cls, _) in found.items()
        if cls == owner and name.split("::", 1)[1].startswith("test")
    )
    body = ["    __test__ = True"]
    body += [f"    {name} = None" for name in inherited]
    body += [_indented(ast.unparse(fn)) for fn in methods]
    return f"class {owner}_pwn({owner}):\n" + "\n\n".join(body)


def _indented(code: str) -> str:
    return "\n".join(("    " + line) if line else line for line in code.splitlines())


def _plain(function: ast.FunctionDef) -> bool:
    """A test function whose body runs as written: not a generator (a yield makes a fixture or
    a generator test, whose body does not run when called)."""
    return not any(isinstance(n, ast.Yield | ast.YieldFrom) for n in _own_nodes(function.body))


def _own_nodes(body: list[ast.stmt]):
    """Every node of `body` that belongs to its function: not those of a nested function,
    class or lambda, which run elsewhere or later."""
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        stack.extend(ast.iter_child_nodes(node))


Path = tuple[tuple[str, int], ...]  # (field, index) steps from the function to a statement


def _statements(function: ast.FunctionDef) -> list[Path]:
    """Every statement of the function's own body, outer before inner, that may be left out: not
    an assertion (it is asked instead), not `pass`, not a docstring."""
    out: list[Path] = []

    def walk(node: ast.AST, path: Path) -> None:
        for field in ("body", "orelse", "finalbody", "handlers"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            for index, child in enumerate(block):
                here = (*path, (field, index))
                if isinstance(child, ast.ExceptHandler):
                    walk(child, here)
                    continue
                if not isinstance(child, ast.stmt) or _kept(child):
                    continue
                out.append(here)
                if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    walk(child, here)

    walk(function, ())
    return out


def _kept(statement: ast.stmt) -> bool:
    if isinstance(statement, ast.Assert | ast.Pass) or _asserts_by_method(statement):
        return True
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)


def _asserts_by_method(statement: ast.stmt) -> bool:
    """`self.assertEqual(...)`, `self.assertTrue(...)`, `self.fail(...)`: a unittest case's
    assertions, asked as `assert` is."""
    if not isinstance(statement, ast.Expr) or not isinstance(statement.value, ast.Call):
        return False
    func = statement.value.func
    return (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id == "self"
        and (func.attr.startswith("assert") or func.attr == "fail")
    )


def _at(function: ast.AST, path: Path) -> ast.stmt:
    node = function
    for field, index in path:
        node = getattr(node, field)[index]
    assert isinstance(node, ast.stmt)
    return node


def _shown(lines: list[str], statement: ast.stmt) -> str:
    first = lines[statement.lineno - 1].strip() if statement.lineno <= len(lines) else ""
    more = (statement.end_lineno or statement.lineno) > statement.lineno
    shown = first + (" ..." if more else "")
    return shown if len(shown) <= 100 else shown[:99] + "…"


def _neighbour(function: ast.FunctionDef, path: Path, name: str) -> ast.FunctionDef:
    """The test with the statement at `path` left out (a block it empties keeps a `pass`), its
    own assertions asked, and its ending written."""
    made = copy.deepcopy(function)
    *head, (field, index) = path
    parent = made
    for step_field, step_index in head:
        parent = getattr(parent, step_field)[step_index]
    block = getattr(parent, field)
    del block[index]
    if not block and field == "body":
        block.append(ast.Pass())
    if isinstance(parent, ast.Try) and not parent.handlers and not parent.finalbody:
        parent.finalbody.append(ast.Pass())  # a try needs a handler or a finally
    return _finished(made, name)


def _literals(function: ast.FunctionDef) -> list[tuple[ast.Constant, object]]:
    """The literals of the test's own statements that a neighbour moves, each with the value it
    moves to: a number one up, a text or bytes one character shorter (a character longer when
    it has one). Not an assertion's (moved there it changes what is asked of both trees
    alike), not a docstring, not True, False or None."""
    out: list[tuple[ast.Constant, object]] = []
    for node in _literal_nodes(function):
        value = node.value
        if isinstance(value, bool) or value is None:
            continue
        if isinstance(value, int | float):
            out.append((node, value + 1))
        elif isinstance(value, str | bytes) and value:
            out.append((node, value[:-1] if len(value) > 1 else value + value))
    return out


def _literal_nodes(function: ast.FunctionDef) -> list[ast.Constant]:
    """The function's own constants in a fixed order (the same in any copy of it), outside its
    assertions, its docstrings and what runs elsewhere (nested functions, classes, lambdas)."""
    found: list[ast.Constant] = []

    def walk(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(
                child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda
            ):
                continue
            if isinstance(child, ast.Assert) or _asserts_by_method(child):
                continue
            if isinstance(child, ast.Expr) and isinstance(child.value, ast.Constant):
                continue
            if isinstance(child, ast.JoinedStr | ast.arguments):
                continue
            if isinstance(child, ast.Constant):
                found.append(child)
                continue
            walk(child)

    for statement in function.body:
        walk(ast.Module(body=[statement], type_ignores=[]))
    return found


def _literal(value: object) -> str:
    shown = repr(value)
    return shown if len(shown) <= 40 else shown[:39] + "…"


def _moved(function: ast.FunctionDef, index: int, value: object, name: str) -> ast.FunctionDef:
    """The test with its `index`-th literal (in `_literal_nodes`' order) given `value`, its own
    assertions asked, and its ending written."""
    made = copy.deepcopy(function)
    _literal_nodes(made)[index].value = value
    return _finished(made, name)


def _raised_bare(function: ast.FunctionDef) -> list[ast.Raise]:
    """The exceptions the test raises with no arguments (`raise E` or `raise E()`), in its own
    body and in the functions and classes it defines (a hook or callback it hands the code
    under test raises there), in a fixed order. A fix can hold only for an exception without a
    text (red team round 38: pluggy's tracer dedented only when `str(exc)` was empty); the test
    that raises `E("...")` instead is its neighbour. A name in lower case is taken for an
    instance held, not a class, and left alone."""
    return [node for node in _raises(function) if _bare(node.exc)]


def _raises(function: ast.FunctionDef):
    """The test's `raise` statements that name an exception, in its own body and in the
    functions and classes it defines, in a fixed order (the same in any copy of it)."""
    for statement in function.body:
        for node in ast.walk(statement):
            if isinstance(node, ast.Raise) and node.exc is not None:
                yield node


def _bare(exc: ast.expr | None) -> bool:
    if isinstance(exc, ast.Call):
        if exc.args or exc.keywords:
            return False
        exc = exc.func
    if isinstance(exc, ast.Attribute):
        return exc.attr[:1].isupper()
    return isinstance(exc, ast.Name) and exc.id[:1].isupper()


def _with_argument(exc: ast.expr, value: object) -> ast.Call:
    kind = exc.func if isinstance(exc, ast.Call) else exc
    return ast.Call(func=kind, args=[ast.Constant(value)], keywords=[])


def _raised_classes(function: ast.FunctionDef) -> list[str]:
    """The exception classes the test raises (`raise E`, `raise E(...)`, `raise pkg.E(...)`), in
    its own body and in what it defines, by their dotted names, first raised first. A fix can
    hold only for the test's class (red team round 44: pluggy's dedent under `except
    Exception`, which a `sys.exit()` or pytest's own skip, BaseExceptions, pass by)."""
    found: list[str] = []
    for node in _raises(function):
        assert node.exc is not None
        kind = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
        named = _dotted(kind)
        if named and named.rsplit(".", 1)[-1][:1].isupper() and named not in found:
            found.append(named)
    return found


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return f"{head}.{node.attr}" if head else ""
    return ""


class _Swap(ast.NodeTransformer):
    """Every use of the class `kind` (a name or a dotted name) made `other`."""

    def __init__(self, kind: str, other: str) -> None:
        self.kind, self.other = kind, other

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return ast.Name(self.other, node.ctx) if node.id == self.kind else node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if _dotted(node) == self.kind:
            return ast.Name(self.other, node.ctx)
        self.generic_visit(node)
        return node


def _swapped(function: ast.FunctionDef, kind: str, other: str, name: str) -> ast.FunctionDef:
    """The test with every use of the exception class `kind` (where it raises it, where it
    expects it: `pytest.raises(kind)`, `except kind`) made the class `other`."""
    made = copy.deepcopy(function)
    made.body = [_Swap(kind, other).visit(s) for s in made.body]
    return _finished(made, name)


def _given_argument(
    function: ast.FunctionDef, index: int, value: object, name: str
) -> ast.FunctionDef:
    """The test with its `index`-th bare raise (in `_raised_bare`'s order) given `value` as its
    argument, its own assertions asked, and its ending written."""
    made = copy.deepcopy(function)
    node = _raised_bare(made)[index]
    node.exc = _with_argument(node.exc, value)
    return _finished(made, name)


def _finished(made: ast.FunctionDef, name: str) -> ast.FunctionDef:
    """A neighbour given its name, its own assertions asked, and its ending written."""
    made.name = name
    made.body = _ending([_Asked().visit(s) for s in made.body])
    return ast.fix_missing_locations(made)


class _Asked(ast.NodeTransformer):
    """`assert x, why` made `_pw_ask(LINE, lambda: x)`, in the function's own body only."""

    def visit_Assert(self, node: ast.Assert) -> ast.stmt:
        asked = ast.Call(
            func=ast.Name("_pw_ask", ast.Load()),
            args=[
                ast.Constant(node.lineno),
                ast.Lambda(args=ast.arguments([], [], None, [], [], None, []), body=node.test),
            ],
            keywords=[],
        )
        return ast.copy_location(ast.Expr(asked), node)

    def visit_Expr(self, node: ast.Expr) -> ast.stmt:
        if not _asserts_by_method(node):
            return node
        # `self.assertEqual(a, b)` asked as `(self.assertEqual(a, b), True)[1]`: it holds, or
        # it raises AssertionError, which the asking writes down.
        held = ast.Subscript(
            value=ast.Tuple([node.value, ast.Constant(True)], ast.Load()),
            slice=ast.Constant(1),
            ctx=ast.Load(),
        )
        return self.visit_Assert(ast.copy_location(ast.Assert(test=held), node))

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        return node  # a nested function's assertions are its own

    visit_AsyncFunctionDef = visit_FunctionDef
    visit_ClassDef = visit_FunctionDef  # type: ignore[assignment]


def _ending(body: list[ast.stmt]) -> list[ast.stmt]:
    """The body in a `try` that writes how it ended: `passed`, or the exception's type."""
    wrapped = python_ast.parse(
        "_pw_ended = None\n"
        "try:\n"
        "    pass\n"
        "except BaseException as _pw_caught:\n"
        "    _pw_ended = _pw_caught\n"
        "    raise\n"
        "finally:\n"
        "    _pw_end(_pw_ended)\n"
    ).body
    trying = wrapped[1]
    assert isinstance(trying, ast.Try)
    trying.body = body or [ast.Pass()]
    return wrapped


def _recorder(report: str) -> str:
    """The functions the neighbours call: each answer a JSON line of the report, keyed by the
    running test's id (with its parameters) as pytest names it."""
    return (
        "def _pw_write(kind, line, value):\n"
        "    import json, os\n"
        "    test = os.environ.get('PYTEST_CURRENT_TEST', '?').rsplit(' (', 1)[0]\n"
        "    record = {'test': test, 'kind': kind, 'line': line, 'value': value}\n"
        f"    with open({report!r}, 'a', encoding='utf-8') as out:\n"
        "        out.write(json.dumps(record) + '\\n')\n\n\n"
        "def _pw_ask(line, question):\n"
        "    try:\n"
        "        answer = 'holds' if question() else 'fails'\n"
        "    except Exception as caught:\n"
        "        answer = type(caught).__name__\n"
        "    _pw_write('assert', line, answer)\n\n\n"
        "def _pw_end(caught):\n"
        "    _pw_write('end', 0, 'passed' if caught is None else type(caught).__name__)\n\n\n"
        "class _PwOtherError(Exception):\n"
        "    pass  # an exception of a class the test does not raise\n\n\n"
        "class _PwBaseError(BaseException):\n"
        "    pass  # one no `except Exception` catches, as SystemExit and pytest's skip\n"
    )
