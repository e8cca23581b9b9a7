// The summary lines of the original Task Bench and the versioned JSON report (docs/spec.md §5).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "taskbench/app.h"
#include "totals.h"

namespace taskbench {

constexpr int kReportSchemaVersion = 1;

struct ReportInput {
  const AppOptions* options;
  const std::vector<TaskGraph>* graphs;
  const std::vector<std::string>* command;
  const Totals* totals;
  double elapsed_seconds;
  long nodes, ranks, threads_per_rank;
  bool graph_checked;
  bool last_row_checked;  // every output of each graph's last timestep (App::report)
  const std::vector<std::pair<std::string, std::string>>* system_report;
};

void print_summary(const ReportInput& in);
std::string report_json(const ReportInput& in);

}  // namespace taskbench
