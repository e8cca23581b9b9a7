// The shared-memory floor of a Task Bench graph on W pinned threads: what any system pays per
// row when each thread runs a block of columns and waits for its tasks' producers, with no
// runtime at all.
//
//   one-way   half a ping-pong of one cache line between the first two threads' CPUs;
//   exchange  per row: every task waits for each producer's flag (one cache line per column)
//             and sets its own: the pattern's communication and nothing else;
//   row       the same loop running the core's execute_point (empty kernel, inputs validated,
//             gathered when the plan is built) on each task, an output and its flag pushed to
//             the shared cache (CLDEMOTE) when a thread elsewhere reads them.
//
// With -system it is instead a system of its own: the `row` loop over the whole graph given,
// with its kernel, timed and reported with the core's summary lines (every input validated,
// the last row checked), so that a METG campaign sweeps the floor beside the systems, e.g.
// `taskbench metg native --external "no_runtime=2:build/bench/bench_exchange_floor -system"`.
// (Pushing every output, as it did first, made its rows 80 ns slower than native's on no_comm:
// the thread itself read the output back from the shared cache.)
//
// A row costs the kernel's time for its tasks plus `row`, on the critical path, so with b =
// width / W columns per thread efficiency is b k / (b k + row): METG(50%) is at least
// 2 x row / b whatever the runtime. Every METG campaign runs it at its own width and pattern
// (python/taskbench/measure/placement.py).
//
// Usage: bench_exchange_floor [-workers W] [-reps N] [-system] [Task Bench graph flags]; the
// graph defaults to stencil_1d, W wide, 20000 rows, empty kernel; best of N (5).
#include <immintrin.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "taskbench/app.h"
#include "taskbench/point_buffers.h"

namespace {

constexpr char kName[] = "bench_exchange_floor";
std::vector<int> cpus;  // the CPU of each thread: the first W this process may run on

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  std::vector<int> out;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) out.push_back(c);
  return out;
}

void pin(int thread) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpus[thread], &set);
  if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0) {
    std::fprintf(stderr, "%s: cannot pin a thread to CPU %d\n", kName, cpus[thread]);
    std::exit(1);
  }
}

void relax() { __builtin_ia32_pause(); }

void push_to_shared_cache(const void* line) {
#ifdef __CLDEMOTE__
  _cldemote(const_cast<void*>(line));  // as native does: the reader is on another core
#else
  (void)line;
#endif
}

// Runs body(thread) on `workers` pinned threads, all started before the clock; ns per row.
template <class Body>
double timed(int workers, long rows, Body body) {
  std::atomic<int> ready{0};
  double start = 0;
  auto run = [&](int me) {
    pin(me);
    ready.fetch_add(1);
    while (ready.load() < workers) relax();
    if (me == 0) start = taskbench::wall_time();
    body(me);
  };
  std::vector<std::thread> others;
  for (int w = 1; w < workers; ++w) others.emplace_back(run, w);
  run(0);
  for (auto& t : others) t.join();
  return (taskbench::wall_time() - start) / double(rows) * 1e9;
}

struct alignas(128) Flag {
  std::atomic<long> row{-1};
};

double one_way(long rows) {
  Flag ping, pong;
  return timed(2, rows, [&](int me) {
           for (long r = 0; r < rows; ++r)
             if (me == 0) {
               ping.row.store(r, std::memory_order_release);
               while (pong.row.load(std::memory_order_acquire) < r) relax();
             } else {
               while (ping.row.load(std::memory_order_acquire) < r) relax();
               pong.row.store(r, std::memory_order_release);
             }
         }) / 2;
}

// Each thread's tasks in row order, computed before the clock (a runtime's persistent graph has
// them at hand too), as one stream of ints read front to back: per task its column, whether a
// task on another thread reads its output, its number of producers on other threads and their
// columns, then its number of inputs and their columns; -1 ends a row. (Three arrays indexed
// per task made a width-2 stencil row 50 ns slower than this.)
std::vector<std::vector<int>> plan(const taskbench::TaskGraph& g, long rows, int workers) {
  std::vector<std::vector<int>> plans(workers);
  std::vector<taskbench::Interval> deps(g.max_intervals());
  const long width = g.max_width();
  std::vector<int> owner(width);
  for (int w = 0; w < workers; ++w)
    for (long i = width * w / workers; i < width * (w + 1) / workers; ++i) owner[i] = w;
  auto row_of = [&](long t, auto each) {  // each(i, producer j) over row t's dependencies
    for (long i = g.offset(t); i < g.offset(t) + g.width(t); ++i) {
      const long n = t > 0 ? g.task_dependencies(t, i, deps.data()) : 0;
      for (long d = 0; d < n; ++d)
        for (long j = deps[d].start; j <= deps[d].end; ++j) each(i, j);
    }
  };
  std::vector<char> read_elsewhere(width);
  // inputs[i] of row t, then of row t+1 (which also says who reads row t's outputs elsewhere).
  std::vector<std::vector<int>> inputs(width), next(width);
  row_of(0, [&](long i, long j) { inputs[i].push_back(int(j)); });
  for (long t = 0; t < rows; ++t) {
    std::fill(read_elsewhere.begin(), read_elsewhere.end(), 0);
    for (auto& in : next) in.clear();
    if (t + 1 < rows)
      row_of(t + 1, [&](long i, long j) {
        next[i].push_back(int(j));
        read_elsewhere[j] |= owner[j] != owner[i];
      });
    for (long i = g.offset(t); i < g.offset(t) + g.width(t); ++i) {
      std::vector<int>& code = plans[owner[i]];
      code.push_back(int(i));
      code.push_back(read_elsewhere[i]);
      // Producers of this thread's own columns ran before it, in row order: no wait.
      const size_t count = code.size();
      code.push_back(0);
      for (int j : inputs[i])
        if (owner[j] != owner[i]) code.push_back(j);
      code[count] = int(code.size() - count - 1);
      code.push_back(int(inputs[i].size()));
      code.insert(code.end(), inputs[i].begin(), inputs[i].end());
    }
    for (auto& code : plans) code.push_back(-1);
    inputs.swap(next);
  }
  return plans;
}

// Rows of outputs kept per column: a thread may run this many rows ahead of the slowest before
// it would overwrite an input that another thread has yet to read. 8: the fewest lines per
// column at which the check below costs nothing measurable (2 fields: 25% slower rows, as the
// check then runs every row; 64: 5-15%, more lines to move between caches).
constexpr int kFields = 8;

// One pass over every row: each task waits for its producers' flags of row t-1, runs
// execute_point when `execute`, and sets its column's flag to t.
template <bool execute>
double pass(const taskbench::TaskGraph& g, long rows, const std::vector<std::vector<int>>& plans,
            int workers, const taskbench::PointBuffers& buffers) {
  std::vector<Flag> done(g.max_width()), progress(workers);
  return timed(workers, rows, [&](int me) {
    const int* code = plans[me].data();
    std::vector<const char*> inputs(std::max(1L, g.max_dependencies()));
    const std::vector<size_t> sizes(inputs.size(), g.output_bytes());
    const size_t stride = taskbench::PointBuffers::stride(g.output_bytes());
    long slowest = -1;  // a row every thread had finished when last looked at
    for (long t = 0; t < rows; ++t) {
      if constexpr (execute) {
        if (t - kFields + 1 > slowest) {
          slowest = rows;
          for (int w = 0; w < workers; ++w)
            if (w != me) {
              long seen;
              while ((seen = progress[w].row.load(std::memory_order_acquire)) < t - kFields + 1) relax();
              slowest = std::min(slowest, seen);
            }
        }
      }
      // Rows' first outputs once per row: PointBuffers::output per input costs a division each.
      char* const this_row = execute ? buffers.output(t, 0) : nullptr;
      const char* const previous_row = execute && t > 0 ? buffers.output(t - 1, 0) : nullptr;
      for (int i; (i = *code++) >= 0;) {
        const bool read_elsewhere = *code++;
        for (int k = *code++; k > 0; --k, ++code)
          while (done[*code].row.load(std::memory_order_acquire) < t - 1) relax();
        const int n = *code++;
        if constexpr (execute) {
          for (int k = 0; k < n; ++k) inputs[k] = previous_row + code[k] * stride;
          char* output = this_row + i * stride;
          g.execute_point(t, i, output, g.output_bytes(), inputs.data(), sizes.data(), n, buffers.scratch(i),
                          g.scratch_bytes());
          // Only then: a reader on this core would rather find it here (as native does).
          if (read_elsewhere) push_to_shared_cache(output);
        }
        code += n;
        done[i].row.store(t, std::memory_order_release);
        if (read_elsewhere) push_to_shared_cache(&done[i]);
      }
      if constexpr (execute) progress[me].row.store(t, std::memory_order_release);
    }
  });
}

bool given(int argc, char** argv, const char* flag) {
  for (int a = 1; a < argc; ++a)
    if (std::strcmp(argv[a], flag) == 0) return true;
  return false;
}

long value_of(int argc, char** argv, const char* flag, long fallback) {
  for (int a = 1; a + 1 < argc; ++a)
    if (std::strcmp(argv[a], flag) == 0) return std::atol(argv[a + 1]);
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  // The graph's defaults differ from a system's (W wide, 20000 rows): added before the App
  // parses, so that flags given on the command line still win.
  const long workers_asked = value_of(argc, argv, "-workers", 2);
  std::vector<std::string> args(argv, argv + argc);
  const std::string width = std::to_string(workers_asked);
  for (const auto& [flag, value] : {std::pair<const char*, std::string>{"-width", width},
                                    {"-steps", "20000"}, {"-type", "stencil_1d"}})
    if (!given(argc, argv, flag)) args.insert(args.begin() + 1, {flag, value});
  std::vector<char*> full;
  for (auto& a : args) full.push_back(a.data());
  taskbench::App app(int(full.size()), full.data(),
                     {kName,
                      {{"-workers", "W", "pinned threads, one block of columns each (2)", 2, 4096},
                       {"-reps", "N", "passes of each measure; the best counts (5)", 1, 1000},
                       {"-system", "", "run the graph once with its kernel and report it as a system does"}}});
  const int workers = int(app.flag("-workers", 2));
  const int reps = int(app.flag("-reps", 5));
  const bool system = app.flag("-system", 0) == 1;
  const auto allowed = allowed_cpus();
  const taskbench::TaskGraph& g = app.graphs().front();
  const char* problem = nullptr;
  if (app.graphs().size() != 1)
    problem = "one graph only (no -and)";
  else if (g.kernel().type != EMPTY && !system)
    problem = "the floor is measured with the empty kernel (-kernel empty)";
  else if (g.max_width() < workers)
    problem = "-width must be at least -workers (a block of columns per thread)";
  else if (g.timesteps() < 2 && !system)
    problem = "-steps must be at least 2";
  else if (long(allowed.size()) < workers)
    problem = "needs a CPU per worker, more than this process may run on";
  if (problem) {
    std::fprintf(stderr, "%s: %s (-workers %d, %d CPUs available)\n", kName, problem, workers,
                 int(allowed.size()));
    return 2;
  }
  cpus.assign(allowed.begin(), allowed.begin() + workers);
  const taskbench::PointBuffers buffers(g, kFields);
  if (system) {
    const auto plans = plan(g, g.timesteps(), workers);
    app.set_parallelism(1, workers);
    app.display();
    const double ns_per_row = pass<true>(g, g.timesteps(), plans, workers, buffers);
    buffers.check_last_row();
    app.report(ns_per_row * double(g.timesteps()) * 1e-9);
    return 0;
  }
  // The first rows only where the plan would pass kPlanInts (a wide all_to_all's dependencies):
  // every row costs the same, and the header says how many ran.
  constexpr long kPlanInts = 1L << 24;
  const long rows = std::min(g.timesteps(),
                             std::max(2L, kPlanInts / (g.max_width() * (2 * g.max_dependencies() + 4))));
  const auto plans = plan(g, rows, workers);
  double best[3] = {1e30, 1e30, 1e30};
  for (int r = 0; r < reps; ++r) {  // interleaved, so a slow spell hits all three alike
    best[0] = std::min(best[0], one_way(rows));
    best[1] = std::min(best[1], pass<false>(g, rows, plans, workers, buffers));
    best[2] = std::min(best[2], pass<true>(g, rows, plans, workers, buffers));
  }
  std::printf("# best of %d x %ld rows, %s; %d threads pinned to CPUs %d-%d\n", reps, rows,
              g.describe().c_str(), workers, cpus.front(), cpus.back());
  std::printf("one-way cache line      %7.1f ns  (CPUs %d and %d)\n", best[0], cpus[0], cpus[1]);
  std::printf("exchange per row        %7.1f ns  (a flag per column, one wait per dependence)\n", best[1]);
  std::printf("no-runtime row          %7.1f ns  (the core's execute_point, inputs validated)\n", best[2]);
  std::printf("METG(50%%) lower bound   %7.3f us  (2 x no-runtime row x workers / width)\n",
              2 * best[2] * workers / double(g.max_width()) / 1000);
  return 0;
}
