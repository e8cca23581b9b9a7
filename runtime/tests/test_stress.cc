// Random DAGs, 8 workers (oversubscribed on small machines), 1e5 tasks.
#include <gtest/gtest.h>

#include "tbrt/runtime.h"
#include "test_util.h"

namespace {

using tbrt_test::Tracker;
using Edges = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

void check(const Tracker& tr, int runs, const Edges& edges) {
  for (std::size_t k = 0; k < tr.runs.size(); ++k) ASSERT_EQ(tr.runs[k].load(), runs) << "task " << k;
  for (const auto& e : edges)
    ASSERT_LT(tr.end[e.first].load(), tr.start[e.second].load())
        << "edge " << e.first << " -> " << e.second;
}

class Stress : public ::testing::TestWithParam<tbrt::QueueMode> {
 protected:
  tbrt::Options options() const {
    tbrt::Options opt;
    opt.num_workers = 8;
    opt.queue = GetParam();
    return opt;
  }
};

TEST_P(Stress, PersistentRandomDag) {
  tbrt::Runtime rt(options());
  const auto n = std::uint32_t(tbrt_test::scaled(100000, 10000));
  const int reps = tbrt_test::scaled(5, 2);
  Tracker tr(n);
  tbrt::Graph g;
  for (std::uint32_t k = 0; k < n; ++k) g.add(&Tracker::body, &tr, k, 0, int(k % 5));
  Edges edges = tbrt_test::random_dag(n, 3, 1000, 42);
  for (const auto& e : edges) g.add_edge(e.first, e.second);
  for (int r = 1; r <= reps; ++r) {
    rt.run(g);
    check(tr, r, edges);
  }
}

// The main thread discovers and wires the DAG while workers execute it.
TEST_P(Stress, DynamicRandomDag) {
  tbrt::Runtime rt(options());
  const auto n = std::uint32_t(tbrt_test::scaled(100000, 10000));
  const int reps = tbrt_test::scaled(3, 1);
  const std::uint32_t window = 1000;
  for (int r = 0; r < reps; ++r) {
    Tracker tr(n);
    Edges edges = tbrt_test::random_dag(n, 3, window, std::uint32_t(100 + r));
    std::vector<tbrt::TaskHandle> live(n);  // handles of the last `window` tasks
    std::size_t e = 0;
    for (std::uint32_t k = 0; k < n; ++k) {
      live[k] = rt.create(&Tracker::body, &tr, k, 0, int(k % 3));
      for (; e < edges.size() && edges[e].second == k; ++e) rt.add_dependency(live[edges[e].first], live[k]);
      rt.submit(live[k]);
      if (k >= window) live[k - window].reset();
    }
    live.clear();
    rt.wait();
    check(tr, 1, edges);
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, Stress,
                         ::testing::Values(tbrt::QueueMode::kLifo, tbrt::QueueMode::kFifo),
                         [](const auto& info) {
                           return std::string(info.param == tbrt::QueueMode::kLifo ? "lifo" : "fifo");
                         });

}  // namespace
