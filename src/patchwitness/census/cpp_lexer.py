"""A small C++ lexer for the census: blank what the compiler never sees as code. Pure: no I/O.

This is not a parser. `strip_cpp` returns a copy of the source in which comments, string and
character literals, dead preprocessor branches (`#if 0`, `#if false`, the `#else` of `#if 1`) and
the bodies of `if (false)` statements are replaced by spaces. Every removed character becomes one
space and every newline is kept, so an offset or a line number in the stripped text is the same
offset or line in the original: a scanner can find structure in the stripped text and read names,
literals and line numbers from the original at the same place.

A literal keeps its two quote characters at the offset of its opening quote and the one after it
(`"abc"` becomes `""` and three spaces, `u8'x'` becomes two spaces, `''` and a space, an encoding or
raw prefix being blanked with the literal), so the stripped text still reads as code with an empty
literal where the literal was; `restore_literals` puts the original literals back into a slice of
stripped text when the content matters (an assertion's arguments, a test's name).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from typing import NamedTuple

# One pass over the source finds every comment and literal; the leftmost match wins, so `//` inside
# a string stays in the string and a quote inside a comment stays in the comment. Every alternative
# starts with one of / " ' so the regex engine can skip to candidate positions without trying the
# pattern at every offset (this is most of the lexer's speed). Encoding prefixes (u8 u U L) and the
# raw-string R are therefore checked by lookbehinds after the quote, and only count when they start
# an identifier: `xR"(` is the identifier `xR` followed by an ordinary string. A `'` preceded by a
# word character is a digit separator (1'000'000, 0xFF'FF), never a character literal, and a prose
# apostrophe (`#error don't`) is preceded by a letter for the same reason. Unterminated literals
# stop at the end of their line, unterminated block comments and raw strings at the end of the text.
_RAW_QUOTE = r'(?:(?<=(?<![\w$])R")|(?<=(?<![\w$])[uUL]R")|(?<=(?<![\w$])u8R"))'
_CHAR_QUOTE = r"(?:(?<![\w$]')|(?<=(?<![\w$])[uUL]')|(?<=(?<![\w$])u8'))"
_LEXEME = re.compile(
    r"//(?:\\\r?\n|[^\n])*"
    r"|/\*.*?(?:\*/|\Z)"
    rf"|\"{_RAW_QUOTE}(?P<delim>[^()\\\s\"]{{0,16}})\(.*?(?:\)(?P=delim)\"|\Z)"
    r"|\"(?:[^\"\\\n]|\\.)*\"?"
    rf"|'{_CHAR_QUOTE}(?:[^'\\\n]|\\.)*'?",
    re.S,
)
# Encoding and raw prefixes by length, to blank them with the literal they introduce.
_PREFIXES = {3: frozenset({"u8R"}), 2: frozenset({"u8", "uR", "UR", "LR"}), 1: frozenset("uULR")}

# The literal alternatives alone, anchored where a placeholder sits, to read a literal back.
_LITERAL = re.compile(
    r"(?:u8|[uUL])?R\"(?P<delim>[^()\\\s\"]{0,16})\(.*?(?:\)(?P=delim)\"|\Z)"
    r"|(?:u8|[uUL])?\"(?:[^\"\\\n]|\\.)*\"?"
    r"|(?:u8|[uUL])?'(?:[^'\\\n]|\\.)*'?",
    re.S,
)

# A placeholder left by `strip_cpp`: `""` anywhere, or `''` not preceded by a word character (a
# digit separator pair as in 1''0 is not valid C++, but `'` after a digit must never be taken).
_PLACEHOLDER = re.compile(r"\"\"|(?<![\w$])''")

# A preprocessor directive: `#`, the directive name and the rest of the logical line, backslash
# continuations included. The pattern starts with the literal `#` so the engine can search for it;
# that the `#` is first on a line which does not continue the line before is checked in Python.
# The rest of the line is an unrolled loop (runs of plain characters between backslashes): one
# alternation per character made this the census's most expensive pattern.
_DIRECTIVE = re.compile(r"\#[ \t]*(\w*)([^\n\\]*(?:\\(?:\r?\n)?[^\n\\]*)*)")

_CONDITIONALS = frozenset({"if", "ifdef", "ifndef", "elif", "elifdef", "elifndef", "else", "endif"})

# `if (` or `if constexpr (` whose condition starts like a constant; the condition itself is then
# evaluated by the same three-valued evaluator as `#if`. The pattern starts with the literal `if`
# so the regex engine can search for it quickly; the word boundary before it is checked in Python.
_IF_CONSTANT = re.compile(r"if\s*(?:constexpr\s*)?\((?=[\s(!]*(?:false|true|0|1)\b)")
_ELSE = re.compile(r"\s*else\b")
_SPACE_AFTER = re.compile(r"\s*")

# Tokens for normalization: literals whole, pp-numbers whole (digit separators and exponent signs
# included), identifiers, the common multi-character operators, then any other single character.
# Comments are matched so they can be dropped.
_TOKEN = re.compile(
    r"//[^\n]*|/\*.*?(?:\*/|\Z)|\\\r?\n"
    r"|(?:u8|[uUL])?R\"(?P<delim>[^()\\\s\"]{0,16})\(.*?(?:\)(?P=delim)\"|\Z)"
    r"|(?:u8|[uUL])?\"(?:[^\"\\\n]|\\.)*\"?"
    r"|(?:u8|[uUL])?'(?:[^'\\\n]|\\.)*'?"
    r"|\.?\d(?:[eEpP][+-]|'\w|[\w.])*"
    r"|[A-Za-z_$]\w*"
    r"|->\*?|\.\*|::|\+\+|--|<=>|<<=?|>>=?|[<>=!+\-*/%&|^]=|&&|\|\||\#\#|\.\.\."
    r"|\S",
    re.S,
)

# `_TOKEN` without the alternatives that need a group or a filter (raw strings, comments,
# continuations, and escapes inside literals), for fragments that contain none of them.
_PLAIN_TOKEN = re.compile(
    r"(?:u8|[uUL])?\"[^\"\n]*\"?"
    r"|(?:u8|[uUL])?'[^'\n]*'?"
    r"|\.?\d(?:[eEpP][+-]|'\w|[\w.])*"
    r"|[A-Za-z_$]\w*"
    r"|->\*?|\.\*|::|\+\+|--|<=>|<<=?|>>=?|[<>=!+\-*/%&|^]=|&&|\|\||\#\#|\.\.\."
    r"|\S"
)

# Balanced parentheses up to three levels deep; possessive quantifiers keep a failed match linear.
_SHALLOW_PARENS = re.compile(r"\((?:[^()]++|\((?:[^()]++|\([^()]*+\))*+\))*+\)")
_BRACKETS = {"(": re.compile(r"[()]"), "{": re.compile(r"[{}]"), "[": re.compile(r"[\[\]]")}
_STATEMENT_PUNCT = re.compile(r"[(){};]")
_PP_TOKEN = re.compile(r"\|\||&&|[()!]|[&|]|[^\s()!&|]+")
_PP_INT = re.compile(r"(0[xX][0-9a-fA-F']+|0[bB][01']+|\d[\d']*)[uUlLzZ]*")


class Directive(NamedTuple):
    """One preprocessor directive: its name (`define`, `if`...), the rest of its logical line, and
    the offsets of the directive (from its `#` to before the newline ending its logical line)."""

    name: str
    rest: str
    start: int
    end: int


def strip_cpp(text: str, *, dead_if: bool = True) -> str:
    """`text` with comments, literals and dead code blanked; offsets and newlines unchanged.

    `dead_if` also blanks the bodies of `if (false)` / `if (0)` statements (and the `else` of
    `if (true)`), the way a patch that wants to keep an assertion in the file but never run it
    would write it.
    """
    return strip_with_directives(text, dead_if=dead_if)[0]


def strip_with_directives(text: str, *, dead_if: bool = True) -> tuple[str, list[Directive]]:
    """`strip_cpp`, and the directives of its result: found once, on the text with comments and
    literals blanked, then thinned to those that no dead branch or dead `if` body blanked."""
    stripped = _strip_lexemes(text)
    found = list(directives(stripped)) if "#" in stripped else []
    dead = _dead_ranges(found, len(stripped))
    if dead:
        stripped = blank_ranges(stripped, dead)
        found = _outside(found, dead)
    if dead_if and "if" in stripped:
        bodies = _dead_if_bodies(stripped, [(d.start, d.end) for d in found])
        if bodies:
            stripped = blank_ranges(stripped, bodies)
            found = _outside(found, bodies)
    return stripped, found


def _outside(found: list[Directive], ranges: list[tuple[int, int]]) -> list[Directive]:
    """The directives whose `#` lies in none of the blanked ranges (which may overlap)."""
    merged: list[list[int]] = []
    for start, end in sorted(ranges):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    starts = [start for start, _ in merged]
    out = []
    for directive in found:
        index = bisect.bisect_right(starts, directive.start) - 1
        if index < 0 or directive.start >= merged[index][1]:
            out.append(directive)
    return out


def _strip_lexemes(text: str) -> str:
    prefixes: list[tuple[int, int]] = []

    def replace(match: re.Match[str]) -> str:
        lexeme = match.group()
        quote = lexeme[0]
        if quote == "/":
            return blank(lexeme)
        start = match.start()
        if start and text[start - 1] in "uULR8":
            length = _prefix_length(text, start)
            if length:
                prefixes.append((start - length, start))
        if len(lexeme) < 2:
            return " "
        # Keep an empty literal of the same kind at the quote and the offset after it.
        return quote + quote + blank(lexeme[2:])

    # re.sub with a callback beats an explicit finditer loop; prefixes are rare, so they are
    # blanked afterwards rather than by rewriting output already produced.
    stripped = _LEXEME.sub(replace, text)
    return blank_ranges(stripped, prefixes)


def _prefix_length(text: str, quote: int) -> int:
    for length in (3, 2, 1):
        start = quote - length
        if start >= 0 and text[start:quote] in _PREFIXES[length]:
            return length if start == 0 or not _is_word(text[start - 1]) else 0
    return 0


def blank(text: str) -> str:
    """Spaces for every character of `text` except newlines, which are kept."""
    if "\n" not in text:
        return " " * len(text)
    return "\n".join(" " * len(part) for part in text.split("\n"))


def blank_ranges(text: str, ranges: list[tuple[int, int]]) -> str:
    """`text` with each [start, end) range blanked; ranges may overlap and come in any order."""
    if not ranges:
        return text
    pieces: list[str] = []
    last = 0
    for start, end in sorted(ranges):
        start = max(start, last)
        if end <= start:
            continue
        pieces.append(text[last:start])
        pieces.append(blank(text[start:end]))
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


def directives(text: str) -> Iterator[Directive]:
    """The preprocessor directives of (stripped) text, in order."""
    for match in _DIRECTIVE.finditer(text):
        start = match.start()
        line_start = text.rfind("\n", 0, start) + 1
        if line_start < start and text[line_start:start].strip(" \t\f\v\ufeff"):
            continue  # `#` or `##` inside a line: stringizing or pasting, not a directive
        if text[max(line_start - 3, 0) : line_start].endswith(("\\\n", "\\\r\n")):
            continue  # a continuation line of a macro body
        yield Directive(match.group(1), match.group(2), start, match.end())


def _dead_ranges(found: list[Directive], length: int) -> list[tuple[int, int]]:
    """Ranges of conditional-compilation branches that can never be compiled.

    Each open `#if` group is [parent_dead, taken, dead]: `taken` once a branch with a constant true
    condition was seen (every later branch is dead), `dead` for the current branch. A branch whose
    condition is not a constant is assumed live. The directive that starts a dead stretch and the
    one that ends it are kept; everything between them is blanked, directives included.
    """
    ranges: list[tuple[int, int]] = []
    stack: list[list[bool]] = []
    dead_start = 0
    for directive in found:
        name = directive.name
        if name not in _CONDITIONALS or (name not in ("if", "ifdef", "ifndef") and not stack):
            continue
        was_dead = bool(stack) and stack[-1][2]
        if name in ("if", "ifdef", "ifndef"):
            value = pp_value(directive.rest) if name == "if" else None
            stack.append([was_dead, value is True, was_dead or value is False])
        elif name == "endif":
            stack.pop()
        else:
            group = stack[-1]
            value = pp_value(directive.rest) if name == "elif" else None
            if name == "else":
                value = True
            group[2] = group[0] or group[1] or value is False
            group[1] = group[1] or value is True
        now_dead = bool(stack) and stack[-1][2]
        if now_dead and not was_dead:
            dead_start = directive.end
        elif was_dead and not now_dead:
            ranges.append((dead_start, directive.start))
    if stack and stack[-1][2]:
        ranges.append((dead_start, length))
    return ranges


def pp_value(condition: str) -> bool | None:
    """The value of a constant condition (`0`, `false`, `!1`, `(0) && defined(X)`), else None.

    Three-valued: anything that is not an integer literal, `true` or `false` is unknown, and `&&`,
    `||`, `!` and parentheses combine unknowns the way they must (`0 && X` is false).
    """
    toks = _PP_TOKEN.findall(condition.replace("\\\n", " "))
    if not toks:
        return None
    pos, value = _pp_or(toks, 0)
    return value if pos == len(toks) else None


def _pp_or(toks: list[str], pos: int) -> tuple[int, bool | None]:
    pos, value = _pp_and(toks, pos)
    while pos < len(toks) and toks[pos] == "||":
        pos, other = _pp_and(toks, pos + 1)
        if value is True or other is True:
            value = True
        elif value is not False or other is not False:
            value = None
    return pos, value


def _pp_and(toks: list[str], pos: int) -> tuple[int, bool | None]:
    pos, value = _pp_unary(toks, pos)
    while pos < len(toks) and toks[pos] == "&&":
        pos, other = _pp_unary(toks, pos + 1)
        if value is False or other is False:
            value = False
        elif value is not True or other is not True:
            value = None
    return pos, value


def _pp_unary(toks: list[str], pos: int) -> tuple[int, bool | None]:
    if pos < len(toks) and toks[pos] == "!":
        pos, value = _pp_unary(toks, pos + 1)
        return pos, None if value is None else not value
    if pos < len(toks) and toks[pos] == "(":
        pos, value = _pp_or(toks, pos + 1)
        if pos >= len(toks) or toks[pos] != ")":
            return len(toks), None
        pos += 1
        if pos < len(toks) and toks[pos] not in ("&&", "||", ")"):
            # `(1) + 2` and the like: a parenthesized group inside a larger operand.
            return _pp_skip_operand(toks, pos), None
        return pos, value
    end = _pp_skip_operand(toks, pos)
    operand = toks[pos:end]
    return end, _pp_literal(operand[0]) if len(operand) == 1 else None


def _pp_skip_operand(toks: list[str], pos: int) -> int:
    """The index after an operand that is not a literal: up to `&&`, `||` or an unmatched `)`."""
    depth = 0
    while pos < len(toks):
        tok = toks[pos]
        if depth == 0 and tok in ("&&", "||", ")"):
            break
        depth += (tok == "(") - (tok == ")")
        pos += 1
    return pos


def _pp_literal(tok: str) -> bool | None:
    if tok in ("false", "true"):
        return tok == "true"
    match = _PP_INT.fullmatch(tok)
    if match is None:
        return None
    digits = match.group(1).replace("'", "")
    # Zero in any base is all zeros after the base prefix; no need to parse the value.
    if digits[:2] in ("0x", "0X", "0b", "0B"):
        digits = digits[2:]
    return digits.strip("0") != ""


def _dead_if_bodies(text: str, spans: list[tuple[int, int]] | None = None) -> list[tuple[int, int]]:
    """Ranges of statements guarded by a constant false `if` (and `else` of a constant true one).

    Braces and parentheses are matched on stripped text, so literals and comments cannot unbalance
    them. Directive lines are skipped: an `if (0) {` inside a macro body has its braces elsewhere.
    When a brace or parenthesis does not balance, nothing is blanked: over-counting fails closed.
    """
    # `spans`: the directive lines, when the caller has them; else computed on first need.
    ranges: list[tuple[int, int]] = []
    covered = 0
    for match in _IF_CONSTANT.finditer(text):
        start = match.start()
        if start < covered or (start and _is_word(text[start - 1])):
            continue
        if spans is None:
            spans = [(d.start, d.end) for d in directives(text)]
        if _inside(spans, start):
            continue
        close = match_close(text, match.end() - 1)
        if close is None:
            continue
        value = pp_value(text[match.end() : close])
        if value is None:
            continue
        body = _statement(text, close + 1)
        if body is None:
            continue
        if value is False:
            ranges.append(body[:2])
            covered = body[2]
            continue
        other = _ELSE.match(text, body[2])
        if other is not None:
            dead = _statement(text, other.end())
            if dead is not None:
                ranges.append(dead[:2])
                covered = dead[2]
    return ranges


def _statement(text: str, pos: int) -> tuple[int, int, int] | None:
    """For the statement starting at `pos`: the range to blank (the inside of a `{...}` block, or
    a single statement up to, not including, its `;`) and the offset just after the statement."""
    pos = skip_space(text, pos)
    if pos < len(text) and text[pos] == "{":
        close = match_close(text, pos)
        return None if close is None else (pos + 1, close, close + 1)
    parens = braces = 0
    for match in _STATEMENT_PUNCT.finditer(text, pos):
        char = match.group()
        if char == "(":
            parens += 1
        elif char == ")":
            parens -= 1
        elif char == "{":
            braces += 1
        elif char == "}":
            braces -= 1
            if braces < 0:
                return None
            if braces == 0 and parens == 0:
                return (pos, match.end(), match.end())
        elif parens == 0 and braces == 0:
            return (pos, match.start(), match.end())
        if parens < 0:
            return None
    return None


def skip_space(text: str, pos: int) -> int:
    """The offset of the first non-whitespace character at or after `pos`."""
    match = _SPACE_AFTER.match(text, pos)
    return match.end() if match else pos


def _is_word(char: str) -> bool:
    return char.isalnum() or char in "_$"


def _inside(spans: list[tuple[int, int]], pos: int) -> bool:
    # Directive spans are few per file; a linear scan is cheaper than building an index.
    return any(start <= pos < end for start, end in spans)


def match_close(text: str, open_pos: int) -> int | None:
    """Offset of the bracket closing the `(`, `{` or `[` at `open_pos`; None if it never closes.

    Only brackets of the same kind are counted; run it on stripped text so that brackets inside
    literals and comments are already gone.
    """
    opener = text[open_pos]
    if opener == "(":
        # Fast path for argument lists nested at most three deep, matched inside the regex engine.
        shallow = _SHALLOW_PARENS.match(text, open_pos)
        if shallow is not None:
            return shallow.end() - 1
    depth = 0
    for match in _BRACKETS[opener].finditer(text, open_pos):
        depth += 1 if match.group() == opener else -1
        if depth == 0:
            return match.start()
    return None


def restore_literals(original: str, stripped: str, start: int, end: int) -> str:
    """`stripped[start:end]` with the original text of every literal put back in its place."""
    if stripped.find('"', start, end) < 0 and stripped.find("'", start, end) < 0:
        return stripped[start:end]  # no literal in the slice: the common case, no regex needed
    pieces: list[str] = []
    last = start
    for match in _PLACEHOLDER.finditer(stripped, start, end):
        begin = max(match.start() - _prefix_length(original, match.start()), last)
        literal = _LITERAL.match(original, begin)
        if literal is None:  # the texts do not correspond; keep the placeholder
            continue
        stop = min(literal.end(), end)
        pieces.append(stripped[last:begin])
        pieces.append(original[begin:stop])
        last = stop
    pieces.append(stripped[last:end])
    return "".join(pieces)


def literal_at(original: str, quote: int) -> str:
    """The literal of `original` whose opening quote is at `quote` (a placeholder offset), with its
    prefix; "" if there is none."""
    match = _LITERAL.match(original, quote - _prefix_length(original, quote))
    return match.group() if match else ""


def literal_content(literal: str) -> str:
    """The characters between the quotes of a string or character literal, escapes left as is."""
    raw = re.match(r"(?:u8|[uUL])?R\"([^()\\\s\"]{0,16})\(", literal)
    if raw is not None:
        body = literal[raw.end() :]
        tail = ")" + raw.group(1) + '"'
        return body[: -len(tail)] if body.endswith(tail) else body
    body = literal.lstrip("u8UL")
    if len(body) >= 2 and body[-1] == body[0]:
        return body[1:-1]
    return body[1:]


def tokens(text: str) -> list[str]:
    """The tokens of a C++ fragment: identifiers, numbers, literals, punctuation; comments,
    whitespace and line continuations dropped. Joined by single spaces they are a layout-free form.
    """
    if 'R"' in text or "/" in text or "\\" in text:
        return [
            tok
            for tok in (m.group() for m in _TOKEN.finditer(text))
            if not tok.startswith(("//", "/*", "\\\n", "\\\r"))
        ]
    # Most fragments have no raw string, comment or continuation: one findall, no filtering.
    return _PLAIN_TOKEN.findall(text)


def normalize(text: str) -> str:
    """A C++ fragment as its token stream joined by single spaces."""
    return " ".join(tokens(text))


# -- the text as the compiler reads it -------------------------------------------------------

# Digraphs and the alternative tokens, with what they are (red team round 12: `%:ifdef TEST`
# was no directive to any reader). `<::` is `<` then `::` unless `:` or `>` follows it.
_DIGRAPH = re.compile(r"%:%:|%:|<%|%>|:>|<:(?!:(?![:>]))")
_DIGRAPHS = {"%:%:": "##", "%:": "#", "<%": "{", "%>": "}", "<:": "[", ":>": "]"}
_ALTERNATIVE = re.compile(
    r"(?<![\w$])(?:and_eq|or_eq|xor_eq|not_eq|bitand|bitor|compl|and|or|xor|not)(?![\w$])"
)
_ALTERNATIVES = {
    "and": "&&",
    "or": "||",
    "not": "!",
    "not_eq": "!=",
    "and_eq": "&=",
    "or_eq": "|=",
    "xor": "^",
    "xor_eq": "^=",
    "bitand": "&",
    "bitor": "|",
    "compl": "~",
}
# The pragma operator with a plain string: `_Pragma("weak x")` is `#pragma weak x`.
_PRAGMA_OPERATOR = re.compile(r'(?<![\w$])_Pragma\s*\(\s*"((?:[^"\\\n]|\\.)*)"\s*\)')
_SPLICE = re.compile(r"\\\r?\n")


_MAYBE_DIGRAPH = re.compile(r"%:|<%|%>|:>|<:")


def digraphs_spelled(text: str) -> str:
    """The digraphs of `text` as the punctuators they are (`%:define` is `#define`), padded to
    their length: offsets and lines kept. For the census, which reads literals back from the
    text at the same offsets."""
    if not _MAYBE_DIGRAPH.search(text):
        return text
    return _DIGRAPH.sub(_padded(_DIGRAPHS), text)


def blank_comments(text: str) -> str:
    """Comments blanked, literals (raw strings too) and line breaks kept."""
    return _LEXEME.sub(lambda m: blank(m.group()) if m.group()[0] == "/" else m.group(), text)


def as_read(text: str) -> str:
    """The source as the compiler's first translation phases leave it, for the readers that
    search it for what code asks: lines spliced by a backslash joined (the joined line on its
    first line, the lines it took left empty after it), comments blanked (a raw string's `//`
    is no comment), digraphs and the alternative tokens spelled as the punctuators they are,
    and `_Pragma("x")` spelled `#pragma x`. Every line keeps its number and the text its
    length, so what a reader finds is reported where it is."""
    text = _spliced(_PRAGMA_OPERATOR.sub(_as_pragma, text))
    out: list[str] = []
    last = 0
    for match in _LEXEME.finditer(text):
        out.append(_code_read(text[last : match.start()]))
        lexeme = match.group()
        out.append(blank(lexeme) if lexeme[0] == "/" else lexeme)
        last = match.end()
    out.append(_code_read(text[last:]))
    return "".join(out)


def _code_read(code: str) -> str:
    return _ALTERNATIVE.sub(_padded(_ALTERNATIVES), _DIGRAPH.sub(_padded(_DIGRAPHS), code))


def _padded(table: dict[str, str]):
    """A replacement by `table`, padded with spaces to the length of what it replaces."""
    return lambda m: table[m.group()].ljust(len(m.group()))


def _as_pragma(match: re.Match[str]) -> str:
    return "#pragma " + match.group(1).ljust(len(match.group()) - 8)


def _spliced(text: str) -> str:
    """Backslash-newlines removed, each logical line's newlines moved to its end, and a space
    in place of each backslash at the end: line numbers and length kept."""
    if "\\\n" not in text and "\\\r\n" not in text:
        return text
    out: list[str] = []
    # A line break a backslash (or a backslash and a carriage return) does not escape.
    for logical in re.split(r"(?<!\\)(?<!\\\r)(\r?\n)", text):
        if not _SPLICE.search(logical):
            out.append(logical)
            continue
        breaks = [m.group() for m in _SPLICE.finditer(logical)]
        joined = _SPLICE.sub("", logical)
        spare = sum(len(b) for b in breaks) - sum(b.count("\n") for b in breaks)
        out.append(joined + " " * spare + "\n" * len(breaks))
    return "".join(out)
