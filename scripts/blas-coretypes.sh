#!/usr/bin/env bash
# Prints the OPENBLAS_CORETYPE values whose kernels this CPU can execute, one per line.
# OpenBLAS accepts a core type the CPU cannot run (SkylakeX on an AVX2 machine) and then dies
# of SIGILL, and silently falls back to its own choice for a name it does not know, so the
# list comes from the CPU's flags. Machines of the project's kind differ (Intel or AMD, and an
# environment that may set OPENBLAS_CORETYPE): the test command runs the BLAS tests under each.
set -euo pipefail
flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
has() { for f in "$@"; do [[ $flags == *" $f "* ]] || return 1; done; }

has pni && echo Prescott      # SSE3
has avx && echo Sandybridge
has avx2 fma && echo Haswell && echo Zen
has avx512f avx512cd avx512bw avx512dq avx512vl && echo SkylakeX
exit 0
