// Where every design of the realm binary keeps the graphs' data, and the point task they all
// spawn: one Realm instance in system memory, each column's outputs in `slots` buffers (task
// (t, i) writes slot t mod slots), one scratch buffer per column. One process: tasks read their
// producers' outputs there by pointer.
#pragma once

#include <realm.h>

#include <string>
#include <vector>

#include "taskbench/app.h"

namespace taskbench_realm {

constexpr Realm::Processor::TaskFuncID kPointTask = Realm::Processor::TASK_ID_FIRST_AVAILABLE;
constexpr Realm::Processor::TaskFuncID kShardTask = Realm::Processor::TASK_ID_FIRST_AVAILABLE + 1;

struct GraphData {
  taskbench::TaskGraph graph;
  long slots = 2;
  size_t stride = 0;
  char* outputs = nullptr;
  char* scratch = nullptr;
  char* output(long t, long i) const { return outputs + ((t % slots) * graph.max_width() + i) * stride; }
};

// Filled before any task runs; tasks only read it.
extern std::vector<GraphData> graph_data;

// The point task's arguments; t is the field a Subgraph interpolates.
struct PointArgs {
  long graph;
  long t;
  long i;
};

// Bytes of the instance that hold every graph's data with `slots` outputs per column.
size_t storage_bytes(const taskbench::App& app, long slots);

// Carves graph_data out of the instance (and prepares the scratch); registers the point task.
void make_storage(const taskbench::App& app, long slots, char* base);
void register_point_task();

// Every output of each graph's last row, read from the instance (after the run).
void check_last_rows();

[[noreturn]] void fail(const std::string& line);

}  // namespace taskbench_realm
