#include "taskbench/worker.h"

#include <cstdlib>
#include <map>
#include <mutex>

#include "fault.h"
#include "thread_state.h"

namespace taskbench::worker {

void setup(const Options& options) {
  const char* spec = std::getenv("TASKBENCH_FAULT");
  Fault fault;
  if (!parse_fault(spec, &fault))
    throw std::invalid_argument(std::string("TASKBENCH_FAULT: invalid value '") + spec + "'; expected " +
                                kFaultForms);
  run_switches.fault = fault;
  run_switches.tracing = options.tracing;
  run_switches.validation_throws = options.validation_throws;
}

bool tracing() { return run_switches.tracing; }

Note take_note(long graphs) {
  Note note{std::vector<long long>(static_cast<size_t>(graphs), 0),
            std::vector<long long>(static_cast<size_t>(graphs), 0), {}};
  for_each_thread_state([&](ThreadState& s) {
    for (size_t g = 0; g < s.executed.size(); ++g) {
      if (g < note.executed.size()) note.executed[g] += s.executed[g];
      s.executed[g] = 0;
    }
    for (size_t g = 0; g < s.last_row_checked.size(); ++g) {
      if (g < note.last_row_checked.size()) note.last_row_checked[g] += s.last_row_checked[g];
      s.last_row_checked[g] = 0;
    }
    note.events.insert(note.events.end(), s.trace.begin(), s.trace.end());
    s.trace.clear();
  });
  return note;
}

std::vector<long long> executed_counts(long graphs) {
  std::vector<long long> counts(static_cast<size_t>(graphs), 0);
  for_each_thread_state([&](ThreadState& s) {
    for (size_t g = 0; g < counts.size() && g < s.executed.size(); ++g) counts[g] += s.executed[g];
  });
  return counts;
}

void reset() { reset_thread_states(); }

void record_trace(const std::string& worker, const std::vector<TraceEvent>& events) {
  static std::mutex lock;
  static std::map<std::string, ThreadState*> blocks;
  std::lock_guard<std::mutex> guard(lock);
  ThreadState*& block = blocks[worker];
  if (block == nullptr) block = &register_thread_state();
  block->trace.insert(block->trace.end(), events.begin(), events.end());
}

}  // namespace taskbench::worker
