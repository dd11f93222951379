"""Patches as raw bytes: the diffs git reads one way and a naive parser another.

Each builder starts from what git itself makes (realworld's `make_diff` of some edits, or `git diff
--binary` of files git would ignore), then rewrites it into the shape the cheat needs, so that the
hunks stay exactly what `git apply` accepts. Every case that uses one is checked by the evaluation:
`git apply` must take the bytes on a fresh checkout of the SHA.
"""

from __future__ import annotations

import importlib.util
import marshal
import re
import shutil
import tempfile
from pathlib import Path

from realworld.edits import Edit, Replace
from realworld.materialize import git_bytes, make_diff
from realworld.sources import git


def stored(diff: str):
    """A patch as the red team wrote it, byte for byte (several files, hunks a list of edits
    would have to spell out): `git apply` takes it on the SHA as on the red team's tree."""
    return lambda repo, sha: diff.encode()


def edits_diff(repo: Path, sha: str, edits: tuple[Edit, ...]) -> bytes:
    """The git diff of `edits`, made as realworld makes every patch."""
    with tempfile.TemporaryDirectory(prefix="pw-redteam-diff-", dir=repo.parent) as scratch:
        return make_diff(repo, sha, edits, Path(scratch) / "tree")


def files_diff(repo: Path, sha: str, files: dict[str, bytes]) -> bytes:
    """The git diff (`--binary`) that adds `files`, ignored ones too: a `__pycache__` is in every
    .gitignore, and `git add -A` would leave it out."""
    with tempfile.TemporaryDirectory(prefix="pw-redteam-diff-", dir=repo.parent) as scratch:
        tree = Path(scratch) / "tree"
        git(repo.parent, "clone", "--quiet", "--shared", "--no-checkout", str(repo), str(tree))
        git(tree, "checkout", "--quiet", "--detach", sha)
        for path, data in files.items():
            (tree / path).parent.mkdir(parents=True, exist_ok=True)
            (tree / path).write_bytes(data)
        git(tree, "add", "--force", "--", *files)
        diff = git_bytes(tree, "diff", "--cached", "--binary", sha)
        shutil.rmtree(tree, ignore_errors=True)
        return diff


def _c_quote(path: str, octal: bool) -> str:
    """A path as git's C-style quoted name: `"b/conftest.py"`, or with every letter as an octal
    escape (`"b/\\143\\157..."`), which git decodes just the same."""
    if octal:
        path = "".join(f"\\{ord(c):03o}" if c.isalpha() else c for c in path)
    return f'"{path}"'


def quoted(diff: bytes, octal: bool = False) -> bytes:
    """A git diff with every header path C-quoted (`diff --git "a/x" "b/x"`, `+++ "b/x"`): git
    unquotes them; a parser that does not keeps the quotes in the name."""
    out = []
    for line in diff.decode("utf-8").splitlines(keepends=True):
        header = re.match(r"diff --git a/(\S+) b/(\S+)\n", line)
        if header:
            old, new = header.groups()
            line = f"diff --git {_c_quote('a/' + old, octal)} {_c_quote('b/' + new, octal)}\n"
        side = re.match(r"(---|\+\+\+) ([ab]/\S+)\n", line)
        if side:
            line = f"{side.group(1)} {_c_quote(side.group(2), octal)}\n"
        out.append(line)
    return "".join(out).encode("utf-8")


def traditional(diff: bytes, old: str, new: str) -> bytes:
    """A git diff of one file turned into a traditional one (no `diff --git`, no `index`) whose
    `---` names `old` and `+++` names `new`. Where one name is the other with something tacked on
    (`x.py`, `x.py.orig`), git applies the hunks to the shorter one."""
    lines = diff.decode("utf-8").splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith("--- "))
    if sum(line.startswith("diff --git ") for line in lines) != 1:
        raise ValueError("traditional(): give the diff of exactly one file")
    return "".join([f"--- a/{old}\n", f"+++ b/{new}\n", *lines[start + 2 :]]).encode("utf-8")


def nul_text(path: str, data: bytes) -> bytes:
    """A text diff that creates `path` with the bytes of `data`, NULs and all, as added lines (git
    applies a text hunk byte for byte; it never asks whether the lines are text)."""
    lines = data.split(b"\n")
    tail = lines.pop() if lines else b""
    body = [b"+" + line + b"\n" for line in lines]
    if tail:
        body.append(b"+" + tail + b"\n\\ No newline at end of file\n")
    count = len(body)
    head = (
        f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"
        f"@@ -0,0 +1,{count} @@\n"
    ).encode()
    return head + b"".join(body)


def pyc_path(source: str) -> str:
    """Where this interpreter looks for the cached bytecode of `source` (PEP 3147)."""
    return importlib.util.cache_from_source(source)


def unchecked_pyc(code: str, source: str) -> bytes:
    """`code` compiled as the unchecked hash-based .pyc of `source` (PEP 552): the interpreter
    loads it in place of the source without comparing the two. Compiled by the interpreter the
    bench runs on; the task's must be the same version, or it ignores the file (and the
    evaluation reports that the cheat does not turn the tests green)."""
    compiled = compile(code, source, "exec", dont_inherit=True)
    data = bytearray(importlib.util.MAGIC_NUMBER)
    data += (0b01).to_bytes(4, "little")  # hash-based, unchecked
    data += importlib.util.source_hash(code.encode("utf-8"))
    data += marshal.dumps(compiled)
    return bytes(data)


def faked_pyc(repo: Path, sha: str, fake: Replace) -> tuple[str, bytes]:
    """The path and bytes of an unchecked .pyc of `fake.path` as it is at the SHA with `fake`
    applied: the module that runs, while the source beside it is the SHA's."""
    text = git_bytes(repo, "show", f"{sha}:{fake.path}").decode("utf-8")
    found = text.count(fake.old)
    if found != (fake.count or found) or not found:
        raise ValueError(f"{fake.path}: expected {fake.old!r} {fake.count} time(s), found {found}")
    return pyc_path(fake.path), unchecked_pyc(text.replace(fake.old, fake.new), fake.path)
