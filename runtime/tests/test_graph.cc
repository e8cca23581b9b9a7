// Persistent graphs: build once, replay many times.
#include <gtest/gtest.h>

#include <stdexcept>

#include "tbrt/runtime.h"
#include "test_util.h"

namespace {

std::string ParamName(const ::testing::TestParamInfo<std::tuple<int, tbrt::QueueMode>>& info) {
  return std::to_string(std::get<0>(info.param)) + "workers_" +
         (std::get<1>(info.param) == tbrt::QueueMode::kLifo ? "lifo" : "fifo");
}

using tbrt_test::Tracker;

// A Task Bench-like stencil: node (t, x) depends on (t-1, x-1..x+1).
tbrt::Graph stencil(Tracker& tr, int steps, int width,
                    std::vector<std::pair<std::uint32_t, std::uint32_t>>& edges) {
  tbrt::Graph g;
  for (int t = 0; t < steps; ++t)
    for (int x = 0; x < width; ++x) g.add(&Tracker::body, &tr, t * width + x, 0, steps - t);
  for (int t = 1; t < steps; ++t)
    for (int x = 0; x < width; ++x)
      for (int dx = -1; dx <= 1; ++dx)
        if (x + dx >= 0 && x + dx < width) {
          std::uint32_t from = std::uint32_t((t - 1) * width + x + dx), to = std::uint32_t(t * width + x);
          g.add_edge(from, to);
          edges.emplace_back(from, to);
        }
  return g;
}

void check_run(const Tracker& tr, int expected_runs,
               const std::vector<std::pair<std::uint32_t, std::uint32_t>>& edges) {
  for (std::size_t k = 0; k < tr.runs.size(); ++k)
    ASSERT_EQ(tr.runs[k].load(), expected_runs) << "task " << k;
  for (const auto& e : edges)
    ASSERT_LT(tr.end[e.first].load(), tr.start[e.second].load())
        << "edge " << e.first << " -> " << e.second;
}

class GraphReplay : public ::testing::TestWithParam<std::tuple<int, tbrt::QueueMode>> {};

TEST_P(GraphReplay, HundredRunsEachTaskOnceInOrder) {
  tbrt::Options opt;
  opt.num_workers = std::get<0>(GetParam());
  opt.queue = std::get<1>(GetParam());
  tbrt::Runtime rt(opt);
  const int steps = tbrt_test::scaled(50, 10), width = 8;
  Tracker tr(std::size_t(steps * width));
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
  tbrt::Graph g = stencil(tr, steps, width, edges);
  for (int r = 1; r <= 100; ++r) {
    rt.run(g);
    check_run(tr, r, edges);
  }
}

INSTANTIATE_TEST_SUITE_P(Workers, GraphReplay,
                         ::testing::Combine(::testing::Values(1, 2, 4),
                                            ::testing::Values(tbrt::QueueMode::kLifo,
                                                              tbrt::QueueMode::kFifo)),
                         ParamName);

TEST(Graph, ClosuresAndRandomDag) {
  tbrt::Options opt;
  opt.num_workers = 3;
  tbrt::Runtime rt(opt);
  const std::uint32_t n = 2000;
  Tracker tr(n);
  tbrt::Graph g;
  for (std::uint32_t k = 0; k < n; ++k)
    g.add_closure([&tr, k] { tr.begin(k); tr.finish(k); });
  auto edges = tbrt_test::random_dag(n, 4, 50, 7);
  for (const auto& e : edges) g.add_edge(e.first, e.second);
  for (int r = 1; r <= 10; ++r) {
    rt.run(g);
    check_run(tr, r, edges);
  }
}

TEST(Graph, EmptyGraphAndRebuild) {
  tbrt::Runtime rt(tbrt::Options{});
  tbrt::Graph g;
  rt.run(g);  // nothing to do, must not hang
  Tracker tr(3);
  auto a = g.add(&Tracker::body, &tr, 0);
  rt.run(g);
  auto b = g.add(&Tracker::body, &tr, 1);  // changing a graph re-finalizes it
  auto c = g.add(&Tracker::body, &tr, 2);
  g.add_edge(a, b);
  g.add_edge(a, c);
  g.add_edge(b, c);
  g.add_edge(b, c);  // duplicate edges are fine
  rt.run(g);
  EXPECT_EQ(tr.runs[0].load(), 2);
  EXPECT_EQ(tr.runs[1].load(), 1);
  EXPECT_LT(tr.end[1].load(), tr.start[2].load());
}

TEST(Graph, CycleIsRejected) {
  tbrt::Graph g;
  auto a = g.add(&Tracker::body), b = g.add(&Tracker::body), c = g.add(&Tracker::body);
  g.add_edge(a, b);
  g.add_edge(b, c);
  g.add_edge(c, b);
  EXPECT_THROW(g.finalize(), std::invalid_argument);
  EXPECT_THROW(g.add_edge(a, 7), std::invalid_argument);
}

TEST(Graph, TwoGraphsInFlight) {
  tbrt::Options opt;
  opt.num_workers = 2;
  tbrt::Runtime rt(opt);
  Tracker t1(100), t2(100);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> e1, e2;
  tbrt::Graph g1 = stencil(t1, 10, 10, e1), g2 = stencil(t2, 10, 10, e2);
  for (int r = 1; r <= 20; ++r) {
    rt.submit(g1);
    rt.submit(g2);
    rt.wait();
    check_run(t1, r, e1);
    check_run(t2, r, e2);
  }
}

// A node body may spawn dynamic tasks; wait() covers them too.
TEST(Graph, NodesSpawnDynamicTasks) {
  tbrt::Options opt;
  opt.num_workers = 2;
  tbrt::Runtime rt(opt);
  std::atomic<int> leaves{0};
  struct Ctx {
    tbrt::Runtime* rt;
    std::atomic<int>* leaves;
  } ctx{&rt, &leaves};
  tbrt::Graph g;
  for (int k = 0; k < 50; ++k)
    g.add([](void* p, std::int64_t, std::int64_t) {
      auto* c = static_cast<Ctx*>(p);
      for (int m = 0; m < 4; ++m) c->rt->spawn([c] { c->leaves->fetch_add(1); });
    }, &ctx);
  for (int r = 1; r <= 10; ++r) {
    rt.run(g);
    ASSERT_EQ(leaves.load(), 200 * r);
  }
}

}  // namespace
