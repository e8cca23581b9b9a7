"""smpirun launcher: an MPI system's SimGrid SMPI build on a simulated platform (docs/simulation.md).

smpirun starts one process, which loads one copy of the program per rank and runs the ranks in
turn on simulated hosts: the platform file's (--simulate), a rank on each core of its first
--nodes hosts (the hostfile, written into the run's folder with smpirun's per-rank copies of the
program). The core is told the node count (-nodes), as across real hosts. SimGrid's own lines
are kept to errors (-quiet, and --log thresholds): a run's stderr is the system's."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

from taskbench.errors import EXIT_USAGE, UserError
from taskbench.launch.mpi_common import EXPECT_RANKS_FLAG
from taskbench.launch.plan import LaunchOptions, LaunchPlan, base_environment, merged_env, program

LAUNCHER = "smpirun"
# SimGrid's lines below errors off: a rank that ends the run (a bad flag: exit 2) makes it warn
# "Process called exit when leaving", which is no news beside the system's own line.
QUIET = ["-quiet", "--log=root.thresh:error"]


def why_not_here(system) -> str:
    return "" if shutil.which(LAUNCHER) else "no smpirun on PATH (apt-get install libsimgrid-dev)"


def command(system, flags: list[str], options: LaunchOptions) -> LaunchPlan:
    simulation = options.simulation
    if simulation is None:
        raise UserError(f"{system.name} runs on a simulated platform: give --simulate PLATFORM and --nodes N "
                        "(docs/simulation.md)", EXIT_USAGE)
    if options.cluster is not None:
        raise UserError(f"--hosts: a simulated run's hosts are its platform's ({system.name})", EXIT_USAGE)
    if (options.threads_per_rank or 1) > 1:
        raise UserError(f"--threads-per-rank: {system.name}'s simulated ranks run one thread each", EXIT_USAGE)
    ranks = options.ranks or simulation.cores
    if ranks > simulation.cores:
        raise UserError(f"--ranks {ranks}: {simulation.nodes} node(s) of platform {simulation.platform.name} have "
                        f"{simulation.cores} cores, a rank each at most", EXIT_USAGE)
    # The run's folder (runner.run_once) holds the hostfile and the program's copies; a plan made
    # outside a run (a system's -h) gets one of its own, removed when the harness exits.
    folder = options.run_dir
    if folder is None:
        folder = Path(tempfile.mkdtemp(prefix="taskbench-smpi-"))
        atexit.register(shutil.rmtree, folder, True)
    hostfile = folder / "hostfile"
    hostfile.write_text(simulation.platform.hostfile(simulation.nodes))
    set_env = base_environment(system, options)
    argv = [shutil.which(LAUNCHER) or LAUNCHER, *QUIET, "-platform", str(simulation.platform.path),
            "-hostfile", str(hostfile), "-np", str(ranks),
            *program(system), *flags, EXPECT_RANKS_FLAG, str(ranks)]
    if "-nodes" not in flags:
        argv += ["-nodes", str(simulation.nodes)]
    # Where smpirun puts its copies: its -tmpdir takes the word after it for the program (SimGrid
    # 3.32's smpirun shifts one word, not two), so its other source, TMPDIR (not provenance: the
    # run's own folder, another each run).
    env = dict(merged_env(set_env), TMPDIR=str(folder))
    return LaunchPlan(argv, env, set_env, ranks, None, shell_status=True)
