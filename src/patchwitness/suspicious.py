"""Suspicious constructs in the lines a patch adds to production code. Pure.

These are the ways production code can make a test run report green without being right: leave the
process with status 0 before the tests finish, compare equal to everything, or look at the test
runner and behave differently under it. Coverage exclusion markers are collected too: the coverage
gate scores those lines anyway and reports the addition.
"""

from __future__ import annotations

import ast
import re
import unicodedata
from dataclasses import dataclass

from patchwitness import python_ast
from patchwitness.census.python import dotted
from patchwitness.model import Finding

GATE = "suspicious"
GAMING_KINDS = {
    "exit-at-import",
    "constant-eq",
    "reads-test-runner",
    "patches-library",
    "touches-coverage",
    "patches-test-framework",
    "swallows-assertion",
    "redefines-library",
    "redirects-output",
}

# -- Python ------------------------------------------------------------------------------------

EXIT_CALLS = {"sys.exit", "os._exit", "exit", "quit", "atexit.register", "os.abort", "os.kill"}
COMPARISONS = {
    "__eq__",
    "__ne__",
    "__bool__",
    "__contains__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
}
# Production code has no business naming a pytest hook that runs or reports a test. What added
# code reads of the process and the interpreter (the environment, frames, the loaded modules) is
# read from its syntax tree by reads.py.
PY_RUNNER_PROBES = re.compile(
    r"[\"']pytest_(?:runtest_\w+|pyfunc_call|report_\w+|collection\w*|sessionfinish)[\"']"
)
# Production code that reaches into the test framework: pytest's internals, or assignments to
# its names (a module that rewires pytest at import can turn failures into skips).
PY_FRAMEWORK = re.compile(
    r"\b(?:import|from)\s+_pytest\b|\b_pytest\.\w+|\bpytest\.\w+(?:\.\w+)*\s*=[^=]"
    r"|setattr\(\s*_?pytest\b|\bunittest\.TestCase\.\w+\s*=[^=]"
)
PY_PRAGMA = re.compile(r"#\s*pragma:\s*no\s*(cover|branch)", re.IGNORECASE)
# The coverage measurement runs inside the process under grade: production code that talks to
# coverage.py, swaps the tracer, or writes its data files could forge or hide the hits.
PY_COVERAGE = re.compile(
    r"\bimport\s+coverage\b|\bfrom\s+coverage\b|COVERAGE_PROCESS_START|COVERAGE_FILE|"
    r"[\"']\.coverage|sys\.(settrace|setprofile)|threading\.(settrace|setprofile)|"
    # the grader's line and decision probes (probe/pw_lines.py) and their hit files
    r"\b__pw_(hits|dec)__\b|\bpw_lines\b|\bPW_LINES\b|\bPW_COVERAGE_MARKS\b"
)

# -- C++ ---------------------------------------------------------------------------------------

# A production path that ends the process *successfully* is how a C++ patch makes a golden pass
# without running it: any status but a failing literal may be success (`exit(released)` with
# `released` 0); abort() or a failing status is an ordinary error path and only noted.
CPP_EXIT = re.compile(
    r"\b(?:std::)?\(?\s*(?:::)?(?:exit|_exit|_Exit|quick_exit)\s*\)?\s*\("
    r"(?!\s*(?:-\s*)?(?:[1-9][0-9]*|EXIT_FAILURE)\s*\))"
    # A thread's own exit: from the main thread, once the others end, the process exits with
    # status 0 whatever was reported (red team round 13: pthread_exit in a static destructor).
    r"|\b(?:std::)?\(?\s*(?:::)?(?:pthread_exit|thrd_exit)\s*\)?\s*\("
)
# Production code that takes hold of the process's output: its buffer, the stream itself, or
# the file descriptor under it, where a test program's verdict is printed and read.
CPP_OUTPUT = re.compile(
    r"\b(?:std::)?(?:setvbuf|setbuf|setlinebuf|setbuffer|freopen|fopencookie|dup2|dup3)\s*\(|"
    r"\b(?:std::)?c(?:out|err|log)\s*\.\s*rdbuf\s*\(\s*[^)\s]|"
    r"\b(?:std::)?fclose\s*\(\s*(?:stdout|stderr)\b"
    # the stream's own buffer, through the C library's FILE internals
    r"|\b_IO_\w+|\b__f(?:pending|bufsize|purge|setlocking)\s*\("
)
# A standard stream asked what it is or what was done to it (its orientation, position, error
# and end flags, its descriptor, its state): a test program has printed by the time the library
# runs, a user's may not have (red team round 13: fwide(stdout, 0)). Reading and writing one is
# what code does with it, so those uses are the allowed ones and every other call given a
# standard stream asks the run (as reads.py says of Python's); what takes hold of the stream
# (setvbuf, freopen, fclose) is CPP_OUTPUT's.
STREAM_USES = frozenset(
    {"fprintf", "vfprintf", "fputs", "fputc", "putc", "fwrite", "fflush", "fgets", "fgetc"}
    | {"getc", "fread", "fscanf", "vfscanf", "ungetc", "getline", "getdelim", "fputws"}
    | {"fputwc", "putwc", "fgetws", "fgetwc", "getwc", "fwprintf", "vfwprintf", "fwscanf"}
    | {"putc_unlocked", "getc_unlocked", "fwrite_unlocked", "fflush_unlocked", "fputs_unlocked"}
    | {"setvbuf", "setbuf", "setlinebuf", "setbuffer", "freopen", "fclose"}
)
_STREAM_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(([^()]*\b(?:stdout|stderr|stdin)\b[^()]*)\)")
CPP_STREAM_MEMBER = re.compile(
    r"\b(?:std::)?(?:w?c(?:out|err|log|in))\s*\.\s*(?!write\b|put\b|flush\b|get\b|read\b"
    r"|getline\b|ignore\b|peek\b|operator\b|rdbuf\b)[A-Za-z_]\w*\s*\("
)


# A standard stream's FILE taken apart: cast to another type, or its members read (red team
# round 35 read glibc's flags word, `*reinterpret_cast<const int*>(stdout) & 0x800`: in put
# mode once a test framework printed, not in a user's program that printed nothing).
_STREAM_TAKEN_APART = re.compile(
    r"\b(?:reinterpret_cast|static_cast|const_cast|bit_cast)\s*<[^;]*?>\s*\(\s*(?:std\s*::\s*)?"
    r"(?:stdout|stderr|stdin)\s*\)"
    r"|\)\s*(?:std\s*::\s*)?(?:stdout|stderr|stdin)\b(?!\s*[,)])"
    r"|\b(?:stdout|stderr|stdin)\s*->"
    r"|\bmemcpy\s*\([^;]*\b(?:stdout|stderr|stdin)\b"
)


def asks_a_stream(code: str) -> bool:
    """A standard stream given to anything but a read or a write, taken apart, or a C++
    standard stream asked anything but to read, write or flush."""
    if CPP_STREAM_MEMBER.search(code) or _STREAM_TAKEN_APART.search(code):
        return True
    return any(m.group(1) not in STREAM_USES for m in _STREAM_CALL.finditer(code))


CPP_ABORT = re.compile(r"\b(?:std::)?(?:abort|exit|_exit|_Exit|quick_exit|terminate)\s*\(")
CPP_RUNNER_PROBES = re.compile(
    r"\bGTEST_\w+|\bGOOGLETEST_\w+|\btesting\s*::|\bUnitTest\s*::\s*GetInstance|\bCATCH_\w+|"
    r"\bCatch\s*::|\bDOCTEST_\w+|\bdoctest\s*::|"
    r"getenv\s*\(\s*\"(?:GTEST|GOOGLETEST|CTEST|CATCH|DOCTEST|DASHBOARD_TEST)|"
    r"__has_include\s*\(\s*[<\"](?:gtest|catch2?|doctest)|"
    # asking the process who it is: a library cannot see the test's macros, but it can ask
    r"\bprogram_invocation(?:_short)?_name\b|\bgetprogname\s*\(|/proc/self/(?:exe|cmdline|comm)"
)
# A macro named like a standard function replaces that function in every file that includes the
# header, the tests included: `#define strcmp(a, b) 0` makes every string check of a test program
# pass. These are the functions tests compare, print and exit with; an alias a portability
# header needs (`#define snprintf _snprintf`) is not among them.
CPP_LIBRARY_REDEFINE = re.compile(
    r"^\s*#\s*define\s+(strcmp|strncmp|strcasecmp|strncasecmp|stricmp|memcmp|wcscmp|wcsncmp|"
    r"strcoll|strstr|strlen|wcslen|exit|_exit|_Exit|quick_exit|abort|atexit|printf|fprintf|puts|"
    r"fputs|fwrite|putchar|fflush|system|getenv|assert|fabs|abs|labs|isnan|isinf|isfinite|"
    r"main|return|if|while|for|false|true|bool|int)\b"
)
CPP_PRAGMA = re.compile(r"\b(LCOV_EXCL_\w+|GCOVR_EXCL_\w+)")
CPP_COVERAGE = re.compile(r"__gcov_\w+|\.gcda\b|GCOV_PREFIX|__llvm_profile_\w+")


def _finding(kind: str, path: str, line: int, message: str) -> Finding:
    return Finding(gate=GATE, kind=kind, file=path, line=line, message=message)


def _quote(text: str) -> str:
    return text.strip()[:120]


def pragma_lines(
    added: list[tuple[int, str]], pattern: re.Pattern[str], removed: list[tuple[int, str]] = ()
) -> list[int]:
    """Added lines that carry an exclusion marker (`pattern`: PY_PRAGMA or CPP_PRAGMA) the patch
    brought (a marker a rewritten line already had at the SHA is not one)."""
    kept = sum(1 for _, text in removed if pattern.search(text))
    out = []
    for number, text in added:
        if pattern.search(text):
            if kept:
                kept -= 1
                continue
            out.append(number)
    return out


@dataclass(frozen=True)
class LineChecks:
    """What one added line of a file of one kind (Python, C or C++) is searched for."""

    runner: re.Pattern[str]
    coverage: re.Pattern[str]
    pragma: re.Pattern[str]
    framework: re.Pattern[str] | None = None
    line_comment: str = ""  # the text after it is no code

    def code(self, text: str) -> str:
        return text.split(self.line_comment, 1)[0] if self.line_comment else text


PY_LINES = LineChecks(PY_RUNNER_PROBES, PY_COVERAGE, PY_PRAGMA, framework=PY_FRAMEWORK)
CPP_LINES = LineChecks(CPP_RUNNER_PROBES, CPP_COVERAGE, CPP_PRAGMA, line_comment="//")
# The same lines as the compiler reads them (comments already gone: a `//` left is in a literal).
CPP_READ_LINES = LineChecks(CPP_RUNNER_PROBES, CPP_COVERAGE, CPP_PRAGMA)


def _line_findings(
    path: str,
    added: list[tuple[int, str]],
    lines: LineChecks,
    removed: list[tuple[int, str]] = (),
    marked: list[tuple[int, str]] | None = None,
) -> list[Finding]:
    """What one added line can show on its own: a look at the test runner, a hand on the
    coverage measurement, an exclusion marker. `marked`: the added lines as written, where the
    markers (comments) are, when `added` is their code as the compiler reads it."""
    checks = [
        (lines.runner, "reads-test-runner", "production code looks at the test runner"),
        (lines.coverage, "touches-coverage", "production code touches the coverage measurement"),
    ]
    if lines.framework is not None:
        checks.append(
            (lines.framework, "patches-test-framework", "production code reaches into pytest")
        )
    out = []
    for number, text in added:
        # Identifiers as the interpreter reads them: NFKC-folded (fullwidth letters are ASCII).
        code = unicodedata.normalize("NFKC", lines.code(text))
        for pattern, kind, what in checks:
            if pattern.search(code):
                out.append(_finding(kind, path, number, f"{what}: {_quote(text)}"))
    for number in pragma_lines(added if marked is None else marked, lines.pragma, removed):
        out.append(_finding("pragma-added", path, number, "coverage exclusion marker added"))
    return out


def python_findings(
    path: str,
    new_text: str | None,
    added: list[tuple[int, str]],
    removed: list[tuple[int, str]] = (),
) -> list[Finding]:
    if not added:
        return []
    out = _line_findings(path, added, PY_LINES, removed)
    if new_text is None:
        return out
    try:
        tree = python_ast.parse(new_text)
    except (SyntaxError, ValueError):
        return out
    lines = {n for n, _ in added}
    return (
        out
        + _exits_at_import(tree, path, lines)
        + _constant_comparisons(tree, path, lines)
        + _swallowed_assertions(tree, path, lines)
    )


def _catches_assertion(handler: ast.ExceptHandler) -> bool:
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(dotted(k) in ("AssertionError", "builtins.AssertionError") for k in kinds if k)


def _swallowed_assertions(tree: ast.Module, path: str, lines: set[int]) -> list[Finding]:
    """Production code that catches AssertionError and does not raise again: a failing test's
    assertion stops failing it. Production code has no assertion of a test to catch."""
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ExceptHandler) or not _catches_assertion(node):
            continue
        if not _touches(node, lines) or any(isinstance(n, ast.Raise) for n in ast.walk(node)):
            continue
        out.append(
            _finding(
                "swallows-assertion",
                path,
                node.lineno,
                "production code catches AssertionError and carries on",
            )
        )
    return out


def _touches(node: ast.AST, lines: set[int]) -> bool:
    start = getattr(node, "lineno", 0)
    end = getattr(node, "end_lineno", start) or start
    return any(start <= n <= end for n in lines)


def _calls_at_import(node: ast.AST):
    """Calls that run when the module is imported: not those inside a def, a lambda or a class
    method body, which run only when called."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        if isinstance(child, ast.Call):
            yield child
        yield from _calls_at_import(child)


def _exits_at_import(tree: ast.Module, path: str, lines: set[int]) -> list[Finding]:
    return [
        _finding("exit-at-import", path, call.lineno, f"{dotted(call.func)}() runs at import time")
        for call in _calls_at_import(tree)
        if dotted(call.func) in EXIT_CALLS and _touches(call, lines)
    ]


def _returns_constant(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    returns = [n for n in ast.walk(fn) if isinstance(n, ast.Return)]
    return bool(returns) and all(
        isinstance(r.value, ast.Constant) and r.value.value in (True, False, 1, 0) for r in returns
    )


def _constant_comparisons(tree: ast.Module, path: str, lines: set[int]) -> list[Finding]:
    return [
        _finding("constant-eq", path, node.lineno, f"{node.name} returns a constant")
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.name in COMPARISONS
        and _touches(node, lines)
        and _returns_constant(node)
    ]


# `#line 12`, `#line 12 "file"`, and GNU's line marker `# 12 "file"`.
CPP_LINE_DIRECTIVE = re.compile(r"\s*#\s*(?:line\b|\d)")


def cpp_findings(
    path: str,
    added: list[tuple[int, str]],
    removed: list[tuple[int, str]] = (),
    read: list[tuple[int, str]] | None = None,
) -> list[Finding]:
    """`read`: the added lines as the compiler reads them (cpp_lexer.as_read: comments gone,
    spliced lines joined, digraphs spelled out), searched for code; `added` as written, for the
    coverage markers comments carry."""
    code_lines = added if read is None else read
    checks = CPP_LINES if read is None else CPP_READ_LINES
    out = _line_findings(path, code_lines, checks, removed, marked=added)
    for number, text in code_lines:
        code = checks.code(text)
        redefined = CPP_LIBRARY_REDEFINE.match(code)
        if redefined:
            out.append(
                _finding(
                    "redefines-library",
                    path,
                    number,
                    f"production code redefines {redefined.group(1)} for every file that "
                    f"includes it: {_quote(text)}",
                )
            )
        if CPP_LINE_DIRECTIVE.match(code):
            # Red team round 53 moved a function the tests never run onto the licence comment:
            # gcov, the compiler and the grader's line map read every line after it as another.
            out.append(
                _finding(
                    "touches-coverage",
                    path,
                    number,
                    f"production code re-labels its own lines (#line): what the compiler and "
                    f"the coverage report for them is another line's: {_quote(text)}",
                )
            )
        if asks_a_stream(code):
            out.append(
                _finding(
                    "reads-test-runner",
                    path,
                    number,
                    f"production code asks what a standard stream is or what was done to it "
                    f"(the test program's own output): {_quote(text)}",
                )
            )
        if CPP_OUTPUT.search(code):
            out.append(
                _finding(
                    "redirects-output",
                    path,
                    number,
                    f"production code takes hold of the process's output: {_quote(text)}",
                )
            )
        if CPP_EXIT.search(code):
            out.append(
                _finding(
                    "exit-at-import",
                    path,
                    number,
                    f"production code exits with a status that may be success: {_quote(text)}",
                )
            )
        elif CPP_ABORT.search(code):
            out.append(
                _finding(
                    "exit-call", path, number, f"production code ends the process: {_quote(text)}"
                )
            )
    return out
