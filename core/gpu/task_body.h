// One task's work on the GPU, written once for both compilers: nvcc runs it in a warp (lane,
// lanes = 0..31, 32), the host tests run it with lane 0 of 1 and compare it with the CPU core
// (core/tests/gpu_task_body_test.cc), so the logic is tested where no GPU is.
// The same contract as execute_point (docs/spec.md §2, §3): check every input's identity and
// every byte of it, run the kernel with the CPU's counts, write (t, i) over the whole output.
#pragma once

#include <cstddef>
#include <cstdint>

#include <climits>

#if defined(__CUDACC__)
#define TB_HD __host__ __device__
#else
#define TB_HD
#include <cmath>
#endif

namespace taskbench::gpu {

// The kernels with a GPU version: the CPU's kernel_type_t values they stand for are mapped in
// device.cc (kernel_for).
enum class Kernel : int { kEmpty, kBusyWait, kComputeBound, kComputeBound2, kMemoryBound, kMemoryDaxpy };

// What every task of one graph shares.
struct GraphDesc {
  long graph;
  Kernel kernel;
  long iterations;
  int samples;
  size_t output_bytes, scratch_bytes;
  long corrupt_t, corrupt_i;  // TASKBENCH_FAULT=corrupt:graph,t,i on this graph, else -1
  long hang_t, hang_i;        // TASKBENCH_FAULT=hang:... : the task never finishes
};

// The first failed check of a run, for the host to print as the core's one line.
struct Failure {
  int failed;  // 0 until a task claims the record
  int what;    // FailureKind
  long graph, t, i, input, want_point, found_t, found_i, byte;
};
enum FailureKind : int { kWrongIdentity = 1, kCorruptByte = 2 };

// Aligned as every buffer of core/gpu is (device.cc), so identities move as 8-byte words.
constexpr size_t kBufferAlign = 256;
constexpr size_t kIdentityBytes = 16;

TB_HD inline double seed_for(long t, long i) { return -0.5 + 1e-6 * static_cast<double>((t + i) & 1023); }

// The identity (t, i) repeated over the buffer; a trailing partial pair holds a prefix of it.
TB_HD inline void write_identity(char* out, size_t bytes, long t, long i, int lane, int lanes) {
  const uint64_t pair[2] = {static_cast<uint64_t>(t), static_cast<uint64_t>(i)};
  uint64_t* words = reinterpret_cast<uint64_t*>(out);
  const size_t n_words = bytes / 8;
  for (size_t w = lane; w < n_words; w += lanes) words[w] = pair[w & 1];
  if (lane == 0)
    for (size_t b = n_words * 8; b < bytes; ++b)
      out[b] = reinterpret_cast<const char*>(pair)[b % 16];
}

// The first byte (this lane's share) that differs from the identity, or -1.
TB_HD inline long first_bad_byte(const char* in, size_t bytes, long t, long i, int lane, int lanes) {
  const uint64_t pair[2] = {static_cast<uint64_t>(t), static_cast<uint64_t>(i)};
  const uint64_t* words = reinterpret_cast<const uint64_t*>(in);
  const size_t n_words = bytes / 8;
  for (size_t w = lane; w < n_words; w += lanes)
    if (words[w] != pair[w & 1])
      for (size_t b = w * 8;; ++b)
        if (in[b] != reinterpret_cast<const char*>(pair)[b % 16]) return static_cast<long>(b);
  if (lane == 0)
    for (size_t b = n_words * 8; b < bytes; ++b)
      if (in[b] != reinterpret_cast<const char*>(pair)[b % 16]) return static_cast<long>(b);
  return -1;
}

// a <- a*a + a on 64 (compute_bound) or 32 (compute_bound2) doubles, as the CPU kernel: value k
// starts at seed - 0.001 k. Lane l of Lanes owns values l, l + Lanes, ...: a compile-time count
// per lane, so nvcc keeps them in registers.
template <int Doubles, int Lanes>
TB_HD inline double fma_chains(long iterations, double seed, int lane) {
  constexpr int kPerLane = Doubles / Lanes;
  static_assert(kPerLane * Lanes == Doubles, "lanes must divide the values");
  double a[kPerLane];
  for (int c = 0; c < kPerLane; ++c) a[c] = seed - 0.001 * (lane + c * Lanes);
  for (long it = 0; it < iterations; ++it)
    for (int c = 0; c < kPerLane; ++c) a[c] = fma(a[c], a[c], a[c]);
  double s = 0;
  for (int c = 0; c < kPerLane; ++c) s += a[c];
  return s;  // this lane's part of the sum: the caller adds the lanes'
}

TB_HD inline uint64_t busy_wait(long iterations, uint64_t seed) {
  uint64_t x = seed;
  for (long it = 0; it < iterations; ++it) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  return x;
}

TB_HD inline long first_sample(long t, long iterations, int samples) {
  return ((t % samples) * (iterations % samples)) % samples;
}

// memory_bound: per iteration, the first half of one sample copied onto its second half;
// memory_daxpy: y += alpha x over one sample's halves. Samples walk the scratch as on the CPU.
TB_HD inline void memory_kernel(bool daxpy, char* scratch, size_t scratch_bytes, long iterations,
                                int samples, long t, int lane, int lanes) {
  const size_t sample = scratch_bytes / samples, half_words = sample / 16;
  long s = first_sample(t, iterations, samples);
  for (long it = 0; it < iterations; ++it) {
    if (daxpy) {
      const double* x = reinterpret_cast<const double*>(scratch + s * sample);
      double* y = reinterpret_cast<double*>(scratch + s * sample) + half_words;
      for (size_t k = lane; k < half_words; k += lanes) y[k] += 1.0000001 * x[k];
    } else {
      const uint64_t* from = reinterpret_cast<const uint64_t*>(scratch + s * sample);
      uint64_t* to = reinterpret_cast<uint64_t*>(scratch + s * sample) + half_words;
      for (size_t k = lane; k < half_words; k += lanes) to[k] = from[k];
    }
    if (++s == samples) s = 0;
  }
}

// The kernel's work for task (t, i); returns a value the caller must keep observable.
template <int Lanes>
TB_HD inline double run_kernel(const GraphDesc& g, long t, long i, char* scratch, int lane) {
  constexpr int lanes = Lanes;
  switch (g.kernel) {
    case Kernel::kEmpty: return 0;
    case Kernel::kBusyWait:
      return lane == 0 ? static_cast<double>(busy_wait(g.iterations, t * 31 + i)) : 0;
    case Kernel::kComputeBound: return fma_chains<64, Lanes>(g.iterations, seed_for(t, i), lane);
    case Kernel::kComputeBound2: return fma_chains<32, Lanes>(g.iterations, seed_for(t, i), lane);
    case Kernel::kMemoryBound:
    case Kernel::kMemoryDaxpy:
      memory_kernel(g.kernel == Kernel::kMemoryDaxpy, scratch, g.scratch_bytes, g.iterations,
                    g.samples, t, lane, lanes);
      return 0;
  }
  return 0;
}

// One task, as lane `lane` of Lanes runs it: nothing once a failure is on record (the run stops
// at its first failed check: the tasks already queued end at once), else every input's identity
// and bytes checked (a failure goes to warp.fail and the task stops, all lanes alike), the
// kernel, the identity written, the TASKBENCH_FAULT corruption, the count. `Warp` is what differs
// between the GPU (shuffles, atomics: task_kernel.cu) and a host that runs one lane
// (tests/gpu_standin): stopped (the same answer in every lane), min and sum over the lanes, sync,
// fail, hang, keep (a result made observable) and count.
template <int Lanes, class Warp, class In>
TB_HD inline void run_task(const GraphDesc& g, long t, long i, const In* inputs, long n_inputs, char* output,
                           char* scratch, int lane, Warp& warp) {
  if (warp.stopped()) return;
  for (long k = 0; k < n_inputs; ++k) {
    const long* identity = reinterpret_cast<const long*>(inputs[k].data);
    const long found_t = identity[0], found_i = identity[1];
    if (found_t != t - 1 || found_i != inputs[k].point) {
      if (lane == 0) warp.fail(g, t, i, kWrongIdentity, k, inputs[k].point, found_t, found_i, -1);
      return;
    }
    if (g.output_bytes > kIdentityBytes) {
      const long bad = first_bad_byte(inputs[k].data, g.output_bytes, t - 1, inputs[k].point, lane, Lanes);
      const long first = warp.min(bad < 0 ? LONG_MAX : bad);
      if (first != LONG_MAX) {
        if (lane == 0) warp.fail(g, t, i, kCorruptByte, k, inputs[k].point, t - 1, inputs[k].point, first);
        return;
      }
    }
  }
  if (t == g.hang_t && i == g.hang_i) warp.hang();  // TASKBENCH_FAULT=hang: never finishes
  const double value = warp.sum(run_kernel<Lanes>(g, t, i, scratch, lane));
  write_identity(output, g.output_bytes, t, i, lane, Lanes);
  warp.sync();
  if (lane == 0) {
    warp.keep(value);
    if (t == g.corrupt_t && i == g.corrupt_i) output[0] ^= 0x5a;  // TASKBENCH_FAULT=corrupt
    warp.count();
  }
}

}  // namespace taskbench::gpu
