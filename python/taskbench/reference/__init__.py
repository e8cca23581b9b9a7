"""Published results (docs/reference.md): Task Bench logs read (task_bench_log.py), reduced to
METG the way the SC20 paper reduced its data (paper_metg.py), and the paper's data sets derived
from the public results repository (sc20.py)."""
