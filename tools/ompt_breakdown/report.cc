// taskbench_tool_report (taskbench/tool_report.h): the core calls it at report time and puts
// the breakdown in system_report, in the format native -breakdown uses.
#include <string>
#include <vector>

#include "taskbench/tool_report.h"
#include "tool.h"

extern "C" __attribute__((visibility("default"))) int taskbench_tool_report(const char** key,
                                                                           const char** json,
                                                                           const char** lines) {
  using namespace ompt_breakdown;
  if (g_regions.count() == 0) return 0;
  const std::int64_t now = now_ns();
  std::vector<taskbench::ThreadBreakdown> threads;
  for (const Ledger* l : g_ledgers.all())
    if (l->joined()) threads.push_back(l->read(g_regions, now));
  static taskbench::BreakdownText text;  // stays valid until the next call, as the hook says
  text = taskbench::format_breakdown(g_regions.elapsed_seconds(now), threads);
  *key = "breakdown";
  *json = text.json.c_str();
  *lines = text.lines.c_str();
  return 1;
}
