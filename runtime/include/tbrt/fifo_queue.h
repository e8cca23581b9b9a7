// One queue shared by all workers, first in first out: the `native_fifo`
// baseline (breadth-first, centralised, like a classic global task pool).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>

#include "tbrt/task.h"

namespace tbrt::detail {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Test-and-test-and-set lock that yields after a short spin, so a preempted
// holder (more threads than cores) does not stall the spinners for a whole slice.
class SpinLock {
 public:
  void lock() {
    for (int n = 0; locked_.exchange(true, std::memory_order_acquire); ++n) {
      while (locked_.load(std::memory_order_relaxed)) {
        if (++n < 64) cpu_relax(); else std::this_thread::yield();
      }
    }
  }
  void unlock() { locked_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> locked_{false};
};

class SharedFifo {
 public:
  SharedFifo() : buf_(new Task*[1024]), mask_(1023) {}

  // `publish` as WorkDeque::push: seq_cst when paired with a sleeper check.
  void push(Task* t, std::memory_order publish = std::memory_order_release) {
    lock_.lock();
    if (tail_ - head_ > mask_) grow();
    buf_[tail_++ & mask_] = t;
    count_.store(tail_ - head_, publish);
    lock_.unlock();
  }

  Task* pop() {
    // seq_cst: pairs with a seq_cst push for the sleep/wake handshake; a plain
    // load on x86. Skipping the lock when empty keeps idle workers off it.
    if (count_.load(std::memory_order_seq_cst) == 0) return nullptr;
    lock_.lock();
    Task* t = nullptr;
    if (head_ != tail_) {
      t = buf_[head_++ & mask_];
      count_.store(tail_ - head_, std::memory_order_relaxed);
    }
    lock_.unlock();
    return t;
  }

  std::uint64_t size_hint() const { return count_.load(std::memory_order_relaxed); }

 private:
  void grow() {
    std::uint64_t cap = 2 * (mask_ + 1);
    std::unique_ptr<Task*[]> b(new Task*[cap]);
    for (std::uint64_t k = head_; k != tail_; ++k) b[k & (cap - 1)] = buf_[k & mask_];
    buf_ = std::move(b);
    mask_ = cap - 1;
  }

  SpinLock lock_;
  std::unique_ptr<Task*[]> buf_;  // guarded by lock_
  std::uint64_t mask_;
  std::uint64_t head_ = 0, tail_ = 0;
  alignas(64) std::atomic<std::uint64_t> count_{0};
};

}  // namespace tbrt::detail
