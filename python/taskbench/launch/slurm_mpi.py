"""Which of srun's MPI plugins (`srun --mpi=NAME`) starts the ranks of this build's MPI, found
out rather than guessed: the plugins this Slurm offers (`srun --mpi=list`) and the process-
management interface the MPI library was built to speak (Open MPI: the components of its pmix
framework, from `ompi_info`; MPICH: its `--with-pmi` configure option, from `mpichversion`).

With the wrong plugin (or none) each rank finds no peers and runs as a singleton: N copies of
the whole graph that each report plausible figures. The core's -expect-ranks check catches
that at run time; this module keeps it from happening and says what to do instead.

The user's own choice wins: SLURM_MPI_TYPE in the environment, or `--mpi` in the registry
entry's srun_args."""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
from pathlib import Path

from taskbench.errors import EXIT_ENVIRONMENT, UserError
from taskbench.launch.mpi_common import find_launcher, flavour

TIMEOUT = 30.0
# Open MPI's pmix components that talk to an external PMIx server (Slurm's pmix plugin is one):
# ext1x..ext4x, pmix2x..pmix4x (its own copy); s1/s2 speak PMI-1/PMI-2.
OPENMPI_PMIX = re.compile(r"(ext\d+x|pmix\d+x)")


def _output(argv: list[str]) -> str:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise UserError(f"--launcher srun: `{' '.join(argv)}` failed ({exc})", EXIT_ENVIRONMENT) from None
    if done.returncode != 0:
        said = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise UserError(f"--launcher srun: `{' '.join(argv)}` failed: {said}", EXIT_ENVIRONMENT)
    return done.stdout


@functools.cache
def offered() -> tuple[str, ...]:
    """The MPI plugins of this Slurm (`srun --mpi=list`: a heading, then a name a line)."""
    names = []
    for line in _output(["srun", "--mpi=list"]).splitlines():
        word = line.strip()
        if word and " " not in word and not word.endswith(":"):
            names.append(word)
    return tuple(names)


def _tool_beside(system, name: str) -> str:
    """The MPI's own tool (ompi_info, mpichversion) beside its launcher, else on PATH."""
    launcher = find_launcher(system)
    if launcher is not None and (Path(launcher).resolve().parent / name).is_file():
        return str(Path(launcher).resolve().parent / name)
    found = shutil.which(name)
    if found is None:
        raise UserError(f"--launcher srun: no {name} beside {flavour(system)}'s launcher or on PATH, so which "
                        "PMI its library speaks is unknown: set SLURM_MPI_TYPE (`srun --mpi=list` lists them)",
                        EXIT_ENVIRONMENT)
    return found


@functools.cache
def spoken(mpi: str, tool: str) -> tuple[str, ...]:
    """The srun plugins the MPI library can use, best first."""
    if mpi == "openmpi":
        components = {m[1] for m in re.finditer(r"^mca:pmix:([^:]+):", _output([tool, "--parsable"]), re.M)}
        return (("pmix",) if any(OPENMPI_PMIX.fullmatch(c) for c in components) else ()) + \
               (("pmi2",) if "s2" in components else ())
    configure = re.search(r"--with-pmi=(\S+)", _output([tool]))
    pmi = configure[1] if configure else "simple"  # MPICH's default client
    if pmi.startswith("pmix"):
        return ("pmix",)
    # MPICH's own client ("simple", also PMI-2's "pmi2/simple") speaks the PMI wire protocol that
    # Slurm's pmi2 plugin serves (PMI-1 and PMI-2).
    return ("pmi2",)


def plugin(system, srun_args: list[str], environ: dict[str, str]) -> str | None:
    """The plugin to pass as --mpi, or None where the user chose one already."""
    if environ.get("SLURM_MPI_TYPE") or any(a == "--mpi" or a.startswith("--mpi=") for a in srun_args):
        return None
    mpi = flavour(system)
    tool = _tool_beside(system, "ompi_info" if mpi == "openmpi" else "mpichversion")
    wanted, have = spoken(mpi, tool), offered()
    for name in wanted:
        if name in have:
            return name
    library = "Open MPI" if mpi == "openmpi" else "MPICH"
    raise UserError(f"--launcher srun: {system.name}'s {library} speaks {' or '.join(wanted) or 'no PMI srun knows'} "
                    f"({tool}), but this Slurm's srun offers {', '.join(have)} (`srun --mpi=list`): use --launcher "
                    "mpirun with --hosts slurm, or an MPI built for this Slurm", EXIT_ENVIRONMENT)
