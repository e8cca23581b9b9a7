// TASKBENCH_FAULT: one task misbehaves on purpose, so tests can prove that every system's own
// data path (and the harness behind it) notices:
//   corrupt:GRAPH,T,I  the task's output is corrupted after it is written: its consumers fail
//                      validation (exit 3)
//   hang:GRAPH,T,I     the process running the task blocks forever (asleep, so SIGTERM and
//                      SIGKILL still end it): the run must be stopped by a timeout
//   kill:GRAPH,T,I     the process running the task raises SIGKILL on itself, silently, as the
//                      OOM killer would: for MPI that is the rank owning point I
#pragma once

#include <string>
#include <vector>

#include "taskbench/taskbench.h"

namespace taskbench {

enum class FaultKind { kNone, kCorrupt, kHang, kKill };

struct Fault {
  FaultKind kind = FaultKind::kNone;
  long graph = -1, t = -1, i = -1;
};

// The accepted forms, for the one-line error on a malformed value.
extern const char* const kFaultForms;

// Parses a TASKBENCH_FAULT value: KIND:GRAPH,T,I with KIND one of the three above and three
// non-negative decimal integers, nothing else (no spaces, signs or trailing characters).
// Returns false for anything else; an empty value is no fault.
bool parse_fault(const char* spec, Fault* fault);

// Why the fault names no task of these graphs (no such graph, timestep or point), or "" when it
// names one (or is kNone). A fault that can never fire would let a run pass for a caught fault.
std::string fault_target_problem(const Fault& fault, const std::vector<task_graph_t>& graphs);

// Does what the fault says to task (t, i), whose output has just been written. Returns only
// for kCorrupt.
void inject_fault(const Fault& fault, char* output);

}  // namespace taskbench
