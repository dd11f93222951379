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
"""

import ast
import mmap
import os
import sys
from importlib.machinery import PathFinder, SourceFileLoader

NAME = "__pw_hits__"
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
    def __init__(self, size, hit_file):
        self.size = size
        self.hit_file = hit_file

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
                probed.insert(len(head), _bind(self.hit_file, value[0] if value else node))
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


def instrument(source, path, size, hit_file):
    tree = ast.parse(source, path)
    tree = _Instrument(size, hit_file).visit(tree)
    return compile(tree, path, "exec", dont_inherit=True)


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
    def __init__(self, fullname, path, hit_file):
        super().__init__(fullname, path)
        self.hit_file = hit_file

    def get_code(self, fullname):
        # Never a cached .pyc: that holds the unprobed code.
        path = self.get_filename(fullname)
        source = self.get_data(path)
        hits = hits_for(self.hit_file)
        try:
            code = instrument(source, path, len(hits) - 1, self.hit_file)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return super().source_to_code(source, path)  # the error a plain import would raise
        hits[LOADED] = 1
        return code


class ProbeFinder:
    """Asks the other finders, and hands the listed files to the probe loader."""

    pw_lines = True

    def __init__(self, files):
        self.files = files  # real source path -> hit file
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
            hit_file = self.listed(spec.origin)
            if hit_file is None:
                return spec
            if not isinstance(spec.loader, SourceFileLoader):
                # Another loader (pytest's assertion rewriter, for a plugin module of the
                # repository): the plain path finder's spec, probed, takes its place.
                plain = PathFinder.find_spec(name, path, target)
                if plain is None or plain.origin != spec.origin:
                    return spec
                spec = plain
            if hits_for(hit_file) is not None and isinstance(spec.loader, SourceFileLoader):
                spec.loader = ProbeLoader(name, spec.origin, hit_file)
            return spec
        return None


def read_list(path):
    files = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            source, _, hit_file = line.rstrip("\n").partition("\t")
            if source and hit_file:
                files[os.path.realpath(source)] = hit_file
    return files


def install(list_file):
    finder = ProbeFinder(read_list(list_file))
    # A listed file run as a script (`python path/to/file.py`) is compiled by the interpreter,
    # never by the probes: its hit file says so, and the grader does not read it as unrun.
    script = sys.argv[0] if getattr(sys, "argv", None) else ""
    hit_file = finder.listed(script) if script.endswith(".py") else None
    hits = hits_for(hit_file) if hit_file is not None else None
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
