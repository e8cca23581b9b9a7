// Cheap timestamps for per-thread time accounting.
#pragma once

#include <chrono>
#include <cstdint>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace tbrt {

// rdtsc on x86 (~25 cycles, invariant TSC on anything recent); steady_clock
// nanoseconds elsewhere. Only differences of ticks are meaningful.
inline std::uint64_t ticks() {
#if defined(__x86_64__) || defined(__i386__)
  return __rdtsc();
#else
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
#endif
}

// Ticks per second, calibrated once per process (about 20 ms, first call only).
double ticks_per_second();

inline double ticks_to_seconds(std::uint64_t t) { return double(t) / ticks_per_second(); }

}  // namespace tbrt
