// Homed nodes (Graph::add's home): run by their home worker, in order, with readiness
// polled from the predecessors' completion words; mixed freely with unhomed nodes.
//
// Bodies compute a plain (non-atomic) dataflow value from their predecessors' values, so a
// missing happens-before edge is a wrong value here and a report under ThreadSanitizer.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <vector>

#include "tbrt/runtime.h"
#include "test_util.h"

namespace {

using Edges = std::vector<std::pair<std::uint32_t, std::uint32_t>>;
using tbrt_test::stencil_edges;

struct Dataflow {
  Dataflow(std::uint32_t n, const Edges& edges, const tbrt::Runtime& rt)
      : preds(n), value(n, 0), worker(n), rt(rt) {
    for (const auto& e : edges) preds[e.second].push_back(e.first);
  }
  std::vector<std::vector<std::uint32_t>> preds;
  std::vector<std::uint64_t> value;  // plain: ordered by the runtime or racy
  std::vector<std::atomic<int>> worker;
  const tbrt::Runtime& rt;

  static void body(void* arg, std::int64_t k, std::int64_t) {
    auto& d = *static_cast<Dataflow*>(arg);
    std::uint64_t v = std::uint64_t(k) + 1;
    for (std::uint32_t p : d.preds[std::size_t(k)]) v += d.value[p] * 3 + 1;
    d.value[std::size_t(k)] = v;
    d.worker[std::size_t(k)].store(d.rt.worker_id(), std::memory_order_relaxed);
  }
  // The same values computed one node at a time (edges go from lower to higher ids).
  std::vector<std::uint64_t> expected() const {
    std::vector<std::uint64_t> e(value.size());
    for (std::size_t k = 0; k < e.size(); ++k) {
      e[k] = k + 1;
      for (std::uint32_t p : preds[k]) e[k] += e[p] * 3 + 1;
    }
    return e;
  }
};

class Homes : public ::testing::TestWithParam<int> {};

// Every column homed on a worker (contiguous blocks, as the native system does); homes
// beyond the worker count wrap around. Each node runs on its home, after its inputs.
TEST_P(Homes, StencilRunsOnHomesInOrder) {
  tbrt::Options opt;
  opt.num_workers = GetParam();
  tbrt::Runtime rt(opt);
  const int steps = tbrt_test::scaled(200, 40), width = 6, homes = 3;
  const Edges edges = stencil_edges(steps, width);
  Dataflow d(std::uint32_t(steps * width), edges, rt);
  tbrt::Graph g;
  for (int t = 0; t < steps; ++t)
    for (int x = 0; x < width; ++x) g.add(&Dataflow::body, &d, t * width + x, 0, 0, x * homes / width);
  for (const auto& e : edges) g.add_edge(e.first, e.second);
  const std::vector<std::uint64_t> want = d.expected();
  for (int r = 0; r < 20; ++r) {
    std::fill(d.value.begin(), d.value.end(), 0);
    rt.run(g);
    ASSERT_EQ(d.value, want) << "replay " << r;
    for (int k = 0; k < steps * width; ++k)
      ASSERT_EQ(d.worker[std::size_t(k)].load(), (k % width) * homes / width % opt.num_workers)
          << "node " << k;
  }
}

INSTANTIATE_TEST_SUITE_P(Workers, Homes, ::testing::Values(1, 2, 3, 8),
                         [](const auto& info) { return std::to_string(info.param) + "workers"; });

// Random DAGs where each node is homed on one of 5 homes or unhomed (-1), on 8 workers
// (oversubscribed here): pushes and polls meet in both directions.
TEST(Homes, MixedRandomDag) {
  tbrt::Options opt;
  opt.num_workers = 8;
  tbrt::Runtime rt(opt);
  const auto n = std::uint32_t(tbrt_test::scaled(50000, 5000));
  const Edges edges = tbrt_test::random_dag(n, 3, 200, 7);
  Dataflow d(n, edges, rt);
  std::vector<int> home(n);
  tbrt::Graph g;
  for (std::uint32_t k = 0; k < n; ++k) {
    home[k] = int((k * 2654435761u) >> 16) % 6 - 1;
    g.add(&Dataflow::body, &d, k, 0, int(k % 4), home[k]);
  }
  for (const auto& e : edges) g.add_edge(e.first, e.second);
  const std::vector<std::uint64_t> want = d.expected();
  for (int r = 0; r < tbrt_test::scaled(4, 2); ++r) {
    std::fill(d.value.begin(), d.value.end(), 0);
    rt.run(g);
    ASSERT_EQ(d.value, want) << "replay " << r;
    for (std::uint32_t k = 0; k < n; ++k)
      if (home[k] >= 0) {
        ASSERT_EQ(d.worker[k].load(), home[k]) << "node " << k;
      }
  }
}

// Homed graphs in flight together (as native runs -and graphs): each keeps its order.
TEST(Homes, SeveralGraphsInFlight) {
  tbrt::Options opt;
  opt.num_workers = 2;
  tbrt::Runtime rt(opt);
  const int steps = 30, width = 4;
  const Edges edges = stencil_edges(steps, width);
  std::vector<std::unique_ptr<Dataflow>> flows;
  std::vector<tbrt::Graph> graphs(5);
  for (std::size_t k = 0; k < graphs.size(); ++k) {
    flows.push_back(std::make_unique<Dataflow>(std::uint32_t(steps * width), edges, rt));
    for (int t = 0; t < steps; ++t)
      for (int x = 0; x < width; ++x)
        graphs[k].add(&Dataflow::body, flows[k].get(), t * width + x, 0, 0,
                      k % 2 ? x % 2 : -1);  // every other graph unhomed
    for (const auto& e : edges) graphs[k].add_edge(e.first, e.second);
  }
  const std::vector<std::uint64_t> want = flows[0]->expected();
  for (int r = 0; r < 30; ++r) {
    for (auto& g : graphs) rt.submit(g);
    rt.wait();
    for (auto& f : flows) ASSERT_EQ(f->value, want) << "replay " << r;
  }
}

// One period of a stencil (two rows, double-buffered as Task Bench's columns are) replayed
// to the end in one submit: with no barrier between replays only the carried edges keep a row
// from reading a slot before its producer wrote it or after the row after overwrote it. Each
// cell carries its row, so a read of the wrong row is counted; plain (non-atomic) cells make a
// missing happens-before edge a ThreadSanitizer report too.
struct Periodic {
  struct Cell {
    std::int64_t t = -1;
    std::uint64_t v = 0;
  };
  Periodic(int steps, int width) : width(width), slot(2 * std::size_t(width)), out(std::size_t(steps * width)) {}
  int width;
  std::vector<Cell> slot;         // slot[(t % 2) * width + x]
  std::vector<std::uint64_t> out; // every row's values, for the check
  std::atomic<int> bad{0};

  static void body(void* arg, std::int64_t t, std::int64_t x) {
    auto& p = *static_cast<Periodic*>(arg);
    std::uint64_t v = std::uint64_t(t * 7 + x);
    for (std::int64_t y = std::max<std::int64_t>(0, x - 1); t > 0 && y <= std::min<std::int64_t>(p.width - 1, x + 1); ++y) {
      const Cell& c = p.slot[std::size_t(((t - 1) % 2) * p.width + y)];
      if (c.t != t - 1) p.bad.fetch_add(1, std::memory_order_relaxed);
      v += c.v * 3 + 1;
    }
    p.slot[std::size_t((t % 2) * p.width + x)] = {t, v};
    p.out[std::size_t(t * p.width + x)] = v;
  }
  std::vector<std::uint64_t> expected(int steps) const {
    std::vector<std::uint64_t> e(std::size_t(steps * width));
    for (int t = 0; t < steps; ++t)
      for (int x = 0; x < width; ++x) {
        std::uint64_t v = std::uint64_t(t * 7 + x);
        for (int y = std::max(0, x - 1); t > 0 && y <= std::min(width - 1, x + 1); ++y)
          v += e[std::size_t((t - 1) * width + y)] * 3 + 1;
        e[std::size_t(t * width + x)] = v;
      }
    return e;
  }
  // Rows 0 and 1 of the period, column x homed on x * homes / width; carried edges from
  // row 1 (the replay before) to row 0.
  tbrt::Graph period(int homes) {
    tbrt::Graph g;
    for (int r = 0; r < 2; ++r)
      for (int x = 0; x < width; ++x) g.add(&Periodic::body, this, r, x, 0, x * homes / width);
    for (int x = 0; x < width; ++x)
      for (int y = std::max(0, x - 1); y <= std::min(width - 1, x + 1); ++y) {
        g.add_edge(tbrt::Graph::NodeId(y), tbrt::Graph::NodeId(width + x));
        g.add_carried_edge(tbrt::Graph::NodeId(width + y), tbrt::Graph::NodeId(x));
      }
    return g;
  }
};

TEST_P(Homes, ReplaysSubmittedTogether) {
  tbrt::Options opt;
  opt.num_workers = GetParam();
  tbrt::Runtime rt(opt);
  const int steps = tbrt_test::scaled(2000, 200), width = 6;
  Periodic a(steps, width), b(steps, width + 1);
  tbrt::Graph ga = a.period(3), gb = b.period(2);
  for (int round = 0; round < 3; ++round) {  // replay counts go on across submits
    a.out.assign(a.out.size(), 0);
    b.out.assign(b.out.size(), 0);
    rt.submit(ga, steps / 2, 2);  // two graphs in flight together, as native's -and
    rt.submit(gb, steps / 2, 2);
    rt.wait();
    ASSERT_EQ(a.bad.load(), 0) << "round " << round;
    ASSERT_EQ(b.bad.load(), 0) << "round " << round;
    ASSERT_EQ(a.out, a.expected(steps)) << "round " << round;
    ASSERT_EQ(b.out, b.expected(steps)) << "round " << round;
  }
}

TEST(Homes, ReplaysTogetherNeedEveryNodeHomed) {
  tbrt::Runtime rt(tbrt::Options{});
  tbrt::Graph g;
  g.add([](void*, std::int64_t, std::int64_t) {}, nullptr, 0, 0, 0, 0);
  g.add([](void*, std::int64_t, std::int64_t) {}, nullptr, 0, 0, 0, -1);
  EXPECT_THROW(rt.submit(g, 2, 1), std::invalid_argument);
  rt.submit(g, 1, 0);  // one replay at a time is fine
  rt.wait();
}

TEST(Homes, BadHomeIsRejected) {
  tbrt::Graph g;
  EXPECT_THROW(g.add(nullptr, nullptr, 0, 0, 0, -2), std::invalid_argument);
  EXPECT_THROW(g.add(nullptr, nullptr, 0, 0, 0, 65535), std::invalid_argument);
  EXPECT_NO_THROW(g.add(nullptr, nullptr, 0, 0, 0, 65534));
}

// More homed graphs in flight than a worker's ring holds: a clear abort, not a hang.
TEST(HomesDeathTest, TooManyGraphsInFlight) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto body = [] {
    tbrt::Runtime rt(tbrt::Options{});
    std::vector<tbrt::Graph> graphs(300);
    for (auto& g : graphs) {
      g.add([](void*, std::int64_t, std::int64_t) {}, nullptr, 0, 0, 0, 0);
      g.add([](void*, std::int64_t, std::int64_t) {}, nullptr, 0, 0, 0, 0);
      g.add_edge(0, 1);
      rt.submit(g);
    }
    rt.wait();
  };
  EXPECT_DEATH(body(), "more than 256 graphs with homed nodes in flight on worker 0");
}

}  // namespace
