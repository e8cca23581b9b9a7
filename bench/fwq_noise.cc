// Fixed-work-quantum noise measurement (the FWQ method of the LLNL ASC Sequoia benchmarks): one
// pinned thread repeats the same small quantum of arithmetic and times each repetition. On a
// quiet core every quantum takes the same time; one that takes longer was stopped by the OS (an
// interrupt, a daemon, the hypervisor) for the difference: a detour. Prints the detours' rate
// and the distribution of their lengths, the level of the `noise` platform switch
// (docs/simulation.md, "Sensitivities"). A figure, never a pass/fail check.
//
//   build/bench/bench_fwq_noise [SECONDS=10] [CPU=1]
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

// ~1 us of dependent floating-point work; volatile so the compiler keeps every iteration.
double quantum(int iterations) {
  volatile double x = 1.0;
  for (int i = 0; i < iterations; ++i) x = x * 1.0000001 + 1e-9;
  return x;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 10.0;
  const int cpu = argc > 2 ? std::atoi(argv[2]) : 1;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0) std::fprintf(stderr, "not pinned to cpu %d\n", cpu);
  using clock = std::chrono::steady_clock;
  const int iterations = 250;
  for (int i = 0; i < 100000; ++i) quantum(iterations);  // warm up: the clock's frequency settles
  std::vector<double> times;
  times.reserve(static_cast<size_t>(seconds * 2e6));
  const auto begin = clock::now();
  auto last = begin;
  const auto end = begin + std::chrono::duration<double>(seconds);
  while (last < end) {
    quantum(iterations);
    const auto now = clock::now();
    times.push_back(std::chrono::duration<double>(now - last).count());
    last = now;
  }
  const double total = std::chrono::duration<double>(last - begin).count();
  const double floor = percentile(times, 0.01);  // the quantum undisturbed (the 1st percentile)
  // A detour: a quantum longer than its undisturbed time by more than 1 us (shorter excesses are
  // the clock's and the cache's jitter, not the OS's).
  std::vector<double> detours;
  for (double t : times) {
    if (t - floor > 1e-6) detours.push_back(t - floor);
  }
  double lost = 0.0;
  for (double d : detours) lost += d;
  std::printf("quanta %zu of %.3f us (1st percentile) over %.2f s on cpu %d\n", times.size(), floor * 1e6, total, cpu);
  std::printf("detours over 1 us: %zu, %.1f per second, %.4f%% of the time\n", detours.size(),
              static_cast<double>(detours.size()) / total, 100.0 * lost / total);
  std::printf("detour length: median %.2f us, mean %.2f us, 90th %.2f us, 99th %.2f us, max %.1f us\n",
              percentile(detours, 0.5) * 1e6, detours.empty() ? 0.0 : lost / static_cast<double>(detours.size()) * 1e6,
              percentile(detours, 0.9) * 1e6, percentile(detours, 0.99) * 1e6, percentile(detours, 1.0) * 1e6);
  // Detours under 100 us are the kernel's and the hypervisor's own (ticks, interrupts); longer
  // ones are mostly other processes' time slices on a shared machine, not OS noise.
  std::vector<double> short_detours;
  for (double d : detours) {
    if (d < 100e-6) short_detours.push_back(d);
  }
  double short_lost = 0.0;
  for (double d : short_detours) short_lost += d;
  std::printf("detours under 100 us: %.1f per second, mean %.2f us, median %.2f us, %.4f%% of the time\n",
              static_cast<double>(short_detours.size()) / total,
              short_detours.empty() ? 0.0 : short_lost / static_cast<double>(short_detours.size()) * 1e6,
              percentile(short_detours, 0.5) * 1e6, 100.0 * short_lost / total);
  return 0;
}
