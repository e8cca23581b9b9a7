// Kernels do their work deterministically, and memory kernels walk the whole scratch.
#include <gtest/gtest.h>

#include <vector>

#include "../src/kernels/kernels.h"

namespace {

namespace k = taskbench::kernels;

TEST(Kernels, ComputeBoundIsDeterministicAndDependsOnIterations) {
  EXPECT_EQ(k::compute_bound(100, -0.5), k::compute_bound(100, -0.5));
  EXPECT_NE(k::compute_bound(100, -0.5), k::compute_bound(101, -0.5));
  // a <- a*a + a from -0.5 stays finite and negative, tending to 0.
  double s = k::compute_bound(100000, -0.5);
  EXPECT_LT(s, 0.0);
  EXPECT_GT(s, -1.0);
  EXPECT_NE(k::compute_bound2(10, -0.5), k::compute_bound2(11, -0.5));
}

TEST(Kernels, BusyWaitRunsItsRecurrence) {
  EXPECT_EQ(k::busy_wait(0, 5), 5u);
  EXPECT_NE(k::busy_wait(3, 5), k::busy_wait(4, 5));
}

TEST(Kernels, MemoryBoundWalksEverySampleAcrossTimesteps) {
  const int samples = 8;
  const size_t bytes = 16 * samples * 4;  // 64-byte samples
  std::vector<char> scratch(bytes, 0);
  for (int s = 0; s < samples; ++s) scratch[s * 64] = static_cast<char>(s + 1);  // first halves
  // One iteration per task: timestep t touches sample t mod samples.
  for (long t = 0; t < samples; ++t) k::memory_bound(scratch.data(), bytes, 1, samples, t);
  for (int s = 0; s < samples; ++s) EXPECT_EQ(scratch[s * 64 + 32], s + 1) << "sample " << s;
}

TEST(Kernels, DaxpyUpdatesTheSecondHalf) {
  std::vector<double> scratch(64, 1.0);  // 2 samples of 32 doubles: x = 16, y = 16 each
  k::memory_daxpy(reinterpret_cast<char*>(scratch.data()), sizeof(double) * 64, 1, 2, 0);
  EXPECT_GT(scratch[16], 2.0 - 1e-6);
  EXPECT_EQ(scratch[0], 1.0);
}

TEST(Kernels, DgemmSizeIsTheFloorOfTheSquareRoot) {
  EXPECT_EQ(k::dgemm_size(24), 1);
  EXPECT_EQ(k::dgemm_size(24 * 100 - 1), 9);
  EXPECT_EQ(k::dgemm_size(24 * 100), 10);
  EXPECT_EQ(k::dgemm_size(24L * 1000000), 1000);
}

TEST(Kernels, IoBoundWritesAndReadsBack) { k::io_bound(3, 0, 0); }

}  // namespace
