"""What a C++ build was made of, read from the build tree it left: how each translation unit was
compiled, which files each one read, and how ctest was told to run the tests.

    graph = read_graph(build_dir, tree)      # after configure and build, before the tests run

The patched build must be made as the SHA's: every translation unit both builds compile is
compiled with the same definitions and flags, and (unless the patch edited test infrastructure)
every CTestTestfile ctest reads says the same. A patch that gives the test build other flags, or
has ctest include a script of its own (`TEST_INCLUDE_FILES`), changed how the tests run, whatever
its CMake spells. The files the compiles read (ninja's dependency log, the compiler's depfiles)
say which of the patch's files the build loaded.

Paths are written relative to the tree and the build (`$TREE`, `$BUILD`), so two builds of the
same commit in two places compare equal. Pure but for `read_graph`.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from patchwitness.runner import run_tool

TREE, BUILD = "$TREE", "$BUILD"
# Flags that name what is built and where, not how: not part of a compile's identity.
_OUTPUT_FLAGS = {"-o", "-MF", "-MT", "-MQ"}
_BARE_FLAGS = {"-c", "-MD", "-MMD"}
_BACKTRACE = re.compile(r'\s*_BACKTRACE_TRIPLES\s+"[^"]*"')


@dataclass(frozen=True)
class BuildGraph:
    compiles: dict[str, str] = field(default_factory=dict)  # source -> its normalized flags
    # source -> the files its compile read: tree-relative, or absolute when outside the tree
    reads: dict[str, tuple[str, ...]] = field(default_factory=dict)
    ctest: dict[str, str] = field(default_factory=dict)  # CTestTestfile -> digest of its text

    def to_json(self) -> dict:
        return {
            "compiles": self.compiles,
            "reads": {k: list(v) for k, v in self.reads.items()},
            "ctest": self.ctest,
        }

    @classmethod
    def from_json(cls, data: dict | None) -> BuildGraph | None:
        if data is None:
            return None
        return cls(
            compiles=dict(data.get("compiles", {})),
            reads={k: tuple(v) for k, v in data.get("reads", {}).items()},
            ctest=dict(data.get("ctest", {})),
        )

    def loaded(self) -> frozenset[str]:
        """Every tree file a compile read (its own source included)."""
        inside = {f for files in self.reads.values() for f in files if not f.startswith("/")}
        return frozenset(inside | set(self.compiles))

    def read_by(self, sources: frozenset[str] | set[str]) -> set[str]:
        """The files the compiles of `sources` read."""
        return {f for source in sources for f in self.reads.get(source, ())}

    def test_only(self, tests: frozenset[str]) -> set[str]:
        """Files only the test translation units read: the test framework's headers, and the
        tests' own helpers."""
        production = {s for s in self.reads if s not in tests}
        return self.read_by({s for s in self.reads if s in tests}) - self.read_by(production)

    def standards(self, sources: frozenset[str] | set[str]) -> set[str]:
        """The `-std=` of the compiles of `sources` ('' where none is given)."""
        found = set()
        for source in sources:
            flags = self.compiles.get(source)
            if flags is None:
                continue
            given = [f[5:] for f in flags.split() if f.startswith("-std=")]
            found.add(given[-1] if given else "")
        return found


def normalize(text: str, tree: Path, build: Path) -> str:
    """Paths of this tree and this build replaced by `$TREE` and `$BUILD`."""
    return text.replace(str(build), BUILD).replace(str(tree), TREE)


def compile_flags(command: str | list[str], source: str) -> str:
    """A compile's identity: its flags, without the compiler, the source and the outputs."""
    argv = shlex.split(command) if isinstance(command, str) else list(command)
    return " ".join(compile_args(argv[1:], source))


def compile_args(args: list[str], source: str) -> list[str]:
    """A compile's arguments (the compiler's name left out) without the source and the
    outputs."""
    out: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg in _OUTPUT_FLAGS:
            skip = True
            continue
        if arg in _BARE_FLAGS or arg == source or (arg.startswith(("-o", "-MF")) and len(arg) > 3):
            continue
        out.append(arg)
    return out


def parse_compile_commands(text: str, tree: Path, build: Path) -> dict[str, str]:
    try:
        entries = json.loads(text)
    except ValueError:
        return {}
    out: dict[str, str] = {}
    root = str(tree).rstrip("/") + "/"
    for entry in entries if isinstance(entries, list) else []:
        file = str(entry.get("file", ""))
        if not file.startswith(root):
            continue
        command = entry.get("command") or entry.get("arguments") or ""
        flags = compile_flags(command, file)
        out[file[len(root) :]] = normalize(flags, tree, build)
    return out


def parse_deps(text: str, tree: Path) -> dict[str, tuple[str, ...]]:
    """`ninja -t deps`: an object's line, then its dependencies indented, its source first.
    source -> the other files it read (tree-relative, or absolute outside the tree)."""
    root = str(tree).rstrip("/") + "/"
    reads: dict[str, set[str]] = {}
    source: str | None = None
    fresh = False
    for line in text.splitlines():
        if line and not line[0].isspace():
            source, fresh = None, True  # a new object
            continue
        path = line.strip()
        if not path:
            continue
        shown = path[len(root) :] if path.startswith(root) else path
        if fresh:
            fresh = False
            source = shown if path.startswith(root) else None
            if source is not None:
                reads.setdefault(source, set())
        elif source is not None:
            reads[source].add(shown)
    return {k: tuple(sorted(v)) for k, v in reads.items()}


def ctest_digest(text: str, tree: Path, build: Path) -> str:
    """What a CTestTestfile tells ctest, without its comments and the CMake line numbers of
    each test (a line added above an add_test moves them, and nothing else)."""
    lines = [
        _BACKTRACE.sub("", normalize(line, tree, build))
        for line in text.splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]


def dependency_log(build: Path) -> str | None:
    """`ninja -t deps` of a build tree; None when it has no log or ninja cannot read it."""
    if not (build / ".ninja_deps").exists():
        return None
    try:
        done = run_tool(["ninja", "-C", str(build), "-t", "deps"], cwd=build, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.decode("utf-8", "replace") if done.returncode == 0 else None


def read_graph(build: Path, tree: Path) -> BuildGraph:
    """The graph of a configured and built tree (empty parts where the build has none)."""
    try:
        commands = (build / "compile_commands.json").read_text()
    except OSError:
        commands = "[]"
    compiles = parse_compile_commands(commands, tree, build)
    log = dependency_log(build)
    reads = parse_deps(log, tree) if log is not None else {}
    ctest = {}
    for path in sorted(build.rglob("CTestTestfile.cmake")):
        try:
            text = path.read_text(errors="replace")
        except OSError:
            continue
        ctest[str(path.relative_to(build))] = ctest_digest(text, tree, build)
    return BuildGraph(compiles=compiles, reads=reads, ctest=ctest)


def changes(
    before: BuildGraph | None,
    after: BuildGraph | None,
    test_edit: bool,
    tests: frozenset[str] = frozenset(),
) -> list[str]:
    """How the patched build was made otherwise than the SHA's. Every production translation
    unit both builds compile must compile alike; so must the tests' and the CTestTestfiles,
    unless the patch edited tests or their infrastructure (those edits are judged as such)."""
    if before is None or after is None:
        return []
    out = [
        f"{source} is compiled with other flags: {before.compiles[source]!r} -> {flags!r}"
        for source, flags in sorted(after.compiles.items())
        if source in before.compiles
        and before.compiles[source] != flags
        and not (test_edit and source in tests)
    ]
    if not test_edit:
        for name in sorted(set(before.ctest) | set(after.ctest)):
            if before.ctest.get(name) != after.ctest.get(name):
                out.append(f"ctest reads {name} otherwise than at the SHA")
    return out
