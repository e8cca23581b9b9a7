"""The study presets, one module each (`taskbench study --list`): the grid studies `imbalance`
(imbalance.py), `discovery` (discovery.py), `scaling` (scaling.py, with its METG part) and
`gpu_offload` (gpu_offload.py), and the Task Bench paper's METG studies (taskbench_paper.py).
studies/execute.py lists them by name (PRESETS)."""
