"""Commands whose parameters are option classes (cli_options.command_of): typer parses them as
if they were written out, and the command gets one instance per class."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import pytest
import typer
from typer.testing import CliRunner

from patchwitness.cli_options import command_of


@dataclass(frozen=True)
class Target:
    where: Annotated[Path, typer.Argument(help="where")]
    # A required option after a default one: allowed, as on a command line.
    count: Annotated[int, typer.Option(help="how many")] = 1
    name: Annotated[str, typer.Option("--name", help="a name")] = "x"
    must: Annotated[str, typer.Option("--must", help="required")] = ...  # type: ignore[assignment]


@dataclass(frozen=True)
class Shared:
    loud: Annotated[bool, typer.Option("--loud", help="say more")] = False


def app_with(seen: list) -> typer.Typer:
    app = typer.Typer()

    @app.command()
    @command_of(Target, Shared)
    def go(target: Target, shared: Shared) -> None:
        """Go somewhere."""
        seen.append((target, shared))

    @app.command()
    def other() -> None:
        pass

    return app


def test_each_class_gets_its_own_fields_as_parsed():
    seen: list = []
    result = CliRunner().invoke(
        app_with(seen), ["go", "a/b", "--count", "3", "--loud", "--must", "m"]
    )
    assert result.exit_code == 0, result.output
    assert seen == [(Target(Path("a/b"), 3, "x", "m"), Shared(loud=True))]


def test_defaults_hold_and_a_required_option_is_required():
    seen: list = []
    app = app_with(seen)
    assert CliRunner().invoke(app, ["go", "p", "--must", "m"]).exit_code == 0
    assert seen[-1] == (Target(Path("p"), 1, "x", "m"), Shared())
    missing = CliRunner().invoke(app, ["go", "p"])
    assert missing.exit_code == 2 and "--must" in missing.output


def test_help_is_the_command_docstring_and_every_option():
    result = CliRunner().invoke(app_with([]), ["go", "--help"])
    assert result.exit_code == 0
    for said in ("Go somewhere.", "--count", "--name", "--must", "--loud", "how many"):
        assert said in result.output


def test_two_classes_declaring_one_name_are_refused():
    @dataclass(frozen=True)
    class Again:
        loud: bool = False

    with pytest.raises(TypeError, match="loud"):
        command_of(Shared, Again)(lambda a, b: None)
