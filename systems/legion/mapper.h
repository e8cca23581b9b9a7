// The mapper of the paper's Legion port: each point task runs on the processor its slice was
// given (the default mapper's block slicing over the local CPUs), never on another idle CPU.
// Without it the default mapper offers every local CPU to every point (README.md, "Mapper").
#pragma once

namespace taskbench_legion {

// Before Runtime::start: every processor's default mapper is replaced by the pinning one.
void register_pinned_mapper();

}  // namespace taskbench_legion
