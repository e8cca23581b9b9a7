"""The processes a run starts, tied to the harness and cleaned up after it, whatever ends it.

tied.py starts a child that dies with its parent (PR_SET_PDEATHSIG); guard.py is the process in
a session of its own that kills whatever carries the harness's marker once the harness is gone;
leftovers.py finds and kills processes by the marker in their environment; rank_watch.py is the
socket an MPI rank holds open until it dies (which rank ended first), failed_rank_watch.py ends a
launch across hosts that outlives a rank's validation failure.

Leaves of the harness: they import nothing of taskbench but the base modules, so that a cluster's
starter and a system's own process import them without the launchers.
"""
