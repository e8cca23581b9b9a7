// Task representation shared by persistent graphs and dynamic tasks.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>

namespace tbrt {

// A task body is a plain function pointer; `arg`, `i` and `j` are stored in the
// task itself, so creating a task never allocates a closure.
using TaskFn = void (*)(void* arg, std::int64_t i, std::int64_t j);

namespace detail {

enum class Kind : std::uint8_t { kNode, kDynamic };

// The part of a task the scheduler touches; Node and DynTask extend it.
// 48 bytes, so a Node or DynTask fits one 64-byte cache line.
struct Task {
  TaskFn fn;
  void* arg;
  std::int64_t i;
  std::int64_t j;
  std::atomic<std::int32_t> pending{0};  // inputs still missing
  std::int32_t priority = 0;
  Kind kind;
  std::uint8_t flags = 0;  // DynTask: kHasHandle, kSubmitted; Node: kPolledElsewhere
  // Persistent nodes only (they fill the padding): the worker that runs a homed node
  // (kNoHome: any, through the deques), and how many replays have completed it. Its
  // single writer is the node's runner, so homed successors poll it instead of sharing
  // an atomic counter with other predecessors (see Graph::add).
  std::uint16_t home = kNoHome;
  std::atomic<std::uint32_t> completions{0};
  static constexpr std::uint16_t kNoHome = 0xffff;
};

struct DynTask;

// One "pred -> succ" edge of a dynamic task; a pred's edges form a lock-free
// stack that completion closes (see DynTask::succs).
struct Edge {
  DynTask* succ;
  Edge* next;
};

// A task created at run time (Runtime::spawn / Runtime::create).
struct DynTask : Task {
  static constexpr std::uint8_t kHasHandle = 1;  // else spawn()ed: no refs, no successors
  static constexpr std::uint8_t kSubmitted = 2;  // written by the handle's owner only
  // While unsubmitted, `pending` is kUnsubmitted minus the completed
  // predecessors, and the creator counts wired ones in plain `ndeps`: submit
  // subtracts kUnsubmitted - ndeps once, so wiring costs no atomic add.
  static constexpr std::int32_t kUnsubmitted = 1 << 30;

  // Successors, pushed by add_dependency with CAS; completion swaps in
  // closed_edges() so a late add_dependency sees the pred is done.
  std::atomic<Edge*> succs{nullptr};
  std::atomic<std::int32_t> refs{1};  // execution + live TaskHandle
  std::int32_t ndeps = 0;             // creator only, before submit
};
static_assert(sizeof(Task) == 48, "Task should stay 48 bytes");
static_assert(sizeof(DynTask) <= 64, "a DynTask should fit a cache line");

inline Edge* closed_edges() { return reinterpret_cast<Edge*>(std::uintptr_t{1}); }

// A node of a persistent Graph. Successors are a slice of the graph's array.
struct alignas(64) Node : Task {  // a line each: neighbours are run by other workers
  // A homed successor of another home polls this node's line: completion then pushes the
  // line out to the shared cache (CLDEMOTE), where the poller's next read finds it sooner
  // than in this core's cache. Not for others: a successor on this core wants it here.
  static constexpr std::uint8_t kPolledElsewhere = 1;
  Node** succ = nullptr;
  std::uint32_t nsucc = 0;
  std::int32_t npreds = 0;
};
static_assert(sizeof(Node) <= 64, "a Node should fit a cache line");

// A homed node in its home worker's list, with the predecessors it must see completed:
// home_preds_[preds_begin, preds_end) of its graph (those of other homes, or none;
// a same-home predecessor ran earlier in the list, on the same thread), in this replay
// before carried_begin and in the replay before from there on (Graph::add_carried_edge).
struct HomeEntry {
  Node* node;
  std::uint32_t preds_begin, carried_begin, preds_end;
};

// Closures small enough to live in a dynamic task's (i, j) words.
template <class F>
constexpr bool kFitsInline = sizeof(F) <= 2 * sizeof(std::int64_t) &&
                             alignof(F) <= alignof(std::int64_t) &&
                             std::is_trivially_copyable_v<F>;

template <class F>
void call_inline_closure(void* p, std::int64_t, std::int64_t) {
  (*std::launder(reinterpret_cast<F*>(p)))();
}

template <class F>
void store_inline_closure(DynTask* t, const F& f) {
  static_assert(kFitsInline<F>,
                "closure too big for a dynamic task (16 bytes, trivially copyable): "
                "use the (fn, arg, i, j) form");
  std::memcpy(&t->i, &f, sizeof(F));
  t->fn = &call_inline_closure<F>;
  t->arg = &t->i;
}

}  // namespace detail
}  // namespace tbrt
