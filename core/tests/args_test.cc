// Flags (docs/spec.md §4): every invalid value is one UsageError naming the flag and what is allowed.
#include <gtest/gtest.h>

#include "../src/args.h"
#include "taskbench/task_graph.h"

namespace {

using taskbench::Config;
using taskbench::parse_args;
using taskbench::UsageError;

Config parse(std::vector<std::string> args, std::vector<taskbench::SystemFlag> flags = {}) {
  return parse_args(args, flags, 4);
}

std::string error_of(std::vector<std::string> args) {
  try {
    parse(args);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(Args, DefaultsAreTheOriginals) {
  Config c = parse({});
  ASSERT_EQ(c.graphs.size(), 1u);
  const task_graph_t& g = c.graphs[0];
  EXPECT_EQ(g.timesteps, 4);
  EXPECT_EQ(g.max_width, 4);
  EXPECT_EQ(g.dependence, TRIVIAL);
  EXPECT_EQ(g.radix, 3);
  EXPECT_EQ(g.kernel.type, EMPTY);
  EXPECT_EQ(g.kernel.iterations, 0);
  EXPECT_EQ(g.kernel.samples, 16);
  EXPECT_EQ(g.output_bytes_per_task, 16u);
  EXPECT_DOUBLE_EQ(g.fraction_connected, 0.25);
  EXPECT_EQ(c.nodes, 1);
}

TEST(Args, EveryFlagIsParsedAndAndStartsAFreshGraph) {
  Config c = parse({"-steps", "9", "-width", "5", "-type", "random_spread", "-radix", "4", "-period", "2",
                    "-fraction", "0.5", "-kernel", "memory_bound", "-iter", "7", "-output", "64", "-scratch",
                    "512", "-sample", "2", "-field", "3", "-seed", "11", "-and", "-type", "stencil_1d",
                    "-kernel", "load_imbalance", "-imbalance", "1.5", "-nodes", "2", "-json", "r.json", "-trace",
                    "t.json", "-skip-graph-validation", "-vv"});
  ASSERT_EQ(c.graphs.size(), 2u);
  const task_graph_t& a = c.graphs[0];
  EXPECT_EQ(a.timesteps, 9);
  EXPECT_EQ(a.max_width, 5);
  EXPECT_EQ(a.dependence, RANDOM_SPREAD);
  EXPECT_EQ(a.radix, 4);
  EXPECT_EQ(a.period, 2);
  EXPECT_DOUBLE_EQ(a.fraction_connected, 0.5);
  EXPECT_EQ(a.kernel.type, MEMORY_BOUND);
  EXPECT_EQ(a.kernel.iterations, 7);
  EXPECT_EQ(a.output_bytes_per_task, 64u);
  EXPECT_EQ(a.scratch_bytes_per_task, 512u);
  EXPECT_EQ(a.kernel.samples, 2);
  EXPECT_EQ(a.nb_fields, 3);
  ASSERT_EQ(c.seeds.size(), 2u);
  EXPECT_EQ(c.seeds[0], 11u);  // kept beside the graph: task_graph_t has the original's layout
  EXPECT_EQ(c.seeds[1], 0u);
  EXPECT_EQ(c.graphs[1].graph_index, 1);
  EXPECT_EQ(c.graphs[1].timesteps, 4);  // back to the default
  EXPECT_DOUBLE_EQ(c.graphs[1].kernel.imbalance, 1.5);
  EXPECT_EQ(c.nodes, 2);
  EXPECT_EQ(c.json_path, "r.json");
  EXPECT_EQ(c.trace_path, "t.json");
  EXPECT_TRUE(c.skip_graph_validation);
  EXPECT_EQ(c.verbosity, 2);
}

TEST(Args, InvalidValuesNameTheFlagTheValueAndWhatIsAllowed) {
  EXPECT_EQ(error_of({"-steps", "0"}), "-steps: invalid value '0'; expected an integer from 1 to 2^60");
  EXPECT_EQ(error_of({"-steps", "abc"}), "-steps: invalid value 'abc'; expected an integer from 1 to 2^60");
  EXPECT_EQ(error_of({"-steps", "1e3"}), "-steps: invalid value '1e3'; expected an integer from 1 to 2^60");
  EXPECT_EQ(error_of({"-width", "-3"}), "-width: invalid value '-3'; expected an integer from 1 to 2^60");
  EXPECT_EQ(error_of({"-iter", "99999999999999999999"}),
            "-iter: invalid value '99999999999999999999'; expected an integer from 0 to 2^60");
  EXPECT_NE(error_of({"-type", "stencil"}).find("-type: invalid value 'stencil'; expected one of trivial, "), std::string::npos);
  EXPECT_NE(error_of({"-kernel", "fma"}).find("-kernel: invalid value 'fma'; expected one of empty, "), std::string::npos);
  EXPECT_EQ(error_of({"-fraction", "1.5"}), "-fraction: invalid value '1.5'; expected a number from 0 to 1");
  EXPECT_EQ(error_of({"-fraction", "nan"}), "-fraction: invalid value 'nan'; expected a number from 0 to 1");
  EXPECT_EQ(error_of({"-imbalance", "3"}), "-imbalance: invalid value '3'; expected a number from 0 to 2");
  EXPECT_EQ(error_of({"-output", "8"}), "-output: invalid value '8'; expected an integer from 16 to 2^32");
  EXPECT_EQ(error_of({"-period", "0"}), "-period: invalid value '0'; expected an integer from 1 to 1048576");
  EXPECT_EQ(error_of({"-sample", "0"}), "-sample: invalid value '0'; expected an integer from 1 to 2^30");
  EXPECT_EQ(error_of({"-nodes", "0"}), "-nodes: invalid value '0'; expected an integer from 1 to 2^30");
  EXPECT_EQ(error_of({"-radix", "-1"}), "-radix: invalid value '-1'; expected an integer from 0 to 1048576");
  EXPECT_EQ(error_of({"-type", "spread", "-width", "4", "-radix", "5"}),
            "-radix: invalid value '5'; expected at most -width (4) for spread");
  EXPECT_EQ(error_of({"-kernel", "memory_bound"}),
            "-scratch: invalid value '0'; expected a positive multiple of 16 x -sample (256) for memory_bound");
  EXPECT_EQ(error_of({"-kernel", "memory_daxpy", "-scratch", "1000"}),
            "-scratch: invalid value '1000'; expected a positive multiple of 16 x -sample (256) for memory_daxpy");
}

// -radix is the dependencies per task of the four radix patterns: above the width no task could
// have that many (nearest's window would be clipped on both sides), so it is refused, not run
// as a smaller radix under the asked one's name.
TEST(Args, RadixAboveTheWidthIsRefusedForEveryRadixPattern) {
  for (const char* p : {"nearest", "random_nearest", "spread", "random_spread"}) {
    EXPECT_EQ(error_of({"-type", p, "-width", "2", "-radix", "3"}),
              std::string("-radix: invalid value '3'; expected at most -width (2) for ") + p);
    // Not given: the default, 3, is named as such.
    EXPECT_EQ(error_of({"-type", p, "-width", "2"}),
              std::string("-radix: invalid value '3' (the default); expected at most -width (2) for ") + p);
    const Config c = parse({"-type", p, "-width", "2", "-radix", "2"});
    EXPECT_EQ(c.graphs[0].radix, 2) << p;
  }
  // Each graph of a line is judged on its own flags: the second graph's default radix is 3.
  EXPECT_EQ(error_of({"-type", "nearest", "-width", "8", "-radix", "5", "-and", "-type", "nearest",
                      "-width", "2"}),
            "-radix: invalid value '3' (the default); expected at most -width (2) for nearest");
  // The patterns that ignore -radix take any.
  EXPECT_EQ(parse({"-type", "stencil_1d", "-width", "2", "-radix", "9"}).graphs[0].radix, 9);
}

TEST(Args, AValueIsNeverTakenFromTheNextFlag) {
  EXPECT_EQ(error_of({"-steps", "-width", "4"}), "-steps: missing value; expected a value for N");
  EXPECT_EQ(error_of({"-steps"}), "-steps: missing value; expected a value for N");
  EXPECT_EQ(error_of({"-json"}), "-json: missing value; expected a file name");
}

TEST(Args, UnknownFlagsAndStrayArgumentsAreErrors) {
  EXPECT_EQ(error_of({"-iters", "5"}), "unknown flag '-iters' (-h lists the flags)");
  EXPECT_EQ(error_of({"5"}), "unexpected argument '5' (flags start with -, see -h)");
  EXPECT_EQ(error_of({"-worker", "2"}), "unknown flag '-worker' (-h lists the flags)");
}

TEST(Args, SystemFlagsAreDeclaredByTheSystem) {
  std::vector<taskbench::SystemFlag> flags = {{"-worker", "N", "threads", 1}, {"-pin", "", "pin", 0}};
  Config c = parse({"-worker", "3", "-pin"}, flags);
  EXPECT_EQ(c.system_values.at("-worker"), 3);
  EXPECT_EQ(c.system_values.at("-pin"), 1);
  try {
    parse({"-worker", "0"}, flags);
    FAIL() << "accepted -worker 0";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "-worker: invalid value '0'; expected an integer from 1 to 2^60");
  }
}

TEST(Args, HelpListsEveryFlag) {
  EXPECT_TRUE(parse({"-h"}).help);
  std::string text = taskbench::usage_text("serial", {{"-worker", "N", "threads", 1}});
  for (const char* f : {"-steps", "-width", "-type", "-radix", "-period", "-fraction", "-kernel", "-iter",
                        "-output", "-scratch", "-sample", "-imbalance", "-and", "-nodes", "-field",
                        "-skip-graph-validation", "-vv", "-json", "-trace", "-seed", "-worker", "random_spread",
                        "load_imbalance"})
    EXPECT_NE(text.find(f), std::string::npos) << f;
}

// Bugs found by the fuzz test (fuzz_flags): a value holding a newline or a byte that is not
// text broke the one-line message; strtol/strtod took " 5", "0x1p-2" and "inf"-like spellings;
// messages for a too-large value gave only the lower bound ("an integer >= 1" for 2^60 + 1).
TEST(Args, MessagesStayOneLineOfText) {
  const std::string e = error_of({"-type", "a\nb\xff"});
  EXPECT_EQ(e.substr(0, e.find(';')), "-type: invalid value 'a\\x0ab\\xff'");
  EXPECT_EQ(error_of({"-x\n"}), "unknown flag '-x\\x0a' (-h lists the flags)");
  EXPECT_EQ(error_of({"\t"}), "unexpected argument '\\x09' (flags start with -, see -h)");
  const std::string long_value(5000, '7');
  EXPECT_LT(error_of({"-steps", long_value}).size(), 300u);
}

TEST(Args, NumbersAreDecimalWithoutSpaces) {
  for (const char* v : {" 5", "5 ", "0x10", "", "5\n", "1e3", "--5", "+-5", "+"})
    EXPECT_EQ(error_of({"-steps", v}).rfind("-steps: ", 0), 0u) << v;  // "--5": a missing value
  for (const char* v : {" 0.5", "0x1p-2", "inf", "nan", "NaN", "-inf", "1e308", ".", "0.5 "})
    EXPECT_EQ(error_of({"-fraction", v}).rfind("-fraction: ", 0), 0u) << v;
  EXPECT_EQ(parse({"-steps", "+5"}).graphs[0].timesteps, 5);
  EXPECT_DOUBLE_EQ(parse({"-fraction", ".5"}).graphs[0].fraction_connected, 0.5);
  EXPECT_DOUBLE_EQ(parse({"-fraction", "1e-400"}).graphs[0].fraction_connected, 0.0);
}

TEST(Args, MessagesGiveBothBounds) {
  EXPECT_EQ(error_of({"-steps", "1152921504606846977"}),
            "-steps: invalid value '1152921504606846977'; expected an integer from 1 to 2^60");
  EXPECT_EQ(error_of({"-seed", "1152921504606846977"}),
            "-seed: invalid value '1152921504606846977'; expected an integer from 0 to 2^60");
  EXPECT_EQ(error_of({"-field", "1048577"}),
            "-field: invalid value '1048577'; expected an integer from 1 to 1048576");
  EXPECT_EQ(error_of({"-nodes", "1073741825"}),
            "-nodes: invalid value '1073741825'; expected an integer from 1 to 2^30");
  EXPECT_EQ(parse({"-steps", "1152921504606846976"}).graphs[0].timesteps, 1L << 60);
}

// -json and -trace are written at the end of the run: a path that cannot be written is
// rejected before the run, not after it.
TEST(Args, ReportPathsMustBeWritable) {
  EXPECT_EQ(error_of({"-json", ""}),
            "-json: invalid value ''; expected a file name that can be written, but an empty file name");
  EXPECT_EQ(error_of({"-trace", "/"}),
            "-trace: invalid value '/'; expected a file name that can be written, but it names a directory");
  EXPECT_EQ(error_of({"-json", "."}),
            "-json: invalid value '.'; expected a file name that can be written, but it is a directory");
  EXPECT_EQ(error_of({"-json", "/no-such-directory-taskbench/r.json"}),
            "-json: invalid value '/no-such-directory-taskbench/r.json'; expected a file name that can be "
            "written, but its directory cannot be reached: No such file or directory");
  EXPECT_NE(error_of({"-json", "/proc/self/status/r.json"}).find("Not a directory"), std::string::npos);
  EXPECT_EQ(parse({"-json", "new-report.json", "-trace", "/tmp/t.json"}).json_path, "new-report.json");
}

// Bug found by the flag fuzz test on the systems: -json and -trace naming one file left only
// the report, written over the trace.
TEST(Args, ReportAndTraceAreDifferentFiles) {
  EXPECT_EQ(error_of({"-json", "r.json", "-trace", "r.json"}), "-trace: invalid value 'r.json'; expected another "
                                                               "file than -json's (the report would overwrite the trace)");
  EXPECT_EQ(error_of({"-trace", "./r.json", "-json", "r.json"}).rfind("-trace: invalid value './r.json'", 0), 0u);
  EXPECT_EQ(error_of({"-trace", "/tmp/../tmp/r.json", "-json", "/tmp/r.json"}).rfind("-trace:", 0), 0u);
  EXPECT_NO_THROW(parse({"-json", "r.json", "-trace", "t.json"}));
}

// Bug found by the flag fuzz test on the systems: -worker 100000 crashed openmp_for (SIGSEGV)
// and openmp_task_llvm (SIGABRT) in thread creation, and -worker 4294967297 became 1 thread.
// A system flag now has a maximum, checked by the parser.
TEST(Args, SystemFlagsHaveAMaximum) {
  const std::vector<taskbench::SystemFlag> flags = {
      {"-worker", "N", "threads", 1, taskbench::kMaxWorkerThreads}, {"-level", "N", "any", 0}};
  EXPECT_EQ(parse({"-worker", "4096"}, flags).system_values.at("-worker"), 4096);
  for (const char* v : {"4097", "100000", "4294967297"}) {
    try {
      parse({"-worker", v}, flags);
      ADD_FAILURE() << "accepted -worker " << v;
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()),
                std::string("-worker: invalid value '") + v + "'; expected an integer from 1 to 4096");
    }
  }
  EXPECT_EQ(parse({"-level", "1152921504606846976"}, flags).system_values.at("-level"), 1L << 60);
}

TEST(Args, TextSystemFlagsTakeAnyValue) {
  taskbench::SystemFlag scheduler{"-scheduler", "ADDRESS", "attach", 0};
  scheduler.text = true;
  const std::vector<taskbench::SystemFlag> flags = {scheduler, {"-worker", "N", "threads", 1}};
  Config c = parse({"-scheduler", "tcp://127.0.0.1:8786", "-worker", "2"}, flags);
  EXPECT_EQ(c.system_texts.at("-scheduler"), "tcp://127.0.0.1:8786");
  EXPECT_EQ(c.system_values.count("-scheduler"), 0u);
  try {
    parse({"-scheduler"}, flags);
    FAIL() << "accepted -scheduler without a value";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "-scheduler: missing value; expected a value for ADDRESS");
  }
}

}  // namespace
