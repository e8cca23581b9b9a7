// The OMPT side of the breakdown tool: ompt_start_tool, and the callbacks that move each
// thread's ledger between work, overhead, idle and discovery (README.md says what each
// callback means for the accounting, as observed on LLVM's libomp 19).
#include <omp-tools.h>

#include <atomic>
#include <cstdio>

#include "tool.h"

namespace ompt_breakdown {

Regions g_regions;
Ledgers g_ledgers;

namespace {

// What the tool writes into ompt_data_t values, to know a task's kind in task_schedule (which
// gives no flags): an explicit task holds its creator's ledger index + 1.
constexpr std::uint64_t kInitialTask = 1ull << 63;
constexpr std::uint64_t kImplicitTask = 1ull << 62;         // of an untracked (nested) region
constexpr std::uint64_t kTrackedImplicitTask = kImplicitTask | 1;
constexpr std::uint64_t kNoCreator = 1ull << 61;              // created by a thread without ledger

thread_local Ledger* tls_ledger = nullptr;

bool is_explicit(const ompt_data_t* task) {
  return task != nullptr && task->value != 0 && (task->value & (kInitialTask | kImplicitTask)) == 0;
}

void on_thread_begin(ompt_thread_t, ompt_data_t*) { tls_ledger = g_ledgers.add(); }

void on_parallel_begin(ompt_data_t* encountering_task, const ompt_frame_t*, ompt_data_t* parallel,
                       unsigned int, int, const void*) {
  // Only regions started by the initial task: a nested region's time is its threads' outer one.
  const bool outermost = encountering_task != nullptr && encountering_task->value == kInitialTask;
  const int id = outermost ? g_regions.begin(now_ns()) : -1;
  parallel->value = static_cast<std::uint64_t>(id + 1);
  static std::atomic<bool> warned{false};
  if (outermost && id < 0 && !warned.exchange(true))
    std::fprintf(stderr, "taskbench: warning: OMPT breakdown: more than %d parallel regions; "
                 "the later ones are not counted\n", Regions::kMax);
}

void on_parallel_end(ompt_data_t* parallel, ompt_data_t*, int, const void*) {
  if (parallel != nullptr && parallel->value != 0)
    g_regions.end(static_cast<int>(parallel->value - 1), now_ns());
}

void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t* parallel, ompt_data_t* task,
                      unsigned int, unsigned int, int flags) {
  if (flags & ompt_task_initial) {
    if (endpoint == ompt_scope_begin) task->value = kInitialTask;
    return;
  }
  Ledger* self = tls_ledger;
  if (endpoint == ompt_scope_begin) {
    // libomp passes no parallel data at a worker's implicit-task end, hence the tag.
    const bool tracked = parallel != nullptr && parallel->value != 0;
    task->value = tracked ? kTrackedImplicitTask : kImplicitTask;
    if (tracked && self != nullptr)
      self->join(g_regions, static_cast<int>(parallel->value - 1), now_ns());
  } else if (task->value == kTrackedImplicitTask && self != nullptr) {
    self->leave(g_regions, now_ns());
  }
}

void on_task_create(ompt_data_t*, const ompt_frame_t*, ompt_data_t* task, int flags, int,
                    const void*) {
  if (!(flags & ompt_task_explicit)) return;  // taskwait-depend and target tasks have no body here
  const Ledger* self = tls_ledger;
  task->value = self != nullptr ? static_cast<std::uint64_t>(self->index()) + 1 : kNoCreator;
}

void on_task_schedule(ompt_data_t* prior, ompt_task_status_t status, ompt_data_t* next) {
  Ledger* self = tls_ledger;
  // Fulfill events are not switches: the thread keeps running what it ran.
  if (self == nullptr || status == ompt_task_early_fulfill || status == ompt_task_late_fulfill)
    return;
  const std::int64_t t = now_ns();
  if (is_explicit(prior)) {
    self->pop(g_regions, t);
    if (status == ompt_task_complete || status == ompt_task_detach)  // the body has run
      self->count_tasks(1, prior->value != static_cast<std::uint64_t>(self->index()) + 1 ? 1 : 0);
  }
  if (is_explicit(next)) self->push(g_regions, kWork, t);
}

void on_sync_region_wait(ompt_sync_region_t, ompt_scope_endpoint_t endpoint, ompt_data_t*,
                         ompt_data_t*, const void*) {
  Ledger* self = tls_ledger;
  if (self == nullptr) return;
  if (endpoint == ompt_scope_begin)
    self->push(g_regions, kIdle, now_ns());
  else
    self->pop(g_regions, now_ns());
}

void on_work(ompt_work_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t*, ompt_data_t*,
             std::uint64_t, const void*) {
  Ledger* self = tls_ledger;
  if (self == nullptr) return;
  Part part;
  switch (kind) {
    case ompt_work_single_executor:  // the thread that creates tasks in a single
    case ompt_work_taskloop:         // a taskloop creating its tasks
      part = kDiscovery;
      break;
    case ompt_work_loop:
    case ompt_work_loop_static:
    case ompt_work_loop_dynamic:
    case ompt_work_loop_guided:
    case ompt_work_loop_other:
      part = kWork;  // the thread's share of a worksharing loop, its chunk dispatches included
      break;
    default:
      return;
  }
  if (endpoint == ompt_scope_begin)
    self->push(g_regions, part, now_ns());
  else
    self->pop(g_regions, now_ns());
}

// A master (masked) construct: openmp_task's master creates every task of the run inside one.
void on_masked(ompt_scope_endpoint_t endpoint, ompt_data_t* parallel, ompt_data_t* task,
               const void* codeptr) {
  on_work(ompt_work_single_executor, endpoint, parallel, task, 0, codeptr);
}

void on_dispatch(ompt_data_t*, ompt_data_t*, ompt_dispatch_t kind, ompt_data_t instance) {
  // A worksharing loop's iterations are its tasks: libomp announces each chunk a thread takes.
  if (kind != ompt_dispatch_ws_loop_chunk || tls_ledger == nullptr) return;
  const auto* chunk = static_cast<const ompt_dispatch_chunk_t*>(instance.ptr);
  tls_ledger->count_tasks(chunk->iterations, 0);
}

int initialize(ompt_function_lookup_t lookup, int, ompt_data_t*) {
  auto set_callback = reinterpret_cast<ompt_set_callback_t>(lookup("ompt_set_callback"));
  if (set_callback == nullptr) return 0;
  struct Registration {
    ompt_callbacks_t event;
    ompt_callback_t callback;
    const char* name;
  };
  const Registration registrations[] = {
      {ompt_callback_thread_begin, reinterpret_cast<ompt_callback_t>(&on_thread_begin), "thread_begin"},
      {ompt_callback_parallel_begin, reinterpret_cast<ompt_callback_t>(&on_parallel_begin), "parallel_begin"},
      {ompt_callback_parallel_end, reinterpret_cast<ompt_callback_t>(&on_parallel_end), "parallel_end"},
      {ompt_callback_implicit_task, reinterpret_cast<ompt_callback_t>(&on_implicit_task), "implicit_task"},
      {ompt_callback_task_create, reinterpret_cast<ompt_callback_t>(&on_task_create), "task_create"},
      {ompt_callback_task_schedule, reinterpret_cast<ompt_callback_t>(&on_task_schedule), "task_schedule"},
      {ompt_callback_sync_region_wait, reinterpret_cast<ompt_callback_t>(&on_sync_region_wait), "sync_region_wait"},
      {ompt_callback_work, reinterpret_cast<ompt_callback_t>(&on_work), "work"},
      {ompt_callback_dispatch, reinterpret_cast<ompt_callback_t>(&on_dispatch), "dispatch"},
      {ompt_callback_masked, reinterpret_cast<ompt_callback_t>(&on_masked), "masked"},
  };
  for (const Registration& r : registrations) {
    // libomp 19 answers ompt_set_always for each; anything less leaves holes in the ledgers.
    const int result = set_callback(r.event, r.callback);
    if (result != ompt_set_always)
      std::fprintf(stderr,
                   "taskbench: warning: OMPT breakdown: the OpenMP runtime answers %d (not "
                   "ompt_set_always) for ompt_callback_%s; its figures are incomplete\n",
                   result, r.name);
  }
  return 1;
}

void finalize(ompt_data_t*) {}

}  // namespace
}  // namespace ompt_breakdown

extern "C" __attribute__((visibility("default"))) ompt_start_tool_result_t* ompt_start_tool(
    unsigned int, const char*) {
  static ompt_start_tool_result_t result = {&ompt_breakdown::initialize, &ompt_breakdown::finalize,
                                            ompt_data_t{}};
  return &result;
}
