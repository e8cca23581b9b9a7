#!/usr/bin/env bash
# Installs what taskbench needs on Debian 12, idempotently: only missing packages are fetched,
# so a second run takes about a second.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  build-essential cmake ninja-build pkg-config git  # build
  libgtest-dev                                      # core unit tests
  libopenblas-serial-dev                            # compute_dgemm (single-threaded BLAS)
  libstarpu-dev                                     # starpu, starpu_mpi (StarPU 1.3, StarPU-MPI on Open MPI)
  clang-19 libomp-19-dev                            # OpenMP systems on LLVM's runtime
  openmpi-bin libopenmpi-dev mpich libmpich-dev     # MPI systems, both implementations
  libtbb-dev                                        # tbb_flow, tbb_tasks (oneTBB)
  iproute2 util-linux                               # the test cluster (scripts/test-cluster.sh: ip, nsenter)
  slurm-wlm munge                                   # its Slurm (test-cluster.sh up N --slurm; tests/slurm)
  chromium                                          # the report test renders the HTML page headless
  valgrind                                          # instructions per task (tests/e2e/test_native_instruction_count.py)
  libsimgrid-dev                                    # the MPI systems' SMPI builds on simulated platforms (docs/simulation.md)
  python3 python3-pip python3-venv
)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Python packages of the harness and the tests, read from pyproject.toml, in a project venv:
# Debian's own Python refuses pip installs (PEP 668), and the venv sees what is installed.
[ -x .venv/bin/python ] || python3 -m venv --system-site-packages .venv
.venv/bin/python scripts/install-python-deps.py
# The `taskbench` command in the venv, over this checkout (editable).
.venv/bin/python scripts/install-command.py

# rust_rayon's crates (Cargo.lock), vendored once so that the build runs cargo offline; again
# only when Cargo.lock changed. Without cargo (rustup) the build reports rust_rayon as missing.
cargo=$(command -v cargo || echo "$HOME/.cargo/bin/cargo")
crate=systems/rust_rayon
if [ -x "$cargo" ] && ! cmp -s "$crate/Cargo.lock" "$crate/vendor/.taskbench-lock"; then
  echo "install-deps: vendoring the crates of $crate"
  rm -rf "$crate/vendor"
  "$cargo" vendor --locked --quiet --manifest-path "$crate/Cargo.toml" "$crate/vendor" >/dev/null
  cp "$crate/Cargo.lock" "$crate/vendor/.taskbench-lock"
fi
