#include "simulation.h"

#include <mpi.h>
#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>

#include "simulated_noise.h"

#include <errno.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#if defined(TASKBENCH_DYNAMIC_LOADER)
// What makes the shared object a program the kernel can start (flavors.cmake): smpirun loads it
// with dlopen, which reads neither.
extern "C" const char taskbench_smpi_interpreter[] __attribute__((used, section(".interp"))) =
    TASKBENCH_DYNAMIC_LOADER;

// The entry point of the program started by hand, without smpirun: the C library is set up by
// then (the loader ran its initializers), the program's own code is not, and there is no return.
extern "C" [[noreturn]] void taskbench_smpi_started_alone() {
  char line[512];
  const int n = std::snprintf(
      line, sizeof line,
      "%s: a simulated build (SimGrid's SMPI) runs under smpirun, which loads it once per simulated rank: "
      "taskbench run %.*s --simulate PLATFORM --nodes N, or smpirun -platform FILE -np N %s ... "
      "(docs/simulation.md)\n",
      program_invocation_short_name,
      static_cast<int>(std::strlen(program_invocation_short_name) -
                       (std::strstr(program_invocation_short_name, "_smpi") ? 5 : 0)),
      program_invocation_short_name, program_invocation_name);
  if (n > 0) (void)write(2, line, std::min<size_t>(static_cast<size_t>(n), sizeof line - 1));
  _exit(2);
}
#endif

namespace taskbench_mpi {
namespace {

// Per rank: smpirun loads one copy of the program per rank, so each has its own.
double task_overhead_flops = 0.0;
double core_speed = 0.0;  // FLOP/s
SimulatedNoise noise;  // off unless the platform switches it on

void charge(double flops) {
  double total = flops + task_overhead_flops;
  if (noise.active() && total > 0.0) total += noise.delay(simgrid_get_clock(), total / core_speed) * core_speed;
  if (total > 0.0) smpi_execute_flops(total);  // one simulated action per task
}

// The host property, in seconds; a malformed value ends the run (the platform file is wrong).
double task_seconds(const_sg_host_t host) {
  const char* text = sg_host_get_property_value(host, "taskbench_task_seconds");
  if (text == nullptr) return 0.0;
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  if (end == text || *end != '\0' || !(value >= 0.0)) {
    std::fprintf(stderr, "taskbench: platform host %s: taskbench_task_seconds '%s' is not a number of seconds\n",
                 sg_host_get_name(host), text);
    std::exit(2);
  }
  return value;
}

}  // namespace

std::string simulate_kernels(taskbench::App& app) {
  const const_sg_host_t host = sg_host_self();
  const double speed = sg_host_get_speed(host);  // FLOP/s of one of its cores
  const double seconds = task_seconds(host);
  task_overhead_flops = seconds * speed;
  core_speed = speed;
  const std::string noisy = noise.configure(host, sg_actor_self_get_pid());
  if (!noisy.empty()) {
    std::fprintf(stderr, "taskbench: %s\n", noisy.c_str());
    std::exit(2);  // the platform file is wrong, as a malformed taskbench_task_seconds
  }
  const std::string problem = app.charge_kernels_as_flops(charge);
  if (!problem.empty()) return problem;
  char json[224];
  if (noise.active()) {  // a platform switch: the report says it was on
    std::snprintf(json, sizeof json,
                  "{\"core_flops\":%.6g,\"task_seconds\":%.6g,\"noise_rate\":%.6g,\"noise_seconds\":%.6g}", speed,
                  seconds, noise.rate_per_node(), noise.seconds());
  } else {
    std::snprintf(json, sizeof json, "{\"core_flops\":%.6g,\"task_seconds\":%.6g}", speed, seconds);
  }
  app.add_report_json("simulation", json);
  return "";
}

}  // namespace taskbench_mpi
