// The GPU task body (core/gpu/task_body.h) run on the host, lane by lane as a warp would, against
// the CPU core: the same identities, the same corrupt byte found, the same kernel results. The
// CUDA build compiles this body for the device; here it is tested where no GPU is.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <random>
#include <vector>

#include "../gpu/task_body.h"
#include "../src/kernels/kernels.h"
#include "../src/validate.h"

namespace {

namespace gpu = taskbench::gpu;
constexpr int kWarp = 32;

TEST(GpuTaskBody, IdentityWrittenByAWarpEqualsTheCores) {
  for (size_t bytes : {16, 17, 24, 31, 100, 256, 1000}) {
    std::vector<char> warp(bytes, 0), core(bytes, 0);
    for (int lane = 0; lane < kWarp; ++lane) gpu::write_identity(warp.data(), bytes, 7, 3, lane, kWarp);
    taskbench::write_identity(core.data(), bytes, 7, 3);
    EXPECT_EQ(warp, core) << bytes << " bytes";
  }
}

long warp_first_bad_byte(const std::vector<char>& buf, long t, long i) {
  long first = LONG_MAX;
  for (int lane = 0; lane < kWarp; ++lane) {
    const long bad = gpu::first_bad_byte(buf.data(), buf.size(), t, i, lane, kWarp);
    if (bad >= 0) first = std::min(first, bad);
  }
  return first == LONG_MAX ? -1 : first;
}

TEST(GpuTaskBody, ACheckedInputNamesItsFirstCorruptByte) {
  for (size_t bytes : {16, 24, 33, 4096}) {
    std::vector<char> buf(bytes);
    taskbench::write_identity(buf.data(), bytes, 4, 9);
    EXPECT_EQ(warp_first_bad_byte(buf, 4, 9), -1) << bytes;
    EXPECT_EQ(warp_first_bad_byte(buf, 4, 8), 8) << "another producer's identity, " << bytes;
    for (size_t b : {size_t{0}, bytes / 2, bytes - 1}) {
      std::vector<char> bad = buf;
      bad[b] ^= 0x5a;  // what TASKBENCH_FAULT=corrupt does to byte 0
      bad[bytes - 1] ^= 0x01;  // and a later byte: the first must be reported
      if (b == bytes - 1) bad[b] ^= 0x01;
      EXPECT_EQ(warp_first_bad_byte(bad, 4, 9), static_cast<long>(b)) << bytes << " bytes, byte " << b;
    }
  }
}

template <int Doubles>
double warp_sum(long iterations, double seed) {
  double sum = 0;
  for (int lane = 0; lane < kWarp; ++lane) sum += gpu::fma_chains<Doubles, kWarp>(iterations, seed, lane);
  return sum;
}

TEST(GpuTaskBody, ComputeKernelsComputeWhatTheCpuKernelsDo) {
  for (long its : {0L, 1L, 100L, 5000L}) {
    const double seed = -0.5 + 1e-6 * 17;
    const double cpu = taskbench::kernels::compute_bound(its, seed);
    EXPECT_NEAR(warp_sum<64>(its, seed), cpu, 1e-12 * std::fabs(cpu) + 1e-300) << its;
    EXPECT_NEAR((gpu::fma_chains<64, 1>(its, seed, 0)), cpu, 1e-12 * std::fabs(cpu) + 1e-300) << its;
    const double cpu2 = taskbench::kernels::compute_bound2(its, seed);
    EXPECT_NEAR(warp_sum<32>(its, seed), cpu2, 1e-12 * std::fabs(cpu2) + 1e-300) << its;
  }
  EXPECT_NE(warp_sum<64>(100, -0.5), warp_sum<64>(101, -0.5));
}

TEST(GpuTaskBody, BusyWaitIsTheCpusRecurrence) {
  for (long its : {0L, 1L, 1000L}) EXPECT_EQ(gpu::busy_wait(its, 41), taskbench::kernels::busy_wait(its, 41));
}

TEST(GpuTaskBody, MemoryKernelsLeaveTheScratchAsTheCpuKernelsDo) {
  const int samples = 4;
  const size_t bytes = 16 * samples * 8;  // 128-byte samples
  std::mt19937_64 random(5);
  std::vector<double> start(bytes / sizeof(double));
  for (double& v : start) v = std::uniform_real_distribution<double>(-1, 1)(random);
  for (bool daxpy : {false, true})
    for (long t : {0L, 3L, 6L})
      for (long its : {1L, 3L, 9L}) {
        std::vector<double> cpu = start, warp = start;
        char* c = reinterpret_cast<char*>(cpu.data());
        char* w = reinterpret_cast<char*>(warp.data());
        if (daxpy) taskbench::kernels::memory_daxpy(c, bytes, its, samples, t);
        else taskbench::kernels::memory_bound(c, bytes, its, samples, t);
        // Lanes one after the other: each touches only its own words of every sample.
        for (int lane = 0; lane < kWarp; ++lane)
          gpu::memory_kernel(daxpy, w, bytes, its, samples, t, lane, kWarp);
        for (size_t k = 0; k < cpu.size(); ++k)
          ASSERT_NEAR(warp[k], cpu[k], 1e-15 * std::fabs(cpu[k])) << (daxpy ? "daxpy" : "copy") << " t=" << t
                                                                  << " its=" << its << " word " << k;
        EXPECT_NE(cpu, start);
      }
}

// One lane on the host, with the failure record a real warp shares through device memory.
struct RecordingLane {
  gpu::Failure* record;
  long executed = 0;
  bool stopped() const { return record->failed != 0; }
  long min(long v) const { return v; }
  double sum(double v) const { return v; }
  void sync() const {}
  void fail(const gpu::GraphDesc& g, long t, long i, int what, long input, long want, long ft, long fi, long byte) {
    if (!record->failed) *record = gpu::Failure{1, what, g.graph, t, i, input, want, ft, fi, byte};
  }
  void hang() const {}
  void keep(double) const {}
  void count() { ++executed; }
};

TEST(GpuTaskBody, TheFirstFailedCheckStopsEveryLaterTask) {
  gpu::GraphDesc g{};
  g.kernel = gpu::Kernel::kEmpty;
  g.output_bytes = 32;
  g.corrupt_t = g.corrupt_i = g.hang_t = g.hang_i = -1;
  std::vector<char> good(32), stale(32), out(32, 0);
  taskbench::write_identity(good.data(), 32, 0, 1);
  taskbench::write_identity(stale.data(), 32, 0, 2);  // another producer's output
  gpu::Failure record{};
  RecordingLane lane{&record};
  struct Input {  // what gpu::Input is (gpu.h needs the CUDA headers)
    const char* data;
    long point;
  };
  const Input ok[] = {{good.data(), 1}}, wrong[] = {{stale.data(), 1}};

  gpu::run_task<1>(g, 1, 0, ok, 1, out.data(), nullptr, 0, lane);
  EXPECT_EQ(lane.executed, 1);
  gpu::run_task<1>(g, 1, 1, wrong, 1, out.data(), nullptr, 0, lane);
  ASSERT_EQ(record.failed, 1);
  EXPECT_EQ(record.t, 1);
  EXPECT_EQ(record.i, 1);
  // An independent task queued after the failure, with good inputs: it neither runs nor writes.
  std::vector<char> untouched(32, 0x11), before = untouched;
  gpu::run_task<1>(g, 1, 2, ok, 1, untouched.data(), nullptr, 0, lane);
  EXPECT_EQ(untouched, before);
  EXPECT_EQ(lane.executed, 1);
  EXPECT_EQ(record.i, 1) << "the first failure stays the one on record";
}

}  // namespace
