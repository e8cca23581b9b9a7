// Every pattern against the brute-force definition of docs/spec.md §1 (spec_patterns.h), on a grid of
// widths 1..17, steps 1..9, radix 0..9, period 1..4 and fraction 0, 0.5, 1.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "graph_grid.h"
#include "spec_patterns.h"
#include "taskbench/task_graph.h"

namespace {

using namespace taskbench_test;
using taskbench::Interval;
using taskbench::TaskGraph;

// The points of an interval list, checking it is sorted, disjoint and not adjacent.
spec::Points points(const std::vector<Interval>& iv, long n, const std::string& where) {
  spec::Points p;
  for (long k = 0; k < n; ++k) {
    EXPECT_LE(iv[k].start, iv[k].end) << where;
    if (k > 0) {
      EXPECT_GT(iv[k].start, iv[k - 1].end + 1) << where << ": unmerged intervals";
    }
    for (long x = iv[k].start; x <= iv[k].end; ++x) p.push_back(x);
  }
  return p;
}

class Patterns : public ::testing::TestWithParam<dependence_type_t> {};

TEST_P(Patterns, RawRelationAndItsInverseMatchTheSpec) {
  for_each_graph(GetParam(), 1, [](const task_graph_t& raw) {
    TaskGraph g(raw);
    std::vector<Interval> iv(g.max_intervals());
    EXPECT_EQ(g.dependence_sets(), spec::dependence_sets(raw)) << name(raw);
    for (long d = 0; d < g.dependence_sets(); ++d)
      for (long i = 0; i < g.max_width(); ++i) {
        const std::string where = name(raw) + " dset=" + std::to_string(d) + " i=" + std::to_string(i);
        spec::Points want = spec::in_range(spec::dependencies(raw, d, i), 0, g.max_width() - 1);
        EXPECT_EQ(points(iv, g.dependencies(d, i, iv.data()), where), want) << where;
        EXPECT_LE(static_cast<long>(want.size()), g.max_dependencies()) << where;
        spec::Points inverse;  // every point whose dependencies contain i
        for (long c = 0; c < g.max_width(); ++c) {
          spec::Points dc = spec::in_range(spec::dependencies(raw, d, c), 0, g.max_width() - 1);
          if (std::binary_search(dc.begin(), dc.end(), i)) inverse.push_back(c);
        }
        EXPECT_EQ(points(iv, g.reverse_dependencies(d, i, iv.data()), where), inverse) << where;
      }
  });
}

TEST_P(Patterns, ShapesAndClippedTaskRelationsMatchTheSpec) {
  for_each_graph(GetParam(), 9, [](const task_graph_t& raw) {
    TaskGraph g(raw);
    std::vector<Interval> iv(g.max_intervals());
    for (long t = 0; t < g.timesteps(); ++t) {
      ASSERT_EQ(g.offset(t), spec::offset_at(raw, t)) << name(raw) << " t=" << t;
      ASSERT_EQ(g.width(t), spec::width_at(raw, t)) << name(raw) << " t=" << t;
      ASSERT_EQ(g.dependence_set(t), spec::dset_at(raw, t)) << name(raw) << " t=" << t;
      for (long i = 0; i < g.max_width(); ++i) {
        const bool inside = i >= g.offset(t) && i < g.offset(t) + g.width(t);
        ASSERT_EQ(g.contains(t, i), inside);
        if (!inside) continue;
        const std::string where = name(raw) + " t=" + std::to_string(t) + " i=" + std::to_string(i);
        EXPECT_EQ(points(iv, g.task_dependencies(t, i, iv.data()), where),
                  spec::task_dependencies(raw, t, i)) << where;
        EXPECT_EQ(points(iv, g.task_successors(t, i, iv.data()), where),
                  spec::task_successors(raw, t, i)) << where;
      }
    }
  });
}

INSTANTIATE_TEST_SUITE_P(AllPatterns, Patterns, ::testing::ValuesIn(kAll),
                         [](const auto& info) { return std::string(taskbench::pattern_name(info.param)); });

TEST(Patterns, RandomPatternsDependOnFractionAndSeed) {
  // fraction 0 keeps only i itself; fraction 1 keeps the whole window; the seed changes the graph.
  task_graph_t none = make(RANDOM_NEAREST, 64, 4, 9, 2, 0.0), all = none, half = none;
  all.fraction_connected = 1.0;
  half.fraction_connected = 0.5;
  TaskGraph gn(none), ga(all), gh(half);
  std::vector<Interval> iv(9);
  long kept_half = 0, differs = 0;
  std::vector<spec::Points> seed7;
  for (long i = 0; i < 64; ++i) seed7.push_back(spec::dependencies(half, 0, i));
  taskbench_set_graph_seed(half.graph_index, 8);
  for (long i = 0; i < 64; ++i) differs += spec::dependencies(half, 0, i) != seed7[i];
  taskbench_set_graph_seed(half.graph_index, 7);
  for (long i = 0; i < 64; ++i) {
    EXPECT_EQ(taskbench::count_points(iv.data(), gn.dependencies(0, i, iv.data())), 1);
    EXPECT_EQ(taskbench::count_points(iv.data(), ga.dependencies(0, i, iv.data())),
              std::min(63L, i + 4) - std::max(0L, i - 4) + 1);
    kept_half += taskbench::count_points(iv.data(), gh.dependencies(0, i, iv.data()));
  }
  EXPECT_GT(kept_half, 64 * 3);  // about 64 + 0.5 * 8 * 64 minus the edges
  EXPECT_LT(kept_half, 64 * 7);
  EXPECT_GT(differs, 10);
}

// Bug found by the fuzz test (fuzz_flags): spread formed k * W before dividing by r, which
// overflows a long for W near 2^60 (undefined behaviour; wrong points in practice).
TEST(Patterns, SpreadIsExactAtTheLargestWidth) {
  for (dependence_type_t p : {SPREAD, RANDOM_SPREAD}) {
    const long w = (1L << 60) - 1, r = 1000, dset = 2;
    task_graph_t g = make(p, w, 3, r, 3, 1.0);
    TaskGraph graph(g);
    std::vector<Interval> deps(graph.max_intervals()), back(graph.max_intervals());
    for (long i : {0L, 1L, w / 2, w - 1}) {
      std::vector<long> want;
      for (long k = 0; k < r; ++k) {
        const __int128 step = static_cast<__int128>(k) * w / r;
        want.push_back(static_cast<long>((i + step + (k > 0 ? dset : 0)) % w));
      }
      std::sort(want.begin(), want.end());
      std::vector<long> got;
      const long n = graph.dependencies(dset, i, deps.data());
      for (long k = 0; k < n; ++k)
        for (long j = deps[k].start; j <= deps[k].end; ++j) got.push_back(j);
      EXPECT_EQ(got, want) << taskbench::pattern_name(p) << " i=" << i;
      for (long j : want) {  // and i is among the successors of each of them
        const long m = graph.reverse_dependencies(dset, j, back.data());
        bool found = false;
        for (long k = 0; k < m; ++k) found = found || (back[k].start <= i && i <= back[k].end);
        EXPECT_TRUE(found) << taskbench::pattern_name(p) << " i=" << i << " j=" << j;
      }
    }
  }
}

}  // namespace
