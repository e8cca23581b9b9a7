"""taskbench harness: runs the systems, stores every run, computes METG and draws the report."""

import os as _os

__version__ = "0.1.0"

# In a checkout the compiled taskbench._core is in the build tree (build/python/taskbench),
# not beside this file: the launchers of the Python systems name that folder here, for their
# worker processes too. An installed package has it beside this file.
if _os.environ.get("TASKBENCH_CORE_DIR"):
    __path__.append(_os.environ["TASKBENCH_CORE_DIR"])
