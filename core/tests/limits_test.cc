// Graph limits (graph_limits.h), found by the fuzz test (fuzz_flags): graphs whose totals
// overflowed 64-bit counts (undefined behaviour in the per-task counts and in the report), and
// graphs whose buffers cannot fit in memory (systems died of a failed allocation), are now
// rejected while parsing, naming the flag to lower and the largest value that fits.
#include <gtest/gtest.h>

#include <climits>

#include "../src/args.h"
#include "../src/totals.h"
#include "taskbench/task_graph.h"

namespace {

using taskbench::Config;
using taskbench::UsageError;

constexpr unsigned long long kGiB = 1ULL << 30;

Config parse(std::vector<std::string> args, unsigned long long memory = 64 * kGiB) {
  return taskbench::parse_args(args, {}, 4, memory);
}

std::string error_of(std::vector<std::string> args, unsigned long long memory = 64 * kGiB) {
  try {
    parse(args, memory);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(accepted)";
}

std::string head(const std::string& message) { return message.substr(0, message.find(" with ")); }

TEST(Limits, OutputsThatCannotFitInMemoryAreRejected) {
  // 1000 points x 2 rows x 1024 B (strides of 128 B) = 2 MB > 1 MiB; 512 B per output fits.
  EXPECT_EQ(head(error_of({"-width", "1000", "-output", "1024"}, 1 << 20)),
            "-output: invalid value '1024'; expected at most 512");
  EXPECT_NO_THROW(parse({"-width", "1000", "-output", "512"}, 1 << 20));
  // 10^12 points of 4 GiB outputs: even 16-byte outputs cannot fit, so -width is named.
  const std::string e = error_of({"-width", "1000000000000", "-output", "4294967296"});
  EXPECT_EQ(head(e), "-width: invalid value '1000000000000'; expected at most 8");
  EXPECT_NE(e.find("this machine has 64.0 GiB"), std::string::npos) << e;
  EXPECT_NO_THROW(parse({"-width", "8", "-output", "4294967296"}));
}

TEST(Limits, ScratchCountsAndGraphsAddUp) {
  EXPECT_EQ(head(error_of({"-width", "4", "-scratch", "1099511627776"})),
            "-scratch: invalid value '1099511627776'; expected at most 17179868928");
  // Two graphs of 40 GiB each do not fit in 64 GiB together.
  const std::vector<std::string> one = {"-width", "1", "-scratch", std::to_string(40 * kGiB)};
  EXPECT_NO_THROW(parse(one));
  std::vector<std::string> two = one;
  two.push_back("-and");
  two.insert(two.end(), one.begin(), one.end());
  EXPECT_NE(error_of(two).find("on top of the 40.0 GiB of the graphs before it"), std::string::npos);
}

TEST(Limits, TotalsThatOverflow64BitsAreRejected) {
  EXPECT_EQ(head(error_of({"-steps", "1152921504606846976", "-width", "8"})),
            "-width: invalid value '8'; expected at most 7");
  EXPECT_NO_THROW(parse({"-steps", "1152921504606846976", "-width", "7"}));
  // all_to_all: steps x width^2 dependencies.
  EXPECT_EQ(head(error_of({"-type", "all_to_all", "-width", "4294967296", "-steps", "1"}, ULLONG_MAX)),
            "-width: invalid value '4294967296'; expected at most 3037000499");
  // compute_bound: 16 tasks x (128 iter + 64) FLOPs.
  const long most = (LLONG_MAX / 16 - 64) / 128;
  EXPECT_EQ(head(error_of({"-kernel", "compute_bound", "-iter", "1152921504606846976"})),
            "-iter: invalid value '1152921504606846976'; expected at most " + std::to_string(most));
  EXPECT_NO_THROW(parse({"-kernel", "compute_bound", "-iter", std::to_string(most)}));
  // memory_bound forms scratch x iter before dividing by -sample.
  EXPECT_EQ(error_of({"-kernel", "memory_bound", "-scratch", "1073741824", "-iter", "1152921504606846976"})
                .rfind("-iter: invalid value '1152921504606846976'; expected at most ", 0),
            0u);
}

// At the largest accepted values, the exact totals of the report do not overflow (run under
// UBSan, an overflow stops the test).
TEST(Limits, TotalsAtTheLimitAreExact) {
  const long most = (LLONG_MAX - 64) / 128;
  auto totals_of = [](const Config& c) {
    std::vector<taskbench::TaskGraph> graphs(c.graphs.begin(), c.graphs.end());
    return taskbench::compute_totals(graphs, 1);
  };
  const std::vector<std::string> one_task = {"-steps", "1", "-width", "1"};
  auto with = [&](std::vector<std::string> more) {
    more.insert(more.begin(), one_task.begin(), one_task.end());
    return more;
  };
  EXPECT_EQ(totals_of(parse(with({"-kernel", "compute_bound", "-iter", std::to_string(most)}))).sum.flops,
            128 * most + 64);
  EXPECT_EQ(head(error_of(with({"-kernel", "compute_bound", "-iter", std::to_string(most + 1)}))),
            "-iter: invalid value '" + std::to_string(most + 1) + "'; expected at most " + std::to_string(most));
  // load_imbalance runs up to (1 + imbalance / 2) x iter iterations.
  const Config c = parse(with({"-kernel", "load_imbalance", "-imbalance", "2", "-iter", std::to_string(most / 2 - 1)}));
  EXPECT_GT(totals_of(c).sum.flops, 0);
  EXPECT_NE(error_of(with({"-kernel", "load_imbalance", "-imbalance", "2", "-iter", std::to_string(most)})),
            "(accepted)");
}

}  // namespace
