// The random numbers of docs/spec.md §1 and §2: SipHash-2-4 against the vectors published with
// it, the documented values against a separate implementation (checked by hand in Python), the
// -seed table, and the random patterns' draws against the rule.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "../src/hash.h"
#include "spec_patterns.h"
#include "taskbench/app.h"

namespace {

// SipHash-2-4 with key 00 01 .. 0f over the messages 00, 00 01, ..., 00 .. 3e (the paper's
// appendix and the reference implementation's vectors).
constexpr uint64_t kVectors[64] = {
    0x726fdb47dd0e0e31, 0x74f839c593dc67fd, 0x0d6c8009d9a94f5a, 0x85676696d7fb7e2d,
    0xcf2794e0277187b7, 0x18765564cd99a68d, 0xcbc9466e58fee3ce, 0xab0200f58b01d137,
    0x93f5f5799a932462, 0x9e0082df0ba9e4b0, 0x7a5dbbc594ddb9f3, 0xf4b32f46226bada7,
    0x751e8fbc860ee5fb, 0x14ea5627c0843d90, 0xf723ca908e7af2ee, 0xa129ca6149be45e5,
    0x3f2acc7f57c29bdb, 0x699ae9f52cbe4794, 0x4bc1b3f0968dd39c, 0xbb6dc91da77961bd,
    0xbed65cf21aa2ee98, 0xd0f2cbb02e3b67c7, 0x93536795e3a33e88, 0xa80c038ccd5ccec8,
    0xb8ad50c6f649af94, 0xbce192de8a85b8ea, 0x17d835b85bbb15f3, 0x2f2e6163076bcfad,
    0xde4daaaca71dc9a5, 0xa6a2506687956571, 0xad87a3535c49ef28, 0x32d892fad841c342,
    0x7127512f72f27cce, 0xa7f32346f95978e3, 0x12e0b01abb051238, 0x15e034d40fa197ae,
    0x314dffbe0815a3b4, 0x027990f029623981, 0xcadcd4e59ef40c4d, 0x9abfd8766a33735c,
    0x0e3ea96b5304a7d0, 0xad0c42d6fc585992, 0x187306c89bc215a9, 0xd4a60abcf3792b95,
    0xf935451de4f21df2, 0xa9538f0419755787, 0xdb9acddff56ca510, 0xd06c98cd5c0975eb,
    0xe612a3cb9ecba951, 0xc766e62cfcadaf96, 0xee64435a9752fe72, 0xa192d576b245165a,
    0x0a8787bf8ecb74b2, 0x81b3e73d20b49b6f, 0x7fa8220ba3b2ecea, 0x245731c13ca42499,
    0xb78dbfaf3a8d83bd, 0xea1ad565322a1a0b, 0x60e61c23a3795013, 0x6606d7e446282b93,
    0x6ca4ecb15c5f91e1, 0x9f626da15c9625f3, 0xe51b38608ef25f57, 0x958a324ceb064572};

TEST(Hash, SipHash24MatchesThePublishedVectors) {
  unsigned char key[16], message[64];
  for (int k = 0; k < 16; ++k) key[k] = static_cast<unsigned char>(k);
  for (int k = 0; k < 64; ++k) message[k] = static_cast<unsigned char>(k);
  const uint64_t k0 = 0x0706050403020100ULL, k1 = 0x0f0e0d0c0b0a0908ULL;
  for (int n = 0; n < 64; ++n) {
    EXPECT_EQ(taskbench::siphash::hash(k0, k1, message, n), kVectors[n]) << n << " bytes";
    EXPECT_EQ(spec::siphash24(key, std::vector<unsigned char>(message, message + n)), kVectors[n])
        << n << " bytes (spec_patterns.h)";
  }
}

TEST(Hash, ValuesAreTheDocumentedOnes) {
  // SipHash-2-4, key {1, ..., 15, 0}, of the longs' little-endian bytes, computed separately
  // (a Python SipHash checked on the same published vectors).
  const long a[5] = {0, 3, 0, 5, 4}, b[5] = {1, 5, 2, 7, 9}, c[3] = {0, 1, 2};
  EXPECT_EQ(taskbench::hashed_value(0, a, 5), std::ldexp(static_cast<double>(0xe961b910f3a43128ULL), -64));
  EXPECT_EQ(taskbench::hashed_value(0, b, 5), std::ldexp(static_cast<double>(0x86e6612e6a6e579aULL), -64));
  EXPECT_EQ(taskbench::hashed_value(0, c, 3), std::ldexp(static_cast<double>(0x7ae83b93a78124acULL), -64));
  EXPECT_EQ(spec::uniform(0, {0, 3, 0, 5, 4}), taskbench::hashed_value(0, a, 5));
  EXPECT_EQ(spec::uniform(12345, {1, 5, 2, 7, 9}), taskbench::hashed_value(12345, b, 5));
  EXPECT_NE(taskbench::hashed_value(1, a, 5), taskbench::hashed_value(0, a, 5));
}

TEST(Hash, RandomEdgesFollowTheRule) {
  // Consumer c keeps producer p when p == c or value({graph, radix, dset, c, p}) < fraction.
  for (unsigned long seed : {0UL, 9UL}) {
    task_graph_t g{};
    g.graph_index = 3;
    g.timesteps = 4;
    g.max_width = 40;
    g.dependence = RANDOM_NEAREST;
    g.radix = 7;
    g.period = 2;
    g.fraction_connected = 0.4;
    taskbench_set_graph_seed(g.graph_index, seed);
    EXPECT_EQ(taskbench_graph_seed(g.graph_index), seed);
    for (long dset = 0; dset < 2; ++dset) {
      const taskbench::RandomEdges edges(g, dset);
      for (long c = 0; c < 40; ++c)
        for (long p = 0; p < 40; ++p) {
          const long v[5] = {g.graph_index, g.radix, dset, c, p};
          ASSERT_EQ(edges.kept(c, p), c == p || taskbench::hashed_value(seed, v, 5) < 0.4);
        }
    }
  }
  taskbench_set_graph_seed(3, 0);
}

TEST(Hash, LoadImbalanceIterationsFollowTheRule) {
  task_graph_t g{};
  g.graph_index = 1;
  g.timesteps = 5;
  g.max_width = 6;
  g.kernel = kernel_t{LOAD_IMBALANCE, 1000, 16, 1.5};
  for (long t = 0; t < 5; ++t)
    for (long i = 0; i < 6; ++i) {
      const double u = spec::uniform(0, {1, t, i});
      EXPECT_EQ(task_graph_flops_per_task(g, t, i), 128 * std::lround((1 + (u - 0.5) * 1.5) * 1000) + 64);
    }
}

TEST(Hash, AnAppKeepsItsGraphsSeedsAndGivesThemBack) {
  EXPECT_EQ(taskbench_graph_seed(0), 0u);
  {
    const char* argv[] = {"t", "-type", "random_nearest", "-seed", "5", "-and", "-type", "stencil_1d",
                          "-and", "-seed", "77"};
    taskbench::App app(11, const_cast<char**>(argv));
    EXPECT_EQ(taskbench_graph_seed(0), 5u);
    EXPECT_EQ(taskbench_graph_seed(1), 0u);
    EXPECT_EQ(taskbench_graph_seed(2), 77u);
    EXPECT_EQ(taskbench_graph_seed(3), 0u);
    EXPECT_NE(app.graphs()[0].describe().find("seed 5"), std::string::npos);
  }
  EXPECT_EQ(taskbench_graph_seed(0), 0u);  // graphs made by hand get the default again
  EXPECT_EQ(taskbench_graph_seed(2), 0u);
}

}  // namespace
