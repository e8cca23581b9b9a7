// The core's lookup of tools loaded through OMP_TOOL_LIBRARIES (core/src/tool_report.cc) and
// the breakdown formatter they and native share (taskbench/breakdown.h).
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "../src/tool_report.h"
#include "taskbench/breakdown.h"

namespace {

std::vector<taskbench::ToolReport> collect_with(const char* listed, std::string* err) {
  setenv("OMP_TOOL_LIBRARIES", listed, 1);
  testing::internal::CaptureStderr();
  std::vector<taskbench::ToolReport> reports = taskbench::collect_tool_reports();
  *err = testing::internal::GetCapturedStderr();
  unsetenv("OMP_TOOL_LIBRARIES");
  return reports;
}

TEST(ToolReport, NothingListedNothingSaid) {
  unsetenv("OMP_TOOL_LIBRARIES");
  testing::internal::CaptureStderr();
  EXPECT_TRUE(taskbench::collect_tool_reports().empty());
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST(ToolReport, ListedButNotLoadedGetsOneWarningAndIsNeverLoaded) {
  std::string err;
  EXPECT_TRUE(collect_with(FAKE_TOOL_PATH, &err).empty());
  EXPECT_EQ(err.rfind("taskbench: warning: OMP_TOOL_LIBRARIES lists " FAKE_TOOL_PATH " but", 0), 0u);
  EXPECT_EQ(err.find('\n'), err.size() - 1);  // one line
  EXPECT_EQ(dlopen(FAKE_TOOL_PATH, RTLD_NOLOAD | RTLD_LAZY), nullptr);
}

TEST(ToolReport, LoadedLibraryWithoutTheHookIsIgnoredSilently) {
  std::string err;
  EXPECT_TRUE(collect_with("::libc.so.6:", &err).empty());  // empty entries are skipped too
  EXPECT_EQ(err, "");
}

TEST(ToolReport, LoadedToolWithTheHookGivesItsReport) {
  void* handle = dlopen(FAKE_TOOL_PATH, RTLD_NOW);  // as libomp would have
  ASSERT_NE(handle, nullptr) << dlerror();
  std::string err;
  const auto reports = collect_with("libc.so.6:" FAKE_TOOL_PATH, &err);
  EXPECT_EQ(err, "");
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].key, "fake");
  EXPECT_EQ(reports[0].json, "{\"answer\":42}");
  EXPECT_EQ(reports[0].lines, "Fake tool line\n");
  dlclose(handle);
}

TEST(ToolReport, MergeKeepsTheSystemsOwnKey) {
  void* handle = dlopen(FAKE_TOOL_PATH, RTLD_NOW);
  ASSERT_NE(handle, nullptr) << dlerror();
  setenv("OMP_TOOL_LIBRARIES", FAKE_TOOL_PATH, 1);
  std::vector<std::pair<std::string, std::string>> report = {{"schedule", "{}"}};
  EXPECT_EQ(taskbench::merge_tool_reports(&report), "Fake tool line\n");
  ASSERT_EQ(report.size(), 2u);
  EXPECT_EQ(report[1].first, "fake");
  report = {{"fake", "{\"mine\":1}"}};
  testing::internal::CaptureStderr();
  EXPECT_EQ(taskbench::merge_tool_reports(&report), "");
  EXPECT_NE(testing::internal::GetCapturedStderr().find("\"fake\" is ignored"), std::string::npos);
  EXPECT_EQ(report.size(), 1u);
  EXPECT_EQ(report[0].second, "{\"mine\":1}");
  unsetenv("OMP_TOOL_LIBRARIES");
  dlclose(handle);
}

TEST(Breakdown, SumsThreadsAndDividesByTasks) {
  const taskbench::BreakdownText b = taskbench::format_breakdown(
      2.0, {{1.0, 0.5, 0.25, 0.25, 3, 0}, {0.5, 0.5, 2.5, 0.5, 1, 1}});
  EXPECT_EQ(b.json,
            "{\"seconds\":{\"elapsed\":2,\"work\":1.5,\"overhead\":1,\"idle\":2.75,\"discovery\":0.75},"
            "\"ns_per_task\":{\"work\":3.75e+08,\"overhead\":2.5e+08,\"idle\":6.875e+08,"
            "\"discovery\":1.875e+08},\"tasks\":4,\"threads\":["
            "{\"work\":1,\"overhead\":0.5,\"idle\":0.25,\"discovery\":0.25,\"tasks\":3,\"steals\":0},"
            "{\"work\":0.5,\"overhead\":0.5,\"idle\":2.5,\"discovery\":0.5,\"tasks\":1,\"steals\":1}]}");
  EXPECT_EQ(b.lines,
            "Breakdown (seconds over 2 threads) work 1.500000 overhead 1.000000 idle 2.750000 "
            "discovery 0.750000\n"
            "Breakdown (ns per task) work 375000000.0 overhead 250000000.0 idle 687500000.0 "
            "discovery 187500000.0\n");
}

}  // namespace
