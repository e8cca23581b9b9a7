// The per-graph -seed table (graph_seed.cc); the C API reads and sets single entries
// (taskbench_graph_seed, taskbench_set_graph_seed in taskbench.h).
#pragma once

#include <vector>

namespace taskbench {

// Replaces the whole table (entry k: the seed of graph_index k; beyond it 0). Returns a token
// for withdraw_graph_seeds.
const void* publish_graph_seeds(const std::vector<unsigned long>& seeds);
// Resets the table to all zeros, unless another table was published since `token`'s.
void withdraw_graph_seeds(const void* token);

}  // namespace taskbench
