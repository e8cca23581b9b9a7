#include "args.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>

#include "kernels/kernels.h"
#include "output_path.h"
#include "taskbench/task_graph.h"

namespace taskbench {
namespace {

constexpr dependence_type_t kPatterns[] = {TRIVIAL, NO_COMM, STENCIL_1D, STENCIL_1D_PERIODIC,
                                           DOM, TREE, FFT, ALL_TO_ALL, NEAREST, SPREAD,
                                           RANDOM_NEAREST, RANDOM_SPREAD};
constexpr kernel_type_t kKernels[] = {EMPTY, BUSY_WAIT, MEMORY_BOUND, COMPUTE_DGEMM,
                                      MEMORY_DAXPY, COMPUTE_BOUND, COMPUTE_BOUND2, IO_BOUND,
                                      LOAD_IMBALANCE};

std::string pattern_list() {
  std::string s;
  for (auto p : kPatterns) s += (s.empty() ? "" : ", ") + std::string(pattern_name(p));
  return s;
}

std::string kernel_list() {
  std::string s;
  for (auto k : kKernels) s += (s.empty() ? "" : ", ") + std::string(kernel_name(k));
  return s;
}

// An argument as a message shows it: bytes outside printable ASCII (a newline, a byte that is
// not UTF-8) as \xNN, so that the message stays one line of text; a very long one shortened.
std::string printable(const std::string& s) {
  constexpr size_t kShown = 200;
  std::string out;
  for (size_t k = 0; k < s.size() && k < kShown; ++k) {
    const unsigned char c = static_cast<unsigned char>(s[k]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  if (s.size() > kShown) out += "...";
  return out;
}

[[noreturn]] void invalid(const std::string& flag, const std::string& value,
                          const std::string& allowed) {
  throw UsageError(flag + ": invalid value '" + printable(value) + "'; expected " + allowed);
}

// Integers are written in decimal with an optional sign: strtol alone would also skip leading
// white space and accept "" or "12abc" up to where it stops.
bool is_decimal_integer(const std::string& v) {
  size_t k = !v.empty() && (v[0] == '+' || v[0] == '-') ? 1 : 0;
  if (k == v.size()) return false;
  for (; k < v.size(); ++k)
    if (!std::isdigit(static_cast<unsigned char>(v[k]))) return false;
  return true;
}

long parse_long(const std::string& flag, const std::string& v, long min, long max,
                const std::string& allowed) {
  if (!is_decimal_integer(v)) invalid(flag, v, allowed);
  errno = 0;
  const long x = std::strtol(v.c_str(), nullptr, 10);
  if (errno == ERANGE || x < min || x > max) invalid(flag, v, allowed);
  return x;
}

// Decimal numbers only: strtod would also take white space, hexadecimal ("0x1p-2"), "inf" and
// "nan". A value too small to represent becomes 0 or a subnormal, as strtod rounds it.
double parse_double(const std::string& flag, const std::string& v, double min, double max,
                    const std::string& allowed) {
  if (v.empty() || v.find_first_not_of("0123456789+-.eE") != std::string::npos)
    invalid(flag, v, allowed);
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (*end != '\0' || !std::isfinite(x) || x < min || x > max) invalid(flag, v, allowed);
  return x;
}

std::string output_path(const std::string& flag, const std::string& path) {
  const std::string problem = output_path_problem(path);
  if (!problem.empty()) invalid(flag, path, "a file name that can be written, but " + problem);
  return path;
}

// A value that looks like a flag ("-steps") is never taken as the previous flag's value;
// negative numbers ("-5") are values, so that they are rejected with the range they break.
bool looks_like_flag(const std::string& s) {
  return s.size() >= 2 && s[0] == '-' && !(std::isdigit(static_cast<unsigned char>(s[1])) ||
                                           s[1] == '.');
}

task_graph_t default_graph(long index, long width) {
  task_graph_t g{};
  g.graph_index = index;
  g.timesteps = 4;
  g.max_width = width;
  g.dependence = TRIVIAL;
  g.radix = 3;
  g.period = 3;
  g.fraction_connected = 0.25;
  g.kernel = kernel_t{EMPTY, 0, 16, 0.0};
  g.output_bytes_per_task = 16;
  g.scratch_bytes_per_task = 0;
  g.nb_fields = 2;
  return g;
}

using GraphSetter = std::function<void(task_graph_t&, const std::string& flag, const std::string&)>;

struct GraphFlag {
  const char* name;
  const char* value_name;
  const char* help;
  GraphSetter set;
};

const std::vector<GraphFlag>& graph_flags() {
  constexpr long kMax = 1L << 60;
  static const std::vector<GraphFlag> flags = {
      {"-steps", "N", "timesteps (default 4)",
       [](task_graph_t& g, const std::string& f, const std::string& v) {
         g.timesteps = parse_long(f, v, 1, kMax, "an integer from 1 to 2^60");
       }},
      {"-width", "N", "points per timestep (default 4, on every system)",
       [](task_graph_t& g, const std::string& f, const std::string& v) {
         g.max_width = parse_long(f, v, 1, kMax, "an integer from 1 to 2^60");
       }},
      {"-type", "PATTERN", "dependence pattern (default trivial)",
       [](task_graph_t& g, const std::string& f, const std::string& v) {
         for (auto p : kPatterns)
           if (v == pattern_name(p)) return void(g.dependence = p);
         invalid(f, v, "one of " + pattern_list());
       }},
      {"-radix", "N", "dependencies per task for nearest/spread, at most -width (default 3)",
       [](task_graph_t& g, const std::string& f, const std::string& v) {
         g.radix = parse_long(f, v, 0, 1L << 20, "an integer from 0 to 1048576");
       }},
      {"-period", "N", "dependence sets of spread and random patterns (default 3)",
       [](task_graph_t& g, const std::string& f, const std::string& v) {
         g.period = parse_long(f, v, 1, 1L << 20, "an integer from 1 to 1048576");
       }},
      {"-fraction", "F", "fraction of connections kept by random patterns (default 0.25)",
       [](task_graph_t& g, const std::string& f, const std::string& v) {
         g.fraction_connected = parse_double(f, v, 0.0, 1.0, "a number from 0 to 1");
       }},
      {"-kernel", "K", "task kernel (default empty)",
       [](task_graph_t& g, const std::string& f, const std::string& v) {
         for (auto k : kKernels)
           if (v == kernel_name(k)) return void(g.kernel.type = k);
         invalid(f, v, "one of " + kernel_list());
       }},
      {"-iter", "N", "kernel iterations (default 0)",
       [](task_graph_t& g, const std::string& f, const std::string& v) {
         g.kernel.iterations = parse_long(f, v, 0, kMax, "an integer from 0 to 2^60");
       }},
      {"-output", "N", "bytes of output per task (default 16)",
       [](task_graph_t& g, const std::string& f, const std::string& v) {
         g.output_bytes_per_task = parse_long(f, v, 16, 1L << 32, "an integer from 16 to 2^32");
       }},
      {"-scratch", "N", "bytes of scratch memory per task (default 0)",
       [](task_graph_t& g, const std::string& f, const std::string& v) {
         g.scratch_bytes_per_task = parse_long(f, v, 0, 1L << 40, "an integer from 0 to 2^40");
       }},
      {"-sample", "N", "samples the scratch is split into for memory kernels (default 16)",
       [](task_graph_t& g, const std::string& f, const std::string& v) {
         g.kernel.samples =
             static_cast<int>(parse_long(f, v, 1, 1L << 30, "an integer from 1 to 2^30"));
       }},
      {"-imbalance", "F", "load_imbalance spread of iterations (0 to 2, default 0)",
       [](task_graph_t& g, const std::string& f, const std::string& v) {
         g.kernel.imbalance = parse_double(f, v, 0.0, 2.0, "a number from 0 to 2");
       }},
      {"-field", "N", "output fields per point for systems that rotate buffers (default 2)",
       [](task_graph_t& g, const std::string& f, const std::string& v) {
         g.nb_fields = static_cast<int>(parse_long(f, v, 1, 1 << 20, "an integer from 1 to 1048576"));
       }},
      // No setter: task_graph_t has no seed field (the original's layout); parse_args keeps it.
      {"-seed", "N", "seed of the random patterns and load_imbalance (default 0: the original's)",
       nullptr},
  };
  return flags;
}

bool uses_radix(dependence_type_t p) {
  return p == NEAREST || p == RANDOM_NEAREST || p == SPREAD || p == RANDOM_SPREAD;
}

// Constraints between a graph's flags, checked once the graph is complete. radix_given: the
// line set -radix (else the message says the value is the default).
void check_graph(const task_graph_t& g, bool radix_given) {
  const std::string w = std::to_string(g.max_width);
  // -radix is the dependencies per task: above the width spread would repeat points, and
  // nearest's window would be clipped on both sides, the graph of a smaller radix or all_to_all.
  if (uses_radix(g.dependence) && g.radix > g.max_width)
    throw UsageError("-radix: invalid value '" + std::to_string(g.radix) + "'" +
                     (radix_given ? "" : " (the default)") + "; expected at most -width (" + w +
                     ") for " + pattern_name(g.dependence));
  const kernel_type_t k = g.kernel.type;
  if (k == MEMORY_BOUND || k == MEMORY_DAXPY) {
    const size_t unit = 16 * static_cast<size_t>(g.kernel.samples);
    if (g.scratch_bytes_per_task == 0 || g.scratch_bytes_per_task % unit != 0)
      invalid("-scratch", std::to_string(g.scratch_bytes_per_task),
              "a positive multiple of 16 x -sample (" + std::to_string(unit) + ") for " +
                  kernel_name(k));
  }
  if (k == COMPUTE_DGEMM) {
    if (!kernels::dgemm_available())
      throw UsageError("-kernel: compute_dgemm needs a BLAS, and this build has none "
                       "(install libopenblas-dev and rebuild)");
    if (g.scratch_bytes_per_task < 24)
      invalid("-scratch", std::to_string(g.scratch_bytes_per_task),
              "at least 24 bytes (three 1x1 matrices) for compute_dgemm");
  }
}

}  // namespace

Config parse_args(const std::vector<std::string>& args, const std::vector<SystemFlag>& system_flags,
                  long default_width, unsigned long long memory_bytes) {
  Config c;
  GraphUsage used;
  task_graph_t g = default_graph(0, default_width);
  bool radix_given = false;
  unsigned long seed = 0;
  auto finish_graph = [&] {
    check_graph(g, radix_given);
    check_graph_limits(g, memory_bytes, used);
    c.graphs.push_back(g);
    c.seeds.push_back(seed);
    g = default_graph(static_cast<long>(c.graphs.size()), default_width);
    radix_given = false;
    seed = 0;
  };
  for (size_t a = 0; a < args.size(); ++a) {
    const std::string& flag = args[a];
    auto value = [&](const std::string& allowed) -> std::string {
      if (a + 1 >= args.size() || looks_like_flag(args[a + 1]))
        throw UsageError(flag + ": missing value; expected " + allowed);
      return args[++a];
    };
    if (flag == "-h" || flag == "-help" || flag == "--help") {
      c.help = true;
      continue;
    }
    if (flag == "-and") {
      finish_graph();
      continue;
    }
    if (flag == "-v") { c.verbosity = std::max(c.verbosity, 1); continue; }
    if (flag == "-vv") { c.verbosity = 2; continue; }
    if (flag == "-skip-graph-validation") { c.skip_graph_validation = true; continue; }
    if (flag == "-nodes") {
      const std::string allowed = "an integer from 1 to 2^30";
      c.nodes = parse_long(flag, value(allowed), 1, 1L << 30, allowed);
      continue;
    }
    if (flag == "-json" || flag == "-trace") {
      (flag == "-json" ? c.json_path : c.trace_path) = output_path(flag, value("a file name"));
      continue;
    }
    bool matched = false;
    for (const GraphFlag& gf : graph_flags()) {
      if (flag != gf.name) continue;
      const std::string v = value(std::string("a value for ") + gf.value_name);
      if (gf.set)
        gf.set(g, flag, v);
      else  // -seed
        seed = static_cast<unsigned long>(parse_long(flag, v, 0, 1L << 60, "an integer from 0 to 2^60"));
      radix_given = radix_given || flag == "-radix";
      matched = true;
      break;
    }
    for (const SystemFlag& sf : system_flags) {
      if (matched || flag != sf.name) continue;
      matched = true;
      if (sf.text) {
        c.system_texts[flag] = value("a value for " + sf.value_name);
        continue;
      }
      const std::string allowed = "an integer from " + std::to_string(sf.min_value) + " to " +
                                  (sf.max_value == 1L << 60 ? "2^60" : std::to_string(sf.max_value));
      c.system_values[flag] = sf.value_name.empty()
                                  ? 1
                                  : parse_long(flag, value(allowed), sf.min_value, sf.max_value, allowed);
    }
    if (matched) continue;
    if (!flag.empty() && flag[0] == '-')
      throw UsageError("unknown flag '" + printable(flag) + "' (-h lists the flags)");
    throw UsageError("unexpected argument '" + printable(flag) + "' (flags start with -, see -h)");
  }
  finish_graph();
  if (!c.json_path.empty() && !c.trace_path.empty() && same_output_file(c.json_path, c.trace_path))
    invalid("-trace", c.trace_path, "another file than -json's (the report would overwrite the trace)");
  return c;
}

std::string usage_text(const std::string& program, const std::vector<SystemFlag>& system_flags) {
  std::string s = "Usage: " + program + " [flags] [-and [flags]]...\n\nGraph flags (reset by -and):\n";
  auto line = [&s](const std::string& name, const std::string& value, const std::string& help) {
    std::string left = "  " + name + (value.empty() ? "" : " " + value);
    left.resize(std::max<size_t>(left.size() + 1, 24), ' ');
    s += left + help + "\n";
  };
  for (const GraphFlag& f : graph_flags()) line(f.name, f.value_name, f.help);
  s += "    patterns: " + pattern_list() + "\n    kernels: " + kernel_list() + "\n";
  s += "\nRun flags:\n";
  line("-and", "", "start the next graph (graphs run at the same time)");
  line("-nodes", "N", "nodes, for the local/nonlocal dependence estimate (default 1)");
  line("-json", "FILE", "write the machine-readable report");
  line("-trace", "FILE", "write per-task start/end/worker in Chrome trace format");
  line("-skip-graph-validation", "", "skip the up-front graph consistency check");
  line("-v, -vv", "", "print the configuration; -vv also every task's dependencies");
  line("-h", "", "this help");
  if (!system_flags.empty()) {
    s += "\nSystem flags:\n";
    for (const SystemFlag& f : system_flags) line(f.name, f.value_name, f.help);
  }
  return s;
}

}  // namespace taskbench
