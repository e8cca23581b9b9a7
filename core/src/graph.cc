// The C API's pattern queries (the formulas live in pattern.h) and the out-of-line helpers.
#include <algorithm>

#include "pattern.h"
#include "taskbench/task_graph.h"

namespace taskbench {
namespace pattern {

long points_to_intervals(interval_t* out, long n) {
  if (n <= 16) {
    for (long a = 1; a < n; ++a) {
      long v = out[a].start, b = a;
      for (; b > 0 && out[b - 1].start > v; --b) out[b].start = out[b - 1].start;
      out[b].start = v;
    }
  } else {
    std::sort(out, out + n, [](const interval_t& x, const interval_t& y) { return x.start < y.start; });
  }
  long m = 0;
  for (long k = 0; k < n; ++k) m = append_point(out, m, out[k].start);
  return m;
}

// floor(k * W / r) for 0 <= k < r, without forming k * W: with W up to 2^60 and r up to 2^20
// that product overflows a long. W = q*r + m gives k*W/r = k*q + k*m/r exactly, and k*m < r^2.
static long spread_step(long k, long w, long r) { return k * (w / r) + k * (w % r) / r; }

// Point k of the spread set of i: (i + k*W/r + (k > 0 ? dset : 0)) mod W, with k*W/r rounded
// down as a whole (not k * (W/r)), so the r points spread evenly when r does not divide W.
long spread_dependencies(const Graph& g, long dset, long i, interval_t* out, bool thin) {
  const long w = g.max_width;
  long n = 0;
  if (thin) {  // eight draws at a time (hash.h)
    const RandomEdges::Consumer edges(RandomEdges(g, dset), i);
    for (long base = 0; base < g.radix; base += 8) {
      const int count = static_cast<int>(std::min(8L, g.radix - base));
      long producers[8];
      for (int k = 0; k < count; ++k)
        producers[k] = floor_mod(i + spread_step(base + k, w, g.radix) + (base + k > 0 ? dset : 0), w);
      for (unsigned kept = edges.kept8(producers, count); kept != 0; kept &= kept - 1)
        out[n++].start = producers[__builtin_ctz(kept)];
    }
    return points_to_intervals(out, n);
  }
  for (long k = 0; k < g.radix; ++k) {
    long j = floor_mod(i + spread_step(k, w, g.radix) + (k > 0 ? dset : 0), w);
    out[n++].start = j;
  }
  return points_to_intervals(out, n);
}

long spread_reverse(const Graph& g, long dset, long j, interval_t* out, bool thin) {
  const long w = g.max_width;
  long n = 0;
  if (thin) {
    const RandomEdges edges(g, dset);
    for (long base = 0; base < g.radix; base += 8) {
      const int count = static_cast<int>(std::min(8L, g.radix - base));
      long consumers[8], producers[8];
      for (int k = 0; k < count; ++k) {
        consumers[k] = floor_mod(j - spread_step(base + k, w, g.radix) - (base + k > 0 ? dset : 0), w);
        producers[k] = j;
      }
      for (unsigned kept = edges.kept8(consumers, producers, count); kept != 0; kept &= kept - 1)
        out[n++].start = consumers[__builtin_ctz(kept)];
    }
    return points_to_intervals(out, n);
  }
  for (long k = 0; k < g.radix; ++k) {
    long i = floor_mod(j - spread_step(k, w, g.radix) - (k > 0 ? dset : 0), w);
    out[n++].start = i;
  }
  return points_to_intervals(out, n);
}

long random_nearest_dependencies(const Graph& g, long dset, long i, interval_t* out) {
  if (g.radix == 0) return 0;
  const long lo = std::max(0L, i - g.radix / 2), hi = std::min(g.max_width - 1, i + (g.radix - 1) / 2);
  // Eight draws at a time (hash.h), then the kept points as intervals.
  const RandomEdges::Consumer edges(RandomEdges(g, dset), i);
  long n = 0;
  for (long base = lo; base <= hi; base += 8) {
    const int count = static_cast<int>(std::min(8L, hi - base + 1));
    for (unsigned kept = edges.kept8(siphash::iota8(base), count); kept != 0; kept &= kept - 1)
      n = append_point(out, n, base + __builtin_ctz(kept));
  }
  return n;
}

long random_nearest_reverse(const Graph& g, long dset, long j, interval_t* out) {
  if (g.radix == 0) return 0;
  const long lo = std::max(0L, j - (g.radix - 1) / 2), hi = std::min(g.max_width - 1, j + g.radix / 2);
  const RandomEdges edges(g, dset);
  long n = 0;
  for (long base = lo; base <= hi; base += 8) {
    const int count = static_cast<int>(std::min(8L, hi - base + 1));
    const siphash::Lanes producers = static_cast<uint64_t>(j) - siphash::Lanes{};
    for (unsigned kept = edges.kept8(siphash::iota8(base), producers, count); kept != 0; kept &= kept - 1)
      n = append_point(out, n, base + __builtin_ctz(kept));
  }
  return n;
}

}  // namespace pattern

const char* pattern_name(dependence_type_t p) {
  switch (p) {
    case TRIVIAL: return "trivial";
    case NO_COMM: return "no_comm";
    case STENCIL_1D: return "stencil_1d";
    case STENCIL_1D_PERIODIC: return "stencil_1d_periodic";
    case DOM: return "dom";
    case TREE: return "tree";
    case FFT: return "fft";
    case ALL_TO_ALL: return "all_to_all";
    case NEAREST: return "nearest";
    case SPREAD: return "spread";
    case RANDOM_NEAREST: return "random_nearest";
    case RANDOM_SPREAD: return "random_spread";
  }
  return "?";
}

}  // namespace taskbench

namespace p = taskbench::pattern;

extern "C" {

long task_graph_offset_at_timestep(task_graph_t g, long t) { return p::offset(g, t); }
long task_graph_width_at_timestep(task_graph_t g, long t) { return p::width(g, t); }
long task_graph_max_dependence_sets(task_graph_t g) { return p::dependence_sets(g); }
long task_graph_timestep_period(task_graph_t g) { return p::dependence_sets(g); }
long task_graph_dependence_set_at_timestep(task_graph_t g, long t) { return p::dependence_set(g, t); }
bool task_graph_contains_point(task_graph_t g, long t, long i) { return p::contains(g, t, i); }
long task_graph_max_intervals(task_graph_t g) { return p::max_intervals(g); }

long task_graph_max_dependencies(task_graph_t g) {
  const long w = g.max_width;
  switch (g.dependence) {
    case TRIVIAL: return 0;
    case NO_COMM:
    case TREE: return 1;
    case DOM: return std::min(2L, w);
    case STENCIL_1D:
    case STENCIL_1D_PERIODIC:
    case FFT: return std::min(3L, w);
    case ALL_TO_ALL: return w;
    case NEAREST:
    case RANDOM_NEAREST:
    case SPREAD:
    case RANDOM_SPREAD: return std::min(g.radix, w);
  }
  return w;
}

long task_graph_dependencies_into(task_graph_t g, long dset, long i, interval_t* out) {
  return p::dependencies(g, dset, i, out);
}
long task_graph_reverse_dependencies_into(task_graph_t g, long dset, long j, interval_t* out) {
  return p::reverse_dependencies(g, dset, j, out);
}
long task_graph_task_dependencies_into(task_graph_t g, long t, long i, interval_t* out) {
  return p::task_dependencies(g, t, i, out);
}
long task_graph_task_successors_into(task_graph_t g, long t, long j, interval_t* out) {
  return p::task_successors(g, t, j, out);
}

}  // extern "C"
