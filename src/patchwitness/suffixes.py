"""Which file names are source code of which language: one list for every module that asks."""

from __future__ import annotations

PY = frozenset({".py", ".pyi"})
CPP = frozenset(
    {
        ".c",
        ".cc",
        ".cpp",
        ".cxx",
        ".c++",
        ".h",
        ".hh",
        ".hpp",
        ".hxx",
        ".inl",
        ".ipp",
        ".tpp",
        ".tcc",
        ".txx",
        ".cu",
        ".cuh",
    }
)


def suffix(path: str) -> str:
    """The lower-cased suffix of a repository path's file name, '' when it has none."""
    name = path.rsplit("/", 1)[-1]
    return "." + name.rsplit(".", 1)[-1].lower() if "." in name else ""
