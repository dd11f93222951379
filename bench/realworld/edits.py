"""Programmatic edits: how a case injects its bug and how each patch changes the tree.

Every edit checks that the text it expects is there (exactly as often as it says), so a case that
no longer fits its pinned source fails loudly instead of producing a patch that does nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path


class EditError(Exception):
    """An edit does not fit the tree: the anchor is missing or ambiguous."""


def _read(root: Path, path: str) -> str:
    try:
        return (root / path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise EditError(f"{path}: no such file") from None


@dataclass(frozen=True)
class Replace:
    """Replace `old` by `new`; `old` must occur exactly `count` times (0: at least once, all)."""

    path: str
    old: str
    new: str
    count: int = 1

    def apply(self, root: Path) -> None:
        text = _read(root, self.path)
        found = text.count(self.old)
        if found == 0 or (self.count and found != self.count):
            want = "at least once" if not self.count else f"{self.count} time(s)"
            raise EditError(f"{self.path}: expected {self.old!r} {want}, found {found}")
        (root / self.path).write_text(text.replace(self.old, self.new), encoding="utf-8")


@dataclass(frozen=True)
class Sub:
    """A regular-expression substitution that must match exactly `count` times (0: >= 1)."""

    path: str
    pattern: str
    repl: str
    count: int = 1
    flags: int = re.MULTILINE

    def apply(self, root: Path) -> None:
        text = _read(root, self.path)
        new, found = re.subn(self.pattern, self.repl, text, flags=self.flags)
        if found == 0 or (self.count and found != self.count):
            raise EditError(f"{self.path}: /{self.pattern}/ matched {found} time(s)")
        (root / self.path).write_text(new, encoding="utf-8")


@dataclass(frozen=True)
class InsertAfter:
    """Insert `text` right after the single occurrence of `anchor`."""

    path: str
    anchor: str
    text: str

    def apply(self, root: Path) -> None:
        Replace(self.path, self.anchor, self.anchor + self.text).apply(root)


@dataclass(frozen=True)
class InsertBefore:
    path: str
    anchor: str
    text: str

    def apply(self, root: Path) -> None:
        Replace(self.path, self.anchor, self.text + self.anchor).apply(root)


@dataclass(frozen=True)
class Append:
    path: str
    text: str

    def apply(self, root: Path) -> None:
        text = _read(root, self.path)
        (root / self.path).write_text(text + self.text, encoding="utf-8")


@dataclass(frozen=True)
class Write:
    """Create (or overwrite) a file."""

    path: str
    text: str

    def apply(self, root: Path) -> None:
        target = root / self.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(self.text, encoding="utf-8")


@dataclass(frozen=True)
class Delete:
    path: str

    def apply(self, root: Path) -> None:
        try:
            (root / self.path).unlink()
        except FileNotFoundError:
            raise EditError(f"{self.path}: no such file to delete") from None


Edit = Replace | Sub | InsertAfter | InsertBefore | Append | Write | Delete


def apply_all(root: Path, edits: tuple[Edit, ...]) -> None:
    for edit in edits:
        edit.apply(root)
