// Flag fuzz test ("bad input, everywhere"): seeded random command lines
// (flag_lines.h) through the core's parser. Every line must either parse, or be rejected with a
// UsageError whose message is one line of printable text naming a flag; nothing else may
// escape, crash, hang or upset a sanitizer. Every accepted graph is checked against its flags
// and the limits, then every query of the graph is exercised at sampled rows and points
// (graph_invariants.h).
//
//   fuzz_flags [--seed N] [--lines N] [--seconds S] [--echo]
// ctest runs the fixed default (seed 1, 20000 lines: a few seconds under ASan). For a longer run,
// pass another seed and more lines, or --seconds to run until that much time has passed; the
// environment variables TASKBENCH_FUZZ_SEED, _LINES and _SECONDS do the same for a ctest run.
// --echo prints each line before parsing it, so a crash can be traced to its line.
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "../src/args.h"
#include "flag_lines.h"
#include "graph_invariants.h"

namespace {

using taskbench::Config;

// Memory limits instead of this machine's, so that the counts are the same everywhere: every
// other line gets a machine of 64 GiB, the others one of unlimited memory, where graphs up to
// 2^60 wide are accepted (the core's queries must hold for them: the C API takes any graph).
constexpr unsigned long long kMemory = 64ULL << 30, kUnlimited = ULLONG_MAX;

struct Options {
  unsigned long long seed = 1;
  long lines = 20000;
  double seconds = 0;  // > 0: run until then, whatever --lines says
  bool echo = false;
};

struct Counts {
  long tried = 0, accepted = 0, rejected = 0, graphs = 0, wide = 0, stretched = 0, failed = 0;
  std::vector<std::string> failures;  // the first 20 problems (failed counts lines)
};

// args.cc's escaping of an argument in a message (not shared on purpose: the test states it).
std::string as_in_message(const std::string& s) {
  std::string out;
  for (size_t k = 0; k < s.size() && k < 200; ++k) {
    const unsigned char c = static_cast<unsigned char>(s[k]);
    char hex[8];
    std::snprintf(hex, sizeof hex, "\\x%02x", c);
    out += c >= 0x20 && c < 0x7f ? std::string(1, static_cast<char>(c)) : std::string(hex);
  }
  return s.size() > 200 ? out + "..." : out;
}

bool in_line(const std::vector<std::string>& args, const std::string& token) {
  for (const std::string& a : args)
    if (a == token) return true;
  return false;
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// Why a rejection message breaks the rules, or "".
std::string message_problem(const std::vector<std::string>& args, const std::string& m) {
  if (m.empty()) return "empty message";
  for (unsigned char c : m)
    if (c < 0x20 || c >= 0x7f) return "message is not one line of printable text";
  for (const std::string& flag : fuzz::known_flags()) {
    if (!starts_with(m, flag + ":")) continue;
    // Checks across flags may name a flag the line left at its default.
    static const std::vector<std::string> cross = {"-radix", "-scratch", "-kernel", "-width",
                                                   "-steps", "-iter", "-output"};
    if (in_line(args, flag) || in_line(cross, flag)) return "";
    return "message names " + flag + ", which the line does not have";
  }
  for (const char* kind : {"unknown flag '", "unexpected argument '"}) {
    if (!starts_with(m, kind)) continue;
    for (const std::string& a : args)
      if (!in_line(fuzz::known_flags(), a) && starts_with(m, kind + as_in_message(a) + "'")) return "";
    return "message names an argument the line does not have";
  }
  return "message names no flag";
}

long field(const Config& c, size_t k, const std::string& flag) {
  const task_graph_t& g = c.graphs[k];
  if (flag == "-steps") return g.timesteps;
  if (flag == "-width") return g.max_width;
  if (flag == "-radix") return g.radix;
  if (flag == "-period") return g.period;
  if (flag == "-iter") return g.kernel.iterations;
  if (flag == "-output") return static_cast<long>(g.output_bytes_per_task);
  if (flag == "-scratch") return static_cast<long>(g.scratch_bytes_per_task);
  if (flag == "-sample") return g.kernel.samples;
  if (flag == "-field") return g.nb_fields;
  if (flag == "-seed") return k < c.seeds.size() ? static_cast<long>(c.seeds[k]) : LONG_MIN;
  return LONG_MIN;
}

bool within(long v, long lo, long hi) { return lo <= v && v <= hi; }

// Why an accepted configuration breaks its flags or the limits, or "".
std::string config_problem(const fuzz::FlagLine& line, const Config& c, unsigned long long memory_limit) {
  long ands = 0;
  for (const std::string& a : line.args) ands += a == "-and";
  if (static_cast<long>(c.graphs.size()) != ands + 1) return "graph count is not the number of -and plus one";
  if (c.help != (in_line(line.args, "-h") || in_line(line.args, "-help") || in_line(line.args, "--help")))
    return "help is set without -h, or not set with it";
  if (!within(c.nodes, 1, 1L << 30)) return "-nodes out of range";
  __int128 memory = 0, tasks = 0;
  for (size_t k = 0; k < c.graphs.size(); ++k) {
    const task_graph_t& g = c.graphs[k];
    const long m60 = 1L << 60;
    if (g.graph_index != static_cast<long>(k)) return "graph_index is not the graph's position";
    if (!within(g.timesteps, 1, m60) || !within(g.max_width, 1, m60) || !within(g.radix, 0, 1L << 20) ||
        !within(g.period, 1, 1L << 20) || !within(g.kernel.iterations, 0, m60) ||
        !within(static_cast<long>(g.output_bytes_per_task), 16, 1L << 32) ||
        !within(static_cast<long>(g.scratch_bytes_per_task), 0, 1L << 40) ||
        !within(g.kernel.samples, 1, 1L << 30) || !within(g.nb_fields, 1, 1 << 20) ||
        !(g.fraction_connected >= 0 && g.fraction_connected <= 1) ||
        !(g.kernel.imbalance >= 0 && g.kernel.imbalance <= 2))
      return "a field of graph " + std::to_string(k) + " is outside its flag's range";
    const bool radix_pattern = g.dependence == NEAREST || g.dependence == RANDOM_NEAREST ||
                               g.dependence == SPREAD || g.dependence == RANDOM_SPREAD;
    if (radix_pattern && g.radix > g.max_width) return "a radix pattern accepted with -radix above -width";
    // The limits of graph_limits.h, recomputed in 128 bits.
    const __int128 stride = (static_cast<__int128>(g.output_bytes_per_task) + 127) / 128 * 128;
    memory += static_cast<__int128>(g.max_width) * (2 * stride + g.scratch_bytes_per_task);
    tasks += static_cast<__int128>(g.timesteps) * g.max_width;
  }
  if (memory_limit != kUnlimited && memory > static_cast<__int128>(memory_limit)) return "graphs accepted beyond the memory limit";
  if (tasks > LLONG_MAX) return "graphs accepted whose task count overflows 64 bits";
  std::map<std::pair<long, std::string>, long> last;  // what the line set last, per graph and flag
  for (const fuzz::Expectation& e : line.expected) last[{e.graph, e.flag}] = e.value;
  for (const auto& [where, value] : last) {
    const long got = where.first < 0 ? (where.second == "-nodes" ? c.nodes : c.system_values.count(where.second)
                                                                                 ? c.system_values.at(where.second)
                                                                                 : LONG_MIN)
                                     : field(c, static_cast<size_t>(where.first), where.second);
    if (got != value)
      return where.second + " of graph " + std::to_string(where.first) + " is " + std::to_string(got) +
             ", the line says " + std::to_string(value);
  }
  return "";
}

task_graph_t stretched(task_graph_t g, fuzz::Random& random) {
  const long m60 = 1L << 60;
  const std::vector<long> widths = {m60, m60 - 1, m60 - 3, (1L << 44) + 7,
                                    (1L << 32) + static_cast<long>(random.below(m60 - (1L << 32)))};
  g.max_width = random.pick(widths);
  if (random.chance(0.5)) g.timesteps = random.chance(0.5) ? m60 : m60 - 1;
  // Radix and period matter most at this width (spread's k * W / r): any value up to their
  // bound, rarely the bound itself (a query then sorts 2^20 points).
  if (random.chance(0.5)) {
    const uint64_t roll = random.below(1000);
    g.radix = roll < 1 ? 1L << 20 : static_cast<long>(random.below(roll < 100 ? 5000 : 40));
  }
  if (random.chance(0.3)) g.period = random.chance(0.1) ? 1L << 20 : 1 + static_cast<long>(random.below(100));
  return g;
}

void check_line(const fuzz::FlagLine& line, fuzz::Random& random, Counts& counts) {
  bool failed = false;
  auto failure = [&](const std::string& why) {
    counts.failed += failed ? 0 : 1;
    failed = true;
    if (counts.failures.size() < 20) counts.failures.push_back(fuzz::shown(line.args) + ": " + why);
  };
  const unsigned long long memory = counts.tried % 2 ? kUnlimited : kMemory;
  Config c;
  try {
    c = taskbench::parse_args(line.args, fuzz::fuzz_system_flags(), 4, memory);
  } catch (const taskbench::UsageError& e) {
    ++counts.rejected;
    const std::string problem = message_problem(line.args, e.what());
    if (!problem.empty()) failure(problem + ": \"" + as_in_message(e.what()) + "\"");
    return;
  } catch (const std::exception& e) {
    ++counts.rejected;
    return failure(std::string("threw something else than UsageError: ") + e.what());
  }
  ++counts.accepted;
  if (line.must_reject) return failure("accepted, though an integer flag has a malformed or out-of-range value");
  const std::string problem = config_problem(line, c, memory);
  if (!problem.empty()) return failure(problem);
  for (const task_graph_t& g : c.graphs) {
    ++counts.graphs;
    counts.wide += g.max_width > (1L << 32);
    for (const std::string& p : fuzz::check_graph_invariants(taskbench::TaskGraph(g), random)) failure(p);
    // The same graph stretched to the flags' largest shape: the parser rejects its totals, but
    // the C API takes any graph, and the queries must hold at every width and step up to 2^60.
    const task_graph_t big = stretched(g, random);
    ++counts.stretched;
    for (const std::string& p : fuzz::check_graph_invariants(taskbench::TaskGraph(big), random))
      failure("stretched " + p);
  }
}

Options read_options(int argc, char** argv) {
  Options o;
  if (const char* v = std::getenv("TASKBENCH_FUZZ_SEED")) o.seed = std::strtoull(v, nullptr, 10);
  if (const char* v = std::getenv("TASKBENCH_FUZZ_LINES")) o.lines = std::atol(v);
  if (const char* v = std::getenv("TASKBENCH_FUZZ_SECONDS")) o.seconds = std::atof(v);
  for (int a = 1; a < argc; ++a) {
    const std::string flag = argv[a];
    const char* value = a + 1 < argc ? argv[a + 1] : nullptr;
    if (flag == "--echo") {
      o.echo = true;
    } else if (value && flag == "--seed") {
      o.seed = std::strtoull(argv[++a], nullptr, 10);
    } else if (value && flag == "--lines") {
      o.lines = std::atol(argv[++a]);
    } else if (value && flag == "--seconds") {
      o.seconds = std::atof(argv[++a]);
    } else {
      std::fprintf(stderr, "usage: %s [--seed N] [--lines N] [--seconds S] [--echo]\n", argv[0]);
      std::exit(2);
    }
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = read_options(argc, argv);
  fuzz::Random lines(o.seed), samples(o.seed ^ 0x5eed);
  Counts counts;
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  while (o.seconds > 0 ? elapsed() < o.seconds : counts.tried < o.lines) {
    const fuzz::FlagLine line = fuzz::random_flag_line(lines);
    if (o.echo) std::printf("%s\n", fuzz::shown(line.args).c_str()), std::fflush(stdout);
    ++counts.tried;
    check_line(line, samples, counts);
  }
  for (const std::string& f : counts.failures) std::printf("FAIL %s\n", f.c_str());
  std::printf("fuzz_flags: seed %llu: %ld lines tried, %ld accepted (%ld graphs checked, %ld wider than "
              "2^32, and %ld stretched to 2^60), %ld rejected, %ld failed, %.1f s\n",
              o.seed, counts.tried, counts.accepted, counts.graphs, counts.wide, counts.stretched, counts.rejected,
              counts.failed, elapsed());
  return counts.failed == 0 ? 0 : 1;
}
