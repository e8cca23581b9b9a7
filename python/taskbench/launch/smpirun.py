"""smpirun launcher: an MPI system's SimGrid SMPI build on a simulated platform (docs/simulation.md).

smpirun starts one process, which loads one copy of the program per rank and runs the ranks in
turn on simulated hosts: the platform file's (--simulate), a rank on each core of its first
--nodes hosts (the hostfile, written into the run's folder with smpirun's per-rank copies of the
program). The core is told the node count (-nodes), as across real hosts. SimGrid's own lines
are kept to errors (-quiet, and --log thresholds): a run's stderr is the system's.

The smpirun is the build's: the SimGrid a build compiled its SMPI programs against (the system's,
or TASKBENCH_SIMGRID_ROOT's) is linked by CMake beside the build's other helpers
(libexec/taskbench/smpirun), and never another one on PATH: a program built against SimGrid 4.1
would otherwise load into 3.32's libsimgrid."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

from taskbench.errors import EXIT_USAGE, UserError
from taskbench.launch.mpi_common import EXPECT_RANKS_FLAG
from taskbench.launch.common import LaunchOptions, LaunchCommand, base_environment, helper_path, merged_env, program

LAUNCHER = "smpirun"
# SimGrid's lines below errors off: a rank that ends the run (a bad flag: exit 2) makes it warn
# "Process called exit when leaving", which is no news beside the system's own line.
QUIET = ["-quiet", "--log=root.thresh:error"]
# Memory mappings a simulated rank takes in smpirun's one process: 5 for its copy of the program
# (dlopen'ed segments) and 2 for its stack and guard page (counted in /proc/PID/maps at 2048
# ranks: 14,511 in all). Past the kernel's vm.max_map_count (65,530 by default: about 9,000
# ranks, 290 cori nodes) a rank's dlopen fails and smpirun aborts with a misleading "Did you
# compile the program with a SMPI-specific compiler?".
MAPS_PER_RANK = 7
MAPS_BESIDE_RANKS = 1000  # SimGrid's, the libraries' and the heap's own
MAX_MAP_COUNT = Path("/proc/sys/vm/max_map_count")


def why_not_here(system) -> str:
    return smpirun_problem(build_smpirun(system))


def build_smpirun(system) -> Path:
    """The smpirun of the SimGrid the system's build was compiled against (systems/common/mpi/flavors.cmake)."""
    return helper_path(system, LAUNCHER)


def smpirun_problem(path: Path) -> str:
    """Why the build's smpirun at `path` cannot run ("" when it can)."""
    if path.is_symlink() and not path.exists():
        return (f"the SimGrid this build was compiled against is gone ({path} -> {os.readlink(path)}): "
                "reinstall it, or re-run CMake with another TASKBENCH_SIMGRID_ROOT")
    if not path.exists():
        return (f"this build records no smpirun ({path}): re-run CMake, which links the smpirun of the "
                "SimGrid it compiles against (apt-get install libsimgrid-dev, or TASKBENCH_SIMGRID_ROOT)")
    return ""


def command(system, flags: list[str], options: LaunchOptions) -> LaunchCommand:
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
    _check_map_count(ranks)
    # The run's folder (runner.run_once) holds the hostfile and the program's copies; a command made
    # outside a run (a system's -h) gets one of its own, removed when the harness exits.
    folder = options.run_dir
    if folder is None:
        folder = Path(tempfile.mkdtemp(prefix="taskbench-smpi-"))
        atexit.register(shutil.rmtree, folder, True)
    hostfile = folder / "hostfile"
    hostfile.write_text(simulation.platform.hostfile(simulation.nodes))
    set_env = base_environment(system, options)
    argv = [str(build_smpirun(system)), *QUIET, "-platform", str(simulation.platform.path),
            "-hostfile", str(hostfile), "-np", str(ranks),
            *program(system), *flags, EXPECT_RANKS_FLAG, str(ranks)]
    if "-nodes" not in flags:
        argv += ["-nodes", str(simulation.nodes)]
    # Where smpirun puts its copies: its -tmpdir takes the word after it for the program (SimGrid
    # 3.32's smpirun shifts one word, not two), so its other source, TMPDIR (not provenance: the
    # run's own folder, another each run).
    env = dict(merged_env(set_env), TMPDIR=str(folder))
    return LaunchCommand(argv, env, set_env, ranks, None, shell_status=True)


def _check_map_count(ranks: int) -> None:
    """Refuse, with what to do, a run whose ranks need more memory mappings than the kernel allows
    one process (MAPS_PER_RANK), instead of smpirun's abort halfway through loading them."""
    try:
        limit = int(MAX_MAP_COUNT.read_text())
    except (OSError, ValueError):
        return  # not Linux, or not readable: smpirun will say what it says
    needed = ranks * MAPS_PER_RANK + MAPS_BESIDE_RANKS
    if needed > limit:
        raise UserError(f"{ranks} simulated ranks need about {needed:,} memory mappings in smpirun's one process "
                        f"({MAPS_PER_RANK} a rank), above this machine's vm.max_map_count ({limit:,}): raise it "
                        f"(as root: sysctl -w vm.max_map_count={_round_up(needed)}) or simulate fewer nodes",
                        EXIT_USAGE)


def _round_up(count: int) -> int:
    """The next power of two: a round figure to set, with room for a larger run."""
    return 1 << (count - 1).bit_length()


def simulated_systems(registry, names: list[str]) -> list[str]:
    """Each named system's simulated build: itself where it is one, else the entry that says it
    `simulates` it."""
    builds = []
    for name in names:
        system = registry.get(name)
        if system.launcher == LAUNCHER:
            builds.append(name)
            continue
        found = [s.name for s in registry if s.simulates == name]
        if not found:
            known = sorted(s.simulates for s in registry if s.simulates)
            raise UserError(f"--simulate: {name} has no simulated build (these have: {', '.join(known)})", EXIT_USAGE)
        builds.append(found[0])
    return builds
