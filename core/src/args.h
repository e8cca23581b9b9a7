// Command-line parsing (docs/spec.md §4): the original Task Bench flags, the additions, and flags that
// systems declare. Errors are UsageError with one line naming the flag, the value and what is
// allowed; the App prints it and exits with status 2.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "graph_limits.h"
#include "taskbench/app.h"
#include "usage_error.h"

namespace taskbench {

struct Config {
  std::vector<task_graph_t> graphs;
  std::vector<unsigned long> seeds;  // -seed of each graph (task_graph_t has no field for it)
  long nodes = 1;
  int verbosity = 0;
  bool skip_graph_validation = false;
  bool help = false;
  std::string json_path, trace_path;
  std::map<std::string, long> system_values;  // system flags given on the command line
  std::map<std::string, std::string> system_texts;  // text system flags given
};

// memory_bytes: what the graphs' buffers may need in all (graph_limits.h).
Config parse_args(const std::vector<std::string>& args, const std::vector<SystemFlag>& system_flags,
                  long default_width, unsigned long long memory_bytes = physical_memory_bytes());
std::string usage_text(const std::string& program, const std::vector<SystemFlag>& system_flags);

}  // namespace taskbench
