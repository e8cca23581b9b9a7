// The random numbers of taskbench (docs/spec.md §1, "Random patterns"), the original Task
// Bench's: SipHash-2-4 (Aumasson and Bernstein, 2012) with the 16-byte key {1, 2, ..., 15, 0},
// over the bytes of an array of `long` values in little-endian order, the 64-bit output read
// as value = hash * 2^-64. Every binding gets its graphs from the core, so every system runs
// the same random graph, and with -seed 0 (the default) the original's.
//   random_nearest / random_spread: consumer c keeps producer p (dependence set d) when
//     p == c or value({graph_index, radix, d, c, p}) < fraction_connected;
//   load_imbalance: value({graph_index, t, i}).
// -seed s != 0 XORs s into the key's first eight bytes (read as a little-endian integer).
#pragma once

#include <cstdint>
#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "taskbench/taskbench.h"

namespace taskbench {

namespace siphash {

inline uint64_t rotl(uint64_t x, int b) { return (x << b) | (x >> (64 - b)); }

typedef uint64_t Lanes __attribute__((vector_size(64)));
// Every function taking or returning Lanes is inline and compiled with its callers' flags, so
// GCC's note that 64-byte vectors pass differently with and without AVX-512 does not apply.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

inline Lanes rotl(const Lanes& x, int b) { return (x << b) | (x >> (64 - b)); }

// One SipRound, on one hash (uint64_t) or on eight at once (Lanes).
template <class T>
inline void sip_round(T& v0, T& v1, T& v2, T& v3) {
  v0 += v1;
  v1 = rotl(v1, 13);
  v1 ^= v0;
  v0 = rotl(v0, 32);
  v2 += v3;
  v3 = rotl(v3, 16);
  v3 ^= v2;
  v0 += v3;
  v3 = rotl(v3, 21);
  v3 ^= v0;
  v2 += v1;
  v1 = rotl(v1, 17);
  v1 ^= v2;
  v2 = rotl(v2, 32);
}

// The four-word state; absorb() takes one 8-byte little-endian message word.
struct State {
  uint64_t v0, v1, v2, v3;

  State(uint64_t k0, uint64_t k1)
      : v0(k0 ^ 0x736f6d6570736575ULL),
        v1(k1 ^ 0x646f72616e646f6dULL),
        v2(k0 ^ 0x6c7967656e657261ULL),
        v3(k1 ^ 0x7465646279746573ULL) {}

  void round() { sip_round(v0, v1, v2, v3); }

  void absorb(uint64_t m) {  // two compression rounds (the "2" of SipHash-2-4)
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  }

  // The last block (the message's remaining bytes, `tail`, with its length in the top byte)
  // and four finalization rounds.
  uint64_t finish(uint64_t tail, uint64_t total_bytes) {
    absorb(tail | (total_bytes << 56));
    v2 ^= 0xff;
    round();
    round();
    round();
    round();
    return v0 ^ v1 ^ v2 ^ v3;
  }
};

// SipHash-2-4 of `n` bytes, the general form (the tests check it on the paper's vectors).
inline uint64_t hash(uint64_t k0, uint64_t k1, const unsigned char* bytes, uint64_t n) {
  State s(k0, k1);
  uint64_t k = 0;
  for (; k + 8 <= n; k += 8) {
    uint64_t m = 0;
    for (int b = 0; b < 8; ++b) m |= static_cast<uint64_t>(bytes[k + b]) << (8 * b);
    s.absorb(m);
  }
  uint64_t tail = 0;
  for (int b = 0; k + b < n; ++b) tail |= static_cast<uint64_t>(bytes[k + b]) << (8 * b);
  return s.finish(tail, n);
}

// The original's key {1, 2, ..., 15, 0} as two little-endian words.
constexpr uint64_t kKey0 = 0x0807060504030201ULL;
constexpr uint64_t kKey1 = 0x000f0e0d0c0b0a09ULL;

// Eight hashes at once from one state (lane l absorbs words[0][l], ..., words[W-1][l], then the
// last block of an 8·`total_words`-byte message), in GCC/Clang vector types: one instruction per
// step for all eight lanes with AVX-512, two with AVX2, plain code elsewhere.
// Returns bit l set when lane l's hash is below `threshold` (threshold_of: value < fraction).
template <int W>
inline unsigned below8(const State& from, const Lanes (&words)[W], uint64_t total_words,
                       uint64_t threshold) {
  Lanes v0 = from.v0 - Lanes{}, v1 = from.v1 - Lanes{}, v2 = from.v2 - Lanes{}, v3 = from.v3 - Lanes{};
  auto round = [&] { sip_round(v0, v1, v2, v3); };
  for (int w = 0; w < W; ++w) {
    const Lanes m = words[w];
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  }
  const uint64_t last = (8 * total_words) << 56;
  v3 ^= last;
  round();
  round();
  v0 ^= last;
  v2 ^= 0xff;
  round();
  round();
  round();
  round();
  const Lanes h = v0 ^ v1 ^ v2 ^ v3;
#if defined(__AVX512F__)
  __m512i hv;
  __builtin_memcpy(&hv, &h, sizeof hv);
  return _mm512_cmplt_epu64_mask(hv, _mm512_set1_epi64(static_cast<long long>(threshold)));
#else
  const Lanes below = h < threshold;  // all ones where below
  unsigned mask = 0;
  for (int l = 0; l < 8; ++l) mask |= static_cast<unsigned>(below[l] & 1) << l;
  return mask;
#endif
}

// Bit l set where a[l] == b[l].
inline unsigned equal8(const Lanes& a, const Lanes& b) {
#if defined(__AVX512F__)
  __m512i x, y;
  __builtin_memcpy(&x, &a, sizeof x);
  __builtin_memcpy(&y, &b, sizeof y);
  return _mm512_cmpeq_epu64_mask(x, y);
#else
  const Lanes eq = a == b;
  unsigned mask = 0;
  for (int l = 0; l < 8; ++l) mask |= static_cast<unsigned>(eq[l] & 1) << l;
  return mask;
#endif
}

// Lanes {first, first + 1, ..., first + 7}.
inline Lanes iota8(long first) {
  return static_cast<uint64_t>(first) + Lanes{0, 1, 2, 3, 4, 5, 6, 7};
}

}  // namespace siphash

// A hash value as a number in [0, 1]: hash * 2^-64 (rounded to a double, as the original).
inline double unit_from_hash(uint64_t h) { return static_cast<double>(h) * 0x1.0p-64; }

// The least hash whose value is not below `fraction` (every hash below it has value < fraction,
// rounding being monotonic), so that the patterns compare integers: value < fraction exactly
// when hash < threshold_of(fraction). For fraction <= 1 the largest hash has value 1.
inline uint64_t threshold_of(double fraction) {
  uint64_t lo = 0, hi = ~0ULL;  // the answer is in [lo, hi]
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (unit_from_hash(mid) < fraction) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// value() of an array of `long`s: each value is one message word (its native bytes, which the
// spec fixes as little-endian, as on every platform taskbench runs on).
inline double hashed_value(uint64_t seed, const long* values, int n) {
  siphash::State s(siphash::kKey0 ^ seed, siphash::kKey1);
  for (int k = 0; k < n; ++k) s.absorb(static_cast<uint64_t>(values[k]));
  return unit_from_hash(s.finish(0, 8 * static_cast<uint64_t>(n)));
}

// The random patterns' draws for one query: the state after {graph_index, radix, dset} is
// computed once (and kept per thread for the next queries of the same graph and set), each edge
// absorbs only its two points (consumer, producer), or only the producer when the consumer is
// fixed, and the edges are hashed eight at a time (siphash::below8), compared as integers
// (threshold_of). kept() is the one-edge form, for the tests.
class RandomEdges {
 public:
  RandomEdges(const task_graph_t& g, long dset) : fraction_(g.fraction_connected) {
    const Cached& c = prefix(g, dset);
    prefix_.v0 = c.v[0];
    prefix_.v1 = c.v[1];
    prefix_.v2 = c.v[2];
    prefix_.v3 = c.v[3];
    threshold_ = c.threshold;
  }

  // Whether `consumer` keeps its dependency on `producer`.
  bool kept(long consumer, long producer) const {
    if (consumer == producer) return true;
    siphash::State s = prefix_;
    s.absorb(static_cast<uint64_t>(consumer));
    s.absorb(static_cast<uint64_t>(producer));
    return unit_from_hash(s.finish(0, 40)) < fraction_;
  }

  // Bit k: whether consumer c[k] keeps producer p[k], for k < n <= 8.
  unsigned kept8(const long* c, const long* p, int n) const {
    siphash::Lanes words[2] = {};
    for (int k = 0; k < n; ++k) {
      words[0][k] = static_cast<uint64_t>(c[k]);
      words[1][k] = static_cast<uint64_t>(p[k]);
    }
    return kept8(words[0], words[1], n);
  }
  unsigned kept8(const siphash::Lanes& consumers, const siphash::Lanes& producers, int n) const {
    const siphash::Lanes words[2] = {consumers, producers};
    return (siphash::below8<2>(prefix_, words, 5, threshold_) | siphash::equal8(consumers, producers)) &
           ((1u << n) - 1);
  }

  // The draws of one consumer's producers: the consumer absorbed once.
  class Consumer {
   public:
    Consumer(const RandomEdges& e, long consumer)
        : s_(e.prefix_), threshold_(e.threshold_), consumer_(consumer) {
      s_.absorb(static_cast<uint64_t>(consumer));
    }
    // Bit k: whether the consumer keeps producer p[k], for k < n <= 8.
    unsigned kept8(const long* p, int n) const {
      siphash::Lanes producers = {};
      for (int k = 0; k < n; ++k) producers[k] = static_cast<uint64_t>(p[k]);
      return kept8(producers, n);
    }
    unsigned kept8(const siphash::Lanes& producers, int n) const {
      const siphash::Lanes words[1] = {producers};
      return (siphash::below8<1>(s_, words, 5, threshold_) |
              siphash::equal8(producers, static_cast<uint64_t>(consumer_) - siphash::Lanes{})) &
             ((1u << n) - 1);
    }

   private:
    siphash::State s_;
    uint64_t threshold_;
    long consumer_;
  };

 private:
  // The state after {graph_index, radix, dset} and the fraction's threshold; the last few are
  // kept per thread (one entry per dset modulo 4: a system's queries alternate between two
  // consecutive sets).
  struct Cached {  // plain data, so that the thread_local needs no initialization guard
    uint64_t seed;
    long graph, radix, dset;
    double fraction;
    uint64_t v[4];  // the state
    uint64_t threshold;
  };
  static const Cached& prefix(const task_graph_t& g, long dset) {
    static thread_local Cached cache[4] = {{0, -1, -1, -1, -1.0, {}, 0},
                                           {0, -1, -1, -1, -1.0, {}, 0},
                                           {0, -1, -1, -1, -1.0, {}, 0},
                                           {0, -1, -1, -1, -1.0, {}, 0}};
    Cached& cached = cache[dset & 3];
    const uint64_t seed = taskbench_graph_seed(g.graph_index);
    if (cached.graph != g.graph_index || cached.dset != dset || cached.radix != g.radix ||
        cached.seed != seed || cached.fraction != g.fraction_connected) {
      siphash::State s(siphash::kKey0 ^ seed, siphash::kKey1);
      s.absorb(static_cast<uint64_t>(g.graph_index));
      s.absorb(static_cast<uint64_t>(g.radix));
      s.absorb(static_cast<uint64_t>(dset));
      cached = Cached{seed, g.graph_index, g.radix, dset, g.fraction_connected,
                      {s.v0, s.v1, s.v2, s.v3}, threshold_of(g.fraction_connected)};
    }
    return cached;
  }

  siphash::State prefix_{0, 0};
  double fraction_;
  uint64_t threshold_ = 0;
};

// load_imbalance's value for task (t, i) of graph g: the same durations on every system.
inline double imbalance_value(const task_graph_t& g, long t, long i) {
  const long values[3] = {g.graph_index, t, i};
  return hashed_value(taskbench_graph_seed(g.graph_index), values, 3);
}

}  // namespace taskbench
