// WorkDeque and SharedFifo on their own, and queue order seen through a Runtime.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "tbrt/deque.h"
#include "tbrt/fifo_queue.h"
#include "tbrt/runtime.h"
#include "test_util.h"

using tbrt::detail::SharedFifo;
using tbrt::detail::Task;
using tbrt::detail::WorkDeque;

namespace {

std::vector<Task> make_tasks(std::size_t n) {
  std::vector<Task> v(n);
  for (std::size_t k = 0; k < n; ++k) v[k].i = std::int64_t(k);
  return v;
}

TEST(Deque, OwnerPopsNewestThiefStealsOldest) {
  auto tasks = make_tasks(5);
  WorkDeque d(1);  // capacity 2: forces growth
  for (auto& t : tasks) d.push(&t, 0);
  EXPECT_EQ(d.steal(), &tasks[0]);
  EXPECT_EQ(d.pop(), &tasks[4]);
  EXPECT_EQ(d.pop(), &tasks[3]);
  EXPECT_EQ(d.steal(), &tasks[1]);
  EXPECT_EQ(d.pop(), &tasks[2]);
  EXPECT_EQ(d.pop(), nullptr);
  EXPECT_EQ(d.steal(), nullptr);
}

TEST(Deque, GrowsKeepingOrder) {
  auto tasks = make_tasks(10000);
  WorkDeque d(2);
  for (auto& t : tasks) d.push(&t, 0);
  for (std::size_t k = tasks.size(); k-- > 0;) ASSERT_EQ(d.pop(), &tasks[k]);
  EXPECT_EQ(d.pop(), nullptr);
}

TEST(Deque, ConcurrentThievesTakeEachTaskOnce) {
  const int n = tbrt_test::scaled(200000, 20000);
  auto tasks = make_tasks(std::size_t(n));
  std::vector<std::atomic<int>> taken(static_cast<std::size_t>(n));
  WorkDeque d(4);
  std::atomic<bool> done{false};
  auto take = [&](Task* t) { taken[std::size_t(t->i)].fetch_add(1, std::memory_order_relaxed); };
  std::vector<std::thread> thieves;
  for (int k = 0; k < 2; ++k)
    thieves.emplace_back([&] {
      // Yield now and then: on a busy machine the owner may be waiting for this core.
      for (int misses = 0; !done.load(std::memory_order_acquire);) {
        if (Task* t = d.steal()) {
          take(t);
          misses = 0;
        } else if (++misses % 64 == 0) {
          std::this_thread::yield();
        }
      }
      while (Task* t = d.steal()) take(t);
    });
  // Owner: bursts of pushes, then pops some back, like a worker spawning.
  for (int k = 0; k < n; ++k) {
    d.push(&tasks[std::size_t(k)], 0);
    if (k % 3 == 2)
      if (Task* t = d.pop()) take(t);
  }
  while (Task* t = d.pop()) take(t);
  done.store(true, std::memory_order_release);
  for (auto& t : thieves) t.join();
  for (int k = 0; k < n; ++k) ASSERT_EQ(taken[std::size_t(k)].load(), 1) << "task " << k;
}

TEST(Fifo, FirstInFirstOut) {
  auto tasks = make_tasks(3000);
  SharedFifo q;
  for (auto& t : tasks) q.push(&t);
  for (auto& t : tasks) ASSERT_EQ(q.pop(), &t);
  EXPECT_EQ(q.pop(), nullptr);
}

// Order in which tasks ran, recorded by a single worker.
struct Order {
  std::vector<std::int64_t> seen;
  static void body(void* arg, std::int64_t i, std::int64_t) {
    static_cast<Order*>(arg)->seen.push_back(i);
  }
};

TEST(RuntimeOrder, LifoRunsHigherPriorityFirstThenNewest) {
  tbrt::Runtime rt(tbrt::Options{});
  Order o;
  const int prio[8] = {1, 5, 3, 5, 0, 7, 3, 2};
  for (int k = 0; k < 8; ++k) rt.spawn(&Order::body, &o, k, 0, prio[k]);
  rt.wait();
  // Descending priority; equal priorities newest first (LLP).
  EXPECT_EQ(o.seen, (std::vector<std::int64_t>{5, 3, 1, 6, 2, 7, 0, 4}));
}

TEST(RuntimeOrder, LifoWithoutPrioritiesIsNewestFirst) {
  tbrt::Runtime rt(tbrt::Options{});
  Order o;
  for (int k = 0; k < 100; ++k) rt.spawn(&Order::body, &o, k);
  rt.wait();
  ASSERT_EQ(o.seen.size(), 100u);
  for (int k = 0; k < 100; ++k) EXPECT_EQ(o.seen[std::size_t(k)], 99 - k);
}

TEST(RuntimeOrder, FifoModeRunsInSpawnOrder) {
  tbrt::Options opt;
  opt.queue = tbrt::QueueMode::kFifo;
  tbrt::Runtime rt(opt);
  Order o;
  for (int k = 0; k < 100; ++k) rt.spawn(&Order::body, &o, k, 0, k % 7);
  rt.wait();
  ASSERT_EQ(o.seen.size(), 100u);
  for (int k = 0; k < 100; ++k) EXPECT_EQ(o.seen[std::size_t(k)], k);
}

// A node's newly ready successors: the highest priority runs next (the slot),
// the rest in priority order from the deque.
TEST(RuntimeOrder, SuccessorsRunByPriority) {
  tbrt::Runtime rt(tbrt::Options{});
  Order o;
  tbrt::Graph g;
  auto root = g.add(&Order::body, &o, 100);
  const int prio[8] = {2, 9, 4, 4, 1, 6, 0, 8};
  for (int k = 0; k < 8; ++k) g.add_edge(root, g.add(&Order::body, &o, k, 0, prio[k]));
  rt.run(g);
  EXPECT_EQ(o.seen, (std::vector<std::int64_t>{100, 1, 7, 5, 3, 2, 0, 4, 6}));
}

}  // namespace
