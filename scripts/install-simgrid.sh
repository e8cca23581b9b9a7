#!/usr/bin/env bash
# Builds SimGrid VERSION from its source release on PyPI and installs it into /opt/simgrid-VERSION
# (or PREFIX), idempotently: a second run finds the prefix complete and does nothing.
#
#   scripts/install-simgrid.sh 4.1 [PREFIX]
#   cmake -S . -B build-sg -G Ninja -DCMAKE_BUILD_TYPE=Release -DTASKBENCH_SIMGRID_ROOT=/opt/simgrid-4.1
#
# Optional and large (a build of SimGrid's 380 sources: see docs/simulation.md for how long it
# takes here), so neither install-deps.sh nor the test command runs it: Debian's libsimgrid-dev
# (3.32) stays the default. A newer SimGrid is what simulates 512 and 1024 Cori nodes and the
# whole 1-256-node curve in minutes (3.32 removes each finished message from a linear list of
# all ranks' messages in flight; 3.34 made it a set). A build configured with
# TASKBENCH_SIMGRID_ROOT uses that SimGrid's headers, library and smpirun, and the harness runs
# that smpirun (docs/simulation.md, "Another SimGrid").
#
# Only what SMPI needs is built: no Java, Python or Fortran bindings, no model checker, no
# documentation, no link-time optimization (it lengthens the build). SIMGRID_JOBS sets the
# build's parallelism (default: the machine's cores).
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 VERSION [PREFIX]   (e.g. $0 4.1: into /opt/simgrid-4.1)" >&2
  exit 2
fi
version=$1
prefix=${2:-/opt/simgrid-$version}
marker=$prefix/share/taskbench-simgrid-installed  # written last: its presence means a whole install

if [ -f "$marker" ] && [ "$(cat "$marker")" = "$version" ] && [ -x "$prefix/bin/smpirun" ]; then
  echo "install-simgrid: SimGrid $version is already in $prefix"
  exit 0
fi

sudo=""
if ! mkdir -p "$prefix" 2>/dev/null || [ ! -w "$prefix" ]; then
  sudo=sudo
  $sudo mkdir -p "$prefix"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/simgrid-$version.XXXXXX")
trap 'rm -rf "$work"' EXIT
python=$(command -v python3)
echo "install-simgrid: fetching SimGrid $version's source from PyPI"
"$python" -m pip download --quiet --no-binary :all: --no-deps --dest "$work" "simgrid==$version"
archive=$(ls "$work"/simgrid-*.tar.gz)
tar -xzf "$archive" -C "$work"
source=$work/simgrid-$version
[ -f "$source/CMakeLists.txt" ] || { echo "install-simgrid: no CMakeLists.txt in $archive" >&2; exit 1; }

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
echo "install-simgrid: configuring (log: $work/build/configure.log)"
mkdir -p "$work/build"
cd "$work"  # SimGrid's configure leaves a test program (test_stackgrowth) in the current folder
if ! cmake -S "$source" -B "$work/build" "${generator[@]}" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" \
    -Denable_smpi=ON -Denable_compile_optimizations=ON -Denable_lto=OFF \
    -Denable_java=OFF -Denable_python=OFF -Denable_fortran=OFF -Denable_documentation=OFF \
    -Denable_model-checking=OFF -Denable_sthread=OFF -Denable_ns3=OFF \
    >"$work/build/configure.log" 2>&1; then
  tail -30 "$work/build/configure.log" >&2
  exit 1
fi
jobs=${SIMGRID_JOBS:-$(nproc)}
echo "install-simgrid: building with $jobs jobs"
start=$SECONDS
cmake --build "$work/build" --parallel "$jobs"
echo "install-simgrid: built in $((SECONDS - start)) s; installing into $prefix"
$sudo cmake --install "$work/build" >/dev/null
$sudo mkdir -p "$(dirname "$marker")"
echo "$version" | $sudo tee "$marker" >/dev/null
echo "install-simgrid: SimGrid $version in $prefix (smpirun: $prefix/bin/smpirun)"
