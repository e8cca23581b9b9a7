// busy_wait: an integer recurrence (a 64-bit LCG) with no clock reads, so its duration scales
// with -iter alone and does not depend on timer resolution.
#include "kernels.h"

namespace taskbench::kernels {

uint64_t busy_wait(long iterations, uint64_t seed) {
  uint64_t x = seed;
  for (long it = 0; it < iterations; ++it) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    asm volatile("" : "+r"(x));  // one step per iteration; no closed form
  }
  return x;
}

}  // namespace taskbench::kernels
