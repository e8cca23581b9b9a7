#include "simulated_noise.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>

namespace taskbench_mpi {
namespace {

bool read_property(const_sg_host_t host, const char* name, double* value, std::string* problem) {
  const char* text = sg_host_get_property_value(host, name);
  if (text == nullptr) return false;
  char* end = nullptr;
  *value = std::strtod(text, &end);
  if (end == text || *end != '\0' || !(*value >= 0.0) || !std::isfinite(*value)) {
    *problem = std::string("platform host ") + sg_host_get_name(host) + ": " + name + " '" + text +
               "' is not a non-negative number";
  }
  return true;
}

}  // namespace

std::string SimulatedNoise::configure(const_sg_host_t host, long rank) {
  std::string problem;
  const bool has_rate = read_property(host, "taskbench_noise_rate", &rate_per_node_, &problem);
  const bool has_seconds = read_property(host, "taskbench_noise_seconds", &seconds_, &problem);
  if (!problem.empty()) return problem;
  if (has_rate != has_seconds) {
    return std::string("platform host ") + sg_host_get_name(host) +
           ": taskbench_noise_rate and taskbench_noise_seconds go together";
  }
  const int cores = sg_host_core_count(host);
  rate_per_core_ = cores > 0 ? rate_per_node_ / cores : 0.0;
  // Every rank its own stream: a node's cores are hit independently, as a daemon picks one.
  state_ = 0x9E3779B97F4A7C15ULL * static_cast<unsigned long long>(rank + 1);
  if (active()) next_ = draw_gap();
  return "";
}

double SimulatedNoise::draw_gap() {
  // splitmix64, then an exponential gap: the standard library's distributions may differ between
  // versions, and a simulated figure must not.
  state_ += 0x9E3779B97F4A7C15ULL;
  std::uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  const double uniform = (static_cast<double>(z >> 11) + 0.5) * 0x1.0p-53;  // in (0, 1)
  return -std::log(uniform) / rate_per_core_;
}

double SimulatedNoise::delay(double start, double busy) {
  if (!active()) return 0.0;
  while (next_ < start) next_ += draw_gap();  // detours while the core waited: absorbed
  double end = start + busy;
  double added = 0.0;
  while (next_ < end) {  // one while it computes: the task is stopped for its length
    added += seconds_;
    end += seconds_;
    next_ += seconds_ + draw_gap();  // the next detour comes after this one ends
  }
  return added;
}

}  // namespace taskbench_mpi
