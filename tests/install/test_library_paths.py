"""No file the build produces loads a library from the directory it is run in.

An empty or relative entry in an ELF file's RUNPATH (CMake pads the build tree's with ':' when it
plans to rewrite it at install) is searched before the system's paths, so a library planted in
the current directory runs its code in every benchmark started there. Checked three ways: every
ELF file of the build and of an install prefix has only absolute or $ORIGIN entries; a system
run from a folder holding a marker library under each of its NEEDED names loads none of them;
and, so that the marker check is known to catch what it looks for, a program linked with an
empty entry does load its marker."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from library_paths import dynamic_entries, elf_files, unsafe_files  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("TASKBENCH_BUILD_DIR", ROOT / "build"))
CC = os.environ.get("CC", "cc")

# A library whose constructor leaves a file named after it: proof that the loader took it.
MARKER_SOURCE = r"""
#include <stdio.h>
__attribute__((constructor)) static void planted(void) {
  FILE* f = fopen(MARKER_FILE, "w");
  if (f) fclose(f);
}
int tb_marker_answer(void) { return 42; }
"""


def _compile(args: list, cwd: Path) -> None:
    got = subprocess.run([CC, *map(str, args)], cwd=cwd, capture_output=True, text=True)
    assert got.returncode == 0, f"{CC} {args}: {got.stderr}"


def _plant_markers(folder: Path, sonames: list[str], tmp_path: Path) -> dict[str, Path]:
    """A marker library in folder under each soname; returns soname -> the file its load creates."""
    source = tmp_path / "marker.c"
    source.write_text(MARKER_SOURCE)
    evidence = {}
    for i, soname in enumerate(sonames):
        evidence[soname] = tmp_path / f"loaded-{i}"
        _compile(["-shared", "-fPIC", f"-DMARKER_FILE=\"{evidence[soname]}\"", f"-Wl,-soname,{soname}",
                  source, "-o", folder / soname], tmp_path)
    return evidence


def _run_in(folder: Path, command: list) -> subprocess.CompletedProcess:
    # LD_DEBUG=libs: the loader says where it found each library, in case a marker's constructor
    # could not run (its soname's symbols missing stops the process before constructors).
    env = {**os.environ, "LD_DEBUG": "libs"}
    return subprocess.run([str(c) for c in command], cwd=folder, env=env, capture_output=True, text=True,
                          timeout=60)


def _loaded_from(folder: Path, loader_log: str) -> list[str]:
    """Libraries the loader initialized from the folder: named by a relative path (how it names
    one found through an empty entry) or by one inside the folder."""
    inits = [line.split("calling init:", 1)[1].split()[0] for line in loader_log.splitlines() if "calling init:" in line]
    assert inits, f"no 'calling init' line in the loader's log:\n{loader_log[-2000:]}"
    return [path for path in inits if not path.startswith("/") or path.startswith(f"{folder}/")]


def _require_build():
    if not (BUILD / "bin" / "serial").exists():
        pytest.skip(f"no build at {BUILD} (scripts/build.sh build)")


def test_every_elf_file_of_the_build_searches_only_absolute_or_origin_paths():
    _require_build()
    files = elf_files(BUILD)
    assert len(files) > 20, f"only {len(files)} ELF files under {BUILD}"
    assert unsafe_files(BUILD) == {}


def test_every_elf_file_of_an_install_searches_only_absolute_or_origin_paths(tmp_path):
    _require_build()
    prefix = tmp_path / "prefix"
    got = subprocess.run(["cmake", "--install", str(BUILD), "--prefix", str(prefix)], capture_output=True,
                         text=True, timeout=300)
    assert got.returncode == 0, got.stdout + got.stderr
    assert (prefix / "bin" / "serial").exists()
    assert len(elf_files(prefix)) > 10
    assert unsafe_files(prefix) == {}
    # The harness's helpers keep their place relative to bin/ (launch/common.py's helper_path):
    # libexec/taskbench, as in the build, and none of them among the systems.
    built = sorted(p.name for p in (BUILD / "libexec" / "taskbench").glob("*"))
    assert sorted(p.name for p in (prefix / "libexec" / "taskbench").glob("*")) == built
    assert [name for name in built if (prefix / "bin" / name).exists()] == []


@pytest.mark.parametrize("binary", ["serial", "native"])
def test_a_system_run_from_a_folder_of_planted_libraries_loads_none(tmp_path, binary):
    _require_build()
    path = BUILD / "bin" / binary
    if not path.exists():
        pytest.skip(f"{binary} not built")
    folder = tmp_path / "scratch"
    folder.mkdir()
    needed = dynamic_entries(path)["NEEDED"]
    assert "libc.so.6" in needed, needed
    evidence = _plant_markers(folder, needed, tmp_path)
    got = _run_in(folder, [path, "-steps", "2", "-width", "2"])
    assert got.returncode == 0, got.stdout + got.stderr[-4000:]
    assert [name for name, file in evidence.items() if file.exists()] == []
    assert _loaded_from(folder, got.stderr) == []


def test_the_marker_check_catches_a_program_with_an_empty_runpath_entry(tmp_path):
    """The control: same markers, a program whose RUNPATH is ':<its library's folder>'."""
    lib_dir, folder = tmp_path / "lib", tmp_path / "scratch"
    lib_dir.mkdir()
    folder.mkdir()
    real = tmp_path / "real.c"
    real.write_text("int tb_marker_answer(void) { return 42; }\n")
    _compile(["-shared", "-fPIC", "-Wl,-soname,libtbanswer.so", real, "-o", lib_dir / "libtbanswer.so"], tmp_path)
    program = tmp_path / "main.c"
    program.write_text("int tb_marker_answer(void);\nint main(void) { return tb_marker_answer() == 42 ? 0 : 1; }\n")
    _compile([program, f"-L{lib_dir}", "-ltbanswer", f"-Wl,-rpath,:{lib_dir}", "-Wl,--enable-new-dtags",
              "-o", tmp_path / "unsafe"], tmp_path)
    assert dynamic_entries(tmp_path / "unsafe")["RUNPATH"] == ["", str(lib_dir)]
    assert unsafe_files(tmp_path) == {"unsafe": ["", str(lib_dir)]}
    evidence = _plant_markers(folder, ["libtbanswer.so"], tmp_path)
    got = _run_in(folder, [tmp_path / "unsafe"])
    assert got.returncode == 0, got.stderr[-2000:]
    assert evidence["libtbanswer.so"].exists()
    assert _loaded_from(folder, got.stderr) != []
