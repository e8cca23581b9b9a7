"""The chares of the charm4py system: one Column per point of a graph (an element of a chare
array as wide as the graph), which runs the tasks of its point row after row, each once the
outputs it depends on have arrived as messages (`deliver`) from the columns that produced them.
Nothing is polled: a column acts only when a message comes, as Charm++ schedules it."""

from __future__ import annotations

import os
import socket

from charm4py import Chare, Reducer

from taskbench import _core
from taskbench.engine.app import run_task


class Column(Chare):
    def __init__(self, graph, main):
        self.graph = graph
        self.main = main  # the driver's chare on PE 0, told of a failed validation
        self.point = self.thisIndex[0]
        self.next_t = 0  # the next row whose task this column runs (or skips: point not in it)
        self.inbox: dict[int, dict[int, bytearray]] = {}  # row -> producer point -> its output
        self.finished = None  # the driver's future, set by start()
        self.last_output = None  # the output of this column's task in the graph's last row

    def ready(self, future) -> None:
        """Answers once every element exists (array creation is asynchronous)."""
        self.reduce(future)

    def start(self, finished) -> None:
        self.finished = finished
        self.advance()

    def deliver(self, t: int, producer: int, output) -> None:
        """The output of (t - 1, producer), one of the inputs of this column's task in row t."""
        self.inbox.setdefault(t, {})[producer] = output
        self.advance()

    def advance(self) -> None:
        """Runs every task of this column whose inputs are all here, in row order; sends each
        output to its consumers in the next row; joins the driver's reduction at the end."""
        g, i = self.graph, self.point
        while self.next_t < g.timesteps:
            t = self.next_t
            if not g.contains(t, i):
                self.next_t += 1
                continue
            producers = g.dependencies(t, i)
            arrived = self.inbox.get(t, {})
            if any(j not in arrived for j in producers):
                return  # the missing input's message calls advance() again
            try:
                output = run_task(g, t, i, *[arrived[j] for j in producers])
            except _core.ValidationError as failure:
                self.main.failed(str(failure.args[0] if failure.args else failure))
                return  # this column stops; the driver ends the run
            self.inbox.pop(t, None)
            if t + 1 == g.timesteps:
                self.last_output = output
            for k in g.successors(t, i):
                self.thisProxy[k].deliver(t + 1, i, output)
            self.next_t += 1
        if self.finished is not None:
            self.reduce(self.finished)
            self.finished = None


    def check_last_row(self, future) -> None:
        """After the run: this column's output of the last timestep, to the core's check."""
        g, t = self.graph, self.graph.timesteps - 1
        if g.contains(t, self.point):
            try:
                g.check_unread_output(t, self.point, self.last_output)
            except _core.ValidationError as failure:
                self.main.failed(str(failure.args[0] if failure.args else failure))
                return  # the driver ends the run
        self.reduce(future)


class Process(Chare):
    """One per PE (a charm4py Group): sets up the core there and reports what it ran."""

    def setup(self, fault: str, tracing: bool, future) -> None:
        # TASKBENCH_FAULT reaches every PE through charmrun's environment; set here anyway, so
        # a PE runs with the driver's switch whatever its environment holds.
        if fault:
            os.environ["TASKBENCH_FAULT"] = fault
        else:
            os.environ.pop("TASKBENCH_FAULT", None)
        # A failed validation raises in the task instead of ending this PE's process, so the
        # driver ends the whole run (charmrun and every PE) with the core's line.
        _core.worker_setup(tracing, validation_raises=True)
        _core.take_note(1)  # the counts start from zero
        self.reduce(future)

    def note(self, graphs: int, future) -> None:
        """This PE's host and (pid, tasks per graph, last-row outputs checked, trace events),
        gathered on the driver."""
        self.reduce(future, (socket.gethostname(), (os.getpid(), *_core.take_note(graphs))), Reducer.gather)
