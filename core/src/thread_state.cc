#include "thread_state.h"

#include <memory>
#include <mutex>

namespace taskbench {
namespace {

std::mutex registry_lock;
using States = std::vector<std::unique_ptr<ThreadState>>;
States& registry() {
  static auto* states = new States();  // never destroyed:
  return *states;  // threads may still count tasks while static destructors run
}
States& prepared() {  // built by the main thread, handed out on first use
  static auto* states = new States();
  return *states;
}

}  // namespace

RunSwitches run_switches;
TASKBENCH_CONSTINIT thread_local ThreadState* current_thread_state TASKBENCH_TLS_MODEL = nullptr;

void prepare_thread_states(size_t count, size_t graphs) {
  std::lock_guard<std::mutex> guard(registry_lock);
  auto& pool = prepared();
  while (pool.size() < count) {
    pool.push_back(std::make_unique<ThreadState>());
    pool.back()->executed.assign(graphs, 0);
  }
  registry().reserve(registry().size() + pool.size());
}

ThreadState& register_thread_state() {
  std::lock_guard<std::mutex> guard(registry_lock);
  auto& states = registry();
  auto& pool = prepared();
  if (pool.empty()) {
    states.push_back(std::make_unique<ThreadState>());
  } else {
    states.push_back(std::move(pool.back()));  // capacity reserved: no allocation here
    pool.pop_back();
  }
  states.back()->worker = static_cast<int>(states.size() - 1);
  return *states.back();
}

void for_each_thread_state(const std::function<void(ThreadState&)>& visit) {
  std::lock_guard<std::mutex> guard(registry_lock);
  for (auto& s : registry()) visit(*s);
}

void reset_thread_states() {
  for_each_thread_state([](ThreadState& s) {
    s.executed.assign(s.executed.size(), 0);
    s.last_row_checked.assign(s.last_row_checked.size(), 0);
    s.trace.clear();
  });
}

}  // namespace taskbench
