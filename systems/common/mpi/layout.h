// Which rank owns which column: contiguous blocks of the graph's max width, the first
// (width mod ranks) ranks one column longer. Columns never move, so a row that is narrower than
// the graph (dom, tree) simply leaves some ranks idle at that timestep, and ranks beyond the
// width own nothing at all.
#pragma once

#include <algorithm>

namespace taskbench_mpi {

class Layout {
 public:
  Layout(long width, long ranks) : base_(width / ranks), extra_(width % ranks) {}

  long first(long rank) const { return rank * base_ + std::min(rank, extra_); }
  long end(long rank) const { return first(rank + 1); }
  int owner(long column) const {
    const long cut = extra_ * (base_ + 1);  // columns held by the longer blocks
    return static_cast<int>(column < cut ? column / (base_ + 1) : extra_ + (column - cut) / base_);
  }

 private:
  long base_, extra_;
};

}  // namespace taskbench_mpi
