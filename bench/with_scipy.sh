# Sourced by the device scripts (bench/gpu.sh, bench/many_cores.sh): makes SciPy importable for
# $python, which the harness needs to read a METG (its fit and interval), on a machine without a
# package registry. Where $python lacks it, it installs the wheels carried in bench/wheels (made
# here, where PyPI is reachable, for the device's Python 3.12:
#   pip download --only-binary=:all: --python-version 3.12 --platform manylinux_2_28_x86_64 \
#     scipy numpy -d bench/wheels
# and carried with `carry: ["bench/wheels"]`, 49 MB) into OUT/pylib, and puts that on PYTHONPATH.
# Usage: with_scipy OUT
with_scipy() {
  local lib=$1/pylib
  "$python" -c 'import scipy' 2>/dev/null && return 0
  [ -d bench/wheels ] || {
    echo "SciPy is missing for $python and bench/wheels was not carried (see bench/with_scipy.sh)" >&2
    return 1
  }
  # SciPy alone first: the machine's NumPy (matplotlib's) stays, where SciPy accepts it.
  PIP_BREAK_SYSTEM_PACKAGES=1 "$python" -m pip install -q --no-index --find-links bench/wheels --target "$lib" --no-deps scipy >&2
  if ! PYTHONPATH="$lib" "$python" -c 'import scipy.stats' 2>/dev/null; then
    PIP_BREAK_SYSTEM_PACKAGES=1 "$python" -m pip install -q --no-index --find-links bench/wheels --target "$lib" --upgrade scipy numpy >&2
  fi
  export PYTHONPATH="$lib${PYTHONPATH:+:$PYTHONPATH}"
  PYTHONPATH="$lib" "$python" -c 'import scipy.stats'
}
