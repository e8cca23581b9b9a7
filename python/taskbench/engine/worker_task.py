"""The task a worker process runs for an engine whose workers are not the driver's children
(Ray's raylet, Spark's Python daemon, Parsl's pool manager start them): the ray, ray_compiled,
pyspark and parsl systems. In a module of its own so that the workers import it by name (a
function of the driver's __main__ would be pickled by value with every task).

A worker runs one task at a time and never builds an App: each task carries the run's switches
(TASKBENCH_FAULT, -trace), applied once per worker process (setup), and returns with its output
a note of what the core counted there, which the driver adds up (Tally). The driver is not the
worker's parent, so a failed validation raises ValidationError (the core's line) as the task's
error instead of ending the worker with status 3 unseen."""

from __future__ import annotations

import os
import socket

from taskbench import _core
from taskbench.engine.app import run_task_in_worker

_applied = None  # the switches this worker process was set up with
HOST = socket.gethostname()  # where a cluster placed this worker, for the driver's tally per host


def setup(switches: tuple[str, bool]) -> None:
    global _applied
    if switches == _applied:
        return
    fault, tracing = switches
    if fault:
        os.environ["TASKBENCH_FAULT"] = fault
    else:
        os.environ.pop("TASKBENCH_FAULT", None)
    _core.worker_setup(tracing, validation_raises=True)
    _core.take_note(1)  # a worker kept from an earlier run of an attached cluster
    _applied = switches


def task(switches: tuple[str, bool], graph, t: int, i: int, *inputs) -> tuple:
    """(output, note) of task (t, i): two of Ray's return values, so consumers get the output."""
    setup(switches)
    return run_task_in_worker(graph, t, i, *inputs)


def hosted_task(switches: tuple[str, bool], graph, t: int, i: int, *inputs) -> tuple:
    """task, its note paired with the host it ran on: (output, (note, host))."""
    output, note = task(switches, graph, t, i, *inputs)
    return output, (note, HOST)
