// Kernel peak: the core's compute_bound and memory_bound tasks (through TaskGraph::execute_point,
// as a system runs them) on all cores against standalone loops written for this benchmark (an FMA loop with many independent accumulators, and plain
// memcpy over the same working set). Runs are interleaved and the best of N is kept, because
// this machine's speed swings. Prints figures; never fails.
#include <immintrin.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "taskbench/app.h"
#include "taskbench/task_graph.h"

namespace {

volatile double sink;

// The reference FMA loop: 12 independent 512-bit (or 256-bit) accumulators, more chains than
// FMA latency x ports needs, so it runs at the core's FMA peak.
double reference_fma(long iterations) {
#if defined(__AVX512F__)
  __m512d a[12];
  const __m512d m = _mm512_set1_pd(0.999999), c = _mm512_set1_pd(1e-9);
  for (int k = 0; k < 12; ++k) a[k] = _mm512_set1_pd(1.0 + k);
  for (long it = 0; it < iterations; ++it)
    for (int k = 0; k < 12; ++k) a[k] = _mm512_fmadd_pd(a[k], m, c);
  double s = 0;
  alignas(64) double v[8];
  for (int k = 0; k < 12; ++k) {
    _mm512_store_pd(v, a[k]);
    for (double x : v) s += x;
  }
  return s;
#else
  __m256d a[12];
  const __m256d m = _mm256_set1_pd(0.999999), c = _mm256_set1_pd(1e-9);
  for (int k = 0; k < 12; ++k) a[k] = _mm256_set1_pd(1.0 + k);
  for (long it = 0; it < iterations; ++it)
    for (int k = 0; k < 12; ++k) a[k] = _mm256_fmadd_pd(a[k], m, c);
  double s = 0;
  alignas(32) double v[4];
  for (int k = 0; k < 12; ++k) {
    _mm256_store_pd(v, a[k]);
    s += v[0] + v[1] + v[2] + v[3];
  }
  return s;
#endif
}

constexpr int kVectorDoubles =
#if defined(__AVX512F__)
    8;
#else
    4;
#endif

// Runs f(thread) on `threads` threads at once; returns the wall time.
double on_all_cores(int threads, const std::function<void(int)>& f) {
  std::vector<std::thread> pool;
  const double start = taskbench::wall_time();
  for (int t = 0; t < threads; ++t) pool.emplace_back(f, t);
  for (auto& th : pool) th.join();
  return taskbench::wall_time() - start;
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = static_cast<int>(taskbench::available_cores());
  const int reps = argc > 1 ? std::atoi(argv[1]) : 5;
  const long iterations = 20'000'000;
  // Per thread, and with all threads together well beyond the last-level cache (this VM
  // reports a 480 MiB L3): a smaller set lets whichever copy loop runs second read a warm cache.
  const size_t scratch = size_t(1) << 30;
  const int samples = 16;
  const long mem_iters = 2 * samples;  // two passes over the scratch

  // Graph 0: one compute_bound task; graph 1: one memory_bound task over `scratch` bytes.
  std::vector<std::string> args = {"bench_kernel_peak", "-kernel", "compute_bound", "-iter",
                                   std::to_string(iterations), "-and", "-kernel", "memory_bound",
                                   "-iter", std::to_string(mem_iters), "-sample", std::to_string(samples),
                                   "-scratch", std::to_string(scratch)};
  std::vector<char*> argv_graphs;
  for (std::string& a : args) argv_graphs.push_back(a.data());
  taskbench::App app(static_cast<int>(argv_graphs.size()), argv_graphs.data(), {"kernel_peak"});
  const taskbench::TaskGraph compute = app.graphs()[0], memory = app.graphs()[1];
  // Runs task (0, 0) of g on this thread, as a system would: validated, output written.
  auto run_task = [](const taskbench::TaskGraph& g, char* scratch_ptr, size_t scratch_bytes) {
    std::vector<char> output(g.output_bytes());
    g.execute_point(0, 0, output.data(), output.size(), nullptr, nullptr, 0, scratch_ptr, scratch_bytes);
  };

  std::vector<std::vector<char>> buffers(threads, std::vector<char>(scratch, 1));
  double best_kernel = 0, best_ref = 0, best_mem = 0, best_copy = 0;
  for (int r = 0; r < reps; ++r) {
    double t = on_all_cores(threads, [&](int) { run_task(compute, nullptr, 0); });
    best_kernel = std::max(best_kernel, threads * (128.0 * iterations + 64) / t);
    t = on_all_cores(threads, [&](int) { sink = reference_fma(iterations); });
    best_ref = std::max(best_ref, threads * (2.0 * 12 * kVectorDoubles * iterations) / t);
    auto kernel = [&] {
      const double t = on_all_cores(threads, [&](int th) {
        run_task(memory, buffers[th].data(), scratch);
      });
      best_mem = std::max(best_mem, threads * (double(scratch) * mem_iters / samples) / t);
    };
    auto copy = [&] {
      const double t = on_all_cores(threads, [&](int th) {
        const size_t sample = scratch / samples, half = sample / 2;
        for (long it = 0; it < mem_iters; ++it) {
          char* base = buffers[th].data() + (it % samples) * sample;
          std::memcpy(base + half, base, half);
        }
      });
      best_copy = std::max(best_copy, threads * (double(scratch) * mem_iters / samples) / t);
    };
    // Alternate which runs first, so neither always follows the other.
    if (r % 2 == 0) {
      kernel();
      copy();
    } else {
      copy();
      kernel();
    }
  }
  std::printf("threads %d, best of %d interleaved runs\n", threads, reps);
  std::printf("compute_bound  %8.1f GFLOP/s   reference FMA loop %8.1f GFLOP/s   ratio %.3f\n",
              best_kernel / 1e9, best_ref / 1e9, best_kernel / best_ref);
  std::printf("memory_bound   %8.2f GB/s      plain memcpy loop  %8.2f GB/s      ratio %.3f\n",
              best_mem / 1e9, best_copy / 1e9, best_mem / best_copy);
  return 0;
}
