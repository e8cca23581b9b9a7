#include "session.h"

#if defined(SMPI_H)
#include "simulation.h"
#endif

#include <unistd.h>

#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

// The build gives each copy of this code one implementation's include path; make a mix-up (an
// mpi.h from the other MPI earlier on the path) a compile error instead of a crash at run time.
#if defined(TASKBENCH_MPI_FLAVOR_openmpi) && !defined(OPEN_MPI)
#error "built as the Open MPI variant, but mpi.h is not Open MPI's"
#endif
#if defined(TASKBENCH_MPI_FLAVOR_mpich) && !defined(MPICH_VERSION)
#error "built as the MPICH variant, but mpi.h is not MPICH's"
#endif
#if defined(TASKBENCH_MPI_FLAVOR_smpi) && !defined(SMPI_H)
#error "built as the SMPI variant, but mpi.h is not SimGrid's"
#endif

namespace taskbench_mpi {
namespace {

#if defined(SMPI_H)
constexpr const char* kImplementation = "smpi";
constexpr const char* kLauncher = "smpirun";
#elif defined(OPEN_MPI)
constexpr const char* kImplementation = "openmpi";
constexpr const char* kLauncher = "mpirun.openmpi";
#else
constexpr const char* kImplementation = "mpich";
constexpr const char* kLauncher = "mpirun.mpich";
#endif

// The library's version string as a JSON string: first line, quotes and backslashes dropped.
std::string library_version_json() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(text, &length);
  std::string out = "\"";
  for (int k = 0; k < length && text[k] != '\n' && text[k] != '\0'; ++k)
    if (text[k] != '"' && text[k] != '\\' && static_cast<unsigned char>(text[k]) >= 0x20)
      out += text[k];
  while (out.size() > 1 && out.back() == ' ') out.pop_back();
  return out + "\"";
}

constexpr size_t kHostNameBytes = 256;  // HOST_NAME_MAX (64 on Linux) and room beyond it

// A host name as a JSON string (they hold letters, digits, '-' and '.'; anything else escaped).
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\' || c < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out += escaped;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

}  // namespace

taskbench::SystemFlag expect_ranks_flag() {
  return {"-expect-ranks", "N", "fail unless the launch started exactly N MPI ranks", 1};
}

Session::Session(taskbench::App& app, int& argc, char**& argv, int thread_level) : app_(app) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, thread_level, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  const long expected = app.flag("-expect-ranks", 0);
  if (expected != 0 && expected != size_)
    fail("-expect-ranks %ld, but this process is rank %d of a job of %d rank(s): start it with "
         "%s -np %ld (the MPI it was built with)",
         expected, rank_, size_, kLauncher, expected);
  if (provided < thread_level) fail("the MPI library does not provide the thread level needed");
  for (const taskbench::TaskGraph& g : app.graphs())
    if (g.output_bytes() > static_cast<size_t>(INT_MAX))
      fail("-output %zu: at most %d bytes (one MPI message per output)", g.output_bytes(), INT_MAX);
  app.set_rank(rank_);
  app.set_parallelism(size_, 1);
  app.add_report_json("mpi", std::string("\"") + kImplementation + "\"");
  app.add_report_json("mpi_library", library_version_json());
#if defined(SMPI_H)
  const std::string problem = simulate_kernels(app);
  if (!problem.empty()) fail("%s", problem.c_str());
#endif
}

Session::~Session() { MPI_Finalize(); }

void Session::fail(const char* format, ...) const {
  char line[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(line, sizeof line, format, args);
  va_end(args);
  std::fprintf(stderr, "%s: %s\n", app_.options().system.c_str(), line);
  std::fflush(stderr);
  MPI_Finalize();
  std::exit(2);
}

// The ranks and tasks of each host, in the JSON report's "hosts": the proof that a run crossed
// hosts, and how its work was spread (ranks name their host as the OS does).
void Session::report_hosts(long long tasks) const {
  struct Rank {
    char host[kHostNameBytes];
    long long tasks;
  };
  Rank mine{};
#if defined(SMPI_H)  // the simulated host's name (this machine's is every rank's)
  int length = 0;
  static_assert(MPI_MAX_PROCESSOR_NAME <= kHostNameBytes, "a processor name fits");
  MPI_Get_processor_name(mine.host, &length);
#else
  gethostname(mine.host, sizeof mine.host - 1);
#endif
  mine.tasks = tasks;
  std::vector<Rank> all(rank_ == 0 ? size_ : 0);
  MPI_Gather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, 0, MPI_COMM_WORLD);
  if (rank_ != 0) return;
  std::map<std::string, std::pair<int, long long>> hosts;  // name -> ranks, tasks
  for (const Rank& r : all) {
    auto& [ranks, sum] = hosts[r.host];
    ++ranks;
    sum += r.tasks;
  }
  std::string json = "{";
  for (const auto& [name, counts] : hosts)
    json += (json.size() > 1 ? "," : "") + quoted(name) + ":{\"ranks\":" +
            std::to_string(counts.first) + ",\"tasks\":" + std::to_string(counts.second) + "}";
  app_.add_report_json("hosts", json + "}");
}

void Session::report(double elapsed) const {
  // Per graph: tasks executed, then last-timestep outputs checked, summed in one reduction. An
  // all-reduce, not a reduce onto rank 0: no rank goes on to MPI_Finalize before every rank has
  // checked its last row. Open MPI 4.1's mpirun crashes (PMIx_server_finalize) or hangs in 1 of 4
  // jobs whose rank fails while others are finalizing; blocked in a collective, they are killed.
  const size_t n = app_.graphs().size();
  std::vector<long long> local(2 * n), total(2 * n, 0);
  for (const taskbench::TaskGraph& g : app_.graphs()) {
    local[g.index()] = app_.local_executed(g.index());
    local[n + g.index()] = app_.local_last_row_checked(g.index());
  }
  MPI_Allreduce(local.data(), total.data(), static_cast<int>(local.size()), MPI_LONG_LONG, MPI_SUM,
                MPI_COMM_WORLD);
  report_hosts(std::accumulate(local.begin(), local.begin() + n, 0LL));
  app_.report(elapsed, std::vector<long long>(total.begin(), total.begin() + n),
              std::vector<long long>(total.begin() + n, total.end()));
}

}  // namespace taskbench_mpi
