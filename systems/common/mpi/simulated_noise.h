// OS noise on a simulated platform (docs/simulation.md, "Sensitivities"): detours that stop a
// core now and then, as a daemon, an interrupt or a page fault does on a real node. A platform
// switches it on with two host properties of its cluster:
//   taskbench_noise_rate     detours per second on a node (each lands on one of its cores)
//   taskbench_noise_seconds  the length of one detour
// Each core (a rank) draws its own detours, a Poisson process seeded by its rank, so a run is
// still deterministic. A detour that falls while a task computes makes it that much longer; one
// that falls while the rank waits in MPI costs nothing (the core was idle), which is the
// mechanism that makes noise grow with the rank count: a step waits for its latest rank.
#pragma once

#include <simgrid/host.h>

#include <string>

namespace taskbench_mpi {

class SimulatedNoise {
 public:
  // Reads the host's properties; "" or why they are malformed. Without them it adds nothing.
  std::string configure(const_sg_host_t host, long rank);

  // Seconds of detours that land in a burst of `busy` seconds of work starting at `start`
  // (simulated time), counting the detours that land in the stretched burst too.
  double delay(double start, double busy);

  bool active() const { return rate_per_core_ > 0.0 && seconds_ > 0.0; }
  double rate_per_node() const { return rate_per_node_; }
  double seconds() const { return seconds_; }

 private:
  double draw_gap();

  double rate_per_node_ = 0.0;
  double rate_per_core_ = 0.0;
  double seconds_ = 0.0;
  double next_ = 0.0;  // simulated time of this core's next detour
  unsigned long long state_ = 0;  // the generator's (splitmix64: the same stream with any library)
};

}  // namespace taskbench_mpi
