"""Census items, inventories and the diff between two inventories. Pure: no I/O here.

An inventory is a multiset of keys. A key names a witness by what it is, not where it sits:
(kind, file, scope, name, fingerprint of the normalized expression). Line numbers are kept for the
reader but are not part of the key, so inserting a comment above a test changes nothing, while
deleting one of two identical asserts removes one copy of the key.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, fields

# Item kinds. `test` is a named test (function, method, TEST macro, TEST_CASE); `case` is one
# parametrized case or Catch2 SECTION; `assert` is one assertion; `skip` is a skip, xfail or
# disable marker; `define` is a (re)definition of an assertion or test macro or function.
KINDS = ("test", "case", "assert", "skip", "define")
# The kinds of item that are a test: a test function or class, and a case inside a test program.
TEST_KINDS = frozenset({"test", "case"})


def kind_of(key: str) -> str:
    """The kind of an inventory key `kind|file|scope|name|fp`."""
    return key.split("|", 1)[0]


def is_test(kind: str) -> bool:
    return kind in TEST_KINDS


INVENTORY_VERSION = 1


def fingerprint(normalized: str) -> str:
    """A short stable hash of an already normalized expression."""
    return hashlib.sha256(normalized.encode("utf-8")).hexdigest()[:12]


_SPACE = re.compile(r"\s+")


def squeeze(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


@dataclass(frozen=True, slots=True)
class Item:
    kind: str
    file: str
    scope: str
    name: str
    fp: str
    line: int
    text: str
    lang: str = "py"

    @property
    def key(self) -> str:
        return f"{self.kind}|{self.file}|{self.scope}|{self.name}|{self.fp}"


@dataclass
class Inventory:
    """Every item found under a root, plus the hashes of test and infrastructure files."""

    items: list[Item] = field(default_factory=list)
    test_files: dict[str, str] = field(default_factory=dict)
    unreadable: list[str] = field(default_factory=list)
    root: str = ""

    def counts(self) -> Counter[str]:
        return Counter(item.key for item in self.items)

    def assertion_count(self) -> int:
        return sum(1 for item in self.items if item.kind == "assert")

    def without_asserts_of(self, files: Iterable[str]) -> Inventory:
        """This inventory without the assertions of `files`. Only assertions: a test macro
        (re)defined, a skip or a test in a production file stays a fact about the run."""
        gone = set(files)
        if not gone:
            return self
        kept = [it for it in self.items if not (it.kind == "assert" and it.file in gone)]
        return Inventory(kept, self.test_files, self.unreadable, self.root)

    def replace_files(self, other: Inventory, files: Iterable[str]) -> Inventory:
        """This inventory with the items and hashes of `files` taken from `other`.

        The after-snapshot of a patch re-scans only the files the patch touched and splices them
        into the before-snapshot, so its cost follows the patch size, not the repository size.
        """
        touched = set(files)
        items = [it for it in self.items if it.file not in touched]
        items += [it for it in other.items if it.file in touched]
        hashes = {p: h for p, h in self.test_files.items() if p not in touched}
        hashes.update({p: h for p, h in other.test_files.items() if p in touched})
        unreadable = [p for p in self.unreadable if p not in touched]
        unreadable += [p for p in other.unreadable if p in touched]
        return Inventory(sorted(items, key=sort_key), hashes, sorted(unreadable), self.root)

    def to_json(self) -> dict:
        return {
            "version": INVENTORY_VERSION,
            "root": self.root,
            "count": len(self.items),
            # Not dataclasses.asdict: it deep-copies, and an inventory can hold 200,000 items.
            "items": [{name: getattr(item, name) for name in ITEM_FIELDS} for item in self.items],
            "test_files": dict(sorted(self.test_files.items())),
            "unreadable": self.unreadable,
        }

    @classmethod
    def from_json(cls, data: dict) -> Inventory:
        if not isinstance(data, dict) or data.get("version") != INVENTORY_VERSION:
            raise ValueError("not a patchwitness census file (missing or unknown 'version')")
        items = [Item(**raw) for raw in data.get("items", [])]
        return cls(
            items=items,
            test_files=dict(data.get("test_files", {})),
            unreadable=list(data.get("unreadable", [])),
            root=str(data.get("root", "")),
        )


ITEM_FIELDS = tuple(f.name for f in fields(Item))


def sort_key(item: Item) -> tuple:
    return (item.file, item.line, item.kind, item.name, item.fp)


@dataclass
class CensusDiff:
    """What changed between two inventories, and the census verdict."""

    before: int
    after: int
    before_assertions: int
    after_assertions: int
    removed: list[str]
    added: list[str]
    unexpected_removals: list[str]
    allowlisted_removals: list[str]
    weakened: list[dict]
    disabled: list[str]
    macro_redefinitions: list[str]
    infra_edits: list[str]
    test_files_changed: list[str]
    unreadable: list[str]

    @property
    def verdict(self) -> str:
        if self.failures():
            return "fail"
        if self.allowlisted_removals:
            return "review"
        return "pass"

    def failures(self) -> list[str]:
        """The reasons this census fails, in a fixed order; empty when it does not."""
        out = []
        if self.unexpected_removals:
            out.append("removed")
        if self.weakened:
            out.append("weakened")
        if self.disabled:
            out.append("disabled")
        if self.macro_redefinitions:
            out.append("macro-redefined")
        if self.infra_edits:
            out.append("infra-edited")
        if self.unreadable:
            out.append("unreadable")
        return out

    def report(self) -> dict:
        return {
            "before": self.before,
            "after": self.after,
            "removed": self.removed,
            "added": self.added,
            "unexpected_removals": self.unexpected_removals,
            "verdict": "fail" if self.verdict == "fail" else "pass",
            "grade_hint": self.verdict,
            "allowlisted_removals": self.allowlisted_removals,
            "weakened": self.weakened,
            "disabled": self.disabled,
            "macro_redefinitions": self.macro_redefinitions,
            "infra_edits": self.infra_edits,
            "test_files_changed": self.test_files_changed,
            "unreadable": self.unreadable,
            "before_assertions": self.before_assertions,
            "after_assertions": self.after_assertions,
        }


def multiset_minus(a: Counter[str], b: Counter[str]) -> list[str]:
    """Keys of `a` not matched in `b`, one entry per missing copy, sorted."""
    out: list[str] = []
    for key, count in sorted((a - b).items()):
        out.extend([key] * count)
    return out


def diff_inventories(
    before: Inventory,
    after: Inventory,
    allow_remove: Iterable[str] = (),
    infra_edits: Iterable[str] = (),
    production: Iterable[str] = (),
) -> CensusDiff:
    """Compare two inventories. `infra_edits` are test-infrastructure files edited without leave.
    `production`: touched files that are the code under test, whose assertions are no test's: an
    `assert` or `static_assert` a fix adds to or takes from a library is not a test assertion
    gained or lost; a test macro the file redefines still is a redefinition
    (red team round 14: an honest fix with a `static_assert` was `no-op`)."""
    before, after = before.without_asserts_of(production), after.without_asserts_of(production)
    b, a = before.counts(), after.counts()
    removed = multiset_minus(b, a)
    added = multiset_minus(a, b)
    meaning = what_it_means(removed, added, allow_remove)
    changed = sorted(
        p
        for p in set(before.test_files) | set(after.test_files)
        if before.test_files.get(p) != after.test_files.get(p)
    )
    return CensusDiff(
        before=len(before.items),
        after=len(after.items),
        before_assertions=before.assertion_count(),
        after_assertions=after.assertion_count(),
        removed=removed,
        added=added,
        unexpected_removals=meaning.unexpected,
        allowlisted_removals=meaning.allowlisted,
        weakened=meaning.weakened,
        disabled=meaning.disabled,
        macro_redefinitions=meaning.redefinitions,
        infra_edits=sorted(set(infra_edits)),
        test_files_changed=changed,
        unreadable=sorted(set(after.unreadable) - set(before.unreadable)),
    )


@dataclass(frozen=True)
class Meaning:
    """What a census diff's removed and added keys mean (`what_it_means`)."""

    unexpected: list[str]  # removed, and no allowlist entry covers it
    allowlisted: list[str]  # removed with leave: one allowlist entry per copy
    weakened: list[dict]  # tests that lost an assertion and gained another
    disabled: list[str]  # skip markers added
    redefinitions: list[str]  # assertion or test machinery (re)defined


def what_it_means(removed: list[str], added: list[str], allow_remove: Iterable[str]) -> Meaning:
    """The removals the allowlist covers and those it does not, the tests weakened, the skips
    added and the machinery redefined, from the keys a diff removed and added. Pure: the judge
    asks it of stored keys, so a stored grade is read again by the code that judges it."""
    allow = Counter(allow_remove)
    unexpected: list[str] = []
    allowlisted: list[str] = []
    for key in removed:
        if allow[key] > 0:
            allow[key] -= 1
            allowlisted.append(key)
        else:
            unexpected.append(key)
    return Meaning(
        unexpected=unexpected,
        allowlisted=allowlisted,
        weakened=weakened_tests(removed, added),
        disabled=[k for k in added if kind_of(k) == "skip"],
        redefinitions=[k for k in added if kind_of(k) == "define"],
    )


def split_key(key: str) -> tuple[str, str, str, str, str]:
    kind, file, rest = key.split("|", 2)
    scope, name, fp = rest.rsplit("|", 2)
    return kind, file, scope, name, fp


def weakened_tests(removed: list[str], added: list[str]) -> list[dict]:
    """Tests that lost an assertion and gained another: the same witness, rewritten."""
    lost: dict[tuple[str, str], list[str]] = {}
    for key in removed:
        kind, file, scope, _, _ = split_key(key)
        if kind == "assert" and scope:
            lost.setdefault((file, scope), []).append(key)
    out = []
    for key in added:
        kind, file, scope, _, _ = split_key(key)
        if kind == "assert" and (file, scope) in lost:
            entry = next((w for w in out if w["file"] == file and w["scope"] == scope), None)
            if entry is None:
                entry = {"file": file, "scope": scope, "removed": lost[(file, scope)], "added": []}
                out.append(entry)
            entry["added"].append(key)
    return out
