"""JUnit XML: one testcase per verdict (task x agent), for CI dashboards.

classname is the task, name the agent. A reject is a <failure> whose message is the reasons, one
line each; an ungradable verdict is an <error>. <skipped> is never written: a reject shown as
skipped would be hidden by most dashboards, and that is exactly the false green this tool refuses.
No `time` attribute either: dashboards sum and rank it, and wall clock is comparable only within
one fingerprint group.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable

from patchwitness.model import Verdict
from patchwitness.report.matrix import digest_of, visible_verdicts

# Characters XML 1.0 cannot carry at all, even escaped; a hostile test name may hold them.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def clean(text: str) -> str:
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def reasons_text(v: Verdict) -> str:
    return "\n".join(clean(f"{r.gate} / {r.row}: {r.detail}") for r in v.reasons) or v.label


def body_text(v: Verdict) -> str:
    """The failure body: the reasons, then the findings with their places."""
    lines = [reasons_text(v)]
    for f in v.findings:
        where = f"{f.file}:{f.line}" if f.file and f.line else (f.file or "")
        lines.append(clean(f"finding {f.gate} {f.kind} {where} {f.message}"))
    return "\n".join(lines)


def testcase(v: Verdict) -> ET.Element:
    case = ET.Element("testcase", classname=clean(v.task), name=clean(v.agent))
    props = ET.SubElement(case, "properties")
    for key, value in (
        ("grade", v.grade),
        ("label", v.label),
        ("patch_sha256", v.patch_sha256),
        ("fingerprint", digest_of(v)),
    ):
        ET.SubElement(props, "property", name=key, value=clean(value))
    if v.grade == "reject":
        failure = ET.SubElement(case, "failure", message=reasons_text(v), type=clean(v.label))
        failure.text = body_text(v)
    elif v.grade == "ungradable":
        error = ET.SubElement(case, "error", message=reasons_text(v), type=clean(v.label))
        error.text = body_text(v)
    return case


def junit_tree(
    verdicts: list[Verdict], held_out: Iterable[str] = frozenset(), reveal: bool = False
) -> ET.Element:
    shown = visible_verdicts(verdicts, held_out, reveal)
    counts = {
        "tests": str(len(shown)),
        "failures": str(sum(v.grade == "reject" for v in shown)),
        "errors": str(sum(v.grade == "ungradable" for v in shown)),
        "skipped": "0",
    }
    root = ET.Element("testsuites", name="patchwitness", **counts)
    suite = ET.SubElement(root, "testsuite", name="patchwitness", **counts)
    suite.extend(testcase(v) for v in shown)
    return root


def render_junit(
    verdicts: list[Verdict], held_out: Iterable[str] = frozenset(), reveal: bool = False
) -> str:
    root = junit_tree(verdicts, held_out, reveal)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
