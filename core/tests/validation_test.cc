// Validation (SPEC §3): every kind of wrong input ends the run with status 3 and a message
// naming graph, task, input, expected and found.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "../src/validate.h"
#include "taskbench/app.h"
#include "taskbench/task_graph.h"

namespace {

using taskbench::TaskGraph;

struct Harness {
  TaskGraph g;
  std::vector<std::vector<char>> prev;  // outputs of row 0, valid
  std::vector<char> out;
  explicit Harness(size_t bytes = 16) {
    task_graph_t raw{};
    raw.graph_index = 2;
    raw.timesteps = 4;
    raw.max_width = 4;
    raw.dependence = STENCIL_1D;
    raw.radix = 3;
    raw.period = 1;
    raw.kernel = kernel_t{EMPTY, 0, 16, 0};
    raw.output_bytes_per_task = bytes;
    g = TaskGraph(raw);
    for (long j = 0; j < 4; ++j) {
      prev.emplace_back(bytes);
      taskbench::write_identity(prev.back().data(), bytes, 0, j);
    }
    out.resize(bytes);
  }
  // Runs task (1, 1) with inputs taken from the given columns of row 0.
  void run(const std::vector<const char*>& inputs, size_t input_bytes) {
    std::vector<size_t> sizes(inputs.size(), input_bytes);
    std::vector<const char*> in = inputs;
    g.execute_point(1, 1, out.data(), out.size(), in.data(), sizes.data(), in.size(), nullptr, 0);
  }
  const char* col(long j) { return prev[j].data(); }
};

const char* kPrefix = "validation failed: graph 2, task \\(t=1, i=1\\): ";

TEST(Validation, AcceptsTheExactInputs) {
  Harness h;
  h.run({h.col(0), h.col(1), h.col(2)}, 16);
  long long t, i;
  std::memcpy(&t, h.out.data(), 8);
  std::memcpy(&i, h.out.data() + 8, 8);
  EXPECT_EQ(t, 1);
  EXPECT_EQ(i, 1);
}

TEST(ValidationDeathTest, CorruptedInput) {
  Harness h;
  h.prev[1][0] ^= 1;
  EXPECT_EXIT(h.run({h.col(0), h.col(1), h.col(2)}, 16), ::testing::ExitedWithCode(3),
              std::string(kPrefix) + "input 1: expected the output of \\(t=0, i=1\\), found \\(t=1, i=1\\)");
}

TEST(ValidationDeathTest, MissingInput) {
  Harness h;
  EXPECT_EXIT(h.run({h.col(0), h.col(1)}, 16), ::testing::ExitedWithCode(3),
              std::string(kPrefix) + "input 2: expected the output of \\(t=0, i=2\\), found no input \\(received 2 inputs\\)");
}

TEST(ValidationDeathTest, DuplicatedInput) {
  Harness h;
  EXPECT_EXIT(h.run({h.col(0), h.col(0), h.col(1), h.col(2)}, 16), ::testing::ExitedWithCode(3),
              std::string(kPrefix) + "input 1: expected the output of \\(t=0, i=1\\), found \\(t=0, i=0\\)");
}

TEST(ValidationDeathTest, ExtraInput) {
  Harness h;
  EXPECT_EXIT(h.run({h.col(0), h.col(1), h.col(2), h.col(3)}, 16), ::testing::ExitedWithCode(3),
              std::string(kPrefix) + "input 3: expected no more inputs \\(3 dependencies\\), found 4 inputs");
}

TEST(ValidationDeathTest, StaleInput) {
  Harness h;
  taskbench::write_identity(h.prev[2].data(), 16, 3, 2);  // a later (or earlier) timestep's data
  EXPECT_EXIT(h.run({h.col(0), h.col(1), h.col(2)}, 16), ::testing::ExitedWithCode(3),
              std::string(kPrefix) + "input 2: expected the output of \\(t=0, i=2\\), found \\(t=3, i=2\\)");
}

TEST(ValidationDeathTest, TooShortInputBuffer) {
  Harness h;
  EXPECT_EXIT(h.run({h.col(0), h.col(1), h.col(2)}, 8), ::testing::ExitedWithCode(3),
              std::string(kPrefix) + "input 0: expected 16 bytes from \\(t=0, i=0\\), found 8 bytes");
}

TEST(ValidationDeathTest, CorruptTailOfALargeOutput) {
  Harness h(4096);
  h.prev[2][4000] ^= 1;
  EXPECT_EXIT(h.run({h.col(0), h.col(1), h.col(2)}, 4096), ::testing::ExitedWithCode(3),
              std::string(kPrefix) + "input 2: the output of \\(t=0, i=2\\) is corrupt at byte 4000 of 4096");
}

TEST(ValidationDeathTest, OutputBufferOfTheWrongSize) {
  Harness h;
  std::vector<const char*> in = {h.col(0), h.col(1), h.col(2)};
  std::vector<size_t> sizes(3, 16);
  EXPECT_EXIT(h.g.execute_point(1, 1, h.out.data(), 8, in.data(), sizes.data(), 3, nullptr, 0),
              ::testing::ExitedWithCode(3), std::string(kPrefix) + "output buffer of 8 bytes, the graph declares 16");
}

TEST(ValidationDeathTest, TaskOutsideTheGraph) {
  Harness h;
  EXPECT_EXIT(h.g.execute_point(1, 9, h.out.data(), 16, nullptr, nullptr, 0, nullptr, 0),
              ::testing::ExitedWithCode(3), "task \\(t=1, i=9\\): this task is not in the graph");
}

// Runs every task of a 2 x 2 no_comm graph but (1, 1), then reports.
void run_all_but_one_task() {
  const char* argv[] = {"test", "-steps", "2", "-width", "2", "-type", "no_comm"};
  taskbench::App app(7, const_cast<char**>(argv));
  const TaskGraph& g = app.graphs()[0];
  std::vector<char> a(16), b(16), c(16);
  size_t sixteen = 16;
  g.execute_point(0, 0, a.data(), 16, nullptr, nullptr, 0, nullptr, 0);
  g.execute_point(0, 1, b.data(), 16, nullptr, nullptr, 0, nullptr, 0);
  const char* in[] = {a.data()};
  g.execute_point(1, 0, c.data(), 16, in, &sixteen, 1, nullptr, 0);
  app.report(1.0);
}

TEST(ValidationDeathTest, ReportRefusesARunThatSkippedATask) {
  EXPECT_EXIT(run_all_but_one_task(), ::testing::ExitedWithCode(3),
              "validation failed: graph 0 executed 3 tasks, expected 4");
}

}  // namespace
