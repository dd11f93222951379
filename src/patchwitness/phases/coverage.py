"""Coverage on the hunk: the line hits of the run the failing tests ran in, joined with the
patch's production hunks: what the run shows of each line (the coverage gate scores it)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from patchwitness import languages, patched_text
from patchwitness.classify import PRODUCTION, compiled_source
from patchwitness.facts import CoverageCollected, FileLines
from patchwitness.hits import collect as collect_hits
from patchwitness.hits import unmeasured
from patchwitness.hits.hunk import observe, patched_sources
from patchwitness.model import CoverageFacts
from patchwitness.patch import FileChange
from patchwitness.phases.apply import Applied
from patchwitness.phases.context import GradeContext
from patchwitness.suites import SuiteRun


@dataclass(frozen=True)
class CoverageRead:
    """The coverage gate's facts, and what they were read from: the run's hits of the patched
    production sources (the pinning phase reads their decisions)."""

    collected: CoverageCollected
    hits: dict[str, FileLines]
    sources: list[FileChange]


def collect_coverage(
    ctx: GradeContext,
    applied: Applied,
    measured: SuiteRun,
    tree: Path,
    scratch: Path,
    patched: patched_text.TextFacts,
) -> CoverageRead:
    """The coverage gate's facts: the hits of the `measured` run (its data in `scratch`) joined
    with the production hunks, read against `patched`: the patched files' text before the
    run, and its Python statements."""
    task, base, settings = ctx.task, ctx.base, ctx.settings
    patch, classes, after = applied.patch, applied.classes, measured
    production = [c for c in patch.files if classes[c.path].kind == PRODUCTION]
    # C and C++ are executable source in a C++ task, and in a Python task whose extension the
    # run built with gcov's flags; a header without a suffix is known by its content.
    native = languages.of(task).compiled(base)
    known = frozenset(
        c.path
        for c in production
        if native and compiled_source(classes[c.path], patched.texts.get(c.path))
    )
    sources = patched_sources(production, languages.of(task).source_suffixes, known)
    # A file whose program the patch left as it was has no line the patch changed (layout.py).
    reformatted = [c.path for c in sources if c.path in patched.layout_only]
    sources = [c for c in sources if c.path not in reformatted]
    measurable = base.instrumentation is not None
    hits: dict = {}
    found, why, tool_failure = True, "", ""
    unseen: list[str] = []
    if sources and measurable:
        # gcovr runs gcov on files the code under grade wrote: through the runner.
        read = collect_hits(
            after.coverage,
            tree,
            scratch,
            [c.path for c in sources],
            settings.runner,
            patched.statements,
        )
        # The tool failing on data the run left is the grader's trouble; no data is the run's.
        found = read.files is not None or read.tool_failed
        why = "" if read.tool_failed else read.why
        tool_failure = read.why if read.tool_failed else ""
        hits = read.files or {}
        unseen = unmeasured(after.coverage, [c.path for c in sources])
        if unseen:
            # A file a test ran as a script is one the probes never see: it is left out, not
            # scored as unrun; when it is all the patch changed, coverage is not measurable.
            sources = [c for c in sources if c.path not in unseen]
            measurable = bool(sources)
    texts = {c.path: patched.texts.get(c.path) or "" for c in sources}
    seen = observe(sources, hits, texts)
    facts = CoverageFacts()
    if unseen:
        facts.notes.append(f"run as a script, not measured: {', '.join(unseen)}")
    if reformatted:
        facts.notes.append(f"layout only, the same program: {', '.join(reformatted)}")
    facts.language = task.language
    facts.one_run = True
    facts.instrumentation = base.instrumentation.describe() if measurable else ""
    facts.trials = list(base.coverage_trials)
    languages.of(task).coverage_notes(facts, task, base)
    facts.test_hunks = {
        c.path: list(c.added_lines) for c in patch.files if classes[c.path].kind != PRODUCTION
    }
    collected = CoverageCollected(
        touches_source=bool(sources or unseen),
        measurable=measurable,
        data_found=found,
        why_no_data=why,
        tool_failure=tool_failure,
        facts=facts,
        seen=seen,
    )
    return CoverageRead(collected, hits if measurable else {}, sources)
