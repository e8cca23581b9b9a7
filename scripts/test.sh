#!/usr/bin/env bash
# The test command (README, .ci/run): installs what is missing, builds the release, ASan+UBSan
# and ThreadSanitizer configurations (TSan: the native runtime alone, and the native systems
# over the core; OpenMP and MPI runtimes are not instrumented, so they stay out of it), runs the
# unit tests (ctest), again beside two busy processes with the native end-to-end tests, and the
# end-to-end and harness tests (pytest), then the BLAS tests again under every OpenBLAS core type
# this CPU can run, and last the large engines (installed there).
#
# Every stage runs even when an earlier one failed, so one failure never hides another; the
# script ends with one line per failed stage and exits non-zero if there was any.
set -uo pipefail
cd "$(dirname "$0")/.."

failed=()
timings=()  # "SECONDS<TAB>STAGE" of every stage, for the summary
started=$SECONDS
stage() {
  local name=$1 begin=$SECONDS status=passed
  shift
  echo "== $name"
  if ! "$@"; then
    failed+=("$name")
    status=FAILED
    echo "!! failed: $name"
  fi
  timings+=("$((SECONDS - begin))	$status	$name")
  echo "== $name: $status in $(minutes $((SECONDS - begin)))"
}
minutes() { printf '%d min %02d s' $(($1 / 60)) $(($1 % 60)); }
summary() {
  echo "== stage times"
  local line
  for line in "${timings[@]}"; do
    IFS=$'\t' read -r seconds status name <<<"$line"
    printf '%14s  %-6s  %s\n' "$(minutes "$seconds")" "$status" "$name"
  done
  printf '%14s  %-6s  %s\n' "$(minutes $((SECONDS - started)))" "" "the whole test command"
}

# Nothing can be built or run without the packages.
stage "install dependencies" scripts/install-deps.sh
((${#failed[@]})) && { summary; echo "FAILED stage: install dependencies"; exit 1; }

stage "build (release)" scripts/build.sh build -DCMAKE_BUILD_TYPE=Release
# The sanitizer builds keep line tables only (-g1): all a sanitizer's stack trace needs, and the
# objects compile 18% faster than with -g (8 of the core's and systems' files: 7.5 s against 9.1).
line_tables_only=(-DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG")
stage "build (ASan+UBSan)" scripts/build.sh build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo "${line_tables_only[@]}" \
  -DTASKBENCH_SANITIZE=address,undefined
stage "build (native runtime, TSan)" scripts/build.sh -S runtime build-tsan -DTBRT_SANITIZE=thread
stage "build (native systems, TSan)" scripts/build.sh build-tsan-native -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "${line_tables_only[@]}" -DTASKBENCH_SANITIZE=thread -DTASKBENCH_WITH_OPENMPI=OFF -DTASKBENCH_WITH_MPICH=OFF \
  -DTASKBENCH_WITH_MPI_OPENMP=OFF -DTASKBENCH_WITH_OPENMP_FOR=OFF -DTASKBENCH_WITH_OPENMP_TASK=OFF \
  -DTASKBENCH_WITH_OPENMP_LLVM=OFF

jobs=$(nproc)
stage "unit tests (release)" ctest --test-dir build --output-on-failure -j "$jobs"
stage "unit tests (ASan+UBSan)" ctest --test-dir build-asan --output-on-failure -j "$jobs"
stage "native runtime tests (TSan)" ctest --test-dir build-tsan --output-on-failure -j "$jobs"
stage "core unit tests (TSan)" ctest --test-dir build-tsan-native --output-on-failure -j "$jobs" -R '^(Dgemm|Kernels)'
# The same unit tests, and the native runtime's end-to-end tests, beside two busy processes: CI
# machines are shared, and a runtime or a test that needs a free core fails there at random.
under_load() {
  scripts/with-load.sh 2 ctest --test-dir build --output-on-failure -j "$jobs" &&
    scripts/with-load.sh 2 ctest --test-dir build-asan --output-on-failure -j "$jobs" &&
    scripts/with-load.sh 2 .venv/bin/python -m pytest tests/e2e/test_native.py tests/e2e/test_systems.py -q -k native
}
stage "unit and native end-to-end tests beside 2 busy processes (release, ASan+UBSan)" under_load
stage "end-to-end tests (ASan+UBSan systems)" env TASKBENCH_BUILD_DIR=build-asan \
  .venv/bin/python -m pytest tests/e2e/test_systems.py tests/e2e/test_fuzz_flags.py tests/e2e/test_valid_configs.py -q -n 2
stage "end-to-end tests of the native systems (TSan)" env TASKBENCH_BUILD_DIR=build-tsan-native \
  .venv/bin/python -m pytest tests/e2e/test_native.py tests/e2e/test_systems.py -q -k native
# Spark and TensorFlow run in the last stage only, with their install (below). Two workers
# (pytest-xdist): much of this stage waits (engines starting, hung runs meeting their timeouts,
# a wheel build), and the other worker's tests run meanwhile (measured here: 15 min instead of 29
# for the same tests with the large engines installed).
stage "end-to-end and harness tests (release)" .venv/bin/python -m pytest tests -q -n 2 --dist worksteal \
  --ignore=tests/e2e/test_pyspark.py --ignore=tests/e2e/test_tensorflow.py \
  --ignore=tests/cluster/test_pyspark_across_hosts.py --ignore=tests/slurm --ignore=tests/harness/test_check_e2e.py

# The regression gate alone: it calls any answer inconclusive while other processes use more
# than half a core (as it should on a shared CI runner), which the other worker's tests would do.
stage "regression gate end to end (taskbench check, alone)" .venv/bin/python -m pytest tests/harness/test_check_e2e.py -q

# A real Slurm (Debian's slurm-wlm, munge) on the test cluster's hosts, apart from the other
# stages: its tests time Slurm's own reactions (a lost node, a time limit). On two workers, each
# with a Slurm of its own: the time-limit test waits 55 s for Slurm's shortest limit, a minute,
# and the other tests run meanwhile (82 s alone, 67 s so). Where Slurm cannot start, they fail,
# saying why.
stage "Slurm test cluster: srun, salloc and sbatch (Open MPI, MPICH, Dask, Parsl; a lost node, a time limit, scancel)" \
  .venv/bin/python -m pytest tests/slurm -q -n 2

# OpenBLAS picks its kernels from the CPU (or OPENBLAS_CORETYPE), so the machine CI lands on
# decides which dgemm code runs: run every kernel this CPU can execute, and check that the one
# asked for is the one that ran (OpenBLAS silently falls back for a name it does not know).
blas_under() {
  local core=$1
  local out
  out=$(OPENBLAS_CORETYPE=$core build/tests/core_tests --gtest_filter='Dgemm*') || { echo "$out"; return 1; }
  grep -q "^BLAS: .* $core " <<<"$out" || { echo "OPENBLAS_CORETYPE=$core did not select $core:"; echo "$out"; return 1; }
  OPENBLAS_CORETYPE=$core build-tsan-native/tests/core_tests --gtest_filter='Dgemm*' --gtest_brief=1 &&
    OPENBLAS_CORETYPE=$core TASKBENCH_BUILD_DIR=build-tsan-native .venv/bin/python -m pytest \
      tests/e2e/test_systems.py -q -k "native and dgemm" &&
    OPENBLAS_CORETYPE=$core .venv/bin/python -m pytest tests/e2e -q -k dgemm
}
for core in $(scripts/blas-coretypes.sh); do
  stage "BLAS tests under OPENBLAS_CORETYPE=$core (release, TSan)" blas_under "$core"
done

# Spark, TensorFlow and legate's wheel (Legion and Realm): hundreds of MB each, so installed only
# here (Java 17 from Debian, the pyproject groups spark, tensorflow and legion; fast when
# present), then tested by their own files, which run every pattern in one run per system, and
# by the shared files' cases of them (-k: the engines' names, which their own files' names hold
# too), in one session on two workers (most of it waits on JVMs and clusters starting); the
# fault matrix's cases of Legion and Realm after it (-k there would also pick Spark's: 160 s
# of runs). The Legion family is compiled against the wheel: the release build is
# configured again, so that CMake finds it (and the NVIDIA driver, or builds the stand-in), and
# its systems built; test_library_paths reads their binaries too. A missing engine fails here,
# never skips.
large_engines() {
  scripts/install-large-engines.sh &&
    scripts/build.sh build -DCMAKE_BUILD_TYPE=Release || return
  local status=0
  TASKBENCH_REQUIRE_LARGE_ENGINES=1 .venv/bin/python -m pytest -q -n 2 --dist worksteal \
    -k "spark or tensorflow or realm or legion or legate or library_paths" \
    tests/e2e/test_pyspark.py tests/e2e/test_tensorflow.py tests/cluster/test_pyspark_across_hosts.py \
    tests/e2e/test_realm.py tests/e2e/test_legion.py tests/e2e/test_legate.py tests/e2e/test_systems.py \
    tests/e2e/test_engine_stderr.py tests/harness/test_listening_sockets.py tests/install/test_library_paths.py ||
    status=1
  TASKBENCH_REQUIRE_LARGE_ENGINES=1 .venv/bin/python -m pytest tests/harness/test_fault_matrix.py -q \
    -k "realm or legion or legate" || status=1
  return $status
}
stage "large engines: Spark, TensorFlow, Legion and Realm (install, end-to-end, release)" large_engines

summary
if ((${#failed[@]})); then
  for name in "${failed[@]}"; do echo "FAILED stage: $name"; done
  exit 1
fi
echo "all stages passed"
