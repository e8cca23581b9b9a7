// Progress when the workers outnumber the free cores: the runtime and 2 busy processes
// share 2 CPUs, as on a loaded CI machine. A runtime whose waiting threads spin, or keep
// yielding, crawls here (a stencil row per time slice), so a watchdog turns a hang into a
// failure. The time limit only detects hangs: the test takes seconds, sanitizers included.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#ifdef __linux__
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

#include "tbrt/runtime.h"
#include "test_util.h"

namespace {

#ifdef __linux__

using tbrt_test::Tracker;
using tbrt_test::tree;
using tbrt_test::TreeCtx;
using Edges = std::vector<std::pair<std::uint32_t, std::uint32_t>>;
using tbrt_test::stencil_edges;

constexpr int kCpus = 2, kBusy = 2;
constexpr auto kLimit = std::chrono::seconds(60);

// Restricts the calling thread, and the threads it starts from then on, to the first
// kCpus CPUs it may use; restores the old mask at the end.
class FirstCpus {
 public:
  FirstCpus() {
    sched_getaffinity(0, sizeof saved_, &saved_);
    CPU_ZERO(&set_);
    for (int c = 0, n = 0; c < CPU_SETSIZE && n < kCpus; ++c)
      if (CPU_ISSET(c, &saved_)) {
        CPU_SET(c, &set_);
        ++n;
      }
    sched_setaffinity(0, sizeof set_, &set_);
  }
  ~FirstCpus() { sched_setaffinity(0, sizeof saved_, &saved_); }
  const cpu_set_t& set() const { return set_; }

 private:
  cpu_set_t saved_, set_;
};

// Processes that keep the CPUs busy. Killed on destruction, by the watchdog, or by the
// kernel should this process die first (PR_SET_PDEATHSIG: it outlives no test).
class BusyProcesses {
 public:
  BusyProcesses(int n, const cpu_set_t& cpus) {
    const pid_t parent = getpid();
    for (int k = 0; k < n; ++k) {
      const pid_t pid = fork();
      if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(0);  // the parent died before prctl
        sched_setaffinity(0, sizeof cpus, &cpus);
        for (volatile unsigned x = 0;; x = x + 1) {
        }
      }
      if (pid > 0) pids_.push_back(pid);
    }
  }
  ~BusyProcesses() { kill_all(); }
  void kill_all() {
    for (pid_t pid : pids_) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
    pids_.clear();
  }
  std::size_t size() const { return pids_.size(); }

 private:
  std::vector<pid_t> pids_;
};

// Ends the process with a message when not destroyed within kLimit.
class Watchdog {
 public:
  Watchdog(const char* what, BusyProcesses& busy)
      : thread_([this, what, &busy] {
          std::unique_lock<std::mutex> lock(m_);
          if (cv_.wait_for(lock, kLimit, [this] { return done_; })) return;
          busy.kill_all();
          std::fprintf(stderr, "FAILED: %s made no progress in %lld s beside %d busy processes\n",
                       what, static_cast<long long>(kLimit.count()), kBusy);
          std::_Exit(EXIT_FAILURE);
        }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(m_);
      done_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;  // last: starts once the members it uses exist
};

void check(const Tracker& tr, int runs, const Edges& edges) {
  for (std::size_t k = 0; k < tr.runs.size(); ++k) ASSERT_EQ(tr.runs[k].load(), runs) << "task " << k;
  for (const auto& e : edges)
    ASSERT_LT(tr.end[e.first].load(), tr.start[e.second].load())
        << "edge " << e.first << " -> " << e.second;
}

// 8 workers: oversubscribed. 2 workers: pinned, one per CPU, each sharing it with a busy
// process (a pinned worker must not count on having its core).
class Oversubscribed : public ::testing::TestWithParam<int> {};

TEST_P(Oversubscribed, HomedGraphAndDynamicTasksBesideBusyProcesses) {
  FirstCpus cpus;
  BusyProcesses busy(kBusy, cpus.set());
  ASSERT_EQ(busy.size(), std::size_t(kBusy));
  Watchdog watchdog("the runtime", busy);
  tbrt::Options opt;
  opt.num_workers = GetParam();
  tbrt::Runtime rt(opt);
  const int width = 8, rows = 200, replays = tbrt_test::scaled(10, 3);
  const Edges edges = stencil_edges(rows, width);

  {  // Persistent graph, every column homed on its own worker: each row waits for others.
    Tracker tr(std::size_t(rows * width));
    tbrt::Graph g;
    for (int t = 0; t < rows; ++t)
      for (int x = 0; x < width; ++x) g.add(&Tracker::body, &tr, t * width + x, 0, 0, x);
    for (const auto& e : edges) g.add_edge(e.first, e.second);
    for (int r = 1; r <= replays; ++r) {
      rt.run(g);
      ASSERT_NO_FATAL_FAILURE(check(tr, r, edges)) << "homed graph, replay " << r;
    }
  }

  for (int r = 0; r < replays; ++r) {  // Dynamic: the owner wires rows while workers run them.
    Tracker tr(std::size_t(rows * width));
    std::vector<tbrt::TaskHandle> prev(width), cur(width);
    for (int t = 0; t < rows; ++t) {
      for (int x = 0; x < width; ++x) {
        cur[std::size_t(x)] = rt.create(&Tracker::body, &tr, t * width + x);
        for (int dx = -1; dx <= 1; ++dx)
          if (t > 0 && x + dx >= 0 && x + dx < width)
            rt.add_dependency(prev[std::size_t(x + dx)], cur[std::size_t(x)]);
        rt.submit(cur[std::size_t(x)]);
      }
      std::swap(prev, cur);
    }
    prev.clear();
    cur.clear();
    rt.wait();
    ASSERT_NO_FATAL_FAILURE(check(tr, 1, edges)) << "dynamic stencil, round " << r;
  }

  TreeCtx c{&rt};  // Dynamic: tasks spawning tasks.
  const int depth = tbrt_test::scaled(14, 11);
  rt.spawn(&tree, &c, depth);
  rt.wait();
  EXPECT_EQ(c.count.load(), (std::int64_t{2} << depth) - 1);
}

INSTANTIATE_TEST_SUITE_P(Workers, Oversubscribed, ::testing::Values(8, 2),
                         [](const auto& info) { return std::to_string(info.param) + "workers"; });

#endif  // __linux__

}  // namespace
