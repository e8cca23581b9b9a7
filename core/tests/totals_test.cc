// Exact totals for hand-computed cases (docs/spec.md §2 counts, docs/spec.md §5 totals).
#include <gtest/gtest.h>

#include <cmath>

#include "../src/totals.h"
#include "taskbench/task_graph.h"

namespace {

using taskbench::TaskGraph;

task_graph_t graph(dependence_type_t p, long steps, long width) {
  task_graph_t g{};
  g.timesteps = steps;
  g.max_width = width;
  g.dependence = p;
  g.radix = 3;
  g.period = 3;
  g.fraction_connected = 0.25;
  g.kernel = kernel_t{EMPTY, 0, 16, 0};
  g.output_bytes_per_task = 16;
  return g;
}

taskbench::GraphTotals totals(const task_graph_t& g, long nodes = 1) {
  return taskbench::compute_totals({TaskGraph(g)}, nodes).sum;
}

TEST(Totals, HandComputedTasksAndDependencies) {
  EXPECT_EQ(totals(graph(STENCIL_1D, 4, 4)).tasks, 16);
  EXPECT_EQ(totals(graph(STENCIL_1D, 4, 4)).dependencies, 30);  // 3 rows x (2+3+3+2)
  EXPECT_EQ(totals(graph(TRIVIAL, 4, 4)).dependencies, 0);
  EXPECT_EQ(totals(graph(NO_COMM, 4, 4)).dependencies, 12);
  EXPECT_EQ(totals(graph(ALL_TO_ALL, 3, 4)).dependencies, 32);
  EXPECT_EQ(totals(graph(STENCIL_1D_PERIODIC, 3, 5)).dependencies, 30);
  // tree: widths 1, 2, 4, 8 -> 15 tasks, each task after the first has one input.
  EXPECT_EQ(totals(graph(TREE, 4, 8)).tasks, 15);
  EXPECT_EQ(totals(graph(TREE, 4, 8)).dependencies, 14);
  // dom, 4 x 4: rows {0}, {1,2}, {2,3}, {3}. Inputs: (1,1) <- 0, (1,2) <- none,
  // (2,2) <- 1,2, (2,3) <- 2, (3,3) <- 2,3.
  EXPECT_EQ(totals(graph(DOM, 4, 4)).tasks, 6);
  EXPECT_EQ(totals(graph(DOM, 4, 4)).dependencies, 1 + 0 + 2 + 1 + 2);
  // fft, width 4: dset(1) = 0 (stride 1): 2+3+3+2; dset(2) = 1 (stride 2): 2 each.
  EXPECT_EQ(totals(graph(FFT, 3, 4)).dependencies, 10 + 8);
  task_graph_t nearest = graph(NEAREST, 2, 8);
  nearest.radix = 5;
  EXPECT_EQ(totals(nearest).dependencies, 3 + 4 + 5 * 4 + 4 + 3);
}

TEST(Totals, LocalDependenciesFollowTheColumnBlocks) {
  // stencil 4 x 4 on 2 nodes: each row has 2 edges crossing the block boundary.
  auto s = taskbench::compute_totals({TaskGraph(graph(STENCIL_1D, 4, 4))}, 2);
  EXPECT_TRUE(s.local_estimated);
  EXPECT_EQ(s.sum.dependencies - s.sum.local_dependencies, 3 * 2);
  EXPECT_FALSE(taskbench::compute_totals({TaskGraph(graph(STENCIL_1D, 4, 5))}, 2).local_estimated);
}

TEST(Totals, KernelCounts) {
  task_graph_t g = graph(STENCIL_1D, 4, 4);
  g.kernel = kernel_t{COMPUTE_BOUND, 10, 16, 0};
  EXPECT_EQ(TaskGraph(g).flops_per_task(0, 0), 1344);  // 128 * 10 + 64
  EXPECT_EQ(totals(g).flops, 16 * 1344);
  g.kernel = kernel_t{COMPUTE_BOUND2, 10, 16, 0};
  EXPECT_EQ(totals(g).flops, 16 * 640);
  g.kernel = kernel_t{MEMORY_BOUND, 10, 16, 0};
  g.scratch_bytes_per_task = 4096;
  EXPECT_EQ(totals(g).bytes, 16 * 4096 * 10 / 16);
  EXPECT_EQ(totals(g).flops, 0);
  g.kernel = kernel_t{MEMORY_DAXPY, 3, 8, 0};
  EXPECT_EQ(totals(g).bytes, 16 * 4096 * 3 / 8);
  g.kernel = kernel_t{COMPUTE_DGEMM, 2, 16, 0};
  g.scratch_bytes_per_task = 24 * 100 + 23;  // N = 10
  EXPECT_EQ(totals(g).flops, 16 * 2 * 1000 * 2);
  g.kernel = kernel_t{IO_BOUND, 5, 16, 0};
  EXPECT_EQ(totals(g).bytes, 16 * 2 * 4096 * 5);
  g.kernel = kernel_t{BUSY_WAIT, 1000, 16, 0};
  EXPECT_EQ(totals(g).flops, 0);
  EXPECT_EQ(totals(g).bytes, 0);
}

TEST(Totals, LoadImbalanceIsDeterministicAndSpreadAsSpecified) {
  task_graph_t g = graph(STENCIL_1D, 50, 40);
  g.kernel = kernel_t{LOAD_IMBALANCE, 1000, 16, 1.0};
  TaskGraph tg(g);
  long long sum = 0;
  long lo = 1L << 40, hi = 0;
  for (long t = 0; t < 50; ++t)
    for (long i = 0; i < 40; ++i) {
      const long long f = tg.flops_per_task(t, i);
      EXPECT_EQ((f - 64) % 128, 0);
      const long its = (f - 64) / 128;
      lo = std::min(lo, its);
      hi = std::max(hi, its);
      sum += f;
    }
  EXPECT_EQ(totals(g).flops, sum);
  // (1 + (u - 0.5) * 1.0) * 1000 with u in [0, 1): iterations within [500, 1500].
  EXPECT_GE(lo, 500);
  EXPECT_LE(hi, 1500);
  EXPECT_LT(lo, 550);
  EXPECT_GT(hi, 1450);
  g.kernel.imbalance = 0;
  EXPECT_EQ(totals(g).flops, 50 * 40 * (128 * 1000 + 64));
}

}  // namespace
