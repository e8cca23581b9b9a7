/* A tool library for tool_report_test.cc: exports the report hook with a fixed report. */
#include "taskbench/tool_report.h"

int taskbench_tool_report(const char** key, const char** json, const char** lines) {
  *key = "fake";
  *json = "{\"answer\":42}";
  *lines = "Fake tool line\n";
  return 1;
}
