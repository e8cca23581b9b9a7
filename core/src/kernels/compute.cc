// compute_bound and compute_bound2: register-resident FMA chains. Built with
// -ffp-contract=fast so a*a + a becomes one FMA; the GCC vector types keep the 64 (32) values
// in 8 (4) 512-bit registers, or twice as many 256-bit ones on AVX2, which gives enough
// independent chains to cover the FMA latency on two ports.
#include <cmath>

#include "kernels.h"

namespace taskbench::kernels {
namespace {

typedef double v8d __attribute__((vector_size(64)));

inline void keep_in_register(v8d& v) {
#if defined(__x86_64__)
  asm volatile("" : "+v"(v));
#elif defined(__aarch64__)
  asm volatile("" : "+w"(v));
#else
  asm volatile("" : "+m"(v));
#endif
}

template <int kVectors>
double fma_chains(long iterations, double seed) {
  v8d a[kVectors];
  for (int v = 0; v < kVectors; ++v)
    for (int k = 0; k < 8; ++k) a[v][k] = seed - 0.001 * (8 * v + k);  // in (-1, 0): a -> 0-
  for (long it = 0; it < iterations; ++it) {
    for (int v = 0; v < kVectors; ++v) a[v] = a[v] * a[v] + a[v];
    // The empty asm stops the compiler from collapsing iterations (it cannot see through it).
    for (int v = 0; v < kVectors; ++v) keep_in_register(a[v]);
  }
  v8d s = a[0];
  for (int v = 1; v < kVectors; ++v) s += a[v];
  double sum = 0;
  for (int k = 0; k < 8; ++k) sum += s[k];
  return sum;
}

}  // namespace

double compute_bound(long iterations, double seed) { return fma_chains<8>(iterations, seed); }
double compute_bound2(long iterations, double seed) { return fma_chains<4>(iterations, seed); }

}  // namespace taskbench::kernels
