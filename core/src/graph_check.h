// The up-front graph consistency check (skipped by -skip-graph-validation): every dependency
// lies in the previous row, and dependencies and successors are exact inverses.
#pragma once

#include <string>

#include "taskbench/task_graph.h"

namespace taskbench {

// Empty if consistent, else a description of the first inconsistency.
std::string check_graph_consistency(const TaskGraph& g);

}  // namespace taskbench
