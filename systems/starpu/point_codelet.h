// The one codelet every StarPU system submits: task (t, i) of a graph. Its buffers are laid out
// by GraphHandles::describe (output, then inputs); the kernel reads its inputs from the pointers
// StarPU hands it, so validation checks what StarPU's data path delivered. Scratch memory is the
// worker's own (the core's per-thread scratch), as the original's per-worker buffer: no handle.
#pragma once

#include <starpu.h>

#include "taskbench/task_graph.h"

namespace taskbench_starpu {

// The codelet's argument, copied into each task by starpu_task_insert (STARPU_VALUE).
struct PointTask {
  const taskbench::TaskGraph* graph;
  long t, i;
};

starpu_codelet* point_codelet();

}  // namespace taskbench_starpu
