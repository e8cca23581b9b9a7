// What the report records about the machine (provenance of every stored run).
#pragma once

#include <string>

namespace taskbench {

struct MachineInfo {
  std::string cpu_model, hostname, os_kernel;
  long logical_cpus = 0, physical_cores = 0, available_cpus = 0;
  long long memory_bytes = 0;
  double load_average[3] = {0, 0, 0};
};

MachineInfo read_machine_info();

}  // namespace taskbench
