// Validation (docs/spec.md §3): every kind of wrong input ends the run with status 3 and a message
// naming graph, task, input, expected and found; and the fault switch that proves it fires.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "../src/fault.h"
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

// ---- Outputs no task reads, checked at the end of the run ----

const char* kLastRowPrefix = "validation failed: graph 2, task \\(t=3, i=1\\): its output, which no task reads, ";

std::vector<char> last_row_output(size_t bytes) {
  std::vector<char> out(bytes);
  taskbench::write_identity(out.data(), bytes, 3, 1);
  return out;
}

TEST(UnreadOutput, AnIntactOutputPasses) {
  Harness h(100);
  const std::vector<char> out = last_row_output(100);
  h.g.check_unread_output(3, 1, out.data(), out.size());
  task_graph_check_unread_output(h.g.raw(), 3, 1, out.data(), out.size());
}

TEST(UnreadOutputDeathTest, ACorruptByteIsNamed) {
  Harness h(4096);
  std::vector<char> out = last_row_output(4096);
  out[4000] ^= 1;
  EXPECT_EXIT(h.g.check_unread_output(3, 1, out.data(), out.size()), ::testing::ExitedWithCode(3),
              std::string(kLastRowPrefix) + "is corrupt at byte 4000 of 4096 at the end of the run");
}

TEST(UnreadOutputDeathTest, AnotherTasksOutputIsNamed) {
  Harness h;
  std::vector<char> out(16);
  taskbench::write_identity(out.data(), 16, 1, 1);  // what the slot held two rows before
  EXPECT_EXIT(h.g.check_unread_output(3, 1, out.data(), out.size()), ::testing::ExitedWithCode(3),
              std::string(kLastRowPrefix) + "holds the output of \\(t=1, i=1\\) at the end of the run");
}

TEST(UnreadOutputDeathTest, AnOutputOfTheWrongSize) {
  Harness h;
  const std::vector<char> out = last_row_output(16);
  EXPECT_EXIT(h.g.check_unread_output(3, 1, out.data(), 8), ::testing::ExitedWithCode(3),
              std::string(kLastRowPrefix) + "has 8 bytes at the end of the run, the graph declares 16");
}

// Runs every task of a 2 x 2 no_comm graph, checks `checked` of its last row's outputs, reports.
void run_and_check(int checked) {
  const char* argv[] = {"test", "-steps", "2", "-width", "2", "-type", "no_comm"};
  taskbench::App app(7, const_cast<char**>(argv));
  const TaskGraph& g = app.graphs()[0];
  std::vector<std::vector<char>> out(4, std::vector<char>(16));
  size_t sixteen = 16;
  for (long i = 0; i < 2; ++i) {
    g.execute_point(0, i, out[i].data(), 16, nullptr, nullptr, 0, nullptr, 0);
    const char* in[] = {out[i].data()};
    g.execute_point(1, i, out[2 + i].data(), 16, in, &sixteen, 1, nullptr, 0);
  }
  for (long i = 0; i < checked; ++i) g.check_unread_output(1, i % 2, out[2 + i % 2].data(), 16);
  app.report(1.0);
  std::exit(0);
}

TEST(UnreadOutputDeathTest, ReportRequiresEveryLastRowOutputCheckedOnce) {
  EXPECT_EXIT(run_and_check(1), ::testing::ExitedWithCode(3),
              "validation failed: graph 0: 1 outputs of its last timestep were checked at the end of the "
              "run, expected each of its 2 once");
  EXPECT_EXIT(run_and_check(3), ::testing::ExitedWithCode(3), "3 outputs of its last timestep were checked");
  EXPECT_EXIT(run_and_check(2), ::testing::ExitedWithCode(0), "");
}

// ---- TASKBENCH_FAULT (fault.h): the switch that makes one task misbehave on purpose ----

namespace fault_switch {

using taskbench::Fault;
using taskbench::FaultKind;

TEST(FaultSwitch, ParsesTheThreeForms) {
  Fault f;
  ASSERT_TRUE(taskbench::parse_fault("corrupt:0,2,1", &f));
  EXPECT_EQ(f.kind, FaultKind::kCorrupt);
  EXPECT_EQ(f.graph, 0);
  EXPECT_EQ(f.t, 2);
  EXPECT_EQ(f.i, 1);
  ASSERT_TRUE(taskbench::parse_fault("hang:1,30,7", &f));
  EXPECT_EQ(f.kind, FaultKind::kHang);
  EXPECT_EQ(f.graph, 1);
  EXPECT_EQ(f.t, 30);
  EXPECT_EQ(f.i, 7);
  ASSERT_TRUE(taskbench::parse_fault("kill:0,0,12345678901", &f));
  EXPECT_EQ(f.kind, FaultKind::kKill);
  EXPECT_EQ(f.i, 12345678901L);
}

TEST(FaultSwitch, EmptyOrUnsetIsNoFault) {
  Fault f;
  f.kind = FaultKind::kKill;
  ASSERT_TRUE(taskbench::parse_fault("", &f));
  EXPECT_EQ(f.kind, FaultKind::kNone);
  f.kind = FaultKind::kHang;
  ASSERT_TRUE(taskbench::parse_fault(nullptr, &f));
  EXPECT_EQ(f.kind, FaultKind::kNone);
}

TEST(FaultSwitch, RejectsAnythingElse) {
  const char* bad[] = {"corrupt", "corrupt:", "corrupt:1,2", "corrupt:1,2,3,4", "corrupt:1,2,3,",
                       "corrupt:-1,2,3", "corrupt:+1,2,3", "corrupt: 1,2,3", "corrupt:1, 2,3",
                       "corrupt:1,2,3 ", "corrupt:1,2,3x", "corrupt:1,,3", "corrupt:a,b,c",
                       "CORRUPT:1,2,3", "hang", "hang:1,2", "kill:1;2;3", "explode:1,2,3",
                       "kill:99999999999999999999,0,0", ":1,2,3", "1,2,3"};
  for (const char* spec : bad) {
    Fault f;
    f.kind = FaultKind::kHang;
    EXPECT_FALSE(taskbench::parse_fault(spec, &f)) << spec;
    EXPECT_EQ(f.kind, FaultKind::kNone) << spec;  // a rejected value leaves no fault armed
  }
}

// Builds an App (which reads TASKBENCH_FAULT) for a 2 x 2 stencil in a child process only: the
// variable must not leak into the other tests.
taskbench::App* app_with_fault(const char* spec) {
  setenv("TASKBENCH_FAULT", spec, 1);
  const char* argv[] = {"test", "-steps", "2", "-width", "2", "-type", "stencil_1d"};
  return new taskbench::App(7, const_cast<char**>(argv));
}

// Runs row 0, then (1, 0), then (1, 1), calling after_task(t, i) after each of row 1.
void run_two_rows(const TaskGraph& g, void (*after_task)(long t, long i) = [](long, long) {}) {
  std::vector<char> a(16), b(16), c(16);
  g.execute_point(0, 0, a.data(), 16, nullptr, nullptr, 0, nullptr, 0);
  g.execute_point(0, 1, b.data(), 16, nullptr, nullptr, 0, nullptr, 0);
  const char* in[] = {a.data(), b.data()};
  size_t sizes[] = {16, 16};
  for (long i = 0; i < 2; ++i) {
    g.execute_point(1, i, c.data(), 16, in, sizes, 2, nullptr, 0);
    after_task(1, i);
  }
}

TEST(FaultSwitchDeathTest, MalformedValueIsOneLineAndStatus2) {
  EXPECT_EXIT(app_with_fault("kill:1,2"), ::testing::ExitedWithCode(2),
              "^taskbench: TASKBENCH_FAULT: invalid value 'kill:1,2'; expected corrupt:GRAPH,T,I, "
              "hang:GRAPH,T,I or kill:GRAPH,T,I \\(non-negative integers\\)\n$");
}

// A fault on a task the run does not have would never fire, and the run would pass as if the
// fault had been caught: refused at start, naming the variable and why.
TEST(FaultSwitchDeathTest, AFaultOnATaskTheRunDoesNotHaveIsOneLineAndStatus2) {
  EXPECT_EXIT(app_with_fault("corrupt:0,99,1"), ::testing::ExitedWithCode(2),
              "^taskbench: TASKBENCH_FAULT=corrupt:0,99,1: graph 0 has no task \\(t=99, i=1\\): "
              "2 timesteps x 2 points\n$");
  EXPECT_EXIT(app_with_fault("hang:0,1,2"), ::testing::ExitedWithCode(2),
              "^taskbench: TASKBENCH_FAULT=hang:0,1,2: graph 0 has no task \\(t=1, i=2\\): "
              "2 timesteps x 2 points\n$");
  EXPECT_EXIT(app_with_fault("kill:1,0,0"), ::testing::ExitedWithCode(2),
              "^taskbench: TASKBENCH_FAULT=kill:1,0,0: no graph 1: the run has 1 graph, numbered 0\n$");
  // With -h too, which checks a whole line without running it (the harness's check of a sweep).
  auto help_with_fault = [] {
    setenv("TASKBENCH_FAULT", "corrupt:0,4,0", 1);
    const char* argv[] = {"test", "-steps", "4", "-h"};
    taskbench::App app(4, const_cast<char**>(argv));
  };
  EXPECT_EXIT(help_with_fault(), ::testing::ExitedWithCode(2),
              "^taskbench: TASKBENCH_FAULT=corrupt:0,4,0: graph 0 has no task \\(t=4, i=0\\): "
              "4 timesteps x 4 points\n$");
}

TEST(FaultSwitch, TargetMustBeATaskOfItsGraph) {
  auto graph = [](long index, dependence_type_t pattern) {
    task_graph_t g{};
    g.graph_index = index;
    g.timesteps = 4;
    g.max_width = 4;
    g.dependence = pattern;
    g.radix = 3;
    g.period = 1;
    return g;
  };
  const std::vector<task_graph_t> graphs = {graph(0, STENCIL_1D), graph(1, TREE)};
  auto problem = [&](const char* spec) {
    taskbench::Fault f;
    EXPECT_TRUE(taskbench::parse_fault(spec, &f)) << spec;
    return taskbench::fault_target_problem(f, graphs);
  };
  EXPECT_EQ(problem(""), "");  // no fault
  EXPECT_EQ(problem("corrupt:0,3,3"), "");  // the last task of graph 0
  EXPECT_EQ(problem("corrupt:1,2,3"), "");  // tree's row 2 is 4 wide
  EXPECT_EQ(problem("corrupt:0,4,0"), "graph 0 has no task (t=4, i=0): 4 timesteps x 4 points");
  EXPECT_EQ(problem("corrupt:0,0,4"), "graph 0 has no task (t=0, i=4): 4 timesteps x 4 points");
  // Inside the grid, outside tree's narrower row 1.
  EXPECT_EQ(problem("kill:1,1,2"),
            "graph 1 has no task (t=1, i=2): 4 timesteps x 4 points, and row 1 holds points 0 to 1");
  EXPECT_EQ(problem("hang:2,0,0"), "no graph 2: the run has 2 graphs, numbered 0 to 1");
  EXPECT_EQ(problem("corrupt:9223372036854775807,0,0"),
            "no graph 9223372036854775807: the run has 2 graphs, numbered 0 to 1");
}

TEST(FaultSwitchDeathTest, KillEndsTheProcessAtThatTaskWithSigkill) {
  // (1, 0) runs (and would print) first: only (1, 1) kills.
  auto run = [] {
    std::unique_ptr<taskbench::App> app(app_with_fault("kill:0,1,1"));
    run_two_rows(app->graphs()[0], [](long t, long i) { std::fprintf(stderr, "(%ld, %ld) done\n", t, i); });
  };
  EXPECT_EXIT(run(), ::testing::KilledBySignal(SIGKILL), "^\\(1, 0\\) done\n$");
}

TEST(FaultSwitch, CorruptFlipsTheTasksOutput) {
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::unique_ptr<taskbench::App> app(app_with_fault("corrupt:0,0,1"));
    const TaskGraph& g = app->graphs()[0];
    std::vector<char> a(16), b(16), want(16);
    g.execute_point(0, 0, a.data(), 16, nullptr, nullptr, 0, nullptr, 0);
    g.execute_point(0, 1, b.data(), 16, nullptr, nullptr, 0, nullptr, 0);
    std::vector<char> a_want(16);
    taskbench::write_identity(want.data(), 16, 0, 1);
    taskbench::write_identity(a_want.data(), 16, 0, 0);
    const bool only_b = a == a_want && b != want && std::memcmp(b.data() + 1, want.data() + 1, 15) == 0;
    _exit(only_b ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0) << "corrupt:0,0,1 must change the first byte of (0, 1) only";
}

char process_state(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const size_t paren = line.rfind(')');  // the command name may hold spaces
  return paren == std::string::npos || paren + 2 >= line.size() ? '?' : line[paren + 2];
}

TEST(FaultSwitch, HangSleepsUntilSigtermEndsIt) {
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(ready[0]);
    std::unique_ptr<taskbench::App> app(app_with_fault("hang:0,1,1"));
    const TaskGraph& g = app->graphs()[0];
    if (write(ready[1], "r", 1) != 1) _exit(10);
    run_two_rows(g);
    _exit(0);  // not reached while the fault works
  }
  close(ready[1]);
  char byte;
  ASSERT_EQ(read(ready[0], &byte, 1), 1);
  close(ready[0]);
  // Still there after a while, and asleep (not spinning on a core).
  int status = 0;
  char state = '?';
  for (int k = 0; k < 50 && state != 'S'; ++k) {
    usleep(20000);
    ASSERT_EQ(waitpid(child, &status, WNOHANG), 0) << "the hung task's process ended by itself";
    state = process_state(child);
  }
  usleep(200000);
  ASSERT_EQ(waitpid(child, &status, WNOHANG), 0) << "the hung task's process ended by itself";
  EXPECT_EQ(process_state(child), 'S');
  ASSERT_EQ(kill(child, SIGTERM), 0);
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << status;
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
}

TEST(FaultSwitch, RanksTellTheHarnessWhoTheyAreUntilTheyDie) {
  // MPICH's launcher does not say which rank died; the harness learns it from these
  // connections, which the kernel closes when the rank dies.
  char dir[] = "/tmp/taskbench-rank-watch-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/ranks.sock";
  const int server = socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(server, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strcpy(address.sun_path, path.c_str());
  ASSERT_EQ(bind(server, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  ASSERT_EQ(listen(server, 4), 0);
  int go[2];
  ASSERT_EQ(pipe(go), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    setenv("TASKBENCH_RANK_WATCH", path.c_str(), 1);
    const char* argv[] = {"test"};
    taskbench::App app(1, const_cast<char**>(argv));
    app.set_rank(3);
    char byte;
    if (read(go[0], &byte, 1) != 1) _exit(1);  // dies when told
    kill(getpid(), SIGKILL);
  }
  const int conn = accept(server, nullptr, nullptr);
  ASSERT_GE(conn, 0);
  char hello[64] = {};
  ASSERT_GT(read(conn, hello, sizeof(hello) - 1), 0);
  EXPECT_EQ(std::string(hello), "rank 3 pid " + std::to_string(child) + "\n");
  ASSERT_EQ(write(go[1], "x", 1), 1);
  char more;
  EXPECT_EQ(read(conn, &more, 1), 0);  // EOF: the rank is gone
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  close(conn);
  close(server);
  close(go[0]);
  close(go[1]);
  unlink(path.c_str());
  rmdir(dir);
}

}  // namespace fault_switch

}  // namespace
