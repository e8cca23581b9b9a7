"""The registry keys the harness asks instead of naming systems (`color`, `heavy`,
`killed_worker_reason`, `peak_probe`, `studies`): a wrong one is one line naming the file; a
file's entries are drawn apart; one system measures each peak; every study role the registry
gives is one its study knows; and `taskbench peak` measures with the probes it names."""

from pathlib import Path

import pytest
from harness_helpers import REPO

from taskbench import studies
from taskbench.measure.peak.runs import peak_points
from taskbench.errors import UserError
from taskbench.registry import Registry, read_entries, read_registry_file
from taskbench.registry.locations import Layout
from taskbench.registry.facts import PALETTE, color_index


def _file(tmp_path: Path, *entries: str) -> Path:
    path = tmp_path / "system.toml"
    path.write_text("".join(f'[[system]]\n{entry}\n' for entry in entries))
    return path


@pytest.mark.parametrize("line,refused", [
    ("color = 19", "'color' must be a palette index from 0 to 18, not 19"),
    ("color = true", "'color' must be a palette index from 0 to 18, not True"),
    ('color = "#1f77b4"', "'color' must be a palette index from 0 to 18, not '#1f77b4'"),
    ('heavy = "yes"', "'heavy' must be true or false, not 'yes'"),
    ("killed_worker_reason = true", "'killed_worker_reason' must be the words of the run's failure reason, "
                                    "not True"),
    ('peak_probe = "two_cores"', "'peak_probe' must be 'one_core', 'gpu' or 'across_hosts', not 'two_cores'"),
    ('not_across_hosts = ""', "'not_across_hosts' must say what the system lacks to run across hosts, not ''"),
    ('studies = ["imbalance"]', "'studies' must be a table of study = \"role\""),
    ("studies = { imbalance = 1 }", "'studies' must be a table of study = \"role\""),
    ("paper_system = 5", "'paper_system' must be the published data's name of a system of the paper"),
    ('paper_row = "MPI"', "'paper_row' is now 'paper_system'"),
])
def test_a_wrong_fact_is_one_line_naming_the_file(tmp_path, line, refused):
    path = _file(tmp_path, f'name = "x"\n{line}')
    with pytest.raises(UserError) as exc:
        read_registry_file(path)
    assert str(exc.value).startswith(f"{path}: system 'x': {refused}")
    assert exc.value.exit_code == 4


def test_facts_are_read(tmp_path):
    [system] = read_registry_file(_file(tmp_path, 'name = "x"\ncolor = 3\nheavy = true\nkilled_worker_reason = "gone"\n'
                                                  'peak_probe = "gpu"\nstudies = { imbalance = "tasks" }'))
    assert (system.color, system.heavy, system.killed_worker_reason, system.peak_probe, system.studies) == (
        3, True, "gone", "gpu", {"imbalance": "tasks"})


def test_a_files_entries_are_drawn_apart(tmp_path):
    path = _file(tmp_path, 'name = "a"\ncolor = 3', 'name = "b"\ncolor = 3')
    with pytest.raises(UserError, match=r"systems 'a' and 'b' have the same 'color' 3: the entries of one file"):
        read_registry_file(path)
    # Without a `color`, the index the name hashes to, or past it the next one the file leaves free.
    hashed = color_index("b", None)
    after = (hashed + 1) % len(PALETTE)
    path = _file(tmp_path, 'name = "b"', 'name = "a"\ncolor = 5')
    assert [s.color for s in read_registry_file(path)] == [hashed if hashed != 5 else 6, 5]
    path = _file(tmp_path, f'name = "a"\ncolor = {hashed}', 'name = "b"', f'name = "c"\ncolor = {after}')
    assert [s.color for s in read_registry_file(path)] == [hashed, (hashed + 2) % len(PALETTE), after]


def test_one_system_per_peak_probe(tmp_path):
    for folder in ("one", "two"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "system.toml").write_text(f'[[system]]\nname = "{folder}"\npeak_probe = "gpu"\n')
    with pytest.raises(UserError, match=r"two/system.toml: system 'two' has peak_probe = 'gpu', as 'one' of "
                                        r".*one/system.toml has"):
        read_entries(tmp_path)


def test_every_study_role_in_the_registry_is_one_its_study_knows():
    given = [(name, study, role) for name, entry in read_entries(REPO / "systems").items()
             for study, role in entry.studies.items()]
    assert given
    for name, study, role in given:
        assert study in studies.PRESETS, f"{name}: no study {study}"
        assert role in studies.PRESETS[study].roles, f"{name}: study {study} has no role {role}"


def test_peak_measures_with_the_registry_probes(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for binary in ("one", "many"):
        (bin_dir / binary).write_text("#!/bin/sh\n")
        (bin_dir / binary).chmod(0o755)
    systems = tmp_path / "systems"
    (systems / "x").mkdir(parents=True)
    (systems / "x" / "system.toml").write_text(
        '[[system]]\nname = "probe"\nbinary = "one"\ncores = 1\npeak_probe = "one_core"\n'
        '[[system]]\nname = "wide"\nbinary = "many"\ncolor = 0\n')
    registry = Registry(Layout(bin_dir, systems, {}, None, None, "build-dir"))
    assert [(s.name, c) for s, c in peak_points(registry, None, [1, 4])] == [("probe", 1), ("wide", 4)]


def test_every_paper_system_is_a_system_the_paper_published():
    """`paper_system` names the published data's system (docs/paper-ports.md): a label such as
    "MPI" or one the paper never printed would set no figure, or another system's, beside it."""
    from taskbench.reference import published
    known = published.systems()
    claims = {s.name: s.paper_system for s in read_entries(REPO / "systems").values() if s.paper_system}
    assert {name: system for name, system in claims.items() if system not in known} == {}
    # The MPI family runs the paper's MPI ports (docs/paper-ports.md): each build names its row.
    assert {n: claims.get(n) for n in ("mpi_p2p", "mpi_p2p_mpich", "mpi_bulk", "mpi_bulk_smpi")} == {
        "mpi_p2p": "mpi_nonblock", "mpi_p2p_mpich": "mpi_nonblock", "mpi_bulk": "mpi_bulk_synchronous",
        "mpi_bulk_smpi": "mpi_bulk_synchronous"}


def test_starpu_mpi_openmp_and_mpi_cuda_claim_only_the_paper_ports_they_run():
    """The paper's StarPU (StarPU-MPI, a rank per host), MPI+OpenMP on Intel KMP's descendant
    libomp, MPI+CUDA w1 and w4; not the schedulers, layouts, runtimes and designs the paper
    never ran."""
    entries = read_entries(REPO / "systems")
    names = ("starpu", "starpu_eager", "starpu_mpi", "starpu_local", "mpi_openmp",
             "mpi_openmp_llvm", "mpi_cuda", "mpi_cuda_w4", "mpi_cuda_resident")
    assert {n: entries[n].paper_system for n in names} == {
        "starpu": "starpu13", "starpu_eager": "", "starpu_mpi": "",
        "starpu_local": "", "mpi_openmp": "", "mpi_openmp_llvm": "mpi_openmp_kmp",
        "mpi_cuda": "mpi_nonblock_gpu_width_1_rank_1", "mpi_cuda_w4": "mpi_nonblock_gpu_width_4_rank_4",
        "mpi_cuda_resident": ""}
    assert (entries["starpu"].binary, entries["starpu"].launcher) == ("starpu_mpi", "mpirun")
