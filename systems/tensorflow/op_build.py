"""Builds op.cc (the TaskbenchTask op) into the build folder at a system's first run, against
the installed TensorFlow's headers and library (tf.sysconfig) and the build's core
(libtaskbench.a). Lazily, not by CMake: TensorFlow is installed only where its tests run, and a
fresh clone's default build must not depend on it. The library's name carries the TensorFlow
version and a hash of what went into it, so a changed op, core or TensorFlow rebuilds it."""

from __future__ import annotations

import hashlib
import os
import shlex
import subprocess
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "op.cc"
ROOT = HERE.parents[1]
COMPILER = os.environ.get("CXX", "g++")


class OpBuildError(RuntimeError):
    pass


def build_folder() -> Path:
    """The build folder of the taskbench._core this process runs (build/python/taskbench/...)."""
    from taskbench import _core
    return Path(_core.__file__).resolve().parents[2]


def core_library(build: Path) -> Path:
    library = build / "core" / "libtaskbench.a"
    if not library.exists():
        raise OpBuildError(f"{library} not found: the op links the core of the build it runs from "
                           "(an installed wheel carries no core library)")
    return library


def blas_flags(build: Path) -> list[str]:
    """The OpenBLAS the build linked the core with (compute_dgemm), from its CMake cache."""
    cache = build / "CMakeCache.txt"
    for line in cache.read_text().splitlines() if cache.exists() else []:
        if line.startswith("TASKBENCH_OPENBLAS_LIBRARY:") and not line.endswith("NOTFOUND"):
            return [line.split("=", 1)[1]]
    return []


def library_path(tf) -> Path:
    build = build_folder()
    core = core_library(build)
    digest = hashlib.sha256()
    for part in (SOURCE.read_bytes(), core.read_bytes(), tf.__version__.encode(), COMPILER.encode()):
        digest.update(part)
    target = build / "tensorflow_op" / f"taskbench_op-tf{tf.__version__}-{digest.hexdigest()[:12]}.so"
    if not target.exists():
        compile_op(tf, core, build, target)
    return target


def compile_op(tf, core: Path, build: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    # Written beside the target and renamed into place: two first runs at once both build, and
    # neither loads the other's half-written file.
    fd, partial = tempfile.mkstemp(dir=target.parent, suffix=".so.partial")
    os.close(fd)
    argv = [COMPILER, "-O2", "-shared", "-fPIC", str(SOURCE), "-o", partial,
            f"-I{ROOT / 'core' / 'include'}",
            *tf.sysconfig.get_compile_flags(), str(core), *blas_flags(build),
            *tf.sysconfig.get_link_flags(), "-lpthread", "-ldl"]
    got = subprocess.run(argv, capture_output=True, text=True)
    if got.returncode != 0:
        os.unlink(partial)
        errors = [line for line in got.stderr.splitlines() if "error" in line][:3] or got.stderr.splitlines()[-3:]
        raise OpBuildError(f"building the TensorFlow op failed ({shlex.join(argv[:6])} ...): " + " | ".join(errors))
    os.replace(partial, target)
