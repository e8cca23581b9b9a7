// A flag the user got wrong: one line naming the flag, its value and what is allowed. The App
// prints it and exits with kUsageExitCode (docs/spec.md §4).
#pragma once

#include <stdexcept>

namespace taskbench {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

constexpr int kUsageExitCode = 2;

}  // namespace taskbench
