"""parsl: one Parsl python_app per task, its producers' AppFutures as its arguments, so Parsl's
DataFlowKernel launches it once they are done and passes their results in. The whole run is
submitted at once before the driver waits.

- `parsl` (default): the HighThroughputExecutor. Its interchange and one worker pool of
  -worker N worker processes run on 127.0.0.1, started here before the timed region; with
  -listen HOST:PORT the interchange waits there for worker pools started elsewhere (a Slurm or
  PBS job running process_worker_pool.py) instead, until -worker N of their workers are in;
  with port 0 it picks one, written to -keys DIR/worker_port for the pools' starter.
- `parsl_threads` (-threads): Parsl's ThreadPoolExecutor of -worker N threads in this process,
  the floor of Parsl's own overhead.

Parsl's run directory (its logs, the pool's submit script and temporary files, the
interchange's keys) is a temporary folder removed after the run, never ./runinfo."""
import json
import logging
import os
import shlex
import shutil
import signal
import sys
import tempfile
import threading

from taskbench import _core
from taskbench._core import ValidationError, tracing
from taskbench.engine.app import (MAX_WORKERS, App, Flag, Tally, available_cores, engine_version, import_engine,
                                  rows, run_task, wall_time)

LABEL = "taskbench"
CONNECT_SECONDS = 120.0  # a loaded 2-core machine starting N interpreters that import parsl
WARM_UP_ROUNDS = 20
STOP_SECONDS = 10.0  # for the pool to end on the SIGTERM Parsl sends it, before it gets SIGKILL
# The interchange, tied to this process: the kernel SIGKILLs it when this one dies, even by
# SIGKILL (PR_SET_PDEATHSIG, 1); the pool's manager then misses its heartbeats and ends too.
TIED_INTERCHANGE = ("import ctypes, runpy, signal; ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0); "
                    "runpy.run_module('parsl.executors.high_throughput.interchange', run_name='__main__')")


def pool_task(switches, graph, t: int, i: int, *produced):
    """Task (t, i) in an HTEX worker process: (output, note of what the core counted there, the
    host it ran on).
    produced: its producers' (output, note) results. This function reaches the workers pickled
    by value (dill, as Parsl does for a script's functions), so it imports what it uses."""
    import socket

    from taskbench.engine.app import run_task_in_worker
    from taskbench.engine.worker_task import setup
    # Once per worker process, as a Ray task does: the driver's fault switch and tracing, and a
    # failed validation raises in the task, as the worker's exit status never reaches the
    # driver (the pool's manager is its parent).
    setup(switches)
    return (*run_task_in_worker(graph, t, i, *[p[0] for p in produced]), socket.gethostname())


def thread_task(graph, t: int, i: int, *produced) -> bytearray:
    """Task (t, i) in a thread of this process (-threads). Not run_task itself: Parsl reads a
    parameter named `inputs` as its own (files to stage in)."""
    return run_task(graph, t, i, *produced)


def worker_pid(_round: int) -> int:
    import os as worker_os
    import time
    time.sleep(0.02)  # long enough that the interchange hands the next one to another worker
    return worker_os.getpid()


class StartError(RuntimeError):
    pass


def make_run_dir() -> str:
    """A new run directory, named for this process. Those of earlier runs whose process is
    gone (killed before it could remove its own: a timeout's SIGKILL) are removed first."""
    base, prefix = tempfile.gettempdir(), "taskbench-parsl-"
    for name in os.listdir(base):
        pid, path = name[len(prefix):].split("-")[0], os.path.join(base, name)
        if not (name.startswith(prefix) and pid.isdigit()):
            continue
        try:
            if os.stat(path).st_uid == os.getuid():
                os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(path, ignore_errors=True)
        except OSError:  # gone meanwhile, or a live process of another user's
            pass
    return tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-")


def executor(workers: int, threads: bool, listen: str, keys: str, run_dir: str):
    from parsl.executors import HighThroughputExecutor, ThreadPoolExecutor
    from parsl.providers import LocalProvider
    if threads:
        return ThreadPoolExecutor(label=LABEL, max_threads=workers)
    python = sys.executable
    # The pool's and the interchange's programs through this interpreter: their scripts'
    # names (process_worker_pool.py) are on PATH only in an activated environment.
    pool = ("{python} -m parsl.executors.high_throughput.process_worker_pool {debug} {max_workers_per_node} "
            "-a {addresses} -p {prefetch_capacity} -c {cores_per_worker} -m {mem_per_worker} --poll {poll_period} "
            "--port={worker_port} --cert_dir {cert_dir} --logdir={logdir} --logconf={logconf} "
            "--block_id={{block_id}} --hb_period={heartbeat_period} {address_probe_timeout_string} "
            "--hb_threshold={heartbeat_threshold} --drain_period={drain_period} --cpu-affinity {cpu_affinity} "
            "{enable_mpi_mode} --mpi-launcher={mpi_launcher} --available-accelerators {accelerators}")
    host, _, port = listen.rpartition(":") if listen else ("127.0.0.1", "", "")
    htex = HighThroughputExecutor(
        label=LABEL, address=host, loopback_address="127.0.0.1",
        worker_port=int(port) if port else None,
        launch_cmd=pool.replace("{python}", python),
        interchange_launch_cmd=[python, "-c", TIED_INTERCHANGE],
        # Exactly -worker N workers: the pool otherwise takes min(N, cores / cores_per_worker).
        max_workers_per_node=workers, cores_per_worker=1 / MAX_WORKERS,
        # Its block (the local pool) is started by main() at once: Parsl's strategy would start
        # it at its first tick, 5 s (strategy_period) after the interchange.
        # The pool's temporary files (multiprocessing's) in the run directory, which goes with them.
        provider=LocalProvider(init_blocks=0, min_blocks=0, max_blocks=0 if listen else 1,
                               worker_init=f"export TMPDIR={shlex.quote(run_dir)}"),
        # The pool's watchdog looks for dead workers once a heartbeat period (30 s by default):
        # a killed worker then fails the run within a second; and a pool whose interchange is
        # gone ends after 10 s without its heartbeats (120 s by default).
        heartbeat_period=1, heartbeat_threshold=10, worker_logdir_root=run_dir)
    if keys:
        # Its CurveZMQ keys where the pools started elsewhere read them (--cert_dir), kept
        # across runs; else Parsl makes new ones in the run directory.
        from parsl import curvezmq
        folder = os.path.join(keys, "certificates")
        htex.cert_dir = folder if os.path.isdir(folder) else curvezmq.create_certificates(keys)
    return htex


def publish_port(htex, keys: str) -> None:
    """The interchange's worker port, in -keys DIR where the pools' starter reads it: whole or
    not at all."""
    partial = os.path.join(keys, f"worker_port.{os.getpid()}")
    with open(partial, "w") as out:
        out.write(f"{htex.worker_port}\n")
    os.replace(partial, os.path.join(keys, "worker_port"))


def wait_for_workers(htex, workers: int) -> int:
    """Waits until the interchange has -worker N workers; returns how many it has."""
    deadline = wall_time() + CONNECT_SECONDS
    while True:
        count = sum(m["worker_count"] for m in htex.connected_managers())
        if count >= workers:
            return count
        if wall_time() > deadline:
            raise StartError(f"taskbench: {count} of {workers} Parsl workers connected to the interchange in "
                             f"{CONNECT_SECONDS:.0f} s")
        threading.Event().wait(0.05)


def warm_up(parsl, dfk, workers: int) -> None:
    """Every worker has started and run a task before the timed region."""
    ready = parsl.python_app(worker_pid, data_flow_kernel=dfk, executors=[LABEL])
    seen: set = set()
    for _ in range(WARM_UP_ROUNDS):
        seen.update(f.result() for f in [ready(k) for k in range(2 * workers)])
        if len(seen) >= workers:
            return


def run(remote, graphs, switches, pool: bool) -> tuple[float, list, list]:
    """Submits every task of every graph, then waits until all are done or one failed.
    Returns (elapsed, the pool's notes, the failures, (graph, t, i, output) of every last row)."""
    finished, lock = threading.Event(), threading.Lock()
    left = [sum(g.width(t) for g in graphs for t in range(g.timesteps))]
    notes, failures, last_rows = [], [], []

    def done(future) -> None:  # on Parsl's threads
        error = future.exception()
        with lock:
            if error is not None:
                failures.append(error)
                finished.set()
                return
            if pool:
                notes.append(future.result()[1:])  # (note, host)
            left[0] -= 1
            if left[0] == 0:
                finished.set()

    start = wall_time()
    for g in graphs:
        previous = {}
        for t in range(g.timesteps):
            current = {}
            for i in rows(g, t):
                args = (switches, g, t, i) if pool else (g, t, i)
                future = remote(*args, *[previous[j] for j in g.dependencies(t, i)])
                future.add_done_callback(done)
                current[i] = future
                if t + 1 == g.timesteps:
                    last_rows.append((g, t, i, future))
            # The driver lets go of row t-1: Parsl holds each future until its consumers launched.
            previous = current
    finished.wait()
    elapsed = wall_time() - start
    if failures:
        return elapsed, notes, failures, []
    return elapsed, notes, failures, [(g, t, i, f.result()[0] if pool else f.result()) for g, t, i, f in last_rows]


def pool_groups(dfk) -> list[int]:
    """The process groups of the local pool's blocks (its bash job and what it started)."""
    groups = []
    htex = dfk.executors.get(LABEL)
    for job in getattr(getattr(htex, "provider", None), "resources", {}).values():
        try:
            groups.append(os.getpgid(int(job["remote_pid"])))
        except (KeyError, TypeError, ValueError, ProcessLookupError):
            pass
    return groups


def stop(dfk) -> None:
    """Stops the interchange and the local pool, and waits until every process of the pool
    has ended: Parsl's LocalProvider sends its process group SIGTERM and returns at once."""
    groups = pool_groups(dfk)
    dfk.cleanup()
    wait_for_groups(groups)


def abandon(dfk) -> None:
    """Ends the interchange and the local pool after a failed task, without Parsl's cleanup,
    before this process ends by os._exit. Tasks are still in flight then, and
    DataFlowKernel.cleanup closes ZMQ sockets that Parsl's other threads may be using at that
    moment: libzmq then aborts the process ("Assertion failed: _state == term_ack_sent ||
    _state == term_req_sent2 (src/pipe.cpp:355)", once in a CI run), and the failure's own
    line is lost. Pools started elsewhere (-listen) end as they do after a cleanup: their
    launcher stops them, or they miss the interchange's heartbeats."""
    groups = pool_groups(dfk)
    interchange = getattr(dfk.executors.get(LABEL), "interchange_proc", None)
    if interchange is not None:
        interchange.kill()
        interchange.wait()
    for group in groups:
        try:
            os.killpg(group, signal.SIGTERM)
        except ProcessLookupError:
            pass
    wait_for_groups(groups)


def wait_for_groups(groups: list[int]) -> None:
    """Waits until every process of these groups has ended; SIGKILL after STOP_SECONDS."""
    deadline = wall_time() + STOP_SECONDS
    for group in groups:
        while True:
            try:
                os.killpg(group, signal.SIGKILL if wall_time() > deadline else 0)
            except ProcessLookupError:
                break
            threading.Event().wait(0.02)


def usage(message: str) -> None:
    """A flag combination the core's parser cannot judge: one line, status 2, as its own."""
    sys.stderr.write(f"taskbench: {message}\n")
    sys.exit(2)


def fail(status: int, line: str) -> None:
    sys.stdout.flush()
    sys.stderr.write(line + "\n")
    sys.stderr.flush()
    os._exit(status)


def report_failure(dfk, run_dir: str, failures: list) -> None:
    """Ends the run after a task failed: 3 with the core's line for a failed validation, else
    1 with Parsl's reason (a dead worker's exit status stays with its pool's manager)."""
    from parsl.dataflow.errors import DependencyError
    cause = next((f for f in failures if not isinstance(f, DependencyError)), failures[0])
    abandon(dfk)
    shutil.rmtree(run_dir, ignore_errors=True)
    if isinstance(cause, ValidationError):
        fail(3, str(cause.args[0] if cause.args else cause))
    first = str(cause).strip().splitlines()[0] if str(cause).strip() else ""
    what = "worker process died" if type(cause).__name__ == "WorkerLost" else "task failed"
    fail(1, f"taskbench: a Parsl {what} during the run ({type(cause).__name__}: {first})")


def main() -> None:
    app = App([Flag("-worker", "N", "worker processes of the local pool, or threads with -threads; with -listen: "
                    "workers to wait for (default: cores)", 1, MAX_WORKERS),
               Flag("-threads", "", "Parsl's ThreadPoolExecutor in this process instead of the HighThroughputExecutor"),
               Flag("-listen", "HOST:PORT", "the interchange waits for worker pools started elsewhere on "
                    "HOST:PORT instead of starting one", text=True),
               Flag("-keys", "DIR", "with -listen: the interchange's keys in DIR/certificates (made if missing), "
                    "the pools' --cert_dir", text=True)],
              version=engine_version("parsl"))
    threads = app.flag("-threads", 0) == 1
    listen, keys = app.text_flag("-listen"), app.text_flag("-keys")
    if listen and (threads or not keys or not listen.rpartition(":")[2].isdigit()):
        usage("-listen: HOST:PORT, with -keys DIR, for the HighThroughputExecutor (not with -threads)")
    if keys and not listen:
        usage("-keys: the keys of a -listen interchange")
    workers = app.flag("-worker", available_cores())
    parsl = import_engine("parsl", "parsl", app)
    from parsl.config import Config
    from parsl.dataflow.dflow import DataFlowKernel
    if app.verbosity:
        parsl.set_stream_logger(level=logging.INFO)  # else Parsl's loggers have only a NullHandler
    # A failed validation raises (in the threads' tasks, and in the check of the last rows after
    # the run; the pool's tasks do so too) instead of ending this process before it removed its
    # run directory.
    _core.worker_setup(tracing(), validation_raises=True)
    run_dir = make_run_dir()
    started = wall_time()
    dfk = DataFlowKernel(Config(executors=[executor(workers, threads, listen, keys, run_dir)], run_dir=run_dir,
                                strategy="none", usage_tracking=0, initialize_logging=False))
    try:
        if not threads:
            if not listen:
                dfk.executors[LABEL].scale_out_facade(1)
            else:
                publish_port(dfk.executors[LABEL], keys)
            workers = wait_for_workers(dfk.executors[LABEL], workers)
        warm_up(parsl, dfk, workers)
        startup = wall_time() - started
        # Pools started elsewhere: processes of their own, one task at a time each, as a Dask cluster's.
        app.set_parallelism(*((workers, 1) if listen else (1, workers)))
        app.add_report_json("executor", '"threads"' if threads else '"htex"')
        app.add_report_json("startup_seconds", f"{startup:.3f}")
        app.display()
        remote = parsl.python_app(thread_task if threads else pool_task, data_flow_kernel=dfk, executors=[LABEL])
        elapsed, notes, failures, last_rows = run(remote, app.graphs,
                                                  (os.environ.get("TASKBENCH_FAULT", ""), tracing()), not threads)
        if failures:
            report_failure(dfk, run_dir, failures)
        try:
            for g, t, i, output in last_rows:
                g.check_unread_output(t, i, output)
        except ValidationError as failure:
            report_failure(dfk, run_dir, [failure])
    except BaseException as exc:
        stop(dfk)
        shutil.rmtree(run_dir, ignore_errors=True)
        if isinstance(exc, StartError):
            fail(1, str(exc))
        raise
    stop(dfk)
    shutil.rmtree(run_dir, ignore_errors=True)
    if threads:
        app.report(elapsed)
    else:
        tally = Tally(len(app.graphs))
        for note, host in notes:
            tally.add(note, host)
        app.add_report_json("hosts", json.dumps(tally.hosts))
        app.report(elapsed, tally.executed)


if __name__ == "__main__":
    main()
