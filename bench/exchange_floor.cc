// The shared-memory floor of a width-2 stencil on 2 cores: what any system pays per row when
// each core runs one column, since every task needs the other column's previous output.
//
//   one-way   half a ping-pong of one cache line between the two threads;
//   exchange  per row: write 16 bytes and a flag in one line, wait for the other thread's
//             flag, read its bytes (the data feeds the next write, as a task's input does);
//   row       per row: the same loop running the core's execute_point (stencil_1d, width 2,
//             empty kernel, inputs validated): no runtime at all, one column per thread,
//             output and flag pushed to the shared cache (CLDEMOTE) for the other core.
//
// Each row costs the kernel's time plus `row`, and the dependence keeps that cost on the
// critical path, so efficiency is k / (k + row): METG(50%) on this pattern is at least
// 2 x row here, whatever the runtime. Usage: bench_exchange_floor [rows [reps]]; best of reps.
#include <immintrin.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "taskbench/app.h"
#include "taskbench/point_buffers.h"

namespace {

// The first two CPUs this process may run on (taskset and mpirun bindings respected).
std::vector<int> two_cpus() {
  cpu_set_t set;
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    for (int c = 0; c < CPU_SETSIZE && cpus.size() < 2; ++c)
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}
std::vector<int> cpus;

void pin(int thread) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpus[thread], &set);
  if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0) {
    std::fprintf(stderr, "bench_exchange_floor: cannot pin a thread to CPU %d\n", cpus[thread]);
    std::exit(1);
  }
}

void relax() { __builtin_ia32_pause(); }

// Runs body(thread) on two threads pinned to the two CPUs; returns ns per row of thread 0.
template <class Body>
double timed_pair(long rows, Body body) {
  std::atomic<int> ready{0};
  double start = 0;
  auto run = [&](int me) {
    pin(me);
    ready.fetch_add(1);
    while (ready.load() < 2) relax();
    if (me == 0) start = taskbench::wall_time();  // both threads started and pinned
    body(me);
  };
  std::thread other(run, 1);
  run(0);
  const double elapsed = taskbench::wall_time() - start;
  other.join();
  return elapsed / double(rows) * 1e9;
}

struct alignas(128) Line {
  std::atomic<long> flag{-1};
  long data[2] = {0, 0};
};

double one_way(long rows) {
  Line ping, pong;
  return timed_pair(rows, [&](int me) {
           for (long r = 0; r < rows; ++r)
             if (me == 0) {
               ping.flag.store(r, std::memory_order_release);
               while (pong.flag.load(std::memory_order_acquire) < r) relax();
             } else {
               while (ping.flag.load(std::memory_order_acquire) < r) relax();
               pong.flag.store(r, std::memory_order_release);
             }
         }) / 2;
}

volatile long sink;

double exchange(long rows) {
  Line lines[2][2];  // [thread][row parity]: double-buffered, as task outputs are
  return timed_pair(rows, [&](int me) {
    long acc = 0;
    for (long r = 0; r < rows; ++r) {
      if (r > 0) {
        const Line& in = lines[1 - me][(r - 1) & 1];
        while (in.flag.load(std::memory_order_acquire) < r - 1) relax();
        acc += in.data[0];
      }
      Line& out = lines[me][r & 1];
      out.data[0] = acc + r;
      out.flag.store(r, std::memory_order_release);
    }
    sink = acc;
  });
}

double no_runtime_row(long rows) {
  task_graph_t c{};
  c.timesteps = rows;
  c.max_width = 2;
  c.dependence = STENCIL_1D;
  c.kernel = kernel_t{EMPTY, 0, 16, 0};
  c.output_bytes_per_task = 16;
  const taskbench::TaskGraph g(c);
  const taskbench::PointBuffers buffers(g);
  struct alignas(128) Done {
    std::atomic<long> row{-1};
  } done[2];
  return timed_pair(rows, [&](int me) {
    for (long t = 0; t < rows; ++t) {
      // stencil_1d at width 2: both columns of row t-1, i.e. also the other thread's.
      while (t > 0 && done[1 - me].row.load(std::memory_order_acquire) < t - 1) relax();
      buffers.run(t, me);
      done[me].row.store(t, std::memory_order_release);
#ifdef __CLDEMOTE__
      _cldemote(buffers.output(t, me));  // as native does: the reader is on the other core
      _cldemote(&done[me]);
#endif
    }
  });
}

}  // namespace

int main(int argc, char** argv) {
  const long rows = argc > 1 ? std::atol(argv[1]) : 200000;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 5;
  cpus = two_cpus();
  if (rows < 2 || reps < 1 || cpus.size() < 2) {
    std::fprintf(stderr, "usage: bench_exchange_floor [rows >= 2 [reps >= 1]] (needs 2 CPUs)\n");
    return 2;
  }
  double best[3] = {1e30, 1e30, 1e30};
  for (int r = 0; r < reps; ++r) {  // interleaved, so a slow spell hits all three alike
    best[0] = std::min(best[0], one_way(rows));
    best[1] = std::min(best[1], exchange(rows));
    best[2] = std::min(best[2], no_runtime_row(rows));
  }
  std::printf("# best of %d x %ld rows, threads pinned to CPUs %d and %d\n", reps, rows, cpus[0], cpus[1]);
  std::printf("one-way cache line      %7.1f ns\n", best[0]);
  std::printf("exchange per row        %7.1f ns  (flag + 16 bytes in one line, both ways)\n", best[1]);
  std::printf("no-runtime row          %7.1f ns  (execute_point, stencil_1d, width 2, empty)\n", best[2]);
  std::printf("METG(50%%) lower bound   %7.3f us  (2 x no-runtime row)\n", 2 * best[2] / 1000);
  return 0;
}
