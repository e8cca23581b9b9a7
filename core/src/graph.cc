// Dependence patterns (SPEC §1): shapes, dependence sets, and the dependence relation and its
// inverse, each computed directly from the pattern's formula (never by scanning the width).
#include <algorithm>
#include <cstdio>

#include "hash.h"
#include "taskbench/task_graph.h"

namespace taskbench {
namespace {

using Graph = task_graph_t;

long min3(long a, long b, long c) { return std::min(a, std::min(b, c)); }

long floor_mod(long a, long w) {
  long m = a % w;
  return m < 0 ? m + w : m;
}

long ceil_log2(long w) {
  long bits = 0;
  while ((1L << bits) < w) ++bits;
  return bits;
}

// Appends point p to sorted interval list `out` of length n, merging when contiguous.
// Points must arrive in ascending order.
inline long append_point(Interval* out, long n, long p) {
  if (n > 0 && out[n - 1].end + 1 >= p) {
    out[n - 1].end = std::max(out[n - 1].end, p);
    return n;
  }
  out[n] = Interval{p, p};
  return n + 1;
}

inline long single(Interval* out, long lo, long hi, long width) {
  lo = std::max(lo, 0L);
  hi = std::min(hi, width - 1);
  if (lo > hi) return 0;
  out[0] = Interval{lo, hi};
  return 1;
}

// Sorts a small array of points (stored in out[k].start) and merges it into intervals.
long points_to_intervals(Interval* out, long n) {
  if (n <= 16) {
    for (long a = 1; a < n; ++a) {
      long v = out[a].start, b = a;
      for (; b > 0 && out[b - 1].start > v; --b) out[b].start = out[b - 1].start;
      out[b].start = v;
    }
  } else {
    std::sort(out, out + n, [](const Interval& x, const Interval& y) { return x.start < y.start; });
  }
  long m = 0;
  for (long k = 0; k < n; ++k) m = append_point(out, m, out[k].start);
  return m;
}

bool kept(const Graph& g, long dset, long dep, long point) {
  if (dep == point) return true;
  return pattern_uniform(g.seed, g.graph_index, g.radix, dset, dep, point) < g.fraction_connected;
}

long spread_point(const Graph& g, long dset, long i, long k) {
  long w = g.max_width;
  return floor_mod(i + (k * w) / g.radix + (k > 0 ? dset : 0), w);
}

long spread_dependencies(const Graph& g, long dset, long i, Interval* out, bool thin) {
  long n = 0;
  for (long k = 0; k < g.radix; ++k) {
    long j = spread_point(g, dset, i, k);
    if (!thin || kept(g, dset, j, i)) out[n++].start = j;
  }
  return points_to_intervals(out, n);
}

long spread_reverse(const Graph& g, long dset, long j, Interval* out, bool thin) {
  long w = g.max_width, n = 0;
  for (long k = 0; k < g.radix; ++k) {
    long i = floor_mod(j - (k * w) / g.radix - (k > 0 ? dset : 0), w);
    if (!thin || kept(g, dset, j, i)) out[n++].start = i;
  }
  return points_to_intervals(out, n);
}

}  // namespace

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

using namespace taskbench;

extern "C" {

long task_graph_offset_at_timestep(task_graph_t g, long t) {
  if (g.dependence == DOM) return std::max(0L, t + g.max_width - g.timesteps);
  return 0;
}

long task_graph_width_at_timestep(task_graph_t g, long t) {
  switch (g.dependence) {
    case DOM: return min3(g.max_width, t + 1, g.timesteps - t);
    case TREE: return t >= 62 ? g.max_width : std::min(g.max_width, 1L << t);
    default: return g.max_width;
  }
}

long task_graph_max_dependence_sets(task_graph_t g) {
  switch (g.dependence) {
    case FFT: return std::max(1L, ceil_log2(g.max_width));
    case SPREAD:
    case RANDOM_NEAREST:
    case RANDOM_SPREAD: return g.period;
    default: return 1;
  }
}

long task_graph_timestep_period(task_graph_t g) { return task_graph_max_dependence_sets(g); }

long task_graph_dependence_set_at_timestep(task_graph_t g, long t) {
  long sets = task_graph_max_dependence_sets(g);
  switch (g.dependence) {
    case FFT: return (t + sets - 1) % sets;
    case SPREAD:
    case RANDOM_NEAREST:
    case RANDOM_SPREAD: return t % sets;
    default: return 0;
  }
}

bool task_graph_contains_point(task_graph_t g, long t, long i) {
  if (t < 0 || t >= g.timesteps) return false;
  long off = task_graph_offset_at_timestep(g, t);
  return i >= off && i < off + task_graph_width_at_timestep(g, t);
}

long task_graph_max_intervals(task_graph_t g) {
  switch (g.dependence) {
    case STENCIL_1D_PERIODIC: return 2;
    case FFT: return 3;
    case SPREAD:
    case RANDOM_SPREAD:
    case RANDOM_NEAREST: return std::max(1L, g.radix);
    default: return 1;
  }
}

long task_graph_max_dependencies(task_graph_t g) {
  long w = g.max_width;
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
  const long w = g.max_width;
  switch (g.dependence) {
    case TRIVIAL: return 0;
    case NO_COMM: return single(out, i, i, w);
    case STENCIL_1D: return single(out, i - 1, i + 1, w);
    case STENCIL_1D_PERIODIC: {
      long pts[3] = {floor_mod(i - 1, w), i, floor_mod(i + 1, w)};
      std::sort(pts, pts + 3);
      long n = 0;
      for (long p : pts) n = append_point(out, n, p);
      return n;
    }
    case DOM: return single(out, i - 1, i, w);
    case TREE: return single(out, i / 2, i / 2, w);
    case FFT: {
      long stride = 1L << dset, n = 0;
      if (i - stride >= 0) n = append_point(out, n, i - stride);
      n = append_point(out, n, i);
      if (i + stride < w) n = append_point(out, n, i + stride);
      return n;
    }
    case ALL_TO_ALL: return single(out, 0, w - 1, w);
    case NEAREST:
      if (g.radix == 0) return 0;
      return single(out, i - g.radix / 2, i + (g.radix - 1) / 2, w);
    case SPREAD: return spread_dependencies(g, dset, i, out, false);
    case RANDOM_NEAREST: {
      if (g.radix == 0) return 0;
      long lo = std::max(0L, i - g.radix / 2), hi = std::min(w - 1, i + (g.radix - 1) / 2);
      long n = 0;
      for (long j = lo; j <= hi; ++j)
        if (kept(g, dset, j, i)) n = append_point(out, n, j);
      return n;
    }
    case RANDOM_SPREAD: return spread_dependencies(g, dset, i, out, true);
  }
  return 0;
}

long task_graph_reverse_dependencies_into(task_graph_t g, long dset, long j, interval_t* out) {
  const long w = g.max_width;
  switch (g.dependence) {
    case TRIVIAL: return 0;
    case NO_COMM: return single(out, j, j, w);
    case STENCIL_1D:
    case STENCIL_1D_PERIODIC:
    case FFT: return task_graph_dependencies_into(g, dset, j, out);  // symmetric relations
    case DOM: return single(out, j, j + 1, w);
    case TREE: return single(out, 2 * j, 2 * j + 1, w);
    case ALL_TO_ALL: return single(out, 0, w - 1, w);
    case NEAREST:
      if (g.radix == 0) return 0;
      return single(out, j - (g.radix - 1) / 2, j + g.radix / 2, w);
    case SPREAD: return spread_reverse(g, dset, j, out, false);
    case RANDOM_NEAREST: {
      if (g.radix == 0) return 0;
      long lo = std::max(0L, j - (g.radix - 1) / 2), hi = std::min(w - 1, j + g.radix / 2);
      long n = 0;
      for (long i = lo; i <= hi; ++i)
        if (kept(g, dset, j, i)) n = append_point(out, n, i);
      return n;
    }
    case RANDOM_SPREAD: return spread_reverse(g, dset, j, out, true);
  }
  return 0;
}

}  // extern "C"

namespace {

// Keeps only the parts of `iv` inside row [lo, hi].
long clip_to_row(interval_t* iv, long n, long lo, long hi) {
  long m = 0;
  for (long k = 0; k < n; ++k) {
    long a = std::max(iv[k].start, lo), b = std::min(iv[k].end, hi);
    if (a <= b) iv[m++] = interval_t{a, b};
  }
  return m;
}

}  // namespace

extern "C" {

long task_graph_task_dependencies_into(task_graph_t g, long t, long i, interval_t* out) {
  if (t <= 0 || t >= g.timesteps) return 0;
  long n = task_graph_dependencies_into(g, task_graph_dependence_set_at_timestep(g, t), i, out);
  if (g.dependence != DOM && g.dependence != TREE) return n;  // full rows: nothing to clip
  long lo = task_graph_offset_at_timestep(g, t - 1);
  return clip_to_row(out, n, lo, lo + task_graph_width_at_timestep(g, t - 1) - 1);
}

long task_graph_task_successors_into(task_graph_t g, long t, long j, interval_t* out) {
  if (t < 0 || t + 1 >= g.timesteps) return 0;
  long n = task_graph_reverse_dependencies_into(
      g, task_graph_dependence_set_at_timestep(g, t + 1), j, out);
  if (g.dependence != DOM && g.dependence != TREE) return n;
  long lo = task_graph_offset_at_timestep(g, t + 1);
  return clip_to_row(out, n, lo, lo + task_graph_width_at_timestep(g, t + 1) - 1);
}

}  // extern "C"
