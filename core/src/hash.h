// The one documented hash of taskbench (docs/spec.md §1, "Random patterns"): every
// language binding computes it identically, so every system runs the same random graph.
//   h = mix64(seed ^ domain); for each value v: h = mix64(h ^ (uint64)v); u = (h >> 11) * 2^-53
// mix64 is the splitmix64 finalizer.
#pragma once

#include <cstdint>

namespace taskbench {

enum : uint64_t { kHashDomainPattern = 1, kHashDomainImbalance = 2 };

inline uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

inline double unit_from_hash(uint64_t h) { return static_cast<double>(h >> 11) * 0x1.0p-53; }

// Uniform in [0, 1): whether dependency j of point i (dependence set dset) is kept.
inline double pattern_uniform(uint64_t seed, long graph, long radix, long dset, long j, long i) {
  uint64_t h = mix64(seed ^ kHashDomainPattern);
  h = mix64(h ^ static_cast<uint64_t>(graph));
  h = mix64(h ^ static_cast<uint64_t>(radix));
  h = mix64(h ^ static_cast<uint64_t>(dset));
  h = mix64(h ^ static_cast<uint64_t>(j));
  h = mix64(h ^ static_cast<uint64_t>(i));
  return unit_from_hash(h);
}

// Uniform in [0, 1) for load_imbalance: the same durations on every system.
inline double imbalance_uniform(uint64_t seed, long graph, long t, long i) {
  uint64_t h = mix64(seed ^ kHashDomainImbalance);
  h = mix64(h ^ static_cast<uint64_t>(graph));
  h = mix64(h ^ static_cast<uint64_t>(t));
  h = mix64(h ^ static_cast<uint64_t>(i));
  return unit_from_hash(h);
}

}  // namespace taskbench
