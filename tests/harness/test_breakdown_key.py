"""The registry's `breakdown` key: parsed and checked, its args and env applied by
`with_breakdown`, "{build}" substituted, and a clear error for a system without it."""

from pathlib import Path

import pytest

from taskbench.errors import UserError
from taskbench.launch import LaunchOptions, command
from taskbench.registry import Registry, read_registry_file
from taskbench.registry.breakdown import why_no_breakdown, with_breakdown
from taskbench.registry.locations import Layout, find_layout

ENTRIES = """
[[system]]
name = "flagged"
binary = "tool"
args = ["-home", "0"]
env = { OMP_PLACES = "cores" }
breakdown = { args = ["-breakdown"] }

[[system]]
name = "tooled"
binary = "tool"
env = { OMP_PLACES = "cores" }
breakdown = { env = { OMP_TOOL_LIBRARIES = "{build}/lib/libtool.so" }, requires = ["{build}/lib/libtool.so"] }

[[system]]
name = "plain"
binary = "tool"
"""


@pytest.fixture
def registry(tmp_path):
    build = tmp_path / "build"
    (build / "bin").mkdir(parents=True)
    tool = build / "bin" / "tool"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    (tmp_path / "systems" / "x").mkdir(parents=True)
    (tmp_path / "systems" / "x" / "system.toml").write_text(ENTRIES)
    layout = Layout(build / "bin", tmp_path / "systems", {}, None, None, "build-dir")
    assert layout.build_dir == build
    return Registry(layout)


def test_args_are_appended_after_the_entrys_own(registry):
    system = with_breakdown(registry.get("flagged"), registry.layout.build_dir, registry)
    assert system.args == ["-home", "0", "-breakdown"]
    assert system.env == {"OMP_PLACES": "cores"}
    launch = command(system, ["-steps", "2"], LaunchOptions())
    assert launch.argv[1:] == ["-home", "0", "-breakdown", "-steps", "2"]
    assert registry.get("flagged").args == ["-home", "0"]  # the registry's entry is untouched


def test_env_gets_the_build_folder_and_requires_the_file(registry):
    build = registry.layout.build_dir
    system = registry.get("tooled")
    assert why_no_breakdown(system, build) == (f"the breakdown of 'tooled' needs {build}/lib/libtool.so, "
                                               "which is missing")
    with pytest.raises(UserError, match="libtool.so, which is missing") as exc:
        with_breakdown(system, build, registry)
    assert exc.value.exit_code == 4
    (build / "lib").mkdir()
    (build / "lib" / "libtool.so").write_text("")
    variant = with_breakdown(system, build, registry)
    assert variant.env == {"OMP_PLACES": "cores", "OMP_TOOL_LIBRARIES": f"{build}/lib/libtool.so"}
    assert variant.args == []
    launch = command(variant, [], LaunchOptions())
    assert launch.set_env["OMP_TOOL_LIBRARIES"] == f"{build}/lib/libtool.so"


def test_build_placeholder_without_a_build_is_an_error(registry):
    assert "no build was found" in why_no_breakdown(registry.get("tooled"), None)


def test_system_without_the_key_is_a_usage_error(registry):
    with pytest.raises(UserError, match="'plain' cannot report a breakdown: its registry entry has no "
                                        r"'breakdown' key \(systems with one: flagged, tooled\)") as exc:
        with_breakdown(registry.get("plain"), registry.layout.build_dir, registry)
    assert exc.value.exit_code == 2


@pytest.mark.parametrize("value, message", [
    ('"-breakdown"', "must be a table"),
    ('{ args = ["-b"], wrong = 1 }', "unknown keys wrong"),
    ('{ args = "-b" }', "must be lists of strings"),
    ("{ requires = [] }", "needs 'args' or 'env'"),
])
def test_malformed_key_is_rejected(tmp_path, value, message):
    path = tmp_path / "system.toml"
    path.write_text(f'[[system]]\nname = "v"\nbreakdown = {value}\n')
    with pytest.raises(UserError, match=message):
        read_registry_file(path)


def test_repository_entries_carry_the_key():
    registry = Registry(find_layout())
    for name in ("native", "native_dynamic", "native_fifo", "native_steal"):
        assert registry.get(name).breakdown["args"] == ["-breakdown"], name
    for name in ("openmp_for_llvm", "openmp_task_llvm", "openmp_taskloop_llvm"):
        env = registry.get(name).breakdown["env"]
        assert env == {"OMP_TOOL_LIBRARIES": "{build}/lib/libtaskbench_ompt.so"}, name
    assert registry.get("openmp_task").breakdown is None


def test_run_breakdown_on_a_system_without_the_key(cli, bin_dir):
    code, _, err = cli("run", "serial", "--breakdown", "-steps", "2")
    assert code == 2
    assert "system 'serial' cannot report a breakdown" in err and "native" in err


def test_run_breakdown_stores_and_shows_native_breakdown(cli, bin_dir):
    if not (Path(bin_dir) / "native").is_file():
        pytest.skip("native is not built")
    code, out, err = cli("-q", "run", "native", "--breakdown", "-steps", "4", "-width", "2", "-iter", "64")
    assert code == 0, err
    assert "breakdown (ns per task)\twork " in out and "discovery" in out
