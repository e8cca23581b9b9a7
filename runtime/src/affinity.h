// Thread pinning helpers (Linux; no-ops elsewhere).
#pragma once

#include <vector>

namespace tbrt::detail {

std::vector<int> allowed_cpus();  // CPUs this process may run on, at least one entry
bool pin_current_thread(int cpu);
// Opaque copy of the calling thread's CPU mask, to restore it later.
std::vector<unsigned char> save_affinity();
void restore_affinity(const std::vector<unsigned char>& saved);

}  // namespace tbrt::detail
