// Reports of tool libraries loaded through OMP_TOOL_LIBRARIES (taskbench/tool_report.h).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace taskbench {

struct ToolReport {
  std::string key, json, lines;
};

// For each path in OMP_TOOL_LIBRARIES (':'-separated, as libomp splits it) that this process
// has loaded and that exports taskbench_tool_report, that tool's report. A path listed but not
// loaded (GCC's libgomp has no OMPT, or OMP_TOOL=disabled) gets one warning line on stderr.
// Nothing is loaded here: dlopen(RTLD_NOLOAD) only finds what the OpenMP runtime loaded.
std::vector<ToolReport> collect_tool_reports();

// Appends the tools' members to a system_report (a key the system reports itself stays the
// system's, with a warning) and returns their lines, to print after the summary.
std::string merge_tool_reports(std::vector<std::pair<std::string, std::string>>* system_report);

}  // namespace taskbench
