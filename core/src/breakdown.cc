#include "taskbench/breakdown.h"

#include <cstdio>

namespace taskbench {
namespace {

std::string fmt(const char* format, double a, double b = 0, double c = 0, double d = 0) {
  char s[256];
  std::snprintf(s, sizeof s, format, a, b, c, d);
  return s;
}

}  // namespace

BreakdownText format_breakdown(double elapsed, const std::vector<ThreadBreakdown>& threads) {
  ThreadBreakdown sum;
  std::string per_thread;
  for (size_t k = 0; k < threads.size(); ++k) {
    const ThreadBreakdown& t = threads[k];
    sum.work += t.work;
    sum.overhead += t.overhead;
    sum.idle += t.idle;
    sum.discovery += t.discovery;
    sum.tasks += t.tasks;
    per_thread += (k ? "," : "") +
                  fmt("{\"work\":%.9g,\"overhead\":%.9g,\"idle\":%.9g,\"discovery\":%.9g,", t.work,
                      t.overhead, t.idle, t.discovery) +
                  "\"tasks\":" + std::to_string(t.tasks) + ",\"steals\":" + std::to_string(t.steals) +
                  "}";
  }
  // Per task: divided by the tasks run (1 when none, so an empty run prints zeros).
  const double n = sum.tasks > 0 ? double(sum.tasks) : 1.0;
  BreakdownText out;
  out.json = "{\"seconds\":" +
             fmt("{\"elapsed\":%.9g,\"work\":%.9g,\"overhead\":%.9g,\"idle\":%.9g,", elapsed,
                 sum.work, sum.overhead, sum.idle) +
             fmt("\"discovery\":%.9g},", sum.discovery) +
             fmt("\"ns_per_task\":{\"work\":%.6g,\"overhead\":%.6g,\"idle\":%.6g,\"discovery\":%.6g},",
                 1e9 * sum.work / n, 1e9 * sum.overhead / n, 1e9 * sum.idle / n,
                 1e9 * sum.discovery / n) +
             "\"tasks\":" + std::to_string(sum.tasks) + ",\"threads\":[" + per_thread + "]}";
  out.lines = fmt("Breakdown (seconds over %.0f threads) work %.6f overhead %.6f",
                  double(threads.size()), sum.work, sum.overhead) +
              fmt(" idle %.6f discovery %.6f\n", sum.idle, sum.discovery) +
              fmt("Breakdown (ns per task) work %.1f overhead %.1f idle %.1f discovery %.1f\n",
                  1e9 * sum.work / n, 1e9 * sum.overhead / n, 1e9 * sum.idle / n,
                  1e9 * sum.discovery / n);
  return out;
}

}  // namespace taskbench
