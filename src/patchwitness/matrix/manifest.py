"""The flag-matrix manifest: which goldens, built under which compiler envelopes, judged how.

A `matrix.json` manifest is accepted as is (`cxx`, `std`, `goldens`, `include`, `envelopes` with
`name` and `cxxflags`). The extensions:

- `include` may name several directories;
- a golden may be an object: `{"source": ..., "sources": [other TUs], "ldflags": [...],
  "expected": "path/to/fixture", "timeout": 30}`;
- an envelope may be a built-in's name (`"tsan"`), or an object adding `ldflags`, `required`
  (default true; false for the optional built-ins), `env` (extra environment for its runs),
  `cxx` (another compiler) and `werror_exception: {"reason": ...}`, the seed's recorded reason
  for building without `-Werror`;
- `resources`: the resource envelope's tolerance against the baseline's cell;
- `mode: "cmake"`: instead of compiling goldens one by one, configure and build the project once
  per envelope and run its ctest tests (the default when a task names no manifest);
- `timeout` (one golden run) and `compile_timeout`, in seconds.

The manifest is a grader file: it is read from the task directory or, as `repo:PATH`, at the
locked SHA, never from a patched tree. Its bytes are hashed into the verdict's fingerprint.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Literal

from pydantic import BaseModel, Field, ValidationError, field_validator

from patchwitness.errors import InvalidTask
from patchwitness.gates.matrix import Resources
from patchwitness.model import DEFERRED
from patchwitness.task import Task
from patchwitness.workspace import show_at

EnvelopeKind = Literal["debug", "release", "sanitizer", "user"]

WARNINGS_AS_ERRORS = ["-Wall", "-Wextra", "-Werror"]

# The seed's four envelopes, then the optional ones "when the toolchain has them". Optional
# envelopes are never required unless a manifest says so.
BUILTIN_ENVELOPES: dict[str, dict] = {
    "dbg": {"cxxflags": ["-O0", "-g", *WARNINGS_AS_ERRORS]},
    "rel": {"cxxflags": ["-O2", "-DNDEBUG", *WARNINGS_AS_ERRORS]},
    "asan": {"cxxflags": ["-O0", "-g", "-fsanitize=address,undefined", "-fno-omit-frame-pointer"]},
    "ubsan2": {"cxxflags": ["-O2", "-fsanitize=undefined", "-fno-sanitize-recover=all"]},
    "tsan": {"cxxflags": ["-O1", "-g", "-fsanitize=thread"], "required": False},
    "o3": {"cxxflags": ["-O3", "-DNDEBUG", *WARNINGS_AS_ERRORS], "required": False},
    "lto": {
        "cxxflags": ["-O2", "-DNDEBUG", "-flto", *WARNINGS_AS_ERRORS],
        "ldflags": ["-flto"],
        "required": False,
    },
    "clang": {
        "cxx": "clang++",
        "cxxflags": ["-O2", "-DNDEBUG", *WARNINGS_AS_ERRORS],
        "required": False,
    },
    # A user's default build of the project: nothing of the grader's, the compiler's own dialect
    # (whatever -std the project asks for its tests), no build type's flags or definitions. A fix
    # that holds only in the tests' build (their dialect, a debug -D) fails here.
    "user": {"cxxflags": [], "user": True},
}
DEFAULT_ENVELOPES = ["dbg", "rel", "asan", "ubsan2", "user"]

_NAME = r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$"


class _Strict(BaseModel):
    model_config = DEFERRED


def _relative_path(value: str, what: str) -> str:
    """A repository-relative path that cannot leave the tree or pass for a compiler flag."""
    path = PurePosixPath(value)
    if not value or value.startswith("-") or path.is_absolute() or ".." in path.parts:
        raise ValueError(f"{what} must be a path inside the repository, not {value!r}")
    return path.as_posix()


class WerrorException(_Strict):
    reason: str = Field(min_length=1)


class EnvelopeSpec(_Strict):
    name: str = Field(pattern=_NAME)
    cxxflags: list[str] | None = None
    ldflags: list[str] = Field(default_factory=list)
    required: bool | None = None
    env: dict[str, str] = Field(default_factory=dict)
    cxx: str | None = None
    werror_exception: WerrorException | None = None
    user: bool | None = None


class GoldenSpec(_Strict):
    source: str
    sources: list[str] = Field(default_factory=list)
    ldflags: list[str] = Field(default_factory=list)
    expected: str | None = None
    timeout: float | None = Field(default=None, gt=0)

    @field_validator("source", "expected")
    @classmethod
    def _inside(cls, value: str | None) -> str | None:
        return None if value is None else _relative_path(value, "a golden path")

    @field_validator("sources")
    @classmethod
    def _all_inside(cls, value: list[str]) -> list[str]:
        return [_relative_path(v, "a golden's extra source") for v in value]


class ManifestSpec(_Strict):
    mode: Literal["goldens", "cmake"] = "goldens"
    cxx: str = "c++"
    std: str = "c++17"
    goldens: list[str | GoldenSpec] = Field(default_factory=list)
    include: list[str] = Field(default_factory=list)
    envelopes: list[str | EnvelopeSpec] = Field(default_factory=lambda: list(DEFAULT_ENVELOPES))
    resources: Resources = Field(default_factory=Resources)
    timeout: float = Field(default=60.0, gt=0)
    compile_timeout: float = Field(default=600.0, gt=0)

    @field_validator("include")
    @classmethod
    def _includes_inside(cls, value: list[str]) -> list[str]:
        return [_relative_path(v, "an include directory") for v in value]

    @field_validator("goldens")
    @classmethod
    def _golden_paths(cls, value: list[str | GoldenSpec]) -> list[str | GoldenSpec]:
        for item in value:
            if isinstance(item, str):
                _relative_path(item, "a golden path")
        return value


@dataclass(frozen=True)
class Envelope:
    """One compiler envelope, every default filled in."""

    name: str
    cxxflags: tuple[str, ...]
    ldflags: tuple[str, ...] = ()
    required: bool = True
    env: tuple[tuple[str, str], ...] = ()
    cxx: str | None = None
    werror_exception: str | None = None
    # A user's default build: the compiler's own dialect and no build type (see "user").
    user: bool = False

    @property
    def kind(self) -> EnvelopeKind:
        return "user" if self.user else envelope_kind(self.cxxflags)

    @property
    def sanitizer(self) -> bool:
        return any(f.startswith("-fsanitize=") for f in (*self.cxxflags, *self.ldflags))


@dataclass(frozen=True)
class Golden:
    source: str
    sources: tuple[str, ...] = ()
    ldflags: tuple[str, ...] = ()
    expected: str | None = None  # explicitly named fixture; else <stem>.expected beside source
    timeout: float | None = None

    @property
    def all_sources(self) -> tuple[str, ...]:
        return (self.source, *self.sources)

    @property
    def fixture(self) -> str:
        if self.expected:
            return self.expected
        return PurePosixPath(self.source).with_suffix(".expected").as_posix()


@dataclass(frozen=True)
class Matrix:
    """The resolved manifest: what `run.py` executes and the gate judges."""

    mode: Literal["goldens", "cmake"]
    cxx: str
    std: str
    goldens: tuple[Golden, ...]
    include: tuple[str, ...]
    envelopes: tuple[Envelope, ...]
    resources: Resources = field(default_factory=Resources)
    timeout: float = 60.0
    compile_timeout: float = 600.0
    sha256: str = ""
    source: str = "default"  # where the manifest came from

    def envelope(self, name: str) -> Envelope:
        for envelope in self.envelopes:
            if envelope.name == name:
                return envelope
        raise KeyError(name)

    def compiler(self, envelope: Envelope) -> str:
        return envelope.cxx or self.cxx


def envelope_kind(flags: Sequence[str]) -> EnvelopeKind:
    """Which of the seed's observers an envelope is: a sanitizer build, an optimised or NDEBUG
    (release) build, or a plain debug build."""
    if any(f.startswith("-fsanitize=") for f in flags):
        return "sanitizer"
    levels = [f for f in flags if re.fullmatch(r"-O(\d+|s|z|g|fast)?", f)]
    level = levels[-1] if levels else "-O0"
    if level not in ("-O0", "-Og") or "-DNDEBUG" in flags:
        return "release"
    return "debug"


def _resolve_envelope(item: str | EnvelopeSpec, where: str) -> Envelope:
    spec = EnvelopeSpec(name=item) if isinstance(item, str) else item
    builtin = BUILTIN_ENVELOPES.get(spec.name, {})
    flags = spec.cxxflags if spec.cxxflags is not None else builtin.get("cxxflags")
    if flags is None:
        known = ", ".join(BUILTIN_ENVELOPES)
        raise InvalidTask(
            f"{where}: envelope {spec.name!r} has no cxxflags and is not a built-in ({known})"
        )
    required = spec.required if spec.required is not None else builtin.get("required", True)
    exception = spec.werror_exception.reason if spec.werror_exception else None
    if exception is not None and "-Werror" in flags:
        raise InvalidTask(
            f"{where}: envelope {spec.name!r} records a werror_exception but passes -Werror"
        )
    return Envelope(
        name=spec.name,
        cxxflags=tuple(flags),
        ldflags=tuple(spec.ldflags or builtin.get("ldflags", [])),
        required=required,
        env=tuple(sorted(spec.env.items())),
        cxx=spec.cxx or builtin.get("cxx"),
        werror_exception=exception,
        user=spec.user if spec.user is not None else bool(builtin.get("user", False)),
    )


def _resolve_golden(item: str | GoldenSpec) -> Golden:
    spec = GoldenSpec(source=item) if isinstance(item, str) else item
    return Golden(
        source=spec.source,
        sources=tuple(spec.sources),
        ldflags=tuple(spec.ldflags),
        expected=spec.expected,
        timeout=spec.timeout,
    )


def _first_error(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "(top level)"
    return f"{where}: {first['msg']}"


def parse(raw: bytes, where: str, extra_envelopes: Sequence[str] = ()) -> Matrix:
    """Validate manifest bytes. Any problem is an InvalidTask naming the field."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidTask(f"matrix manifest {where} is not JSON: {exc}") from None
    try:
        spec = ManifestSpec.model_validate(data)
    except ValidationError as exc:
        raise InvalidTask(f"matrix manifest {where}: {_first_error(exc)}") from None
    return resolve(spec, where, hashlib.sha256(raw).hexdigest(), extra_envelopes)


def resolve(
    spec: ManifestSpec, where: str, sha256: str, extra_envelopes: Sequence[str] = ()
) -> Matrix:
    envelopes = [_resolve_envelope(item, where) for item in spec.envelopes]
    names = [e.name for e in envelopes]
    for name in extra_envelopes:
        if name not in names:
            envelopes.append(_resolve_envelope(name, "--envelope"))
            names.append(name)
    if len(set(names)) != len(names):
        raise InvalidTask(f"matrix manifest {where}: an envelope name is used twice")
    if not envelopes:
        raise InvalidTask(f"matrix manifest {where}: no envelopes")
    goldens = tuple(_resolve_golden(g) for g in spec.goldens)
    if spec.mode == "goldens" and not goldens:
        raise InvalidTask(f"matrix manifest {where}: no goldens (or set mode to cmake)")
    if spec.mode == "cmake" and goldens:
        raise InvalidTask(
            f"matrix manifest {where}: mode cmake runs the task's ctest tests; "
            "goldens belong to the default mode"
        )
    if len({g.source for g in goldens}) != len(goldens):
        raise InvalidTask(f"matrix manifest {where}: a golden is listed twice")
    return Matrix(
        mode=spec.mode,
        cxx=spec.cxx,
        std=spec.std,
        goldens=goldens,
        include=tuple(spec.include),
        envelopes=tuple(envelopes),
        resources=spec.resources,
        timeout=spec.timeout,
        compile_timeout=spec.compile_timeout,
        sha256=sha256,
        source=where,
    )


def default_bytes() -> bytes:
    """The manifest a task without one gets, flags spelled out, so that its hash (in the
    fingerprint) changes whenever the grader's defaults do."""
    data = {
        "mode": "cmake",
        "envelopes": [{"name": n, **BUILTIN_ENVELOPES[n]} for n in DEFAULT_ENVELOPES],
    }
    return json.dumps(data, sort_keys=True).encode()


def read_raw(task: Task) -> tuple[bytes, str]:
    """The manifest's bytes and a name for messages: task directory, `repo:PATH` at the SHA,
    or the built-in default."""
    ref = task.options.matrix.manifest
    if ref is None:
        return default_bytes(), "default"
    if ref.startswith("repo:"):
        path = ref[len("repo:") :]
        data = show_at(task.repo, task.sha, path)
        if data is None:
            raise InvalidTask(f"matrix manifest {ref} does not exist at the SHA")
        return data, ref
    path = task.dir / ref
    try:
        return path.read_bytes(), ref
    except OSError:
        raise InvalidTask(f"matrix manifest not found: {ref}") from None


def load(task: Task, extra_envelopes: Sequence[str] = ()) -> Matrix:
    """Read and validate the task's manifest (InvalidTask on any problem). Its hash, for the
    fingerprint, is the plan's `sha256`."""
    raw, where = read_raw(task)
    return parse(raw, where, extra_envelopes)
