// What a rank does differently on SimGrid's simulated platform (docs/simulation.md): its kernels
// are charged to the simulated core as FLOPs instead of run, with the platform's fixed cost of
// the port's own work per task, so that a simulation costs the same at any task granularity and
// gives the same simulated time on every run.
#pragma once

#include <string>

#include "taskbench/app.h"

namespace taskbench_mpi {

// Installs the charge (App::charge_kernels_as_flops) and adds "simulation" to the report: the
// simulated host's core speed and the per-task cost the platform declares (its host property
// taskbench_task_seconds, 0 where absent). Returns "", or why the run cannot be simulated.
std::string simulate_kernels(taskbench::App& app);

}  // namespace taskbench_mpi
