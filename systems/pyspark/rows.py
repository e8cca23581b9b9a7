"""One timestep of one graph as Spark RDDs: the row's outputs keyed by point, sent to their
consumers through a shuffle with one partition per point of the next row, whose Spark task runs
that point's Task Bench task. Pickled by value (cloudpickle) into Spark's Python workers, which
run it with taskbench._core from the launcher's PYTHONPATH."""

from __future__ import annotations

from pyspark import AccumulatorParam

# A worker's task: switches applied once per process, a note and the worker's host back.
from taskbench.engine.worker_task import hosted_task


class Executions(AccumulatorParam):
    """Tasks run, per graph index, wherever and however often Spark ran them: a row that Spark
    recomputed would count twice here (while the collected notes count each task once)."""

    def zero(self, value: list) -> list:
        return [0] * len(value)

    def addInPlace(self, a: list, b: list) -> list:
        # A task's counts stop at its own graph's index (take_note(index + 1)).
        longer, shorter = (a, b) if len(a) >= len(b) else (b, a)
        return [x + (shorter[k] if k < len(shorter) else 0) for k, x in enumerate(longer)]


def first_row(sc, graph, switches, executions):
    """Row 0: no inputs, one partition per point."""
    width, offset = graph.width(0), graph.offset(0)
    return sc.parallelize([], width).mapPartitionsWithIndex(
        lambda p, _: run(switches, executions, graph, 0, offset + p, []), preservesPartitioning=True)


def next_row(previous, graph, t: int, switches, executions):
    """Row t from row t-1's records: each output goes to the partitions of its consumers (a
    shuffle), and partition p runs point offset(t) + p on what it received."""
    width, offset = graph.width(t), graph.offset(t)

    def send(record):
        j, output = record[:2]
        return [(i, (j, output)) for i in graph.successors(t - 1, j)]

    shuffled = previous.flatMap(send).partitionBy(width, lambda i: i - offset)
    return shuffled.mapPartitionsWithIndex(
        lambda p, inputs: run(switches, executions, graph, t, offset + p, [v for _, v in inputs]),
        preservesPartitioning=True)


def run(switches, executions, graph, t: int, i: int, received: list) -> list:
    """Task (t, i) on its inputs in Graph.dependencies order (ascending producer point): its
    record (point, output, note, the host it ran on)."""
    inputs = [output for _, output in sorted(received, key=lambda pair: pair[0])]
    output, (note, host) = hosted_task(switches, graph, t, i, *inputs)
    executions.add(list(note[1]))
    return [(i, output, note, host)]
