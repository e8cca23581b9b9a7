// A persistent task graph: built once, replayed by Runtime::run many times.
//
// Replays only re-arm the input counters (done by the thread that finds a
// counter at zero, so there is no O(n) reset pass), with no allocation and no
// rediscovery of edges: the "persistent task graph" idea of the OpenMP TDG paper.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "tbrt/task.h"

namespace tbrt {

class Runtime;

class Graph {
 public:
  using NodeId = std::uint32_t;

  Graph();
  ~Graph();
  Graph(Graph&&) noexcept;
  Graph& operator=(Graph&&) noexcept;

  // Node running fn(arg, i, j). Higher priority runs earlier among ready tasks
  // of one worker (best effort, as in the LLP scheduler).
  //
  // home >= 0 pins the node to worker home % num_workers, which runs its homed nodes
  // in a topological order fixed by finalize() and is never robbed of them. Readiness
  // is then pulled, not pushed: the home worker polls each predecessor's completion
  // word (one writer each), so no counter is shared by producers and no queue sits
  // between a producer and the consumer on another core. On a DAG whose work is
  // balanced over the homes (a Task Bench row split among workers), that leaves one
  // cache-line transfer per cross-worker dependence, where a push costs several
  // (the counter's line, the deque's, the task's). No stealing: imbalance stays.
  // Priorities do not apply to homed nodes.
  NodeId add(TaskFn fn, void* arg = nullptr, std::int64_t i = 0, std::int64_t j = 0,
             int priority = 0, int home = -1);

  // Node running a callable; the callable is stored once, when building.
  template <class F>
  NodeId add_closure(F f, int priority = 0, int home = -1) {
    auto* h = new Holder<F>(std::move(f));
    closures_.emplace_back(h);
    return add(&Holder<F>::call, h, 0, 0, priority, home);
  }

  // `to` starts only after `from` completed. Repeated edges are allowed.
  void add_edge(NodeId from, NodeId to);

  // Loop-carried: `to` in one replay starts only after `from` completed the replay before
  // (from == to allowed). It matters only to replays submitted together
  // (Runtime::submit's `replays`), which no barrier separates: there, a node of replay k+1
  // waits for nothing else of replay k, and one of replay k for nothing of k+1, so the
  // carried edges must order every conflict between consecutive replays (anti-dependences
  // included), and the ordinary edges those within a replay that a later one could break.
  // Carried edges between nodes of one home cost nothing: a home runs its replays in order.
  void add_carried_edge(NodeId from, NodeId to);

  std::size_t size() const { return specs_.size(); }
  std::size_t num_edges() const { return edges_.size(); }

  // Lays the graph out for replay; throws std::invalid_argument on a cycle.
  // Runtime::submit calls it if the graph changed since the last call.
  void finalize();

 private:
  friend class Runtime;

  struct Spec {
    TaskFn fn;
    void* arg;
    std::int64_t i, j;
    std::int32_t priority;
    std::int32_t home;
  };
  struct HolderBase {
    virtual ~HolderBase() = default;
  };
  template <class F>
  struct Holder : HolderBase {
    explicit Holder(F x) : f(std::move(x)) {}
    static void call(void* p, std::int64_t, std::int64_t) { static_cast<Holder*>(p)->f(); }
    F f;
  };

  std::vector<Spec> specs_;
  std::vector<std::pair<NodeId, NodeId>> edges_;
  std::vector<std::pair<NodeId, NodeId>> carried_;
  std::vector<std::unique_ptr<HolderBase>> closures_;
  // Replay layout, rebuilt by finalize().
  std::unique_ptr<detail::Node[]> nodes_;
  std::vector<detail::Node*> succ_;   // unhomed successor lists, back to back
  std::vector<detail::Node*> roots_;  // unhomed nodes without predecessors
  // Homed nodes: home h's list is home_entries_[home_begin_[h], home_begin_[h+1]).
  std::vector<detail::HomeEntry> home_entries_;
  std::vector<std::uint32_t> home_begin_;
  std::vector<detail::Node*> home_preds_;  // what each entry polls, back to back
  bool all_homed_ = false;  // every node homed: only then may replays be submitted together
  std::uint32_t replays_ = 0;  // submits since finalize: the completions of a finished node
  bool finalized_ = false;
};

}  // namespace tbrt
