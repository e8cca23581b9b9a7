"""What the Python systems import in their own processes (driver and workers): the App that
parses the flags and reports, the worker task of Ray and Spark, the Dask graph and workers.
Nothing here imports the harness: only the compiled binding, taskbench._core."""
