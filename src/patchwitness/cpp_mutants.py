"""Mutants of the lines a patch added to C or C++ production code, all in one text. Pure.

The mutants are those of `mutants.py` for Python, made on C++ text: a decision's condition (an
`if` or `while` on an added line) made always true and always false; every comparison on an
added line (written with spaces around its operator, wherever it stands: a condition's operand,
an index, a return, a macro's body) made true and false, and its boundary moved (`<` made `<=`,
and back); a call that picks one of its arguments (`std::min(a, b)`, `std::max`, `std::clamp`,
`std::abs`, C's `fmin`, `fmax`, `abs`, `fabs`) replaced by each argument it may give back, as a
decision would be made to go one way (a clamp written with `std::min` is a decision, and the
tests pin it only if some test needs each side); an added expression statement deleted.
Rebuilding a C++ project once per mutant costs a build each (a header-only library rebuilds
every test unit); so all the mutants of a file are written into one text, a *mutant schema*,
each selected at run time by the number in the variable `PW_MUTANT`, and one rebuild serves
them all (Untch, Offutt and Harrold's schemata; Mull and dextool do the same). With the
variable unset or 0, the schema behaves as the patched text.

The text is read structurally through the census's lexer (comments and literals blanked, offsets
kept) and edited at the same offsets of the original; a comparison's operands run out to the
first token of lower precedence or unmatched bracket on its line. What is not clearly an
expression statement, a plain condition or a comparison evaluated at run time is left alone: a
declaration, a condition that declares, a line where a constant expression is asked for
(`constexpr`, `static_assert`, a template, a `case`), a directive other than `#define`. A schema
the compiler refuses, or that does otherwise than the patch with no mutant chosen, is dropped
whole by the phase that runs it, and its mutants say why.
"""

from __future__ import annotations

import itertools
import re
import secrets
from collections.abc import Iterator
from dataclasses import dataclass

from patchwitness.census.cpp_lexer import match_close, strip_cpp

VARIABLE = "PW_MUTANT"
# A name of this process's own: code under grade cannot name the selector to learn it is in a
# mutant build (red team round 14 called it from the patch's own macro).
SELECTOR = f"pw_mutant_{secrets.token_hex(6)}_"
# Defined once at the top of each mutated file, C and C++ alike: `static inline` warns of
# nothing when a unit does not use it, and it reads the variable once per process.
# `#line 1` after it: the file's own lines keep their numbers, so `__LINE__` in an `#if` tells
# no mutant build from the patched one (red team round 14).
# In C++ where the compiler can tell a constant evaluation (GCC 9 and Clang 9 on), the selector
# is a constexpr function that chooses no mutant there: a constexpr function's body holds mutants
# and still compiles (a one-line one once held none: red team round 33 put a fit in one).
PROLOGUE = (
    "#include <stdlib.h>\n"
    f"static inline int {SELECTOR}rt(int k) {{ static int chosen = -1; if (chosen < 0) {{ "
    f'const char* v = getenv("{VARIABLE}"); chosen = v ? atoi(v) : 0; }} return chosen == k; }}\n'
    "#if defined(__cplusplus) && __cplusplus >= 201402L && defined(__has_builtin)\n"
    "#if __has_builtin(__builtin_is_constant_evaluated)\n"
    f"#define {SELECTOR}constexpr 1\n"
    "#endif\n"
    "#endif\n"
    f"#ifdef {SELECTOR}constexpr\n"
    f"static constexpr int {SELECTOR}(int k) {{ return __builtin_is_constant_evaluated() ? 0 : "
    f"{SELECTOR}rt(k); }}\n"
    "#else\n"
    f"static inline int {SELECTOR}(int k) {{ return {SELECTOR}rt(k); }}\n"
    "#endif\n"
    # A term dropped from a sum: a zero of its own type (a null pointer for a pointer or an
    # array, an empty object for a class), evaluated as before, so the sum keeps its type.
    "#ifdef __cplusplus\n"
    "#if __cplusplus >= 201103L\n"
    f"#define {SELECTOR}const constexpr\n"
    "#else\n"
    f"#define {SELECTOR}const\n"
    "#endif\n"
    f"template <class T> {SELECTOR}const T {SELECTOR}zero(const T&) {{ return T(); }}\n"
    f"template <class T, __SIZE_TYPE__ N> {SELECTOR}const T* {SELECTOR}zero(T (&)[N]) "
    "{ return 0; }\n"
    f"#define {SELECTOR}ZERO(e) {SELECTOR}zero(e)\n"
    "#else\n"
    f"#define {SELECTOR}ZERO(e) ((__typeof__((e) + 0))0)\n"
    "#endif\n"
    "#line 1\n"
)

CONDITION_TRUE = "condition-true"
CONDITION_FALSE = "condition-false"
STATEMENT_DELETED = "statement-deleted"
BOUNDARY = "boundary"
VALUE_PICKED = "value-picked"
VALUE_FROZEN = "value-frozen"
TERM_DROPPED = "term-dropped"

_DECISION = re.compile(r"(?<![\w$])(if|while)\s*\(")
_CONSTEXPR = re.compile(r"(?<![\w$])if\s+constexpr\b")
# `=` alone in a condition: an assignment or a declared variable, left alone.
_ASSIGNS = re.compile(r"(?<![=!<>+\-*/%&|^])=(?!=)")
# A comparison written as one (spaces around it): `a < b`; `vector<int>` is no comparison.
_SWAPPED = {"<": "<=", "<=": "<", ">": ">=", ">=": ">"}
# An expression statement: a name (qualified, with members and subscripts) assigned, called or
# stepped, or a step first; a declaration (`int x = 1;`, `std::string s(a);`) is not one.
_EXPRESSION = re.compile(
    r"\s*(?:(?:\+\+|--)\s*)?[A-Za-z_][\w]*(?:\s*::\s*[A-Za-z_]\w*)*"
    r"(?:\s*(?:\.|->)\s*[A-Za-z_]\w*|\s*\[[^\]\n]*\])*"
    r"\s*(?:[-+*/%&|^]?=(?!=)|<<=|>>=|\(|\+\+|--)"
)
# Calls whose deletion changes only what a person reads, by name (a C++ logger has no one
# spelling to tell it by).
_QUIET = frozenset(
    {"print", "debug", "info", "warning", "warn", "error", "exception", "critical", "log"}
    | {"printf", "fprintf", "puts", "fputs", "perror", "syslog", "trace"}
)
_CALLEE = re.compile(r"\s*(?:[A-Za-z_]\w*\s*(?:::|\.|->)\s*)*([A-Za-z_]\w*)\s*\(")
_KEYWORDS = frozenset(
    {"return", "throw", "break", "continue", "goto", "case", "default", "delete", "new", "if"}
    | {"while", "for", "switch", "do", "else", "sizeof", "static_assert", "using", "typedef"}
    # a declaration's head, which `(` after it makes look like a call
    | {"alignas", "decltype"}
)


@dataclass(frozen=True)
class CppMutant:
    """One mutant: the number that selects it, where, what it changes, and its line as it
    reads when selected (for the diff a person is shown)."""

    number: int
    file: str
    line: int
    operator: str
    description: str
    original: str
    mutated: str

    def diff(self) -> str:
        return (
            f"--- a/{self.file}\n+++ b/{self.file}\n@@ -{self.line} +{self.line} @@\n"
            f"-{self.original.rstrip()}\n+{self.mutated.rstrip()}\n"
        )


@dataclass(frozen=True)
class Schema:
    """The mutants of one file and the file's text holding them all."""

    file: str
    mutants: tuple[CppMutant, ...]
    text: str


@dataclass(frozen=True)
class _Edit:
    start: int
    end: int
    replacement: str
    numbers: tuple[int, ...]  # the mutants it holds


# In C++ `0 == 0` is a bool and in C an int, as a comparison is in each: a constant in its place
# keeps every expression's type.
TRUE, FALSE = "(0 == 0)", "(0 != 0)"


# A call that picks an argument: its name, and how many arguments a picking call of it has.
# `std::` or nothing before it: `limits::max()`, `v.min()` and `p->max(a, b)` are other things.
_PICKERS = {"min": 2, "max": 2, "fmin": 2, "fmax": 2, "clamp": 3, "abs": 1, "fabs": 1}
_PICKING_CALL = re.compile(
    r"(?<![\w$.:>])(?:std\s*::\s*)?(" + "|".join(_PICKERS) + r")(?![\w$])\s*"
    r"(?:<[^<>;(){}]*>\s*)?\("
)


@dataclass(frozen=True)
class _Pick:
    """A picking call at [start, end), the span of each of its arguments."""

    start: int
    end: int
    args: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class _Sum:
    """A sum or difference of terms at [start, end), the span of each term: a term zero
    wherever the tests look is one they never needed (red team round 57 fitted tinyxml2's + 10
    with `+ x*(x-3)*(x-4)*(x-5)`, a product of differences zero at every letter the tests and
    their neighbours tried: no decision, comparison or step to mutate)."""

    start: int
    end: int
    terms: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class _Negation:
    """`!operand` at [start, end): a truth value, whatever its operand (red team round 18 gated
    GSL's check on `!std::uncaught_exception()` and `!(gettid() ^ getpid())`, joined by `&`:
    no comparison, no `&&`, no `if`)."""

    start: int
    end: int


@dataclass(frozen=True)
class _Index:
    """A subscript's index at [start, end), inside its brackets: which element a table gives is
    a choice (red team round 24 picked markupsafe's escaper out of `{kind2, kind4}` by `(size -
    1024) >> 63`: no `if`, no comparison, no `!`)."""

    start: int
    end: int


@dataclass(frozen=True)
class _Kept:
    """A value at [start, end) that moves by jumps as what it reads moves (a step by a constant:
    `n >> 10`, `n / 4`, `n % 2`) or that counts (`strspn(p, "0")`, `v.size()`) and is taken as
    a number: a jump the tests never reach, or a count the tests only ever give one value, is a
    threshold no comparison shows (red team rounds 28 and 29: `10 * strspn(p + 3, "0")`, right
    for the tests' leading zero; a function pointer picked by `len >> 10` and `~found >> 63`)."""

    start: int
    end: int


@dataclass(frozen=True)
class _Comparison:
    """`A op B` at [start, end), its operator at [op_start, op_end)."""

    start: int
    end: int
    op_start: int
    op_end: int


def schema_of(path: str, text: str, added: list[int], first: int = 1) -> Schema | None:
    """The mutants of the `added` lines of `text`, numbered from `first`; None when there are
    none. Every condition of an `if` or `while` made true and false; every comparison (written
    with spaces around it, on an added line, a macro's body included) made true and false where
    it is not a whole condition already, and its boundary moved when it orders; every added
    expression statement deleted."""
    code = strip_cpp(text, dead_if=False)
    starts = _line_starts(text)
    wanted = set(added)
    site = _Site(path, text, starts, itertools.count(first))
    conditions = _conditions(code, starts, wanted)
    comparisons = _innermost(_comparisons(code, text, starts, wanted))
    # A pick inside a comparison's operand is left to the comparison, which keeps its text.
    picks = [
        p
        for p in [*_picks(code, starts, wanted), *_negations(code, starts, wanted)]
        if not any(c.start <= p.start and p.end <= c.end for c in comparisons)
    ]
    picks += _choices(code, starts, wanted, comparisons)
    picks += _kept_values(code, starts, wanted)
    # A sum before a bit operation of the same span: `x | C` and `C | x` have each operand
    # dropped as terms, which holds the bit operation's own pick (x alone) and its other side.
    picks += _sums(code, text, starts, wanted)
    picks += _bit_operations(code, starts, wanted)
    picks += _steps_by_a_variable(code, starts, wanted)
    picks += _returned_casts(code, text, starts, wanted)
    # One choice per span, the first found (a table's index before a step of the same text):
    # two of one span would each hold the other, and neither be made (markupsafe's
    # `by_size[(size - 1024) >> (8 * sizeof(size_t) - 1)]` once lost its index that way).
    first_of: dict[tuple[int, int], object] = {}
    for found in picks:
        first_of.setdefault((found.start, found.end), found)
    picks = list(first_of.values())
    shut = _unevaluated(code) + _constant_spans(code) + _constant_statements(code)
    conditions = [c for c in conditions if not _within_span(c, shut)]
    comparisons = [c for c in comparisons if not _within_any(c, shut)]
    picks = [p for p in picks if not _within_any(p, shut)]
    inner: list[_Comparison | _Pick | _Negation | _Index | _Kept] = sorted(
        [*comparisons, *picks], key=lambda x: x.start
    )
    edits: list[_Edit] = []
    for start, end in conditions:
        inside = [c for c in inner if start <= c.start and c.end <= end]
        edits.append(site.condition(start, end, inside))
    taken = list(conditions)
    for start, end in _statements(code, starts, wanted):
        if _within_span((start, end), shut):
            continue
        inside = [c for c in inner if start <= c.start and c.end <= end]
        edits.append(site.deletion(start, end, inside))
        taken.append((start, end))
    free = [c for c in inner if not any(s <= c.start and c.end <= e for s, e in taken)]
    for found in _outermost(free):
        if isinstance(found, _Pick):
            edits.append(site.pick(found, _held_by(found, free)))
        elif isinstance(found, _Negation):
            edits.append(site.negation(found, _held_by(found, free)))
        elif isinstance(found, _Index):
            edits.append(site.index(found, _held_by(found, free)))
        elif isinstance(found, _Kept):
            edits.append(site.kept(found, _held_by(found, free)))
        elif isinstance(found, _Sum):
            edits.append(site.sum(found, _held_by(found, free)))
        else:
            edits.append(site.comparison(found, whole=False))
    text_made, kept = _apply(text, edits)
    made = [m for m in site.made if m.number in kept]
    if not made:
        return None
    return Schema(path, tuple(made), PROLOGUE + text_made)


class _Site:
    """Makes the mutants of one file, and the text of each place that holds them."""

    def __init__(self, path: str, text: str, starts: list[int], numbers: Iterator[int]) -> None:
        self.path, self.text, self.starts, self.numbers = path, text, starts, numbers
        self.made: list[CppMutant] = []

    def _mutant(self, at: int, operator: str, said: str, old: str, new: str) -> int:
        number = next(self.numbers)
        line = _line_of(self.starts, at)
        original = _line_text(self.text, self.starts, line)
        if old in original:
            mutated = original.replace(old, new, 1)
        else:  # a call over several lines: its line says what the mutant does
            mutated = f"{original.rstrip()}  // {said}\n"
        self.made.append(CppMutant(number, self.path, line, operator, said, original, mutated))
        return number

    def condition(self, start: int, end: int, inside: list[_Comparison]) -> _Edit:
        """An `if` or `while` condition `text[start:end]`: made true, made false; each
        comparison inside it mutated in place (a whole condition's own only at its boundary)."""
        condition = self.text[start:end]
        shown = _short(condition)
        true = self._mutant(start, CONDITION_TRUE, f"`{shown}` replaced by true", condition, "true")
        false = self._mutant(
            start, CONDITION_FALSE, f"`{shown}` replaced by false", condition, "false"
        )
        body, held = self._within(start, end, inside, condition=True)
        chosen = f"{SELECTOR}({true}) ? {TRUE} : {SELECTOR}({false}) ? {FALSE} : !!({body})"
        return _Edit(start, end, chosen, (true, false, *held))

    def comparison(self, found: _Comparison, *, whole: bool, clamp_end: int | None = None) -> _Edit:
        """`A op B`: made true and false (unless it is a whole condition, whose own mutants say
        so), and `op` moved across its boundary (unless both ways give one value: a clamp)."""
        text = self.text[found.start : found.end]
        op = self.text[found.op_start : found.op_end]
        shown = _short(text)
        arms: list[tuple[int, str]] = []
        if not whole:
            said = f"`{shown}` replaced by"
            arms.append(
                (self._mutant(found.start, CONDITION_TRUE, f"{said} true", text, "true"), TRUE)
            )
            arms.append(
                (self._mutant(found.start, CONDITION_FALSE, f"{said} false", text, "false"), FALSE)
            )
        clamp = (clamp_end is not None and _clamps(self.text, clamp_end, found)) or (
            _picks_a_side(self.text, found)
        )
        if op in _SWAPPED and not clamp:
            i, j = found.op_start - found.start, found.op_end - found.start
            moved = text[:i] + _SWAPPED[op] + text[j:]
            said = f"`{op}` made `{_SWAPPED[op]}` in `{shown}`"
            arms.append((self._mutant(found.start, BOUNDARY, said, text, moved), f"!!({moved})"))
        if not arms:
            return _Edit(found.start, found.end, text, ())
        chosen = " : ".join(f"{SELECTOR}({n}) ? {value}" for n, value in arms)
        return _Edit(found.start, found.end, f"({chosen} : !!({text}))", tuple(n for n, _ in arms))

    def deletion(self, start: int, end: int, inside: list[_Comparison]) -> _Edit:
        """An expression statement deleted; the comparisons inside it mutated in place."""
        statement = self.text[start:end]
        said = f"`{_short(statement)}` deleted"
        number = self._mutant(start, STATEMENT_DELETED, said, statement, ";")
        body, held = self._within(start, end, inside)
        return _Edit(start, end, f"if (!{SELECTOR}({number})) {{ {body} }}", (number, *held))

    def pick(self, found: _Pick, inside: list[_Comparison | _Pick]) -> _Edit:
        """A picking call: replaced by each of its arguments as written, in turn; with none
        chosen, the call itself with the mutants of what its arguments hold."""
        call = self.text[found.start : found.end]
        shown = _short(call)
        arms = []
        for begin, finish in found.args:
            arg = self.text[begin:finish].strip()
            said = f"`{shown}` replaced by `{_short(arg)}`"
            # In its own parentheses, as the schema has it: `!std::abs(x % 3)` picks `!(x % 3)`.
            alone = arg if re.fullmatch(r"[\w.:]+", arg) else f"({arg})"
            arms.append((self._mutant(found.start, VALUE_PICKED, said, call, alone), arg))
        body, held = self._within(found.start, found.end, inside)
        chosen = " : ".join(f"{SELECTOR}({n}) ? ({arg})" for n, arg in arms)
        return _Edit(found.start, found.end, f"({chosen} : {body})", (*(n for n, _ in arms), *held))

    def negation(self, found: _Negation, inside: list) -> _Edit:
        """`!x`: made true and false; with neither chosen, itself with the mutants of what it
        holds."""
        text = self.text[found.start : found.end]
        said = f"`{_short(text)}` replaced by"
        true = self._mutant(found.start, CONDITION_TRUE, f"{said} true", text, "true")
        false = self._mutant(found.start, CONDITION_FALSE, f"{said} false", text, "false")
        body, held = self._within(found.start, found.end, inside)
        chosen = f"{SELECTOR}({true}) ? {TRUE} : {SELECTOR}({false}) ? {FALSE} : !!({body})"
        return _Edit(found.start, found.end, f"({chosen})", (true, false, *held))

    def index(self, found: _Index, inside: list) -> _Edit:
        """A subscript's index: made 0 and made 1, the table's first two elements, and kept at
        the first value it took (a table indexed by what only the tests' one input gives);
        with none chosen, itself with the mutants of what it holds."""
        index = self.text[found.start : found.end]
        said = f"the index `{_short(index)}`"
        zero = self._mutant(found.start, VALUE_PICKED, f"{said} made 0", f"[{index}]", "[0]")
        one = self._mutant(found.start, VALUE_PICKED, f"{said} made 1", f"[{index}]", "[1]")
        first = self._mutant(
            found.start,
            VALUE_FROZEN,
            f"{said} kept at the first value it took",
            index,
            self._first(index, "pw_"),
        )
        body, held = self._within(found.start, found.end, inside)
        chosen = (
            f"{SELECTOR}({zero}) ? 0 : {SELECTOR}({one}) ? 1 : "
            f"{SELECTOR}({first}) ? {self._first(index)} : ({body})"
        )
        return _Edit(found.start, found.end, f"({chosen})", (zero, one, first, *held))

    def kept(self, found: _Kept, inside: list) -> _Edit:
        """A step or a count kept at the first value it took in the process; with it not
        chosen, itself with the mutants of what it holds."""
        value = self.text[found.start : found.end]
        said = f"`{_short(value)}` kept at the first value it took"
        # The copy the selector keeps on one line: the file's lines keep their numbers.
        flat = value.replace("\r\n", " ").replace("\n", " ")
        number = self._mutant(found.start, VALUE_FROZEN, said, value, self._first(flat, "pw_"))
        body, held = self._within(found.start, found.end, inside)
        chosen = f"({SELECTOR}({number}) ? {self._first(flat)} : ({body}))"
        return _Edit(found.start, found.end, chosen, (number, *held))

    def sum(self, found: _Sum, inside: list) -> _Edit:
        """A sum: each of its terms made 0 in turn (dropped, whatever its sign); with none
        chosen, itself with the mutants of what it holds."""
        text = self.text[found.start : found.end]
        shown = _short(text)
        arms = []
        for begin, finish in found.terms:
            term = self.text[begin:finish]
            before, after = self.text[found.start : begin], self.text[finish : found.end]
            said = f"`{_short(term.strip())}` dropped from `{shown}`"
            number = self._mutant(found.start, TERM_DROPPED, said, text, f"{before}0{after}")
            arms.append((number, f"{before}{SELECTOR}ZERO({term}){after}"))
        body, held = self._within(found.start, found.end, inside)
        chosen = " : ".join(f"{SELECTOR}({n}) ? ({alone})" for n, alone in arms)
        return _Edit(
            found.start, found.end, f"({chosen} : ({body}))", (*(n for n, _ in arms), *held)
        )

    def _first(self, value: str, prefix: str = SELECTOR) -> str:
        """`value` evaluated each time (what it does on the way still happens), its first value
        given back: C++'s in a lambda's static (a constexpr function may hold no static of its
        own), C's in a statement expression (GCC's and Clang's). `prefix`: of the names it
        declares (the schema's are its own; the line a person is shown reads `pw_`)."""
        now, first = f"{prefix}now", f"{prefix}first"
        if self.path.endswith(".c"):
            kind = f"__typeof__(({value}) + 0)"
            return (
                f"({{ {kind} {now} = ({value}); static {kind} {first}; static int {first}set; "
                f"if (!{first}set) {{ {first} = {now}; {first}set = 1; }} {first}; }})"
            )
        # In parentheses: `t[[&]...]` would open an attribute.
        return (
            f"([&]() {{ auto {now} = ({value}); static auto {first} = {now}; return {first}; }}())"
        )

    def _within(
        self,
        start: int,
        end: int,
        inside: list,
        *,
        condition: bool = False,
    ) -> tuple[str, list[int]]:
        """`text[start:end]` with each comparison and picking call of `inside` replaced by its
        mutants (a call's arguments hold theirs). In a `condition`, a comparison that is the
        whole of it has only its boundary mutant (the condition's own are its true and false),
        and a clamp's boundary none."""
        pieces, last, held = [], start, []
        for found in _outermost(inside):
            if isinstance(found, _Pick):
                edit = self.pick(found, _held_by(found, inside))
            elif isinstance(found, _Index):
                edit = self.index(found, _held_by(found, inside))
            elif isinstance(found, _Kept):
                edit = self.kept(found, _held_by(found, inside))
            elif isinstance(found, _Sum):
                edit = self.sum(found, _held_by(found, inside))
            elif isinstance(found, _Negation):
                whole = condition and not (
                    self.text[start : found.start].strip() or self.text[found.end : end].strip()
                )
                if whole:  # `if (!x)`: the condition's own true and false say it
                    body, more = self._within(found.start, found.end, _held_by(found, inside))
                    edit = _Edit(found.start, found.end, body, tuple(more))
                else:
                    edit = self.negation(found, _held_by(found, inside))
            else:
                whole = condition and not (
                    self.text[start : found.start].strip() or self.text[found.end : end].strip()
                )
                edit = self.comparison(found, whole=whole, clamp_end=end if whole else None)
            pieces += [self.text[last : found.start], edit.replacement]
            held += edit.numbers
            last = found.end
        pieces.append(self.text[last:end])
        return "".join(pieces), held


def _clamps(text: str, end: int, found: _Comparison) -> bool:
    """`if (x > hi) return hi;`, `if (x < lo) r = lo;`: the statement the condition controls
    returns or assigns one side of its comparison, so at the boundary both ways agree."""
    sides = _sides(text, found)
    after = text[end + 1 :].lstrip().lstrip("{").strip()
    body = after.split(";", 1)[0]
    picked = re.match(r"(?:return\s+|[A-Za-z_][\w.\->\[\]]*\s*=(?!=)\s*)(.*)$", body, re.S)
    return picked is not None and " ".join(picked.group(1).split()) in sides


def _picks_a_side(text: str, found: _Comparison) -> bool:
    """`v < 0 ? 0 : v`, `v > 100 ? 100 : v`: a conditional whose test is the comparison and one
    of whose arms is one of its sides gives the same value both ways at the boundary."""
    after = text[found.end :]
    asked = re.match(r"\s*\?", after)
    if asked is None:
        return False
    rest = after[asked.end() :]
    first_end = _top_level(rest, ":")
    if first_end is None:
        return False
    second = rest[first_end + 1 :]
    second_end = _top_level(second, ",;)]}")
    arms = {" ".join(rest[:first_end].split()), " ".join(second[:second_end].split())}
    return bool(arms & _sides(text, found))


def _sides(text: str, found: _Comparison) -> set[str]:
    """The comparison's two operands, spaces normalized."""
    return {
        " ".join(text[found.start : found.op_start].split()),
        " ".join(text[found.op_end : found.end].split()),
    }


def _top_level(text: str, stops: str) -> int | None:
    """The offset of the first of `stops` outside brackets in `text` (None: none on its line)."""
    depth = 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}" and depth:
            depth -= 1
        elif ch in stops and depth == 0 and not (ch == ":" and text[i : i + 2] == "::"):
            return i
        elif ch == "\n":
            return None
    return None


# The operators a comparison's operand runs to (lower precedence than it, or a delimiter).
_STOPS = ("&&", "||", "==", "!=", "<=", ">=", "<<=", ">>=", "+=", "-=", "*=", "/=", "%=")
_STOPS_ONE = frozenset(",;?=&|^<>")


def _comparisons(code: str, text: str, starts: list[int], wanted: set[int]) -> list[_Comparison]:
    """Every comparison written with spaces around its operator (`a < b`, `n == 0`) on a
    `wanted` line outside a directive other than `#define`: the operator and its two operands,
    each run out to the first token of lower precedence or unmatched bracket on its line."""
    out = []
    for begin, line in _run_time_lines(code, starts, wanted):
        found = list(_SPACED.finditer(line))
        found += [m for m in _UNSPACED_LESS.finditer(line) if _closes_no_list(line, m.start())]
        for match in found:
            # Stops are found in the code (a literal's `>` is none); ends are trimmed in the
            # text (a literal's blanked content is no space: `'a'` keeps its closing quote).
            written = text[begin : begin + len(line)]
            left = _operand_start(line, written, match.start())
            right = _operand_end(line, written, match.end())
            if left is None or right is None:
                continue
            out.append(
                _Comparison(
                    begin + left, begin + right, begin + match.start(1), begin + match.end(1)
                )
            )
    return out


# A statement whose expressions must be constants (the compiler evaluates them): no mutant in
# it. A template's head, `enable_if`'s arguments, `alignas(...)` and an enumeration's body are
# constant where they stand (`_constant_spans`), not the statement around them (red team round
# 31 declared a run-time check's variable of type `std::enable_if<true, bool>::type`).
_CONSTANT_CONTEXT = re.compile(r"(?<![\w$])case(?![\w$])|^\s*template(?![\w$])")
# `requires` where the keyword stands: a clause after a declarator (`)`, a qualifier; after a
# template's head the statement is a template's already), or an expression with its body where
# an operand begins (`= requires (T t) { ... }`). Elsewhere it is a name, as it may be before
# C++20 (red team round 61 named a run-time check's operand `requires`, and every statement
# naming it went unmutated).
_REQUIRES = re.compile(
    r"(?:\)|(?<![\w$])(?:const|volatile|noexcept))\s*requires(?![\w$])"
    r"|(?:[=(,!?:]|&&|\|\||(?<![\w$])return)\s*requires\s*(?:\([^(){};]*\)\s*)?\{"
)
# Declared constant, and asserted: constant where they stand, to the end of the declaration or
# the assertion's parentheses (`_constant_statements`), not the line around them (red team round
# 33 shared a line with a `static_assert`, and wrote a one-line constexpr function, whose body
# runs at run time when its argument is known then).
_DECLARED_CONSTANT = re.compile(r"(?<![\w$])(?:constexpr|consteval|constinit)(?![\w$])")
_ASSERTED = re.compile(r"(?<![\w$])(?:static_assert|_Static_assert)\s*\(")
# What may follow a function's parameter list before its body: the body is no constant.
_FUNCTION_TAIL = re.compile(
    r"\)(?:\s*(?:const|volatile|override|final|mutable|&&?|noexcept(?:\s*\([^()]*\))?"
    r"|->\s*[\w:<>,\s*&]+?))*\s*$"
)
_CONSTANT_HEAD = re.compile(r"(?<![\w$.>:])(?:template|(?:std\s*::\s*)?enable_if(?:_t)?)\s*<")
_ALIGNAS = re.compile(r"(?<![\w$])alignas\s*\(")
_ENUM_BODY = re.compile(r"(?<![\w$])enum(?![\w$])[^;{}()]*\{")


def _a_return_type(code: str, at: int) -> bool:
    """Whether the keyword at `at` names a function's trailing return type (`-> enum kind {`
    opens the function's body, not an enumeration's: red team round 58 hid a whole body from
    every mutant so)."""
    return code[:at].rstrip().endswith("->")


# What the compiler reads without running it: an operand of these is no run-time choice, and
# the rest of its statement still runs (red team round 25 hid a run-time check in a statement
# that named `noexcept(...)`, which once made the whole statement a constant expression).
_UNEVALUATED = re.compile(r"(?<![\w$])(?:noexcept|sizeof|decltype|alignof|typeid)\s*\(")
# A comparison operator: written with spaces around it; or, without them, one no template's
# brackets can be (`==`, `!=`, `<=`, `>=` after an operand), `<`/`>` against a number that
# closes no argument list (red team round 15 wrote `(::lseek(1, 0, 1)<0)` and `a!=b` unspaced),
# `<` after a call's or a subscript's closing bracket and `>` after a subscript's (no template's
# name ends so; red team round 50 wrote `q[-1]<terminator`).
_SPACED = re.compile(
    r"("
    r"(?<=\s)(?:<=|>=|==|!=|<|>)(?=\s)"
    r"|(?<=[\w)\]'])(?<!operator)(?:==|!=)(?=[\w('(!+-])"
    r"|(?<=[\w)\]])(?<!operator)(?:<=|>=)(?=[\w('(!+-])"
    r"|(?<=[\w)\]])(?<!operator)<(?=-?\d)(?!-?[\d.]+[uUlLfF]*\s*>)"
    r"|(?<=[\w)\]])(?<!operator)>(?=-?\d)"
    r"|(?<=[)\]])(?<!operator\(\))(?<!operator\[\])<(?=[\w('(!+-])"
    r"|(?<=\])(?<!operator\[\])>(?=[\w('(!+-])"
    r")"
)


# `<` between two names, unspaced (`c<terminator`): a comparison where no `>` closes it as a
# template argument list before its bracket or statement ends (`_closes_no_list`).
_UNSPACED_LESS = re.compile(r"(?<=\w)(?<!operator)(<)(?=[A-Za-z_(])")


def _closes_no_list(line: str, at: int) -> bool:
    """Whether the `<` at `at` opens no template argument list: the bracket around it or its
    statement ends first (`(c<t)`, `c<t;`), with no `>` of its depth before. A line that ends
    first is left as a template's (one may go on over lines)."""
    depth = 0
    for i in range(at + 1, len(line)):
        char = line[i]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                return True
            depth -= 1
        elif char == ";" and depth == 0:
            return True
        elif char == ">" and depth == 0 and not _arrow(line, i):
            return False
        elif char == "<" and depth == 0:
            return False  # another angle: a template's or a shift, not this one's to tell
    return False


def _constant_spans(code: str) -> list[tuple[int, int]]:
    """Where an expression is a constant one inside a statement that is not: a template's head
    and `enable_if`'s arguments (`<...>`), `alignas(...)`, an enumeration's body (`{...}`)."""
    out = []
    for match in _CONSTANT_HEAD.finditer(code):
        close = _angle_close(code, match.end() - 1)
        if close is not None:
            out.append((match.start(), close + 1))
    for pattern in (_ALIGNAS, _ENUM_BODY):
        for match in pattern.finditer(code):
            if pattern is _ENUM_BODY and _a_return_type(code, match.start()):
                continue
            close = match_close(code, match.end() - 1)
            if close is not None:
                out.append((match.start(), close + 1))
    return out


def _constant_statements(code: str) -> list[tuple[int, int]]:
    """The spans a compiler evaluates as constants: a `static_assert`'s parentheses, the
    condition of an `if constexpr`, and a constexpr (consteval, constinit) declaration to its
    end, or to its body's brace when it declares a function or a lambda (a body runs at run
    time whenever its call is not asked for a constant)."""
    out = []
    for match in _ASSERTED.finditer(code):
        close = match_close(code, match.end() - 1)
        if close is not None:
            out.append((match.start(), close + 1))
    for match in _DECLARED_CONSTANT.finditer(code):
        before = code[max(0, match.start() - 80) : match.start()].rstrip()
        if re.search(r"(?<![\w$])if$", before):
            opening = code.find("(", match.end())
            close = match_close(code, opening) if opening != -1 else None
            if close is not None:
                out.append((match.start(), close + 1))
            continue
        if before.endswith(")") or re.search(r"(?<![\w$])mutable$", before):
            continue  # a lambda's own specifier
        end = _declaration_end(code, match.end())
        if end is not None:
            out.append((match.start(), end))
    return out


def _declaration_end(code: str, at: int) -> int | None:
    """Where the declaration that goes on at `at` ends: after its `;`, or before the brace of
    a function's (or a lambda's) body; an initializer's braces are part of it."""
    i = at
    while i < len(code):
        ch = code[i]
        if ch in "([":
            close = match_close(code, i)
            if close is None:
                return None
            i = close + 1
            continue
        if ch == ";":
            return i + 1
        if ch == "{":
            if _FUNCTION_TAIL.search(code[at:i]):
                return i
            close = match_close(code, i)
            if close is None:
                return None
            i = close + 1
            continue
        if ch == "}":
            return i
        i += 1
    return None


def _angle_close(code: str, opening: int) -> int | None:
    """The `>` that closes the template argument list opened at `opening` (brackets inside it
    skipped whole, `->` and `>>` read as C++11 reads them); None when a `;`, `{` or `}` comes
    first."""
    depth, i = 0, opening
    while i < len(code):
        ch = code[i]
        if ch in "([":
            close = match_close(code, i)
            if close is None:
                return None
            i = close + 1
            continue
        if ch in ";{}":
            return None
        if ch == "<":
            depth += 1
        elif ch == ">" and code[i - 1 : i] != "-":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None


def _asks_a_constant(statement: str) -> bool:
    """Whether a statement as a whole asks for a constant expression: a `case` label's, a
    requires-clause's, a template's declaration. What else the compiler evaluates is constant
    where it stands (`_constant_statements`, `_constant_spans`): a lambda's own `constexpr`
    (red team round 28) and `x.template get<0>()` are no such request."""
    asked = _CONSTANT_CONTEXT.search(statement) or _REQUIRES.search(statement)
    return asked is not None


def _statement_so_far(code: str, begin: int, line: str) -> str:
    """The statement a line belongs to, from its start (after the last `;`, `{` or `}` before
    the line, and after a `case ...:` or `default:` label there) to the line's end:
    `constexpr bool b =` on the line above counts, a label's `case` does not (red team round
    14: a comparison right after `case X:` was taken for a constant one)."""
    head = max(code.rfind(c, 0, begin) for c in ";{}") + 1
    for label in _LABEL.finditer(code, head, begin):
        head = label.end()
    return code[head : begin + len(line)]


_LABEL = re.compile(r"(?<![\w$])(?:case(?![\w$])(?:[^:;]|::)*|default\s*):(?!:)")


def _back_to(line: str, at: int, ends, *, templates: bool = False) -> int:
    """Back from `at` to where an expression begins: after an unmatched opening bracket, or
    after the character `ends(line, i)` says ends what comes before; brackets and braces are
    skipped whole, and with `templates` a template's argument list too (`is_signed<T>`)."""
    depth, i = 0, at
    while i > 0:
        ch = line[i - 1]
        listed = _template_list(line, i - 1) if templates and ch == ">" and depth == 0 else None
        if listed is not None:
            i = listed[0]
            continue
        if ch in ")]}":
            depth += 1
        elif ch in "([{":
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and ends(line, i - 1):
            break
        i -= 1
    return i


def _ends_an_operand(line: str, i: int) -> bool:
    """An operator of lower precedence than a comparison's ends its left operand."""
    return _stop(line, i) or line[max(0, i - 1) : i + 1] in _STOPS


def _operand_start(line: str, written: str, at: int) -> int | None:
    """Where the left operand of an operator at `at` begins; None when it is empty. Brackets
    and braces are skipped whole, and so is a template's argument list (`is_signed<T>`)."""
    i = _back_to(line, at, _ends_an_operand, templates=True)
    while i < at and written[i].isspace():
        i += 1
    word = re.match(r"(return|case)\b\s*", line[i:at])
    if word:
        i += word.end()
    return i if written[i:at].strip() else None


def _operand_end(line: str, written: str, at: int) -> int | None:
    """Where the right operand of an operator ending at `at` ends; None when it is empty."""
    depth, i = 0, at
    while i < len(line):
        ch = line[i]
        listed = _template_list(line, i) if ch == "<" and depth == 0 else None
        if listed is not None:
            i = listed[1] + 1
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and (_stop(line, i) or line[i : i + 2] in _STOPS):
            break
        i += 1
    while i > at and written[i - 1].isspace():
        i -= 1
    return i if written[at:i].strip() else None


def _stop(line: str, i: int) -> bool:
    return line[i] in _STOPS_ONE and not _arrow(line, i)


def _template_list(line: str, at: int) -> tuple[int, int] | None:
    """The `<` and `>` of the template argument list the angle at `at` opens or closes
    (`is_signed<T>`: written against its name, and no space before its `>`); None when that
    angle is no such thing (a comparison, a shift, `->`)."""
    step = 1 if line[at] == "<" else -1
    depth, i = 0, at
    while 0 <= i < len(line) and line[i] not in ";{}":
        if line[i] in "<>" and not _arrow(line, i):
            depth += 1 if (line[i] == "<") == (step == 1) else -1
            if depth == 0:
                low, high = sorted((at, i))
                named = low > 0 and (line[low - 1].isalnum() or line[low - 1] == "_")
                return (low, high) if named and not line[high - 1].isspace() else None
        i += step
    return None


def _arrow(line: str, i: int) -> bool:
    """`->` (a member through a pointer), not a comparison's `>`."""
    return line[i] == ">" and i > 0 and line[i - 1] == "-"


def _outermost(found: list[_Comparison | _Pick]) -> list[_Comparison | _Pick]:
    """What no other of `found` holds, in order (a pick's arguments hold the rest)."""
    return sorted(
        (c for c in found if not any(o is not c and _holds(o, c) for o in found)),
        key=lambda c: c.start,
    )


def _held_by(outer: _Comparison | _Pick, found: list[_Comparison | _Pick]) -> list:
    return [c for c in found if c is not outer and _holds(outer, c)]


def _holds(outer: _Comparison | _Pick, inner: _Comparison | _Pick) -> bool:
    return outer.start <= inner.start and inner.end <= outer.end and outer != inner


def _picks(code: str, starts: list[int], wanted: set[int]) -> list[_Pick]:
    """Every picking call whose name is on a `wanted` line, outside a constant expression and a
    directive other than `#define`, with as many arguments as picking takes (`std::max({a,
    b})` and `std::min(a, b, comp)` are left alone: a list, a comparator)."""
    out = []
    for begin, line in _run_time_lines(code, starts, wanted):
        for match in _PICKING_CALL.finditer(line):
            open_at = begin + match.end() - 1
            close = match_close(code, open_at)
            if close is None:
                continue
            args = _arguments(code, open_at + 1, close)
            if len(args) != _PICKERS[match.group(1)] or any(
                code[a:b].lstrip().startswith("{") for a, b in args
            ):
                continue
            out.append(_Pick(begin + match.start(), close + 1, tuple(args)))
    return out


_NOT = re.compile(r"(?<![!=<>])!(?!=)")
_POSTFIX_NAME = re.compile(r"\s*(?:::|\.|->)\s*~?[A-Za-z_]\w*")
_NAME = re.compile(r"(?:::\s*)?[A-Za-z_]\w*")


def _run_time_lines(code: str, starts: list[int], wanted: set[int]) -> list[tuple[int, str]]:
    """The `wanted` lines whose expressions run: outside a directive other than `#define`, and
    outside a constant expression (which takes no choice made at run time). Of a line that
    declares a template and holds its function's body too (`template <class T> bool f() {
    return ...; }`), the body: its head is constant, its body runs (red team round 35 wrote
    GSL's run-time check as one-line function templates, and no mutant reached it)."""
    out = []
    for begin, line in _lines(code, starts, wanted):
        if line.lstrip().startswith("#") and not re.match(r"\s*#\s*define\b", line):
            continue
        if not _asks_a_constant(_statement_so_far(code, begin, line)):
            out.append((begin, line))
            continue
        body = _body_start(line)
        if body is not None and not _asks_a_constant(line[body:]):
            out.append((begin + body, line[body:]))
    return out


def _body_start(line: str) -> int | None:
    """Where a function's body begins on a line that holds its head too: just after the first
    `{` that follows a parameter list (and its qualifiers), or None."""
    for match in re.finditer(r"\{", line):
        if _REQUIREMENTS.search(line, 0, match.start()):
            continue  # a requires-expression's body: never run
        if _FUNCTION_TAIL.search(line, 0, match.start()):
            return match.end()
    return None


_REQUIREMENTS = re.compile(r"(?<![\w$])requires\s*\([^(){};]*\)\s*$")


def _negations(code: str, starts: list[int], wanted: set[int]) -> list[_Negation]:
    """Every `!x` on a `wanted` line outside a constant expression and a directive other than
    `#define` (the outer one of `!!x`), its operand run out as a unary operator's is: a
    parenthesised expression, or a name with its calls, subscripts and members."""
    out = []
    for begin, line in _run_time_lines(code, starts, wanted):
        for match in _NOT.finditer(line):
            if line[: match.start()].rstrip().endswith("operator"):
                continue  # `operator!`: a declaration's name
            end = _unary_end(code, begin + match.end())
            if end is not None:
                out.append(_Negation(begin + match.start(), end))
    return out


def _choices(
    code: str, starts: list[int], wanted: set[int], comparisons: list[_Comparison]
) -> list[_Negation | _Index]:
    """The choices made without `if`, `while`, a comparison or `!` on `wanted` lines: the
    condition of each `?:` (a truth value, mutated as `!x` is; one that is a comparison
    already has its mutants), and the index of each subscript that picks out of a table
    (`_indices`)."""
    out: list[_Negation | _Index] = []
    for begin, line in _choice_lines(code, starts, wanted):
        for match in re.finditer(r"\?", line):
            start = _condition_start(line, match.start())
            if start is None:
                continue
            span = (begin + start, begin + match.start())
            while code[span[1] - 1].isspace():
                span = (span[0], span[1] - 1)
            if not any((c.start, c.end) == span for c in comparisons):
                out.append(_Negation(*span))
        # A value made a truth value: `static_cast<bool>(x)` (red team round 24:
        # `1 + static_cast<bool>(*file ^ '/')`, one way for every relative path).
        for match in _TO_BOOL.finditer(line):
            close = match_close(code, begin + match.end() - 1)
            if close is not None and "\n" not in code[begin + match.start() : close]:
                out.append(_Negation(begin + match.start(), close + 1))
        # A question's answer used as a number (`2 - is_empty(p, ec)`): a decision written as
        # arithmetic (red team round 24; Python's mutants make the same of `isinstance`).
        for match in _QUESTION_CALL.finditer(line):
            open_at = begin + match.end() - 1
            close = match_close(code, open_at)
            if close is None or "\n" in code[open_at:close]:
                continue
            # The call with its qualifiers (`std::filesystem::is_empty(...)`), or with its
            # object (`to_path(file).has_filename()`: red team round 43 took a member's answer
            # as a number, and a member's was left alone).
            head = code[begin : begin + match.start()]
            qualified = re.search(r"(?:(?:[A-Za-z_]\w*)?\s*::\s*)+$", head)
            start = begin + (qualified.start() if qualified else match.start())
            member = re.search(r"(?:\.|->)\s*$", code[begin:start])
            if member is not None:
                start = _object_start(code, begin, begin + member.start())
                if start is None:
                    continue
            before = code[begin:start].rstrip()[-1:]
            after = code[close + 1 : close + 3].lstrip()[:1]
            if not ((before and before in _ARITHMETIC) or (after and after in _ARITHMETIC)):
                continue
            out.append(_Negation(start, close + 1))
        # A comparison written as a function object of <functional> (red team round 34:
        # `2 - std::equal_to<>{}(errno, 0)`, `1 + std::not_equal_to<>{}(file[1], '\0')`): a
        # decision with no operator, wherever it stands.
        for match in _COMPARISON_OBJECT.finditer(line):
            open_at = begin + match.end() - 1
            close = match_close(code, open_at)
            if close is not None and "\n" not in code[open_at:close]:
                out.append(_Negation(begin + match.start(), close + 1))
    # An index that is a comparison (`table[n >= 7]`) has its mutants as the comparison.
    out += [i for i in _indices(code, starts, wanted) if not _spans(comparisons, i)]
    out += [n for n in _bool_initializers(code, starts, wanted) if not _spans(comparisons, n)]
    return out


# A `bool` declared with a value: the conversion to bool is a decision with no branch (red team
# round 33: `const bool afterDigit = *(q - 1) - '0';`).
_BOOL_DECLARED = re.compile(r"(?<![\w$:])(?:const\s+)?bool\s+[A-Za-z_]\w*\s*=(?!=)\s*")


def _bool_initializers(code: str, starts: list[int], wanted: set[int]) -> list[_Negation]:
    """The value each `bool` declared on a `wanted` line is given, when it is more than a
    constant: made true and false."""
    out = []
    for begin, line in _function_lines(code, starts, wanted):
        for match in _BOOL_DECLARED.finditer(line):
            end = line.find(";", match.end())
            value = line[match.end() : end] if end != -1 else ""
            if not value.strip() or _top_level(value + ";", ",;") != len(value):
                continue
            if re.fullmatch(r"\s*(?:true|false|0|1)\s*", value):
                continue
            # to the `;`: a literal's blanked content reads as spaces here, trimmed it is cut
            out.append(_Negation(begin + match.end(), begin + end))
    return out


# A step by a constant: `>>`, `<<`, `/` or `%` and an integer literal (not a compound
# assignment, not `->`, not a template's closing `>>`).
_STEP = re.compile(
    r"(?<![<>/%=!-])(>>|<<|/|%)(?![=>])\s*(0[xXbB][0-9a-fA-F']+|\d[\d']*)[uUlLzZ]*(?![\w.'])"
)
# What may follow a step's literal: a shift's right operand would run on through `+ - * / %`
# (`n >> 3 + 1` shifts by 4), a division's through a call or a subscript of the literal.
_AFTER_SHIFT = re.compile(r"\s*(?:$|[)\],;?:&|^=!<>}]|[-+](?=[-+]))")
_AFTER_DIVISION = re.compile(r"\s*(?:$|[)\],;?:&|^=!<>}+\-*/%])")
# Counting calls, free (`strspn(...)`, `std::count(...)`, a number's bits: `std::bit_width`,
# `__builtin_clz`) and member (`.size()`): a count taken as a step (as mutants._COUNTS for Python).
_COUNT_CALL = re.compile(
    r"(?<![\w$.>])(?:(?:::\s*)?std\s*::\s*)?(?:str(?:n?len|c?spn)|wcs(?:len|c?spn)|count(?:_if)?"
    r"|distance|popcount|bit_width|count[lr]_(?:zero|one)|ffsl{0,2}"
    # a search's place, taken as a number by what is taken from it (round 33: `strchr(t, c) - t`)
    r"|str(?:r?chr|pbrk|str)|memr?chr|wcsr?chr"
    r"|__builtin_(?:popcount|clz|ctz|ffs)(?:ll|l)?)\s*\("
)
_RECEIVER = r"(?<![\w$])[A-Za-z_]\w*(?:\s*(?:\.|->)\s*[A-Za-z_]\w*)*\s*(?:\.|->)\s*"
_MEMBER_COUNT = re.compile(
    _RECEIVER + r"(?:(?:size|length|count)\s*\(\s*\)"
    # a position in a string (`s.find(c)`, npos when it is not there), as Python's `find`
    r"|(?:r?find|find_(?:first|last)_(?:not_)?of)\s*\()"
)
# Names that read nothing: a macro's conventional capitals, and what the compiler answers.
_READS = re.compile(r"(?<![\w$])(?!(?:sizeof|alignof|true|false|nullptr)\b)[A-Za-z_]\w*")


_LITERAL_OFFSET = re.compile(r'"\s*\+\s*')


def _function_lines(code: str, starts: list[int], wanted: set[int]) -> list[tuple[int, str]]:
    """The run-time `wanted` lines inside a function and outside a directive: where a value
    may be replaced by an expression that calls the selector (at file scope, C asks for a
    constant, and the schema would be lost whole)."""
    return [
        (begin, line)
        for begin, line in _choice_lines(code, starts, wanted)
        if _a_macro_body(line) or _in_a_function(code, begin) or _member_initializer(code, begin)
    ]


def _a_macro_body(line: str) -> bool:
    """A `#define`'s line: its body runs wherever the macro is used, as its comparisons' do
    (red team round 58 kept CLI11's fit, `(name)[0] & 1`, in a macro's body)."""
    return re.match(r"\s*#\s*define\b", line) is not None


def _member_initializer(code: str, at: int) -> bool:
    """Whether `at` is in a non-static data member's default initializer (`int kind = f(x);`
    in a class body): it runs each time an object is made (red team round 58 computed CLI11's
    fit, `2 - (name[0] & 1)`, in one)."""
    head = _block_head(code, at)
    if head is None or not re.search(r"\b(?:class|struct|union)\b[^;{}()]*$", head):
        return False
    start = max(code.rfind(";", 0, at), code.rfind("{", 0, at), code.rfind("}", 0, at)) + 1
    declared = re.match(r"[^=(){};]*(?:=|[\w>]\s*\{)", code[start:])
    if declared is None:
        return False
    words = r"(?<![\w$])(?:static|constexpr|consteval|constinit|typedef|using|friend|enum)(?![\w$])"
    return re.search(words, declared.group(0)) is None


def _innermost_brace(code: str, at: int) -> int | None:
    """The offset of the innermost `{` still open at `at`."""
    depth = 0
    for i in range(at - 1, -1, -1):
        if code[i] == "}":
            depth += 1
        elif code[i] == "{":
            if depth == 0:
                return i
            depth -= 1
    return None


def _kept_values(code: str, starts: list[int], wanted: set[int]) -> list[_Kept]:
    """The steps by a constant and the counts taken as a number on `wanted` lines, in a
    function, outside a macro and a constant expression, that read a variable or a call."""
    out = []
    for begin, line in _function_lines(code, starts, wanted):
        for match in _STEP.finditer(line):
            after = _AFTER_SHIFT if match.group(1) in ("<<", ">>") else _AFTER_DIVISION
            if not after.match(line, match.end()):
                continue
            start = _step_start(line, match.start(), shift=match.group(1) in ("<<", ">>"))
            if start is not None and _reads(line[start : match.start()]):
                out.append(_Kept(begin + start, begin + match.end()))
        # A string written out and an offset into it, `*("\12\13" + (c - 'a'))`: a table's
        # pick, its index kept as a subscript's is (red team round 33 took round 28's table out
        # of its brackets).
        for match in _LITERAL_OFFSET.finditer(line):
            if not re.search(r"\*\s*\(\s*$", line[: max(0, match.start() - 1)]):
                continue  # read through, `*("..." + i)`; a string joined to one is no pick
            at = match.end()
            close = match_close(line, at) if line[at : at + 1] == "(" else None
            end = close + 1 if close is not None else None
            if end is None:
                name = re.match(r"[A-Za-z_]\w*(?:\s*(?:\.|->)\s*[A-Za-z_]\w*)*", line[at:])
                end = at + name.end() if name else None
            if end is not None and _reads(line[at:end]):
                out.append(_Kept(begin + at, begin + end))
        # A curve rounded, `ceil(tanh(fdim(len, 5.0)))`: 0 up to a point and 1 after it, a
        # step with no operator (red team round 37 picked markupsafe's escaper so, by a length
        # and by the depth of the caller's frames); kept at its first value, as Python's are.
        for match in _ROUNDING_CALL.finditer(line):
            close = match_close(line, match.end() - 1)
            argument = line[match.end() : close] if close is not None else ""
            if close is not None and _CURVE.search(argument) and _reads(argument):
                out.append(_Kept(begin + match.start(), begin + close + 1))
        # A table read through its address, `*(escapers + k)`: the pick of `escapers[k]`,
        # whose index is kept as a subscript's is when it is more than a name and an offset.
        for match in _ADDRESS_PICK.finditer(line):
            close = match_close(line, match.start("open"))
            index = line[match.end() : close] if close is not None else ""
            if close is not None and _reads(index) and _OFFSET.fullmatch(index) is None:
                out.append(_Kept(begin + match.end(), begin + close))
        for match in [*_COUNT_CALL.finditer(line), *_MEMBER_COUNT.finditer(line)]:
            close = match_close(line, match.end() - 1) if line[match.end() - 1] == "(" else None
            end = close + 1 if close is not None else match.end()
            head = line[: match.start()].rstrip()
            qualified = re.search(r"(?:::\s*)?(?:[A-Za-z_]\w*\s*::\s*)*$", head)
            start = qualified.start() if qualified and qualified.group().strip() else match.start()
            if _taken_as_a_number(line, *_cast_out(line, start, end)):
                out.append(_Kept(begin + start, begin + end))
    return _outermost_kept(out)


# C's and C++'s roundings of a floating value, and the curves that one makes a step of: a
# function of the math library that is no rounding itself, or a ratio.
_ROUNDING_CALL = re.compile(
    r"(?<![\w$.>])(?:std\s*::\s*)?(?:ceil|floor|round|trunc|l?l?round|l?l?rint|nearbyint)"
    r"[fl]?\s*\("
)
_CURVE = re.compile(
    r"(?<![\w$.>])(?:std\s*::\s*)?(?:a?(?:sin|cos|tan)h?|atan2|exp(?:2|m1)?|log(?:2|10|1p|b)?"
    r"|pow|sqrt|cbrt|erfc?|fdim|fmax|fmin|fmod|hypot|tgamma|lgamma|remainder)[fl]?\s*\("
    r"|/"
)
_ADDRESS_PICK = re.compile(r"\*\s*(?P<open>\()\s*[A-Za-z_]\w*\s*\+\s*")
# A step by what is no literal: `/`, `%`, `>>` or `<<` and a name or a group.
_STEP_BY = re.compile(r"(?<![<>/%=!-])(>>|<<|/|%)(?![=>/*])\s*(?=[A-Za-z_(])")


def _steps_by_a_variable(code: str, starts: list[int], wanted: set[int]) -> list[_Pick]:
    """A step by a variable on a `wanted` run-time line in a function, made as if the
    variable never moved it: `a / b` (or `%`, `>>`, `<<`) replaced by `a`, as Python's are
    (red team round 33: `10 / (1 + (*(q - 1) - '0'))`, 10 after the tests' every `0` and 0 or
    less after any other digit)."""
    out = []
    for begin, line in _function_lines(code, starts, wanted):
        for match in _STEP_BY.finditer(line):
            shift = match.group(1) in ("<<", ">>")
            if shift and _template_list(line, match.start()) is not None:
                continue
            right_end = _unary_end(code, begin + match.end())
            if right_end is None or right_end > begin + len(line):
                continue
            after = _AFTER_SHIFT if shift else _AFTER_DIVISION
            if not after.match(line, right_end - begin):
                continue
            start = _step_start(line, match.start(), shift=shift)
            if start is None or not _reads(line[match.end() : right_end - begin]):
                continue
            left_end = len(line[: match.start()].rstrip())
            out.append(_Pick(begin + start, right_end, ((begin + start, begin + left_end),)))
    return out


def _bit_operations(code: str, starts: list[int], wanted: set[int]) -> list[_Kept | _Pick]:
    """On `wanted` run-time lines in a function: a value masked by a constant (`x & MASK`, a
    bit or a field taken out: kept at its first value) and a constant's bits set or flipped
    (`x | BIT`, `x ^ BIT`: made as if they were not, the pick of `x`), wherever such an
    expression is whole: an argument, a parenthesized group, what `=` or `return` gives (red
    team round 30 fitted python-ulid's dates by bit 39 of a count, in Python; the same in C)."""
    out: list[_Kept | _Pick] = []
    for begin, line in _function_lines(code, starts, wanted):
        for start, end in _whole_expressions(line):
            found = _bit_operation(line, start, end)
            if found is not None:
                kind, a, b, (x_start, x_end) = found
                if kind == "&":
                    out.append(_Kept(begin + a, begin + b))
                else:
                    out.append(_Pick(begin + a, begin + b, ((begin + x_start, begin + x_end),)))
    return out


def _sums(code: str, text: str, starts: list[int], wanted: set[int]) -> list[_Sum]:
    """On `wanted` run-time lines in a function: each sum of two terms or more, one of them not
    a constant, that is what `=`, a compound `+=` or `-=`, or `return` gives, an argument of a
    call, or a group's content: a sum inside other arithmetic is a sum too (red team round 62
    hid tinyxml2's fit as `10 * (1 + x*(x-3)*...)`, whose product no top-level term held)."""
    out: list[_Sum] = []
    for begin, line in _function_lines(code, starts, wanted):
        raw = text[begin : begin + len(line)]
        for start, end in _whole_expressions(line, compound=True):
            terms = _terms(line, raw, start, end)
            if not terms and not _an_argument(line, start):
                # not an argument: a cast's or a condition's makes a dropped operand a
                # constant in a truth value, which -Wint-in-bool-context refuses
                terms = _bit_terms(line, raw, start, end)
            if len(terms) >= 2 and any(_reads_a_value(line[a:b]) for a, b in terms):
                made = tuple((begin + a, begin + b) for a, b in terms)
                out.append(_Sum(made[0][0], made[-1][1], made))
    return out


_RETURNED_CAST = re.compile(r"(?<![\w$])return\s+(static_cast)\s*<")


def _returned_casts(code: str, text: str, starts: list[int], wanted: set[int]) -> list[_Kept]:
    """What an added `return static_cast<T>(...)` gives, when it reads a value, kept at its
    first value (`value-frozen`): a value cast to the type a function answers with is the
    answer, however it is worked out (red team round 58 worked CLI11's path type out of a
    path's first character by `std::gcd(file[0], 2)`, by `2 ^ 3 * (file[0]` and `& 1)` on
    two lines, through a macro and through a member's initializer: each 2 for the tests'
    names, which start with an even character, and 1 for `/`). Over several lines only where
    no comment is among them."""
    out = []
    for begin, line in _function_lines(code, starts, wanted):
        for match in _RETURNED_CAST.finditer(line):
            close = _angle_close(code, begin + match.end() - 1)
            if close is None:
                continue
            opening = close + 1
            while opening < len(code) and code[opening].isspace():
                opening += 1
            if code[opening : opening + 1] != "(":
                continue
            end = match_close(code, opening)
            if end is None:
                continue
            start = begin + match.start(1)
            value = code[start : end + 1]
            if "\n" in value and ("//" in text[start : end + 1] or "/*" in text[start : end + 1]):
                continue
            if _reads_a_value(code[opening + 1 : end]):
                out.append(_Kept(start, end + 1))
    return out


def _reads_a_value(operand: str) -> bool:
    """`_reads`, with what the compiler answers without running (`sizeof(T)`) left out."""
    for start, end in reversed(_unevaluated(operand)):
        operand = operand[:start] + operand[end:]
    return _reads(operand)


def _terms(line: str, raw: str, start: int, end: int) -> list[tuple[int, int]]:
    """The terms of `line[start:end]` when it is a sum or difference at its top level (its
    loosest operators binary `+` and `-`), each trimmed of the spaces `raw` (the line as
    written: a literal is blank in `line`) has around it; [] otherwise. A conditional, a list,
    an assignment, a comparison or a logical or bit operation at the top level is no sum."""
    cuts = []
    for i in _outside_brackets(line, start, end):
        ch, before, after = line[i], line[i - 1 : i], line[i + 1 : i + 2]
        if ch == ":" and ":" in (before, after):
            continue  # a scope, `std::abs(x)`
        elif ch in "?,;=<>!&|^:" and not (ch == ">" and before == "-"):
            return []
        elif ch in "+-" and after not in "+-=>" and before not in "+-" and _binary(line, i):
            cuts.append(i)
    return _cut(raw, start, end, cuts)


def _cut(raw: str, start: int, end: int, cuts: list[int]) -> list[tuple[int, int]]:
    """`raw[start:end]` cut at each operator in `cuts`, each piece trimmed of its spaces; []
    when there is no cut or a piece is empty."""
    if not cuts:
        return []
    spans, last = [], start
    for cut in [*cuts, end]:
        a, b = last, cut
        while a < b and raw[a].isspace():
            a += 1
        while b > a and raw[b - 1].isspace():
            b -= 1
        if a == b:
            return []
        spans.append((a, b))
        last = cut + 1
    return spans


def _an_argument(line: str, start: int) -> bool:
    """Whether the expression at `start` is what a call, a cast or a keyword's parentheses
    hold (`f(x | 4)`, `static_cast<bool>(x ^ 1)`, `if (x | y)`), not a group in arithmetic
    or what `=` or `return` gives."""
    head = line[:start].rstrip()
    if not head.endswith("("):
        return False
    return bool(re.search(r"[\w>]\s*$", head[:-1]))


def _bit_terms(line: str, raw: str, start: int, end: int) -> list[tuple[int, int]]:
    """The operands of `line[start:end]` when its loosest operator is `|`, or else `^` (bits
    set or flipped: a zero operand changes nothing, as a zero term of a sum), trimmed as
    `_terms` trims; [] otherwise (red team round 62 fitted tinyxml2's digit with `10 | P`, P
    zero at every letter the tests try)."""
    found: dict[str, list[int]] = {"|": [], "^": []}
    for i in _outside_brackets(line, start, end):
        ch, before, after = line[i], line[i - 1 : i], line[i + 1 : i + 2]
        if ch in "?,;" or (ch == "=" and not _compares(line, i)):
            return []
        if ch == ":" and ":" not in (before, after):
            return []
        if ch in "|&" and ch in (before, after):
            return []  # `||`, `&&`: truth values
        if ch in found and after != "=" and _binary(line, i):
            found[ch].append(i)
    return _cut(raw, start, end, found["|"] or found["^"])


def _whole_expressions(
    line: str, *, calls_only: bool = False, compound: bool = False
) -> list[tuple[int, int]]:
    """Spans of `line` that hold one whole expression: each argument of a call or content of a
    group (split at its top-level commas; `calls_only`: a call's arguments alone, not a group
    inside arithmetic), and what an `=` (`compound`: a `+=` or `-=` too) or a `return` gives,
    to its `;`."""
    out: list[tuple[int, int]] = []
    for i, ch in enumerate(line):
        if ch == "(" and (not calls_only or re.search(r"[\w>]\s*$", line[:i])):
            close = match_close(line, i)
            if close is not None:
                out += _arguments(line, i + 1, close)
    gives = r"(?<![=!<>+\-*/%&|^])=(?!=)|(?<![\w$])return(?![\w$])"
    if compound:
        gives += r"|(?<![+\-])[+\-]=(?!=)"
    for match in re.finditer(gives, line):
        end = line.find(";", match.end())
        if end != -1 and _top_level(line[match.end() : end] + ";", ";") is not None:
            out.append((match.end(), end))
    return out


def _outside_brackets(line: str, start: int, end: int) -> Iterator[int]:
    """Each index of `line[start:end]` outside every bracket opened within it (the brackets
    themselves left out)."""
    depth = 0
    for i in range(start, end):
        ch = line[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif not depth:
            yield i


def _compares(line: str, i: int) -> bool:
    """Whether the `=` at `i` is part of `==`, `!=`, `<=` or `>=`, not an assignment."""
    return (i > 0 and line[i - 1] in "=!<>") or line[i + 1 : i + 2] == "="


_CONSTANT_OPERAND = re.compile(
    r"\s*(?:0[xXbB][0-9a-fA-F']+|\d[\d']*)[uUlLzZ]*\s*|\s*(?:[A-Za-z_]\w*\s*::\s*)*[A-Z_][A-Z0-9_]*\s*"
)


def _bit_operation(line: str, start: int, end: int) -> tuple[str, int, int, tuple[int, int]] | None:
    """`(operator, start, end, x)` when `line[start:end]` is a whole `x & C`, `x | C` or `x ^ C`,
    or the same with the constant first (its loosest operator that one, C a literal or a
    constant's capitals, `x` reading something), trimmed, with `x`'s span; None otherwise (red
    team round 62 wrote tinyxml2's fit as `10 | (...)`, and only `x | 10` was read)."""
    while start < end and line[start].isspace():
        start += 1
    while end > start and line[end - 1].isspace():
        end -= 1
    found: dict[str, list[int]] = {"&": [], "^": [], "|": []}
    for i in _outside_brackets(line, start, end):
        ch = line[i]
        if ch in "?,;" or (ch == "=" and not _compares(line, i)):
            return None  # a conditional, a list or an assignment: no one bit operation
        elif ch == ":" and line[i - 1 : i] != ":" and line[i + 1 : i + 2] != ":":
            return None
        elif ch in "&|" and (line[i - 1 : i] == ch or line[i + 1 : i + 2] == ch):
            return None  # `&&`, `||`: a truth value, the mutants of conditions'
        elif ch in "&|^" and line[i + 1 : i + 2] != "=" and _binary(line, i):
            found[ch].append(i)
    for kind in ("|", "^", "&"):  # the loosest first
        if not found[kind]:
            continue
        at = found[kind][-1]
        right, left = line[at + 1 : end], line[start:at]
        if _CONSTANT_OPERAND.fullmatch(right) and _reads(left) and left.strip():
            return kind, start, end, (start, len(line[:at].rstrip()))
        first = found[kind][0]
        left, right = line[start:first], line[first + 1 : end]
        if len(found[kind]) == 1 and _CONSTANT_OPERAND.fullmatch(left) and _reads(right):
            x_start = first + 1 + len(right) - len(right.lstrip())
            return kind, start, end, (x_start, end)
        return None
    return None


def _step_start(line: str, at: int, *, shift: bool) -> int | None:
    """Where the left operand of a step at `at` begins: a shift's runs back over `+ - * / %`
    and other shifts (all bind as tightly or more), a division's over `* / %` only; None when
    the statement began on an earlier line (its start is not on this one) or it is empty."""

    def ends(text: str, i: int) -> bool:
        return _ends_a_step(text, i, shift=shift)

    i = _back_to(line, at, ends, templates=True)
    word = re.match(r"\s*(?:return|case|throw|co_return)\b", line[i:at])
    if word:
        i += word.end()
    while i < at and line[i].isspace():
        i += 1
    if i == 0 and not _opens_its_statement(line):
        return None
    return i if line[i:at].strip() else None


def _opens_its_statement(line: str) -> bool:
    """A line whose first token starts a statement's expression (`return`, a name assigned):
    a step found back at the line's start is then the whole left operand."""
    return re.match(r"\s*(?:return\b|[A-Za-z_][\w.\->\[\]]*\s*[-+*/%&|^]?=(?!=))", line) is not None


def _ends_a_step(line: str, i: int, *, shift: bool) -> bool:
    """Whether `line[i]` is an operator that binds more loosely than the step, which its left
    operand then starts after."""
    ch, before, after = line[i], line[i - 1 : i], line[i + 1 : i + 2]
    if ch in ",;?|^=":
        return True
    if ch == ":":
        return before != ":" and after != ":"
    if ch == "!":
        return after == "="
    if ch == "&":
        return _binary(line, i)
    if ch in "<>":
        if ch == ">" and before == "-":
            return False  # `->`
        if after == "=" or before == "=":
            return True
        if ch in (before, after):
            return not shift  # another shift: the same precedence, taken in for a shift
        return True  # a comparison
    if ch in "+-":
        if ch in (before, after) or (ch == "-" and after == ">"):
            return False  # `++`, `--`, `->`
        return not shift and _binary(line, i)
    return False


def _binary(line: str, i: int) -> bool:
    """Whether the operator at `i` takes an operand on its left (what is before it ends one)."""
    head = line[:i].rstrip()
    return bool(head) and (head[-1].isalnum() or head[-1] in "_)]'\"")


def _reads(operand: str) -> bool:
    """Whether an operand reads something the program gives it: a name that is not a macro's
    capitals or a question the compiler answers (`sizeof`)."""
    return any(not name.isupper() for name in _READS.findall(operand))


# A cast before a value: C's `(size_t) x`, C++'s `static_cast<int>(`, a type's own `int(`.
_C_CAST = re.compile(r"\(\s*(?:const\s+)?[A-Za-z_][\w:\s]*[\s*]*\)\s*$")
_CALL_CAST = re.compile(
    r"(?:(?:static|reinterpret)_cast\s*<[^<>;]*>|\b(?:int|long|unsigned|short|char|size_t"
    r"|ssize_t|ptrdiff_t|u?int(?:8|16|32|64)_t|double|float))\s*\($"
)


def _cast_out(line: str, start: int, end: int) -> tuple[int, int]:
    """The span of the value at [start, end) with the parentheses and casts around it: what a
    cast hands on is the value itself (`10 * static_cast<int>(strspn(...))`)."""
    while True:
        before = line[:start].rstrip()
        cast = _C_CAST.search(before)
        if cast is not None and not re.search(r"[\w)\]]\s*$", before[: cast.start()]):
            start = cast.start()
            continue
        after = line[end:].lstrip()
        if before.endswith("(") and after.startswith(")"):
            called = _CALL_CAST.search(before)
            bare = not re.search(r"[\w>\])]\s*\($", before)
            if called is not None or bare:
                start = called.start() if called is not None else len(before) - 1
                end = len(line) - len(after) + 1
                continue
        return start, end


def _taken_as_a_number(line: str, start: int, end: int) -> bool:
    """Whether the value at [start, end) is an operand of `+ - * / %` (or a sign, or what a
    compound assignment adds, takes away or multiplies by)."""
    before = line[:start].rstrip()
    after = line[end:].lstrip()
    if before.endswith(("+=", "-=", "*=")):
        return True
    ahead = after[:1] in ("+", "-", "*", "/", "%") and after[:2] not in ("++", "--", "->", "+=")
    behind = before[-1:] in ("+", "-", "*", "/", "%") and not before.endswith(("++", "--"))
    return ahead or behind


def _outermost_kept(found: list[_Kept]) -> list[_Kept]:
    """One value per span, the outer of two that nest (`(n >> 3) % 2`: kept whole)."""
    unique = sorted(set(found), key=lambda k: (k.start, -k.end))
    return [
        k
        for k in unique
        if not any(o != k and o.start <= k.start and k.end <= o.end for o in unique)
    ]


def _unevaluated(code: str) -> list[tuple[int, int]]:
    """The spans of the operands the compiler reads without running (`sizeof(...)`,
    `noexcept(...)`, `decltype(...)`, ...)."""
    out = []
    for match in _UNEVALUATED.finditer(code):
        close = match_close(code, match.end() - 1)
        if close is not None:
            out.append((match.start(), close + 1))
    return out


def _within_span(found: tuple[int, int], spans: list[tuple[int, int]]) -> bool:
    return any(start <= found[0] and found[1] <= end for start, end in spans)


def _within_any(found, spans: list[tuple[int, int]]) -> bool:
    return any(start <= found.start and found.end <= end for start, end in spans)


def _spans(comparisons: list[_Comparison], found: _Index) -> bool:
    return any((c.start, c.end) == (found.start, found.end) for c in comparisons)


# Not `bool(x)`: `bool(int)` is as often a function's type (`std::function<bool(int)>`).
# A call named as a question (`is_empty`, a project's own `IsWhiteSpace` or `hasValue`, C's
# `isdigit`, the standard algorithms that answer yes or no: red team round 33 added
# `10 * std::equal(q - 1, q, "0")`, round 51 `10 * IsWhiteSpace(*q - 'b' + ' ')`), and the
# operators that make its answer a number.
_QUESTION_CALL = re.compile(
    r"(?<![\w$])(?:(?:is|has)_\w+|(?:[Ii]s|[Hh]as|[Cc]an|[Ss]hould)[A-Z]\w*"
    r"|is(?:alnum|alpha|blank|cntrl|digit|graph|lower|print|punct"
    r"|space|upper|xdigit)|equal|all_of|any_of|none_of|binary_search|includes)\s*\("
)
_ARITHMETIC = frozenset("+-*/%^")


def _object_start(code: str, begin: int, at: int) -> int | None:
    """Where the object a member is asked of starts (`at`: its `.` or `->`), on the line that
    starts at `begin`: names, `::`, `.`, `->` and whole `(...)` and `[...]` back from it; None
    where it does not end in one."""
    index = at
    while True:
        while index > begin and code[index - 1].isspace():
            index -= 1
        if index > begin and code[index - 1] in ")]":
            opening = _opening(code, begin, index - 1)
            if opening is None:
                return None
            index = opening
            continue
        name = re.search(r"[A-Za-z_]\w*$", code[begin:index])
        if name is None:
            return index if index < at else None
        index = begin + name.start()
        joined = re.search(r"(?:::|\.|->)\s*$", code[begin:index])
        if joined is None:
            return index
        index = begin + joined.start()


def _opening(code: str, begin: int, close: int) -> int | None:
    """The `(` or `[` that the `)` or `]` at `close` closes, on or after `begin`."""
    depth = 0
    for index in range(close, begin - 1, -1):
        if code[index] in ")]":
            depth += 1
        elif code[index] in "([":
            depth -= 1
            if depth == 0:
                return index
    return None


# `std::equal_to<>{}(a, b)`, `std::ranges::less{}(a, b)`, `std::not_equal_to<int>()(a, b)`.
_COMPARISON_OBJECT = re.compile(
    r"(?<![\w$.>])(?:::\s*)?(?:(?:std|ranges)\s*::\s*)*(?:equal_to|not_equal_to|less|greater"
    r"|less_equal|greater_equal|logical_and|logical_or|logical_not)"
    r"\s*(?:<[^;(){}]*?>)?\s*(?:\{\s*\}|\(\s*\))\s*\("
)


_TO_BOOL = re.compile(r"(?<![\w$.>:])static_cast\s*<\s*bool\s*>\s*\(")


def _choice_lines(code: str, starts: list[int], wanted: set[int]) -> list[tuple[int, str]]:
    """The run-time lines whose whole statement, read back past any brace that opens an
    initializer (`static constexpr int value{a ? b : c};` over several lines), asks no constant
    expression: a choice mutated there would not compile, and the schema would be lost whole."""
    out = []
    for begin, line in _run_time_lines(code, starts, wanted):
        head = max(code.rfind(";", 0, begin), code.rfind("}", 0, begin), _block_brace(code, begin))
        head += 1
        # A label's `case` is not the statement's (red team round 34: every choice right
        # after `case std::filesystem::file_type::directory:` was taken for a constant one).
        for label in _LABEL.finditer(code, head, begin):
            head = label.end()
        if not _asks_a_constant(code[head : begin + len(line)]):
            out.append((begin, line))
    return out


_BLOCK_OPENER = re.compile(
    r"(?:\)|[{};:]|(?<![\w$])(?:else|do|try|noexcept|const|override|final))\s*$"
)


def _block_brace(code: str, before: int) -> int:
    """The last `{` before `before` that opens a block (after `)`, a label, another brace, a
    statement, `else`, `do`, `try` or a function's qualifiers), not an initializer: -1 if none."""
    at = code.rfind("{", 0, before)
    while at != -1:
        if _BLOCK_OPENER.search(code, max(0, at - 40), at):
            return at
        at = code.rfind("{", 0, at)
    return -1


def _condition_start(line: str, at: int) -> int | None:
    """Where the condition of the `?` at `at` begins: after the unmatched bracket, `=`, `,`,
    `;`, `?`, `:` or `return` before it; None when it is empty."""
    i = _back_to(line, at, _ends_a_condition)
    head = re.match(r"\s*(?:return\b)?\s*", line[i:at])
    i += head.end() if head else 0
    return i if line[i:at].strip() else None


def _ends_a_condition(line: str, i: int) -> bool:
    """Whether `line[i]` is where a `?:`'s condition starts after: `,`, `;`, another `?`, a
    `:` that is no scope's, or an `=` that assigns."""
    ch = line[i]
    if ch in ",;?":
        return True
    if ch == ":":
        return line[i - 1 : i] != ":" and line[i + 1 : i + 2] != ":"
    if ch == "=":
        return line[i - 1 : i] not in ("=", "!", "<", ">") and line[i + 1 : i + 2] != "="
    return False


# A subscript: its opening bracket after a name, a call, another subscript or a string literal
# (a table written out: red team round 28 decoded hex digits by `"\12\13..."[*q - 'a']`), not a
# lambda's captures (`= [&]`, `return [x]`), an attribute (`[[`) or `delete[]`.
_SUBSCRIPT = re.compile(r"(?<=[\w)\]\"])\s*\[(?!\[)")
_OFFSET = re.compile(r"\s*[\w.]+(?:\s*(?:->|\.)\s*\w+)*(?:\s*[-+]\s*\w+)?\s*")
_TABLE = re.compile(
    r"([A-Za-z_]\w*)\s*\[[^\]\n]*\][^=;\n]*=\s*\{|([A-Za-z_]\w*)\s*\[[^\]\n]*\]\s*\{"
)
_ASSIGNED = re.compile(r"([A-Za-z_]\w*)\s*(?:=(?!=)|\{)")


def _indices(code: str, starts: list[int], wanted: set[int]) -> list[_Index]:
    """The index of each subscript on a `wanted` line that picks: into a table the patch made
    (declared with its elements on an added line, or a string literal), by a name the patch
    assigns, or by anything more than a name and an offset (`tab[(n - 1024) >> 63]`; `buf[n +
    1]` and `s[i]` are places, not choices)."""
    made = [line for _, line in _lines(code, starts, wanted)]
    tables = {m.group(1) or m.group(2) for line in made for m in _TABLE.finditer(line)}
    assigned = {m.group(1) for line in made for m in _ASSIGNED.finditer(line)}
    out = []
    for begin, line in _choice_lines(code, starts, wanted):
        for match in _SUBSCRIPT.finditer(line):
            before = line[: match.start()].rstrip()
            word = re.search(r"[A-Za-z_]\w*$", before)
            if word and word.group() in _KEYWORDS | {"operator"}:
                continue
            open_at = begin + match.end() - 1
            close = match_close(code, open_at)
            if close is None or "\n" in code[open_at:close]:
                continue
            index = code[open_at + 1 : close]
            if not index.strip() or re.fullmatch(r"\s*[\d'.xXa-fA-FuUlL]+\s*", index):
                continue
            if _declares(line, match.start()):
                continue
            name = word.group() if word else ""
            plain = _OFFSET.fullmatch(index) is not None
            written_out = before.endswith('"')
            if name in tables or written_out or index.strip() in assigned or not plain:
                out.append(_Index(open_at + 1, close))
    return out


def _declares(line: str, at: int) -> bool:
    """Whether the subscript at `at` is an array declarator's size (`T name[n]`, `T (*name[n])`)."""
    head = line[:at]
    return re.search(
        r"[\w>*&]\s+\(?\s*\**\s*(?:const\s+)?[A-Za-z_]\w*\s*$", head
    ) is not None and not re.search(r"(?<![\w$])(?:return|case)\s+[A-Za-z_]\w*\s*$", head)


def _unary_end(code: str, at: int) -> int | None:
    """Where the operand of a unary operator ending at `at` ends (on its line); None when it
    is none this reads."""
    i = at
    while i < len(code) and code[i] in " \t":
        i += 1
    if i < len(code) and code[i] == "!":
        return _unary_end(code, i + 1)
    if i < len(code) and code[i] == "(":
        close = match_close(code, i)
        if close is None:
            return None
        i = close + 1
    else:
        name = _NAME.match(code, i)
        if name is None:
            return None
        i = name.end()
    while True:
        member = _POSTFIX_NAME.match(code, i)
        if member is not None:
            i = member.end()
            continue
        j = i
        while j < len(code) and code[j] in " \t":
            j += 1
        if j < len(code) and code[j] == "<":
            listed = _template_list(code[: code.find("\n", j) % (len(code) + 1)], j)
            if listed is not None:
                i = listed[1] + 1
                continue
        if j < len(code) and code[j] in "([":
            close = match_close(code, j)
            if close is None or "\n" in code[j:close]:
                return None
            i = close + 1
            continue
        return i


def _arguments(code: str, start: int, end: int) -> list[tuple[int, int]]:
    """The spans of the arguments in `code[start:end]`, split at its top-level commas."""
    spans, last = [], start
    for i in _outside_brackets(code, start, end):
        if code[i] == ",":
            spans.append((last, i))
            last = i + 1
    spans.append((last, end))
    return [(a, b) for a, b in spans if code[a:b].strip()] if code[start:end].strip() else []


def _innermost(found: list[_Comparison]) -> list[_Comparison]:
    """The comparisons no other one holds (`(a < b) == c` keeps `a < b`)."""
    return [
        c
        for c in found
        if not any(o is not c and o.start <= c.start and c.end <= o.end for o in found)
    ]


def _conditions(code: str, starts: list[int], wanted: set[int]) -> list[tuple[int, int]]:
    """The spans (inside the parentheses) of the plain conditions of `if` and `while` whose
    keyword is on one of `wanted` lines."""
    out = []
    for match in _DECISION.finditer(code):
        if _line_of(starts, match.start()) not in wanted:
            continue
        if _CONSTEXPR.match(code, match.start()):
            continue
        open_at = match.end() - 1
        close = match_close(code, open_at)
        if close is None:
            continue
        inside = code[open_at + 1 : close]
        if not inside.strip() or ";" in inside or _ASSIGNS.search(inside) or "#" in inside:
            continue
        out.append((open_at + 1, close))
    return out


def _statements(code: str, starts: list[int], wanted: set[int]) -> list[tuple[int, int]]:
    """Expression statements wholly on one `wanted` line: (start, end) of the statement, its
    `;` included."""
    out = []
    for begin, line in _lines(code, starts, wanted):
        stripped = line.strip()
        if not stripped.endswith(";") or stripped.count(";") != 1 or "{" in line or "}" in line:
            continue
        if stripped.startswith("#") or not _begins_a_statement(code, begin):
            continue
        if not _in_a_function(code, begin):
            continue  # `App(const App &) = delete;` in a class body declares, it runs nothing
        first = re.match(r"\s*([A-Za-z_]\w*)", line)
        if first is None or first.group(1) in _KEYWORDS:
            continue
        if not _EXPRESSION.match(line):
            continue
        callee = _CALLEE.match(line)
        if callee is not None and callee.group(1) in _QUIET:
            continue
        start = begin + len(line) - len(line.lstrip())
        end = begin + line.rindex(";") + 1
        out.append((start, end))
    return out


_SCOPE_HEAD = re.compile(
    r"(?:(?<!->)(?<!->\s)\b(?:class|struct|union|namespace|enum)\b[^;{}()]*"
    r"|\bextern\s*\"[^\"]*\"\s*)$"
)


def _in_a_function(code: str, at: int) -> bool:
    """Whether `at` is inside a block a function runs: its innermost open brace is no class,
    struct, union, enum or namespace body, nor the file's own scope (an honest patch that adds a
    constructor's declaration to a class once lost every mutant of its file: the declaration,
    deleted as a statement, made the schema refuse to compile)."""
    head = _block_head(code, at)
    return head is not None and _SCOPE_HEAD.search(head) is None


def _block_head(code: str, at: int) -> str | None:
    """What stands before the innermost `{` open at `at`, back to the statement before it, on
    one line; None at the file's own scope."""
    opening = _innermost_brace(code, at)
    if opening is None:
        return None
    head = code[max(0, code.rfind(";", 0, opening), code.rfind("}", 0, opening)) : opening]
    return head.replace("\n", " ")


def _begins_a_statement(code: str, begin: int) -> bool:
    """Whether a line starts a statement: the code before it ends one (`;`), opens or closes a
    block, or ends a condition or an `else`; not a line that continues a declaration."""
    before = code[:begin].rstrip()
    return (
        not before
        or before[-1] in ";{}):"
        or re.search(r"(?<![\w$])(else|do)$", before) is not None
    )


def _lines(code: str, starts: list[int], wanted: set[int]) -> list[tuple[int, str]]:
    """(offset, text) of each `wanted` line of `code`, in order, its newline left out."""
    out = []
    for number in sorted(n for n in wanted if 1 <= n <= len(starts)):
        begin = starts[number - 1]
        finish = starts[number] - 1 if number < len(starts) else len(code)
        out.append((begin, code[begin:finish]))
    return out


def _apply(text: str, edits: list[_Edit]) -> tuple[str, set[int]]:
    """The text with the edits made, and the mutants they hold (an edit that overlaps an
    earlier one is left out, and its mutants with it)."""
    out, last, kept = [], 0, set()
    for edit in sorted(edits, key=lambda e: e.start):
        if edit.start < last:
            continue
        out.append(text[last : edit.start])
        out.append(edit.replacement)
        last = edit.end
        kept.update(edit.numbers)
    out.append(text[last:])
    return "".join(out), kept


def _line_starts(text: str) -> list[int]:
    starts = [0]
    starts += [m.end() for m in re.finditer("\n", text)]
    return starts


def _line_of(starts: list[int], offset: int) -> int:
    low, high = 0, len(starts) - 1
    while low < high:
        mid = (low + high + 1) // 2
        if starts[mid] <= offset:
            low = mid
        else:
            high = mid - 1
    return low + 1


def _line_text(text: str, starts: list[int], line: int) -> str:
    begin = starts[line - 1]
    finish = starts[line] if line < len(starts) else len(text)
    return text[begin:finish]


def _short(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
