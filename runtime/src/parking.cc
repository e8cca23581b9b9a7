#include "parking.h"

#include <chrono>
#include <thread>

#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#endif

namespace tbrt::detail {

void Parking::sleep(std::uint32_t seen_epoch, std::uint32_t timeout_us) {
#ifdef __linux__
  timespec ts{time_t(timeout_us / 1000000), long(timeout_us % 1000000) * 1000};
  // The kernel re-checks epoch_ == seen_epoch atomically with queueing us, so
  // a wake() between prepare() and here is not lost.
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&epoch_), FUTEX_WAIT_PRIVATE, seen_epoch,
          &ts, nullptr, 0);
#else
  if (epoch_.load(std::memory_order_relaxed) == seen_epoch)
    std::this_thread::sleep_for(std::chrono::microseconds(timeout_us < 200 ? timeout_us : 200));
#endif
  sleepers_.fetch_sub(1, std::memory_order_relaxed);
  wake_pending_.store(false, std::memory_order_relaxed);
}

void Parking::wake(int n) {
  epoch_.fetch_add(1, std::memory_order_seq_cst);
#ifdef __linux__
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&epoch_), FUTEX_WAKE_PRIVATE, n, nullptr,
          nullptr, 0);
#else
  (void)n;
#endif
}

}  // namespace tbrt::detail
