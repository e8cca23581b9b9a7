"""Registry: every system is listed; a missing one says why, and is never silently skipped."""

from pathlib import Path

import pytest

from taskbench.errors import UserError
from taskbench.registry import Registry, read_registry_file
from taskbench.registry.locations import Layout


def write_entry(root: Path, folder: str, text: str) -> None:
    (root / folder).mkdir(parents=True, exist_ok=True)
    (root / folder / "system.toml").write_text(text)


@pytest.fixture
def layout(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    present = bin_dir / "present"
    present.write_text("#!/bin/sh\n")
    present.chmod(0o755)
    systems = tmp_path / "systems"
    write_entry(systems, "present", '[[system]]\nname = "present"\nnew_key = 1\n')
    write_entry(systems, "off", '[[system]]\nname = "off"\ncomponent = "OFFCOMP"\n')
    write_entry(systems, "unbuilt", '[[system]]\nname = "unbuilt"\n')
    write_entry(systems, "mpi", '[[system]]\nname = "mpi"\nbinary = "present"\nlauncher = "mpirun"\n'
                                'mpi = "mpich"\nranks = 4\n')
    write_entry(systems, "weird", '[[system]]\nname = "weird"\nbinary = "present"\nlauncher = "pigeon"\n')
    info = {"bin_dir": str(bin_dir), "systems": ["present"],
            "components": {"OFFCOMP": {"enabled": False, "reason": "libfoo not found (apt-get install libfoo-dev)"}}}
    return Layout(bin_dir, systems, info, None, None, "build-dir")


def test_available_system(layout):
    s = Registry(layout).get("present")
    assert s.available and s.reason == "" and s.binary_path.name == "present"
    assert s.extra == {"new_key": 1}  # unknown keys are kept, not rejected


def test_disabled_component_gives_its_reason(layout):
    s = Registry(layout).get("off")
    assert not s.available
    assert s.reason == "not built: libfoo not found (apt-get install libfoo-dev)"


def test_missing_binary_says_run_the_build(layout):
    s = Registry(layout).get("unbuilt")
    assert not s.available and "binary missing" in s.reason and "run the build" in s.reason


def test_launcher_not_installed_or_unknown(layout, monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    reg = Registry(layout)
    assert reg.get("mpi").reason.startswith("no mpich launcher found on PATH")
    assert "unknown launcher 'pigeon'" in reg.get("weird").reason


def test_no_build_at_all(tmp_path, layout):
    layout.bin_dir, layout.build_info = None, {}
    s = Registry(layout).get("unbuilt")
    assert "no build found" in s.reason and "--build-dir" in s.reason


def test_unknown_and_unavailable_systems_are_errors(layout):
    reg = Registry(layout)
    with pytest.raises(UserError, match="unknown system 'nope'"):
        reg.get("nope")
    with pytest.raises(UserError, match="not available: not built: libfoo") as exc:
        reg.require_available("off")
    assert exc.value.exit_code == 4


def test_flat_legacy_entry_and_bad_toml(tmp_path):
    path = tmp_path / "system.toml"
    path.write_text('name = "flat"\ncores = 1\n')
    assert [s.name for s in read_registry_file(path)] == ["flat"]
    path.write_text("[[system]\n")
    with pytest.raises(UserError, match="cannot read the registry entry"):
        read_registry_file(path)


def test_args_are_a_list_of_strings(tmp_path):
    path = tmp_path / "system.toml"
    path.write_text('[[system]]\nname = "v"\nbinary = "b"\nargs = ["-home", 0]\n')
    assert read_registry_file(path)[0].args == ["-home", "0"]
    path.write_text('[[system]]\nname = "v"\nargs = "-home 0"\n')
    with pytest.raises(UserError, match="'args' must be a list of strings"):
        read_registry_file(path)


def test_repository_registry_reads(bin_dir):
    from taskbench.registry.locations import find_layout
    reg = Registry(find_layout())
    assert "serial" in reg.systems and reg.get("serial").available


def test_systems_command_lists_missing_system_with_reason(cli, fake_systems):
    code, out, _ = cli("-q", "systems")
    assert code == 0
    rows = {line.split("\t")[0]: line.split("\t") for line in out.splitlines()[1:]}
    assert rows["serial"][1] == "yes"
    assert rows["ghost"][1] == "no" and "component GHOST" in rows["ghost"][-1]


def test_default_campaign_warns_about_unavailable_defaults(cli, fake_systems):
    code, out, err = cli("-q", "metg", "--default", "--steps", "10", "--start-iter", "64", "--reps", "1",
                         "--html", "r.html")
    assert code == 0
    assert "default system ghost skipped" in err


def test_metg_on_unavailable_system_is_one_line_error(cli, fake_systems):
    code, out, err = cli("metg", "ghost")
    assert code == 4
    assert err.strip().splitlines()[-1].startswith("taskbench: system 'ghost' is not available")
    assert "Traceback" not in err


def test_python_system_missing_its_module_says_what_to_install(tmp_path):
    import sys
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    systems = tmp_path / "systems"
    # One launcher on this interpreter (asked in-process), one on another path to it (asked
    # through a subprocess): both must name the missing module and only that one.
    for name, interpreter in (("here", sys.executable), ("there", str(Path(sys.executable).resolve()))):
        launcher = bin_dir / name
        launcher.write_text(f"#!{interpreter}\n")
        launcher.chmod(0o755)
        write_entry(systems, name, f'[[system]]\nname = "{name}"\nrequires = ["json", "no_such_engine_xyz"]\n')
    reg = Registry(Layout(bin_dir, systems, {}, None, None, "build-dir"))
    for name in ("here", "there"):
        s = reg.get(name)
        assert not s.available
        assert s.reason.startswith("Python module(s) no_such_engine_xyz not installed for ")
        assert "pip install no_such_engine_xyz" in s.reason
