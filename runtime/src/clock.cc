#include "tbrt/clock.h"

#include <thread>
#include <utility>

namespace tbrt {

double ticks_per_second() {
#if defined(__x86_64__) || defined(__i386__)
  // Calibrate the TSC against steady_clock once; a static local is
  // initialised thread-safely.
  static const double rate = [] {
    using clk = std::chrono::steady_clock;
    // A TSC read between two clock reads, the closest pair of a few: on a busy machine
    // the thread may lose its core between the reads, for a time slice (ms).
    auto sample = [] {
      clk::duration best_gap = clk::duration::max();
      clk::time_point at;
      std::uint64_t c = 0;
      for (int k = 0; k < 8; ++k) {
        const auto a = clk::now();
        const std::uint64_t x = ticks();
        const auto b = clk::now();
        if (b - a < best_gap) best_gap = b - a, at = a + (b - a) / 2, c = x;
      }
      return std::make_pair(at, c);
    };
    const auto s0 = sample();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const auto s1 = sample();
    return double(s1.second - s0.second) / std::chrono::duration<double>(s1.first - s0.first).count();
  }();
  return rate;
#else
  return 1e9;
#endif
}

}  // namespace tbrt
