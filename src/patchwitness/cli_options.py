"""A command's parameters as frozen dataclasses, declared once and shared between commands.

Each field of an options class is one typer parameter (`Annotated[type, typer.Option(...)]` or
`typer.Argument`) with its default. `command_of(*classes)` turns a function of one instance per
class into the function typer reads: its parameters are the classes' fields, in order. The
options several commands share (how to grade, where to write a verdict) are one class, so a
command says what it takes in a few names, and a shared option cannot drift between commands.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import typing
from collections.abc import Callable
from typing import Any, TypeVar

R = TypeVar("R")


def parameters(options: type) -> list[inspect.Parameter]:
    """The typer parameters an options class declares, in field order (keyword-only, so that a
    required field may follow one with a default, as a required option may)."""
    hints = typing.get_type_hints(options, include_extras=True)
    out = []
    for field in dataclasses.fields(options):
        default = inspect.Parameter.empty if field.default is dataclasses.MISSING else field.default
        out.append(
            inspect.Parameter(
                field.name,
                inspect.Parameter.KEYWORD_ONLY,
                default=default,
                annotation=hints[field.name],
            )
        )
    return out


def command_of(*classes: type) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """A decorator: the command `fn(a: A, b: B)` becomes a function of A's and B's fields, each
    instance built from the values typer parsed."""

    def wrap(fn: Callable[..., R]) -> Callable[..., R]:
        params = [p for options in classes for p in parameters(options)]
        names = [p.name for p in params]
        if len(set(names)) != len(names):
            raise TypeError(f"{fn.__name__}: two option classes declare one name: {names}")

        @functools.wraps(fn)
        def command(**values: Any) -> R:
            return fn(*(_make(options, values) for options in classes))

        # typer reads the signature and the type hints; `wraps` copied the command's own.
        command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
        command.__annotations__ = {p.name: p.annotation for p in params}
        del command.__wrapped__  # type: ignore[attr-defined]
        return command

    return wrap


def _make(options: type, values: dict[str, Any]) -> Any:
    return options(**{f.name: values[f.name] for f in dataclasses.fields(options)})
