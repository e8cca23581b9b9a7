// compute_dgemm: `iterations` dgemm calls on three N x N matrices in the scratch buffer,
// N = floor(sqrt(scratch / 24)). Built only where CMake found a CBLAS (TASKBENCH_HAVE_BLAS).
#include <dlfcn.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <string>

#include "kernels.h"

#ifdef TASKBENCH_HAVE_BLAS
#include <cblas.h>
extern "C" void openblas_set_num_threads(int) __attribute__((weak));
extern "C" char* openblas_get_config() __attribute__((weak));
extern "C" int openblas_get_parallel() __attribute__((weak));

namespace {
std::atomic<long> pool_takes{0};
}

// Debian's serial OpenBLAS 0.3.21 is built without USE_LOCKING: blas_memory_alloc takes a
// packing buffer from a pool shared by all threads by testing a slot's `used` flag and then
// setting it, with no lock between the two (objdump: its spinlock guards only the pool's
// first initialisation). Two tasks' dgemm calls at once can take the same buffer and corrupt
// each other's products (DgemmConcurrency caught it, once, in CI). OpenBLAS calls its
// allocator through its PLT, so this definition (exported from every executable, see
// core/CMakeLists.txt) takes its place: the slot search runs under a mutex. Handing a buffer
// back is one store of 0, safe as it is. (The pthread build locks, but starts a spinning
// thread pool at load time in every binary.)
extern "C" __attribute__((visibility("default"))) void* blas_memory_alloc(int procpos) {
  static const auto openblas_alloc = reinterpret_cast<void* (*)(int)>(dlsym(RTLD_NEXT, "blas_memory_alloc"));
  static std::mutex pool;
  pool_takes.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(pool);
  return openblas_alloc(procpos);
}
#endif

namespace taskbench::kernels {

long dgemm_size(size_t scratch_bytes) {
  long cells = static_cast<long>(scratch_bytes / 24), n = std::lround(std::sqrt(cells));
  while (n * n > cells) --n;
  while ((n + 1) * (n + 1) <= cells) ++n;
  return n;
}

#ifdef TASKBENCH_HAVE_BLAS
bool dgemm_available() { return true; }

// The library the loader picked, which on Debian follows the libopenblas.so.0 alternative
// unless the binary's RUNPATH names the serial one (CMake adds it when it links that one).
std::string blas_runtime() {
  if (!openblas_get_config) return "a CBLAS other than OpenBLAS";
  std::string s = openblas_get_config();
  if (openblas_get_parallel) s += openblas_get_parallel() == 0 ? " (sequential)" : " (threaded)";
  return s;
}
bool blas_threaded() { return openblas_get_parallel && openblas_get_parallel() != 0; }
long blas_pool_takes() { return pool_takes.load(); }

void compute_dgemm(char* scratch, size_t scratch_bytes, long iterations) {
  // Tasks already run one per core: a multithreaded BLAS inside them would oversubscribe.
  // Said here, at the first dgemm, rather than at start-up: a run without a BLAS kernel, or
  // a bad flag, owes the user no word about the BLAS.
  static std::once_flag single_threaded;
  std::call_once(single_threaded, [] {
    if (blas_threaded())
      std::fprintf(stderr,
                   "taskbench: warning: the OpenBLAS loaded is threaded (%s): its thread pool "
                   "competes for the cores; reconfigure to link the serial one (cmake -U "
                   "TASKBENCH_OPENBLAS_LIBRARY BUILD_DIR, with libopenblas-serial-dev installed)\n",
                   blas_runtime().c_str());
    if (openblas_set_num_threads) openblas_set_num_threads(1);
  });
  const int n = static_cast<int>(dgemm_size(scratch_bytes));
  double* a = reinterpret_cast<double*>(scratch);
  double* b = a + static_cast<size_t>(n) * n;
  double* c = b + static_cast<size_t>(n) * n;
  for (long it = 0; it < iterations; ++it)
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a, n, b, n, 0.0, c, n);
}
#if defined(__SANITIZE_THREAD__)
#define TASKBENCH_THREAD_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TASKBENCH_THREAD_SANITIZER 1
#endif
#endif

#ifdef TASKBENCH_THREAD_SANITIZER
// OpenBLAS is not instrumented: ThreadSanitizer sees only its calls to memcpy, which copy the
// operands into packing buffers taken from a pool. A buffer goes from one caller to the next
// through blas_memory_alloc, locked above, and a plain store in blas_memory_free (ordered by
// x86's memory model) that ThreadSanitizer cannot see, so it reports two tasks' copies into the
// same buffer as a race (seen with the Haswell kernels). Ignoring the interceptors called from
// that library alone keeps every other report; the serial OpenBLAS makes no pthread calls whose
// synchronisation this would hide. dgemm_concurrency_test checks that concurrent products are
// right, bit for bit, under every OPENBLAS_CORETYPE the CPU runs, and that the lock is in place.
extern "C" const char* __tsan_default_suppressions() { return "called_from_lib:libopenblas.so\n"; }
#endif
#else
bool dgemm_available() { return false; }
std::string blas_runtime() { return "none"; }
bool blas_threaded() { return false; }
long blas_pool_takes() { return 0; }
void compute_dgemm(char*, size_t, long) {}
#endif

}  // namespace taskbench::kernels
