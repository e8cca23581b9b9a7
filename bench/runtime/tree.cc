// Binary tree of 2^levels - 1 spawned tasks, each busy for C TSC cycles
// (the TTG paper's scheduler stress test).
//   tbrt_bench_tree [threads=2] [levels=22] [reps=3] [cycles...=0 1000 10000 100000]
// Prints, per queue mode and task size: wall time, efficiency = work time /
// (wall * threads), and per-thread overhead/idle averages (best of reps).
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "tbrt/clock.h"
#include "tbrt/runtime.h"

namespace {

struct Ctx {
  tbrt::Runtime* rt;
  std::uint64_t cycles;
};

void node(void* arg, std::int64_t level, std::int64_t) {
  auto* c = static_cast<Ctx*>(arg);
  if (level > 1) {  // discover the children first, as a data-flow task would
    c->rt->spawn(&node, c, level - 1);
    c->rt->spawn(&node, c, level - 1);
  }
  const std::uint64_t end = tbrt::ticks() + c->cycles;
  while (tbrt::ticks() < end) {
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  const int levels = argc > 2 ? std::atoi(argv[2]) : 22;
  const int reps = argc > 3 ? std::atoi(argv[3]) : 3;
  std::vector<std::uint64_t> sizes;
  for (int a = 4; a < argc; ++a) sizes.push_back(std::strtoull(argv[a], nullptr, 10));
  if (sizes.empty()) sizes = {0, 1000, 10000, 100000};
  const double tasks = double((std::uint64_t{1} << levels) - 1);
  std::printf("binary tree: %.0f tasks, %d threads, best of %d, TSC %.2f GHz\n", tasks, threads,
              reps, tbrt::ticks_per_second() / 1e9);
  std::printf("%-5s %8s %10s %8s %8s %10s %10s %9s\n", "mode", "cycles", "wall s", "ns/task",
              "eff", "overhead s", "idle s", "steals");
  for (std::uint64_t cycles : sizes)
    for (auto mode : {tbrt::QueueMode::kLifo, tbrt::QueueMode::kFifo}) {
      tbrt::Options opt;
      opt.num_workers = threads;
      opt.queue = mode;
      opt.measure = true;
      tbrt::Runtime rt(opt);
      Ctx c{&rt, cycles};
      tbrt::Stats best;
      for (int r = 0; r < reps; ++r) {
        rt.reset_stats();
        rt.spawn(&node, &c, levels);
        rt.wait();
        tbrt::Stats s = rt.stats();
        if (r == 0 || s.elapsed < best.elapsed) best = s;
      }
      double over = 0, idle = 0, steals = 0;
      for (const auto& t : best.threads) over += t.overhead, idle += t.idle, steals += double(t.steals);
      std::printf("%-5s %8llu %10.3f %8.1f %8.3f %10.3f %10.3f %9.0f\n",
                  mode == tbrt::QueueMode::kLifo ? "lifo" : "fifo", (unsigned long long)cycles,
                  best.elapsed, best.elapsed * 1e9 / tasks, best.efficiency(), over / threads,
                  idle / threads, steals);
      std::fflush(stdout);
    }
}
