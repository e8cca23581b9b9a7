// realm_driver, realm_driver_subgraph (driver.cc): one driver thread issues every task.
#pragma once

#include <realm.h>

#include <cstddef>
#include <vector>

namespace taskbench_realm {

struct DriverOptions {
  bool subgraph = false;   // -subgraph: a Subgraph per block of rows instead of a spawn per task
  long subgraph_rows = 1;  // -subgraph-rows
  bool merge = false;      // -subgraph-merge
};

struct DriverResult {
  double elapsed_seconds = 0;
  double issue_seconds = 0;  // until the driver had handed every task to Realm
  size_t subgraphs = 0;      // distinct Subgraphs built
};

// Issues every graph's tasks from the calling thread and waits for them (graph_data filled,
// the point task registered, outputs in 2 slots).
DriverResult run_driver(const std::vector<Realm::Processor>& procs, const DriverOptions& options);

}  // namespace taskbench_realm
