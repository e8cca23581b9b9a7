"""The report of a real small campaign: one traced run per system at its METG, the Gantt charts
and time-split bars drawn from them, and the page rendered by headless Chromium (a broken page,
a blank screenshot or an image that does not load fails)."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess

import pytest

from harness_helpers import is_png
from taskbench.cli import main
from taskbench.measure.analysis import analyze
from taskbench.measure.trace_split import split
from taskbench.plots.colors import PALETTE, color_for
from taskbench.registry import registry_entries
from taskbench.store import Store

SMALL = ["--steps", "20", "--width", "2", "--start-iter", "4096", "--reps", "2"]
# Sets the page's title to what the test reads back: how many images, how many failed to load.
_PROBE = ("<script>window.addEventListener('load', () => { const imgs = [...document.images]; "
          "document.title = 'images=' + imgs.length + ' broken=' + "
          "imgs.filter(i => !i.complete || i.naturalWidth === 0).length; });</script>")


# Sets the title to how many boxes scroll sideways (the page, or a table's box), at its width.
_WIDE_PROBE = ("<script>window.addEventListener('load', () => { const boxes = [document.documentElement, "
               "...document.querySelectorAll('.scroll')]; document.title = 'sideways=' + "
               "boxes.filter(b => b.scrollWidth > b.clientWidth + 1).length; });</script>")


@pytest.fixture(scope="module")
def campaign(tmp_path_factory, bin_dir):
    """A METG campaign of serial and openmp_for with its traced runs, and its HTML report."""
    folder = tmp_path_factory.mktemp("report")
    db, page = folder / "tb.db", folder / "report.html"
    code = main(["--db", str(db), "-q", "metg", "serial", "openmp_for", *SMALL, "--campaign", "small",
                 "--html", str(page)])
    assert code == 0
    return db, page


def test_each_system_is_traced_once_and_the_sweep_ignores_it(campaign):
    db, _ = campaign
    con = sqlite3.connect(db)
    traced = con.execute("SELECT system, iter, id FROM runs WHERE key LIKE 'trace/%'").fetchall()
    assert sorted(s for s, _, _ in traced) == ["openmp_for", "serial"]
    store = Store(db)
    for system, iterations, run_id in traced:
        trace = store.trace(run_id)
        assert len(trace["events"]) == 20 * 2  # every task of the graph, once
        assert {e[2] for e in trace["events"]} == set(range(20))  # timesteps 0..19
        assert len(trace["workers"]) == (1 if system == "serial" else 2)
    # The traced size is one of the swept sizes: counted, it would be a second point of rep 0.
    analysis = analyze(store, "small")
    for curve in analysis.curves.values():
        # Repetitions 0 and 1, and those added around the crossing (2 on): none of them a trace.
        assert sorted(curve.reps)[:2] == [0, 1] and len(curve.summary.values) == 2
        for points in curve.reps.values():
            assert len(points) == len({pt.iter for pt in points})
    assert not any(r["key"].startswith("trace/") for r in analysis.runs)


def test_report_draws_gantt_and_time_split(campaign):
    _, page = campaign
    figures = page.with_name("report_figures")
    names = {p.stem for p in figures.glob("*.png")}
    assert {"small_metg", "small_fig7_efficiency", "small_gantt_serial", "small_gantt_openmp_for",
            "small_time_split"} <= names
    assert all(is_png(p) for p in figures.glob("*.png"))
    text = page.read_text()
    # The first screen: the answer and the METG figure, before every other figure and the table.
    first_img = text.index("<img")
    assert text.index("<section class='lead' id='answer'>") < first_img < text.index("<table")
    assert 'alt="METG per system' in text[first_img:first_img + 200]


def test_time_split_of_a_known_trace():
    # Worker 0: t0 [0, 10], t1 [15, 25]; worker 1: t0 [0, 4], t1 [12, 20]. Timestep 0 ends at 10:
    # worker 0 waits 10..15 with its input ready (overhead 5); worker 1 waits 4..10 for it (idle 6)
    # and 10..12 with it ready (overhead 2), then idles 20..25 at the end (idle 5).
    trace = {"workers": [[0, 0], [0, 1]],
             "events": [[0, 0, 0, 0, 0, 10], [0, 0, 1, 0, 15, 10], [1, 0, 0, 1, 0, 4], [1, 0, 1, 1, 12, 8]]}
    shares = split(trace)
    assert shares == pytest.approx({"work": 32 / 50, "overhead": 7 / 50, "idle": 11 / 50})
    assert split({"workers": [], "events": []}) is None


def test_colors_are_per_system_and_stable():
    defaults = ["serial", "native", "openmp_for", "openmp_task", "mpi_p2p", "python_serial", "dask_threaded"]
    assert len({color_for(s) for s in defaults}) == len(defaults)
    assert color_for("my_new_system") == color_for("my_new_system") in PALETTE
    # A registry entry's `color` is its palette index.
    native = registry_entries()["native"]
    assert native.color is not None and color_for("native") == PALETTE[native.color]


def test_page_renders_in_headless_chromium(campaign, tmp_path):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("chromium is not installed (scripts/install-deps.sh installs it)")
    _, page = campaign
    flags = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
    probe = tmp_path / "probe.html"
    probe.write_text(page.read_text().replace("</body>", _PROBE + "</body>"))
    dom = subprocess.run([*flags, "--dump-dom", probe.as_uri()], capture_output=True, text=True,
                         timeout=60).stdout
    assert "<title>images=" in dom, dom[-500:]
    title = dom.split("<title>")[1].split("</title>")[0]
    images, broken = (int(part.split("=")[1]) for part in title.split())
    assert images >= 6 and broken == 0, title
    # At 900 px nothing scrolls sideways: the tables' cells, the notes among them, wrap.
    probe.write_text(page.read_text().replace("</body>", _WIDE_PROBE + "</body>"))
    dom = subprocess.run([*flags, "--window-size=900,1000", "--dump-dom", probe.as_uri()], capture_output=True,
                         text=True, timeout=60).stdout
    assert "<title>sideways=0</title>" in dom, dom.split("<title>")[1][:40] if "<title>" in dom else dom[-300:]
    shot = tmp_path / "first_screen.png"
    subprocess.run([*flags, f"--screenshot={shot}", "--window-size=1400,1000", page.as_uri()],
                   capture_output=True, timeout=60, check=True)
    import matplotlib.image
    pixels = matplotlib.image.imread(shot)[..., :3].reshape(-1, 3)
    colours = {tuple(p) for p in (pixels * 255).astype(int)[::7]}
    not_white = (pixels.min(axis=1) < 0.9).mean()
    assert len(colours) > 50 and 0.03 < not_white < 0.9, (len(colours), not_white)


def test_a_runtime_idle_share_far_from_the_timelines_is_explained():
    from taskbench.report.trace_sections import IDLE_DISAGREEMENT, _idle_differs
    # Two workers, tasks back to back: the events see no idle at all.
    events = {"workers": [[0, 0], [0, 1]],
              "events": [[w, 0, t, w, 10 * t, 10] for t in range(20) for w in (0, 1)]}
    assert split(events)["idle"] == 0
    runtime = {"work": 0.4, "overhead": 0.03, "idle": 0.57, "discovery": 0.0}
    assert runtime["idle"] - split(events)["idle"] > IDLE_DISAGREEMENT
    note = _idle_differs(runtime, split(events), events)
    assert note.startswith("its time-split bar is its runtime's own account, 57% idle; its task events say 0% "
                           "idle over the whole run and 0% in the timeline's window: ")


def test_the_report_answers_with_a_parallel_system_and_keeps_serial_apart(campaign):
    _, page = campaign
    text = page.read_text()
    section = text[text.index("<h2 id='metg'>"):]
    first = text.split("<section class='lead' id='answer'><p class='answer'>")[1].split("</p>")[0]
    # openmp_for is the one parallel system: not "the smallest of the parallel systems".
    assert first.startswith("openmp_for&#x27;s METG(50%) is "), first
    assert "serial runs on one core, the reference without parallelism" in section
    # The bars: serial last, grey, named the reference.
    from taskbench.plots import REFERENCE_GREY, metg_bars
    db, _ = campaign
    figure = metg_bars(analyze(Store(db), "small"))
    ax = figure.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["openmp_for", "serial (1 core, reference)"]
    import matplotlib.colors
    assert matplotlib.colors.to_hex(ax.patches[-1].get_facecolor()) == REFERENCE_GREY
