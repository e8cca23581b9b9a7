"""Measuring: the METG sweep (sweep/: its parameters, plan, settling and the campaign that runs
it), METG and its statistics (metg/: the methods, the fit, the estimate, whether it is a result),
whether a run was disturbed (noise.py), the machine's peak (peak/: the 100% of stored runs, and
its measurement), a campaign's analysis (analysis.py, cached in analysis_cache.py), two
campaigns compared (compare.py), each kernel's counted work (kernels.py), the CPUs' placement
(placement.py), traced runs (traces.py, trace_split.py), what the systems add to their report
(system_report.py) and the strong-scaling prediction (predict.py, from a stored or published
METG: predict_metg.py)."""
