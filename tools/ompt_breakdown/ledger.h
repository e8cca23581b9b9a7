// Per-thread time ledgers of the OMPT breakdown tool. Each OpenMP thread owns one ledger and
// writes it from its own callbacks only; the report reads every ledger after the parallel
// regions have ended. A ledger holds a small stack of parts (what the thread is doing now, and
// what it goes back to when that ends), and charges the time since the last switch to the part
// on top, clipped to the end of the parallel region the thread belongs to.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>

#include "taskbench/breakdown.h"

namespace ompt_breakdown {

enum Part : int { kWork, kOverhead, kIdle, kDiscovery, kParts };

std::int64_t now_ns();  // CLOCK_MONOTONIC

// Outermost parallel regions, by id: when each began and ended (0 while running).
class Regions {
 public:
  static constexpr int kMax = 1 << 16;
  int begin(std::int64_t t);  // the new region's id, or -1 when the table is full
  void end(int id, std::int64_t t);
  std::int64_t begin_of(int id) const { return slots_[id].begin.load(std::memory_order_acquire); }
  // acquire: a thread that sees the end also sees everything the region's master did before.
  std::int64_t end_of(int id) const { return slots_[id].end.load(std::memory_order_acquire); }
  int count() const { return count_.load(std::memory_order_relaxed); }
  double elapsed_seconds(std::int64_t now) const;  // summed over regions; a running one up to now

 private:
  struct Slot {
    std::atomic<std::int64_t> begin{0}, end{0};
  };
  std::atomic<int> count_{0};
  Slot slots_[kMax];
};

class Ledger {
 public:
  explicit Ledger(int index) : index_(index) {}
  int index() const { return index_; }

  // The thread starts an implicit task of region `id` at time t: what it still owed its previous
  // region is charged, and its time from the new region's begin on is overhead until something
  // else is pushed (the wait for the thread to start is the runtime's).
  void join(const Regions& regions, int id, std::int64_t t);
  // Its implicit task ended: back to overhead until the region ends.
  void leave(const Regions& regions, std::int64_t t);
  void push(const Regions& regions, Part part, std::int64_t t);
  void pop(const Regions& regions, std::int64_t t);
  void count_tasks(std::uint64_t tasks, std::uint64_t steals) {
    tasks_.store(tasks_.load(std::memory_order_relaxed) + tasks, std::memory_order_relaxed);
    steals_.store(steals_.load(std::memory_order_relaxed) + steals, std::memory_order_relaxed);
  }
  bool joined() const { return region_.load(std::memory_order_relaxed) >= 0; }
  // Seconds per part, the time since the last switch included (clipped to the region's end).
  taskbench::ThreadBreakdown read(const Regions& regions, std::int64_t now) const;

 private:
  static constexpr int kDepth = 32;  // deeper nesting is counted but not recorded
  void charge(const Regions& regions, std::int64_t t);
  void publish_top() { part_.store(stack_[std::min(depth_, kDepth) - 1], std::memory_order_relaxed); }

  const int index_;
  // Written by the owner thread only; atomics (relaxed: plain moves on x86) because the
  // report reads them from another thread.
  std::atomic<std::int64_t> ns_[kParts] = {};
  std::atomic<std::uint64_t> tasks_{0}, steals_{0};
  std::atomic<std::int64_t> mark_{0};  // time charged up to
  std::atomic<int> part_{kOverhead};   // the part on top of the stack
  std::atomic<int> region_{-1};
  // Owner-only.
  Part stack_[kDepth] = {kOverhead};
  int depth_ = 1;
};

// Every thread's ledger, in the order the threads started (the initial thread first).
class Ledgers {
 public:
  static constexpr int kMax = 4096;
  Ledger* add();  // nullptr when full
  std::vector<const Ledger*> all() const;

 private:
  std::atomic<int> count_{0};
  std::atomic<Ledger*> slots_[kMax] = {};
};

}  // namespace ompt_breakdown
