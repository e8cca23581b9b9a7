// The grid of graphs the core's pattern tests walk: every pattern, widths 1..17, steps up to a
// bound, and each radix, period and fraction the pattern uses (patterns_test.cc, hazards_test.cc).
#pragma once

#include <string>
#include <vector>

#include "taskbench/task_graph.h"

namespace taskbench_test {

constexpr dependence_type_t kAll[] = {TRIVIAL, NO_COMM, STENCIL_1D, STENCIL_1D_PERIODIC,
                                      DOM, TREE, FFT, ALL_TO_ALL, NEAREST, SPREAD,
                                      RANDOM_NEAREST, RANDOM_SPREAD};

inline task_graph_t make(dependence_type_t p, long width, long steps, long radix, long period,
                         double fraction) {
  task_graph_t g{};
  g.graph_index = 1;
  g.timesteps = steps;
  g.max_width = width;
  g.dependence = p;
  g.radix = radix;
  g.period = period;
  g.fraction_connected = fraction;
  g.kernel = kernel_t{EMPTY, 0, 16, 0};
  g.output_bytes_per_task = 16;
  taskbench_set_graph_seed(g.graph_index, 7);  // -seed, kept by the core per graph_index
  return g;
}

inline bool uses_radix(dependence_type_t p) {
  return p == NEAREST || p == SPREAD || p == RANDOM_NEAREST || p == RANDOM_SPREAD;
}
inline bool uses_period(dependence_type_t p) {
  return p == SPREAD || p == RANDOM_NEAREST || p == RANDOM_SPREAD;
}
inline bool uses_fraction(dependence_type_t p) { return p == RANDOM_NEAREST || p == RANDOM_SPREAD; }

// Under AddressSanitizer every check runs about 100x slower, and the random patterns' clipped
// relations over all 18,360 shapes took 105 s each (the test command's slowest unit tests):
// there, every seventh shape in the grid's order (7 divides no dimension's size, so every value of
// every dimension is among them). The release build checks all of them, through the same code.
#if defined(__SANITIZE_ADDRESS__)
constexpr long kShapeStride = 7;
#else
constexpr long kShapeStride = 1;
#endif

// Calls f(graph) for every combination of the grid that the pattern uses.
template <typename F>
void for_each_graph(dependence_type_t p, long max_steps, F f) {
  long n = 0;
  for (long w = 1; w <= 17; ++w)
    for (long steps = 1; steps <= max_steps; ++steps)
      for (long r = 0; r <= (uses_radix(p) ? 9 : 0); ++r)
        for (long per = 1; per <= (uses_period(p) ? 4 : 1); ++per)
          for (double frac : (uses_fraction(p) ? std::vector<double>{0, 0.5, 1} : std::vector<double>{0.25})) {
            if ((p == SPREAD || p == RANDOM_SPREAD) && r > w) continue;  // rejected by the parser
            if (n++ % kShapeStride != 0) continue;
            f(make(p, w, steps, uses_radix(p) ? r : 3, per, frac));
          }
}

inline std::string name(const task_graph_t& g) {
  return std::string(taskbench::pattern_name(g.dependence)) + " w=" + std::to_string(g.max_width) +
         " T=" + std::to_string(g.timesteps) + " r=" + std::to_string(g.radix) +
         " p=" + std::to_string(g.period) + " f=" + std::to_string(g.fraction_connected);
}

}  // namespace taskbench_test
