// Where waiting workers sleep (idle ones, and homed runs waiting for another worker), and
// how producers wake them.
//
// Sleepers announce themselves, re-check for work, then wait on a futex for
// the epoch to change. Producers bump the epoch only when someone sleeps.
#pragma once

#include <atomic>
#include <cstdint>

namespace tbrt::detail {

class Parking {
 public:
  // Sleeper: prepare(), look for work once more, then sleep() or cancel().
  std::uint32_t prepare() {
    // seq_cst: with a producer's seq_cst push and sleepers() read, either the
    // producer sees us or our re-check sees its task (Dekker).
    sleepers_.fetch_add(1, std::memory_order_seq_cst);
    const std::uint32_t seen = epoch_.load(std::memory_order_seq_cst);
    // release, after reading the epoch: a wake_all_hint that disarms sees us, and its
    // epoch change ends our sleep.
    armed_.store(true, std::memory_order_release);
    return seen;
  }
  void cancel() {
    sleepers_.fetch_sub(1, std::memory_order_relaxed);
    // A wake may have been sent for us meanwhile: left set, the flag would silence every
    // hint until some sleeper times out.
    wake_pending_.store(false, std::memory_order_relaxed);
  }
  // Returns after a wake, a spurious wakeup, or timeout_us.
  void sleep(std::uint32_t seen_epoch, std::uint32_t timeout_us);

  // After a release push from inside the scheduler loop. Cheap (relaxed
  // loads), may miss a sleeper that is announcing itself right now: that one
  // wakes by its timeout, and the producer runs the work itself meanwhile. At
  // most one wakeup is in flight, so a burst of pushes costs one syscall.
  void wake_one_hint() {
    if (sleepers_.load(std::memory_order_relaxed) > 0 &&
        !wake_pending_.load(std::memory_order_relaxed) &&
        !wake_pending_.exchange(true, std::memory_order_relaxed))
      wake(1);
  }
  // After a seq_cst push (from outside the loop, e.g. a graph's roots): never misses.
  void wake_one_exact() {
    if (sleepers_.load(std::memory_order_seq_cst) > 0) wake(1);
  }
  // As wake_one_hint, for sleepers that each wait for something different (homed runs):
  // one syscall per batch of sleepers that announced themselves since the last wake.
  // (Unlike wake_pending_, this does not skip sleepers arriving while the woken ones
  // have yet to run, which takes milliseconds on a busy machine.)
  void wake_all_hint() {
    if (armed_.load(std::memory_order_relaxed) &&
        armed_.exchange(false, std::memory_order_acquire))
      wake_all();
  }
  void wake_all() { wake(0x7fffffff); }
  // After a seq_cst publication that sleepers re-check after prepare().
  void wake_all_exact() {
    if (sleepers_.load(std::memory_order_seq_cst) > 0) wake_all();
  }

 private:
  void wake(int n);

  alignas(64) std::atomic<std::uint32_t> epoch_{0};
  std::atomic<int> sleepers_{0};
  std::atomic<bool> wake_pending_{false};
  std::atomic<bool> armed_{false};  // a sleeper prepared since wake_all_hint last woke
};

}  // namespace tbrt::detail
