#include "tool_report.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "taskbench/tool_report.h"

namespace taskbench {
namespace {

std::vector<std::string> split(const std::string& list, char separator) {
  std::vector<std::string> parts;
  size_t from = 0;
  while (from <= list.size()) {
    size_t to = list.find(separator, from);
    if (to == std::string::npos) to = list.size();
    if (to > from) parts.push_back(list.substr(from, to - from));
    from = to + 1;
  }
  return parts;
}

}  // namespace

std::vector<ToolReport> collect_tool_reports() {
  std::vector<ToolReport> reports;
  const char* listed = std::getenv("OMP_TOOL_LIBRARIES");
  if (listed == nullptr) return reports;
  for (const std::string& path : split(listed, ':')) {
    // The same name libomp passed to dlopen, so the loader resolves it to the same object.
    void* handle = dlopen(path.c_str(), RTLD_NOLOAD | RTLD_LAZY);
    if (handle == nullptr) {
      std::fprintf(stderr,
                   "taskbench: warning: OMP_TOOL_LIBRARIES lists %s but the OpenMP runtime did not "
                   "load it (GCC's libgomp has no OMPT: use an LLVM build, e.g. a *_llvm system)\n",
                   path.c_str());
      continue;
    }
    auto report = reinterpret_cast<taskbench_tool_report_fn>(dlsym(handle, TASKBENCH_TOOL_REPORT_SYMBOL));
    const char *key = nullptr, *json = nullptr, *lines = nullptr;
    if (report != nullptr && report(&key, &json, &lines) && key != nullptr && json != nullptr)
      reports.push_back({key, json, lines != nullptr ? lines : ""});
    dlclose(handle);  // drops only the reference RTLD_NOLOAD added
  }
  return reports;
}

std::string merge_tool_reports(std::vector<std::pair<std::string, std::string>>* system_report) {
  std::string lines;
  for (const ToolReport& t : collect_tool_reports()) {
    const bool taken = std::any_of(system_report->begin(), system_report->end(),
                                   [&](const auto& kv) { return kv.first == t.key; });
    if (taken) {
      std::fprintf(stderr, "taskbench: warning: a tool's report \"%s\" is ignored: the system "
                   "reports that key itself\n", t.key.c_str());
      continue;
    }
    system_report->emplace_back(t.key, t.json);
    lines += t.lines;
  }
  return lines;
}

}  // namespace taskbench
