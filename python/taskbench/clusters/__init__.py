"""The engines' clusters a cluster launcher's starter runs a system on: base.py (EngineCluster:
the processes by role, here or on the hosts, stopped with everything they started), attached.py
(the starter's command line and the run attached to the cluster), one module per engine (dask.py,
ray.py, spark.py, parsl_pools.py) and starter.py, the script the build's starters run.

Besides engine/, the one package a system's own Python process imports (dask_distributed starts
a DaskCluster itself when run alone): it imports process/ and hosts/, never the launchers, and
this file imports nothing, so that a system loads only the engine it runs.
"""
