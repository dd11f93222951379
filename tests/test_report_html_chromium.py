"""The HTML page loaded in a real headless Chromium: the checks read the DOM after the browser has
parsed it, applied the CSS and run the page's own script (--dump-dom).

The page's script stamps the <html> element (data-pw-ready, data-pw-cells) and every cell with the
background color the browser painted (data-bg): their presence proves that our script ran under
the page's Content-Security-Policy; the absence of data-pwned proves that the markup in the
hostile test names did not.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest

from patchwitness.model import Verdict
from patchwitness.report.html import render_html
from patchwitness.report.matrix import publish
from tests.test_report_matrix import (
    HOSTILE,
    HOSTILE_MARK,
    REMOVED_KEY,
    invalid,
    matrix_red,
    mixed_bag,
    passed,
    uncovered,
    vandal,
)

pytestmark = pytest.mark.slow

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None,
    reason="chromium is not installed (Debian package chromium, see scripts/system-deps.sh)",
)


# -- a small DOM, built from Chromium's serialization ------------------------------------------

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}


@dataclass
class Node:
    tag: str
    attrs: dict[str, str]
    children: list[Node] = field(default_factory=list)
    parts: list[str | Node] = field(default_factory=list)

    def text(self) -> str:
        return "".join(p if isinstance(p, str) else p.text() for p in self.parts)

    def walk(self):
        yield self
        for child in self.children:
            yield from child.walk()

    def find_all(self, tag: str | None = None, **attrs: str) -> list[Node]:
        want = {k.replace("_", "-"): v for k, v in attrs.items()}
        return [
            n
            for n in self.walk()
            if (tag is None or n.tag == tag) and all(n.attrs.get(k) == v for k, v in want.items())
        ]

    def find(self, tag: str | None = None, **attrs: str) -> Node:
        found = self.find_all(tag, **attrs)
        assert len(found) == 1, f"{len(found)} <{tag} {attrs}>"
        return found[0]

    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())


class Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.stack = [self.root]

    def handle_starttag(self, tag, attrs):
        node = Node(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(node)
        self.stack[-1].parts.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_endtag(self, tag):
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth].tag == tag:
                del self.stack[depth:]
                return

    def handle_data(self, data):
        self.stack[-1].parts.append(data)


def dump_dom(page: Path, tmp: Path) -> Node:
    profile = tmp / "profile"
    proc = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={profile}",
            "--dump-dom",
            page.resolve().as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "<html" in proc.stdout, proc.stderr[-2000:]
    builder = Builder()
    builder.feed(proc.stdout)
    return builder.root


def load(tmp_path: Path, verdicts: list[Verdict], **kwargs) -> Node:
    page = tmp_path / "matrix.html"
    page.write_text(render_html(publish(verdicts, **kwargs), verdicts), encoding="utf-8")
    return dump_dom(page, tmp_path)


def page_verdicts() -> list[Verdict]:
    return [
        passed("checkout", "honest"),
        vandal("checkout", "vandal"),
        passed("tax", "honest"),
        uncovered("tax", "vandal"),
        matrix_red("ring", "honest"),
        invalid("ring", "vandal"),
        passed("secret-task", "honest"),
        vandal("secret-task", "vandal"),
    ]


@pytest.fixture(scope="module")
def dom(tmp_path_factory: pytest.TempPathFactory) -> Node:
    if CHROMIUM is None:
        pytest.skip("chromium is not installed")
    return load(tmp_path_factory.mktemp("html"), page_verdicts(), held_out={"secret-task"})


def rgb(hex_color: str) -> str:
    r, g, b = (int(hex_color[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"


# -- the checks --------------------------------------------------------------------------------


@needs_chromium
def test_our_script_ran_and_the_injected_ones_did_not(dom):
    html = dom.find("html")
    assert html.attrs.get("data-pw-ready") == "1"
    assert html.attrs.get("data-pw-cells") == str(len(page_verdicts()))
    assert dom.find_all(None, **{"data-pwned": "1"}) == []
    assert not any("data-pwned" in n.attrs for n in dom.walk())
    assert dom.find_all("img") == []
    assert len(dom.find_all("script")) == 1  # the page's own, nothing parsed out of a test name


@needs_chromium
def test_hostile_names_render_as_text(dom):
    details = dom.find("details", data_task="checkout", data_agent="vandal")
    removed = details.find("div", data_fact="tests_removed")
    assert [li.text() for li in removed.find_all("li")] == [HOSTILE, HOSTILE_MARK]
    assert HOSTILE in details.text()


@needs_chromium
def test_heatmap_cells_carry_label_data_and_color(dom):
    cells = [n for n in dom.walk() if n.tag == "a" and "cell" in n.classes()]
    assert len(cells) == len(page_verdicts())
    by_key = {(c.attrs["data-task"], c.attrs["data-agent"]): c for c in cells}
    unprintable = by_key[("checkout", "vandal")]
    assert unprintable.attrs["data-label"] == "UNPRINTABLE"
    assert unprintable.text().startswith("UNPRINTABLE")
    assert unprintable.attrs["data-bg"] == rgb("#7b1fa2")
    assert by_key[("checkout", "honest")].attrs["data-bg"] == rgb("#2e7d32")
    assert by_key[("tax", "vandal")].attrs["data-label"] == "uncovered"
    assert by_key[("ring", "honest")].attrs["data-label"] == "matrix-red"
    assert by_key[("ring", "vandal")].attrs["data-label"] == "invalid-task"
    # Wall clock beside the label within its group; none for a verdict without a fingerprint.
    assert "1.2s" in by_key[("checkout", "honest")].text()
    assert by_key[("ring", "vandal")].text() == "invalid-task"
    legend = [n.attrs["data-label"] for n in dom.walk() if n.tag == "button"]
    assert "UNPRINTABLE" in legend and "passed" in legend


@needs_chromium
def test_per_agent_counts_side_by_side(dom):
    counts = dom.find("table", **{"class": "counts"})

    def count(agent: str, key: str) -> str:
        return counts.find("tr", data_agent=agent).find(None, data_count=key).text()

    assert (count("honest", "printable_passes"), count("honest", "unprintable")) == ("3", "0")
    assert (count("vandal", "printable_passes"), count("vandal", "unprintable")) == ("0", "2")
    assert count("vandal", "rows") == "4"
    assert count("vandal", "held_out_rows") == "1"
    assert count("vandal", "held_out_unprintable") == "1"
    assert "%" not in counts.text()


@needs_chromium
def test_drill_down_shows_each_gates_facts(dom):
    vandal_details = dom.find("details", data_task="checkout", data_agent="vandal")
    text = vandal_details.text()
    unexpected = vandal_details.find("div", data_fact="unexpected_removals")
    assert [li.text() for li in unexpected.find_all("li")] == [REMOVED_KEY]
    assert "assertion_delta -2" in text
    assert "src/shop/checkout.py:3" in text  # a finding with its place
    assert "tests/test_checkout.py::test_tax" in text  # skips_added
    outcomes = vandal_details.find("table", data_fact="outcomes")
    assert HOSTILE in outcomes.text() and "passed" in outcomes.text()

    tax = dom.find("details", data_task="tax", data_agent="vandal")
    zero = tax.find("div", data_fact="zero_hit_lines")
    assert [li.text() for li in zero.find_all("li")] == ["src/shop/tax.py:12"]
    unscored = tax.find("div", data_fact="unscored_suspicious")
    assert [li.text() for li in unscored.find_all("li")] == ["src/shop/rates.py:4"]

    ring = dom.find("details", data_task="ring", data_agent="honest")
    red = ring.find("table", data_fact="red_cells")
    assert [tr.attrs["data-status"] for tr in red.find_all("tr") if "data-status" in tr.attrs] == [
        "sanitizer"
    ]
    assert (
        "repo.lock is not a full SHA"
        in dom.find("details", data_agent="vandal", data_task="ring").text()
    )


@needs_chromium
def test_held_out_task_is_counted_but_hidden(dom):
    page_text = dom.text()
    assert "secret-task" not in page_text
    assert not any("secret-task" in v for n in dom.walk() for v in n.attrs.values())
    row = dom.find("tr", data_task="held-out #1")
    assert {c.attrs["data-label"] for c in row.walk() if "cell" in c.classes()} == {
        "passed",
        "UNPRINTABLE",
    }
    hidden = dom.find("details", data_task="held-out #1", data_agent="vandal")
    assert "details hidden" in hidden.text()
    assert hidden.find_all("div", data_fact="tests_removed") == []


@needs_chromium
def test_refusal_and_show_mixed_in_the_browser(tmp_path):
    (tmp_path / "refused").mkdir()
    refused = load(tmp_path / "refused", mixed_bag())
    section = refused.find("section", id="refusal")
    assert [li.attrs["data-field"] for li in section.find_all("li")] == ["os", "python"]
    assert "'3.11.7' != '3.12.1'" in section.text()
    assert [n for n in refused.walk() if "cell" in n.classes()] == []  # no side-by-side
    assert refused.find("html").attrs.get("data-pw-ready") == "1"

    (tmp_path / "mixed").mkdir()
    mixed = load(tmp_path / "mixed", mixed_bag(), show_mixed=True)
    matrices = mixed.find_all("section", data_mixed="true")
    assert len(matrices) == 2
    for matrix in matrices:
        title = matrix.find("h2").text()
        assert title.startswith("environment ")
        for row in matrix.find("table", **{"class": "heatmap"}).find_all("tr"):
            if "data-digest" in row.attrs:
                assert row.attrs["data-digest"] in title
                for cell in (n for n in row.walk() if "cell" in n.classes()):
                    assert cell.attrs["data-digest"] == row.attrs["data-digest"]
    assert mixed.find("section", id="refusal")
