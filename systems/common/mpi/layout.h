// Which rank owns which column: contiguous blocks of the graph's max width, rank r from column
// floor(r x width / ranks), as the original's MPI ports split them (the later ranks get the
// longer blocks when the width does not divide). Columns never move, so a row that is narrower
// than the graph (dom, tree) simply leaves some ranks idle at that timestep, and ranks beyond
// the width own nothing at all.
#pragma once

namespace taskbench_mpi {

class Layout {
 public:
  Layout(long width, long ranks) : width_(width), ranks_(ranks) {}

  long first(long rank) const { return rank * width_ / ranks_; }
  long end(long rank) const { return first(rank + 1); }
  // The last rank whose block starts at or before the column: r x width < (column + 1) x ranks.
  int owner(long column) const { return static_cast<int>(((column + 1) * ranks_ - 1) / width_); }

 private:
  long width_, ranks_;
};

}  // namespace taskbench_mpi
