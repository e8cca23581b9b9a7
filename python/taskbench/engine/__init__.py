"""What the Python systems import in their own processes (driver and workers): the App that
parses the flags and reports (app.py), the task a worker of Ray, Spark or Parsl runs
(worker_task.py), the Dask graph and workers. Nothing here imports the harness: only the
compiled binding, taskbench._core."""
