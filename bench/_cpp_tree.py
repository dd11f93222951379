"""A generated C++ tree for the census benchmark: deterministic, realistic in its mix, cached.

Mostly production sources and headers (functions, classes, doc comments, string literals, raw
strings, `#if 0` blocks, some `assert(`, `static_assert` and glog-style `CHECK(`), a few percent
GoogleTest files (TEST, TEST_F, ASSERT_*, EXPECT_*, some GOLDEN_*) and Catch2 files (TEST_CASE,
SECTION, REQUIRE, CHECK), one CMakeLists.txt per component, and vendored trees (`third_party/`,
`build/`) full of test macros that the census must skip. Comments and literals mention macro
names on purpose: ripgrep counts them, the census must not.

The tree is written once per parameter set; a marker file written last records the parameters,
so a later run with the same parameters reuses it and an interrupted generation is redone.
"""

from __future__ import annotations

import json
import os
import random
import shutil
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

GEN_VERSION = 3
MARKER = ".pw-bench-tree.json"

WORDS = [
    "alpha",
    "account",
    "buffer",
    "cache",
    "channel",
    "client",
    "codec",
    "config",
    "cursor",
    "decode",
    "delta",
    "digest",
    "encode",
    "entry",
    "event",
    "filter",
    "frame",
    "graph",
    "handle",
    "index",
    "item",
    "journal",
    "kernel",
    "layout",
    "ledger",
    "lookup",
    "merge",
    "metric",
    "node",
    "offset",
    "packet",
    "page",
    "parse",
    "peer",
    "pixel",
    "policy",
    "pool",
    "quota",
    "range",
    "reader",
    "record",
    "region",
    "replica",
    "route",
    "sample",
    "schema",
    "segment",
    "session",
    "shard",
    "signal",
    "socket",
    "span",
    "stream",
    "table",
    "tensor",
    "ticket",
    "token",
    "trace",
    "tree",
    "update",
    "value",
    "vector",
    "version",
    "view",
    "window",
    "worker",
    "writer",
    "zone",
]
TYPES = ("int", "int64_t", "size_t", "double", "bool", "uint32_t", "float")


@dataclass(frozen=True)
class TreeSpec:
    files: int = 21_000  # files the census reads (sources, headers, CMakeLists.txt)
    total_mb: float = 210.0  # their total size
    vendored_files: int = 1_600  # extra files under third_party/ and build/ (skipped)
    vendored_mb: float = 16.0
    gtest_share: float = 0.04
    catch2_share: float = 0.01
    seed: int = 20260101


QUICK = TreeSpec(files=640, total_mb=4.0, vendored_files=60, vendored_mb=0.4)


@dataclass
class TreeInfo:
    spec: TreeSpec
    root: Path
    scanned_files: int
    scanned_bytes: int
    vendored_files: int
    vendored_bytes: int
    gtest_files: int
    catch2_files: int
    reused: bool = False


class _Gen:
    """Text pieces drawn from one seeded random stream."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def word(self) -> str:
        return self.rng.choice(WORDS)

    def ident(self) -> str:
        r = self.rng
        return f"{r.choice(WORDS)}_{r.choice(WORDS)}{r.randrange(100)}"

    def camel(self) -> str:
        r = self.rng
        return f"{r.choice(WORDS).title()}{r.choice(WORDS).title()}{r.randrange(100)}"

    def comment_block(self) -> str:
        r = self.rng
        lines = [f"// {' '.join(r.choice(WORDS) for _ in range(r.randint(6, 12)))}."]
        for _ in range(r.randint(0, 3)):
            lines.append(f"// {' '.join(r.choice(WORDS) for _ in range(r.randint(5, 11)))}")
        if r.random() < 0.15:  # a macro name in a comment: rg sees it, the census must not
            lines.append(f"// Callers used to ASSERT_TRUE({self.ident()}) here; see EXPECT_EQ.")
        return "\n".join(lines) + "\n"

    def doc_block(self) -> str:
        r = self.rng
        body = "\n".join(
            f" * {' '.join(r.choice(WORDS) for _ in range(r.randint(6, 12)))}"
            for _ in range(r.randint(2, 6))
        )
        extra = " *   assert(ptr != nullptr);  // illustrative\n" if r.random() < 0.1 else ""
        return f"/**\n{body}\n{extra} */\n"

    def statement(self, depth: int = 1) -> str:
        r = self.rng
        pad = "  " * depth
        a, b = self.ident(), self.ident()
        pick = r.random()
        if pick < 0.25:
            return f"{pad}{r.choice(TYPES)} {a} = {b} * {r.randrange(1, 64)} + {r.randrange(9)};\n"
        if pick < 0.40:
            return (
                f"{pad}if ({a} > {r.randrange(1000)}) {{\n"
                f"{pad}  {b} += {a} / {r.randrange(1, 17)};\n{pad}}}\n"
            )
        if pick < 0.52:
            return (
                f"{pad}for (size_t i = 0; i < {a}.size(); ++i) {{\n"
                f"{pad}  {b}[i] = {a}[i] ^ 0x{r.randrange(4096):x};\n{pad}}}\n"
            )
        if pick < 0.64:  # a string literal that names an assertion macro
            return f'{pad}LOG(INFO) << "EXPECT_EQ({a}) mismatch for {r.choice(WORDS)}: " << {b};\n'
        if pick < 0.72:
            return f'{pad}std::string {a} = "{" ".join(r.choice(WORDS) for _ in range(5))}";\n'
        if pick < 0.735:
            return f"{pad}assert({a} != nullptr && {b} >= 0);\n"
        if pick < 0.75:
            return f"{pad}CHECK({a}.ok()) << {b};\n"
        if pick < 0.77:
            return f'{pad}auto {a} = R"json({{"ASSERT_EQ": [{r.randrange(99)}], "k": 1}})json";\n'
        if pick < 0.90:
            return f"{pad}{a}.{r.choice(WORDS)}({b}, {r.randrange(256)});\n"
        return f"{pad}// {' '.join(r.choice(WORDS) for _ in range(r.randint(4, 10)))}\n"

    def function(self) -> str:
        r = self.rng
        body = "".join(self.statement() for _ in range(r.randint(4, 14)))
        name = self.camel()
        ret = r.choice(TYPES)
        head = self.comment_block() if r.random() < 0.7 else ""
        return (
            f"{head}{ret} {name}(const std::vector<{r.choice(TYPES)}>& {self.ident()}, "
            f"int {self.ident()}) {{\n{body}  return {ret}{{}};\n}}\n\n"
        )

    def dead_block(self) -> str:
        return f"#if 0\n  assert({self.ident()} == {self.rng.randrange(9)});\n#endif\n"

    def class_decl(self) -> str:
        r = self.rng
        name = self.camel()
        members = "".join(
            f"  {r.choice(TYPES)} {self.ident()}(int {self.ident()}) const;\n"
            for _ in range(r.randint(3, 9))
        )
        fields = "".join(
            f"  {r.choice(TYPES)} {self.ident()}_ = 0;\n" for _ in range(r.randint(2, 6))
        )
        check = (
            f'static_assert(sizeof({r.choice(TYPES)}) <= {r.choice((4, 8))}, "{name} layout");\n'
            if r.random() < 0.2
            else ""
        )
        return (
            f"{self.doc_block()}class {name} {{\n public:\n  explicit {name}(int n);\n"
            f"{members}\n private:\n{fields}}};\n{check}\n"
        )

    def assertion(self) -> str:
        r = self.rng
        a, b = self.ident(), self.ident()
        macro = r.choice(
            ("ASSERT_EQ", "EXPECT_EQ", "EXPECT_NE", "ASSERT_TRUE", "EXPECT_TRUE", "EXPECT_LT")
        )
        if macro.endswith("TRUE"):
            return f"  {macro}({a}.{r.choice(WORDS)}());\n"
        if r.random() < 0.1:  # a multi-line assertion with nested parentheses
            return f"  {macro}({a}(\n                {b}, {r.randrange(99)}),\n            {b});\n"
        return f"  {macro}({a}, {b} + {r.randrange(100)});\n"

    def gtest_case(self, suite: str, fixture: bool, golden: bool) -> str:
        r = self.rng
        lines = [self.statement() for _ in range(r.randint(1, 4))]
        lines += [self.assertion() for _ in range(r.randint(2, 9))]
        if golden and r.random() < 0.5:
            lines.append(f'  GOLDEN_EXPECT_MATCH({self.ident()}, "{self.word()}.golden");\n')
        if r.random() < 0.08:
            lines.append(f"  // EXPECT_EQ({self.ident()}, 0);  disabled while flaky\n")
        r.shuffle(lines)
        macro = "TEST_F" if fixture else "TEST"
        return f"{macro}({suite}, {self.camel()}) {{\n{''.join(lines)}}}\n\n"

    def catch_case(self) -> str:
        r = self.rng
        sections = ""
        for _ in range(r.randint(1, 3)):
            body = "".join(
                f"    {r.choice(('REQUIRE', 'CHECK', 'REQUIRE_FALSE', 'CHECK_THAT'))}"
                f"({self.ident()} == {r.randrange(50)});\n"
                for _ in range(r.randint(2, 6))
            )
            sections += f'  SECTION("{self.word()} {self.word()}") {{\n{body}  }}\n'
        return (
            f'TEST_CASE("{self.word()} {self.word()} {r.randrange(999)}", "[{self.word()}]") {{\n'
            f"  auto {self.ident()} = Make{self.camel()}();\n{sections}}}\n\n"
        )


def _fill(parts: list[str], size: int, piece: Callable[[], str]) -> None:
    total = sum(len(p) for p in parts)
    while total < size:
        text = piece()
        parts.append(text)
        total += len(text)


def _production(g: _Gen, name: str, header: bool, size: int) -> str:
    r = g.rng
    guard = f"{name.upper().replace('.', '_').replace('/', '_')}_"
    parts = [
        "// Copyright 2026 The Example Authors. All rights reserved.\n"
        "// Use of this source code is governed by a BSD-style license.\n\n"
    ]
    if header:
        parts.append(f"#ifndef {guard}\n#define {guard}\n\n")
    parts.append(
        "".join(f'#include "{g.word()}/{g.word()}.h"\n' for _ in range(r.randint(2, 8)))
        + "#include <vector>\n#include <string>\n\nnamespace example {\n\n"
    )

    def piece() -> str:
        pick = r.random()
        if pick < 0.03:
            return g.dead_block()
        if (header and pick < 0.45) or pick < 0.15:
            return g.class_decl()
        return g.function()

    _fill(parts, size, piece)
    parts.append("}  // namespace example\n")
    if header:
        parts.append(f"\n#endif  // {guard}\n")
    return "".join(parts)


def _gtest(g: _Gen, size: int, golden: bool) -> str:
    r = g.rng
    suite = f"{g.camel()}Test"
    parts = [
        '#include <gtest/gtest.h>\n\n#include "example/lib.h"\n\n',
        f"class {suite} : public ::testing::Test {{\n protected:\n"
        f"  void SetUp() override {{ {g.ident()} = 1; }}\n}};\n\n",
    ]
    if golden:
        parts.append("#define GOLDEN_EXPECT_MATCH(value, file) EXPECT_EQ(value, Load(file))\n\n")

    def piece() -> str:
        if r.random() < 0.15:
            return g.function()
        return g.gtest_case(suite, r.random() < 0.5, golden)

    _fill(parts, size, piece)
    return "".join(parts)


def _catch2(g: _Gen, size: int) -> str:
    parts = ['#include <catch2/catch_test_macros.hpp>\n\n#include "example/lib.h"\n\n']
    _fill(parts, size, g.catch_case)
    return "".join(parts)


def _cmake(component: str, sources: list[str], tests: list[str]) -> str:
    lines = [f"add_library({component}\n" + "".join(f"  {s}\n" for s in sources) + ")\n"]
    for test in tests:
        target = Path(test).stem
        lines.append(
            f"add_executable({target} {test})\n"
            f"target_link_libraries({target} {component} GTest::gtest_main)\n"
            f"gtest_discover_tests({target})\n"
        )
    return "".join(lines)


def _sizes(rng: random.Random, count: int, total: int) -> list[int]:
    raw = [rng.lognormvariate(0.0, 0.8) for _ in range(count)]
    scale = total / sum(raw)
    return [max(400, int(x * scale)) for x in raw]


def _write(root: Path, rel: str, text: str) -> int:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    data = text.encode()
    path.write_bytes(data)
    return len(data)


def read_marker(root: Path) -> dict | None:
    try:
        return json.loads((root / MARKER).read_text())
    except (OSError, ValueError):
        return None


def ensure_tree(root: Path, spec: TreeSpec, log: Callable[[str], object] = print) -> TreeInfo:
    """The tree for `spec` at `root`: reused when its marker matches, else (re)generated."""
    wanted = {"version": GEN_VERSION, "spec": asdict(spec)}
    marker = read_marker(root)
    if marker is not None and {k: marker.get(k) for k in wanted} == wanted:
        info = TreeInfo(spec=spec, root=root, **marker["info"])
        info.reused = True
        return info
    if root.exists() and any(root.iterdir()):
        if marker is None:
            raise SystemExit(
                f"{root} exists, is not empty and is not a benchmark tree; not touching it"
            )
        shutil.rmtree(root)
    root.mkdir(parents=True, exist_ok=True)
    log(f"   generating {spec.files:,} files / {spec.total_mb:.0f} MB (+ vendored) in {root} ...")
    info = _generate(root, spec)
    os.sync()  # clean pages only, so page-cache eviction can work on them afterwards
    fields = asdict(info)
    for name in ("spec", "root", "reused"):
        fields.pop(name)
    (root / MARKER).write_text(json.dumps({**wanted, "info": fields}, indent=1))
    return info


def _generate(root: Path, spec: TreeSpec) -> TreeInfo:
    rng = random.Random(spec.seed)
    g = _Gen(rng)
    per_component = 50
    components = max(1, spec.files // (per_component + 1))
    budget = spec.files - components  # one CMakeLists.txt per component
    sizes = _sizes(rng, budget, int(spec.total_mb * 1e6) - components * 600)
    scanned = gtest = catch2 = 0
    written = 0
    index = 0
    for c in range(components):
        component = f"{rng.choice(WORDS)}_{c:04d}"
        base = f"src/{component}"
        count = per_component if c < components - 1 else budget - index
        sources: list[str] = []
        tests: list[str] = []
        for k in range(count):
            size = sizes[index]
            index += 1
            pick = rng.random()
            if pick < spec.gtest_share:
                rel = f"{base}/tests/{g.word()}_{k}_test.cc"
                text = _gtest(g, size, golden=rng.random() < 0.15)
                tests.append(rel[len(base) + 1 :])
                gtest += 1
            elif pick < spec.gtest_share + spec.catch2_share:
                rel = f"{base}/tests/{g.word()}_{k}_catch.cpp"
                text = _catch2(g, size)
                tests.append(rel[len(base) + 1 :])
                catch2 += 1
            else:
                header = rng.random() < 0.38
                ext = (
                    (".h" if header else ".cc")
                    if rng.random() < 0.93
                    else (".hpp" if header else ".cpp")
                )
                sub = rng.choice(("", "internal/", "detail/", "impl/"))
                rel = f"{base}/{sub}{g.word()}_{k}{ext}"
                text = _production(g, rel, header, size)
                if not header:
                    sources.append(rel[len(base) + 1 :])
            written += _write(root, rel, text)
            scanned += 1
        written += _write(root, f"{base}/CMakeLists.txt", _cmake(component, sources, tests))
        scanned += 1
    vendored_bytes = 0
    v_sizes = _sizes(rng, spec.vendored_files, int(spec.vendored_mb * 1e6))
    for k, size in enumerate(v_sizes):
        if k % 3 == 2:
            rel = f"build/gen/{g.word()}/{g.word()}_{k}.pb.cc"
            text = _production(g, rel, False, size)
        elif k % 3 == 1:
            rel = f"third_party/googletest/googletest/test/{g.word()}_{k}_test.cc"
            text = _gtest(g, size, golden=False)
        else:
            rel = f"third_party/abseil/absl/{g.word()}/{g.word()}_{k}.h"
            text = _production(g, rel, True, size)
        vendored_bytes += _write(root, rel, text)
    return TreeInfo(
        spec=spec,
        root=root,
        scanned_files=scanned,
        scanned_bytes=written,
        vendored_files=spec.vendored_files,
        vendored_bytes=vendored_bytes,
        gtest_files=gtest,
        catch2_files=catch2,
    )
