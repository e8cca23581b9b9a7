#include "validate.h"

#include <unistd.h>

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "pattern.h"
#include "thread_state.h"

namespace taskbench {
namespace {

struct Identity {
  int64_t t, i;
};

Identity read_identity(const char* p) {
  Identity id;
  std::memcpy(&id, p, sizeof id);
  return id;
}

// Offset of the first byte that differs from the repeated identity, or -1 if intact.
long first_corrupt_byte(const char* buf, size_t bytes, long t, long i) {
  const Identity want{t, i};
  size_t off = 0;
  for (; off + kIdentityBytes <= bytes; off += kIdentityBytes)
    if (std::memcmp(buf + off, &want, kIdentityBytes) != 0) break;
  if (off + kIdentityBytes <= bytes || std::memcmp(buf + off, &want, bytes - off) != 0) {
    for (size_t b = off; b < bytes; ++b)
      if (buf[b] != reinterpret_cast<const char*>(&want)[b % kIdentityBytes])
        return static_cast<long>(b);
  }
  return -1;
}

}  // namespace

void validation_failure(const task_graph_t& g, long t, long i, const char* fmt, ...) {
  char detail[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(detail, sizeof detail, fmt, args);
  va_end(args);
  char line[700];
  std::snprintf(line, sizeof line, "taskbench: validation failed: graph %ld, task (t=%ld, i=%ld): %s",
                g.graph_index, t, i, detail);
  if (run_switches.validation_throws) throw ValidationFailure(line);
  std::fflush(stdout);
  std::fprintf(stderr, "%s\n", line);
  std::fflush(stderr);
  // _exit, not exit: other threads are still running tasks and must not see static
  // destructors; launchers (mpirun, the harness) see the status and stop the rest.
  _exit(kValidationExitCode);
}

void write_identity(char* output, size_t bytes, long t, long i) {
  const Identity id{t, i};
  size_t off = 0;
  for (; off + kIdentityBytes <= bytes; off += kIdentityBytes)
    std::memcpy(output + off, &id, kIdentityBytes);
  if (off < bytes) std::memcpy(output + off, &id, bytes - off);
}

void validate_inputs(const task_graph_t& g, long t, long i, const char* const* inputs,
                     const size_t* input_bytes, size_t n_inputs) {
  interval_t local[16];
  interval_t* deps = local;
  const long cap = pattern::max_intervals(g);
  if (cap > 16) {
    auto& storage = this_thread_state().intervals;
    if (static_cast<long>(storage.size()) < cap) storage.resize(cap);
    deps = storage.data();
  }
  const long n_deps = pattern::task_dependencies(g, t, i, deps);
  const size_t want_bytes = g.output_bytes_per_task;
  size_t k = 0;
  for (long d = 0; d < n_deps; ++d) {
    for (long j = deps[d].start; j <= deps[d].end; ++j, ++k) {
      if (k >= n_inputs)
        validation_failure(g, t, i, "input %zu: expected the output of (t=%ld, i=%ld), found "
                           "no input (received %zu inputs)", k, t - 1, j, n_inputs);
      if (inputs[k] == nullptr || input_bytes[k] != want_bytes)
        validation_failure(g, t, i, "input %zu: expected %zu bytes from (t=%ld, i=%ld), found "
                           "%zu bytes", k, want_bytes, t - 1, j,
                           inputs[k] == nullptr ? size_t{0} : input_bytes[k]);
      const Identity found = read_identity(inputs[k]);
      if (found.t != t - 1 || found.i != j)
        validation_failure(g, t, i, "input %zu: expected the output of (t=%ld, i=%ld), found "
                           "(t=%lld, i=%lld)", k, t - 1, j, static_cast<long long>(found.t),
                           static_cast<long long>(found.i));
      if (want_bytes > kIdentityBytes) {
        long bad = first_corrupt_byte(inputs[k], want_bytes, t - 1, j);
        if (bad >= 0)
          validation_failure(g, t, i, "input %zu: the output of (t=%ld, i=%ld) is corrupt at "
                             "byte %ld of %zu", k, t - 1, j, bad, want_bytes);
      }
    }
  }
  if (k != n_inputs)
    validation_failure(g, t, i, "input %zu: expected no more inputs (%zu dependencies), found "
                       "%zu inputs", k, k, n_inputs);
}

void check_unread_output(const task_graph_t& g, long t, long i, const char* output, size_t bytes) {
  if (!pattern::contains(g, t, i))
    validation_failure(g, t, i, "an output checked at the end of the run, of a task not in the graph");
  const size_t want_bytes = g.output_bytes_per_task;
  if (output == nullptr || bytes != want_bytes)
    validation_failure(g, t, i, "its output, which no task reads, has %zu bytes at the end of the "
                       "run, the graph declares %zu", output == nullptr ? size_t{0} : bytes, want_bytes);
  const Identity found = read_identity(output);
  if (found.t != t || found.i != i)
    validation_failure(g, t, i, "its output, which no task reads, holds the output of (t=%lld, "
                       "i=%lld) at the end of the run", static_cast<long long>(found.t),
                       static_cast<long long>(found.i));
  if (want_bytes > kIdentityBytes) {
    const long bad = first_corrupt_byte(output, want_bytes, t, i);
    if (bad >= 0)
      validation_failure(g, t, i, "its output, which no task reads, is corrupt at byte %ld of %zu "
                         "at the end of the run", bad, want_bytes);
  }
  if (t == g.timesteps - 1) {
    auto& checked = this_thread_state().last_row_checked;
    const size_t gi = static_cast<size_t>(g.graph_index);
    if (gi >= checked.size()) checked.resize(gi + 1, 0);
    ++checked[gi];
  }
}

}  // namespace taskbench
