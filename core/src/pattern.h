// Dependence patterns (docs/spec.md §1) as inline functions: shapes, dependence sets, the relation and
// its inverse, each computed directly from the pattern's formula (never by scanning the width).
// Internal: graph.cc wraps them for the C API; execute/validate call them without a call per
// query on the hot path.
#pragma once

#include <algorithm>

#include "hash.h"
#include "taskbench/taskbench.h"

namespace taskbench::pattern {

using Graph = task_graph_t;

inline long min3(long a, long b, long c) { return std::min(a, std::min(b, c)); }

inline long floor_mod(long a, long w) {
  long m = a % w;
  return m < 0 ? m + w : m;
}

inline long ceil_log2(long w) {
  long bits = 0;
  while ((1L << bits) < w) ++bits;
  return bits;
}

// Appends point p to sorted interval list `out` of length n, merging when contiguous.
// Points must arrive in ascending order.
inline long append_point(interval_t* out, long n, long p) {
  if (n > 0 && out[n - 1].end + 1 >= p) {
    out[n - 1].end = std::max(out[n - 1].end, p);
    return n;
  }
  out[n] = interval_t{p, p};
  return n + 1;
}

inline long single(interval_t* out, long lo, long hi, long width) {
  lo = std::max(lo, 0L);
  hi = std::min(hi, width - 1);
  if (lo > hi) return 0;
  out[0] = interval_t{lo, hi};
  return 1;
}

// Sorts a small array of points (stored in out[k].start) and merges it into intervals.
long points_to_intervals(interval_t* out, long n);
long spread_dependencies(const Graph& g, long dset, long i, interval_t* out, bool thin);
long spread_reverse(const Graph& g, long dset, long j, interval_t* out, bool thin);
// Out of line (graph.cc): their eight-lane hashing would otherwise weigh on every pattern's query.
long random_nearest_dependencies(const Graph& g, long dset, long i, interval_t* out);
long random_nearest_reverse(const Graph& g, long dset, long j, interval_t* out);


inline long offset(const Graph& g, long t) {
  return g.dependence == DOM ? std::max(0L, t + g.max_width - g.timesteps) : 0;
}

inline long width(const Graph& g, long t) {
  switch (g.dependence) {
    case DOM: return min3(g.max_width, t + 1, g.timesteps - t);
    case TREE: return t >= 62 ? g.max_width : std::min(g.max_width, 1L << t);
    default: return g.max_width;
  }
}

inline long dependence_sets(const Graph& g) {
  switch (g.dependence) {
    case FFT: return std::max(1L, ceil_log2(g.max_width));
    case SPREAD:
    case RANDOM_NEAREST:
    case RANDOM_SPREAD: return g.period;
    default: return 1;
  }
}

inline long dependence_set(const Graph& g, long t) {
  switch (g.dependence) {
    case FFT: {
      const long sets = dependence_sets(g);
      return (t + sets - 1) % sets;
    }
    case SPREAD:
    case RANDOM_NEAREST:
    case RANDOM_SPREAD: return t % g.period;
    default: return 0;
  }
}

inline bool contains(const Graph& g, long t, long i) {
  if (t < 0 || t >= g.timesteps) return false;
  const long off = offset(g, t);
  return i >= off && i < off + width(g, t);
}

inline long max_intervals(const Graph& g) {
  switch (g.dependence) {
    case STENCIL_1D_PERIODIC: return 2;
    case FFT: return 3;
    case SPREAD:
    case RANDOM_SPREAD:
    case RANDOM_NEAREST: return std::max(1L, g.radix);
    default: return 1;
  }
}

inline long dependencies(const Graph& g, long dset, long i, interval_t* out) {
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
    case RANDOM_NEAREST: return random_nearest_dependencies(g, dset, i, out);
    case RANDOM_SPREAD: return spread_dependencies(g, dset, i, out, true);
  }
  return 0;
}

inline long reverse_dependencies(const Graph& g, long dset, long j, interval_t* out) {
  const long w = g.max_width;
  switch (g.dependence) {
    case TRIVIAL: return 0;
    case NO_COMM: return single(out, j, j, w);
    case STENCIL_1D:
    case STENCIL_1D_PERIODIC:
    case FFT: return dependencies(g, dset, j, out);  // symmetric relations
    case DOM: return single(out, j, j + 1, w);
    case TREE: return single(out, 2 * j, 2 * j + 1, w);
    case ALL_TO_ALL: return single(out, 0, w - 1, w);
    case NEAREST:
      if (g.radix == 0) return 0;
      return single(out, j - (g.radix - 1) / 2, j + g.radix / 2, w);
    case SPREAD: return spread_reverse(g, dset, j, out, false);
    case RANDOM_NEAREST: return random_nearest_reverse(g, dset, j, out);
    case RANDOM_SPREAD: return spread_reverse(g, dset, j, out, true);
  }
  return 0;
}

// Keeps only the parts of `iv` inside row [lo, hi].
inline long clip_to_row(interval_t* iv, long n, long lo, long hi) {
  long m = 0;
  for (long k = 0; k < n; ++k) {
    long a = std::max(iv[k].start, lo), b = std::min(iv[k].end, hi);
    if (a <= b) iv[m++] = interval_t{a, b};
  }
  return m;
}

// Only dom and tree have rows narrower than the width; other rows need no clipping.
inline bool rows_vary(const Graph& g) { return g.dependence == DOM || g.dependence == TREE; }

inline long task_dependencies(const Graph& g, long t, long i, interval_t* out) {
  if (t <= 0 || t >= g.timesteps) return 0;
  const long n = dependencies(g, dependence_set(g, t), i, out);
  if (!rows_vary(g)) return n;
  const long lo = offset(g, t - 1);
  return clip_to_row(out, n, lo, lo + width(g, t - 1) - 1);
}

inline long task_successors(const Graph& g, long t, long j, interval_t* out) {
  if (t < 0 || t + 1 >= g.timesteps) return 0;
  const long n = reverse_dependencies(g, dependence_set(g, t + 1), j, out);
  if (!rows_vary(g)) return n;
  const long lo = offset(g, t + 1);
  return clip_to_row(out, n, lo, lo + width(g, t + 1) - 1);
}

}  // namespace taskbench::pattern
