#include "tbrt/graph.h"

#include <stdexcept>

namespace tbrt {

Graph::Graph() = default;
Graph::~Graph() = default;
Graph::Graph(Graph&&) noexcept = default;
Graph& Graph::operator=(Graph&&) noexcept = default;

Graph::NodeId Graph::add(TaskFn fn, void* arg, std::int64_t i, std::int64_t j, int priority) {
  finalized_ = false;
  specs_.push_back(Spec{fn, arg, i, j, priority});
  return NodeId(specs_.size() - 1);
}

void Graph::add_edge(NodeId from, NodeId to) {
  if (from >= specs_.size() || to >= specs_.size() || from == to)
    throw std::invalid_argument("tbrt::Graph::add_edge: bad node id");
  finalized_ = false;
  edges_.emplace_back(from, to);
}

void Graph::finalize() {
  const std::size_t n = specs_.size();
  // Successor lists in one array (CSR): offsets from out-degrees.
  std::vector<std::uint32_t> begin(n + 1, 0), npreds(n, 0);
  for (const auto& e : edges_) {
    ++begin[e.first + 1];
    ++npreds[e.second];
  }
  for (std::size_t k = 0; k < n; ++k) begin[k + 1] += begin[k];

  // Acyclic check (Kahn): a cycle would make run() wait forever.
  {
    std::vector<std::uint32_t> fill(begin.begin(), begin.end() - 1), order;
    std::vector<NodeId> adj(edges_.size());
    for (const auto& e : edges_) adj[fill[e.first]++] = e.second;
    std::vector<std::uint32_t> indeg(npreds);
    for (std::size_t k = 0; k < n; ++k)
      if (indeg[k] == 0) order.push_back(std::uint32_t(k));
    for (std::size_t h = 0; h < order.size(); ++h)
      for (std::uint32_t a = begin[order[h]]; a < begin[order[h] + 1]; ++a)
        if (--indeg[adj[a]] == 0) order.push_back(adj[a]);
    if (order.size() != n) throw std::invalid_argument("tbrt::Graph: the graph has a cycle");
  }

  nodes_.reset(new detail::Node[n]);
  succ_.assign(edges_.size(), nullptr);
  std::vector<std::uint32_t> fill(begin.begin(), begin.end() - 1);
  for (const auto& e : edges_) succ_[fill[e.first]++] = &nodes_[e.second];
  roots_.clear();
  for (std::size_t k = 0; k < n; ++k) {
    detail::Node& node = nodes_[k];
    const Spec& s = specs_[k];
    node.fn = s.fn;
    node.arg = s.arg;
    node.i = s.i;
    node.j = s.j;
    node.priority = s.priority;
    node.kind = detail::Kind::kNode;
    node.succ = succ_.data() + begin[k];
    node.nsucc = begin[k + 1] - begin[k];
    node.npreds = std::int32_t(npreds[k]);
    node.pending.store(node.npreds, std::memory_order_relaxed);
    if (npreds[k] == 0) roots_.push_back(&node);
  }
  finalized_ = true;
}

}  // namespace tbrt
