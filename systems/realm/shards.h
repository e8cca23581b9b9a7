// realm (shards.cc): the paper's Realm port (the original's realm_subgraph/main.cc).
#pragma once

#include <realm.h>

#include <cstddef>
#include <vector>

namespace taskbench_realm {

struct ShardResult {
  double elapsed_seconds = 0;  // the first shard's start to the last shard's end
  double issue_seconds = 0;    // the longest a shard took to hand its windows to Realm
  size_t subgraphs = 0;        // Subgraphs defined, over every shard and graph
  size_t barriers = 0;         // phase barriers created (one per dependence edge and slot)
};

// Runs every graph with a shard task per CPU processor (graph_data filled with `fields` slots
// per column, the point task registered) and waits for them.
ShardResult run_shards(const std::vector<Realm::Processor>& procs, long fields);

// Whether a run of `timesteps` rows with `fields` slots fits Realm's barrier phases.
bool phases_suffice(long timesteps, long fields);

}  // namespace taskbench_realm
