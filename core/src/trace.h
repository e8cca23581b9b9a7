// -trace FILE: every task's start, end and worker in Chrome's trace format (chrome://tracing,
// Perfetto), written after the run from the per-thread event buffers.
#pragma once

#include <string>

namespace taskbench {

// Returns false (and sets error) if the file cannot be written.
bool write_trace(const std::string& path, int rank, std::string* error);

}  // namespace taskbench
