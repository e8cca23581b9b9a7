"""Strong-scaling limit from METG (the Task Bench paper §V-I; docs/predict.md). Pure functions.

An application is its total work W (core-seconds of tasks' compute: its one-node wall time x
cores per node, for a one-node run that is efficient) and its tasks at each node count: either
a fixed total, or `tasks per core` (time steps, when the graph is one task per core per step,
as in the paper's runs). At n nodes of C cores, with ideal scaling:
    wall time   T(n) = W / (n C)
    granularity g(n) = T(n) x n C / tasks(n) = W / tasks(n)
The system keeps >= 50% efficiency while g(n) >= METG(50%) at n nodes; the predicted limit is
the largest node count where that still holds, and its time to solution T(n). With one METG for
every node count and tasks per core S, g(n) = METG exactly at n* = W / (S C METG), in time
T(n*) = METG x S: the paper's intersection of ideal scaling with the "limit 50%" curve.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Application:
    work: float  # core-seconds
    cores_per_node: int
    tasks_per_core: float | None = None  # tasks(n) = tasks_per_core x n x cores_per_node
    tasks: int | None = None  # a fixed total of tasks

    def tasks_at(self, nodes: int) -> float:
        if self.tasks_per_core is not None:
            return self.tasks_per_core * nodes * self.cores_per_node
        return float(self.tasks)

    def granularity(self, nodes: int) -> float:
        return self.work / self.tasks_at(nodes)

    def ideal_time(self, nodes: int) -> float:
        return self.work / (nodes * self.cores_per_node)


@dataclass(frozen=True)
class NodePrediction:
    nodes: int
    metg: float
    granularity: float
    ideal_time: float
    tasks: float
    cores: int

    @property
    def efficient(self) -> bool:
        # A fixed number of tasks cannot keep more cores busy than it has tasks.
        return self.granularity >= self.metg and self.tasks >= self.cores

    @property
    def margin(self) -> float:
        """Granularity over METG: >= 1 keeps 50% efficiency."""
        return self.granularity / self.metg


@dataclass(frozen=True)
class Prediction:
    rows: list[NodePrediction]
    limit: NodePrediction | None  # the largest node count still efficient; None: not even the first
    crossing_nodes: float | None = None  # continuous n* (one METG, tasks per core)
    crossing_time: float | None = None

    @property
    def beyond_the_rows(self) -> bool:
        """Every node count given is still efficient: the limit lies beyond them."""
        return bool(self.rows) and all(row.efficient for row in self.rows)


def predict(app: Application, metg_by_nodes: dict[int, float]) -> Prediction:
    rows = [NodePrediction(n, metg, app.granularity(n), app.ideal_time(n), app.tasks_at(n),
                           n * app.cores_per_node)
            for n, metg in sorted(metg_by_nodes.items())]
    limit = None
    for row in rows:  # the first node count that falls below METG ends strong scaling
        if not row.efficient:
            break
        limit = row
    crossing_nodes = crossing_time = None
    metgs = set(metg_by_nodes.values())
    if len(metgs) == 1 and app.tasks_per_core is not None:
        metg = metgs.pop()
        crossing_nodes = app.work / (app.tasks_per_core * app.cores_per_node * metg)
        crossing_time = metg * app.tasks_per_core
    return Prediction(rows, limit, crossing_nodes, crossing_time)
