// Chain of N empty tasks on one worker: scheduler cost per task.
//   tbrt_bench_chain [tasks=10000000] [reps=5]
// Prints ns/task (best of reps) for the persistent graph, for dynamic tasks
// that spawn their successor, and for dynamic tasks wired with
// create/add_dependency/submit by the main thread before wait().
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>

#include "tbrt/runtime.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::int64_t g_count = 0;

void empty_task(void*, std::int64_t, std::int64_t) { ++g_count; }

void spawn_next(void* rt, std::int64_t left, std::int64_t) {
  ++g_count;
  if (left > 1) static_cast<tbrt::Runtime*>(rt)->spawn(&spawn_next, rt, left - 1);
}

void check(std::int64_t expected) {
  if (g_count != expected) {
    std::fprintf(stderr, "ran %lld tasks, expected %lld\n", (long long)g_count, (long long)expected);
    std::exit(1);
  }
  g_count = 0;
}

// Best (shortest) seconds of `reps` runs of `body`, each checked to have run `n` tasks.
template <class F>
double best_of(int reps, std::int64_t n, F body) {
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    auto t = Clock::now();
    body();
    const double s = seconds_since(t);
    check(n);
    if (s < best) best = s;
  }
  return best;
}

void bench(tbrt::QueueMode mode, const char* name, std::int64_t n, int reps) {
  tbrt::Options opt;
  opt.num_workers = 1;
  opt.queue = mode;
  tbrt::Runtime rt(opt);
  opt.measure = true;
  tbrt::Runtime rt_measured(opt);

  auto t0 = Clock::now();
  tbrt::Graph g;
  tbrt::Graph::NodeId prev = g.add(&empty_task);
  for (std::int64_t k = 1; k < n; ++k) {
    tbrt::Graph::NodeId cur = g.add(&empty_task);
    g.add_edge(prev, cur);
    prev = cur;
  }
  g.finalize();
  const double build = seconds_since(t0);
  const double persistent = best_of(reps, n, [&] { rt.run(g); });
  const double measured = best_of(reps, n, [&] { rt_measured.run(g); });
  g = tbrt::Graph();  // free its memory

  const double spawn = best_of(reps, n, [&] {
    rt.spawn(&spawn_next, &rt, n);
    rt.wait();
  });

  double best_create = 1e30, best_exec = 1e30;
  for (int r = 0; r < reps; ++r) {
    auto t = Clock::now();
    tbrt::TaskHandle prev_h = rt.create(&empty_task);
    rt.submit(prev_h);
    for (std::int64_t k = 1; k < n; ++k) {
      tbrt::TaskHandle cur = rt.create(&empty_task);
      rt.add_dependency(prev_h, cur);
      rt.submit(cur);
      prev_h = std::move(cur);
    }
    prev_h.reset();
    double c = seconds_since(t);
    t = Clock::now();
    rt.wait();
    double e = seconds_since(t);
    check(n);
    if (c + e < best_create + best_exec) best_create = c, best_exec = e;
  }

  const double ns = 1e9 / double(n);
  std::printf("%-5s persistent graph : %6.1f ns/task   (build %.0f ns/task, once)\n", name,
              persistent * ns, build * ns);
  std::printf("%-5s  + measure=true  : %6.1f ns/task   (rdtsc at task boundaries)\n", name,
              measured * ns);
  std::printf("%-5s dynamic spawn    : %6.1f ns/task\n", name, spawn * ns);
  std::printf("%-5s dynamic deps     : %6.1f ns/task   (create+wire %.1f, execute %.1f)\n", name,
              (best_create + best_exec) * ns, best_create * ns, best_exec * ns);
}

}  // namespace

int main(int argc, char** argv) {
  const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : 10000000;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 5;
  std::printf("chain of %lld tasks, 1 worker, best of %d\n", (long long)n, reps);
  bench(tbrt::QueueMode::kLifo, "lifo", n, reps);
  bench(tbrt::QueueMode::kFifo, "fifo", n, reps);
}
