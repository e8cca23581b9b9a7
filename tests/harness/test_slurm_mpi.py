"""The srun MPI plugin is found out from Slurm's list and the MPI library's own build, never
guessed: Open MPI's pmix components, MPICH's --with-pmi, the user's own choice first, and one
clear error where the two have none in common."""
from types import SimpleNamespace

import pytest

from taskbench.errors import UserError
from taskbench.launch import slurm_mpi

SRUN_LIST = "MPI plugin types are...\n\tpmix\n\tnone\n\tcray_shasta\n\tpmi2\nspecific pmix plugin versions available: pmix_v4\n"
OMPI_INFO = ('mca:pmix:ext3x:version:"mca:2.1.0"\nmca:pmix:isolated:version:"mca:2.1.0"\n'
             'mca:ess:pmi:version:"mca:2.1.0"\n')
MPICH_DEFAULT = "MPICH Version:    \t4.0.2\nMPICH configure: \t--prefix=/usr --with-pm=hydra --with-slurm=/usr\n"
MPICH_PMIX = "MPICH Version:    \t4.1\nMPICH configure: \t--prefix=/usr --with-pmi=pmix --with-pmix=/usr\n"


@pytest.fixture
def outputs(monkeypatch):
    said = {"srun": SRUN_LIST, "ompi_info": OMPI_INFO, "mpichversion": MPICH_DEFAULT}
    monkeypatch.setattr(slurm_mpi, "_output", lambda argv: said[argv[0].rsplit("/", 1)[-1]])
    monkeypatch.setattr(slurm_mpi, "_tool_beside", lambda system, name: name)
    slurm_mpi.offered.cache_clear()
    slurm_mpi.spoken.cache_clear()
    yield said
    slurm_mpi.offered.cache_clear()
    slurm_mpi.spoken.cache_clear()


def system(mpi=None):
    return SimpleNamespace(name="mpi_p2p" if mpi is None else "mpi_p2p_mpich", mpi=mpi)


def test_srun_list_is_read_as_names(outputs):
    assert slurm_mpi.offered() == ("pmix", "none", "cray_shasta", "pmi2")


def test_open_mpi_with_an_external_pmix_gets_pmix_and_mpich_gets_pmi2(outputs):
    assert slurm_mpi.plugin(system(), [], {}) == "pmix"
    assert slurm_mpi.plugin(system("mpich"), [], {}) == "pmi2"


def test_an_mpich_built_on_pmix_gets_pmix(outputs):
    outputs["mpichversion"] = MPICH_PMIX
    assert slurm_mpi.plugin(system("mpich"), [], {}) == "pmix"


def test_the_users_choice_wins(outputs):
    assert slurm_mpi.plugin(system(), [], {"SLURM_MPI_TYPE": "pmi2"}) is None
    assert slurm_mpi.plugin(system(), ["--mpi=pmi2"], {}) is None


def test_no_plugin_in_common_is_one_clear_error(outputs):
    outputs["srun"] = "MPI plugin types are...\n\tnone\n\tpmi2\n"
    with pytest.raises(UserError, match=r"Open MPI speaks pmix \(ompi_info\), but this Slurm's srun offers "
                                        r"none, pmi2"):
        slurm_mpi.plugin(system(), [], {})
