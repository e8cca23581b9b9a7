#include "tbrt/clock.h"

#include <thread>

namespace tbrt {

double ticks_per_second() {
#if defined(__x86_64__) || defined(__i386__)
  // Calibrate the TSC against steady_clock once; a static local is
  // initialised thread-safely.
  static const double rate = [] {
    using clk = std::chrono::steady_clock;
    const auto t0 = clk::now();
    const std::uint64_t c0 = ticks();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const auto t1 = clk::now();
    const std::uint64_t c1 = ticks();
    return double(c1 - c0) / std::chrono::duration<double>(t1 - t0).count();
  }();
  return rate;
#else
  return 1e9;
#endif
}

}  // namespace tbrt
