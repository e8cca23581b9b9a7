// realm: the paper's Realm port, organised as the original's realm_subgraph/main.cc (our own
// code). A shard task per CPU processor issues the tasks of its own block of columns, all on
// its processor: per graph, a Realm Subgraph per window of lcm(fields, the graph's timestep
// period) rows, defined once per distinct window and instantiated window after window (each
// instance waits for the shard's previous one). Every dependence crosses through phase
// barriers made before the run, one per dependence edge and output slot with one arrival per
// phase: a task's producer arrives on the edge's read-after-write barrier once it has run, a
// reader on the write-after-read barrier of the column it read, and a task waits for the phases
// its own inputs and the reuse of its output slot need. Every row arrives on each of its
// barriers, after its task where the edge is in that row, unconditionally where it is not, so
// the phases of both sides keep in step for any pattern. See README.md.
#include "shards.h"

#include <realm/subgraph.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "storage.h"
#include "subgraph_edge.h"

namespace taskbench_realm {
namespace {

using Realm::Barrier;
using Realm::Event;
using Realm::Processor;
using Realm::Subgraph;
using Def = Realm::SubgraphDefinition;

long floor_div(long a, long b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// One side's handle on a barrier (its waiter's or its arriver's), moved forward phase by phase:
// each side uses a barrier in increasing phases (rows in order), and only its shard touches it.
struct Cursor {
  Barrier at;
  long phase = 0;
  Barrier to(long p) {
    if (p < phase) fail("internal: barrier phase " + std::to_string(p) + " after " + std::to_string(phase));
    for (; phase < p; ++phase) at = at.advance_barrier();
    return at;
  }
};

// One graph's dependence edges over every dependence set, and their barriers: for column c and
// the k-th column it may read, a read-after-write barrier per slot; for column w and the m-th
// column that may read it, a write-after-read barrier per slot.
struct Edges {
  long fields = 0;
  std::vector<std::vector<long>> producers, consumers;  // sorted, per column
  std::vector<size_t> raw_first, war_first;             // per column: its first barrier
  // Per column i: where i arrives, for its m-th consumer (the consumer's read-after-write
  // barrier on i, slot 0) and for its k-th producer (the producer's write-after-read one).
  std::vector<std::vector<size_t>> raw_to, war_to;
  std::vector<Cursor> waiter, arriver;  // per barrier

  size_t raw(long c, size_t k, long slot) const { return raw_first[c] + k * fields + slot; }
  size_t war(long w, size_t m, long slot) const { return war_first[w] + m * fields + slot; }
};

size_t position(const std::vector<long>& sorted, long column) {
  return static_cast<size_t>(std::lower_bound(sorted.begin(), sorted.end(), column) - sorted.begin());
}

Edges make_edges(const taskbench::TaskGraph& g, long fields) {
  const long w = g.max_width();
  Edges e;
  e.fields = fields;
  e.producers.resize(w);
  e.consumers.resize(w);
  std::vector<taskbench::Interval> deps(std::max(1L, g.max_intervals()));
  for (long dset = 0; dset < g.dependence_sets(); ++dset)
    for (long c = 0; c < w; ++c) {
      const long n = g.dependencies(dset, c, deps.data());
      for (long k = 0; k < n; ++k)
        for (long p = deps[k].start; p <= deps[k].end; ++p) {
          e.producers[c].push_back(p);
          e.consumers[p].push_back(c);
        }
    }
  for (auto* lists : {&e.producers, &e.consumers})
    for (std::vector<long>& l : *lists) {
      std::sort(l.begin(), l.end());
      l.erase(std::unique(l.begin(), l.end()), l.end());
    }
  size_t next = 0;  // every read-after-write barrier, then every write-after-read one
  for (long c = 0; c < w; ++c) {
    e.raw_first.push_back(next);
    next += e.producers[c].size() * fields;
  }
  for (long c = 0; c < w; ++c) {
    e.war_first.push_back(next);
    next += e.consumers[c].size() * fields;
  }
  e.raw_to.resize(w);
  e.war_to.resize(w);
  for (long i = 0; i < w; ++i) {
    for (long c : e.consumers[i]) e.raw_to[i].push_back(e.raw(c, position(e.producers[c], i), 0));
    for (long p : e.producers[i]) e.war_to[i].push_back(e.war(p, position(e.consumers[p], i), 0));
  }
  e.waiter.resize(next);
  e.arriver.resize(next);
  for (size_t b = 0; b < next; ++b) {
    e.waiter[b].at = Barrier::create_barrier(1);
    e.arriver[b].at = e.waiter[b].at;
  }
  return e;
}

// A window's structure, what its Subgraph is built from (the barriers it names and the rows'
// timesteps are the instance's arguments, so windows alike share one Subgraph): the row count,
// then per row kRow and per task kTask and its column, its waits, at most one kAfter (an
// earlier task of the window it follows), and per point its arrivals, after its task or not.
enum : long { kRow = -1, kTask = -2, kWait = -3, kAfter = -4, kArrive = -5, kArriveAfter = -6 };

struct Shard {
  long index;
  Processor proc;
  std::vector<long> key;
  std::vector<char> args;
  std::vector<Event> waits;
  std::vector<taskbench::Interval> in, out;
  std::vector<char> flag;
  std::vector<long> task_at;

  template <class T>
  void append(const T& value) {
    const size_t at = args.size();
    args.resize(at + sizeof value);
    std::memcpy(args.data() + at, &value, sizeof value);
  }
};

// Marks which of `columns` (sorted) the intervals name.
void mark(std::vector<char>& flag, const std::vector<long>& columns, const taskbench::Interval* iv, long n) {
  flag.assign(columns.size(), 0);
  for (long k = 0; k < n; ++k)
    for (auto it = std::lower_bound(columns.begin(), columns.end(), iv[k].start);
         it != columns.end() && *it <= iv[k].end; ++it)
      flag[static_cast<size_t>(it - columns.begin())] = 1;
}

// Rows [b, e) of graph g for the shard's columns [first, last]: its key, arguments and waits.
void describe_window(Shard& s, const taskbench::TaskGraph& g, Edges& edges, long first, long last, long b,
                     long e) {
  const long fields = edges.fields, block = last - first + 1;
  s.key.assign(1, e - b);
  s.args.clear();
  s.waits.clear();
  for (long t = b; t < e; ++t) s.append(t);
  s.task_at.assign(static_cast<size_t>((e - b) * block), -1);
  long tasks = 0;
  for (long t = b; t < e; ++t) {
    s.key.push_back(kRow);
    for (long i = first; i <= last; ++i) {
      const bool exists = g.contains(t, i);
      const long inputs = exists && t > 0 ? g.task_dependencies(t, i, s.in.data()) : 0;
      if (exists) {
        s.key.insert(s.key.end(), {kTask, i});
        s.task_at[static_cast<size_t>((t - b) * block + i - first)] = tasks++;
        for (long k = 0; k < inputs; ++k)  // read after write: (t-1, j) has arrived
          for (long j = s.in[k].start; j <= s.in[k].end; ++j) {
            s.key.push_back(kWait);
            const size_t barrier = edges.raw(i, position(edges.producers[i], j), (t - 1) % fields);
            s.waits.push_back(edges.waiter[barrier].to(floor_div(t - 1, fields)));
          }
        if (t >= fields && g.contains(t - fields, i)) {  // the slot's last value, from row t-fields
          const long readers = g.task_successors(t - fields, i, s.out.data());
          for (long k = 0; k < readers; ++k)  // write after read: its readers have arrived
            for (long q = s.out[k].start; q <= s.out[k].end; ++q) {
              s.key.push_back(kWait);
              const size_t barrier = edges.war(i, position(edges.consumers[i], q), t % fields);
              s.waits.push_back(edges.waiter[barrier].to(t / fields - 1));
            }
          // Nobody read it: its writer, on this processor, only has to come first. An earlier
          // window is complete before this one starts; within the window, an edge.
          if (readers == 0 && t - fields >= b)
            s.key.insert(s.key.end(),
                         {kAfter, s.task_at[static_cast<size_t>((t - fields - b) * block + i - first)]});
        }
      }
      const long successors = exists ? g.task_successors(t, i, s.out.data()) : 0;
      mark(s.flag, edges.consumers[i], s.out.data(), successors);
      for (size_t m = 0; m < edges.consumers[i].size(); ++m) {
        s.key.push_back(s.flag[m] ? kArriveAfter : kArrive);
        s.append(edges.arriver[edges.raw_to[i][m] + t % fields].to(t / fields));
      }
      if (t == 0) continue;  // row 0 read nothing
      mark(s.flag, edges.producers[i], s.in.data(), inputs);
      for (size_t k = 0; k < edges.producers[i].size(); ++k) {
        s.key.push_back(s.flag[k] ? kArriveAfter : kArrive);
        s.append(edges.arriver[edges.war_to[i][k] + (t - 1) % fields].to(floor_div(t - 1, fields)));
      }
    }
  }
}

Def::Interpolation interpolation(size_t offset, size_t bytes, Def::Interpolation::TargetKind kind, long target,
                                 size_t target_offset) {
  Def::Interpolation ip;
  ip.offset = offset;
  ip.bytes = bytes;
  ip.target_kind = kind;
  ip.target_index = static_cast<unsigned>(target);
  ip.target_offset = target_offset;
  ip.redop_id = 0;
  return ip;
}

// The Subgraph of a key: its tasks on the shard's processor, each wait an outside
// precondition port (in the order of the instance's waits), each arrival's barrier taken from
// the arguments after the rows' timesteps.
Def define(const std::vector<long>& key, Processor proc, long graph) {
  Def def;
  def.concurrency_mode = Def::INSTANTIATION_ORDER;  // windows run one after another
  const size_t barriers_at = static_cast<size_t>(key[0]) * sizeof(long);
  long row = -1, task = -1, port = 0, arrival = 0;
  for (size_t k = 1; k < key.size(); ++k) {
    switch (key[k]) {
      case kRow:
        ++row;
        break;
      case kTask: {
        Def::TaskDesc desc;
        desc.proc = proc;
        desc.task_id = kPointTask;
        const PointArgs args{graph, 0, key[++k]};
        desc.args.set(&args, sizeof args);
        def.tasks.push_back(desc);
        ++task;
        def.interpolations.push_back(interpolation(static_cast<size_t>(row) * sizeof(long), sizeof(long),
                                                   Def::Interpolation::TARGET_TASK_ARGS, task,
                                                   offsetof(PointArgs, t)));
        break;
      }
      case kWait:
        def.dependencies.push_back(subgraph_edge(Def::OPKIND_EXT_PRECOND, port++, Def::OPKIND_TASK, task));
        break;
      case kAfter:
        def.dependencies.push_back(subgraph_edge(Def::OPKIND_TASK, key[++k], Def::OPKIND_TASK, task));
        break;
      default: {  // kArrive, kArriveAfter
        Def::ArrivalDesc a;
        a.barrier = Barrier::NO_BARRIER;
        a.count = 1;
        def.arrivals.push_back(a);
        def.interpolations.push_back(interpolation(barriers_at + static_cast<size_t>(arrival) * sizeof(Barrier),
                                                   sizeof(Barrier), Def::Interpolation::TARGET_ARRIVAL_BARRIER,
                                                   arrival, 0));
        if (key[k] == kArriveAfter)
          def.dependencies.push_back(subgraph_edge(Def::OPKIND_TASK, task, Def::OPKIND_ARRIVAL, arrival));
        ++arrival;
      }
    }
  }
  return def;
}

struct Built {
  Subgraph graph;
  Event ready;
};

struct Plan {
  long fields = 0;
  std::vector<Edges> edges;  // per graph
  Barrier sync;              // every shard arrives, then starts its clock
  std::vector<double> start, issued, stop;  // per shard
  std::vector<size_t> subgraphs;
};

Plan* plan = nullptr;  // set before the shards are spawned; each shard writes its own entries

void shard_task(const void* args, size_t, const void*, size_t, Processor proc) {
  Shard s;
  std::memcpy(&s.index, args, sizeof s.index);
  s.proc = proc;
  const long shards = static_cast<long>(plan->start.size());
  long intervals = 1;
  for (const GraphData& d : graph_data) intervals = std::max(intervals, d.graph.max_intervals());
  s.in.resize(static_cast<size_t>(intervals));
  s.out.resize(static_cast<size_t>(intervals));
  std::vector<std::map<std::vector<long>, Built>> built(graph_data.size());

  // The first event a processor's thread makes costs Realm 0.1-0.2 s here (it fills a table
  // of them); the original's shards made theirs creating instances before the clock, so here too.
  Realm::UserEvent first = Realm::UserEvent::create_user_event();
  first.trigger();
  plan->sync.arrive(1);  // as the original: no shard starts its clock before all are here
  plan->sync.wait();
  const double start = taskbench::wall_time();
  std::vector<Event> ends;
  for (size_t gi = 0; gi < graph_data.size(); ++gi) {
    const taskbench::TaskGraph& g = graph_data[gi].graph;
    const long first = s.index * g.max_width() / shards, last = (s.index + 1) * g.max_width() / shards - 1;
    if (last < first) continue;  // fewer columns than shards
    const long window = std::lcm(plan->fields, task_graph_timestep_period(g.raw()));
    Event previous = Event::NO_EVENT;
    std::vector<Event> posts;
    for (long b = 0; b < g.timesteps(); b += window) {
      describe_window(s, g, plan->edges[gi], first, last, b, std::min(g.timesteps(), b + window));
      // No task and no arrival (a tree's first rows outside its columns): nothing to run, and
      // Realm refuses an empty Subgraph.
      if (std::none_of(s.key.begin() + 1, s.key.end(), [](long k) { return k != kRow; })) continue;
      auto found = built[gi].find(s.key);
      if (found == built[gi].end()) {
        Built made;
        made.ready = Subgraph::create_subgraph(made.graph, define(s.key, proc, static_cast<long>(gi)),
                                               Realm::ProfilingRequestSet());
        found = built[gi].emplace(s.key, made).first;
      }
      previous = found->second.graph.instantiate(s.args.data(), s.args.size(), Realm::ProfilingRequestSet(),
                                                 s.waits, posts, Event::merge_events(found->second.ready, previous));
    }
    ends.push_back(previous);
  }
  const double issued = taskbench::wall_time();
  Event::merge_events(ends).wait();
  const double stop = taskbench::wall_time();
  size_t subgraphs = 0;
  for (auto& graphs : built)
    for (auto& entry : graphs) {
      entry.second.graph.destroy();
      ++subgraphs;
    }
  plan->start[s.index] = start;
  plan->issued[s.index] = issued - start;
  plan->stop[s.index] = stop;
  plan->subgraphs[s.index] = subgraphs;
}

}  // namespace

bool phases_suffice(long timesteps, long fields) {
  return static_cast<unsigned long long>(timesteps / fields + 1) < static_cast<unsigned long long>(Barrier::MAX_PHASES);
}

ShardResult run_shards(const std::vector<Processor>& procs, long fields) {
  Plan p;
  p.fields = fields;
  ShardResult result;
  for (const GraphData& d : graph_data) {
    p.edges.push_back(make_edges(d.graph, fields));
    result.barriers += p.edges.back().waiter.size();
  }
  const size_t shards = procs.size();
  p.sync = Barrier::create_barrier(static_cast<unsigned>(shards));
  p.start.assign(shards, 0);
  p.issued.assign(shards, 0);
  p.stop.assign(shards, 0);
  p.subgraphs.assign(shards, 0);
  plan = &p;
  Processor::register_task_by_kind(Processor::LOC_PROC, false, kShardTask, Realm::CodeDescriptor(shard_task),
                                   Realm::ProfilingRequestSet())
      .wait();
  std::vector<Event> done;
  for (long k = 0; k < static_cast<long>(shards); ++k) done.push_back(procs[k].spawn(kShardTask, &k, sizeof k));
  Event::merge_events(done).wait();
  plan = nullptr;
  result.elapsed_seconds = *std::max_element(p.stop.begin(), p.stop.end()) -
                           *std::min_element(p.start.begin(), p.start.end());
  result.issue_seconds = *std::max_element(p.issued.begin(), p.issued.end());
  result.subgraphs = std::accumulate(p.subgraphs.begin(), p.subgraphs.end(), size_t{0});
  return result;
}

}  // namespace taskbench_realm
