"""Line hits for the few Python files a patch changed, recorded by the files themselves.

A tracer (coverage.py's included) makes every frame of the run slower on Python 3.11, traced file
or not: line events fire everywhere and the interpreter leaves its fast path. The coverage gate
only reads the hits of the patched production files, so those files, and only those, are compiled
with a probe before each statement: `__pw_hits__[LINE] = 1`, a store into a shared memory map.
Every other frame runs exactly as in a plain run.

The grader lists the files and creates one zero-filled hit file per source (PW_LINES names the
list: lines of `source path <TAB> hit file`). The map is shared: a forked child writes into its
parent's file, a spawned one maps the same file again, and a process killed mid-run or leaving by
os._exit has already written its hits. A probed module binds its map itself (its first statement
after the docstring), so it works however it is run: imported, or by runpy for `python -m`.

Runs inside the graded interpreter (any Python 3.8+): standard library only. The docstring and
`from __future__` imports stay first, so a module's `__doc__` and its compile flags are unchanged;
the probes carry their statement's line number, so tracebacks do not move. One line reads
differently from coverage.py: an `except` or `case` line counts when its block is entered, not
when its test was tried and failed (tests/test_line_probes.py compares the two).

Decisions on the lines a patch added are probed too, when the grader lists those lines: the test of
an `if`, `elif`, `while`, conditional expression, comprehension `if` or `case` guard, and each
operand of an `and`/`or` whose truth picks a path (every operand of a test, all but the last
elsewhere). Each becomes a call that notes which way it went, one byte per decision in a second
shared file (bit 1: true, bit 2: false). In a test the call returns the truth itself, so the
object's `__bool__` runs once, as it did; an operand whose value an `and`/`or` returns is handed
back unchanged, and its `__bool__` runs a second time. The grader counts the same decisions with
`decisions()`, so a byte is a decision only when both counts agree (byte 0 says they did).
"""

import ast
import mmap
import os
import sys
from importlib.machinery import PathFinder, SourceFileLoader

NAME = "__pw_hits__"
DECIDE = "__pw_dec__"  # the decision probe's name in a probed module
# A decision byte's bits: the ways it went.
TRUE, FALSE = 1, 2
# Byte N of a hit file is line N; the two bytes no line uses are flags: byte 0, the file was
# compiled with probes; the last byte, it was run as a script, which the probes never see.
LOADED = 0
SCRIPT = -1


def _statement(code, lineno, col_offset):
    """One statement of generated code, located at (lineno, col_offset) of the source."""
    node = ast.parse(code).body[0]
    for child in ast.walk(node):
        child.lineno = child.end_lineno = lineno
        child.col_offset = child.end_col_offset = col_offset
    return node


def _probe(line, at):
    return _statement(f"{NAME}[{line}] = 1", at.lineno, at.col_offset)


def _lines_of(stmt):
    """The lines a statement's probe marks: its own, and a decorated definition's decorators
    (the interpreter reports a definition at its first decorator)."""
    lines = [stmt.lineno]
    for decorator in getattr(stmt, "decorator_list", ()):
        lines.append(decorator.lineno)
    return lines


def _is_docstring(stmt):
    value = getattr(stmt, "value", None)
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(value, ast.Constant)
        and isinstance(value.value, str)
    )


def _is_future(stmt):
    return isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__"


def _probed(body, size, head=()):
    """`body` with a probe before each statement. `head`: statements that must stay first (a
    docstring, future imports); their lines are marked by the first probe after them."""
    out = list(head)
    pending = [line for stmt in head for line in _lines_of(stmt)]
    for stmt in body:
        for line in [*pending, *_lines_of(stmt)]:
            if 0 < line < size:
                out.append(_probe(line, stmt))
        pending = []
        out.append(stmt)
    for line in pending:
        if 0 < line < size:
            out.append(_probe(line, head[-1]))
    return out


def _split_head(body, module):
    """The statements that must stay at the top of `body`."""
    count = 1 if body and _is_docstring(body[0]) else 0
    if module:
        while count < len(body) and _is_future(body[count]):
            count += 1
    return body[:count], body[count:]


class _Instrument(ast.NodeTransformer):
    def __init__(self, size, hit_file, decision_file=None):
        self.size = size
        self.hit_file = hit_file
        self.decision_file = decision_file

    def generic_visit(self, node):
        super().generic_visit(node)
        is_scope = isinstance(
            node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        )
        for field, value in ast.iter_fields(node):
            if not (isinstance(value, list) and value and isinstance(value[0], ast.stmt)):
                continue
            head = ()
            if field == "body" and is_scope:
                head, value = _split_head(value, isinstance(node, ast.Module))
            probed = _probed(value, self.size, head)
            if isinstance(node, ast.Module):
                # The module binds its own map, whoever runs it: an import, or runpy for
                # `python -m` (which executes the loader's code in a namespace of its own).
                at = value[0] if value else node
                if self.decision_file is not None:
                    probed.insert(len(head), _bind_decider(self.decision_file, at))
                probed.insert(len(head), _bind(self.hit_file, at))
            setattr(node, field, probed)
        entry = _entry_line(node)
        if entry is not None and 0 < entry < self.size:
            node.body.insert(0, _probe(entry, node.body[0]))
        return node


def _entry_line(node):
    """An `except` or `case` line: it counts when its block is entered."""
    if isinstance(node, ast.ExceptHandler):
        return node.lineno
    if type(node).__name__ == "match_case":
        return node.pattern.lineno
    return None


def _bind(hit_file, at):
    code = f"{NAME} = __import__('pw_lines').hits_for({hit_file!r})"
    return _statement(code, getattr(at, "lineno", 1), 0)


def _bind_decider(decision_file, at):
    code = f"{DECIDE} = __import__('pw_lines').decider({decision_file!r})"
    return _statement(code, getattr(at, "lineno", 1), 0)


def decisions(tree, lines):
    """The decisions of a parsed module that touch `lines` (line numbers), in a fixed order:
    pairs of the expression and whether only its truth is used (a test, or an operand of one).
    The probes and the grader both count with this function, on the same source."""
    wanted = set(lines)
    found = []

    def touches(node):
        end = getattr(node, "end_lineno", None) or node.lineno
        return any(n in wanted for n in range(node.lineno, end + 1))

    def test(node):
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            test(node.operand)
            return
        if isinstance(node, ast.BoolOp):
            for operand in node.values:
                test(operand)
        else:
            visit(node)
        if not isinstance(node, ast.Constant) and touches(node):
            found.append((node, True))

    def value(node):
        if isinstance(node, ast.BoolOp):
            for operand in node.values[:-1]:
                value(operand)
                if not isinstance(operand, ast.Constant) and touches(operand):
                    found.append((operand, False))
            value(node.values[-1])
            return
        visit(node)

    def visit(node):
        for field, child in ast.iter_fields(node):
            children = child if isinstance(child, list) else [child]
            for item in children:
                if not isinstance(item, ast.AST):
                    continue
                if _is_test(node, field):
                    test(item)
                elif isinstance(item, ast.expr):
                    value(item)
                else:
                    visit(item)

    visit(tree)
    return found


def _is_test(node, field):
    """Whether `node`'s `field` holds an expression only the truth of which is used."""
    if field == "test":
        return isinstance(node, (ast.If, ast.While, ast.IfExp))
    if field == "guard":
        return type(node).__name__ == "match_case"  # `case P if GUARD:` (3.10+)
    return field == "ifs" and isinstance(node, ast.comprehension)


class _Decide(ast.NodeTransformer):
    """Each listed decision in a call of the decision probe."""

    def __init__(self, found):
        self.index = {id(node): (k, in_test) for k, (node, in_test) in enumerate(found)}

    def visit(self, node):
        node = super().visit(node)
        spot = self.index.get(id(node)) if isinstance(node, ast.expr) else None
        if spot is None:
            return node
        k, in_test = spot
        call = ast.Call(
            func=ast.Name(id=DECIDE, ctx=ast.Load()),
            args=[ast.Constant(value=k + 1), node, ast.Constant(value=in_test)],
            keywords=[],
        )
        return ast.copy_location(call, node)


def instrument(source, path, size, hit_file, decision_file=None, lines=()):
    tree = ast.parse(source, path)
    found = decisions(tree, lines) if decision_file else []
    marks = deciding(decision_file) if found else None
    if marks is not None and len(marks) == len(found) + 1:
        tree = _Decide(found).visit(tree)
        marks[LOADED] = 1
    else:
        decision_file = None
    tree = _Instrument(size, hit_file, decision_file).visit(tree)
    ast.fix_missing_locations(tree)
    return compile(tree, path, "exec", dont_inherit=True)


def deciding(decision_file):
    """The shared map of a decision file (None when it cannot be mapped)."""
    return hits_for(decision_file)


def decider(decision_file):
    """The decision probe of one module: notes the way a decision went, and gives back what
    the expression would have given (its truth in a test, its value elsewhere)."""
    marks = deciding(decision_file)

    def decide(k, value, in_test):
        truth = bool(value)
        if marks is not None:
            marks[k] |= TRUE if truth else FALSE
        return truth if in_test else value

    return decide


_MAPS = {}  # hit file -> its shared map (None when it cannot be mapped: the file is not probed)


def hits_for(hit_file):
    if hit_file not in _MAPS:
        try:
            fd = os.open(hit_file, os.O_RDWR)
            try:
                _MAPS[hit_file] = mmap.mmap(fd, 0)
            finally:
                os.close(fd)
        except (OSError, ValueError):
            _MAPS[hit_file] = None
    return _MAPS[hit_file]


class ProbeLoader(SourceFileLoader):
    def __init__(self, fullname, path, listed):
        super().__init__(fullname, path)
        self.hit_file, self.decision_file, self.lines = listed

    def get_code(self, fullname):
        # Never a cached .pyc: that holds the unprobed code.
        path = self.get_filename(fullname)
        source = self.get_data(path)
        hits = hits_for(self.hit_file)
        try:
            code = instrument(
                source, path, len(hits) - 1, self.hit_file, self.decision_file, self.lines
            )
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return super().source_to_code(source, path)  # the error a plain import would raise
        hits[LOADED] = 1
        return code


class ProbeFinder:
    """Asks the other finders, and hands the listed files to the probe loader."""

    pw_lines = True

    def __init__(self, files):
        self.files = files  # real source path -> (hit file, decision file, added lines)
        # Their file names: an import whose file has none of them, and is no symlink (whose
        # target may), is answered without resolving its path (about 10 ms over pytest's own
        # 260 modules).
        self.names = {os.path.basename(source) for source in files}

    def listed(self, origin):
        if not origin:
            return None
        if os.path.basename(origin) not in self.names and not os.path.islink(origin):
            return None
        return self.files.get(os.path.realpath(origin))

    def find_spec(self, name, path=None, target=None):
        for finder in list(sys.meta_path):
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is None:
                continue
            listed = self.listed(spec.origin)
            if listed is None:
                return spec
            if not isinstance(spec.loader, SourceFileLoader):
                # Another loader (pytest's assertion rewriter, for a plugin module of the
                # repository): the plain path finder's spec, probed, takes its place.
                plain = PathFinder.find_spec(name, path, target)
                if plain is None or plain.origin != spec.origin:
                    return spec
                spec = plain
            if hits_for(listed[0]) is not None and isinstance(spec.loader, SourceFileLoader):
                spec.loader = ProbeLoader(name, spec.origin, listed)
            return spec
        return None


def read_list(path):
    """Lines of `source <TAB> hit file`, then optionally `<TAB> decision file <TAB> lines`
    (the added lines whose decisions are probed, comma-separated)."""
    files = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            source, hit_file, decision_file, lines = [*line.rstrip("\n").split("\t"), "", ""][:4]
            if source and hit_file:
                added = tuple(int(n) for n in lines.split(",") if n.isdigit())
                files[os.path.realpath(source)] = (hit_file, decision_file or None, added)
    return files


def install(list_file):
    finder = ProbeFinder(read_list(list_file))
    # A listed file run as a script (`python path/to/file.py`) is compiled by the interpreter,
    # never by the probes: its hit file says so, and the grader does not read it as unrun.
    script = sys.argv[0] if getattr(sys, "argv", None) else ""
    listed = finder.listed(script) if script.endswith(".py") else None
    hits = hits_for(listed[0]) if listed is not None else None
    if hits is not None:
        hits[SCRIPT] = 1
    sys.meta_path.insert(0, finder)
    return finder


def to_front():
    """Put the probe finder first again (pytest inserts its assertion rewriter before it)."""
    for finder in list(sys.meta_path):
        if getattr(finder, "pw_lines", False):
            sys.meta_path.remove(finder)
            sys.meta_path.insert(0, finder)
