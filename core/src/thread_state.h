// Per-thread state of the core: executed-task counts, trace events and scratch storage.
// Each thread touches only its own block on the hot path (no shared cache lines, no atomics);
// blocks outlive their threads so the report can sum them after the system has joined.
#pragma once

#include <cstddef>
#include <functional>
#include <new>
#include <vector>

#include "fault.h"
#include "taskbench/taskbench.h"
#include "taskbench/worker.h"  // TraceEvent

namespace taskbench {

// Storage on cache lines of its own (pairs of lines: the spatial prefetcher pulls pairs), for
// what one thread writes per task: neighbouring heap blocks of two threads' counts shared a
// line, so every task moved it between cores (how close they were depended on the lengths of
// the command-line arguments allocated before them: 15% either way on a 2-worker run).
template <class T>
struct OwnLines {
  using value_type = T;
  static constexpr std::size_t kBytes = 128;
  OwnLines() = default;
  template <class U>
  OwnLines(const OwnLines<U>&) {}
  T* allocate(std::size_t n) {
    const std::size_t bytes = (n * sizeof(T) + kBytes - 1) / kBytes * kBytes;
    return static_cast<T*>(::operator new(bytes, std::align_val_t(kBytes)));
  }
  void deallocate(T* p, std::size_t) { ::operator delete(p, std::align_val_t(kBytes)); }
  bool operator==(const OwnLines&) const { return true; }
  bool operator!=(const OwnLines&) const { return false; }
};

struct alignas(OwnLines<char>::kBytes) ThreadState {  // own lines too: -trace writes its headers per task
  int worker = 0;                     // order of first use: the trace's thread id
  std::vector<long long, OwnLines<long long>> executed;  // tasks run, by graph index
  std::vector<long long> last_row_checked;  // last-timestep outputs checked, by graph index
  std::vector<TraceEvent> trace;      // filled only with -trace
  std::vector<char> scratch;          // for systems that pass no scratch buffer
  std::vector<interval_t> intervals;  // validation of patterns with many intervals
};

// Builds `count` blocks on the calling thread, each with room for `graphs` counts, for threads
// to take on their first task: a thread's first allocation makes glibc create its arena (13 us
// measured, inside the timed region of a 2-worker run otherwise).
void prepare_thread_states(size_t count, size_t graphs);
ThreadState& register_thread_state();

// This thread's block, at namespace scope: a static of the inline function below would be a GNU
// "unique" symbol, which the dynamic linker binds once per process, and SimGrid loads one copy
// of the program per simulated rank into one process (docs/simulation.md): every rank counted
// into the first rank's block. Constant-initialized, so that reading it needs no TLS wrapper call.
// Its TLS model: the linker makes it an offset from the thread pointer in an executable; in the
// shared library (TASKBENCH_TLS_INITIAL_EXEC) initial-exec keeps it one (no __tls_get_addr per
// task). Not in every shared object: SimGrid loads as many copies of a simulated program as it
// has ranks, and initial-exec variables of a loaded object come out of a small static TLS block
// ("cannot allocate memory in static TLS block" beyond a few ranks, measured).
#if defined(__clang__)
#define TASKBENCH_CONSTINIT __attribute__((require_constant_initialization))
#else
#define TASKBENCH_CONSTINIT __constinit
#endif
#if defined(TASKBENCH_TLS_INITIAL_EXEC)
#define TASKBENCH_TLS_MODEL __attribute__((tls_model("initial-exec")))
#else
#define TASKBENCH_TLS_MODEL
#endif
extern TASKBENCH_CONSTINIT thread_local ThreadState* current_thread_state TASKBENCH_TLS_MODEL;

inline ThreadState& this_thread_state() {
  if (__builtin_expect(current_thread_state == nullptr, 0)) current_thread_state = &register_thread_state();
  return *current_thread_state;
}

// Visits every thread's block (call only while no task runs).
void for_each_thread_state(const std::function<void(ThreadState&)>& visit);
void reset_thread_states();

// Run-wide switches set by the App.
struct RunSwitches {
  bool tracing = false;
  Fault fault;  // TASKBENCH_FAULT (fault.h)
  // A worker process of an engine that cannot see its workers' exit statuses (Ray's workers
  // are its raylet's children): a failed validation throws ValidationFailure (validate.h),
  // which the binding hands to the engine as the task's error, instead of ending the process.
  bool validation_throws = false;
  // Set on a simulated platform (App::charge_kernels_as_flops): kernels are charged, not run.
  void (*charge_flops)(double flops) = nullptr;
};
extern RunSwitches run_switches;

}  // namespace taskbench
