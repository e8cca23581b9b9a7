// How a thread with nothing to run waits for work (the scheduler's loop, the constructor).
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

#include "tbrt/fifo_queue.h"  // cpu_relax

namespace tbrt::detail {

// How a thread with nothing to run waits: pause between polls (work usually shows up within
// microseconds), then yield the core (whoever it waits for may need it), then park until
// woken. Every phase is bounded, pinned or not: a pinned worker may share its core with
// other processes. On a busy machine one yield gives the core away for a whole time slice
// (ms) and leaves the thread's own wake-up to chance: beside 4 busy processes on 2 cores,
// the homed tests under ASan ran 14x slower when every wait began with a yield than when
// waits went straight from pausing to sleeping. So a slow yield ends yielding, for this wait and, for
// a while, for every thread's next waits (a busy machine stays busy); on a quiet one
// yields take a microsecond and never trip it.
class Backoff {
 public:
  using Clock = std::chrono::steady_clock;
  // Pause for kSpinFor before anything else, the clock read once per kSpinRounds pauses (a
  // pause takes 10-140 cycles depending on the CPU, so a count of them is no duration). As
  // long as a futex round trip (20-40 us here): a wait that parks sooner makes the waker
  // pay that trip, and two workers exchanging every row then park in turn on every row.
  // (With 64 pauses, ~3 us, a run that met a slow yield went on parking every row until its
  // end: 12-35 ms instead of 0.4 for a 1000-row nearest graph, 7 runs in 1500; 1-5 ms,
  // the machine's own hiccups, with spinning 20 us.)
  static constexpr int kSpinRounds = 64;
  static constexpr std::chrono::microseconds kSpinFor{20};
  // Yield for up to ~1 ms: longer than the owner takes to build the next batch of work (a
  // 100-row block graph, 40 us), since waking a sleeper costs more (1000-step stencil on 2
  // workers: 12% faster than with 64 rounds).
  static constexpr int kYieldRounds = 1024;
  static constexpr std::chrono::microseconds kYieldFor{1000};
  static constexpr std::chrono::microseconds kSlowYield{100};
  static constexpr std::chrono::milliseconds kNoYieldFor{100};
  // Sleep timeouts, growing while nothing happens: wakes sent as hints may be missed.
  static constexpr std::uint32_t kFirstSleepUs = 500, kMaxSleepUs = 16000;

  // no_yield_until: shared by the runtime's threads, in Clock ticks; relaxed, a hint.
  explicit Backoff(std::atomic<Clock::rep>& no_yield_until) : no_yield_until_(no_yield_until) {}

  // After a pause or a yield: true, poll again. False: time to park, and from then on
  // every time (each wake gets one look before the next sleep).
  bool keep_polling() {
    if (spinning_) {
      cpu_relax();
      if (++rounds_ % kSpinRounds != 0) return true;
      const auto now = Clock::now();
      if (rounds_ == kSpinRounds) spin_end_ = now + kSpinFor;
      if (now < spin_end_) return true;
      spinning_ = false;
      rounds_ = 0;
    }
    if (rounds_ < kYieldRounds) {
      const auto now = Clock::now();
      if (rounds_ == 0) {
        const bool busy =
            now.time_since_epoch().count() < no_yield_until_.load(std::memory_order_relaxed);
        yield_end_ = busy ? now : now + kYieldFor;
      } else if (now - last_yield_ > kSlowYield) {
        no_yield_until_.store((now + kNoYieldFor).time_since_epoch().count(),
                              std::memory_order_relaxed);
        yield_end_ = now;
      }
      if (now < yield_end_) {
        ++rounds_;
        last_yield_ = now;
        std::this_thread::yield();
        return true;
      }
      rounds_ = kYieldRounds;
    }
    return false;
  }
  std::uint32_t next_sleep_us() {
    const std::uint32_t us = sleep_us_;
    sleep_us_ = std::min(2 * us, kMaxSleepUs);
    return us;
  }

 private:
  std::atomic<Clock::rep>& no_yield_until_;
  bool spinning_ = true;
  int rounds_ = 0;  // pauses while spinning, then yields
  Clock::time_point spin_end_, yield_end_, last_yield_;
  std::uint32_t sleep_us_ = kFirstSleepUs;
};

}  // namespace tbrt::detail
