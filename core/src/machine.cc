#include "machine.h"

#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <utility>

#include "taskbench/app.h"

namespace taskbench {

long available_cores() {
  const long online = std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
  // With OMP_PROC_BIND or OMP_PLACES set, the OpenMP runtime binds the initial thread to its
  // first place before main() runs, so the affinity mask then shows one CPU, not the process's
  // share: count the online CPUs instead.
  if (std::getenv("OMP_PROC_BIND") || std::getenv("OMP_PLACES")) return online;
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
  return online;
}

MachineInfo read_machine_info() {
  MachineInfo m;
  m.logical_cpus = sysconf(_SC_NPROCESSORS_ONLN);
  m.available_cpus = available_cores();
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::set<std::pair<std::string, std::string>> cores;  // (physical id, core id)
  std::string line, physical;
  while (std::getline(cpuinfo, line)) {
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string k = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
    std::string v = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
    if (k == "model name" && m.cpu_model.empty()) m.cpu_model = v;
    if (k == "physical id") physical = v;
    if (k == "core id") cores.insert({physical, v});
  }
  m.physical_cores = cores.empty() ? m.logical_cpus : static_cast<long>(cores.size());
  std::ifstream meminfo("/proc/meminfo");
  while (std::getline(meminfo, line))
    if (line.rfind("MemTotal:", 0) == 0) m.memory_bytes = std::atoll(line.c_str() + 9) * 1024;
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) == 0) m.hostname = host;
  struct utsname u;
  if (uname(&u) == 0) m.os_kernel = std::string(u.sysname) + " " + u.release;
  if (getloadavg(m.load_average, 3) < 0) m.load_average[0] = m.load_average[1] = m.load_average[2] = -1;
  return m;
}

}  // namespace taskbench
