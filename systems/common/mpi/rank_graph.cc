#include "rank_graph.h"

#include <algorithm>
#include <cstring>

namespace taskbench_mpi {
namespace {

// Tags carry the producer's column, wrapped at the implementation's limit (at least 32767);
// matching stays correct past it because both sides post in the same column order.
long tag_limit() {
  void* value = nullptr;
  int found = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &value, &found);
  return found ? static_cast<long>(*static_cast<int*>(value)) + 1 : 32768;
}

}  // namespace

RankGraph::RankGraph(const taskbench::TaskGraph& g, int rank, int ranks)
    : graph_(g),
      layout_(g.max_width(), ranks),
      first_(layout_.first(rank)),
      end_(layout_.end(rank)),
      buffers_(g, first_, end_),
      plans_(build_plans(g, layout_, rank, tag_limit(), buffers_)),
      input_bytes_(static_cast<size_t>(g.max_dependencies()), g.output_bytes()),
      requests_(plans_.max_requests, MPI_REQUEST_NULL) {}

void RankGraph::check_last_row() const {
  const long t = graph_.timesteps() - 1;
  const long first = std::max(first_, graph_.offset(t)), end = std::min(end_, graph_.offset(t) + graph_.width(t));
  for (long i = first; i < end; ++i) graph_.check_unread_output(t, i, buffers_.output(t, i), buffers_.output_bytes());
}

void RankGraph::exchange(const StepPlan& plan) {
  const int bytes = static_cast<int>(buffers_.output_bytes());  // Session caps it at INT_MAX
  int n = 0;
  for (const Message& m : plan.receives)
    MPI_Irecv(m.data, bytes, MPI_BYTE, m.peer, m.tag, MPI_COMM_WORLD, &requests_[n++]);
  for (const Copy& c : plan.copies) std::memcpy(c.to, c.from, buffers_.output_bytes());
  for (const Message& m : plan.sends)
    MPI_Isend(m.data, bytes, MPI_BYTE, m.peer, m.tag, MPI_COMM_WORLD, &requests_[n++]);
  MPI_Waitall(n, requests_.data(), MPI_STATUSES_IGNORE);
}

std::vector<std::unique_ptr<RankGraph>> make_rank_graphs(
    const std::vector<taskbench::TaskGraph>& graphs, int rank, int ranks) {
  std::vector<std::unique_ptr<RankGraph>> result;
  for (const taskbench::TaskGraph& g : graphs)
    result.push_back(std::make_unique<RankGraph>(g, rank, ranks));
  return result;
}

}  // namespace taskbench_mpi
