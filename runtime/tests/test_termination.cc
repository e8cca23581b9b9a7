// Termination detection: wait() returns exactly when every discovered task ran.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "tbrt/runtime.h"
#include "test_util.h"

namespace {

TEST(Termination, NothingToWaitFor) {
  for (int n : {1, 2, 8}) {
    tbrt::Options opt;
    opt.num_workers = n;
    tbrt::Runtime rt(opt);
    rt.wait();
    rt.wait();
  }
}

// A parent discovers a child, then keeps running while another worker runs
// the child and goes idle: the flushed counts then read "discovered 1,
// executed 1" although the parent is unfinished. The active-thread half of
// the state word must keep wait() from returning.
TEST(Termination, UnfinishedParentWithFinishedChild) {
  tbrt::Options opt;
  opt.num_workers = 3;
  tbrt::Runtime rt(opt);
  struct Ctx {
    tbrt::Runtime* rt;
    std::atomic<int> child_done{0}, parent_done{0};
  } c{&rt};
  for (int r = 0; r < tbrt_test::scaled(50, 10); ++r) {
    c.child_done = 0;
    c.parent_done = 0;
    rt.spawn([](void* p, std::int64_t, std::int64_t) {
      auto* c = static_cast<Ctx*>(p);
      // The first spawn takes the depth-first slot, which is never stolen; the child
      // goes to the deque, where another worker must steal it.
      c->rt->spawn([] {});
      c->rt->spawn([c] { c->child_done.store(1); });
      // Finish only after the child did, with no new task in sight: a handshake, not a
      // delay that assumes the thief gets a core in time.
      while (c->child_done.load() == 0) std::this_thread::yield();
      c->parent_done.store(1);
    }, &c);
    rt.wait();
    ASSERT_EQ(c.parent_done.load(), 1);
    ASSERT_EQ(c.child_done.load(), 1);
  }
}

// Work discovered late (after a pause) by the last running task still counts.
TEST(Termination, LateDiscovery) {
  tbrt::Options opt;
  opt.num_workers = 4;
  tbrt::Runtime rt(opt);
  struct Ctx {
    tbrt::Runtime* rt;
    std::atomic<int> count{0};
  } c{&rt};
  auto step = [](void* p, std::int64_t left, std::int64_t) {
    auto* c = static_cast<Ctx*>(p);
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    c->count.fetch_add(1);
    if (left > 0) c->rt->spawn(+[](void* p, std::int64_t left, std::int64_t) {
      auto* c = static_cast<Ctx*>(p);
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      c->count.fetch_add(1);
      (void)left;
    }, c, left - 1);
  };
  for (int k = 0; k < 20; ++k) rt.spawn(step, &c, 1);
  rt.wait();
  EXPECT_EQ(c.count.load(), 40);
}

TEST(Termination, ManyShortWaits) {
  tbrt::Options opt;
  opt.num_workers = 4;
  tbrt::Runtime rt(opt);
  std::atomic<int> count{0};
  const int rounds = tbrt_test::scaled(2000, 300);
  for (int r = 1; r <= rounds; ++r) {
    for (int k = 0; k < 5; ++k) rt.spawn([&count] { count.fetch_add(1, std::memory_order_relaxed); });
    rt.wait();
    ASSERT_EQ(count.load(std::memory_order_relaxed), 5 * r);
  }
}

TEST(Termination, OversubscribedIdleRuntimeIsQuiet) {
  tbrt::Options opt;
  opt.num_workers = 8;
  tbrt::Runtime rt(opt);
  EXPECT_FALSE(rt.pinned() && std::thread::hardware_concurrency() < 8);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // workers back off to sleep
  std::atomic<int> count{0};
  for (int k = 0; k < 1000; ++k) rt.spawn([&count] { count.fetch_add(1); });
  rt.wait();
  EXPECT_EQ(count.load(), 1000);
}

TEST(Stats, MeasuredTimesAddUp) {
  tbrt::Options opt;
  opt.num_workers = 2;
  opt.measure = true;
  tbrt::Runtime rt(opt);
  tbrt::Graph g;
  for (int k = 0; k < 200; ++k)
    g.add([](void*, std::int64_t, std::int64_t) {
      auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
      while (std::chrono::steady_clock::now() < until) {
      }
    });
  rt.reset_stats();
  rt.run(g);
  tbrt::Stats s = rt.stats();
  ASSERT_EQ(s.threads.size(), 2u);
  EXPECT_EQ(s.threads[0].tasks + s.threads[1].tasks, 200u);
  EXPECT_GE(s.total_work(), 200 * 50e-6 * 0.9);
  EXPECT_GT(s.threads[0].discovery, 0.0);  // submit() counts as discovery
  for (const auto& t : s.threads) {
    EXPECT_GE(t.overhead, 0.0);
    EXPECT_LE(t.work + t.overhead + t.discovery, s.elapsed * 1.01);
  }
  EXPECT_GT(s.efficiency(), 0.0);
  EXPECT_LE(s.efficiency(), 1.01);
}

TEST(Stats, OffMeansZeroTimes) {
  tbrt::Runtime rt(tbrt::Options{});
  rt.spawn([] {});
  rt.wait();
  auto s = rt.stats();
  EXPECT_EQ(s.threads[0].work, 0.0);
  EXPECT_EQ(s.threads[0].tasks, 1u);
  EXPECT_GT(s.elapsed, 0.0);
}

}  // namespace
