"""A simulated run too large for the kernel's per-process memory mappings is refused before
smpirun starts, with the setting to raise (launch/smpirun.py): at 16,384 ranks (512 cori nodes)
smpirun 3.32 otherwise aborts a minute in, its dlopen of rank 6,518's copy of the program
failing ("cannot apply additional memory protection after relocation"), measured here."""

import pytest

from taskbench.errors import UserError
from taskbench.launch import smpirun


@pytest.fixture
def limit(tmp_path, monkeypatch):
    path = tmp_path / "max_map_count"
    monkeypatch.setattr(smpirun, "MAX_MAP_COUNT", path)
    return path


def test_256_nodes_fit_the_default_limit_and_512_are_refused_with_the_setting_to_raise(limit):
    limit.write_text("65530\n")
    smpirun._check_map_count(256 * 32)  # 8,192 ranks ran here under the default
    with pytest.raises(UserError) as refused:
        smpirun._check_map_count(512 * 32)
    said = str(refused.value)
    assert "16384 simulated ranks need about 115,688 memory mappings" in said
    assert "vm.max_map_count (65,530)" in said and "sysctl -w vm.max_map_count=131072" in said


def test_a_raised_limit_lets_1024_nodes_run(limit):
    limit.write_text("262144\n")
    smpirun._check_map_count(1024 * 32)


def test_no_limit_to_read_checks_nothing(limit):
    smpirun._check_map_count(10 ** 6)  # the file does not exist: smpirun says what it says
