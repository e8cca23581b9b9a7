// The "breakdown" report member and its two summary lines: per-thread work, overhead, idle
// and discovery seconds. One formatter for every producer (native's runtime accounting, the
// OMPT tool of tools/ompt_breakdown), so their reports carry the same keys side by side.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace taskbench {

struct ThreadBreakdown {
  double work = 0, overhead = 0, idle = 0, discovery = 0;  // seconds
  std::uint64_t tasks = 0;   // tasks this thread ran
  std::uint64_t steals = 0;  // of them, taken from another thread (producer-defined)
};

struct BreakdownText {
  std::string json;   // the value of system_report.breakdown
  std::string lines;  // "Breakdown (seconds over N threads) ..." and "Breakdown (ns per task) ..."
};

BreakdownText format_breakdown(double elapsed_seconds, const std::vector<ThreadBreakdown>& threads);

}  // namespace taskbench
