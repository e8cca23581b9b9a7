#include "ledger.h"

#include <algorithm>
#include <ctime>

namespace ompt_breakdown {

std::int64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

int Regions::begin(std::int64_t t) {
  // A CAS, not a plain increment: several root threads may start regions; past kMax the
  // count stays put.
  int id = count_.load(std::memory_order_relaxed);
  do {
    if (id >= kMax) return -1;
  } while (!count_.compare_exchange_weak(id, id + 1, std::memory_order_relaxed));
  slots_[id].end.store(0, std::memory_order_relaxed);
  // Workers learn the id through the runtime's fork, which orders this store before them.
  slots_[id].begin.store(t, std::memory_order_release);
  return id;
}

void Regions::end(int id, std::int64_t t) { slots_[id].end.store(t, std::memory_order_release); }

double Regions::elapsed_seconds(std::int64_t now) const {
  std::int64_t ns = 0;
  for (int id = 0; id < count(); ++id) {
    const std::int64_t b = begin_of(id), e = end_of(id);
    if (b != 0) ns += (e != 0 ? e : now) - b;  // 0: a region starting this very moment
  }
  return 1e-9 * double(ns);
}

void Ledger::charge(const Regions& regions, std::int64_t t) {
  const int r = region_.load(std::memory_order_relaxed);
  if (r < 0) return;
  const std::int64_t end = regions.end_of(r);
  if (end != 0 && t > end) t = end;  // a worker hears of its region's end late: stop there
  const std::int64_t mark = mark_.load(std::memory_order_relaxed);
  if (t <= mark) return;
  std::atomic<std::int64_t>& slot = ns_[part_.load(std::memory_order_relaxed)];
  slot.store(slot.load(std::memory_order_relaxed) + (t - mark), std::memory_order_relaxed);
  mark_.store(t, std::memory_order_relaxed);
}

void Ledger::join(const Regions& regions, int id, std::int64_t t) {
  charge(regions, t);
  region_.store(id, std::memory_order_relaxed);
  mark_.store(regions.begin_of(id), std::memory_order_relaxed);
  depth_ = 1;
  stack_[0] = kOverhead;
  publish_top();
}

void Ledger::leave(const Regions& regions, std::int64_t t) {
  charge(regions, t);
  depth_ = 1;
  publish_top();
}

void Ledger::push(const Regions& regions, Part part, std::int64_t t) {
  charge(regions, t);
  if (depth_ < kDepth) stack_[depth_] = part;
  ++depth_;
  publish_top();
}

void Ledger::pop(const Regions& regions, std::int64_t t) {
  charge(regions, t);
  if (depth_ > 1) --depth_;  // the base (overhead) stays: a stray end cannot empty the stack
  publish_top();
}

taskbench::ThreadBreakdown Ledger::read(const Regions& regions, std::int64_t now) const {
  std::int64_t ns[kParts];
  for (int p = 0; p < kParts; ++p) ns[p] = ns_[p].load(std::memory_order_relaxed);
  const int r = region_.load(std::memory_order_relaxed);
  if (r >= 0) {
    const std::int64_t end = regions.end_of(r);
    const std::int64_t until = end != 0 ? std::min(now, end) : now;
    const std::int64_t mark = mark_.load(std::memory_order_relaxed);
    if (until > mark) ns[part_.load(std::memory_order_relaxed)] += until - mark;
  }
  taskbench::ThreadBreakdown b;
  b.work = 1e-9 * double(ns[kWork]);
  b.overhead = 1e-9 * double(ns[kOverhead]);
  b.idle = 1e-9 * double(ns[kIdle]);
  b.discovery = 1e-9 * double(ns[kDiscovery]);
  b.tasks = tasks_.load(std::memory_order_relaxed);
  b.steals = steals_.load(std::memory_order_relaxed);
  return b;
}

Ledger* Ledgers::add() {
  const int k = count_.fetch_add(1, std::memory_order_relaxed);
  if (k >= kMax) return nullptr;
  Ledger* ledger = new Ledger(k);  // lives as long as the process: the report may come late
  slots_[k].store(ledger, std::memory_order_release);
  return ledger;
}

std::vector<const Ledger*> Ledgers::all() const {
  std::vector<const Ledger*> out;
  const int n = std::min(count_.load(std::memory_order_acquire), kMax);
  for (int k = 0; k < n; ++k)
    if (const Ledger* l = slots_[k].load(std::memory_order_acquire)) out.push_back(l);
  return out;
}

}  // namespace ompt_breakdown
