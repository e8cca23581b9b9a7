// What every task runs, and the one thing it measures for the discovery figure: a thread that is
// creating tasks may also run some (a runtime runs a new task undeferred when it holds too many,
// and runs others while it waits for that task's inputs). Those bodies are not creation, so the
// creator's discovery time leaves them out.
#pragma once

#include "taskbench/app.h"
#include "taskbench/point_buffers.h"

namespace openmp_task {

struct CreatorLedger {
  bool creating = false;
  double bodies = 0;  // seconds of task bodies this thread ran while creating
};
// Per thread: the test in a body is a thread-local read, shared with no other core.
inline thread_local CreatorLedger ledger;

inline void run_task(const taskbench::PointBuffers* buffers, long t, long i) {
  if (!ledger.creating) {
    buffers->run(t, i);
    return;
  }
  const double begin = taskbench::wall_time();
  buffers->run(t, i);
  ledger.bodies += taskbench::wall_time() - begin;
}

// Runs create() on the calling thread; returns its wall time less the bodies it ran inside.
template <class Create>
double time_creation(Create&& create) {
  ledger = CreatorLedger{true, 0};
  const double begin = taskbench::wall_time();
  create();
  const double total = taskbench::wall_time() - begin;
  ledger.creating = false;
  return total - ledger.bodies;
}

}  // namespace openmp_task
