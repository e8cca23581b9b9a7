#include "affinity.h"

#include <algorithm>
#include <cstring>
#include <thread>

#ifdef __linux__
#include <pthread.h>
#include <sched.h>
#endif

namespace tbrt::detail {

#ifdef __linux__
std::vector<int> allowed_cpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
  if (cpus.empty()) cpus.push_back(0);
  return cpus;
}

bool pin_current_thread(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

std::vector<unsigned char> save_affinity() {
  cpu_set_t set;
  if (pthread_getaffinity_np(pthread_self(), sizeof set, &set) != 0) return {};
  std::vector<unsigned char> v(sizeof set);
  std::memcpy(v.data(), &set, sizeof set);
  return v;
}

void restore_affinity(const std::vector<unsigned char>& saved) {
  cpu_set_t set;
  if (saved.size() != sizeof set) return;
  std::memcpy(&set, saved.data(), sizeof set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}
#else
std::vector<int> allowed_cpus() {
  std::vector<int> cpus(std::max(1u, std::thread::hardware_concurrency()));
  for (std::size_t c = 0; c < cpus.size(); ++c) cpus[c] = int(c);
  return cpus;
}
bool pin_current_thread(int) { return false; }
std::vector<unsigned char> save_affinity() { return {}; }
void restore_affinity(const std::vector<unsigned char>&) {}
#endif

}  // namespace tbrt::detail
