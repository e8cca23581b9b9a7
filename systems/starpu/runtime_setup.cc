#include "runtime_setup.h"

#include <ftw.h>
#include <starpu_scheduler.h>
#include <starpu_sched_ctx.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace taskbench_starpu {
namespace {

std::string temporary_home;  // empty unless cpu_only_conf made one

[[noreturn]] void fail(const taskbench::App& app, const std::string& line) {
  std::fprintf(stderr, "%s: %s\n", app.options().system.c_str(), line.c_str());
  std::exit(2);
}

}  // namespace

taskbench::SystemFlag worker_flag(const char* default_help) {
  return {"-worker", "N", std::string("StarPU CPU workers (default: ") + default_help + ")", 0,
          taskbench::kMaxWorkerThreads};
}

starpu_conf cpu_only_conf(long workers) {
  if (std::getenv("STARPU_HOME") == nullptr) {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/taskbench-starpu-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
      std::perror(("taskbench: cannot create " + pattern).c_str());
      std::exit(2);
    }
    temporary_home = pattern;
    setenv("STARPU_HOME", temporary_home.c_str(), 1);
    // Also when a failed validation ends the process from a worker (exit status 3).
    std::atexit(remove_temporary_home);
  }
  // StarPU prints its banner and calibration notes on stdout and stderr unless told not to.
  setenv("STARPU_SILENT", "1", 0);

  starpu_conf conf;
  starpu_conf_init(&conf);
  if (workers > 0) conf.ncpus = static_cast<int>(workers);
  if (workers > 0 && conf.reserve_ncpus >= workers) {  // StarPU would start nothing (ENODEV)
    std::fprintf(stderr, "taskbench: -worker %ld: STARPU_RESERVE_NCPU=%d leaves no CPU worker\n", workers,
                 conf.reserve_ncpus);
    std::exit(2);
  }
  conf.ncuda = 0;
  conf.nopencl = 0;
  conf.nmic = 0;
  conf.nmpi_ms = 0;
  return conf;
}

long check_workers(taskbench::App& app, long asked, const starpu_conf& conf) {
  const long cpus = starpu_cpu_worker_get_count();
  const long reserved = std::max(0, conf.reserve_ncpus);
  if (static_cast<long>(starpu_worker_get_count()) != cpus)
    fail(app, "StarPU started workers other than CPU workers");
  if (asked > 0 && cpus != asked - reserved)
    fail(app, "-worker " + std::to_string(asked) +
                  (reserved > 0 ? " less STARPU_RESERVE_NCPU=" + std::to_string(reserved) : "") +
                  ": StarPU started " + std::to_string(cpus) +
                  " CPU worker(s) (it uses at most one per core it sees)");
  app.add_report_json("starpu_workers", std::to_string(cpus));
  app.add_report_json("starpu_reserved_cpus", std::to_string(reserved));
  return cpus + reserved;
}

void report_submission(taskbench::App& app, long tasks, double seconds) {
  app.add_report_json("starpu_tasks_submitted", std::to_string(tasks));
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", seconds);
  app.add_report_json("starpu_submission_seconds", text);
}

void check_submitted(int error, const char* call) {
  if (error == 0) return;
  std::fprintf(stderr, "taskbench: %s failed (%d)\n", call, error);
  std::exit(1);
}

std::string scheduler_name() {
  const starpu_sched_policy* policy = starpu_sched_ctx_get_sched_policy(0);
  return policy && policy->policy_name ? policy->policy_name : "unknown";
}

void remove_temporary_home() {
  if (temporary_home.empty()) return;
  nftw(temporary_home.c_str(),
       [](const char* path, const struct stat*, int, struct FTW*) { return std::remove(path); },
       16, FTW_DEPTH | FTW_PHYS);
  temporary_home.clear();
}

}  // namespace taskbench_starpu
