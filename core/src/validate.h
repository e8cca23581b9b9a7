// Task validation (docs/spec.md §3): identities written into outputs and checked in inputs.
#pragma once

#include <cstddef>

#include "taskbench/taskbench.h"
#include "taskbench/worker.h"  // ValidationFailure

namespace taskbench {

constexpr int kValidationExitCode = 3;
constexpr size_t kIdentityBytes = 16;  // (int64 t, int64 i)

// Writes (t, i) across the whole buffer (a trailing partial pair holds a prefix of it).
void write_identity(char* output, size_t bytes, long t, long i);

// Checks that task (t, i) of g received exactly its dependencies, in order, each an intact
// output of the expected producer. Exits with kValidationExitCode and one line on a mismatch.
void validate_inputs(const task_graph_t& g, long t, long i, const char* const* inputs,
                     const size_t* input_bytes, size_t n_inputs);

// Checks an output that no task read, handed over at the end of the run (taskbench.h), as
// validate_inputs checks one that was read; counts it when it is of g's last timestep.
void check_unread_output(const task_graph_t& g, long t, long i, const char* output, size_t bytes);

// Prints the line and exits with kValidationExitCode, or throws ValidationFailure.
[[noreturn]] void validation_failure(const task_graph_t& g, long t, long i, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));

}  // namespace taskbench
