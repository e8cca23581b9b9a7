// How both StarPU systems start and stop StarPU: CPU workers only, as many as the -worker flag
// says, and StarPU's files (bus and performance-model samples) in a temporary STARPU_HOME that
// is removed at exit, so a run neither reads a calibration left by another nor writes to $HOME.
#pragma once

#include <starpu.h>

#include <string>

#include "taskbench/app.h"

namespace taskbench_starpu {

// The -worker flag of both systems.
// `default_help` says what -worker's absence means for this binary.
taskbench::SystemFlag worker_flag(const char* default_help = "STARPU_NCPU or one per core");

// A starpu_conf for `workers` CPU workers (0: StarPU's own choice, STARPU_NCPU or all cores),
// no CUDA, OpenCL or other accelerator workers. Points STARPU_HOME at a fresh temporary folder
// unless the caller set one, and silences StarPU's banner unless STARPU_SILENT is set.
starpu_conf cpu_only_conf(long workers);

// After starpu_init with `conf`: stops with one line (exit 2) when StarPU started another number
// of CPU workers than asked less the cores STARPU_RESERVE_NCPU reserves (StarPU 1.3 takes them
// from an explicit count too; it also caps the count at the cores it sees), or any non-CPU
// worker. Returns the cores the process holds: its CPU workers and the reserved cores (the
// submitting thread's, in the paper's launch), reported with both counts in the JSON report.
long check_workers(taskbench::App& app, long asked, const starpu_conf& conf);

// The submitting thread's share of the run, in the JSON report: the tasks this process
// submitted (under StarPU-MPI, only those it has a part in) and the seconds from the start of
// the timed region to its last submission.
void report_submission(taskbench::App& app, long tasks, double seconds);

// Ends the run with one line (exit 1) when a task submission returned an error.
void check_submitted(int error, const char* call);

// The scheduler StarPU runs ("lws", "eager", ...), for the report.
std::string scheduler_name();

// Removes the temporary STARPU_HOME made by cpu_only_conf (after starpu_shutdown).
void remove_temporary_home();

}  // namespace taskbench_starpu
