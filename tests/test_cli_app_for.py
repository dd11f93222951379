"""`cli.app_for`: a command line that names a command is parsed by an app holding only that
command. Whatever a person sees must be the same as from the whole app: help, usage errors,
exit codes. Each case runs both apps and compares."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from patchwitness import cli

TOP_LEVEL = sorted(cli.command_name(c) for c in cli.app.registered_commands)
GROUPS = sorted(g.name for g in cli.app.registered_groups if g.name)


def both(args: list[str]) -> tuple[tuple[int, str], tuple[int, str]]:
    runner = CliRunner()
    whole = runner.invoke(cli.app, args, prog_name="patchwitness")
    alone = runner.invoke(cli.app_for(args), args, prog_name="patchwitness")
    return (whole.exit_code, whole.output), (alone.exit_code, alone.output)


def test_every_command_and_group_is_found():
    assert {"grade", "report", "version", "schema", "tables"} <= set(TOP_LEVEL)
    assert {"bag", "census", "import", "matrix"} <= set(GROUPS)
    for name in TOP_LEVEL + GROUPS:
        solo = cli.app_for([name, "--help"])
        assert solo is not cli.app, name
        assert len(solo.registered_commands) + len(solo.registered_groups) == 1, name


@pytest.mark.parametrize("name", TOP_LEVEL + GROUPS)
def test_help_is_the_same(name: str):
    whole, alone = both([name, "--help"])
    assert whole[0] == 0
    assert alone == whole


@pytest.mark.parametrize(
    "args",
    [
        ["grade"],  # missing arguments
        ["grade", "t", "p", "--bogus"],  # an option it does not have
        ["grade", "t", "p", "--baseline-runs", "many"],  # a value of the wrong type
        ["bag", "run", "--help"],
        ["bag", "nonesuch"],
        ["census", "write", "--help"],
        ["matrix", "promote", "--help"],
        ["matrix", "/nonexistent"],  # the matrix group rewrites a task directory into `run`
        ["report"],
    ],
)
def test_usage_errors_and_nested_help_are_the_same(args: list[str]):
    whole, alone = both(args)
    assert alone == whole
    assert whole[1]  # something was said


@pytest.mark.parametrize("args", [[], ["--help"], ["grdae", "t", "p"], ["--version"]])
def test_what_names_no_command_goes_to_the_whole_app(args: list[str]):
    assert cli.app_for(args) is cli.app


def test_version_runs_alone():
    whole, alone = both(["version"])
    assert whole[0] == 0
    assert alone == whole
