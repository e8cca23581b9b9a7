// Dynamic tasks: spawn, create + add_dependency + submit, wiring races.
#include <gtest/gtest.h>

#include <thread>

#include "tbrt/fifo_queue.h"  // cpu_relax
#include "tbrt/runtime.h"
#include "test_util.h"

namespace {

std::string ParamName(const ::testing::TestParamInfo<std::tuple<int, tbrt::QueueMode>>& info) {
  return std::to_string(std::get<0>(info.param)) + "workers_" +
         (std::get<1>(info.param) == tbrt::QueueMode::kLifo ? "lifo" : "fifo");
}

using tbrt_test::Tracker;
using tbrt_test::tree;
using tbrt_test::TreeCtx;

class DynamicTree : public ::testing::TestWithParam<std::tuple<int, tbrt::QueueMode>> {};

TEST_P(DynamicTree, EveryTaskRuns) {
  tbrt::Options opt;
  opt.num_workers = std::get<0>(GetParam());
  opt.queue = std::get<1>(GetParam());
  tbrt::Runtime rt(opt);
  TreeCtx c{&rt};
  const int depth = tbrt_test::scaled(16, 12);
  for (int r = 1; r <= 3; ++r) {
    rt.spawn(&tree, &c, depth);
    rt.wait();
    ASSERT_EQ(c.count.load(), r * ((std::int64_t{2} << depth) - 1));
  }
}

INSTANTIATE_TEST_SUITE_P(Workers, DynamicTree,
                         ::testing::Combine(::testing::Values(1, 2, 8),
                                            ::testing::Values(tbrt::QueueMode::kLifo,
                                                              tbrt::QueueMode::kFifo)),
                         ParamName);

TEST(Dynamic, InlineClosures) {
  tbrt::Options opt;
  opt.num_workers = 2;
  tbrt::Runtime rt(opt);
  std::atomic<int> sum{0};
  for (int k = 1; k <= 100; ++k) rt.spawn([&sum, k] { sum.fetch_add(k); });
  rt.wait();
  EXPECT_EQ(sum.load(), 5050);
}

TEST(Dynamic, DiamondAndChainOrder) {
  tbrt::Options opt;
  opt.num_workers = 4;
  tbrt::Runtime rt(opt);
  Tracker tr(4);
  for (int r = 1; r <= 200; ++r) {
    tbrt::TaskHandle a = rt.create(&Tracker::body, &tr, 0);
    tbrt::TaskHandle b = rt.create(&Tracker::body, &tr, 1);
    tbrt::TaskHandle c = rt.create(&Tracker::body, &tr, 2);
    tbrt::TaskHandle d = rt.create(&Tracker::body, &tr, 3);
    rt.submit(a);  // a may run (and finish) while the rest is wired
    rt.add_dependency(a, b);
    rt.add_dependency(a, c);
    rt.add_dependency(b, d);
    rt.add_dependency(c, d);
    rt.submit(d);
    rt.submit(c);
    b.reset();  // dropping an unsubmitted handle submits it
    rt.wait();
    for (int k = 0; k < 4; ++k) ASSERT_EQ(tr.runs[std::size_t(k)].load(), r);
    ASSERT_LT(tr.end[0].load(), tr.start[1].load());
    ASSERT_LT(tr.end[0].load(), tr.start[2].load());
    ASSERT_LT(tr.end[1].load(), tr.start[3].load());
    ASSERT_LT(tr.end[2].load(), tr.start[3].load());
  }
}

// The predecessor completes while its successor is being wired: the edge
// must be either notified or found already satisfied, never lost or doubled.
TEST(Dynamic, WiringRacesWithCompletion) {
  tbrt::Options opt;
  opt.num_workers = 2;
  tbrt::Runtime rt(opt);
  const int n = tbrt_test::scaled(20000, 2000);
  std::vector<std::atomic<int>> pred_done(static_cast<std::size_t>(n));
  std::atomic<int> bad{0}, succ_runs{0};
  struct Ctx {
    std::atomic<int>* bad;
    std::atomic<int>* succ_runs;
  } ctx{&bad, &succ_runs};
  for (int k = 0; k < n; ++k) {
    std::atomic<int>* done = &pred_done[std::size_t(k)];
    tbrt::TaskHandle p = rt.create([done] { done->store(1); });
    rt.submit(p);  // likely stolen and running right now
    // Vary the wiring's delay (0-255 pauses) to meet the completion at different points;
    // a yield would give the core away for a time slice on a busy machine.
    for (int d = 0; d < k % 256; ++d) tbrt::detail::cpu_relax();
    tbrt::TaskHandle s = rt.create([c = &ctx, done] {
      if (done->load() != 1) c->bad->fetch_add(1);
      c->succ_runs->fetch_add(1);
    });
    rt.add_dependency(p, s);
    rt.submit(s);
    s.reset();
    p.reset();
    if (k % 64 == 63) rt.wait();
  }
  rt.wait();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(succ_runs.load(), n);
}

// Task Bench-like: main creates a stencil timestep by timestep while workers
// already execute earlier steps.
TEST(Dynamic, StencilBuiltWhileRunning) {
  tbrt::Options opt;
  opt.num_workers = 3;
  tbrt::Runtime rt(opt);
  const int steps = tbrt_test::scaled(200, 40), width = 8;
  Tracker tr(std::size_t(steps * width));
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
  std::vector<tbrt::TaskHandle> prev(width), cur(width);
  for (int t = 0; t < steps; ++t) {
    for (int x = 0; x < width; ++x) {
      cur[std::size_t(x)] = rt.create(&Tracker::body, &tr, t * width + x);
      if (t > 0)
        for (int dx = -1; dx <= 1; ++dx)
          if (x + dx >= 0 && x + dx < width) {
            rt.add_dependency(prev[std::size_t(x + dx)], cur[std::size_t(x)]);
            edges.emplace_back(std::uint32_t((t - 1) * width + x + dx), std::uint32_t(t * width + x));
          }
      rt.submit(cur[std::size_t(x)]);
    }
    std::swap(prev, cur);
  }
  prev.clear();
  cur.clear();
  rt.wait();
  for (std::size_t k = 0; k < tr.runs.size(); ++k) ASSERT_EQ(tr.runs[k].load(), 1);
  for (const auto& e : edges) ASSERT_LT(tr.end[e.first].load(), tr.start[e.second].load());
}

// Tasks that create and wire tasks themselves (nested discovery).
TEST(Dynamic, TasksWireTasks) {
  tbrt::Options opt;
  opt.num_workers = 4;
  tbrt::Runtime rt(opt);
  const int n = 64;
  Tracker tr(std::size_t(3 * n));
  struct Ctx {
    tbrt::Runtime* rt;
    Tracker* tr;
  } ctx{&rt, &tr};
  for (int k = 0; k < n; ++k)
    rt.spawn([](void* p, std::int64_t k, std::int64_t) {
      auto* c = static_cast<Ctx*>(p);
      tbrt::TaskHandle a = c->rt->create(&Tracker::body, c->tr, 3 * k);
      tbrt::TaskHandle b = c->rt->create(&Tracker::body, c->tr, 3 * k + 1);
      tbrt::TaskHandle d = c->rt->create(&Tracker::body, c->tr, 3 * k + 2, 0, 5);
      c->rt->add_dependency(a, d);
      c->rt->add_dependency(b, d);
      c->rt->submit(a);
      c->rt->submit(b);
    }, &ctx, k);
  rt.wait();
  for (int k = 0; k < n; ++k) {
    for (int m = 0; m < 3; ++m) ASSERT_EQ(tr.runs[std::size_t(3 * k + m)].load(), 1);
    ASSERT_LT(tr.end[std::size_t(3 * k)].load(), tr.start[std::size_t(3 * k + 2)].load());
    ASSERT_LT(tr.end[std::size_t(3 * k + 1)].load(), tr.start[std::size_t(3 * k + 2)].load());
  }
}

}  // namespace
