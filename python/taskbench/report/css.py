"""The report page's style sheet. A cell breaks only between words (never inside a figure: "887
ns" and "(866–911)" hold together, page._cell), so a table is as wide as its words need and no
wider: at 900 px nothing scrolls sideways, and under 640 px the METG tables turn into one card
per system. The answer leads at the top; notes and warnings are small print under the figures
they qualify, marked but never louder than them."""

CSS = """
body { font-family: system-ui, sans-serif; margin: 1.2em auto; padding: 0 1em; max-width: 84em; color: #222;
       line-height: 1.4; }
h1 { font-size: 1.5em; margin: 0.2em 0; }
h2 { margin-top: 1.6em; border-bottom: 1px solid #ddd; }
h3 { margin-top: 1.4em; overflow-wrap: anywhere; }
h4 { margin: 1.4em 0 0.3em; font-size: 1.1em; }
h5 { margin: 1.4em 0 0.3em; padding-top: 0.6em; border-top: 1px solid #e4e4e4; font-size: 1.05em; }
h6 { margin: 1em 0 0.3em; font-size: 0.95em; }
.lead { border-left: 4px solid #3366aa; background: #f5f8fc; padding: 0.6em 1em; margin: 0.6em 0 1em; }
.lead .answer { font-size: 1.15em; font-weight: 600; margin: 0 0 0.4em; }
.lead figure { margin: 0; }
.scroll { max-width: 100%; overflow-x: auto; }
table { border-collapse: collapse; margin: 0.6em 0 0.4em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; vertical-align: top;
         overflow-wrap: normal; word-break: normal; hyphens: manual; }
th { background: #f3f3f3; }
td.num { white-space: nowrap; }
td.notes { font-size: 0.9em; }
td.notes a, .footnotes b { color: #555; }
.footnotes { font-size: 0.85em; color: #444; margin: 0.2em 0 1em; padding-left: 1.6em; }
.footnotes li { margin: 0.15em 0; }
details > summary { cursor: pointer; margin: 0.8em 0 0.4em; font-weight: 600; }
figure { display: inline-block; margin: 0.4em 0; vertical-align: top; max-width: 100%; }
figcaption { font-size: 0.85em; color: #555; }
.row { display: flex; flex-wrap: wrap; gap: 0.8em; align-items: flex-start; }
.row figure { flex: 1 1 30em; max-width: 704px; margin: 0; }
img { max-width: 100%; height: auto; }
.answer { margin: 0.3em 0; }
.warn, .unreliable { font-size: 0.9em; color: #7a4600; border-left: 3px solid #e0b060; padding-left: 0.6em;
                     margin: 0.3em 0; }
.mark { color: #a0001c; }
.simulated { display: inline-block; font-size: 0.75em; font-weight: 700; letter-spacing: 0.05em; color: #fff;
             background: #6a4c93; border-radius: 3px; padding: 0.05em 0.4em; vertical-align: middle; }
.muted { color: #595959; font-size: 0.9em; }
.cite { margin: 0.3em 0; }
.params { color: #444; margin: 0.2em 0 0.4em; font-size: 0.9em; overflow-wrap: anywhere; }
nav ul { margin: 0.3em 0; padding-left: 1.2em; columns: 2 16em; }
dl.provenance { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 0.2em 1em;
                margin: 0.6em 0 1.4em; font-size: 0.9em; }
dl.provenance dt { font-weight: 600; }
dl.provenance dd { margin: 0; overflow-wrap: anywhere; }
@media (max-width: 640px) {
  body { padding: 0 0.6em; }
  table.cards, table.cards tbody, table.cards tr, table.cards td { display: block; }
  table.cards tr:first-child { display: none; }
  table.cards tr { border: 1px solid #ccc; margin: 0 0 0.6em; padding: 0.3em 0.5em; }
  table.cards td { border: none; padding: 0.1em 0; }
  table.cards td::before { content: attr(data-label) ": "; color: #595959; }
  table.cards td:first-child { font-weight: 600; }
  table.cards td:first-child::before { content: ""; }
}
"""
