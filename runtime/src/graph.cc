#include "tbrt/graph.h"

#include <algorithm>
#include <stdexcept>

namespace tbrt {

Graph::Graph() = default;
Graph::~Graph() = default;
Graph::Graph(Graph&&) noexcept = default;
Graph& Graph::operator=(Graph&&) noexcept = default;

Graph::NodeId Graph::add(TaskFn fn, void* arg, std::int64_t i, std::int64_t j, int priority,
                         int home) {
  if (home < -1 || home >= int(detail::Task::kNoHome))
    throw std::invalid_argument("tbrt::Graph::add: home must be -1 or in [0, 65534]");
  finalized_ = false;
  specs_.push_back(Spec{fn, arg, i, j, priority, home});
  return NodeId(specs_.size() - 1);
}

void Graph::add_edge(NodeId from, NodeId to) {
  if (from >= specs_.size() || to >= specs_.size() || from == to)
    throw std::invalid_argument("tbrt::Graph::add_edge: bad node id");
  finalized_ = false;
  edges_.emplace_back(from, to);
}

void Graph::add_carried_edge(NodeId from, NodeId to) {
  if (from >= specs_.size() || to >= specs_.size())
    throw std::invalid_argument("tbrt::Graph::add_carried_edge: bad node id");
  finalized_ = false;
  carried_.emplace_back(from, to);
}

namespace {

// Edges grouped by one end, in CSR form: the other ends of node k's edges are
// adj[begin[k], begin[k + 1]), in the order the edges were added.
struct Csr {
  std::vector<std::uint32_t> begin;
  std::vector<Graph::NodeId> adj;
};

Csr group(const std::vector<std::pair<Graph::NodeId, Graph::NodeId>>& edges, std::size_t n, bool by_target) {
  Csr c{std::vector<std::uint32_t>(n + 1, 0), std::vector<Graph::NodeId>(edges.size())};
  for (const auto& e : edges) ++c.begin[(by_target ? e.second : e.first) + 1];
  for (std::size_t k = 0; k < n; ++k) c.begin[k + 1] += c.begin[k];
  std::vector<std::uint32_t> fill(c.begin.begin(), c.begin.end() - 1);
  for (const auto& e : edges)
    c.adj[fill[by_target ? e.second : e.first]++] = by_target ? e.first : e.second;
  return c;
}

}  // namespace

void Graph::finalize() {
  const std::size_t n = specs_.size();
  auto homed = [&](std::size_t k) { return specs_[k].home >= 0; };
  // Edges in CSR form both ways: successors (begin/adj) and predecessors (pbegin/padj).
  const Csr succs = group(edges_, n, false), preds_of = group(edges_, n, true);
  const std::vector<std::uint32_t>& begin = succs.begin;
  const std::vector<std::uint32_t>& pbegin = preds_of.begin;
  const std::vector<NodeId>& adj = succs.adj;
  const std::vector<NodeId>& padj = preds_of.adj;

  // Topological order (Kahn, first-come in id order), which also rejects cycles: a
  // cycle would make run() wait forever. Home lists follow this order.
  std::vector<std::uint32_t> order;
  order.reserve(n);
  {
    std::vector<std::uint32_t> indeg(n);
    for (std::size_t k = 0; k < n; ++k) {
      indeg[k] = pbegin[k + 1] - pbegin[k];
      if (indeg[k] == 0) order.push_back(std::uint32_t(k));
    }
    for (std::size_t h = 0; h < order.size(); ++h)
      for (std::uint32_t a = begin[order[h]]; a < begin[order[h] + 1]; ++a)
        if (--indeg[adj[a]] == 0) order.push_back(adj[a]);
    if (order.size() != n) throw std::invalid_argument("tbrt::Graph: the graph has a cycle");
  }

  nodes_.reset(new detail::Node[n]);
  replays_ = 0;
  // Only unhomed successors are pushed (homed ones poll), so only they are listed.
  succ_.clear();
  succ_.reserve(edges_.size());
  roots_.clear();
  int homes = 0;
  for (std::size_t k = 0; k < n; ++k) {
    detail::Node& node = nodes_[k];
    const Spec& s = specs_[k];
    node.fn = s.fn;
    node.arg = s.arg;
    node.i = s.i;
    node.j = s.j;
    node.priority = s.priority;
    node.kind = detail::Kind::kNode;
    node.home = s.home >= 0 ? std::uint16_t(s.home) : detail::Task::kNoHome;
    homes = std::max(homes, s.home + 1);
    node.npreds = std::int32_t(pbegin[k + 1] - pbegin[k]);
    node.pending.store(node.npreds, std::memory_order_relaxed);
    if (!homed(k) && node.npreds == 0) roots_.push_back(&node);
  }
  for (std::size_t k = 0; k < n; ++k) {  // reserved above: succ_ never reallocates
    nodes_[k].succ = succ_.data() + succ_.size();
    for (std::uint32_t a = begin[k]; a < begin[k + 1]; ++a)
      if (!homed(adj[a])) succ_.push_back(&nodes_[adj[a]]);
    nodes_[k].nsucc = std::uint32_t(succ_.data() + succ_.size() - nodes_[k].succ);
  }

  // Carried predecessors per node, for the home lists below.
  const Csr carried = group(carried_, n, true);

  // Home lists, each in topological order, with the predecessors to poll: those of other
  // homes (unhomed ones included), each once, this replay's then the replay before's.
  home_begin_.assign(std::size_t(homes) + 1, 0);
  for (std::size_t k = 0; k < n; ++k)
    if (homed(k)) ++home_begin_[std::size_t(specs_[k].home) + 1];
  for (int h = 0; h < homes; ++h) home_begin_[h + 1] += home_begin_[h];
  home_entries_.assign(home_begin_.back(), detail::HomeEntry{});
  home_preds_.clear();
  std::vector<std::uint32_t> fill(home_begin_.begin(), home_begin_.end() - 1);
  std::vector<NodeId> preds;
  auto poll = [&](std::uint32_t k, const std::vector<std::uint32_t>& b, const std::vector<NodeId>& a) {
    preds.clear();
    for (std::uint32_t x = b[k]; x < b[k + 1]; ++x)
      if (specs_[a[x]].home != specs_[k].home) preds.push_back(a[x]);
    std::sort(preds.begin(), preds.end());
    preds.erase(std::unique(preds.begin(), preds.end()), preds.end());
    for (NodeId p : preds) {
      home_preds_.push_back(&nodes_[p]);
      nodes_[p].flags |= detail::Node::kPolledElsewhere;
    }
    return std::uint32_t(home_preds_.size());
  };
  for (std::uint32_t k : order) {
    if (!homed(k)) continue;
    const auto pb = std::uint32_t(home_preds_.size());
    const std::uint32_t cb = poll(k, pbegin, padj);
    home_entries_[fill[specs_[k].home]++] =
        detail::HomeEntry{&nodes_[k], pb, cb, poll(k, carried.begin, carried.adj)};
  }
  all_homed_ = home_entries_.size() == n;
  if (homes == 0) home_begin_.clear();
  finalized_ = true;
}

}  // namespace tbrt
