// Limits a graph must meet before anything runs, checked while parsing (exit status 2):
//  - its totals (tasks, dependencies, FLOPs, bytes: docs/spec.md §5) can be counted in 64 bits, so the
//    report is exact and no count overflows (signed overflow is undefined behaviour);
//  - the buffers systems allocate for it (two rows of outputs and one scratch per point, as
//    PointBuffers lays them out) fit in this machine's physical memory, so a system never
//    dies of a failed allocation halfway through setting up.
// Several graphs (-and) run at once: each is checked together with the graphs before it.
#pragma once

#include "taskbench/taskbench.h"

namespace taskbench {

// Upper bounds of what the graphs accepted so far need (saturating at ULLONG_MAX).
struct GraphUsage {
  unsigned long long tasks = 0, dependencies = 0, flops = 0, bytes = 0, memory = 0;
};

// RAM of this machine (sysconf), the default memory limit of parse_args.
unsigned long long physical_memory_bytes();

// Bytes of outputs and scratch that the systems allocate for g.
unsigned long long graph_memory_bytes(const task_graph_t& g);

// Throws UsageError naming the flag to lower, its value and the largest value that fits, when
// g together with `used` goes beyond a limit; otherwise adds g's needs to `used`.
void check_graph_limits(const task_graph_t& g, unsigned long long memory_bytes, GraphUsage& used);

}  // namespace taskbench
