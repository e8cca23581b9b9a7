"""pyspark: one Spark job per timestep of each graph, whose Spark tasks (one per point) run the
row's Task Bench tasks in Spark's Python workers; a row's outputs reach their consumers through
a shuffle partitioned by consumer point (rows.py). On local[N] (default, N = -worker) or on a
running master (-master spark://HOST:PORT, such as the one the harness's `spark` launcher
starts on 127.0.0.1). Session start-up is outside the timed region, reported as
system_report.startup in the -json report."""
import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

from taskbench._core import tracing
from taskbench.engine.app import MAX_WORKERS, App, Flag, Tally, available_cores, engine_version, import_engine, wall_time

HERE = Path(__file__).resolve().parent
VALIDATION_LINE = re.compile(r"ValidationError: (taskbench: validation failed[^\n]*)")
WORKER_DIED = "Python worker exited unexpectedly (crashed)"
# Without -v: Spark's log4j at ERROR, and the lines the JVM and Spark print on stderr whatever
# log4j's configuration says, held back (see quiet_context).
QUIET_LOG4J = HERE / "log4j2-quiet.properties"
JVM_NOTICES = ("WARNING: Using incubator modules: ", 'Setting default log level to "',
               "To adjust logging level use sc.setLogLevel(")
rows = None  # rows.py, imported with the engine (it subclasses pyspark's AccumulatorParam)


def configuration(master: str, cores: int, bind: str):
    from pyspark import SparkConf
    conf = SparkConf().setAppName("taskbench").setMaster(master)
    # A failed task fails the run: a retry would hide a failed validation (and count twice).
    conf.set("spark.task.maxFailures", "1")
    conf.set("spark.ui.enabled", "false").set("spark.ui.showConsoleProgress", "false")
    # Spark's workers run the launcher's interpreter, with taskbench and its _core on the path.
    conf.set("spark.pyspark.python", sys.executable)
    conf.set("spark.executorEnv.PYTHONPATH", os.environ.get("PYTHONPATH", ""))
    # The driver's RPC server and block manager listen on the one address the executors reach.
    conf.set("spark.driver.host", bind).set("spark.driver.bindAddress", bind)
    # Across hosts, a task whose cached input sits on a busy executor would wait up to 3 s
    # (Spark's default) for it instead of fetching the few bytes from there; with one executor
    # (local[N], one worker) every input is local and nothing ever waits.
    conf.set("spark.locality.wait", "0s")
    if not master.startswith("local"):
        conf.set("spark.cores.max", str(cores)) if cores else None
    return conf


def run_graphs(sc, graphs, switches) -> tuple[float, Tally, list, dict]:
    """Every graph's rows, timestep by timestep: one job per timestep for all graphs' rows,
    collecting their notes and the hosts they ran on. Returns (elapsed, the notes' tally,
    Spark's count of executions, {graph index: [(point, output)] of its last row})."""
    tally = Tally(len(graphs))
    executions = sc.accumulator([0] * len(graphs), rows.Executions())
    current: dict[int, object] = {}
    start = wall_time()
    for t in range(max(g.timesteps for g in graphs)):
        made = {}
        for g in graphs:
            if t < g.timesteps:
                previous = current.get(g.index)
                made[g.index] = (rows.first_row(sc, g, switches, executions) if previous is None
                                 else rows.next_row(previous, g, t, switches, executions))
                # Kept for the next row's shuffle (persist also stops pyspark from fusing the
                # note's map into the row, which would then run again in the next job) and cut
                # from its lineage: job t would otherwise walk and serialise t earlier rows.
                made[g.index].persist().localCheckpoint()
        for note, host in sc.union(list(made.values())).map(lambda record: record[2:]).collect():
            tally.add(note, host)
        for index in made:
            if index in current:
                current[index].unpersist()
        current.update(made)
    elapsed = wall_time() - start
    # After the clock: each graph's last row, from Spark's cache to the driver (a row Spark
    # computed again would count twice in `executions`, and fail the report).
    last_rows = {index: rdd.map(lambda record: record[:2]).collect() for index, rdd in current.items()}
    return elapsed, tally, executions.value, last_rows


def quiet_context(conf):
    """A SparkContext whose JVM keeps its start-up notices off stderr: log4j at ERROR, and its
    stderr read here, every line passed on but the known notices."""
    from pyspark import SparkContext
    from pyspark.java_gateway import launch_gateway
    options = conf.get("spark.driver.extraJavaOptions", "")
    conf.set("spark.driver.extraJavaOptions", f"{options} -Dlog4j2.configurationFile={QUIET_LOG4J}".strip())
    gateway = launch_gateway(conf, popen_kwargs={"stderr": subprocess.PIPE})

    def forward(stream):
        for line in stream:
            text = line.decode(errors="replace")
            if not text.startswith(JVM_NOTICES):
                sys.stderr.write(text)
                sys.stderr.flush()

    threading.Thread(target=forward, args=(gateway.proc.stderr,), daemon=True).start()
    return SparkContext(conf=conf, gateway=gateway)


def fail(exc) -> None:
    """A failed Spark job: 3 with the core's line after a failed validation; else 1, naming a
    Python worker's death (Spark's daemon, not this driver, is its parent: the signal is not
    known here) or Spark's own first line."""
    text = str(exc)
    found = VALIDATION_LINE.search(text)
    if found:
        sys.stderr.write(found.group(1) + "\n")
        sys.exit(3)
    if WORKER_DIED in text:
        sys.stderr.write(f"taskbench: a Spark Python worker process died during the run ({WORKER_DIED})\n")
        sys.exit(1)
    first = str(exc.java_exception.toString()).splitlines()[0][:400]
    sys.stderr.write(f"taskbench: a Spark job failed: {first}\n")
    sys.exit(1)


def main() -> None:
    app = App([Flag("-worker", "N", "cores of local[N] (default: cores); with -master: cores to use", 1, MAX_WORKERS),
               Flag("-master", "URL", "run on this Spark master (spark://HOST:PORT) instead of local[N]", text=True),
               Flag("-bind", "ADDRESS", "the driver's address, which the executors reach (default 127.0.0.1)",
                    text=True)],
              version=engine_version("pyspark"))
    import_engine("pyspark", "spark", app)
    from py4j.protocol import Py4JJavaError
    from pyspark import SparkContext, cloudpickle
    global rows
    sys.path.insert(0, str(HERE))
    import rows  # beside this file; pickled by value, Spark's workers cannot import it
    cloudpickle.register_pickle_by_value(rows)
    master = app.text_flag("-master")
    cores = app.flag("-worker", 0 if master else available_cores())
    # Spark's Python workers: this interpreter (the venv's), not the first python3 on PATH.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    started = wall_time()
    bind = app.text_flag("-bind")
    if bind:
        # The JVM looks its host's name up otherwise, which a cluster's DNS may not know.
        os.environ["SPARK_LOCAL_IP"] = bind
    conf = configuration(master or f"local[{cores}]", cores, bind or "127.0.0.1")
    sc = SparkContext(conf=conf) if app.verbosity else quiet_context(conf)
    sc.setLogLevel("ERROR")
    if master:
        cores = cores or sc.defaultParallelism
    startup = wall_time() - started
    app.set_parallelism(1, cores)
    app.add_report_json("startup", json.dumps({"seconds": startup, "what": "SparkContext (JVM and session)"}))
    app.display()
    try:
        elapsed, notes, executed, last_rows = run_graphs(sc, app.graphs,
                                                          (os.environ.get("TASKBENCH_FAULT", ""), tracing()))
    except Py4JJavaError as exc:
        sc.stop()
        fail(exc)
    sc.stop()
    for g in app.graphs:
        for i, output in last_rows[g.index]:
            g.check_unread_output(g.timesteps - 1, i, output)
    app.add_report_json("hosts", json.dumps(notes.hosts))
    # Spark's count of executions, not the notes': a task Spark ran twice fails the report.
    app.report(elapsed, executed)


if __name__ == "__main__":
    main()
