// An independent, brute-force formulation of docs/spec.md §1, written from the table and not from
// graph.cc: dependence sets as plain sorted point lists. The tests compare the core to it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "taskbench/taskbench.h"

namespace spec {

using Points = std::vector<long>;

inline long mod(long a, long w) { return ((a % w) + w) % w; }

inline Points normalized(Points p) {
  std::sort(p.begin(), p.end());
  p.erase(std::unique(p.begin(), p.end()), p.end());
  return p;
}

inline Points in_range(const Points& p, long lo, long hi) {
  Points out;
  for (long x : p)
    if (x >= lo && x <= hi) out.push_back(x);
  return normalized(out);
}

// The documented hash (docs/spec.md §1), written from the SipHash paper: SipHash-2-4 of a byte
// string, key {1, 2, ..., 15, 0} (its first 8 bytes XORed with a nonzero -seed).
inline uint64_t rotl(uint64_t x, int b) { return (x << b) | (x >> (64 - b)); }

inline uint64_t siphash24(const unsigned char key[16], const std::vector<unsigned char>& msg) {
  auto word = [](const unsigned char* p) {
    uint64_t w = 0;
    for (int b = 7; b >= 0; --b) w = (w << 8) | p[b];
    return w;
  };
  const uint64_t k0 = word(key), k1 = word(key + 8);
  uint64_t v[4] = {k0 ^ 0x736f6d6570736575ULL, k1 ^ 0x646f72616e646f6dULL,
                   k0 ^ 0x6c7967656e657261ULL, k1 ^ 0x7465646279746573ULL};
  auto sip_round = [&v] {
    v[0] += v[1]; v[2] += v[3];
    v[1] = rotl(v[1], 13); v[3] = rotl(v[3], 16);
    v[1] ^= v[0]; v[3] ^= v[2];
    v[0] = rotl(v[0], 32);
    v[2] += v[1]; v[0] += v[3];
    v[1] = rotl(v[1], 17); v[3] = rotl(v[3], 21);
    v[1] ^= v[2]; v[3] ^= v[0];
    v[2] = rotl(v[2], 32);
  };
  // The message padded with zeros to a multiple of 8 bytes, the last byte its length mod 256.
  std::vector<unsigned char> padded(msg);
  while (padded.size() % 8 != 7) padded.push_back(0);
  padded.push_back(static_cast<unsigned char>(msg.size() & 0xff));
  for (size_t k = 0; k < padded.size(); k += 8) {
    const uint64_t m = word(padded.data() + k);
    v[3] ^= m;
    sip_round();
    sip_round();
    v[0] ^= m;
  }
  v[2] ^= 0xff;
  for (int r = 0; r < 4; ++r) sip_round();
  return v[0] ^ v[1] ^ v[2] ^ v[3];
}

// value(seed, {a, b, ...}) = SipHash of the longs' little-endian bytes, times 2^-64.
inline double uniform(uint64_t seed, std::vector<long> values) {
  unsigned char key[16];
  for (int b = 0; b < 16; ++b) key[b] = static_cast<unsigned char>((b + 1) % 16);
  for (int b = 0; b < 8; ++b) key[b] ^= static_cast<unsigned char>(seed >> (8 * b));
  std::vector<unsigned char> bytes;
  for (long v : values)
    for (int b = 0; b < 8; ++b) bytes.push_back(static_cast<unsigned char>(static_cast<uint64_t>(v) >> (8 * b)));
  return std::ldexp(static_cast<double>(siphash24(key, bytes)), -64);
}

// The seed of a graph, which the core keeps per graph_index (0 for a graph made by hand).
inline uint64_t seed_of(const task_graph_t& g) { return taskbench_graph_seed(g.graph_index); }

inline long dependence_sets(const task_graph_t& g) {
  switch (g.dependence) {
    case FFT: {
      long sets = 0;
      while ((1L << sets) < g.max_width) ++sets;
      return std::max(1L, sets);
    }
    case SPREAD:
    case RANDOM_NEAREST:
    case RANDOM_SPREAD: return g.period;
    default: return 1;
  }
}

inline long dset_at(const task_graph_t& g, long t) {
  long sets = dependence_sets(g);
  if (g.dependence == FFT) return (t + sets - 1) % sets;
  if (g.dependence == SPREAD || g.dependence == RANDOM_NEAREST || g.dependence == RANDOM_SPREAD)
    return t % sets;
  return 0;
}

inline long offset_at(const task_graph_t& g, long t) {
  return g.dependence == DOM ? std::max(0L, t + g.max_width - g.timesteps) : 0;
}

inline long width_at(const task_graph_t& g, long t) {
  const long w = g.max_width;
  if (g.dependence == DOM) return std::min({w, t + 1, g.timesteps - t});
  if (g.dependence == TREE) {
    long pow = 1;
    for (long k = 0; k < t && pow < w; ++k) pow *= 2;
    return std::min(w, pow);
  }
  return w;
}

// Dependencies of point i for dependence set d, before clipping to the previous row.
inline Points dependencies(const task_graph_t& g, long d, long i) {
  const long w = g.max_width, r = g.radix;
  Points p;
  auto window = [&] {
    Points n;
    if (r > 0)
      for (long j = i - r / 2; j <= i + (r - 1) / 2; ++j) n.push_back(j);
    return in_range(n, 0, w - 1);
  };
  auto spread = [&] {
    Points s;
    for (long k = 0; k < r; ++k) s.push_back(mod(i + k * w / r + (k > 0 ? d : 0), w));
    return normalized(s);
  };
  auto thin = [&](const Points& candidates) {
    Points kept;
    for (long j : candidates)
      if (j == i || uniform(seed_of(g), {g.graph_index, r, d, i, j}) < g.fraction_connected)
        kept.push_back(j);
    return kept;
  };
  switch (g.dependence) {
    case TRIVIAL: return {};
    case NO_COMM: return {i};
    case STENCIL_1D: return in_range({i - 1, i, i + 1}, 0, w - 1);
    case STENCIL_1D_PERIODIC: return normalized({mod(i - 1, w), i, mod(i + 1, w)});
    case DOM: return in_range({i - 1, i}, 0, w - 1);
    case TREE: return {i / 2};
    case FFT: return in_range({i - (1L << d), i, i + (1L << d)}, 0, w - 1);
    case ALL_TO_ALL:
      for (long j = 0; j < w; ++j) p.push_back(j);
      return p;
    case NEAREST: return window();
    case SPREAD: return spread();
    case RANDOM_NEAREST: return thin(window());
    case RANDOM_SPREAD: return thin(spread());
  }
  return p;
}

// Inputs of task (t, i): dependencies clipped to row t-1.
inline Points task_dependencies(const task_graph_t& g, long t, long i) {
  if (t == 0) return {};
  long lo = offset_at(g, t - 1);
  return in_range(dependencies(g, dset_at(g, t), i), lo, lo + width_at(g, t - 1) - 1);
}

// Consumers of (t, j): by scanning row t+1 (the core must not scan; the test may).
inline Points task_successors(const task_graph_t& g, long t, long j) {
  Points s;
  if (t + 1 >= g.timesteps) return s;
  for (long i = offset_at(g, t + 1); i < offset_at(g, t + 1) + width_at(g, t + 1); ++i) {
    Points d = task_dependencies(g, t + 1, i);
    if (std::binary_search(d.begin(), d.end(), j)) s.push_back(i);
  }
  return s;
}

}  // namespace spec
