// The C API mirrors the C++ one, including the original Task Bench names.
#include <gtest/gtest.h>

#include <vector>

#include "taskbench/taskbench.h"

namespace {

TEST(CApi, OriginalIntervalListsMatchTheAllocationFreeQueries) {
  task_graph_t g{};
  g.timesteps = 5;
  g.max_width = 9;
  g.dependence = SPREAD;
  g.radix = 3;
  g.period = 2;
  g.output_bytes_per_task = 16;
  std::vector<interval_t> iv(task_graph_max_intervals(g));
  for (long d = 0; d < task_graph_max_dependence_sets(g); ++d)
    for (long i = 0; i < 9; ++i) {
      interval_list_t list = task_graph_dependencies(g, d, i);
      long n = task_graph_dependencies_into(g, d, i, iv.data());
      ASSERT_EQ(interval_list_num_intervals(list), n);
      for (long k = 0; k < n; ++k) {
        EXPECT_EQ(interval_list_interval(list, k).start, iv[k].start);
        EXPECT_EQ(interval_list_interval(list, k).end, iv[k].end);
      }
      interval_list_destroy(list);
      list = task_graph_reverse_dependencies(g, d, i);
      EXPECT_EQ(interval_list_num_intervals(list), task_graph_reverse_dependencies_into(g, d, i, iv.data()));
      interval_list_destroy(list);
    }
}

TEST(CApi, AppFromArgvAndGraphList) {
  const char* argv[] = {"prog", "-steps", "3", "-width", "5", "-type", "stencil_1d", "-and", "-type", "tree"};
  app_t app = app_create(10, const_cast<char**>(argv));
  task_graph_list_t graphs = app_task_graphs(app);
  ASSERT_EQ(task_graph_list_num_task_graphs(graphs), 2);
  task_graph_t a = task_graph_list_task_graph(graphs, 0);
  task_graph_t b = task_graph_list_task_graph(graphs, 1);
  EXPECT_EQ(a.timesteps, 3);
  EXPECT_EQ(a.max_width, 5);
  EXPECT_EQ(a.dependence, STENCIL_1D);
  EXPECT_EQ(b.dependence, TREE);
  EXPECT_EQ(b.graph_index, 1);
  EXPECT_FALSE(app_verbose(app));
  EXPECT_EQ(app_flag_value(app, "-worker", 42), 42);
  task_graph_list_destroy(graphs);
  app_destroy(app);
}

TEST(CApi, SystemFlags) {
  const char* argv[] = {"prog", "-worker", "3"};
  taskbench_flag_t flags[] = {{"-worker", "N", "threads", 1}};
  app_t app = app_create_for_system(3, const_cast<char**>(argv), "mine", flags, 1, true);
  EXPECT_EQ(app_flag_value(app, "-worker", 1), 3);
  app_destroy(app);
}

}  // namespace
