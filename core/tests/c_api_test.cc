// The C API mirrors the C++ one, including the original Task Bench names.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "taskbench/taskbench.h"

namespace {

// Every function of the original core_c.h, with its exact type: a port written against that
// header compiles and links unchanged.
#define SAME_TYPE(f, type) static_assert(std::is_same_v<decltype(&f), type>, #f)
SAME_TYPE(interval_list_destroy, void (*)(interval_list_t));
SAME_TYPE(interval_list_num_intervals, long (*)(interval_list_t));
SAME_TYPE(interval_list_interval, interval_t (*)(interval_list_t, long));
SAME_TYPE(task_graph_offset_at_timestep, long (*)(task_graph_t, long));
SAME_TYPE(task_graph_width_at_timestep, long (*)(task_graph_t, long));
SAME_TYPE(task_graph_max_dependence_sets, long (*)(task_graph_t));
SAME_TYPE(task_graph_timestep_period, long (*)(task_graph_t));
SAME_TYPE(task_graph_dependence_set_at_timestep, long (*)(task_graph_t, long));
SAME_TYPE(task_graph_reverse_dependencies, interval_list_t (*)(task_graph_t, long, long));
SAME_TYPE(task_graph_dependencies, interval_list_t (*)(task_graph_t, long, long));
SAME_TYPE(task_graph_execute_point_scratch,
          void (*)(task_graph_t, long, long, char*, size_t, const char**, const size_t*, size_t,
                   char*, size_t));
SAME_TYPE(task_graph_execute_point_scratch_auto,
          void (*)(task_graph_t, long, long, char*, size_t, const char**, const size_t*, size_t,
                   size_t));
SAME_TYPE(task_graph_execute_point_nonconst,
          void (*)(task_graph_t, long, long, int64_t*, size_t, int64_t**, const size_t*, size_t));
SAME_TYPE(task_graph_execute_point_scratch_nonconst,
          void (*)(task_graph_t, long, long, int64_t*, size_t, int64_t**, const size_t*, size_t,
                   char*, size_t));
SAME_TYPE(task_graph_prepare_scratch, void (*)(char*, size_t));
SAME_TYPE(task_graph_list_destroy, void (*)(task_graph_list_t));
SAME_TYPE(task_graph_list_num_task_graphs, long (*)(task_graph_list_t));
SAME_TYPE(task_graph_list_task_graph, task_graph_t (*)(task_graph_list_t, long));
SAME_TYPE(app_create, app_t (*)(int, char**));
SAME_TYPE(app_destroy, void (*)(app_t));
SAME_TYPE(app_task_graphs, task_graph_list_t (*)(app_t));
SAME_TYPE(app_verbose, bool (*)(app_t));
SAME_TYPE(app_check, void (*)(app_t));
SAME_TYPE(app_display, void (*)(app_t));
SAME_TYPE(app_report_timing, void (*)(app_t, double));
#undef SAME_TYPE

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

// The original header's three execute variants: _scratch_auto (the core provides the scratch),
// _nonconst and _scratch_nonconst (int64_t buffers, non-const inputs). Each runs a whole graph
// whose kernel reads scratch, walked through the original interval lists, and validates.
enum class Variant { kScratchAuto, kNonconst, kScratchNonconst };

long long run_graph_with(Variant variant) {
  const char* argv[] = {"prog", "-steps", "5", "-width", "6", "-type", "stencil_1d",
                        "-kernel", "memory_bound", "-iter", "2", "-scratch", "4096", "-output", "24"};
  app_t app = app_create(15, const_cast<char**>(argv));
  task_graph_list_t graphs = app_task_graphs(app);
  const task_graph_t g = task_graph_list_task_graph(graphs, 0);
  const size_t words = g.output_bytes_per_task / sizeof(int64_t);
  std::vector<std::vector<int64_t>> rows[2];
  rows[0].assign(g.max_width, std::vector<int64_t>(words));
  rows[1] = rows[0];
  std::vector<char> scratch(g.scratch_bytes_per_task);
  task_graph_prepare_scratch(scratch.data(), scratch.size());
  for (long t = 0; t < g.timesteps; ++t) {
    auto& out = rows[t % 2];
    auto& prev = rows[(t + 1) % 2];
    const long offset = task_graph_offset_at_timestep(g, t);
    const long width = task_graph_width_at_timestep(g, t);
    const long dset = task_graph_dependence_set_at_timestep(g, t);
    for (long i = offset; i < offset + width; ++i) {
      std::vector<int64_t*> inputs;
      if (t > 0) {
        const long prev_offset = task_graph_offset_at_timestep(g, t - 1);
        const long prev_width = task_graph_width_at_timestep(g, t - 1);
        interval_list_t deps = task_graph_dependencies(g, dset, i);
        for (long k = 0; k < interval_list_num_intervals(deps); ++k) {
          const interval_t iv = interval_list_interval(deps, k);
          for (long j = iv.start; j <= iv.end; ++j)
            if (j >= prev_offset && j < prev_offset + prev_width) inputs.push_back(prev[j].data());
        }
        interval_list_destroy(deps);
      }
      const std::vector<size_t> sizes(inputs.size(), g.output_bytes_per_task);
      switch (variant) {
        case Variant::kScratchAuto: {
          std::vector<const char*> in;
          for (int64_t* p : inputs) in.push_back(reinterpret_cast<const char*>(p));
          task_graph_execute_point_scratch_auto(g, t, i, reinterpret_cast<char*>(out[i].data()),
                                                g.output_bytes_per_task, in.data(), sizes.data(),
                                                in.size(), g.scratch_bytes_per_task);
          break;
        }
        case Variant::kNonconst:
          task_graph_execute_point_nonconst(g, t, i, out[i].data(), g.output_bytes_per_task,
                                            inputs.data(), sizes.data(), inputs.size());
          break;
        case Variant::kScratchNonconst:
          task_graph_execute_point_scratch_nonconst(g, t, i, out[i].data(),
                                                    g.output_bytes_per_task, inputs.data(),
                                                    sizes.data(), inputs.size(), scratch.data(),
                                                    scratch.size());
          break;
      }
      EXPECT_EQ(out[i][0], t);  // the task's identity, as the next row's validation expects
      EXPECT_EQ(out[i][1], i);
    }
  }
  const long long executed = app_local_executed_tasks(app, 0);
  task_graph_list_destroy(graphs);
  app_destroy(app);
  return executed;
}

TEST(CApiOriginalVariants, ScratchAutoRunsEveryTask) {
  EXPECT_EQ(run_graph_with(Variant::kScratchAuto), 30);
}

TEST(CApiOriginalVariants, NonconstRunsEveryTask) {
  EXPECT_EQ(run_graph_with(Variant::kNonconst), 30);
}

TEST(CApiOriginalVariants, ScratchNonconstRunsEveryTask) {
  EXPECT_EQ(run_graph_with(Variant::kScratchNonconst), 30);
}

task_graph_t memory_graph() {
  task_graph_t g{};
  g.timesteps = 2;
  g.max_width = 2;
  g.dependence = NO_COMM;
  g.radix = 3;
  g.period = 3;
  g.kernel = kernel_t{MEMORY_BOUND, 1, 16, 0};
  g.output_bytes_per_task = 16;
  g.scratch_bytes_per_task = 1024;
  return g;
}

TEST(CApiOriginalVariants, ScratchAutoWithoutASizeUsesTheGraphs) {
  const task_graph_t g = memory_graph();
  int64_t out[2] = {-1, -1};
  task_graph_execute_point_scratch_auto(g, 0, 1, reinterpret_cast<char*>(out), sizeof out,
                                        nullptr, nullptr, 0, 0);
  EXPECT_EQ(out[0], 0);
  EXPECT_EQ(out[1], 1);
}

TEST(CApiOriginalVariantsDeathTest, ScratchAutoSmallerThanTheGraphsFailsValidation) {
  const task_graph_t g = memory_graph();
  int64_t out[2];
  EXPECT_EXIT(task_graph_execute_point_scratch_auto(g, 0, 0, reinterpret_cast<char*>(out),
                                                    sizeof out, nullptr, nullptr, 0, 512),
              ::testing::ExitedWithCode(3), "scratch buffer of 512 bytes");
}

TEST(CApiOriginalVariantsDeathTest, NonconstValidatesItsInputs) {
  task_graph_t g = memory_graph();
  int64_t wrong[2] = {0, 1};  // the output of (0, 1), where (1, 0) reads (0, 0)
  int64_t* inputs[] = {wrong};
  const size_t sizes[] = {sizeof wrong};
  int64_t out[2];
  EXPECT_EXIT(task_graph_execute_point_nonconst(g, 1, 0, out, sizeof out, inputs, sizes, 1),
              ::testing::ExitedWithCode(3), "validation failed");
}

}  // namespace
