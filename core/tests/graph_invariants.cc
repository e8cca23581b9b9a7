#include "graph_invariants.h"

#include <algorithm>
#include <climits>

#include "../src/graph_check.h"
#include "spec_patterns.h"

namespace fuzz {
namespace {

using taskbench::Interval;
using taskbench::TaskGraph;

std::string at(long t, long i) { return "(t=" + std::to_string(t) + ", i=" + std::to_string(i) + ")"; }

bool holds(const std::vector<Interval>& iv, long n, long p) {
  for (long k = 0; k < n; ++k)
    if (iv[k].start <= p && p <= iv[k].end) return true;
  return false;
}

// Sorted points as merged intervals.
std::vector<Interval> intervals_of(std::vector<long> points) {
  std::sort(points.begin(), points.end());
  std::vector<Interval> out;
  for (long p : points) {
    if (!out.empty() && p <= out.back().end + 1) out.back().end = std::max(out.back().end, p);
    else out.push_back({p, p});
  }
  return out;
}

// docs/spec.md §1's raw relation of point i for dependence set d as intervals, in 128-bit arithmetic
// where a product can exceed 64 bits (spec_patterns.h lists every point and computes in long,
// which 2^60-wide rows cannot afford). Random patterns only for windows of at most 4096.
bool spec_raw_dependencies(const task_graph_t& g, long d, long i, std::vector<Interval>* out) {
  const long w = g.max_width, r = g.radix;
  auto range = [&](long lo, long hi) {
    lo = std::max(lo, 0L);
    hi = std::min(hi, w - 1);
    return lo > hi ? std::vector<Interval>{} : std::vector<Interval>{{lo, hi}};
  };
  auto spread = [&] {
    std::vector<long> p;
    for (long k = 0; k < r; ++k)
      p.push_back(static_cast<long>((i + static_cast<__int128>(k) * w / r + (k > 0 ? d : 0)) % w));
    return p;
  };
  auto thin = [&](std::vector<long> candidates) {
    std::vector<long> kept;
    for (long j : candidates)
      if (j == i || spec::uniform(spec::seed_of(g), {g.graph_index, r, d, i, j}) < g.fraction_connected) kept.push_back(j);
    return kept;
  };
  switch (g.dependence) {
    case TRIVIAL: *out = {}; return true;
    case NO_COMM: *out = {{i, i}}; return true;
    case STENCIL_1D: *out = range(i - 1, i + 1); return true;
    case STENCIL_1D_PERIODIC: *out = intervals_of({spec::mod(i - 1, w), i, spec::mod(i + 1, w)}); return true;
    case DOM: *out = range(i - 1, i); return true;
    case TREE: *out = {{i / 2, i / 2}}; return true;
    case FFT: {
      std::vector<long> p = {i};
      if (i - (1L << d) >= 0) p.push_back(i - (1L << d));
      if (i + (1L << d) < w) p.push_back(i + (1L << d));
      *out = intervals_of(p);
      return true;
    }
    case ALL_TO_ALL: *out = range(0, w - 1); return true;
    case NEAREST: *out = r == 0 ? std::vector<Interval>{} : range(i - r / 2, i + (r - 1) / 2); return true;
    case SPREAD: *out = intervals_of(spread()); return true;
    case RANDOM_NEAREST: {
      if (r > 4096) return false;
      std::vector<long> window;
      for (const Interval& x : r == 0 ? std::vector<Interval>{} : range(i - r / 2, i + (r - 1) / 2))
        for (long j = x.start; j <= x.end; ++j) window.push_back(j);
      *out = intervals_of(thin(window));
      return true;
    }
    case RANDOM_SPREAD:
      if (r > 4096) return false;
      *out = intervals_of(thin(spread()));
      return true;
  }
  return false;
}

bool same(const std::vector<Interval>& a, const Interval* b, long n) {
  if (static_cast<long>(a.size()) != n) return false;
  for (long k = 0; k < n; ++k)
    if (a[k].start != b[k].start || a[k].end != b[k].end) return false;
  return true;
}

class Checker {
 public:
  Checker(const TaskGraph& g, Random& r)
      : g_(g),
        r_(r),
        deps_(static_cast<size_t>(g.max_intervals())),
        other_(deps_.size()),
        raw_(deps_.size()) {
    // Lists of up to 2^20 intervals (spread with the largest radix) make each query cost a
    // sort of that many points: sample less there, so the whole run stays within seconds.
    expensive_ = g.max_intervals() > 64 || (g.pattern() == RANDOM_NEAREST && g.raw().radix > 64);
  }

  std::vector<std::string> run() {
    check_shape();
    for (long t : sample_rows()) {
      check_row(t);
      for (long i : sample_row_points(t)) check_point(t, i);
    }
    const bool small = g_.max_width() <= 24 && g_.timesteps() * g_.max_width() <= 128;
    if (small && g_.raw().radix <= 64) check_against_spec();
    return problems_;
  }

 private:
  void fail(const std::string& what) {
    if (problems_.size() < 5) problems_.push_back("graph " + g_.describe() + ": " + what);
  }

  void check_shape() {
    if (g_.timesteps() < 1 || g_.max_width() < 1) fail("empty shape");
    if (g_.dependence_sets() < 1) fail("dependence_sets() < 1");
    if (g_.max_intervals() < 1) fail("max_intervals() < 1");
    if (g_.max_dependencies() < 0 || g_.max_dependencies() > g_.max_width())
      fail("max_dependencies() outside 0..width");
  }

  std::vector<long> sample_rows() {
    const long T = g_.timesteps(), W = g_.max_width();
    std::vector<long> rows = {0, 1, 2, T - 1, T - 2, T / 2, 61, 62, 63, 64, T - W, T - W + 1, W - 1,
                              static_cast<long>(r_.below(static_cast<uint64_t>(T))),
                              static_cast<long>(r_.below(static_cast<uint64_t>(T)))};
    for (long p = g_.dependence_sets(), k = 1; k <= 2; ++k) rows.push_back(k * p);
    return keep_sorted_unique(rows, 0, T - 1, expensive_ ? 2 : rows.size());
  }

  std::vector<long> sample_row_points(long t) {
    const long lo = g_.offset(t), n = g_.width(t);
    std::vector<long> points = {lo, lo + 1, lo + n - 1, lo + n - 2, lo + n / 2,
                                lo + static_cast<long>(r_.below(static_cast<uint64_t>(n)))};
    return keep_sorted_unique(points, lo, lo + n - 1, expensive_ ? 2 : points.size());
  }

  // Points of an interval list to follow: both ends and a random one of a few intervals.
  std::vector<long> sample_list(const std::vector<Interval>& iv, long n) {
    std::vector<long> points;
    const long per_end = expensive_ ? 1 : 3;
    for (long k = 0; k < n; ++k) {
      if (k >= per_end && k < n - per_end) continue;
      const Interval& x = iv[k];
      points.push_back(x.start);
      points.push_back(x.end);
      points.push_back(x.start + static_cast<long>(r_.below(static_cast<uint64_t>(x.end - x.start) + 1)));
    }
    return keep_sorted_unique(points, LONG_MIN, LONG_MAX, points.size());
  }

  static std::vector<long> keep_sorted_unique(std::vector<long> v, long lo, long hi, size_t most) {
    v.erase(std::remove_if(v.begin(), v.end(), [&](long x) { return x < lo || x > hi; }), v.end());
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    if (v.size() > most) v.resize(most);
    return v;
  }

  // Sorted, disjoint (not even adjacent: they would have been merged), inside [lo, hi]. The
  // list is `what` of task (t, i); the message is built only on failure (this runs millions
  // of times).
  bool check_list(const std::vector<Interval>& iv, long n, long lo, long hi, const char* what, long t,
                  long i) {
    if (n < 0 || n > g_.max_intervals()) {
      fail(what + at(t, i) + ": " + std::to_string(n) + " intervals, max_intervals() is " +
           std::to_string(g_.max_intervals()));
      return false;
    }
    for (long k = 0; k < n; ++k) {
      const Interval& x = iv[k];
      if (x.start > x.end || x.start < lo || x.end > hi || (k > 0 && x.start <= iv[k - 1].end + 1)) {
        fail(what + at(t, i) + ": interval " + std::to_string(x.start) + "-" + std::to_string(x.end) +
             " is unsorted, overlapping or outside " + std::to_string(lo) + "-" + std::to_string(hi));
        return false;
      }
    }
    return true;
  }

  void check_row(long t) {
    const long off = g_.offset(t), n = g_.width(t), T = g_.timesteps();
    if (off < 0 || n < 1 || off > g_.max_width() - n) {
      fail("row " + std::to_string(t) + " is offset " + std::to_string(off) + ", width " + std::to_string(n));
      return;
    }
    const long d = g_.dependence_set(t);
    if (d < 0 || d >= g_.dependence_sets()) fail("dependence_set(" + std::to_string(t) + ") out of range");
    if (off != spec::offset_at(g_.raw(), t) || n != spec::width_at(g_.raw(), t) ||
        d != spec::dset_at(g_.raw(), t))
      fail("row " + std::to_string(t) + " differs from the spec");
    if (!g_.contains(t, off) || !g_.contains(t, off + n - 1) || g_.contains(t, off - 1) ||
        g_.contains(t, off + n) || g_.contains(-1, off) || g_.contains(T, off))
      fail("contains() disagrees with row " + std::to_string(t) + "'s offset and width");
  }

  void check_point(long t, long i) {
    const long T = g_.timesteps(), W = g_.max_width();
    if (g_.flops_per_task(t, i) < 0 || g_.bytes_per_task(t, i) < 0) fail("negative count at " + at(t, i));
    // Raw relation of the row's dependence set: within 0..W-1, and a superset of the inputs.
    long n = g_.dependencies(g_.dependence_set(t), i, raw_.data());
    if (!check_list(raw_, n, 0, W - 1, "dependencies of ", t, i)) return;
    if (spec_raw_dependencies(g_.raw(), g_.dependence_set(t), i, &want_) && !same(want_, raw_.data(), n))
      fail("dependencies of " + at(t, i) + " differ from the spec");
    if (taskbench::count_points(raw_.data(), n) > g_.max_dependencies())
      fail("dependencies of " + at(t, i) + " exceed max_dependencies()");
    const long raw_n = n;

    n = g_.task_dependencies(t, i, deps_.data());
    if (t == 0 && n != 0) fail("task " + at(t, i) + " of the first row has inputs");
    if (t > 0) {
      const long lo = g_.offset(t - 1), hi = lo + g_.width(t - 1) - 1;
      if (!check_list(deps_, n, lo, hi, "inputs in row t-1 of ", t, i)) return;
      for (long j : sample_list(deps_, n)) {
        if (!holds(raw_, raw_n, j))
          fail("input " + at(t - 1, j) + " of " + at(t, i) + " is not in its raw dependencies");
        const long m = g_.task_successors(t - 1, j, other_.data());
        if (!check_list(other_, m, g_.offset(t), g_.offset(t) + g_.width(t) - 1, "successors of ", t - 1, j))
          continue;
        if (!holds(other_, m, i)) fail(at(t, i) + " depends on " + at(t - 1, j) + " but is not among its successors");
      }
    }

    n = g_.task_successors(t, i, deps_.data());
    if (t == T - 1 && n != 0) fail("task " + at(t, i) + " of the last row has successors");
    if (t + 1 < T) {
      const long lo = g_.offset(t + 1), hi = lo + g_.width(t + 1) - 1;
      if (!check_list(deps_, n, lo, hi, "successors in row t+1 of ", t, i)) return;
      for (long k : sample_list(deps_, n)) {
        const long m = g_.task_dependencies(t + 1, k, other_.data());
        if (!holds(other_, m, i)) fail(at(t + 1, k) + " is a successor of " + at(t, i) + " but does not depend on it");
      }
      const long m = g_.reverse_dependencies(g_.dependence_set(t + 1), i, other_.data());
      check_list(other_, m, 0, W - 1, "reverse dependencies of ", t, i);
    }
  }

  // Every task of a small graph against the brute-force definition, and the core's own check.
  void check_against_spec() {
    const task_graph_t& raw = g_.raw();
    const std::string problem = taskbench::check_graph_consistency(g_);
    if (!problem.empty()) fail("graph check: " + problem);
    auto points = [](const std::vector<Interval>& iv, long n) {
      spec::Points p;
      for (long k = 0; k < n; ++k)
        for (long x = iv[k].start; x <= iv[k].end; ++x) p.push_back(x);
      return p;
    };
    for (long t = 0; t < g_.timesteps(); ++t) {
      if (g_.offset(t) != spec::offset_at(raw, t) || g_.width(t) != spec::width_at(raw, t))
        fail("row " + std::to_string(t) + " differs from the spec");
      for (long i = g_.offset(t); i < g_.offset(t) + g_.width(t); ++i) {
        if (points(deps_, g_.task_dependencies(t, i, deps_.data())) != spec::task_dependencies(raw, t, i))
          fail("inputs of " + at(t, i) + " differ from the spec");
        if (points(deps_, g_.task_successors(t, i, deps_.data())) != spec::task_successors(raw, t, i))
          fail("successors of " + at(t, i) + " differ from the spec");
      }
    }
  }

  const TaskGraph& g_;
  Random& r_;
  // Exactly max_intervals() long: a query writing past its bound is a heap overflow for ASan.
  std::vector<Interval> deps_, other_, raw_, want_;
  bool expensive_ = false;
  std::vector<std::string> problems_;
};

}  // namespace

std::vector<std::string> check_graph_invariants(const TaskGraph& g, Random& random) {
  return Checker(g, random).run();
}

}  // namespace fuzz
