"""The names the includes of a build's files spell: which added or removed files could change
what an include resolves to.

An include finds a file by the path it spells (`<gsl/narrow>`, `"detail/x.hpp"`), searched
along the include path. A file that appears or disappears changes what an include resolves to
only if the include's path ends with that file's name, or passes through it (a directory, a
symlink to one): one of the path's components is the file's name. So the components spelled by
every `#include`, `#include_next`, `#import`, `__has_include` and header-unit `import` of every
file a build read say which added or removed files that build could have missed (warm.py): a
file whose name no include spells is found by none. An include spelled by a macro
(`#include HEADER`) could be any name: the answer is then "unknown" (None), and every file
counts.

Pure: texts in, names out.
"""

from __future__ import annotations

import re

from patchwitness.census.cpp_lexer import as_read

# A directive's name, then what it names; `as_read` has spliced lines, blanked comments and
# spelled digraphs, so a directive is a `#` at the start of a line.
_DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*(?:include_next|include|import)\b[ \t]*(.?)(.*)$", re.M)
_HAS_INCLUDE = re.compile(r"__has_include(?:_next)?\s*\(\s*(.?)([^)\n]*)")
# A C++20 header unit (`import <vector>;`, `export import "x.h";`) is found as an include is.
_HEADER_UNIT = re.compile(r"^[ \t]*(?:export[ \t]+)?import[ \t]*([<\"])(.*)$", re.M)
_CLOSE = {"<": ">", '"': '"'}


def spelled(text: str) -> set[str] | None:
    """Every path component an include of `text` spells; None when one is spelled by a macro."""
    if "include" not in text and "import" not in text:
        return set()
    read = as_read(text)
    names: set[str] = set()
    readers = (_DIRECTIVE, _HAS_INCLUDE, _HEADER_UNIT)
    for found in (m for reader in readers for m in reader.finditer(read)):
        opening, rest = found.group(1), found.group(2)
        close = _CLOSE.get(opening)
        if close is None or close not in rest:
            return None  # a macro, or nothing this reading understands
        path = rest[: rest.index(close)]
        names.update(part for part in path.replace("\\", "/").split("/") if part)
    return names


def could_be_found(names: set[str] | None, path: str) -> bool:
    """Whether an include spelling one of `names` could resolve to `path` or through it."""
    return names is None or path.rstrip("/").rsplit("/", 1)[-1] in names
