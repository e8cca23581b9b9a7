#!/usr/bin/env bash
# The test command (README, .ci/run): installs what is missing, builds the release, ASan+UBSan
# and ThreadSanitizer configurations (TSan: the native runtime alone, and the native systems
# over the core; OpenMP and MPI runtimes are not instrumented, so they stay out of it), runs the
# unit tests (ctest) and the end-to-end and harness tests (pytest).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh

scripts/build.sh build -DCMAKE_BUILD_TYPE=Release
scripts/build.sh build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTASKBENCH_SANITIZE=address,undefined
scripts/build.sh -S runtime build-tsan -DTBRT_SANITIZE=thread -DTBRT_BUILD_BENCH=OFF
scripts/build.sh build-tsan-native -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTASKBENCH_SANITIZE=thread \
  -DTASKBENCH_WITH_OPENMPI=OFF -DTASKBENCH_WITH_MPICH=OFF -DTASKBENCH_WITH_MPI_OPENMP=OFF \
  -DTASKBENCH_WITH_OPENMP_FOR=OFF -DTASKBENCH_WITH_OPENMP_TASK=OFF -DTASKBENCH_WITH_OPENMP_LLVM=OFF

echo "== unit tests (release)"
ctest --test-dir build --output-on-failure -j "$(nproc)"
echo "== unit tests (ASan+UBSan)"
ctest --test-dir build-asan --output-on-failure -j "$(nproc)"
echo "== native runtime tests (ThreadSanitizer)"
ctest --test-dir build-tsan --output-on-failure -j "$(nproc)"
echo "== end-to-end tests (ASan+UBSan systems)"
TASKBENCH_BUILD_DIR=build-asan .venv/bin/python -m pytest tests/e2e/test_systems.py -q
echo "== end-to-end tests of the native systems (ThreadSanitizer)"
TASKBENCH_BUILD_DIR=build-tsan-native .venv/bin/python -m pytest tests/e2e/test_native.py \
  tests/e2e/test_systems.py -q -k native
echo "== end-to-end and harness tests (release)"
.venv/bin/python -m pytest tests -q
