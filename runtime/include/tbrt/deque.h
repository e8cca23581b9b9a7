// Per-worker work-stealing deque (Chase-Lev, growable) holding ready tasks.
//
// The owner pushes and pops at the bottom (LIFO: newest first, cache-warm);
// thieves take from the top (the oldest task, usually the biggest piece of
// remaining work). The owner's push is two plain stores; pop needs one
// store-load barrier; only the race for the last element uses CAS.
//
// Orderings follow Le et al., "Correct and efficient work-stealing for weak
// memory models" (PPoPP'13), with the seq_cst fences replaced by seq_cst
// operations on top/bottom: ThreadSanitizer does not model standalone fences,
// and on x86 the cost is the same (one xchg in pop).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "tbrt/task.h"

namespace tbrt::detail {

class WorkDeque {
 public:
  explicit WorkDeque(int log_capacity = 8) { ring_.store(new_ring(std::size_t{1} << log_capacity), std::memory_order_relaxed); }
  WorkDeque(const WorkDeque&) = delete;
  WorkDeque& operator=(const WorkDeque&) = delete;

  // Owner only. `publish` is release normally; callers that must pair the push
  // with a check for sleeping workers (Dekker style) pass seq_cst.
  void push(Task* t, std::int32_t prio, std::memory_order publish = std::memory_order_release) {
    std::int64_t b = bottom_.load(std::memory_order_relaxed);
    // acquire: a thief's CAS on top happens-before we reuse the slot it read.
    std::int64_t tp = top_.load(std::memory_order_acquire);
    Ring* r = ring_.load(std::memory_order_relaxed);
    if (b - tp > std::int64_t(r->mask)) r = grow(r, tp, b);
    r->slots[b & r->mask].store(t, std::memory_order_relaxed);
    r->prio[b & r->mask] = prio;
    // release: a thief that sees the new bottom sees the slot and the task.
    bottom_.store(b + 1, publish);
  }

  // Owner only. Newest task, or nullptr when empty (or the last one was stolen).
  Task* pop() {
    std::int64_t b = bottom_.load(std::memory_order_relaxed) - 1;
    // Cheap emptiness test: top only grows, so a stale top can only say "not empty".
    if (b < top_.load(std::memory_order_relaxed)) return nullptr;
    Ring* r = ring_.load(std::memory_order_relaxed);
    // seq_cst store then seq_cst load of top: either a thief sees the smaller
    // bottom or we see its incremented top; never both miss (Dekker).
    bottom_.store(b, std::memory_order_seq_cst);
    std::int64_t t = top_.load(std::memory_order_seq_cst);
    if (t > b) {  // emptied by thieves meanwhile
      bottom_.store(b + 1, std::memory_order_relaxed);
      return nullptr;
    }
    Task* x = r->slots[b & r->mask].load(std::memory_order_relaxed);
    if (t == b) {  // last element: race the thieves for it on top
      if (!top_.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst,
                                        std::memory_order_relaxed))
        x = nullptr;
      bottom_.store(b + 1, std::memory_order_relaxed);
    }
    return x;
  }

  // Any thread. Oldest task, or nullptr when empty or when another thread won.
  Task* steal() {
    // seq_cst pairs with pop's store/load; the bottom load also acquires the
    // push that published the slot.
    std::int64_t t = top_.load(std::memory_order_seq_cst);
    std::int64_t b = bottom_.load(std::memory_order_seq_cst);
    if (t >= b) return nullptr;
    // acquire: a grown ring's contents are visible. An old ring is never freed
    // before the deque, and still holds [t, b) as it was.
    Ring* r = ring_.load(std::memory_order_acquire);
    Task* x = r->slots[t & r->mask].load(std::memory_order_relaxed);
    if (!top_.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst,
                                      std::memory_order_relaxed))
      return nullptr;
    return x;
  }

  // Owner only: hints that may be stale by concurrent steals.
  bool maybe_nonempty() const {
    return bottom_.load(std::memory_order_relaxed) > top_.load(std::memory_order_relaxed);
  }
  // Owner only, valid when maybe_nonempty(): priority of the newest task.
  // Priorities live in an owner-private array so this never reads a task that
  // a thief may already be running or recycling.
  std::int32_t head_priority() const {
    Ring* r = ring_.load(std::memory_order_relaxed);
    return r->prio[(bottom_.load(std::memory_order_relaxed) - 1) & r->mask];
  }
  // Any thread; approximate.
  std::int64_t size_hint() const {
    std::int64_t n = bottom_.load(std::memory_order_relaxed) - top_.load(std::memory_order_relaxed);
    return n > 0 ? n : 0;
  }

 private:
  struct Ring {
    std::size_t mask;
    std::unique_ptr<std::atomic<Task*>[]> slots;
    std::unique_ptr<std::int32_t[]> prio;
  };

  Ring* new_ring(std::size_t cap) {
    auto r = std::make_unique<Ring>();
    r->mask = cap - 1;
    r->slots.reset(new std::atomic<Task*>[cap]);
    r->prio.reset(new std::int32_t[cap]);
    rings_.push_back(std::move(r));
    return rings_.back().get();
  }

  Ring* grow(Ring* old, std::int64_t t, std::int64_t b) {
    Ring* r = new_ring(2 * (old->mask + 1));
    for (std::int64_t k = t; k < b; ++k) {
      r->slots[k & r->mask].store(old->slots[k & old->mask].load(std::memory_order_relaxed),
                                  std::memory_order_relaxed);
      r->prio[k & r->mask] = old->prio[k & old->mask];
    }
    // release: thieves that load the new ring see the copied slots.
    ring_.store(r, std::memory_order_release);
    return r;
  }

  alignas(64) std::atomic<std::int64_t> top_{0};
  alignas(64) std::atomic<std::int64_t> bottom_{0};
  std::atomic<Ring*> ring_{nullptr};
  std::vector<std::unique_ptr<Ring>> rings_;  // owner only; old rings kept for late thieves
};

}  // namespace tbrt::detail
