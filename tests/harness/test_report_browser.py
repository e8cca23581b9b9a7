"""The report as a reader meets it: rendered by headless Chromium at 1280, 900 and 400 px (an
exact viewport per width, over the DevTools protocol: headless_browser.py), from a store holding
a measured METG campaign, simulated ones, and a `taskbench check` with a pilot sweep.

At every width: the answer sentence is above the fold, no table cell is narrower than its longest
word (nothing breaks inside a figure or a name), warnings are no louder than the figures, and the
page never scrolls sideways (at 900 and 1280 px no table's box does either). The measured,
simulated and check parts stay apart. The screenshots (the top of the page down to the first
METG table's notes) go to a temporary folder, or with TASKBENCH_UPDATE_SCREENSHOTS=1 to
docs/report-WIDTH.png, the README's (a test run leaves the checkout's tracked files as they were).
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys

import pytest

from harness_helpers import REPO
from headless_browser import Browser, find_chromium
from taskbench.cli import main
from taskbench.registry.locations import find_layout

WIDTHS = (1280, 900, 400)
FOLD = 800  # the viewport's height: what a reader sees before scrolling
DOCS = REPO / "docs"
SMALL = ["--steps", "20", "--width", "2", "--start-iter", "4096", "--reps", "3", "--target-interval", "0"]
# A port whose timings are a model (tests/harness/test_check_e2e.py): `check` runs it cheaply.
PORT = ("import sys\noverhead_ns, args = float(sys.argv[1]), sys.argv[2:]\n"
        "def flag(name, default):\n    return int(args[args.index(name) + 1]) if name in args else default\n"
        "steps, width, iters = flag('-steps', 1000), flag('-width', 1), flag('-iter', 0)\n"
        "tasks = steps * width\nelapsed = tasks / 2 * (iters * 1e-8 + overhead_ns * 1e-9)\n"
        "print('Running Task Benchmark')\nprint(f'Total Tasks {tasks}')\nprint(f'Total FLOPs {tasks * iters * 64}')\n"
        "print('Total Bytes 0')\nprint(f'Elapsed Time {elapsed:e} seconds')\n")

# Per width, what the rendered page says of itself (evaluated in the page).
LAYOUT = r"""(() => {
  const words = [];  // a word that breaks across lines, or overflows its cell
  for (const cell of document.querySelectorAll('td, th')) {
    if (cell.getClientRects().length === 0) continue;  // not shown: a card's header row, a folded section
    const style = getComputedStyle(cell);
    const room = cell.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      // Words: between spaces (a no-break space joins a figure to its unit), or after a hyphen.
      const re = /[^ \t\n\r-]+-?/g;
      let m;
      while ((m = re.exec(node.data)) !== null) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
        const width = range.getBoundingClientRect().width;
        if (lines.size > 1 || width > room + 1) {
          words.push({word: m[0], lines: lines.size, width: Math.round(width), room: Math.round(room),
                      cell: cell.textContent.slice(0, 60)});
        }
      }
    }
  }
  const root = document.documentElement;
  const boxes = [...document.querySelectorAll('.scroll')].filter(b => b.scrollWidth > b.clientWidth + 1);
  const answer = document.querySelector('#answer .answer');
  const size = el => parseFloat(getComputedStyle(el).fontSize);
  const figure = document.querySelector('table.metg td');
  const warnings = [...document.querySelectorAll('.warn, .unreliable, .footnotes, .mark')].filter(
    el => size(el) > size(figure) + 0.1 || parseInt(getComputedStyle(el).fontWeight) > 400);
  const notes = document.querySelector('table.metg').closest('.scroll').nextElementSibling;
  return {words: words.slice(0, 20), brokenWords: words.length, pageScrolls: root.scrollWidth > root.clientWidth,
          boxesScroll: boxes.length, answerBottom: answer ? answer.getBoundingClientRect().bottom : null,
          answerText: answer ? answer.textContent : null, fold: innerHeight,
          louder: warnings.map(el => el.className + ': ' + el.textContent.slice(0, 40)),
          firstTableEnd: (notes && notes.matches('.footnotes') ? notes : document.querySelector('table.metg'))
            .getBoundingClientRect().bottom + scrollY};
})()"""

# Which h3 headings each part of the page holds, and the check section's tables.
PARTS = r"""(() => {
  const part = {};
  let current = 'top';
  for (const el of document.querySelectorAll('h2, h3, table')) {
    if (el.tagName === 'H2') { current = el.id; part[current] = {headings: [], tables: 0}; continue; }
    if (!part[current]) part[current] = {headings: [], tables: 0};
    if (el.tagName === 'H3') part[current].headings.push(el.textContent); else part[current].tables++;
  }
  return part;
})()"""


@pytest.fixture(scope="module")
def chromium():
    found = find_chromium()
    if found is None:
        pytest.skip("chromium is not installed (scripts/install-deps.sh installs Debian's chromium)")
    return found


def _simulation_available() -> bool:
    layout = find_layout()
    return layout.bin_dir is not None and (layout.bin_dir / "mpi_p2p_smpi").is_file()


@pytest.fixture(scope="module")
def page(tmp_path_factory, bin_dir, chromium):
    """A store with a measured campaign, simulated ones (where SimGrid is built) and a check with
    a pilot sweep, and its report."""
    folder = tmp_path_factory.mktemp("browser")
    db, html = folder / "tb.db", folder / "report.html"
    port = folder / "port.py"
    port.write_text(PORT)

    def external(name: str, overhead_ns: int) -> str:
        return f"{name}=2:{sys.executable} {port} {overhead_ns}"

    assert main(["--db", str(db), "-q", "check", "--external", external("cand", 650), "--baseline-external",
                 external("base", 500), "--quick", "--no-metg"]) in (0, 1, 5)
    check = sqlite3.connect(db).execute("SELECT name FROM campaigns WHERE kind='check'").fetchone()[0]
    # A pilot sweep of it, as `check` names them (its METG part makes them; --no-metg keeps this short).
    assert main(["--db", str(db), "-q", "metg", "--external", external("cand", 650), *SMALL, "--reps", "1",
                 "--no-trace", "--campaign", f"{check}-pilot1-0"]) in (0, 5)
    if _simulation_available():
        assert main(["--db", str(db), "-q", "metg", "mpi_p2p", "--simulate", "small", "--nodes", "1,2",
                     "--steps", "20"]) in (0, 5)
    assert main(["--db", str(db), "-q", "metg", "serial", "native", "openmp_for", *SMALL,
                 "--campaign", "measured"]) in (0, 5)
    assert main(["--db", str(db), "-q", "report", "--html", str(html)]) == 0
    return html, check


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    return DOCS if os.environ.get("TASKBENCH_UPDATE_SCREENSHOTS") == "1" else tmp_path_factory.mktemp("shots")


@pytest.fixture(scope="module")
def rendered(page, chromium, shots):
    """{width: the page's account of its layout}, and the screenshots written to `shots`."""
    html, _ = page
    found = {}
    with Browser(chromium) as browser:
        for width in WIDTHS:
            browser.open(html, width, FOLD)
            found[width] = browser.evaluate(LAYOUT)
            browser.screenshot(shots / f"report-{width}.png", height=min(found[width]["firstTableEnd"] + 16, 4000))
        found["parts"] = browser.evaluate(PARTS)
    return found


@pytest.mark.parametrize("width", WIDTHS)
def test_no_cell_breaks_inside_a_word(rendered, width):
    layout = rendered[width]
    assert layout["brokenWords"] == 0, json.dumps(layout["words"], indent=1, ensure_ascii=False)


@pytest.mark.parametrize("width", WIDTHS)
def test_the_answer_is_above_the_fold(rendered, width):
    layout = rendered[width]
    text = layout["answerText"] or ""
    assert text.split(" ")[0] in ("native", "openmp_for") and " has the smallest METG(50%) of the parallel " \
        "systems: " in text, text
    assert layout["fold"] == FOLD and layout["answerBottom"] <= FOLD, layout


@pytest.mark.parametrize("width", WIDTHS)
def test_nothing_scrolls_sideways(rendered, width):
    layout = rendered[width]
    assert not layout["pageScrolls"]
    if width >= 900:  # on a phone a wide table may scroll inside its own box, never the page
        assert layout["boxesScroll"] == 0, layout


@pytest.mark.parametrize("width", WIDTHS)
def test_warnings_are_no_louder_than_the_figures(rendered, width):
    assert rendered[width]["louder"] == []


def test_screenshots_are_written_for_the_readme(rendered, shots):
    from harness_helpers import is_png
    for width in WIDTHS:
        assert is_png(shots / f"report-{width}.png") and is_png(DOCS / f"report-{width}.png")
    assert "docs/report-1280.png" in (REPO / "README.md").read_text()


def test_measured_simulated_and_checks_stay_apart(rendered, page):
    html, check = page
    parts = rendered["parts"]
    assert parts["metg"]["headings"] == ["measured"]  # the pilot is no METG campaign
    assert parts["checks"]["headings"] == [check] and parts["checks"]["tables"] == 1
    text = html.read_text()
    checks = text[text.index("<h2 id='checks'>"):]
    assert f"1 pilot sweep: {check}-pilot1-0" in checks
    assert f"{check}-pilot1-0" not in text[:text.index("<h2 id='checks'>")]  # nor in the answer or METG section
    if _simulation_available():
        simulated = parts["simulated"]["headings"]
        assert len(simulated) == 2 and all(h.endswith("SIMULATED") for h in simulated)
        assert "SIMULATED: METG vs nodes (Fig. 9 style); dashed: published (Cori, SC20)" in text
        # Measured and simulated never share the across-campaigns figures.
        assert "<h2 id='across'>" not in text
