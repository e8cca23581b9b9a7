// compute_bound and compute_bound2: register-resident FMA chains, a <- a*a + a on 64 (32)
// doubles. Written with intrinsics for the widest FMA unit the build targets, because GCC's
// generic vectors get split and spilled when -march=native prefers 256-bit vectors: with
// AVX-512, 64 doubles are 8 zmm chains (FMA latency 4 x 2 ports = 8 chains in flight: peak);
// with AVX2+FMA they are 16 ymm chains.
#include <cmath>

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>
#endif

#include "kernels.h"

namespace taskbench::kernels {
namespace {

#if defined(__AVX512F__)
struct Vec {
  using T = __m512d;
  static constexpr int kLanes = 8;
  static T init(double seed, int base) {
    return _mm512_set_pd(seed - 0.001 * (base + 7), seed - 0.001 * (base + 6), seed - 0.001 * (base + 5),
                         seed - 0.001 * (base + 4), seed - 0.001 * (base + 3), seed - 0.001 * (base + 2),
                         seed - 0.001 * (base + 1), seed - 0.001 * base);
  }
  static T step(T a) { return _mm512_fmadd_pd(a, a, a); }
  static T add(T a, T b) { return _mm512_add_pd(a, b); }
  static double sum(T a) {
    alignas(64) double v[8];
    _mm512_store_pd(v, a);
    return ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
  }
};
#elif defined(__AVX2__) && defined(__FMA__)
struct Vec {
  using T = __m256d;
  static constexpr int kLanes = 4;
  static T init(double seed, int base) {
    return _mm256_set_pd(seed - 0.001 * (base + 3), seed - 0.001 * (base + 2), seed - 0.001 * (base + 1),
                         seed - 0.001 * base);
  }
  static T step(T a) { return _mm256_fmadd_pd(a, a, a); }
  static T add(T a, T b) { return _mm256_add_pd(a, b); }
  static double sum(T a) {
    alignas(32) double v[4];
    _mm256_store_pd(v, a);
    return (v[0] + v[1]) + (v[2] + v[3]);
  }
};
#else
struct Vec {  // portable fallback: scalar FMAs the compiler may vectorize
  using T = double;
  static constexpr int kLanes = 1;
  static T init(double seed, int base) { return seed - 0.001 * base; }
  static T step(T a) { return std::fma(a, a, a); }
  static T add(T a, T b) { return a + b; }
  static double sum(T a) { return a; }
};
#endif

// `Doubles` values in a <- a*a + a; the values start in (-1, 0) and tend to 0- without ever
// becoming denormal or infinite, so every iteration costs the same.
template <int Doubles>
double fma_chains(long iterations, double seed) {
  constexpr int kChains = Doubles / Vec::kLanes;
  typename Vec::T a[kChains];
  for (int c = 0; c < kChains; ++c) a[c] = Vec::init(seed, c * Vec::kLanes);
  // Unrolled: with exactly enough chains to cover the FMA latency, the loop's own increment and
  // branch must not take an FMA port's issue slot every iteration.
#pragma GCC unroll 4
  for (long it = 0; it < iterations; ++it)
    for (int c = 0; c < kChains; ++c) a[c] = Vec::step(a[c]);
  typename Vec::T s = a[0];
  for (int c = 1; c < kChains; ++c) s = Vec::add(s, a[c]);
  return Vec::sum(s);
}

}  // namespace

double compute_bound(long iterations, double seed) { return fma_chains<64>(iterations, seed); }
double compute_bound2(long iterations, double seed) { return fma_chains<32>(iterations, seed); }

}  // namespace taskbench::kernels
