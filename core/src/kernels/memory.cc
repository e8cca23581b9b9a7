// Memory kernels. The scratch buffer is split into `samples` samples; iteration k of task
// (t, i) works on sample (t * iterations + k) mod samples, so successive timesteps walk the
// whole buffer and the working set stays the whole scratch however small -iter becomes.
#include <cstring>

#include "kernels.h"

namespace taskbench::kernels {
namespace {

long first_sample(long t, long iterations, int samples) {
  return ((t % samples) * (iterations % samples)) % samples;
}

}  // namespace

void memory_bound(char* scratch, size_t scratch_bytes, long iterations, int samples, long t) {
  const size_t sample = scratch_bytes / samples, half = sample / 2;
  long s = first_sample(t, iterations, samples);
  for (long it = 0; it < iterations; ++it) {
    char* base = scratch + s * sample;
    std::memcpy(base + half, base, half);
    if (++s == samples) s = 0;
  }
}

void memory_daxpy(char* scratch, size_t scratch_bytes, long iterations, int samples, long t) {
  const size_t sample = scratch_bytes / samples, n = sample / (2 * sizeof(double));
  const double alpha = 1.0000001;
  long s = first_sample(t, iterations, samples);
  for (long it = 0; it < iterations; ++it) {
    double* x = reinterpret_cast<double*>(scratch + s * sample);
    double* __restrict y = x + n;
    for (size_t k = 0; k < n; ++k) y[k] += alpha * x[k];
    if (++s == samples) s = 0;
  }
}

}  // namespace taskbench::kernels
