// Persistent graphs over blocks of timesteps, replayed (the persistent TDG of the ICPP'23
// paper, with its barrier per replay, or homed, with none: see BlockSchedule::next).
//
// A block graph holds the tasks of `rows` consecutive timesteps and the edges between them;
// the first row's inputs come from the previous block, which the barrier between replays
// has completed or, for replays submitted together, the graph's carried edges wait for.
// Task bodies add GraphRun::base to their row, so one block graph runs any block whose rows
// look the same: the same dependence sets (the relation repeats every
// dependence_sets() rows), the same buffer parity, and the same row shapes for its rows and
// the two before it (they decide the edges). Rows of dom and tree change shape, but in every
// pattern offset(t) and offset(t)+width(t) never decrease (docs/spec.md §1), so a block whose
// first and last rows agree has one shape throughout: that O(1) test decides reuse. So
// periodic patterns build one graph (two when the block length does not divide the steps:
// the head block is then shorter), dom and tree also build each block where rows change
// shape.
#pragma once

#include <memory>
#include <vector>

#include "common.h"
#include "taskbench/hazards.h"
#include "tbrt/graph.h"

namespace native {

// What a block task needs besides (row, column): its graph and its inputs.
struct BlockTask {
  GraphRun* run;
  const char** inputs;  // execute_point takes const char**; it does not write them
  std::size_t n;
  // Its output and scratch buffers, fixed as its inputs are (they depend on t mod 2 only):
  // computing them per run took two 64-bit divisions per task.
  char* output;
  char* scratch;
  bool read_elsewhere;  // homed, and a successor has another home (see run_block_task)
};

class BlockGraph {
 public:
  // Tasks, edges and input pointers of rows [base, base + rows) of run's graph. With
  // homes > 0, column i's tasks are homed on worker i * homes / max_width (contiguous
  // column blocks, as MPI ranks own them); with 0 every task goes through the deques.
  BlockGraph(GraphRun& run, taskbench::Hazards& preds, long base, long rows, int homes);

  // Whether this graph is also right for the block [base, base + rows).
  bool fits(long base, long rows) const;
  // How many blocks from `base` on this graph runs alone, up to `end` if it runs every one
  // of them, else 1: replays of it, submitted together, cover [base, end). Its carried
  // edges (a row's waits in the block before) make that safe.
  long replays_to(long base, long end) const;
  tbrt::Graph& graph() { return graph_; }

 private:
  // The shape of rows base-2 ... base+rows-1 if they all have one, else offset -1.
  struct Shape {
    long offset, width;
    bool operator==(const Shape& o) const { return offset == o.offset && width == o.width; }
  };
  Shape uniform_shape(long base, long rows) const;
  // Where to build the block starting at `base` (see block_graph.cc).
  long build_base(long base) const;

  const taskbench::TaskGraph& g_;
  long rows_, period_, base_;
  Shape shape_;
  std::vector<const char*> inputs_;  // pointers into the column buffers, per task
  std::vector<BlockTask> tasks_;     // node args
  tbrt::Graph graph_;
};

// One task graph's sequence of blocks: a head block of 2 to rows+1 timesteps (the remainder),
// then blocks of `rows`; a small cache of block graphs (the steady one, plus those for rows
// that change shape in dom and tree).
class BlockSchedule {
 public:
  BlockSchedule(GraphRun& run, long block_rows, int homes);

  bool done() const { return next_base_ >= run_.buffers.graph().timesteps(); }
  // What to submit next: `graph` replayed `replays` times, block r (0-based) starting at
  // run.base + r * rows (its tasks get row + r * rows: Runtime::submit's i_step).
  struct Block {
    tbrt::Graph& graph;
    long replays, rows;
  };
  // Sets run.base to the next block and returns a graph for it, built only if no cached
  // one fits; with homes, also the blocks after it that replay the same graph (all of the
  // rest, on a graph whose rows repeat). Call between submits only.
  Block next();

  long block_rows() const { return rows_; }
  // Length of the first block: the remainder of the steps, so the others are all full.
  static long head_rows(long steps, long rows);
  long replays() const { return replays_; }
  long builds() const { return builds_; }
  long submits() const { return submits_; }  // one barrier each

 private:
  static constexpr std::size_t kCached = 3;
  GraphRun& run_;
  taskbench::Hazards preds_;  // built once per graph (it checks the pattern's symmetry)
  long rows_, head_;
  int homes_;
  long next_base_ = 0, replays_ = 0, builds_ = 0, submits_ = 0;
  std::vector<std::unique_ptr<BlockGraph>> cache_;  // most recently used first
};

// Rows per block for a graph: a multiple of the period after which rows repeat (dependence
// sets, and 2 for the buffer parity), long enough that the barrier per replay is cheap,
// short enough that building the block (which is timed) is too; homed on a graph whose rows
// all have one shape, replays need no barrier and one period is best. See block_graph.cc.
long choose_block_rows(const taskbench::TaskGraph& g, bool homed);

}  // namespace native
