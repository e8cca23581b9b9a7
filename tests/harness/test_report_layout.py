"""The report's layout, from a real store: a quick METG study (six sweeps, the Task Bench
paper's Fig. 10) and a METG campaign of no study. The study's summary and figure come first,
every figure appears once, a note several sweeps share is said once, counts take the right
number, the paper is cited by title; the palette is readable on white and legends sit outside
the data."""

from __future__ import annotations

import io
import re
import sqlite3
import sys
from types import SimpleNamespace

import matplotlib
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

from taskbench import plots, units
from taskbench.cli import main
from taskbench.console import Console
from taskbench.measure.analysis import analyze
from taskbench.plots import colors, trace
from taskbench.registry import registry_entries
from taskbench.report import write_report
from taskbench.store import Store
from taskbench.studies import PRESETS, results
from taskbench.studies.presets.taskbench_paper import RADICES

SYSTEMS = ("serial", "openmp_for")
STUDY = "deps"
SWEEPS = [f"{STUDY}-radix{r}" for r in RADICES]


@pytest.fixture(scope="module")
def store_path(tmp_path_factory, bin_dir):
    folder = tmp_path_factory.mktemp("layout")
    db = folder / "tb.db"
    assert main(["--db", str(db), "-q", "study", "dependencies", "--quick", "--systems", ",".join(SYSTEMS),
                 "--campaign", STUDY]) == 0
    assert main(["--db", str(db), "-q", "metg", "serial", "--steps", "20", "--width", "1", "--start-iter", "4096",
                 "--reps", "1", "--campaign", "solo"]) == 0
    # On a shared machine some runs are disturbed, which adds notes that depend on the load:
    # the layout under test must not.
    con = sqlite3.connect(db)
    con.execute("UPDATE runs SET background_load = 0, background_cpu_seconds = 0")
    con.commit()
    return db


@pytest.fixture(scope="module")
def page(store_path):
    html_path = store_path.with_name("report.html")
    write_report(Store(store_path), html_path, None, Console(quiet=True))
    return html_path.read_text()


def _text(page: str) -> str:
    """The page without its inlined images."""
    return re.sub(r'src="data:image/png;base64,[^"]*"', 'src=""', page)


def test_the_study_summary_and_figure_come_before_its_sweeps(page):
    text = _text(page)
    study = text.index(f"<h3 id='study-{STUDY}'>{STUDY}: METG(50%) vs dependencies per task")
    figure = text.index(f'alt="METG(50%) vs dependencies per task, nearest (paper Fig. 10) ({STUDY})"')
    sweeps = text.index("<h4>The 6 METG sweeps it ran</h4>")
    first_sweep = text.index("<h5>radix 0</h5>")
    solo = text.index("<h2 id='metg'>METG: which system is fastest at small tasks?</h2>")
    # The METG campaigns of no study answer the question first; the studies follow.
    assert solo < study < text.index("<table", study) < figure < sweeps < first_sweep
    # The sweeps follow in the figure's order, each headed by its value.
    headings = re.findall(r"<h5>radix (\d+)</h5>", text)
    assert headings == [str(r) for r in RADICES]
    assert text.index("<h1>") < text.index("1 study (6 METG sweeps) and 1 other METG campaign from")


def test_each_figure_appears_once(page, store_path):
    images = re.findall(r'<img alt="([^"]*)" src="data:image/png;base64,([^"]*)"', page)
    alts = [alt for alt, _ in images]
    assert len(alts) == len(set(alts)) and len({data for _, data in images}) == len(images)
    pngs = list(store_path.with_name("report_figures").glob("*.png"))
    assert len(images) == len(pngs)
    # The study's figure is its sweeps' METG vs radix: the cross-campaign Fig. 10 would repeat it.
    assert "Fig. 10 style" not in page and not any(p.name.startswith("metg_vs_deps") for p in pngs)
    # Each sweep's own figures, once each; the study's figure once.
    for sweep in SWEEPS:
        assert alts.count(f"METG per system, smallest first ({sweep})") == 1
    assert sum(alt.endswith(f"({STUDY})") for alt in alts) == 1


def test_a_note_the_sweeps_share_is_said_once(page):
    text = _text(page)
    assert text.count("no traced run stored") == 1
    names = ", ".join(f"radix{r}" for r in RADICES)
    assert f"<p class='muted'>{names}: no traced run stored: `taskbench metg` traces" in text
    # solo was traced by `taskbench metg`: its Gantt chart is there.
    assert 'alt="serial at -iter' in text


def test_counts_take_the_right_number(page):
    text = _text(page)
    wrong = re.findall(r"\b1 (?:repetitions|reps|sizes|runs|cores|steps|timesteps|campaigns|sweeps|studies|"
                       r"systems)\b|\(s\)", text)
    assert wrong == []
    assert "METG median over 1 repetition per curve" in text
    assert "nearest, radix 0, compute_bound, 100 steps x 16 wide, 1 repetition, threshold 50%" in text
    assert (units.count(1, "study", "studies"), units.count(2, "study", "studies")) == ("1 study", "2 studies")
    assert plots.spread_note(1, "bar", "whisker") == "bar: 1 repetition"
    assert plots.spread_note(3, "bar", "whisker") == "bar: median, whisker: range over 3 repetitions"


def test_the_paper_is_cited_by_title_and_figure(page):
    assert ("<p class='cite'>Paper: Slaughter et al., “<cite>Task Bench: A Parameterized Benchmark for Evaluating "
            "Parallel Runtime Performance</cite>”, SC20, Fig. 10: METG grows") in page
    assert ".txt" not in _text(page)
    for study in PRESETS.values():
        assert re.match(r'[A-Z][a-z]+ et al\., "[^"]+", [A-Z]+ ?\d{2,4}', study.paper), study.paper
        assert ".txt" not in study.paper


def test_provenance_is_a_definition_list_that_wraps(page, store_path):
    text = _text(page)
    provenance = text[text.index("<h2 id='provenance'>"):]
    assert "<table" not in provenance and provenance.count("<dl class='provenance'>") == 1
    revision = sqlite3.connect(store_path).execute("SELECT git_revision FROM campaigns WHERE name='solo'").fetchone()[0]
    assert f"<dt>git revision</dt><dd>{revision or '-'}</dd>" in provenance
    # every campaign of this machine and build in one list: the study, its sweeps and solo
    campaigns = re.search(r"<dt>campaigns</dt><dd>(.*?)</dd>", provenance).group(1).split("<br>")
    assert [c.split(":")[0] for c in campaigns] == [STUDY, *SWEEPS, "solo"]
    assert "dl.provenance dd { margin: 0; overflow-wrap: anywhere; }" in text


def test_palette_contrast_on_white():
    assert colors.contrast_on_white("#000000") == pytest.approx(21.0)
    assert colors.contrast_on_white("#ffffff") == pytest.approx(1.0)
    assert colors.contrast_on_white("#767676") == pytest.approx(4.54, abs=0.01)  # WCAG's usual example
    for color in colors.PALETTE:  # lines and markers
        assert colors.contrast_on_white(color) >= colors.LINE_CONTRAST, color
    names = [*registry_entries(), "some_new_system", "another-one"]
    for name in names:  # text: tick labels, titles
        assert colors.contrast_on_white(colors.text_color_for(name)) >= colors.TEXT_CONTRAST, name
    assert colors.text_color_for("native") == colors.color_for("native")  # dark enough already: unchanged
    assert colors.contrast_on_white(plots.NOTE_GREY) >= colors.TEXT_CONTRAST
    for part, color in trace.PART_COLORS.items():  # bars on white, black percentages on them
        assert colors.contrast_on_white(color) >= colors.LINE_CONTRAST, part
        assert 21.0 / colors.contrast_on_white(color) >= colors.TEXT_CONTRAST, part


def _assert_legend_outside(fig) -> None:
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    legends = [*fig.legends, *(ax.get_legend() for ax in fig.axes if ax.get_legend())]
    assert legends, "no legend"
    for legend in legends:
        box = legend.get_window_extent(renderer)
        for ax in fig.axes:
            assert not box.overlaps(ax.get_window_extent(renderer)), (legend, ax)
        assert fig.bbox.x0 <= box.x0 and box.x1 <= fig.bbox.x1 and fig.bbox.y0 <= box.y0, "legend cut off"


def test_legends_lie_outside_the_axes(store_path):
    store = Store(store_path)
    sweeps = [analyze(store, name) for name in SWEEPS]
    drawn = [plots.efficiency_vs_granularity(sweeps[-1]), plots.throughput_vs_size(analyze(store, "solo")),
             *(draw() for _, draw in plots.metg_vs_dependencies(sweeps))]
    result = results.load(store, STUDY)
    drawn.append(PRESETS["dependencies"].figure(result))
    drawn.append(trace.time_split([("serial", "trace", {"work": 0.6, "overhead": 0.4}),
                                   ("native", "breakdown", {"work": 0.5, "overhead": 0.1, "idle": 0.3, "discovery": 0.1})]))
    assert len(drawn) == 5 and all(fig is not None for fig in drawn)
    for fig in drawn:
        _assert_legend_outside(fig)
    # Several panels, lines over the whole of each: one legend for the figure, below them.
    fig = plots.new_figure(10, 4)
    for k in range(2):
        ax = fig.add_subplot(1, 2, k + 1)
        for i in range(12):
            ax.plot([0, 1], [i, 11 - i], label=f"system_{i}", **plots.style(i))
    plots.legend_below(fig, fig.axes)
    _assert_legend_outside(fig)
    assert len(fig.legends[0].get_texts()) == 12  # each label once
    assert matplotlib.get_backend().lower() == "agg"


class _Terminal(io.StringIO):
    def isatty(self):
        return True


class _Bar:
    def __init__(self):
        self.total, self.steps = 0, []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def add(self, n):
        self.total += n

    def advance(self, label=""):
        self.steps.append(label)


class _Console:
    quiet = False

    def __init__(self):
        self.bars = []

    def progress(self, description):
        self.bars.append((description, _Bar()))
        return self.bars[-1][1]

    def warn(self, text):
        raise AssertionError(text)


def test_progress_bars_while_the_report_is_built_on_a_terminal_only(store_path, tmp_path, monkeypatch):
    console = _Console()
    monkeypatch.setattr(sys, "stderr", _Terminal())
    write_report(Store(store_path), tmp_path / "r.html", ["solo"], console)
    [(reading, campaigns), (drawing, bar)] = console.bars
    # one step per METG campaign read, then one per planned figure (a figure the data cannot make
    # is a step without a file)
    assert reading == "reading the campaigns" and campaigns.total == len(campaigns.steps) == 1
    planned = {p.stem for p in (tmp_path / "r_figures").glob("*.png")}
    assert drawing == "drawing figures" and bar.total == len(bar.steps) >= len(planned) >= 3

    monkeypatch.setattr(sys, "stderr", io.StringIO())
    console = _Console()
    write_report(Store(store_path), tmp_path / "r.html", ["solo"], console)
    assert console.bars == []


# -- one figure everywhere (units.metg, units.half_width) and the report's wording ------------

def _summary(seconds, low=None, high=None, status="found", unreliable=()):
    from taskbench.measure.metg.methods import MetgSummary, MetgValue
    return MetgSummary([MetgValue(seconds, status)] * 3, seconds=seconds, low=low, high=high, status=status,
                       found=3, unreliable=list(unreliable))


def _curve(system, summary, cores=2):
    return SimpleNamespace(system=system, summary=summary, cores=cores, processor="cpu", reference=cores == 1)


def _analysis(*curves, floor=None):
    machine = {"no_runtime_floor": floor} if floor else {}
    params = SimpleNamespace(threshold=0.5, kernel="compute_bound", pattern="stencil_1d")
    return SimpleNamespace(params=params, curves={c.system: c for c in curves}, campaign={"machine": machine})


def test_one_formatter_says_each_metg_its_interval_bound_and_half_width():
    import math
    assert units.metg(2.54e-7, 2.5e-7, math.inf) == "254 ns (from 250, unbounded above)"
    assert units.half_width(2.54e-7, 2.5e-7, math.inf) == "unbounded"  # never ±inf% nor a size from a far end
    assert units.half_width(1.09e-6, 0.0, 1.16e-6) == "unbounded"  # the table said ±53.4% of nothing
    assert units.half_width(8.87e-7, 8.66e-7, 9.11e-7) == "±2.5%" and units.half_width(1e-6, None, None) == "—"
    assert units.metg(5.99e-7, 5.99e-7, 6.19e-7, bound=True, unreliable=True) == \
        "599 ns (599–619) or less (unreliable)"
    assert units.metg(None, unreliable=True) == "no METG (unreliable)"
    s = _summary(5.99e-7, 5.99e-7, 6.19e-7, status="unbracketed")
    assert s.text == "599 ns (599–619) or less" and s.half_width_text == "±1.7%"


def test_campaigns_and_export_show_the_stored_metg_as_the_table_does(tmp_path, capsys):
    """`campaigns` dropped the "or less" of a bound; `export` wrote JSON's forbidden Infinity."""
    import json
    from taskbench.commands.campaigns import published_metgs
    results = {"systems": {"native_dynamic": {"metg_seconds": 5.99e-7, "interval_seconds": [5.99e-7, 6.19e-7],
                                              "status": "unbracketed", "reliable": True},
                           "native": {"metg_seconds": 2.54e-7, "interval_seconds": [2.5e-7, float("inf")],
                                      "status": "found", "reliable": False}}}
    assert published_metgs(results) == ("native_dynamic 599 ns (599–619) or less, "
                                        "native 254 ns (from 250, unbounded above) (unreliable)")
    db = tmp_path / "x.db"
    store = Store(db)
    store.create_campaign("c", "metg", {"systems": ["native"]}, {}, "m", None, {})
    store.set_campaign_results("c", results)
    store.close()
    assert main(["--db", str(db), "export", "--campaigns", "--json", str(tmp_path / "c.json")]) == 0
    text = (tmp_path / "c.json").read_text()
    exported = json.loads(text, parse_constant=lambda name: pytest.fail(f"{name} is not JSON"))
    native = exported[0]["results"]["systems"]["native"]
    assert native["interval_seconds"] == [2.5e-7, None] and native["half_width_text"] == "unbounded"
    assert native["metg_text"] == "254 ns (from 250, unbounded above) (unreliable)"


def test_the_answer_draws_no_ratio_from_unreliable_figures_and_says_which_way_a_bound_goes():
    from taskbench.report.tables import answer
    sure, unsure = _summary(1e-6, 0.9e-6, 1.1e-6), _summary(2e-6, 1.8e-6, 2.2e-6, unreliable=["busy"])
    first = answer(_analysis(_curve("a", _summary(1e-6, 0.9e-6, 1.1e-6, unreliable=["busy"])), _curve("b", unsure)))[0]
    assert "x below" not in first and first.endswith("(no ratio drawn from an unreliable figure).")
    first = answer(_analysis(_curve("a", _summary(1e-6, 0.9e-6, 1.1e-6, status="unbracketed")), _curve("b", unsure)))[0]
    assert "no ratio drawn" in first
    first = answer(_analysis(_curve("a", _summary(1e-6, 0.9e-6, 1.1e-6, status="unbracketed")),
                             _curve("b", _summary(2e-6, 1.8e-6, 2.2e-6))))[0]
    assert first == ("a has the smallest METG(50%) of the parallel systems: 1.00 µs (0.900–1.10) or less, at least "
                     "2.00x below b's 2.00 µs (1.80–2.20).")
    # One parallel system (a simulation's one): no "smallest of the parallel systems".
    assert answer(_analysis(_curve("mpi_p2p_smpi", sure), _curve("serial", sure, cores=1)))[0] == \
        "mpi_p2p_smpi's METG(50%) is 1.00 µs (0.900–1.10)."


def test_peaks_are_said_for_the_core_counts_the_campaign_ran():
    from taskbench.measure.peak import PeakTable
    from taskbench.report.tables import notes_below_table
    # A stored `taskbench peak` of one core, and a campaign of two-core systems only.
    stored = [{"system": "serial", "cores": 1, "status": "ok", "campaign": "p", "iter": 4096,
               "flops_per_second": 8.5e10}]
    peaks = PeakTable("compute_bound", stored, processors={})
    peaks.observe({"system": "native", "cores": 2, "status": "ok", "campaign": "c", "iter": 4096,
                   "flops_per_second": 1.6e11})
    analysis = _analysis(_curve("native", _summary(1e-6)))
    analysis.peaks = peaks
    analysis.params.simulation = analysis.params.cluster = None
    assert set(peaks.describe("cpu")) == {1, 2}
    assert [line.split(":")[0] for line in notes_below_table(analysis) if line.startswith("peak")] == \
        ["peak with 2 cores"]


def test_an_interrupted_campaign_reads_interrupted():
    from taskbench.report.tables import campaign_title, status_note
    assert status_note("interrupted") == "interrupted: `taskbench metg --resume` continues it"
    assert status_note("done") == ""
    params = SimpleNamespace(pattern="stencil_1d", radix=None, kernel="compute_bound", steps=20, width=2, reps=3,
                             threshold=0.5, metg_method="fit", hosts=None, simulation=None)
    analysis = SimpleNamespace(name="cut", params=params, background_load=None, busy=None,
                               campaign={"status": "running"})
    title = campaign_title(analysis, "interrupted")
    assert title.endswith("(interrupted: `taskbench metg --resume` continues it)") and "UNFINISHED" not in title


def test_the_papers_figures_are_cited_for_their_graph():
    from taskbench.studies.presets.taskbench_paper import SYSTEMS
    assert "390 ns" not in SYSTEMS.paper and "4.58 µs (MPI)" in SYSTEMS.paper


def test_a_verdict_on_a_one_core_run_counts_the_one_core_it_left_free():
    from taskbench.measure.metg.reliability import judge
    # serial on a 2-CPU machine leaves 1 CPU free; other processes used 1.5 cores beside it.
    runs = [{"status": "ok", "cores": 1, "machine": {"available_cpus": 2}, "background_load": 1.5 + d,
             "wall_seconds": 1.0, "iter": 64} for d in (0.0, 0.01, -0.01, 0.02)]
    reasons = judge(_summary(1e-7, 0.99e-7, 1.01e-7), runs, 0.5, 0.1)
    assert reasons and "beyond the 1 core they left free" in reasons[0], reasons


def test_a_resumed_campaigns_settle_line_states_its_tables_figure(cli, bin_dir):
    """The settle line said the sweep's running estimate (±11.3%) where the table said ±61336.5%:
    it now states the campaign's own figure, the table's, resumed or not."""
    sweep = ["metg", "serial", "--steps", "20", "--width", "1", "--start-iter", "4096", "--reps", "2", "--no-trace"]
    for args in ([*sweep, "--campaign", "a"], ["metg", "--resume", "a"]):
        code, out, err = cli(*args)
        assert code in (0, 5), err
        settle = re.search(r"serial: METG (?!UNRELIABLE)(.*)", " ".join(err.split())).group(1)
        row = next(line for line in out.splitlines() if line.startswith("serial\t"))
        figure, width = row.split("\t")[2:4]
        assert settle.startswith(f"{figure}, {width}; " if width.startswith("±") else f"{figure}, interval "), \
            (settle, figure, width)


def test_the_report_says_interrupted_as_campaigns_does(cli, bin_dir, monkeypatch, tmp_path):
    from taskbench.measure.sweep import campaign

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(campaign, "run_sweep", interrupted)
    assert cli("metg", "serial", "--steps", "20", "--width", "1", "--campaign", "cut")[0] == 130
    assert cli("report", "--html", "r.html")[0] == 0
    page = (tmp_path / "r.html").read_text()
    assert "<p class='warn'>interrupted: `taskbench metg --resume` continues it</p>" in page
    assert "UNFINISHED" not in page
