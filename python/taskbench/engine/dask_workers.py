"""The driver's side of Dask workers in processes of their own (dask_distributed): their set-up
before the run, the counts they send back after it, and the workers that leave during it.

A worker never builds an App: the driver hands it the run's switches (TASKBENCH_FAULT, -trace)
through Client.run, and gathers what the core counted there, as a distributed C++ system
gathers its ranks' counts, so App.report checks that every task ran exactly once."""

from __future__ import annotations

import os
import socket
import threading

from taskbench import _core

POLL_SECONDS = 0.02  # how often the processes of a cluster this driver started are looked at


def _setup(fault: str, tracing: bool) -> int:
    """On each worker: the driver's fault switch (so that a cluster started elsewhere is
    tested too), tracing, and counts zeroed (a long-lived cluster ran earlier runs)."""
    if fault:
        os.environ["TASKBENCH_FAULT"] = fault
    else:
        os.environ.pop("TASKBENCH_FAULT", None)
    _core.worker_setup(tracing)
    _core.take_note(1)
    import taskbench.engine.app  # noqa: F401  (run_task's module: imported now, not by the first task)
    return os.getpid()


def prepare_workers(client, tracing: bool) -> dict[str, int]:
    """Sets every worker up for the run, and the scheduler's first graph behind it (its first
    one costs tens of ms more: an empty one, untimed); returns address -> pid."""
    pids = client.run(_setup, os.environ.get("TASKBENCH_FAULT", ""), tracing)
    client.get({"taskbench-warm-up": (len, "")}, "taskbench-warm-up")
    return pids


def _held(dask_scheduler) -> int:
    # On the scheduler: the run's tasks (keys ("task-G", t, i)) whose output it keeps in a
    # worker's memory because a client asked for it.
    return sum(1 for key, ts in dask_scheduler.tasks.items()
               if isinstance(key, tuple) and str(key[0]).startswith("task-")
               and ts.state == "memory" and ts.who_wants)


def results_held(client) -> int:
    """How many of the run's task outputs the scheduler holds for a client: every task, once a
    run that asked for every task's output (as the paper's dask_core port) is over; the leaves
    only, had it asked for those (the others freed after their last consumer)."""
    return client.run_on_scheduler(_held)


def _note(graphs: int) -> tuple[str, tuple]:
    # Once the run is over no task runs, so the per-thread counts are read safely.
    return socket.gethostname(), (os.getpid(), *_core.take_note(graphs))


def take_notes(client, graphs: int) -> list[tuple[str, tuple]]:
    """Each worker's host name and note (pid, tasks and last-row outputs checked per graph,
    -trace events) since prepare_workers."""
    return list(client.run(_note, graphs).values())


class Departures:
    """Who left during the run: workers the scheduler removed (its "remove-worker" events),
    and any process of a cluster this driver started that ended (the scheduler included)."""

    def __init__(self, client, cluster=None):
        self.client, self.cluster = client, cluster
        self.gone: list[str] = []
        self._lock = threading.Lock()
        self._callbacks: list = []
        self._stop = threading.Event()
        client.subscribe_topic("all", self._event)
        self._watch = None
        if cluster is not None:
            self._watch = threading.Thread(target=self._poll, name="taskbench-cluster-watch", daemon=True)
            self._watch.start()

    def _event(self, event) -> None:
        _, message = event
        if isinstance(message, dict) and message.get("action") == "remove-worker":
            self._depart(f"worker {message.get('worker')}")

    def _poll(self) -> None:
        while not self._stop.wait(POLL_SECONDS):
            dead = self.cluster.dead()
            if dead:
                self._depart(f"{dead[0]} (pid {dead[1]})")
                return

    def _depart(self, who: str) -> None:
        with self._lock:
            self.gone.append(who)
            callbacks = list(self._callbacks)
        for callback in callbacks:
            callback()

    def on_departure(self, callback) -> None:
        with self._lock:
            self._callbacks.append(callback)
            if self.gone:
                callback()

    def describe(self, pids: dict[str, int]) -> str:
        who = self.gone[0]
        address = who.removeprefix("worker ")
        return f"{who} (pid {pids[address]})" if address in pids else who

    def __enter__(self) -> "Departures":
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        try:
            self.client.unsubscribe_topic("all")
        except Exception:  # the scheduler may be gone: nothing left to unsubscribe from
            pass
