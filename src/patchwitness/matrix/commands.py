"""`--print-commands`: a plain shell script that reproduces any cell without Python.

    sh matrix.sh                      # every cell; exit 0 when every required cell passes
    sh matrix.sh 'GOLDEN@ENVELOPE'    # one cell
    TREE=/path/to/checkout OUT=/tmp/m sh matrix.sh ...

Each cell is a function: cd to the tree, compile with the grader's exact flags (the worktree path
mapped away, the dependency file written), run with the same sanitizer environment, then apply
the same judgement (sanitizer report in stderr, exit status, stdout digest against the recorded
reference). It prints `CELL STATUS` and returns 0 only for `pass`. In CMake mode a cell builds its
envelope's directory once (toolchain file, the task's configure and build commands) and runs one
ctest test.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from patchwitness.gates.matrix import cell_id
from patchwitness.matrix.cells import CellSpec, compile_commands, run_environment
from patchwitness.matrix.cmake import toolchain_file
from patchwitness.matrix.manifest import Envelope, Matrix
from patchwitness.model import Cell
from patchwitness.task import Task

OUT_MARK = "/@@PW_OUT@@"
TREE_MARK = "/@@PW_TREE@@"
SANITIZER_GREP = r"runtime error: |(ERROR|WARNING): [A-Za-z]+Sanitizer: "

PRELUDE = """\
#!/bin/sh
# patchwitness flag matrix: every cell, reproducible without Python.
#   sh {script} [CELL]          CELL is GOLDEN@ENVELOPE; no argument runs every cell
# TREE is the checkout to build (see below for its default); OUT receives the builds.
OUT="${{OUT:-$(mktemp -d "${{TMPDIR:-/tmp}}/pw-matrix.XXXXXX")}}"
{tree_setup}cd "$TREE" || exit 2

# pw_judge NAME DIR RC EXPECTED_SHA256: the grader's judgement of one run.
pw_judge() {{
  if grep -Eq '{grep}' "$2/stderr"; then status=sanitizer
  elif [ "$3" -ne 0 ]; then status=run_fail
  elif [ -n "$4" ] && [ "$(sha256sum < "$2/stdout" | cut -d' ' -f1)" != "$4" ]; then
    status=digest_mismatch
  else status=pass
  fi
  echo "$1 $status (exit $3, stdout sha256 $(sha256sum < "$2/stdout" | cut -d' ' -f1))"
  [ "$status" = pass ]
}}

# pw_compile_failed NAME DIR: werror_fail when every error is a promoted warning.
pw_compile_failed() {{
  errors=$(grep -Ec '(^|[[:space:]:])(fatal )?error: ' "$2/compile.log")
  promoted=$(grep -Ec '(^|[[:space:]:])(fatal )?error: .*\\[-Werror' "$2/compile.log")
  if [ "$promoted" -gt 0 ] && [ "$promoted" -eq "$errors" ]; then status=werror_fail
  else status=compile_fail
  fi
  echo "$1 $status"
  return 1
}}
"""


def sh_word(word: str) -> str:
    """Quote one argv word for sh, turning the placeholders into variables."""
    out = []
    for part in re.split(f"({re.escape(OUT_MARK)}|{re.escape(TREE_MARK)})", word):
        if part == OUT_MARK:
            out.append('"$d"')
        elif part == TREE_MARK:
            out.append('"$TREE"')
        elif part:
            out.append(shlex.quote(part))
    return "".join(out)


def sh_line(argv: list[str]) -> str:
    return " ".join(sh_word(w) for w in argv)


def _env_words(env: dict[str, str]) -> str:
    return " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted(env.items()))


def golden_function(index: int, spec: CellSpec, expected: str | None) -> str:
    steps, binary = compile_commands(spec, Path(TREE_MARK), Path(OUT_MARK))
    name = spec.id
    env = _env_words(run_environment(spec.envelope))
    run = f'{env} "$d"/{shlex.quote(binary.name)}'.strip()
    compile_block = " &&\n    ".join(sh_line(step) for step in steps)
    required = "required" if spec.envelope.required else "optional"
    return f"""
# {name} ({required})
cell_{index}() {{
  d="$OUT/{index}"; mkdir -p "$d"
  {compile_block} > "$d/compile.log" 2>&1 ||
    {{ cat "$d/compile.log" >&2; pw_compile_failed {shlex.quote(name)} "$d"; return 1; }}
  {run} > "$d/stdout" 2> "$d/stderr"; rc=$?
  pw_judge {shlex.quote(name)} "$d" "$rc" {shlex.quote(expected or "")}
}}
"""


def envelope_function(task: Task, envelope: Envelope) -> str:
    """CMake mode: build the envelope's directory once per script run."""
    opts = task.options.cpp
    env = _env_words(run_environment(envelope))
    return f"""
# envelope {envelope.name}: its toolchain file, the task's configure and build
build_{_ident(envelope.name)}() {{
  b="$OUT/{envelope.name}"; mkdir -p "$b/build"
  [ -f "$b/built" ] && return 0
  cat > "$b/toolchain.cmake" <<'PW_TOOLCHAIN'
{toolchain_file(envelope)}PW_TOOLCHAIN
  (cd "$TREE"/{shlex.quote(task.options.cwd)} && export PW_BUILD="$b/build" PW_REPO="$TREE" \\
     CMAKE_TOOLCHAIN_FILE="$b/toolchain.cmake" {env} && \\
   {opts.configure} && {opts.build}) > "$b/build.log" 2>&1 || return 1
  touch "$b/built"
}}
"""


def ctest_function(index: int, task: Task, envelope: Envelope, test: str) -> str:
    env = _env_words(run_environment(envelope))
    pattern = shlex.quote("^" + re.escape(test) + "$")
    name = shlex.quote(cell_id(test, envelope.name))
    return f"""
# {cell_id(test, envelope.name)} ({"required" if envelope.required else "optional"})
cell_{index}() {{
  build_{_ident(envelope.name)} || {{ echo {name} compile_fail; return 1; }}
  d="$OUT/{index}"; mkdir -p "$d"
  (cd "$TREE"/{shlex.quote(task.options.cwd)} && {env} \\
     ctest --test-dir "$OUT/{envelope.name}/build" -R {pattern} --output-on-failure) \\
     > "$d/stdout" 2>&1; rc=$?
  cp "$d/stdout" "$d/stderr"  # ctest interleaves the test's two streams
  pw_judge {name} "$d" "$rc" ""
}}
"""


def _ident(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", name)


def _dispatch(names: list[tuple[int, str, bool]]) -> str:
    lines = ["", "pw_all() {", "  fail=0"]
    for index, _, required in names:
        lines.append(f"  cell_{index} || {'fail=1' if required else ':'}")
    lines += ["  return $fail", "}", "", 'case "${1:-all}" in', "  all) pw_all ;;"]
    for index, name, _ in names:
        lines.append(f"  {shlex.quote(name)}) cell_{index} ;;")
    lines += ['  *) echo "unknown cell: $1" >&2; exit 2 ;;', "esac", ""]
    return "\n".join(lines)


def tree_setup(tree: Path, checkout: tuple[Path, str, Path | None] | None) -> str:
    """TREE defaults to the graded tree, or, given (repo, sha, patch), to a fresh checkout of
    the SHA with the patch applied, made by git the way the grader makes its own."""
    if checkout is None:
        return f'TREE="${{TREE:-{shlex.quote(str(tree))}}}"\n'
    repo, sha, patch = checkout
    lines = [
        'if [ -z "${TREE:-}" ]; then',
        '  TREE="$OUT/tree"',
        '  if [ ! -d "$TREE/.git" ]; then  # made once per OUT, reused by later runs',
        f'    git clone --quiet --shared --no-checkout {shlex.quote(str(repo))} "$TREE" &&',
        f'      git -C "$TREE" -c advice.detachedHead=false checkout -q --detach {sha} || exit 2',
    ]
    if patch is not None:
        lines.append(
            f'    git -C "$TREE" apply --whitespace=nowarn {shlex.quote(str(patch))} || exit 2'
        )
    lines += ["  fi", "fi"]
    return "\n".join(lines) + "\n"


def script(
    plan: Matrix,
    tree: Path,
    *,
    task: Task | None = None,
    cells: list[Cell] | None = None,
    checkout: tuple[Path, str, Path | None] | None = None,
    name: str = "matrix.sh",
) -> str:
    """The whole script. `cells` (from a run) supply the reference digests and, in CMake mode,
    the test names; `checkout` = (repo, sha, patch or None) makes the script build its own tree
    when TREE is not set."""
    expected = {cell_id(c.golden, c.envelope): c.expected_sha256 for c in cells or []}
    setup = tree_setup(tree, checkout)
    body = [PRELUDE.format(script=name, tree_setup=setup, grep=SANITIZER_GREP)]
    names: list[tuple[int, str, bool]] = []
    if plan.mode == "cmake":
        if task is None:
            raise ValueError("CMake mode needs the task's configure, build and test commands")
        body += [envelope_function(task, e) for e in plan.envelopes]
        tests = list(dict.fromkeys(c.golden for c in cells or []))
        index = 0
        for test in tests:
            for envelope in plan.envelopes:
                index += 1
                body.append(ctest_function(index, task, envelope, test))
                names.append((index, cell_id(test, envelope.name), envelope.required))
    else:
        for index, golden in enumerate(plan.goldens, start=1):
            for offset, envelope in enumerate(plan.envelopes):
                number = (index - 1) * len(plan.envelopes) + offset + 1
                spec = CellSpec(plan, golden, envelope)
                body.append(golden_function(number, spec, expected.get(spec.id)))
                names.append((number, spec.id, envelope.required))
    body.append(_dispatch(names))
    return "".join(body)
