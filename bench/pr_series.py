"""`patchwitness pr` on a series of commits (issue 25): the last N commits of a real project
replayed as N pull requests, each against its parent, beside a plain incremental build and test
of the same commit.

Input: a project by repository and commit, from a local copy: --source DIR, the variable
PW_SRC_OWNER_NAME, or $PW_SNAPSHOTS/owner+name (as bench/realworld finds its sources). Nothing is
downloaded but a Python project's own test requirements (its environment, from the package
index). `--project gsl` (default): a GoogleTest project, microsoft/GSL at ea559a3.
`--project pluggy`: a Python one, pytest-dev/pluggy at e382e72, whose baseline follows the
branch (only the test files whose imports changed run again).

  replay  a new repository whose commits hold the trees of the project's last N+1 commits, each
          with a task directory `.patchwitness/` added (configure, build, test: the whole ctest
          suite). The grader reads it at each pull request's base, as `patchwitness pr` does in a
          project that keeps one.
  grade   `grade_pull_request(replay, ".patchwitness", parent, commit)`, default settings (warm
          trees, every gate, the flag matrix), one cache for the whole series: the first pull
          request's grade is a first grade at a commit the grader has never seen, every later
          one a grade at a new commit near a graded one (its warm slot moves).
  peer    one build tree that follows the series, as a developer's does: checkout of the
          commit, the build system's incremental build, ctest (a Python project: the test run,
          in one environment made at the first base). Its configure and build from nothing at
          the first base is the cold peer of the first grade.

Each pull request prints its files, the grade, the peer, their ratio and the verdict; then the
median ratio over the series, and the first grade against the cold configure + build + test.
Upstream commits are honest changes: a verdict other than accept is printed for a reader to
look at.

    .venv/bin/python bench/pr_series.py [--project gsl|pluggy] [--commits 10] [--source DIR]
                                        [--sandbox none]
"""

from __future__ import annotations

import argparse
import itertools
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (
    Cost,
    heading,
    line,
    load_note,
    median,
    median_cost,
    phase_seconds,
    print_ratio,
    private_cache,
    sandbox_runner,
    seen_cost,
    timed,
)
from cpp_grade_overhead import sh
from realworld.case import GitSource
from realworld.sources import Unavailable, git, local_copy

from patchwitness.pr import grade_pull_request
from patchwitness.settings import Settings


@dataclass(frozen=True)
class Project:
    source: GitSource
    configure: str  # once, at the first base: the peer's build tree or environment from nothing
    build: str  # at every commit, after the checkout ("" when nothing is built)
    test: str
    task_files: dict[str, str]


GSL_CONFIGURE = 'cmake -S . -B "$PW_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Debug'
GSL_BUILD = 'cmake --build "$PW_BUILD"'
GSL_TEST = 'ctest --test-dir "$PW_BUILD" --output-on-failure'
PLUGGY_SETUP = 'python3 -m venv "$PW_ENV" && "$PW_ENV/bin/pip" install --quiet -e . pytest'
PROJECTS = {
    "gsl": Project(
        GitSource("microsoft/GSL", "ea559a35613a5bbf6889729c4a870c5196acdc4a"),
        GSL_CONFIGURE,
        GSL_BUILD,
        GSL_TEST,
        {
            "test_cmd.txt": GSL_TEST + "\n",
            "task.toml": (
                f"language = \"cpp\"\ntimeout = 900\n[cpp]\nconfigure = '{GSL_CONFIGURE}'\n"
                f"build = '{GSL_BUILD}'\n"
            ),
        },
    ),
    "pluggy": Project(
        GitSource("pytest-dev/pluggy", "e382e72789f8d791991c489d4322aa04e660b952"),
        PLUGGY_SETUP,
        "",
        '"$PW_ENV/bin/python" -m pytest -q testing',
        {
            "test_cmd.txt": "python -m pytest -q testing\n",
            # The environment keyed on what pip reads, as a user who gates pull requests keys
            # it: a commit that leaves pyproject.toml alone reuses the one made before.
            "task.toml": (
                f"language = \"python\"\ntimeout = 900\nsetup = '{PLUGGY_SETUP}'\n"
                'setup_depends_on = ["pyproject.toml"]\n'
            ),
        },
    ),
}


def replay(
    source: Path, commit: str, count: int, where: Path, task_files: dict[str, str]
) -> list[tuple[str, str, int]]:
    """The last `count` + 1 commits up to `commit` (first parents), each re-committed with the
    task directory added. Returns (replayed SHA, upstream subject, files changed) per commit,
    oldest first."""
    upstream = git(source, "rev-list", "--first-parent", f"--max-count={count + 1}", commit)
    shas = list(reversed(upstream.split()))
    git(where.parent, "init", "-q", str(where))
    made: list[tuple[str, str, int]] = []
    for sha in shas:
        git(where, "rm", "-rq", "--ignore-unmatch", ".")
        archive = subprocess.run(
            ["git", "archive", "--format=tar", sha], cwd=source, capture_output=True, check=True
        )
        subprocess.run(["tar", "-x"], cwd=where, input=archive.stdout, check=True)
        for name, text in task_files.items():
            (where / ".patchwitness").mkdir(exist_ok=True)
            (where / ".patchwitness" / name).write_text(text)
        git(where, "add", "-A")
        subject = git(source, "log", "-1", "--format=%s", sha)
        git(where, "commit", "-qm", subject, "--allow-empty")
        # The upstream's last release, as a tag: a version read from git history
        # (setuptools-scm) is then the project's, not 0.1 (which pip pairs with an ancient pytest).
        released = git(source, "describe", "--tags", "--abbrev=0", sha, check=False)
        if released and not git(where, "tag", "--list", released):
            git(where, "tag", released)
        files = git(source, "diff", "--name-only", f"{sha}~1", sha).splitlines() if made else []
        made.append((git(where, "rev-parse", "HEAD"), subject, len(files)))
    return made


class Peer:
    """One build tree following the series: checkout, incremental build, the tests."""

    def __init__(self, repo: Path, where: Path, project: Project) -> None:
        subprocess.run(["git", "clone", "--quiet", str(repo), str(where)], check=True)
        self.tree = where
        self.project = project
        self.env = {**os.environ, "PW_BUILD": str(where / "build"), "PW_ENV": str(where / "env")}

    def cold(self, sha: str) -> Cost:
        def from_nothing() -> None:
            sh(f"git -c advice.detachedHead=false checkout --quiet {sha}", self.tree, self.env)
            sh(self.project.configure, self.tree, self.env)
            self._build()
            self._test()

        return timed(from_nothing)[0]

    def incremental(self, sha: str) -> Cost:
        def step() -> None:
            sh(f"git -c advice.detachedHead=false checkout --quiet {sha}", self.tree, self.env)
            self._build()  # ninja re-runs CMake itself when a CMakeLists changed
            self._test()

        return timed(step)[0]

    def _build(self) -> None:
        if self.project.build:
            sh(self.project.build, self.tree, self.env)

    def _test(self) -> None:
        subprocess.run(
            self.project.test, shell=True, cwd=self.tree, env=self.env, capture_output=True
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", choices=sorted(PROJECTS), default="gsl")
    parser.add_argument("--commits", type=int, default=10)
    parser.add_argument("--quick", action="store_true", help="three pull requests")
    parser.add_argument("--source", type=Path, help="a local copy of the project")
    parser.add_argument("--sandbox", default="none")
    args = parser.parse_args(argv)
    count = 3 if args.quick else max(1, args.commits)
    project = PROJECTS[args.project]
    upstream = project.source
    try:
        source = args.source or local_copy(upstream, None)
    except Unavailable as why:
        print(f"skipped: {why}")
        return 0
    runner, described = sandbox_runner(args.sandbox)
    heading(
        f"patchwitness pr on {count} upstream commits vs a plain incremental build; {load_note()}"
    )
    with tempfile.TemporaryDirectory(prefix="pw-pr-series-") as tmp, private_cache():
        root = Path(tmp)
        series = replay(source, upstream.commit, count, root / "replay", project.task_files)
        line(
            f"input: {upstream.repo}, the {count} commits up to {upstream.commit[:12]} as pull "
            f"requests (the whole suite: {project.test}); sandbox {described}"
        )
        peer = Peer(root / "replay", root / "peer", project)
        cold = peer.cold(series[0][0])
        settings = Settings(runner=runner)
        ratios: list[float] = []
        grades: list[Cost] = []
        plains: list[Cost] = []
        first = None
        for (base, _, _), (head, subject, files) in itertools.pairwise(series):
            cost, verdict = timed(
                lambda b=base, h=head: grade_pull_request(
                    root / "replay", ".patchwitness", b, h, settings=settings
                )
            )
            cost = seen_cost(cost, runner)
            plain = peer.incremental(head)
            first = first or cost
            grades.append(cost)
            plains.append(plain)
            ratios.append(cost.wall / max(plain.wall, 1e-9))
            slowest = list(phase_seconds(verdict).items())[:3]
            line(
                f"{subject[:48]:48} {files:3} files  grade {cost.wall:6.1f} s  plain "
                f"{plain.wall:5.1f} s  {ratios[-1]:5.1f}x  {verdict.label}/{verdict.grade}  "
                + ", ".join(f"{n} {s:.0f} s" for n, s in slowest)
            )
        line(f"cold plain configure + build + test at the first base: {cold}")
        near = slice(1, None) if len(grades) > 1 else slice(None)
        print_ratio(
            "pr grade at a new commit near a graded one / plain incremental build and test",
            median_cost(grades[near]),
            median_cost(plains[near]),
            f"{upstream.repo}, medians of pull requests 2 to {count}; median of the paired "
            f"ratios {median(ratios[near]):.2f}x",
        )
        if first is not None:
            print_ratio(
                "first pr grade at an unseen commit (baseline included) / cold plain "
                "configure + build + test",
                first,
                cold,
                f"{upstream.repo} at its first base",
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
