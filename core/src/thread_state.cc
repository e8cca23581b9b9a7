#include "thread_state.h"

#include <memory>
#include <mutex>

namespace taskbench {
namespace {

std::mutex registry_lock;
std::vector<std::unique_ptr<ThreadState>>& registry() {
  static auto* states = new std::vector<std::unique_ptr<ThreadState>>();  // never destroyed:
  return *states;  // threads may still count tasks while static destructors run
}

}  // namespace

RunSwitches run_switches;

ThreadState& register_thread_state() {
  std::lock_guard<std::mutex> guard(registry_lock);
  auto& states = registry();
  states.push_back(std::make_unique<ThreadState>());
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
    s.trace.clear();
  });
}

}  // namespace taskbench
