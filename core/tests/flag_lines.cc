#include "flag_lines.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

namespace fuzz {
namespace {

constexpr long k60 = 1L << 60;

struct IntFlag {
  const char* name;
  long min, max;
  std::vector<long> typical;  // values that keep lines cheap and mostly valid
};

// Bounds as docs/spec.md §4 and args.cc give them; the fuzz test probes each one and one beyond.
const std::vector<IntFlag>& graph_int_flags() {
  static const std::vector<IntFlag> flags = {
      {"-steps", 1, k60, {1, 2, 3, 4, 5, 7, 9, 16, 64, 1000}},
      {"-width", 1, k60, {1, 2, 3, 4, 5, 7, 8, 13, 64, 1000, 1L << 20, 1L << 44, k60 - 1}},
      {"-radix", 0, 1L << 20, {0, 1, 2, 3, 4, 5, 7, 16}},
      {"-period", 1, 1L << 20, {1, 2, 3, 4, 5}},
      {"-iter", 0, k60, {0, 1, 2, 10, 100, 1000}},
      {"-output", 16, 1L << 32, {16, 17, 24, 64, 100, 128, 129, 1024, 4096}},
      {"-scratch", 0, 1L << 40, {0, 24, 256, 512, 4096, 65536}},
      {"-sample", 1, 1L << 30, {1, 2, 4, 16}},
      {"-field", 1, 1L << 20, {1, 2, 3, 5}},
      {"-seed", 0, k60, {0, 1, 7, 12345}},
  };
  return flags;
}

const std::vector<IntFlag>& run_int_flags() {
  static const std::vector<IntFlag> flags = {
      {"-nodes", 1, 1L << 30, {1, 2, 3, 4, 16}},
      {"-worker", 1, k60, {1, 2, 3, 4}},
      {"-expect-ranks", 1, k60, {1, 2}},
      {"-home", 0, k60, {0, 1, 2}},
  };
  return flags;
}

const std::vector<std::string> kPatterns = {
    "trivial", "no_comm", "stencil_1d", "stencil_1d_periodic", "dom", "tree", "fft", "all_to_all",
    "nearest", "spread", "random_nearest", "random_spread"};
const std::vector<std::string> kKernels = {"empty", "busy_wait", "memory_bound", "compute_dgemm",
                                           "memory_daxpy", "compute_bound", "compute_bound2",
                                           "io_bound", "load_imbalance"};
const std::vector<std::string> kBadNames = {"", " ", "stencil", "Trivial", "trivial ", "EMPTY",
                                            "compute", "-", "\xff", "\xc3\xa9t\xc3\xa9", "dom\n"};

// Values no flag should take, or takes only by accident of a lenient parser.
const std::vector<std::string> kOddValues = {
    "NaN", "nan", "inf", "-inf", "+inf", "1e308", "-1e308", "1e-400", "99999999999999999999",
    "18446744073709551616", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
    "1152921504606846976", "1152921504606846977", "4294967296", "-1", "-5", "-0", "+0", "0", "",
    " ", "\t", " 5", "5 ", "5\n", "0x10", "0X10", "010", "+5", "++5", "--5", "3.5", "1e3", "1,000",
    "1_000", "\xff\xfe", "\xc3\xa9", "5\xc2\xa0", "0.5", ".5", "5.", "-.5", "1e", "e1", "-", "--"};

const std::vector<std::string> kPaths = {
    "", ".", "/", "/tmp", "/tmp/", "/no-such-directory-taskbench/r.json", "/etc/hostname/r.json",
    "fuzz-report.json", "/tmp/taskbench-fuzz-report.json", "r\n.json", "\xff.json"};

const std::vector<std::string> kUnknownFlags = {
    "-iters", "--steps", "-Steps", "-step", "-stepsx", "-", "--", "steps", "5", "", " ", "-\xff",
    "-and\n", "-h=1", "-json=x", "-v2", "-vvv", "-kernel=empty", "-type ", "\n"};

std::string text(long v) { return std::to_string(v); }

// A decimal string as the parser would read it, if it reads it at all.
bool decimal_value(const std::string& s, long* out) {
  size_t k = !s.empty() && (s[0] == '+' || s[0] == '-') ? 1 : 0;
  if (k == s.size()) return false;
  for (size_t j = k; j < s.size(); ++j)
    if (s[j] < '0' || s[j] > '9') return false;
  errno = 0;
  *out = std::strtol(s.c_str(), nullptr, 10);
  return errno != ERANGE;
}

std::string int_value(Random& r, const IntFlag& f) {
  const uint64_t roll = r.below(100);
  if (roll < 55) return text(r.pick(f.typical));
  if (roll < 75) {
    const std::vector<long> bounds = {f.min, f.max, f.min - 1, f.max + 1, k60, k60 + 1, f.max / 2};
    return text(r.pick(bounds));
  }
  if (roll < 85) {  // any magnitude: 10^k or k bits
    long v = 1;
    for (uint64_t k = r.below(19); k > 0; --k) v *= 10;
    return text(r.chance(0.5) ? v : static_cast<long>(r.next() >> (1 + r.below(63))));
  }
  return r.pick(kOddValues);
}

std::string double_value(Random& r, double max) {
  const uint64_t roll = r.below(100);
  if (roll < 60) {
    const std::vector<std::string> typical = {"0", "0.25", "0.5", "1", "0.999", "1.0", ".5", "0e0"};
    return r.pick(typical);
  }
  if (roll < 80) {
    const std::vector<std::string> bounds = {"0", max > 1 ? "2" : "1", max > 1 ? "2.0000001" : "1.0000001",
                                             "-0", "-0.0000001", "1e-400", "4.9e-324"};
    return r.pick(bounds);
  }
  return r.pick(kOddValues);
}

// A whole graph whose flags fit together (so that lines with many flags still get accepted):
// a pattern with a radix and period it uses, and a kernel with the scratch it needs.
void add_coherent_graph(Random& r, FlagLine& line, long graph) {
  auto add = [&](const char* flag, long v) {
    line.args.push_back(flag);
    line.args.push_back(text(v));
    line.expected.push_back({graph, flag, v});
  };
  const std::vector<long> widths = {1, 2, 3, 5, 8, 16, 17, 40, 100, 1000};
  const long width = r.pick(widths);
  line.args.push_back("-type");
  line.args.push_back(r.pick(kPatterns));
  add("-width", width);
  add("-steps", 1 + static_cast<long>(r.below(12)));
  add("-radix", static_cast<long>(r.below(static_cast<uint64_t>(std::min(width, 40L)) + 1)));
  add("-period", 1 + static_cast<long>(r.below(5)));
  const std::vector<std::string> kernels = {"empty", "busy_wait", "compute_bound", "memory_bound",
                                            "load_imbalance", "io_bound"};
  const std::string kernel = r.pick(kernels);
  line.args.push_back("-kernel");
  line.args.push_back(kernel);
  add("-iter", static_cast<long>(r.below(50)));
  if (kernel == "memory_bound") {
    const long samples = 1 + static_cast<long>(r.below(4));
    add("-sample", samples);
    add("-scratch", 16 * samples * (1 + static_cast<long>(r.below(8))));
  }
}

// Appends one item (a flag and its value, a switch, -and, or junk) to `line`.
void add_item(Random& r, FlagLine& line, long& graph) {
  const uint64_t roll = r.below(100);
  auto add_int = [&](const IntFlag& f, long owner) {
    const std::string v = int_value(r, f);
    line.args.push_back(f.name);
    line.args.push_back(v);
    long parsed;
    // A value that looks like a flag ("-inf") is a missing value: rejected as well.
    if (decimal_value(v, &parsed) && parsed >= f.min && parsed <= f.max)
      line.expected.push_back({owner, f.name, parsed});
    else
      line.must_reject = true;
  };
  if (roll < 8) return add_coherent_graph(r, line, graph);
  if (roll < 45) return add_int(r.pick(graph_int_flags()), graph);
  if (roll < 52) {
    line.args.push_back("-type");
    line.args.push_back(r.chance(0.9) ? r.pick(kPatterns) : r.pick(kBadNames));
    return;
  }
  if (roll < 58) {
    line.args.push_back("-kernel");
    line.args.push_back(r.chance(0.9) ? r.pick(kKernels) : r.pick(kBadNames));
    return;
  }
  if (roll < 64) {
    const bool fraction = r.chance(0.5);
    line.args.push_back(fraction ? "-fraction" : "-imbalance");
    line.args.push_back(double_value(r, fraction ? 1 : 2));
    return;
  }
  if (roll < 72) {
    line.args.push_back("-and");
    ++graph;
    return;
  }
  if (roll < 78) return add_int(r.pick(run_int_flags()), -1);
  if (roll < 83) {
    const std::vector<std::string> switches = {"-v", "-vv", "-skip-graph-validation", "-breakdown"};
    line.args.push_back(r.pick(switches));
    if (line.args.back() == "-breakdown") line.expected.push_back({-1, "-breakdown", 1});
    return;
  }
  if (roll < 88) {
    line.args.push_back(r.chance(0.5) ? "-json" : "-trace");
    line.args.push_back(r.pick(kPaths));
    return;
  }
  if (roll < 90) {
    const std::vector<std::string> help = {"-h", "-help", "--help"};
    line.args.push_back(r.pick(help));
    return;
  }
  line.args.push_back(r.pick(kUnknownFlags));
  if (r.chance(0.5)) line.args.push_back(text(static_cast<long>(r.below(10))));
}

}  // namespace

uint64_t Random::next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

const std::vector<taskbench::SystemFlag>& fuzz_system_flags() {
  static const std::vector<taskbench::SystemFlag> flags = {
      {"-worker", "N", "worker threads", 1},
      {"-expect-ranks", "N", "ranks", 1},
      {"-home", "N", "homes", 0},
      {"-breakdown", "", "per-thread accounting", 0}};
  return flags;
}

const std::vector<std::string>& known_flags() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n = {"-type", "-kernel", "-fraction", "-imbalance", "-and", "-nodes",
                                  "-json", "-trace", "-v", "-vv", "-skip-graph-validation", "-h",
                                  "-help", "--help"};
    for (const IntFlag& f : graph_int_flags()) n.push_back(f.name);
    for (const taskbench::SystemFlag& f : fuzz_system_flags()) n.push_back(f.name);
    return n;
  }();
  return names;
}

FlagLine random_flag_line(Random& r) {
  FlagLine line;
  long graph = 0;
  for (uint64_t items = r.below(13); items > 0; --items) add_item(r, line, graph);
  if (r.chance(0.08)) {  // -and first: the first graph is all defaults
    line.args.insert(line.args.begin(), "-and");
    for (Expectation& e : line.expected)
      if (e.graph >= 0) ++e.graph;
  }
  if (r.chance(0.08)) line.args.push_back("-and");
  if (r.chance(0.05) && !line.args.empty()) {  // doubled -and somewhere: an empty graph between
    const size_t at = r.below(line.args.size() + 1);
    line.args.insert(line.args.begin() + static_cast<long>(at), {"-and", "-and"});
    line.expected.clear();  // graph numbering shifted; only the outcome is checked
    line.must_reject = false;
  }
  if (r.chance(0.07) && !line.args.empty()) {  // a missing value, or a lost switch
    line.args.pop_back();
    line.expected.clear();
    line.must_reject = false;
  }
  if (r.chance(0.05)) {  // a stray token anywhere: values may now land on flags
    const size_t at = r.below(line.args.size() + 1);
    const std::string stray = r.chance(0.5) ? r.pick(kOddValues) : r.pick(kUnknownFlags);
    line.args.insert(line.args.begin() + static_cast<long>(at), stray);
    line.expected.clear();
    line.must_reject = false;
  }
  return line;
}

std::string shown(const std::vector<std::string>& args) {
  std::string s;
  for (const std::string& a : args) {
    s += s.empty() ? "'" : " '";
    for (unsigned char c : a) {
      if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\') {
        s += static_cast<char>(c);
      } else {
        static const char* hex = "0123456789abcdef";
        s += "\\x";
        s += hex[c >> 4];
        s += hex[c & 15];
      }
    }
    s += "'";
  }
  return s;
}

}  // namespace fuzz
