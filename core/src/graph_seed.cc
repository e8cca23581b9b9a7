// -seed without a field in task_graph_t (the original's layout, which ports compiled against
// the original header rely on): the core keeps each graph's seed in a table indexed by
// graph_index. An App publishes its graphs' seeds when it is created; a graph made by hand
// (no App, or an index the App does not have) has seed 0, the original's random numbers.
#include "graph_seed.h"

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "taskbench/taskbench.h"

// The original's ABI (x86-64, LP64): 112-byte task_graph_t, 32-byte kernel_t, every field where
// the original has it. Other platforms build, unchecked.
#if defined(__x86_64__) && defined(__LP64__)
static_assert(sizeof(kernel_t) == 32, "kernel_t must keep the original's layout");
static_assert(offsetof(kernel_t, type) == 0 && offsetof(kernel_t, iterations) == 8 &&
                  offsetof(kernel_t, samples) == 16 && offsetof(kernel_t, imbalance) == 24,
              "kernel_t must keep the original's layout");
static_assert(sizeof(task_graph_t) == 112, "task_graph_t must keep the original's layout");
static_assert(offsetof(task_graph_t, graph_index) == 0, "task_graph_t layout");
static_assert(offsetof(task_graph_t, timesteps) == 8, "task_graph_t layout");
static_assert(offsetof(task_graph_t, max_width) == 16, "task_graph_t layout");
static_assert(offsetof(task_graph_t, dependence) == 24, "task_graph_t layout");
static_assert(offsetof(task_graph_t, radix) == 32, "task_graph_t layout");
static_assert(offsetof(task_graph_t, period) == 40, "task_graph_t layout");
static_assert(offsetof(task_graph_t, fraction_connected) == 48, "task_graph_t layout");
static_assert(offsetof(task_graph_t, kernel) == 56, "task_graph_t layout");
static_assert(offsetof(task_graph_t, output_bytes_per_task) == 88, "task_graph_t layout");
static_assert(offsetof(task_graph_t, scratch_bytes_per_task) == 96, "task_graph_t layout");
static_assert(offsetof(task_graph_t, nb_fields) == 104, "task_graph_t layout");
static_assert(sizeof(interval_t) == 16, "interval_t layout");
#endif

namespace taskbench {
namespace {

using Table = std::vector<unsigned long>;

// Readers (every random dependence query, every load_imbalance task) load the published table
// without a lock; writers copy it, change the copy and publish it. Replaced tables stay alive
// until exit (a few per process), so a reader never sees one freed.
std::atomic<const Table*> published{nullptr};
std::mutex writers;
std::vector<std::unique_ptr<Table>>& all_tables() {
  static std::vector<std::unique_ptr<Table>> tables;
  return tables;
}

const Table* publish(Table table) {
  all_tables().push_back(std::make_unique<Table>(std::move(table)));
  const Table* t = all_tables().back().get();
  published.store(t, std::memory_order_release);
  return t;
}

}  // namespace

const void* publish_graph_seeds(const std::vector<unsigned long>& seeds) {
  std::lock_guard<std::mutex> lock(writers);
  return publish(seeds);
}

void withdraw_graph_seeds(const void* token) {
  std::lock_guard<std::mutex> lock(writers);
  if (published.load(std::memory_order_relaxed) == token) publish(Table{});
}

}  // namespace taskbench

extern "C" unsigned long taskbench_graph_seed(long graph_index) {
  const taskbench::Table* t = taskbench::published.load(std::memory_order_acquire);
  if (t == nullptr || graph_index < 0 || static_cast<size_t>(graph_index) >= t->size()) return 0;
  return (*t)[static_cast<size_t>(graph_index)];
}

extern "C" void taskbench_set_graph_seed(long graph_index, unsigned long seed) {
  if (graph_index < 0) return;
  std::lock_guard<std::mutex> lock(taskbench::writers);
  const taskbench::Table* t = taskbench::published.load(std::memory_order_relaxed);
  taskbench::Table copy = t ? *t : taskbench::Table{};
  if (static_cast<size_t>(graph_index) >= copy.size()) {
    if (seed == 0) return;  // already 0
    copy.resize(static_cast<size_t>(graph_index) + 1, 0);
  }
  if (copy[static_cast<size_t>(graph_index)] == seed) return;
  copy[static_cast<size_t>(graph_index)] = seed;
  taskbench::publish(std::move(copy));
}
