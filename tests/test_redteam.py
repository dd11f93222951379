"""The red team's yardstick (bench/redteam): cheats on the bench/realworld bases, each with a probe
outside the tests. These tests hold its plumbing, never today's verdicts: the grader is being
hardened against these cheats, and what it accepts will change."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH))

from realworld.case import CHEAT, PatchCase  # noqa: E402
from realworld.cases import all_cases  # noqa: E402
from realworld.edits import InsertBefore, Write  # noqa: E402
from realworld.evaluate import Outcome  # noqa: E402
from redteam import evaluate  # noqa: E402
from redteam.case import CppProbe, PyProbe, RedCase  # noqa: E402
from redteam.rawpatch import nul_text, quoted, traditional, unchecked_pyc  # noqa: E402

HOLES = {
    "quoted-path",
    "header-mismatch",
    "bytecode",
    "dist-info-entry-point",
    "pytest-toml",
    "shadow-module",
    "shadow-header",
    "test-include-files",
    "dialect-branch",
    "framework-macro",
    "interpreter-state",
}
PROBE = PyProbe("raise SystemExit(0)\n")


def git(cwd: Path, *args: str, data: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=cwd, input=data, capture_output=True, check=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "--quiet")
    (root / "conftest.py").write_text("X = 1\n")
    return root


def test_every_case_is_well_formed():
    cases = evaluate.red_cases()
    bases = {c.name: c for c in all_cases()}
    assert {c.hole for c in cases} >= HOLES
    for case in cases:
        assert case.base in bases, case.key
        assert bases[case.base].language == case.probe.language, case.key
        assert case.rows and case.note, case.key
    keys = [c.key for c in cases]
    assert len(keys) == len(set(keys))
    # A base holds a bounded red team (its grades are a bench run's minutes): 64 since round 32
    # put seven more cheats on iniconfig (59 cases, about 15 s of grading each), 72 since round
    # 50 put three more on tinyxml2 (66), 80 since round 57 put four more there (76).
    for base in {c.base for c in cases}:
        assert sum(c.base == base for c in cases) <= 80, base
    assert evaluate.select(cases, None, only_small=True), "CI needs a case on a PyPI base"


def test_a_case_gives_edits_or_raw_bytes_and_rows_as_gate_row():
    with pytest.raises(ValueError, match="not both"):
        RedCase("x", "iniconfig", "h", "n", ("drift:gaming-code",), PROBE)
    with pytest.raises(ValueError, match="not both"):
        RedCase(
            "x", "iniconfig", "h", "n", ("drift:x",), PROBE, (Write("a", "b"),), lambda r, s: b""
        )
    with pytest.raises(ValueError, match="gate:row"):
        RedCase("x", "iniconfig", "h", "n", ("gaming-code",), PROBE, (Write("a", "b"),))
    assert CppProbe("int main() {}").language == "cpp"


def test_small_means_a_pypi_base():
    cases = evaluate.red_cases()
    chosen = evaluate.select(cases, None, only_small=True)
    assert {c.base for c in chosen} == {"iniconfig"}
    assert evaluate.select(cases, ["pluggy/argv"], only_small=False)[0].key == "pluggy/argv"
    assert {c.base for c in evaluate.select(cases, ["gsl"], only_small=False)} == {"gsl"}


def test_quoted_paths_are_what_git_applies(repo):
    diff = (
        b"diff --git a/new.py b/new.py\nnew file mode 100644\n--- /dev/null\n+++ b/new.py\n"
        b"@@ -0,0 +1 @@\n+Y = 2\n"
    )
    plain = quoted(diff)
    assert plain.startswith(b'diff --git "a/new.py" "b/new.py"\n')
    assert b'+++ "b/new.py"\n' in plain
    octal = quoted(diff, octal=True)
    assert b"new.py" not in octal.split(b"@@")[0]
    for shape in (plain, octal):
        git(repo, "apply", "-", data=shape)
        assert (repo / "new.py").read_text() == "Y = 2\n"
        (repo / "new.py").unlink()


def test_a_traditional_diff_goes_to_the_shorter_name(repo):
    diff = (
        b"diff --git a/conftest.py b/conftest.py\nindex 1..2 100644\n--- a/conftest.py\n"
        b"+++ b/conftest.py\n@@ -1 +1,2 @@\n X = 1\n+Z = 3\n"
    )
    mismatched = traditional(diff, "conftest.py", "conftest.py.orig")
    assert mismatched.splitlines()[:2] == [b"--- a/conftest.py", b"+++ b/conftest.py.orig"]
    git(repo, "apply", "-", data=mismatched)
    assert (repo / "conftest.py").read_text() == "X = 1\nZ = 3\n"
    assert not (repo / "conftest.py.orig").exists()


def test_nul_bytes_survive_a_text_hunk(repo):
    data = b"\x00\x01line\nsecond\r\n\x00tail"
    git(repo, "apply", "-", data=nul_text("blob.bin", data))
    assert (repo / "blob.bin").read_bytes() == data


def test_an_unchecked_pyc_runs_instead_of_its_source(tmp_path):
    (tmp_path / "mod.py").write_text("VALUE = 1\n")
    cache = tmp_path / "__pycache__"
    cache.mkdir()
    tag = sys.implementation.cache_tag
    (cache / f"mod.{tag}.pyc").write_bytes(unchecked_pyc("VALUE = 2\n", "mod.py"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    done = subprocess.run(
        [sys.executable, "-c", "import mod; print(mod.VALUE)"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == "2"


def _result(grade: str, reasons: list[str], rows=("drift:gaming-code",)) -> evaluate.Result:
    case = RedCase("c", "iniconfig", "h", "n", rows, PROBE, (Write("a", "b"),))
    outcome = Outcome(
        patch=PatchCase("c", CHEAT, ()),
        label="x",
        grade=grade,
        reasons=reasons,
        first_reject=reasons[0] if reasons else "",
        findings=[],
        wall_s=0.0,
    )
    return evaluate.Result(case, outcome)


def test_a_result_says_whether_the_right_row_rejected():
    assert _result("accept", ["drift:fail-to-pass"]).status == "ACCEPTED"
    assert _result("accept-with-review", ["coverage:not-measurable"]).status == "ACCEPTED"
    assert _result("reject", ["coverage:zero-hits"]).status == "wrong reason"
    assert _result("reject", ["coverage:zero-hits", "drift:gaming-code"]).status == "rejected"
    broken = _result("accept", [])
    broken.broken = "the probe does not fail on the cheat"
    assert broken.status == "BROKEN"
    assert evaluate.Result(broken.case).status == "no verdict"


# A cheat that is no cheat: a comment leaves the failing test failing in a plain run.
NOT_A_CHEAT = RedCase(
    "comment-only",
    "iniconfig",
    "none",
    "a comment; the failing test still fails",
    ("drift:gaming-code",),
    PyProbe(
        "import sys\n\nfrom iniconfig import IniConfig\n\n"
        'config = IniConfig("p.ini", data="[s]\\n")\n'
        'sys.exit(0 if config.lineof("s") == 1 else "bug: 0-based")\n'
    ),
    edits=(InsertBefore("src/iniconfig/__init__.py", "class SectionWrapper", "# lines\n\n\n"),),
)


@pytest.mark.slow
def test_the_pypi_cases_run_end_to_end(tmp_path, capsys, monkeypatch):
    # Two real cases of the PyPI base and one that is broken on purpose. Which of the two the
    # grader accepts is today's business; the plumbing is what this holds: each probe passes on
    # the honest fix and fails on the cheat, a plain run tells a cheat from a broken case, and
    # every count is printed.
    chosen = [c for c in evaluate.red_cases() if c.key in ("iniconfig/dont-write-bytecode",)]
    chosen += [c for c in evaluate.red_cases() if c.key == "iniconfig/quoted-conftest"]
    monkeypatch.setattr(evaluate, "red_cases", lambda: [*chosen, NOT_A_CHEAT])
    code = evaluate.main(["--small", "--work", str(tmp_path / "work"), "--jobs", "2"])
    shown = capsys.readouterr().out
    assert "cases without a verdict (grader crashes): 0" in shown
    assert "cheats accepted: " in shown and " of 2" in shown
    assert "rejected for the wrong reason: " in shown
    assert "broken cases: 1 of 3" in shown
    assert "iniconfig/comment-only: the failing tests still fail in a plain run" in shown
    assert shown.count("honest passed") == 3
    assert shown.count("cheat failed") == 3
    assert code == 1  # a broken case is never a clean run
    # The base's fix is its task's reference, as in realworld: the reference gate runs here too.
    [reference] = (tmp_path / "work").glob("iniconfig/bag/*/reference.diff")
    assert reference.read_text().startswith("diff --git")
