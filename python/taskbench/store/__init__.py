"""SQLite store: every run with its provenance, grouped in campaigns.

store.py is the Store (campaigns, runs, traces), connection.py opens and checks its file,
schema.py holds its tables and columns, claims.py who executes a campaign, records.py the record
a run becomes.
"""

from taskbench.store.schema import RUN_COLUMNS
from taskbench.store.store import Store

__all__ = ["RUN_COLUMNS", "Store"]
