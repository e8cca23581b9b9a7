// Invariants of every query of an accepted graph (task_graph.h), checked at sampled rows and
// points, so graphs up to 2^60 wide cost the same as small ones: rows lie inside the width,
// interval lists are sorted, disjoint and within their bound, a task's dependencies lie in row
// t-1 and its successors in row t+1, and the two relations are each other's inverse at every
// sampled pair. Small graphs are also compared point by point against spec_patterns.h.
#pragma once

#include <string>
#include <vector>

#include "flag_lines.h"
#include "taskbench/task_graph.h"

namespace fuzz {

// Problems found (empty if none), each one line naming the graph and the query.
std::vector<std::string> check_graph_invariants(const taskbench::TaskGraph& g, Random& random);

}  // namespace fuzz
