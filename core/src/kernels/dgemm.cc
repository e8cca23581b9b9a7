// compute_dgemm: `iterations` dgemm calls on three N x N matrices in the scratch buffer,
// N = floor(sqrt(scratch / 24)). Built only where CMake found a CBLAS (TASKBENCH_HAVE_BLAS).
#include <cmath>
#include <mutex>
#include <string>

#include "kernels.h"

#ifdef TASKBENCH_HAVE_BLAS
#include <cblas.h>
extern "C" void openblas_set_num_threads(int) __attribute__((weak));
extern "C" char* openblas_get_config() __attribute__((weak));
extern "C" int openblas_get_parallel() __attribute__((weak));
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

void compute_dgemm(char* scratch, size_t scratch_bytes, long iterations) {
  // Tasks already run one per core: a multithreaded BLAS inside them would oversubscribe.
  static std::once_flag single_threaded;
  std::call_once(single_threaded, [] {
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
// operands into packing buffers taken from a pool. The pool hands a buffer from one caller to
// the next through an xchg spinlock in blas_memory_alloc and a plain store in blas_memory_free
// (ordered by x86's memory model), which ThreadSanitizer cannot see, so it reports two tasks'
// copies into the same buffer as a race (seen with the Haswell kernels). Ignoring the
// interceptors called from that library alone keeps every other report; the serial OpenBLAS
// makes no pthread calls whose synchronisation this would hide. dgemm_concurrency_test proves
// that concurrent products are right, bit for bit, under every OPENBLAS_CORETYPE the CPU runs.
extern "C" const char* __tsan_default_suppressions() { return "called_from_lib:libopenblas.so\n"; }
#endif
#else
bool dgemm_available() { return false; }
std::string blas_runtime() { return "none"; }
bool blas_threaded() { return false; }
void compute_dgemm(char*, size_t, long) {}
#endif

}  // namespace taskbench::kernels
