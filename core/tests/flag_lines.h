// Random command lines for the flag fuzz test (fuzz_flags.cc): a seeded mix of valid flags,
// system flags, unknown flags, values at and just beyond each flag's bounds, numbers no flag
// takes (NaN, inf, 1e308, 2^64), malformed numbers (" 5", "0x10", "+5"), empty and non-ASCII
// values, repeated flags, -and first, last and doubled, and missing values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "taskbench/app.h"

namespace fuzz {

// splitmix64: the same stream on every platform and standard library (std distributions are not).
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t next();
  uint64_t below(uint64_t n) { return n == 0 ? 0 : next() % n; }
  bool chance(double p) { return static_cast<double>(next() >> 11) * 0x1.0p-53 < p; }
  template <class T>
  const T& pick(const std::vector<T>& items) { return items[below(items.size())]; }

 private:
  uint64_t state_;
};

// One flag the line set to a value written in canonical decimal: if the line is accepted,
// graph `graph` (or the run, for graph -1) must hold exactly `value` for `flag` unless a
// later item sets it again.
struct Expectation {
  long graph;
  std::string flag;
  long value;
};

struct FlagLine {
  std::vector<std::string> args;
  std::vector<Expectation> expected;
  // An integer flag got a value that is not plain decimal or is outside the flag's range: the
  // parser must reject the line. (Cleared, like `expected`, when the line is reshaped.)
  bool must_reject = false;
};

// The system flags the fuzz test declares, as the native and MPI systems do.
const std::vector<taskbench::SystemFlag>& fuzz_system_flags();

// Every flag name the parser knows: graph, run and the fuzz test's system flags.
const std::vector<std::string>& known_flags();

FlagLine random_flag_line(Random& random);

// The line as a shell would show it, non-printable bytes escaped (for failure reports).
std::string shown(const std::vector<std::string>& args);

}  // namespace fuzz
