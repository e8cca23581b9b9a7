"""python_serial: one Python thread runs every task, row by row (graphs interleaved per
timestep), on buffers the core owns: the per-task floor of the Python binding, as serial is
the floor of the C++ systems."""
from taskbench._core import PointBuffers
from taskbench.engine.app import App, max_timesteps, rows, wall_time

app = App()
app.display()
buffers = [(g, PointBuffers(g)) for g in app.graphs]
steps = max_timesteps(app.graphs)

start = wall_time()
for t in range(steps):
    for g, b in buffers:
        if t < g.timesteps:
            run = b.run
            for i in rows(g, t):
                run(t, i)
elapsed = wall_time() - start
for g, b in buffers:
    b.check_last_row()
app.report(elapsed)
