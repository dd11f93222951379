"""Coverage on the hunk (issue 4, last bullets): patchwitness's coverage gate against diff-cover.

Peer: diff-cover, run on the same repository and patch the way a project wires it into CI: a git
checkout with the patch committed on a branch, the tests run once under coverage (coverage.py
`coverage run --source=.` for Python; a `--coverage` CMake build and serial ctest for C++, with the
same pinned flags the grader uses), the report converted to Cobertura XML (`coverage xml`,
`gcovr --xml`), then `diff-cover XML --compare-branch BASE --format json:OUT`. Its violation lines
are the peer's zero-hit patched lines.

For each input this prints
  (a) patchwitness's zero-hit lines (`gates.coverage.facts.zero_hit_lines` of a default `grade`,
      with the 50-line cap lifted in-process so whole sets are compared) and its phases;
  (b) the agreement of the two zero-hit sets (both / only patchwitness / only diff-cover) with the
      cause of every disagreement, the added code lines that neither side scores (a Python
      continuation line of a statement that never ran is flagged MISSED), and the time ratio of
      the coverage phase, of the instrumented run plus the coverage phase, and of the whole grade
      (cached baseline) to the peer pipeline;
  (c) "one run, not two": patchwitness takes outcomes and hits from one instrumented run. The
      saving is measured against running the suite plainly and then again under coverage, both
      through the grader's own runner on the patched tree: instrumented / (plain + instrumented).

Inputs, all built in temporary directories:
  * the demo shop (`patchwitness.demo`) with its blind-rewrite patch to checkout-coupon-tax;
  * a generated Python repository: same-basename modules in three packages (one added by the
    patch), many rewritten lines, a pure deletion, a `# pragma: no cover` added by the patch, and a
    suite of about 2,000 tests (40 files x 50; --quick: 4 x 10);
  * a generated CMake C++ repository: a library with a function no test calls, header inline
    functions (one unused), templates (one never instantiated), same-basename sources in
    different folders, a pure deletion, and exclusion markers (LCOV_EXCL_LINE, GCOVR_EXCL_START)
    added by the patch (8 modules; --quick: 2).

The patchwitness grades run with the sandbox the CLI would pick (`--sandbox`); the peer runs
unconfined, as it would in CI. No timing is asserted anywhere.

    .venv/bin/python bench/coverage_vs_diffcover.py [--quick] [--reps N] [--no-cpp]
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import coverage as coverage_py
from _common import (
    Cost,
    heading,
    line,
    load_note,
    median,
    median_cost,
    print_ratio,
    private_cache,
    sandbox_runner,
    secs,
    seen_cost,
    timed,
)
from coverage.python import PythonParser

from patchwitness import environment
from patchwitness.api import grade
from patchwitness.demo import build, shop
from patchwitness.demo.run import build_demo
from patchwitness.gates import coverage as coverage_gate
from patchwitness.hits import hunk
from patchwitness.model import CoverageFacts, Verdict
from patchwitness.patch import FileChange, parse_patch
from patchwitness.phases.prepare import make_suite
from patchwitness.runner import Runner
from patchwitness.settings import Settings
from patchwitness.suites import SuiteRun
from patchwitness.task import DEFAULT_COVERAGE_FLAGS, Task, load_task
from patchwitness.workspace import Workspace

PY_SETUP = shop.SETUP
CASES = ("demo", "python", "cpp")
DIFF_COVER = Path(sys.executable).parent / "diff-cover"
GCOVR = Path(sys.executable).parent / "gcovr"
BASE_BRANCH = "pw-base"
PATCH_BRANCH = "pw-patched"
GIT_ENV = {**build.GIT_ENV, "HOME": tempfile.gettempdir()}
PY_MARKER = re.compile(r"#\s*pragma:\s*no\s*cover", re.I)
CPP_LINE_MARKER = re.compile(r"(LCOV|GCOVR)_EXCL_LINE")
CPP_START = re.compile(r"(LCOV|GCOVR)_EXCL_START")
CPP_STOP = re.compile(r"(LCOV|GCOVR)_EXCL_STOP")


# -- inputs -----------------------------------------------------------------------------------


@dataclass
class Case:
    name: str
    language: str
    task_dir: Path
    patch: Path
    files: dict[str, str] = field(default_factory=dict)  # the repository at the SHA
    tests: int = 0

    @property
    def task(self) -> Task:
        return load_task(self.task_dir)


def demo_case(root: Path) -> Case:
    bag = build_demo(root / "demo", language="python")
    job = next(
        j
        for j in bag.jobs
        if j.agent == "blind-rewriter" and j.task_dir.name == "checkout-coupon-tax"
    )
    assert job.patch is not None
    return Case(
        "python demo: checkout-coupon-tax / blind-rewriter",
        "python",
        job.task_dir,
        job.patch,
        dict(shop.FILES),
    )


# A generated Python repository. `ops` modules have the same basename (util.py) in pkg/alpha and
# pkg/beta (and pkg/gamma, which the patch adds and nothing imports). Every alpha op is tested,
# only the even beta ops are. The patch rewrites every op into an equivalent form.
OPS = 12


def _op(i: int, patched: bool) -> str:
    if not patched:
        return (
            f"def op_{i}(x):\n"
            f"    y = x * {i + 2} + 1\n"
            f"    if y % 2 == 0:\n"
            f"        y = y // 2\n"
            f"    return y - {i}\n"
        )
    return (
        f"def op_{i}(x):\n"
        f"    y = {i + 2} * x + 1\n"
        f"    if not y % 2:\n"
        f"        y //= 2\n"
        f"    return y - {i}\n"
    )


def _op_value(i: int, x: int) -> int:
    y = x * (i + 2) + 1
    if y % 2 == 0:
        y //= 2
    return y - i


def _ops_module(patched: bool, doc: str) -> str:
    return f'"""{doc}"""\n\n\n' + "\n\n".join(_op(i, patched) for i in range(OPS))


CORE = '''\
"""Text and money helpers."""


def tax(cents):
    return cents * 20 // 100


def normalize(text):
    text = text.strip()
    checked = True
    return " ".join(text.lower().split())


def legacy_checksum(data):
    total = 0
    for byte in data:
        total = (
            total * 31 + byte
        ) % 65521
    total = total % 65521
    return total
'''

REPORT = '''\
"""Rendering rows as text."""


def render(rows, debug=False):
    out = [f"{key}={value}" for key, value in rows]
    return "\\n".join(out)
'''

GAMMA = '''\
"""Added by the patch and imported by nothing."""


def scale(x, factor=3):
    if factor < 0:
        raise ValueError("negative factor")
    return x * factor
'''


def py_generated_files(test_files: int, tests_per_file: int) -> tuple[dict[str, str], str]:
    files = {
        "pyproject.toml": '[project]\nname = "gen"\nversion = "0"\n\n'
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
        "pkg/__init__.py": "",
        "pkg/alpha/__init__.py": "",
        "pkg/alpha/util.py": _ops_module(False, "Alpha ops, all tested."),
        "pkg/beta/__init__.py": "",
        "pkg/beta/util.py": _ops_module(False, "Beta ops, half tested."),
        "pkg/core.py": CORE,
        "pkg/report.py": REPORT,
        "tests/__init__.py": "",
    }
    header = (
        "from pkg.alpha import util as alpha\nfrom pkg.beta import util as beta\n"
        "from pkg.core import legacy_checksum, normalize, tax\nfrom pkg.report import render\n\n"
    )
    failing = ""
    counter = 0
    for f in range(test_files):
        rel = f"tests/test_gen_{f:02d}.py"
        body = [header]
        for t in range(tests_per_file):
            if f == 0 and t == 0:
                body.append("\ndef test_tax():\n    assert tax(1000) == 250\n\n")
                failing = f"{rel}::test_tax"
                continue
            counter += 1
            i, x = (counter // 4) % OPS, counter % 97
            kind = counter % 4
            if kind == 0:
                line_ = f"    assert alpha.op_{i}({x}) == {_op_value(i, x)}\n"
            elif kind == 1:
                j = (i // 2) * 2
                line_ = f"    assert beta.op_{j}({x}) == {_op_value(j, x)}\n"
            elif kind == 2:
                line_ = f"    assert normalize('  Word {x}  ') == 'word {x}'\n"
            else:
                line_ = f"    assert render([('k', {x})]) == 'k={x}'\n"
            body.append(f"\ndef test_case_{t:03d}():\n{line_}\n")
        files[rel] = "".join(body)
    return files, failing


def py_generated_patch(files: dict[str, str]) -> dict[str, str]:
    after = dict(files)
    after["pkg/alpha/util.py"] = _ops_module(True, "Alpha ops, all tested.")
    after["pkg/beta/util.py"] = _ops_module(True, "Beta ops, half tested.")
    core = files["pkg/core.py"].replace("cents * 20 // 100", "cents * 25 // 100")
    core = core.replace("    checked = True\n", "")  # a pure deletion in a tested function
    core = core.replace("    total = total % 65521\n", "")  # and one in an untested function
    # the continuation line of a multi-line statement in the untested function
    core = core.replace("            total * 31 + byte\n", "            total * 33 + byte\n")
    after["pkg/core.py"] = core
    after["pkg/report.py"] = files["pkg/report.py"].replace(
        '    return "\\n".join(out)\n',
        "    if debug:  # pragma: no cover\n"
        '        out.append(f"# {len(rows)} rows")\n'
        '        out.append("# debug")\n'
        '    return "\\n".join(out)\n',
    )
    after["pkg/gamma/__init__.py"] = ""
    after["pkg/gamma/util.py"] = GAMMA
    return after


def py_generated_case(root: Path, test_files: int, tests_per_file: int) -> Case:
    files, failing = py_generated_files(test_files, tests_per_file)
    repo = root / "repos" / "gen"
    sha = build.make_repo(repo, files, "generated python repository")
    task_dir = root / "tasks" / "gen-py"
    toml = (
        'language = "python"\nrepo = "../../repos/gen"\ntimeout = 600\n'
        f"setup = '{PY_SETUP}'\nsetup_depends_on = []\n"
    )
    build.write_task(
        task_dir,
        sha=sha,
        test_cmd="python -m pytest -q",
        allow_test_edits=False,
        failing=[failing],
        toml=toml,
    )
    patch = root / "patches" / "gen-py.diff"
    patch.parent.mkdir(parents=True, exist_ok=True)
    patch.write_text(build.make_diff(files, py_generated_patch(files)))
    name = f"python generated ({test_files} test files x {tests_per_file} tests)"
    return Case(name, "python", task_dir, patch, files)


# A generated C++ repository: MODULES copies of a small codec, each `src/modK/codec.cpp` (one
# basename, many folders) with `include/modK.hpp` (two inline functions, two templates).
CPP_HEADER = """\
#pragma once
#include <vector>

namespace mod{k} {{
int encode(int x);
int checksum(const std::vector<int>& data);
int decode_frame(const std::vector<int>& data);

inline int scale(int x) {{
  return x * {s};
}}

inline int unused_scale(int x) {{
  return x - {k};
}}

template <class T>
T twice(T x) {{
  return x + x;
}}

template <class T>
T never(T x) {{
  return x * x;
}}
}}  // namespace mod{k}
"""

CPP_SOURCE = """\
#include "mod{k}.hpp"

namespace mod{k} {{

int encode(int x) {{
  int y = x * 31;
  y = y ^ 0x5a;
  return y + {k};
}}

int checksum(const std::vector<int>& data) {{
  int sum = 0;
  for (int v : data) {{
    sum += v;
  }}
  return sum & 0xffff;
}}

int decode_frame(const std::vector<int>& data) {{
  if (data.size() < 2) {{
    return -1;
  }}
  int header = data[0] << 8;
  header |= data[1];
  return header;
}}

}}  // namespace mod{k}
"""

CPP_TEST = """\
#include <cstring>
#include <vector>

#include "mod{k}.hpp"

int main(int argc, char** argv) {{
  const char* which = argc > 1 ? argv[1] : "";
  if (std::strcmp(which, "encode") == 0) {{
    return mod{k}::encode(3) == {encode} ? 0 : 1;
  }}
  if (std::strcmp(which, "checksum") == 0) {{
    return mod{k}::checksum(std::vector<int>{{1, 2, 3}}) == 6 ? 0 : 1;
  }}
  if (std::strcmp(which, "inline") == 0) {{
    return mod{k}::scale(2) == {scaled} && mod{k}::twice(3) == 6 ? 0 : 1;
  }}
  return 2;
}}
"""

CPP_TESTS_PER_MODULE = 3


def cpp_generated_files(modules: int) -> dict[str, str]:
    cmake = [
        "cmake_minimum_required(VERSION 3.20)\nproject(gen CXX)\nset(CMAKE_CXX_STANDARD 17)\n"
        "enable_testing()\n",
        "add_library(gen "
        + " ".join(f"src/mod{k}/codec.cpp" for k in range(modules))
        + ")\ntarget_include_directories(gen PUBLIC include)\n",
    ]
    files: dict[str, str] = {}
    for k in range(modules):
        files[f"include/mod{k}.hpp"] = CPP_HEADER.format(k=k, s=k + 2)
        files[f"src/mod{k}/codec.cpp"] = CPP_SOURCE.format(k=k)
        encode = ((3 * 31) ^ 0x5A) + k
        files[f"tests/test_mod{k}.cpp"] = CPP_TEST.format(k=k, encode=encode, scaled=2 * (k + 2))
        cmake.append(
            f"add_executable(test_mod{k} tests/test_mod{k}.cpp)\n"
            f"target_link_libraries(test_mod{k} gen)\n"
            + "".join(
                f"add_test(NAME mod{k}_{t} COMMAND test_mod{k} {t})\n"
                for t in ("encode", "checksum", "inline")
            )
        )
    files["CMakeLists.txt"] = "".join(cmake)
    return files


CPP_BLIND = """\
int decode_frame(const std::vector<int>& data) {
  if (data.empty()) {
    return -2;
  }
  if (data.size() < 2) {
    return -1;
  }
  const int high = data.at(0);
  const int low = data.at(1);
  return (high << 8) | low;  // LCOV_EXCL_LINE
}

int frame_size(const std::vector<int>& data) {
  const int n = static_cast<int>(data.size());
  return n < 2 ? 0 : n - 2;
}

void frame_into(const std::vector<int>& data, int* out) {
  *out = decode_frame(data);
  /* the size travels beside the header */ out[1] = frame_size(data);
}

// GCOVR_EXCL_START
int legacy_frame(int n) {
  int v = n * 2;
  return v + 1;
}
// GCOVR_EXCL_STOP
"""


def cpp_generated_patch(files: dict[str, str], modules: int) -> dict[str, str]:
    edits: list[tuple[str, str, str]] = []
    for k in range(modules):  # every encode rewritten (equivalent, and tested)
        edits += [
            (
                f"src/mod{k}/codec.cpp",
                "  int y = x * 31;\n  y = y ^ 0x5a;\n",
                "  int y = 31 * x;\n  y ^= 0x5a;\n",
            ),
        ]
    old_decode = CPP_SOURCE.format(k=1).split("int decode_frame", 1)[1].split("\n}\n", 1)[0]
    edits += [
        # mod0: a tested inline and an instantiated template; a pure deletion in decode_frame.
        ("include/mod0.hpp", "  return x * 2;\n", "  return 2 * x;\n"),
        ("include/mod0.hpp", "  return x + x;\n", "  return 2 * x;\n"),
        ("src/mod0/codec.cpp", "  header |= data[1];\n", ""),
        # mod1 (same basename as mod0's source): the blind rewrite of decode_frame, with markers;
        # the unused inline and the never-instantiated template.
        ("src/mod1/codec.cpp", "int decode_frame" + old_decode + "\n}\n", CPP_BLIND),
        ("include/mod1.hpp", "  return x - 1;\n", "  return x + -1;\n"),
        ("include/mod1.hpp", "  return x * x;\n", "  return x * (x + 0);\n"),
    ]
    return build.apply_edits(files, edits)


def cpp_generated_case(root: Path, modules: int) -> Case:
    files = cpp_generated_files(modules)
    repo = root / "repos" / "gencpp"
    sha = build.make_repo(repo, files, "generated C++ repository")
    task_dir = root / "tasks" / "gen-cpp"
    build.write_task(
        task_dir,
        sha=sha,
        test_cmd='ctest --test-dir "$PW_BUILD"',
        allow_test_edits=False,
        failing=[],
        toml='language = "cpp"\nrepo = "../../repos/gencpp"\ntimeout = 600\n',
    )
    patch = root / "patches" / "gen-cpp.diff"
    patch.parent.mkdir(parents=True, exist_ok=True)
    patch.write_text(build.make_diff(files, cpp_generated_patch(files, modules)))
    return Case(f"C++ generated ({modules} modules)", "cpp", task_dir, patch, files)


def have_cpp() -> str:
    """Why the C++ case cannot run here ('' when it can)."""
    missing = [t for t in ("cmake", "ninja", "c++", "gcov", "ctest") if shutil.which(t) is None]
    return f"missing {', '.join(missing)}" if missing else ""


# -- patchwitness's side ----------------------------------------------------------------------


@dataclass
class Graded:
    verdict: Verdict
    totals: list[Cost] = field(default_factory=list)
    tests: list[float] = field(default_factory=list)
    coverage: list[float] = field(default_factory=list)
    phases: list[dict[str, float]] = field(default_factory=list)

    @property
    def facts(self) -> CoverageFacts:
        gate = self.verdict.gates.coverage if self.verdict.gates else None
        return gate.facts if gate is not None else CoverageFacts()


def grade_case(case: Case, reps: int, settings: Settings) -> Graded:
    """One warm-up grade (the task environment and the baseline land in the cache), then `reps`
    grades with the default settings (but the runner) and a cached baseline."""
    took, verdict = timed(
        lambda: grade(case.task_dir, case.patch, agent="bench", settings=settings)
    )
    line(f"first grade (environment and baseline built): {took}; {verdict.label}/{verdict.grade}")
    graded = Graded(verdict)
    for _ in range(reps):
        took, verdict = timed(
            lambda: grade(case.task_dir, case.patch, agent="bench", settings=settings)
        )
        graded.verdict = verdict
        graded.totals.append(seen_cost(took, settings.runner))
        graded.tests.append(verdict.timings.phases.get("tests", 0.0))
        graded.coverage.append(verdict.timings.phases.get("coverage", 0.0))
        graded.phases.append(dict(verdict.timings.phases))
    drift = verdict.gates.drift.facts if verdict.gates and verdict.gates.drift else None
    case.tests = len(drift.after) if drift is not None else 0
    return graded


# -- the peer: diff-cover ---------------------------------------------------------------------


def _run(argv: list[str], cwd: Path, env: dict[str, str] | None = None, ok=(0,)) -> str:
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode not in ok:
        raise RuntimeError(
            f"{' '.join(argv[:4])} ... exit {done.returncode}: "
            f"{(done.stderr or done.stdout)[-800:]}"
        )
    return done.stdout


def peer_checkout(case: Case, where: Path) -> Path:
    """A clone with the SHA on BASE_BRANCH and the patch committed on PATCH_BRANCH (checked out)."""
    task = case.task
    env = {**os.environ, **GIT_ENV}
    _run(
        ["git", "clone", "--quiet", "--no-checkout", str(task.repo), str(where)], where.parent, env
    )
    _run(["git", "checkout", "--quiet", "-b", BASE_BRANCH, task.sha], where, env)
    _run(["git", "checkout", "--quiet", "-b", PATCH_BRANCH], where, env)
    _run(["git", "apply", str(case.patch.resolve())], where, env)
    _run(["git", "add", "--all"], where, env)
    _run(["git", "commit", "--quiet", "-m", "the patch under grade"], where, env)
    return where


@dataclass
class Peer:
    run: list[Cost] = field(default_factory=list)  # the instrumented test run (build included)
    xml: list[Cost] = field(default_factory=list)  # coverage xml / gcovr --xml
    diff_cover: list[Cost] = field(default_factory=list)
    violations: dict[str, list[int]] = field(default_factory=dict)
    measured_changed: int = 0  # diff-cover's total_num_lines
    report: dict[str, dict[int, int]] = field(default_factory=dict)  # the Cobertura XML, parsed

    @property
    def totals(self) -> list[Cost]:
        return [a + b + c for a, b, c in zip(self.run, self.xml, self.diff_cover, strict=True)]


def cobertura_lines(path: Path, tree: Path) -> dict[str, dict[int, int]]:
    """Repository-relative path -> {line: hits} from a Cobertura XML report."""
    root = ET.parse(path).getroot()
    sources = [s.text.strip() for s in root.findall("sources/source") if s.text]
    out: dict[str, dict[int, int]] = {}
    for cls in root.iter("class"):
        name = cls.get("filename") or ""
        full = Path(name) if os.path.isabs(name) else Path(sources[0] if sources else tree) / name
        try:
            rel = full.resolve().relative_to(tree.resolve()).as_posix()
        except ValueError:
            rel = name
        lines = out.setdefault(rel, {})
        for node in cls.iter("line"):
            n = int(node.get("number", "0"))
            lines[n] = lines.get(n, 0) + int(node.get("hits", "0"))
    return out


@functools.cache
def _json_flags(out: str) -> list[str]:
    """`--format json:OUT` where diff-cover has it (2025 on), else the older `--json-report OUT`."""
    done = subprocess.run([str(DIFF_COVER), "--help"], capture_output=True, text=True)
    if "--format" in done.stdout:
        return ["--format", f"json:{out}"]
    return ["--json-report", out]


def run_diff_cover(xml: Path, tree: Path, out: Path) -> dict:
    argv = [str(DIFF_COVER), str(xml), "--compare-branch", BASE_BRANCH, "--quiet"]
    _run([*argv, *_json_flags(str(out))], tree, {**os.environ, **GIT_ENV}, ok=(0, 1))
    return json.loads(out.read_text())


def _coverage_site(scratch: Path) -> Path:
    """A directory that makes coverage.py importable by the task environment's interpreter."""
    site = scratch / "covsite"
    site.mkdir(parents=True, exist_ok=True)
    link = site / "coverage"
    if not link.exists():
        link.symlink_to(Path(coverage_py.__file__).resolve().parent, target_is_directory=True)
    return site


def peer_python(case: Case, tree: Path, scratch: Path, reps: int) -> Peer:
    task = case.task
    env = environment.prepare(task)
    if not task.test_cmd.startswith("python -m pytest"):
        raise RuntimeError(f"the peer expects `python -m pytest ...`, not {task.test_cmd!r}")
    covered_cmd = task.test_cmd.replace("python -m ", "python -m coverage run --source=. -m ", 1)
    variables = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    paths = [str(_coverage_site(scratch)), str(tree)]
    paths += [str(tree / "src")] if (tree / "src").is_dir() else []
    data = scratch / ".coverage"
    variables |= {
        "PATH": os.pathsep.join([*env.bin_dirs, os.environ.get("PATH", "")]),
        "PYTHONPATH": os.pathsep.join(paths),
        "COVERAGE_FILE": str(data),
        "PYTEST_ADDOPTS": "-p no:cacheprovider",
    }
    peer = Peer()
    xml, report = scratch / "coverage.xml", scratch / "diff-cover.json"
    for _ in range(reps):
        data.unlink(missing_ok=True)
        took, done = timed(
            lambda: subprocess.run(
                covered_cmd,
                shell=True,
                cwd=tree,
                env=variables,
                capture_output=True,
                timeout=task.timeout,
            )
        )
        if done.returncode not in (0, 1):
            raise RuntimeError(f"peer test run exit {done.returncode}: {done.stdout[-500:]!r}")
        peer.run.append(took)
        took, _ = timed(
            lambda: _run(["python", "-m", "coverage", "xml", "-o", str(xml)], tree, variables)
        )
        peer.xml.append(took)
        took, result = timed(lambda: run_diff_cover(xml, tree, report))
        peer.diff_cover.append(took)
    _fill(peer, result, xml, tree)
    return peer


def peer_cpp(case: Case, tree: Path, scratch: Path, reps: int) -> Peer:
    task = case.task
    flags = " ".join(task.options.coverage.cxx_flags or DEFAULT_COVERAGE_FLAGS)
    variables = {
        **os.environ,
        "CXXFLAGS": flags,
        "CFLAGS": flags,
        "LDFLAGS": "--coverage",
        "CCACHE_DISABLE": "1",
    }
    peer = Peer()
    xml, report = scratch / "coverage.xml", scratch / "diff-cover.json"
    for rep in range(reps):
        build_dir = scratch / f"build-{rep}"

        def instrumented_run(build_dir: Path = build_dir) -> None:
            _run(
                [
                    "cmake",
                    "-S",
                    str(tree),
                    "-B",
                    str(build_dir),
                    "-G",
                    "Ninja",
                    "-DCMAKE_BUILD_TYPE=Debug",
                ],
                tree,
                variables,
            )
            _run(["cmake", "--build", str(build_dir)], tree, variables)
            _run(
                ["ctest", "--test-dir", str(build_dir), "--parallel", "1"],
                tree,
                variables,
                ok=(0, 8),
            )

        took, _ = timed(instrumented_run)
        peer.run.append(took)
        gcovr = [str(GCOVR), "--root", str(tree), "--xml", str(xml), str(build_dir)]
        took, _ = timed(lambda gcovr=gcovr: _run(gcovr, tree, variables))
        peer.xml.append(took)
        took, result = timed(lambda: run_diff_cover(xml, tree, report))
        peer.diff_cover.append(took)
    _fill(peer, result, xml, tree)
    return peer


def _fill(peer: Peer, result: dict, xml: Path, tree: Path) -> None:
    for path, stats in result.get("src_stats", {}).items():
        if stats.get("violation_lines"):
            peer.violations[path] = sorted(int(n) for n in stats["violation_lines"])
    peer.measured_changed = int(result.get("total_num_lines", 0))
    peer.report = cobertura_lines(xml, tree)


# -- agreement ---------------------------------------------------------------------------------


def _wall(seconds: float) -> Cost:
    """A wall-clock-only figure (a verdict's phase): its CPU side is unknown."""
    return Cost(seconds, float("nan"))


def suite_cost(cost: Cost, run: SuiteRun, runner: Runner) -> Cost:
    """A suite run's cost with the CPU the runner measured for its commands (cgroup-based where
    the machine has cgroups), which getrusage cannot see under bwrap."""
    facts = [run.run.run]
    if run.build is not None:
        facts += [f for f in (run.build.configure, run.build.build) if f is not None]
    if runner.name == "none":
        return cost
    return Cost(cost.wall, cost.cpu + sum(f.cpu_s for f in facts))


def _key(path: str, n: int) -> str:
    return f"{path}:{n}"


def _split(key: str) -> tuple[str, int]:
    path, n = key.rsplit(":", 1)
    return path, int(n)


def _ranges(numbers: list[int]) -> str:
    """[1, 2, 3, 7] -> '1-3, 7'."""
    out: list[str] = []
    start = prev = None
    for n in sorted(numbers):
        if start is None:
            start = prev = n
        elif n == prev + 1:
            prev = n
        else:
            out.append(f"{start}-{prev}" if prev != start else f"{start}")
            start = prev = n
    if start is not None:
        out.append(f"{start}-{prev}" if prev != start else f"{start}")
    return ", ".join(out)


def _excluded_by_marker(text_lines: list[str], n: int, language: str) -> int | None:
    """The line of an exclusion marker that covers line n in the peer's default config."""
    if language == "python":
        for m in range(n, 0, -1):
            text = text_lines[m - 1]
            if PY_MARKER.search(text):
                if m == n:
                    return m
                indent = len(text) - len(text.lstrip())
                body = text_lines[m:n]
                inside = all(not t.strip() or len(t) - len(t.lstrip()) > indent for t in body)
                opens_block = text.split("#", 1)[0].rstrip().endswith(":")
                return m if inside and opens_block else None
        return None
    if CPP_LINE_MARKER.search(text_lines[n - 1]):
        return n
    for m in range(n, 0, -1):
        if CPP_STOP.search(text_lines[m - 1]) and m != n:
            return None
        if CPP_START.search(text_lines[m - 1]):
            return m
    return None


@dataclass
class Explainer:
    case: Case
    facts: CoverageFacts
    peer: Peer
    tree: Path  # the peer's checkout: the patched files
    changes: dict[str, FileChange] = field(default_factory=dict)

    def text(self, path: str) -> list[str]:
        try:
            return (self.tree / path).read_text().splitlines()
        except OSError:
            return []

    def only_patchwitness(self, key: str) -> str:
        path, n = _split(key)
        change = self.changes.get(path)
        added = dict(change.added) if change else {}
        if n not in added:
            holes = sorted(change.deletion_holes, key=lambda h: abs(h - n)) if change else []
            where = f"after new line {holes[0]}" if holes else "?"
            return (
                "pure-deletion neighbour: patchwitness scores the executable lines beside a hunk "
                f"that only deletes (the hole {where}); diff-cover sees only added lines"
            )
        lines = self.text(path)
        report = self.peer.report.get(path)
        if report is None:
            return "the file is not in the peer's coverage report at all"
        if n not in report:
            marker = _excluded_by_marker(lines, n, self.case.language) if lines else None
            if marker is not None:
                tool = (
                    "coverage.py's default exclude_lines"
                    if self.case.language == "python"
                    else "gcovr's exclusion markers"
                )
                where = "on this line" if marker == n else f"at line {marker}, whose block this is"
                return (
                    f"excluded by {tool}: the patch added the marker {where}; patchwitness "
                    "ignores exclusion markers a patch adds and scores the line anyway"
                )
            return "the peer's report has no entry for this line (not executable to it)"
        return f"the peer's report counts {report[n]} hit(s): the two runs disagree on the count"

    def only_diff_cover(self, key: str) -> str:
        path, n = _split(key)
        if path not in self.facts.hunk_lines:
            if path in self.facts.test_hunks:
                return "a test file: patchwitness scores production sources only"
            return "patchwitness scores no line of this file (not a production source it scores)"
        if n in self.facts.hunk_lines[path]:
            if key in self.facts.unscored_suspicious:
                return "patchwitness had no line data here (reported as unscored-suspicious)"
            return "patchwitness's own run counted this line as hit"
        lines = self.text(path)
        text = lines[n - 1].strip() if 0 < n <= len(lines) else "?"
        if re.fullmatch(r"[{}();\s]*", text):
            return (
                f"`{text}` (a brace) is not code to patchwitness by design; gcov counts it (the "
                "closing brace of a void function is its return)"
            )
        if not hunk.looks_like_code(text + "\n", path):
            return (
                f"`{text}` is not a code line to patchwitness: gates/coverage.py "
                "looks_like_code() is false (its C++ comment pattern takes any line starting "
                "with `*` or `/*` for a comment), so the line is never scored, though gcov "
                "counts it"
            )
        return f"`{text}` was not among the lines patchwitness scored"


def unscored_by_both(
    case: Case,
    changes: dict[str, FileChange],
    facts: CoverageFacts,
    peer: Peer,
    tree: Path,
    seen: set[str],
) -> list[str]:
    """Added code lines that neither side scored, and why; Python continuation lines of a
    statement that never ran are flagged MISSED (each tool maps hits to a statement's first line
    and never looks at the patched line itself)."""
    out: list[str] = []
    for path, change in sorted(changes.items()):
        report = peer.report.get(path)
        if report is None or path not in facts.hunk_lines:
            continue
        source = (tree / path).read_text() if (tree / path).is_file() else ""
        first_line: Callable[[int], int] = lambda n: n  # noqa: E731
        if path.endswith(".py") and source:
            parser = PythonParser(text=source)
            parser.parse_source()
            first_line = parser.first_line
        lines = source.splitlines()
        for n, text in change.added:
            key = _key(path, n)
            if key in seen or n in report or not hunk.looks_like_code(text, path):
                continue
            if lines and _excluded_by_marker(lines, n, case.language) is not None:
                continue
            start = first_line(n)
            if start != n and report.get(start) == 0:
                out.append(
                    f"MISSED by both {key}: `{text.strip()}` continues the statement at line "
                    f"{start}, which never ran; the patched line itself is not scored"
                )
            elif start != n:
                out.append(f"{key}: continues the statement at line {start}, which ran")
            else:
                out.append(f"{key}: `{text.strip()}` is not executable to either tool")
    return out


def compare(case: Case, graded: Graded, peer: Peer, tree: Path) -> dict[str, int]:
    facts = graded.facts
    patch = parse_patch(case.patch.read_bytes())
    changes = {c.path: c for c in patch.files}
    explain = Explainer(case, facts, peer, tree, changes)
    pw = set(facts.zero_hit_lines)
    dc = {_key(p, n) for p, lines in peer.violations.items() for n in lines}
    both, only_pw, only_dc = pw & dc, pw - dc, dc - pw
    added = sum(len(c.added) for c in patch.files)
    holes = sum(len(c.deletion_holes) for c in patch.files)
    line(
        f"patch: {len(patch.files)} files, {added} added lines, {holes} pure-deletion hunk(s); "
        f"scored by patchwitness: {facts.scored_executable_lines}; measured by diff-cover: "
        f"{peer.measured_changed}"
    )
    line(
        f"zero-hit lines: patchwitness {facts.zero_hit_count} (list {len(pw)}), "
        f"diff-cover {len(dc)}"
    )
    print(
        f"agreement [{case.name}]: both {len(both)}, only patchwitness {len(only_pw)}, "
        f"only diff-cover {len(only_dc)}  ({len(changes)} files, {added} added lines)",
        flush=True,
    )

    def order(key: str) -> tuple[str, int]:
        return _split(key)

    by_file: dict[str, list[int]] = {}
    for key in sorted(both, key=order):
        path, n = _split(key)
        by_file.setdefault(path, []).append(n)
    for path, numbers in by_file.items():
        line(f"   both zero-hit {path}: {_ranges(numbers)}")

    for key in sorted(only_pw, key=order):
        line(f"   only patchwitness {key}: {explain.only_patchwitness(key)}")
    for key in sorted(only_dc, key=order):
        line(f"   only diff-cover   {key}: {explain.only_diff_cover(key)}")
    for key in sorted(facts.unscored_suspicious, key=order):
        path, n = _split(key)
        seen = n in peer.report.get(path, {})
        line(
            f"   unscored-suspicious (patchwitness) {key}: no line data in patchwitness's gcov "
            f"run (a template never instantiated, an inline never emitted); diff-cover "
            f"{'measured it' if seen else 'has no entry either, so it passes silently'}"
        )
    seen = pw | dc | set(facts.unscored_suspicious)
    neither = unscored_by_both(case, changes, facts, peer, tree, seen)
    missed = sum(1 for text in neither if text.startswith("MISSED"))
    line(
        f"added code lines neither tool scores: {len(neither)} ({missed} in statements that "
        "never ran)"
    )
    for text in neither[:12]:
        line(f"   {text}")
    return {"both": len(both), "only_pw": len(only_pw), "only_dc": len(only_dc)}


# -- one run, not two -------------------------------------------------------------------------


@dataclass
class OneRun:
    plain: list[Cost] = field(default_factory=list)
    instrumented: list[Cost] = field(default_factory=list)
    tests: int = 0


def one_run(case: Case, reps: int, settings: Settings) -> OneRun:
    """The suite over the patched tree, through the grader's runner: plain, then instrumented
    (the suite's first, richest coverage variant: coverage.py, or the task's pinned gcov flags)."""
    task = case.task
    suite = make_suite(task, settings)
    variant = suite.instrumentations()[0]
    out = OneRun()
    with Workspace.create(task.repo, task.sha) as ws:
        ws.apply(case.patch.read_bytes())
        for _ in range(reps):
            took, run = timed(lambda: suite.run(ws.repo, ws.new_dir("plain"), instrument=None))
            out.plain.append(suite_cost(took, run, settings.runner))
            out.tests = max(out.tests, len(run.outcomes))
            took, run = timed(lambda: suite.run(ws.repo, ws.new_dir("instr"), instrument=variant))
            out.instrumented.append(suite_cost(took, run, settings.runner))
    return out


# -- the driver -------------------------------------------------------------------------------


def run_case(case: Case, reps: int, scratch: Path, settings: Settings) -> dict[str, int]:
    heading(case.name)
    graded = grade_case(case, reps, settings)
    facts = graded.facts
    task = case.task
    source_files = len(case.files)
    gate = graded.verdict.gates.coverage if graded.verdict.gates else None
    line(
        f"input: {source_files} files in the repository, {case.tests:,} tests; verdict "
        f"{graded.verdict.label}/{graded.verdict.grade}, coverage row {gate.row if gate else '-'}"
    )
    tree = peer_checkout(case, scratch / "peer-tree")
    runner_fn: Callable[[Case, Path, Path, int], Peer] = (
        peer_python if task.language == "python" else peer_cpp
    )
    peer_scratch = scratch / "peer"
    peer_scratch.mkdir()
    peer = runner_fn(case, tree, peer_scratch, reps)
    agreement = compare(case, graded, peer, tree)
    size = f"{case.tests:,} tests, {len(parse_patch(case.patch.read_bytes()).files)} patched files"
    size += f", {facts.scored_executable_lines} scored lines, median of {reps}"
    grade_cost, peer_cost = median_cost(graded.totals), median_cost(peer.totals)
    tests_s, coverage_s = median(graded.tests), median(graded.coverage)
    line(
        f"patchwitness: grade {grade_cost} (phases, wall clock: tests {secs(tests_s)}, coverage "
        f"{secs(coverage_s)}); sandbox {settings.runner.name}"
    )
    names = list(dict.fromkeys(n for phases in graded.phases for n in phases))
    every = ", ".join(f"{n} {secs(median(ph.get(n, 0.0) for ph in graded.phases))}" for n in names)
    line(f"   every phase (median, wall clock): {every}")
    xml_dc = [a + b for a, b in zip(peer.xml, peer.diff_cover, strict=True)]
    line(
        f"peer: instrumented run {median_cost(peer.run)} + xml {median_cost(peer.xml)} + "
        f"diff-cover {median_cost(peer.diff_cover)} = {peer_cost}"
    )
    # The verdict's phases are wall-clock only: their ratios print `n/a cpu`.
    print_ratio(f"coverage phase/peer pipeline [{case.name}]", _wall(coverage_s), peer_cost, size)
    print_ratio(
        f"tests+coverage phases/peer pipeline [{case.name}]",
        _wall(median(t + c for t, c in zip(graded.tests, graded.coverage, strict=True))),
        peer_cost,
        size,
    )
    print_ratio(
        f"coverage phase/peer xml+diff-cover [{case.name}]",
        _wall(coverage_s),
        median_cost(xml_dc),
        size,
    )
    print_ratio(
        f"whole grade (cached baseline)/peer pipeline [{case.name}]", grade_cost, peer_cost, size
    )
    runs = one_run(case, reps, settings)
    two = [p + i for p, i in zip(runs.plain, runs.instrumented, strict=True)]
    what = "Debug build+ctest" if task.language == "cpp" else "pytest"
    plain, instrumented = median_cost(runs.plain), median_cost(runs.instrumented)
    line(
        f"one run, not two: plain {what} {plain}, instrumented {instrumented} "
        f"({runs.tests:,} tests); saved per grade: {plain}"
    )
    size_runs = f"{runs.tests:,} tests, {source_files} files, median of {reps}"
    print_ratio(
        f"one instrumented run/plain+instrumented [{case.name}]",
        instrumented,
        median_cost(two),
        size_runs,
    )
    print_ratio(f"instrumented/plain run [{case.name}]", instrumented, plain, size_runs)
    return agreement


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small inputs, one repetition")
    parser.add_argument("--reps", type=int, default=0, help="repetitions (default 3, quick 1)")
    parser.add_argument("--sandbox", default="auto", help="auto | bwrap | none (as the CLI)")
    parser.add_argument("--no-cpp", action="store_true", help="skip the C++ repository")
    parser.add_argument(
        "--case", action="append", choices=CASES, default=[], help="run only these inputs"
    )
    parser.add_argument("--cache", type=Path, help="keep PATCHWITNESS_CACHE here (default: temp)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    reps = args.reps or (1 if args.quick else 3)
    test_files, per_file = (4, 10) if args.quick else (40, 50)
    modules = 2 if args.quick else 8
    print(
        f"coverage gate vs diff-cover: {os.cpu_count()} cores, python {sys.version.split()[0]}, "
        f"diff-cover {_version('diff-cover')}, gcovr {_version('gcovr')}, "
        f"coverage.py {coverage_py.__version__}",
        flush=True,
    )
    # Compare whole sets, not the verdict's first 50 (a bench-side knob; the product is unchanged).
    coverage_gate.ZERO_HIT_LIMIT = 1_000_000
    totals = {"both": 0, "only_pw": 0, "only_dc": 0}
    with private_cache(args.cache), tempfile.TemporaryDirectory(prefix="pw-bench-cov-") as tmp:
        root = Path(tmp)
        chosen, described = sandbox_runner(args.sandbox)
        # Made inside private_cache: Settings.cache defaults to PATCHWITNESS_CACHE.
        settings = Settings(runner=chosen)
        line(f"sandbox: {described}; {load_note()}")
        makers: dict[str, Callable[[], Case]] = {
            "demo": lambda: demo_case(root / "demo"),
            "python": lambda: py_generated_case(root / "genpy", test_files, per_file),
            "cpp": lambda: cpp_generated_case(root / "gencpp", modules),
        }
        chosen = [name for name in CASES if not args.case or name in args.case]
        why = have_cpp() or ("--no-cpp" if args.no_cpp else "")
        if "cpp" in chosen and why:
            line(f"C++ repository skipped: {why}")
            chosen.remove("cpp")
        for name in chosen:
            scratch = root / f"scratch-{name}"
            scratch.mkdir()
            for key, value in run_case(makers[name](), reps, scratch, settings).items():
                totals[key] += value
    line(f"after: {load_note()}")
    print(
        f"agreement [all inputs]: both {totals['both']}, only patchwitness {totals['only_pw']}, "
        f"only diff-cover {totals['only_dc']}",
        flush=True,
    )
    return 0


def _version(tool: str) -> str:
    try:
        from importlib.metadata import version

        return version(tool)
    except Exception:
        return "missing"


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
