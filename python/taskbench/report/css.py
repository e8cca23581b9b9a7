"""The report page's style sheet: tables whose cells wrap (at 900 px nothing scrolls sideways),
figures side by side where they fit, and the marks of warnings and unreliable METGs."""

CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; padding: 0 1em; max-width: 84em; color: #222; }
h2 { margin-top: 1.6em; border-bottom: 1px solid #ddd; }
h3 { margin-top: 1.4em; }
h4 { margin: 1.4em 0 0.3em; font-size: 1.1em; }
h5 { margin: 1.4em 0 0.3em; padding-top: 0.6em; border-top: 1px solid #e4e4e4; font-size: 1.05em; }
h6 { margin: 1em 0 0.3em; font-size: 0.95em; }
.scroll { max-width: 100%; overflow-x: auto; }
table { border-collapse: collapse; margin: 0.6em 0 1.4em; font-size: 0.9em; max-width: 100%; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
td, th { overflow-wrap: anywhere; }
th.notes { min-width: 12em; }
details > summary { cursor: pointer; margin: 0.8em 0 0.4em; font-weight: 600; }
th { background: #f3f3f3; }
figure { display: inline-block; margin: 0.4em 0; vertical-align: top; max-width: 100%; }
figcaption { font-size: 0.85em; color: #555; }
.row { display: flex; flex-wrap: wrap; gap: 0.8em; align-items: flex-start; }
.row figure { flex: 1 1 30em; max-width: 704px; margin: 0; }
img { max-width: 100%; height: auto; }
.warn { color: #8a4b00; }
.answer { margin: 0.3em 0; font-size: 1.05em; }
.unreliable { color: #b00020; font-weight: bold; }
.muted { color: #595959; font-size: 0.9em; }
.cite { margin: 0.3em 0; }
.params { color: #444; margin: 0.2em 0 0.4em; font-size: 0.9em; overflow-wrap: anywhere; }
nav ul { margin: 0.3em 0; padding-left: 1.2em; }
dl.provenance { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 0.2em 1em;
                margin: 0.6em 0 1.4em; font-size: 0.9em; }
dl.provenance dt { font-weight: 600; }
dl.provenance dd { margin: 0; overflow-wrap: anywhere; }
"""
