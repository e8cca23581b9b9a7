#pragma once

#include <atomic>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "tbrt/runtime.h"

namespace tbrt_test {

#if defined(__SANITIZE_THREAD__)
constexpr bool kTsan = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
constexpr bool kTsan = true;
#else
constexpr bool kTsan = false;
#endif
#else
constexpr bool kTsan = false;
#endif

// Sizes shrink under ThreadSanitizer (5-15x slower) to keep the suite short.
inline int scaled(int n, int tsan_n) { return kTsan ? tsan_n : n; }

// A binary tree of dynamic tasks spawned from inside tasks: `count` ends at 2^(depth+1) - 1.
struct TreeCtx {
  tbrt::Runtime* rt;
  std::atomic<std::int64_t> count{0};
};

inline void tree(void* arg, std::int64_t depth, std::int64_t) {
  auto* c = static_cast<TreeCtx*>(arg);
  c->count.fetch_add(1, std::memory_order_relaxed);
  if (depth > 0) {
    c->rt->spawn(&tree, c, depth - 1);
    c->rt->spawn(&tree, c, depth - 1);
  }
}

// Per-task record: how often it ran and the global order of its start and end.
struct Tracker {
  explicit Tracker(std::size_t n) : runs(n), start(n), end(n) {}
  std::atomic<std::uint64_t> clock{0};
  std::vector<std::atomic<int>> runs;
  std::vector<std::atomic<std::uint64_t>> start, end;

  void begin(std::size_t k) { start[k].store(clock.fetch_add(1), std::memory_order_relaxed); }
  void finish(std::size_t k) {
    runs[k].fetch_add(1, std::memory_order_relaxed);
    end[k].store(clock.fetch_add(1), std::memory_order_relaxed);
  }
  // Body usable as a TaskFn with arg = Tracker*, i = task index.
  static void body(void* arg, std::int64_t i, std::int64_t) {
    auto* t = static_cast<Tracker*>(arg);
    t->begin(std::size_t(i));
    t->finish(std::size_t(i));
  }
};

// Random DAG on n nodes: node k gets up to max_preds predecessors among the
// `window` nodes before it (edges always go from lower to higher index).
inline std::vector<std::pair<std::uint32_t, std::uint32_t>> random_dag(std::uint32_t n,
                                                                       int max_preds,
                                                                       std::uint32_t window,
                                                                       std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
  for (std::uint32_t k = 1; k < n; ++k) {
    const int np = int(rng() % std::uint32_t(max_preds + 1));
    const std::uint32_t lo = k > window ? k - window : 0;
    for (int p = 0; p < np; ++p) edges.emplace_back(lo + rng() % (k - lo), k);
  }
  return edges;
}

// Rows of `width` nodes, node (t, x) after (t-1, x-1..x+1): a Task Bench stencil.
inline std::vector<std::pair<std::uint32_t, std::uint32_t>> stencil_edges(int steps, int width) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
  for (int t = 1; t < steps; ++t)
    for (int x = 0; x < width; ++x)
      for (int dx = -1; dx <= 1; ++dx)
        if (x + dx >= 0 && x + dx < width)
          edges.emplace_back(std::uint32_t((t - 1) * width + x + dx), std::uint32_t(t * width + x));
  return edges;
}

}  // namespace tbrt_test
