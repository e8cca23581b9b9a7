// compute_dgemm from many threads at once gives, bit for bit, what each task computes alone,
// with the BLAS this build links. Systems run one dgemm task per worker concurrently, and
// Debian's serial OpenBLAS takes its packing buffers from a pool that it does not lock: the
// lock of kernels/dgemm.cc must be in place, and this test is what proves the results right.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

#include "../src/kernels/kernels.h"

namespace {

namespace k = taskbench::kernels;

// From 1x1 up past OpenBLAS's blocking (its GEMM_Q is 256-384 on x86 cores), so that both the
// small-matrix paths and the pooled packing buffers run.
constexpr long kSizes[] = {1, 2, 5, 16, 31, 64, 127, 200, 256, 384};
constexpr int kThreads = 8;  // more threads than cores, so the pool is contended and calls interleave
constexpr int kRounds = 3;

size_t scratch_bytes(long n) { return 24 * static_cast<size_t>(n * n); }

// Inputs differ per thread, so a packing buffer that leaked between two callers would show.
std::vector<char> make_inputs(long n, int thread) {
  std::vector<char> scratch(scratch_bytes(n));
  double* m = reinterpret_cast<double*>(scratch.data());
  for (long x = 0; x < 2 * n * n; ++x) m[x] = static_cast<double>((x * 7 + thread * 13) % 23) - 11.0 + 0.25 * thread;
  return scratch;
}

// The product C = A.B that compute_dgemm leaves in the last third of the scratch.
std::vector<char> product_of(const std::vector<char>& scratch, long n) {
  const size_t offset = 16 * static_cast<size_t>(n * n);
  return std::vector<char>(scratch.begin() + static_cast<std::ptrdiff_t>(offset), scratch.end());
}

TEST(DgemmConcurrency, EveryConcurrentResultEqualsTheOneComputedAlone) {
  if (!k::dgemm_available()) GTEST_SKIP() << "this build has no BLAS";
  RecordProperty("blas", k::blas_runtime());
  std::printf("BLAS: %s\n", k::blas_runtime().c_str());

  std::vector<std::vector<std::vector<char>>> alone(kThreads);
  for (int th = 0; th < kThreads; ++th)
    for (long n : kSizes) {
      std::vector<char> scratch = make_inputs(n, th);
      k::compute_dgemm(scratch.data(), scratch.size(), 1);
      alone[th].push_back(product_of(scratch, n));
    }

  std::atomic<int> ready{0};
  std::vector<int> mismatches(kThreads, 0);
  std::vector<std::thread> threads;
  for (int th = 0; th < kThreads; ++th)
    threads.emplace_back([&, th] {
      ready.fetch_add(1);
      while (ready.load() < kThreads) std::this_thread::yield();
      const int count = static_cast<int>(std::size(kSizes));
      for (int step = 0; step < kRounds * count; ++step) {
        const int s = (step + th) % count;  // threads start at different sizes
        const long n = kSizes[s];
        std::vector<char> scratch = make_inputs(n, th);
        k::compute_dgemm(scratch.data(), scratch.size(), 1);
        if (product_of(scratch, n) != alone[th][s]) ++mismatches[th];
      }
    });
  for (std::thread& t : threads) t.join();
  for (int th = 0; th < kThreads; ++th)
    EXPECT_EQ(mismatches[th], 0) << "concurrent products differ from the ones computed alone, thread " << th;
  // The products above needed packing buffers: each was taken through the lock of dgemm.cc.
  EXPECT_GT(k::blas_pool_takes(), 0) << "OpenBLAS does not call the locked blas_memory_alloc";
}

// The product computed alone is the product: checked against a plain triple loop.
TEST(DgemmConcurrency, TheProductComputedAloneIsAB) {
  if (!k::dgemm_available()) GTEST_SKIP() << "this build has no BLAS";
  const long n = 31;
  std::vector<char> scratch = make_inputs(n, 3);
  const double* a = reinterpret_cast<const double*>(scratch.data());
  const double* b = a + n * n;
  std::vector<double> want(static_cast<size_t>(n * n), 0.0);
  for (long r = 0; r < n; ++r)
    for (long c = 0; c < n; ++c)
      for (long x = 0; x < n; ++x) want[r * n + c] += a[r * n + x] * b[x * n + c];
  k::compute_dgemm(scratch.data(), scratch.size(), 1);
  const double* got = a + 2 * n * n;
  for (long x = 0; x < n * n; ++x) ASSERT_NEAR(got[x], want[x], 1e-9 * (1 + std::abs(want[x]))) << x;
}

// The comparison above can fail: a product computed from other inputs differs.
TEST(DgemmConcurrency, ProductsOfDifferentInputsDiffer) {
  if (!k::dgemm_available()) GTEST_SKIP() << "this build has no BLAS";
  std::vector<char> a = make_inputs(31, 0), b = make_inputs(31, 1);
  k::compute_dgemm(a.data(), a.size(), 1);
  k::compute_dgemm(b.data(), b.size(), 1);
  EXPECT_NE(product_of(a, 31), product_of(b, 31));
}

}  // namespace
