#include "fault.h"

#include <signal.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

namespace taskbench {
namespace {

// One non-negative decimal integer ending at `stop` ('\0' for the last one); advances `p`.
bool parse_index(const char*& p, char stop, long* value) {
  if (!std::isdigit(static_cast<unsigned char>(*p))) return false;
  errno = 0;
  char* end = nullptr;
  const long v = std::strtol(p, &end, 10);
  if (errno == ERANGE || *end != stop) return false;
  *value = v;
  p = stop == '\0' ? end : end + 1;
  return true;
}

}  // namespace

const char* const kFaultForms = "corrupt:GRAPH,T,I, hang:GRAPH,T,I or kill:GRAPH,T,I";

bool parse_fault(const char* spec, Fault* fault) {
  *fault = Fault{};
  if (spec == nullptr || *spec == '\0') return true;
  static const struct {
    const char* prefix;
    FaultKind kind;
  } kinds[] = {{"corrupt:", FaultKind::kCorrupt}, {"hang:", FaultKind::kHang}, {"kill:", FaultKind::kKill}};
  for (const auto& k : kinds) {
    const size_t n = std::strlen(k.prefix);
    if (std::strncmp(spec, k.prefix, n) != 0) continue;
    const char* p = spec + n;
    Fault f;
    f.kind = k.kind;
    if (!parse_index(p, ',', &f.graph) || !parse_index(p, ',', &f.t) || !parse_index(p, '\0', &f.i))
      return false;
    *fault = f;
    return true;
  }
  return false;
}

std::string fault_target_problem(const Fault& fault, const std::vector<task_graph_t>& graphs) {
  if (fault.kind == FaultKind::kNone) return "";
  const long n = static_cast<long>(graphs.size());
  if (fault.graph >= n)
    return "no graph " + std::to_string(fault.graph) + ": the run has " + std::to_string(n) +
           (n == 1 ? " graph, numbered 0" : " graphs, numbered 0 to " + std::to_string(n - 1));
  const task_graph_t& g = graphs[static_cast<size_t>(fault.graph)];
  if (task_graph_contains_point(g, fault.t, fault.i)) return "";
  const std::string task = "graph " + std::to_string(fault.graph) + " has no task (t=" +
                           std::to_string(fault.t) + ", i=" + std::to_string(fault.i) + "): ";
  const std::string shape =
      std::to_string(g.timesteps) + " timesteps x " + std::to_string(g.max_width) + " points";
  if (fault.t >= g.timesteps || fault.i >= g.max_width) return task + shape;
  // Inside the grid, outside a narrower row (dom, tree).
  const long first = task_graph_offset_at_timestep(g, fault.t);
  const long last = first + task_graph_width_at_timestep(g, fault.t) - 1;
  return task + shape + ", and row " + std::to_string(fault.t) + " holds points " +
         std::to_string(first) + " to " + std::to_string(last);
}

void inject_fault(const Fault& fault, char* output) {
  switch (fault.kind) {
    case FaultKind::kCorrupt:
      output[0] ^= 0x5a;  // consumers of this output must now fail validation
      return;
    case FaultKind::kHang:
      // Asleep rather than spinning: the other workers and ranks, not this one, show what a
      // system does while one of its tasks never finishes. pause() returns only after a
      // handled signal, so a system's own handlers cannot end the hang; default-action
      // signals (SIGTERM, SIGKILL) end the process.
      for (;;) pause();
    case FaultKind::kKill:
      // No last words: a kill from outside (the OOM killer, an operator) prints nothing either,
      // so whatever the harness reports comes from the launcher, not from us.
      kill(getpid(), SIGKILL);
      for (;;) pause();  // until the kernel has finished the process off (every thread of it)
    case FaultKind::kNone:
      return;
  }
}

}  // namespace taskbench
