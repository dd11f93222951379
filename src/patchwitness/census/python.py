"""AST inventory of Python tests and assertions. Pure: source bytes in, items out.

Never grep: the AST does not see comments, so a commented-out assert is gone; it does see an assert
buried under `if False:` or after a `return`, so dead code is walked around on purpose. Every item
is tied to its enclosing test by the same `Class::method` path pytest uses in node ids.
"""

from __future__ import annotations

import ast

from patchwitness import python_ast
from patchwitness.census.items import Item, fingerprint, squeeze
from patchwitness.pytest_config import PytestConfig

# pytest hooks with which a conftest can change which tests run or what their reports say.
REPORT_HOOKS = {
    "pytest_runtest_makereport",
    "pytest_runtest_logreport",
    "pytest_report_teststatus",
    "pytest_runtest_protocol",
    "pytest_runtest_call",
    "pytest_runtest_setup",
    "pytest_pyfunc_call",
    "pytest_collection_modifyitems",
    "pytest_deselected",
    "pytest_ignore_collect",
    "pytest_pycollect_makeitem",
    "pytest_sessionfinish",
    "pytest_unconfigure",
    "pytest_terminal_summary",
}
ASSERT_CALLS = {
    "pytest.raises",
    "pytest.warns",
    "pytest.approx",
    "pytest.fail",
    "pytest.deprecated_call",
}
SKIP_DECORATORS = (
    "mark.skip",
    "mark.skipif",
    "mark.xfail",
    "unittest.skip",
    "unittest.skipIf",
    "unittest.skipUnless",
    "unittest.expectedFailure",
)
SKIP_CALLS = {"pytest.skip", "pytest.xfail", "pytest.importorskip", "skipTest"}
SKIP_EXCEPTIONS = {"SkipTest", "unittest.SkipTest", "pytest.skip.Exception", "Skipped"}
TERMINATORS = (ast.Return, ast.Raise, ast.Continue, ast.Break)
MAX_TEXT = 200


def dotted(node: ast.AST) -> str:
    """`a.b.c` for a Name/Attribute chain (calls are looked through), '' for anything else."""
    parts: list[str] = []
    while True:
        if isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Name):
            parts.append(node.id)
            break
        else:
            return ""
    return ".".join(reversed(parts))


def _unparse(node: ast.AST | None) -> str:
    if node is None:
        return ""
    return squeeze(ast.unparse(node))


def _is_tautology(node: ast.expr) -> bool:
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return bool(value)


def _is_constant_false(node: ast.expr) -> bool:
    try:
        return not ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False


class _Inventory:
    def __init__(self, path: str, config: PytestConfig, test_file: bool) -> None:
        self.path = path
        self.config = config
        self.test_file = test_file
        self.items: list[Item] = []
        self.aliases: dict[str, str] = {}  # local name -> canonical dotted name

    # -- naming ---------------------------------------------------------------------------

    def canonical(self, name: str) -> str:
        if not name:
            return name
        head, _, rest = name.partition(".")
        head = self.aliases.get(head, head)
        full = f"{head}.{rest}" if rest else head
        if full.startswith("np."):
            full = "numpy." + full[3:]
        return full

    def add(self, kind: str, scope: str, name: str, basis: str, node: ast.AST) -> None:
        text = basis if len(basis) <= MAX_TEXT else basis[: MAX_TEXT - 3] + "..."
        self.items.append(
            Item(
                kind,
                self.path,
                scope,
                name,
                fingerprint(f"{name}({basis})"),
                getattr(node, "lineno", 0),
                text,
                "py",
            )
        )

    # -- walking --------------------------------------------------------------------------

    def module(self, tree: ast.Module) -> None:
        self.block(tree.body, scope="", in_class=None)

    def block(self, body: list[ast.stmt], scope: str, in_class: str | None) -> None:
        for stmt in body:
            self.statement(stmt, scope, in_class)
            if isinstance(stmt, TERMINATORS) or self._ends_block(stmt):
                return  # what follows is unreachable: its asserts witness nothing

    def _ends_block(self, stmt: ast.stmt) -> bool:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            name = self.canonical(dotted(stmt.value.func))
            return name in {
                "pytest.skip",
                "pytest.fail",
                "pytest.xfail",
                "sys.exit",
                "os._exit",
            } or name.endswith(".skipTest")
        return False

    def statement(self, stmt: ast.stmt, scope: str, in_class: str | None) -> None:
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            self.imports(stmt)
        elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            self.function(stmt, scope, in_class)
        elif isinstance(stmt, ast.ClassDef):
            self.klass(stmt, scope)
        elif isinstance(stmt, (ast.If, ast.While)):
            self.expressions(stmt.test, scope)
            if not _is_constant_false(stmt.test):
                self.block(stmt.body, scope, in_class)
            self.block(stmt.orelse, scope, in_class)
        elif isinstance(stmt, ast.Assert):
            self.assertion(stmt, scope)
        elif isinstance(stmt, ast.Raise):
            self.raising(stmt, scope)
        elif isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign):
            self.assignment(stmt, scope)
        else:
            for field_name in ("body", "orelse", "finalbody", "handlers", "cases"):
                inner = getattr(stmt, field_name, None)
                if isinstance(inner, list):
                    self._compound(stmt, field_name, inner, scope, in_class)
            self.expressions_of(stmt, scope)

    def _compound(self, stmt, field_name, inner, scope, in_class) -> None:
        if field_name in ("handlers", "cases"):
            for handler in inner:
                self.block(handler.body, scope, in_class)
        else:
            self.block(inner, scope, in_class)

    def expressions_of(self, stmt: ast.stmt, scope: str) -> None:
        """Expressions owned directly by a statement (not by its nested blocks)."""
        for field_name, value in ast.iter_fields(stmt):
            if field_name in ("body", "orelse", "finalbody", "handlers", "cases"):
                continue
            values = value if isinstance(value, list) else [value]
            for node in values:
                if isinstance(node, ast.expr):
                    self.expressions(node, scope)
                elif isinstance(node, ast.withitem):
                    self.expressions(node.context_expr, scope)

    def imports(self, stmt: ast.Import | ast.ImportFrom) -> None:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname:
                    self.aliases[alias.asname] = alias.name
        elif stmt.module:
            for alias in stmt.names:
                self.aliases[alias.asname or alias.name] = f"{stmt.module}.{alias.name}"

    # -- definitions ----------------------------------------------------------------------

    def function(self, node, scope: str, in_class: str | None) -> None:
        qual = f"{scope}::{node.name}" if scope else node.name
        if node.name in REPORT_HOOKS and not scope:
            self.add("define", "", f"hook:{node.name}", node.name, node)
        if in_class is not None and (node.name.startswith("assert") or node.name == "fail"):
            self.add("define", scope, f"override:{node.name}", node.name, node)
        collectable = in_class is not None or not scope
        is_test = self.test_file and collectable and self._is_test(node.name, in_class)
        for decorator in node.decorator_list:
            self.decorator(decorator, qual if is_test else scope, node)
        if is_test:
            kind = "unittest" if in_class == "unittest" else "pytest"
            self.add("test", qual, kind, qual, node)
        self.block(node.body, qual, None)

    def _is_test(self, name: str, in_class: str | None) -> bool:
        if in_class == "unittest":
            return name.startswith("test")
        if in_class == "":
            return False  # a class pytest will not collect
        return self.config.is_test_function(name)

    def klass(self, node: ast.ClassDef, scope: str) -> None:
        qual = f"{scope}::{node.name}" if scope else node.name
        bases = [self.canonical(dotted(b)) for b in node.bases]
        if any(b.endswith("TestCase") for b in bases):
            kind = "unittest"
        elif self.config.is_test_class(node.name) and not _has_init(node):
            kind = "pytest"
        else:
            kind = ""
        for decorator in node.decorator_list:
            self.decorator(decorator, qual, node)
        self.block(node.body, qual, kind)

    def decorator(self, node: ast.expr, scope: str, owner: ast.AST) -> None:
        name = self.canonical(dotted(node))
        if name.endswith(SKIP_DECORATORS) or name in SKIP_DECORATORS:
            self.add("skip", scope, _short_mark(name), _unparse(node), owner)
        elif name.endswith("mark.parametrize") and isinstance(node, ast.Call):
            self.parametrize(node, scope, owner)
        elif name.endswith("mark.usefixtures") or name.endswith("fixture"):
            return
        else:
            self.expressions(node, scope)

    def parametrize(self, node: ast.Call, scope: str, owner: ast.AST) -> None:
        values = node.args[1] if len(node.args) > 1 else None
        if values is None:
            values = next((k.value for k in node.keywords if k.arg == "argvalues"), None)
        if isinstance(values, ast.List | ast.Tuple | ast.Set):
            for element in values.elts:
                self.add("case", scope, "parametrize", _unparse(element), element)
                self.expressions(element, scope)
        elif values is not None:
            self.add("case", scope, "parametrize", _unparse(values), values)

    # -- statements and expressions -------------------------------------------------------

    def assertion(self, node: ast.Assert, scope: str) -> None:
        if not _is_tautology(node.test):
            self.add("assert", scope, "assert", _unparse(node.test), node)
        self.expressions(node.test, scope)

    def raising(self, node: ast.Raise, scope: str) -> None:
        name = self.canonical(dotted(node.exc)) if node.exc is not None else ""
        if name in SKIP_EXCEPTIONS or name.endswith(".SkipTest"):
            self.add("skip", scope, "raise SkipTest", _unparse(node.exc), node)
        elif name == "AssertionError" or name.endswith(".failureException"):
            self.add("assert", scope, "raise AssertionError", _unparse(node.exc), node)
        if node.exc is not None:
            self.expressions(node.exc, scope)

    def assignment(self, node, scope: str) -> None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            name = dotted(target)
            last = name.rsplit(".", 1)[-1]
            if name == "pytestmark" or name.endswith(".pytestmark"):
                self.marks(node.value, scope, node)
            elif isinstance(target, ast.Attribute) and _is_assertion_name(last):
                self.add("define", scope, f"assign:{self.canonical(name)}", _unparse(node), node)
        if node.value is not None:
            self.expressions(node.value, scope)

    def marks(self, value: ast.expr | None, scope: str, owner: ast.AST) -> None:
        if value is None:
            return
        seen: set[int] = set()
        for sub in ast.walk(value):
            if id(sub) in seen or not isinstance(sub, ast.Attribute | ast.Call):
                continue
            name = self.canonical(dotted(sub))
            if name.endswith(SKIP_DECORATORS):
                if isinstance(sub, ast.Call):
                    seen.add(id(sub.func))  # the mark and its call are one marker
                self.add("skip", scope, _short_mark(name), _unparse(sub), owner)

    def expressions(self, node: ast.expr, scope: str) -> None:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call):
                self.call(sub, scope)

    def call(self, node: ast.Call, scope: str) -> None:
        raw = dotted(node.func)
        name = self.canonical(raw)
        last = raw.rsplit(".", 1)[-1]
        args = _call_args(node)
        if name in ASSERT_CALLS or name.startswith(("numpy.testing.assert", "numpy.testing.utils")):
            self.add("assert", scope, name, args, node)
        elif (last.startswith("assert") or last == "fail") and "." in raw:
            if _tautological_call(last, node):
                return
            receiver = raw.split(".", 1)[0]
            label = last if receiver in ("self", "cls") else raw
            self.add("assert", scope, label, args, node)
        elif name in SKIP_CALLS or last == "skipTest":
            self.add("skip", scope, name if name in SKIP_CALLS else "skipTest", args, node)
        elif last in ("applymarker", "add_marker"):
            self.marks(node, scope, node)
        elif name in ("pytest.param", "param"):
            for keyword in node.keywords:
                if keyword.arg == "marks":
                    self.marks(keyword.value, scope, node)
        elif last == "setattr" and (target := _assertion_target(node)):
            self.add("define", scope, f"setattr:{target}", args, node)


def _tautological_call(method: str, node: ast.Call) -> bool:
    """`assertTrue(True)`, `assertEqual(x, x)`: calls that cannot fail witness nothing."""
    args = node.args
    if method in ("assertTrue", "assert_") and len(args) == 1:
        return _is_tautology(args[0])
    if method == "assertFalse" and len(args) == 1:
        return _is_constant_false(args[0])
    if method in ("assertEqual", "assertEquals", "assertIs") and len(args) >= 2:
        return _unparse(args[0]) == _unparse(args[1])
    return False


def _call_args(node: ast.Call) -> str:
    parts = [_unparse(a) for a in node.args]
    parts += [
        f"{k.arg}={_unparse(k.value)}" if k.arg else f"**{_unparse(k.value)}" for k in node.keywords
    ]
    return ", ".join(parts)


def _short_mark(name: str) -> str:
    for suffix in SKIP_DECORATORS:
        if name.endswith(suffix):
            return suffix.replace("mark.", "pytest.mark.") if suffix.startswith("mark.") else suffix
    return name


def _is_assertion_name(name: str) -> bool:
    return name.startswith(("assert", "fail", "skip")) or name in {"approx", "raises", "warns"}


def _assertion_target(node: ast.Call) -> str | None:
    """The assertion name a setattr(...) call overwrites, if it overwrites one."""
    for arg in node.args[:2]:
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            name = arg.value.rsplit(".", 1)[-1]
            if _is_assertion_name(name):
                return name
        if isinstance(arg, ast.Attribute) and _is_assertion_name(arg.attr):
            return arg.attr
    return None


def _has_init(node: ast.ClassDef) -> bool:
    return any(isinstance(stmt, ast.FunctionDef) and stmt.name == "__init__" for stmt in node.body)


def inventory_python(
    source: bytes, path: str, config: PytestConfig, test_file: bool = True
) -> list[Item]:
    """Items of one file. Raises SyntaxError or ValueError when the file does not parse."""
    tree = python_ast.parse(source, filename=path)
    walker = _Inventory(path, config, test_file)
    walker.module(tree)
    return walker.items
