"""METG from a system's runs: efficiency and the methods (methods.py: fit, median, the paper's),
the fitted curve and its interval (fit.py), the summary every table reads (estimate.py), whether
it is a result (reliability.py), the METG per CPU placement (by_placement.py) and the interval a
rerun on this machine falls in (rerun.py). Pure functions over the runs, no I/O."""
