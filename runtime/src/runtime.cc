// Runtime construction, threads, statistics; the public API forwards here.
#include "tbrt/runtime.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "affinity.h"
#include "impl.h"

namespace tbrt {
namespace detail {

Impl::Impl(const Options& o) : opts_(o) {
  cpus_ = allowed_cpus();
  const int n = o.num_workers > 0 ? o.num_workers : int(cpus_.size());
  opts_.num_workers = n;
  if (n >= (1 << kActiveBits)) {
    std::fprintf(stderr, "tbrt: too many workers\n");
    std::abort();
  }
  fifo_ = o.queue == QueueMode::kFifo;
  depth_first_ = o.depth_first && !fifo_;  // FIFO is the breadth-first baseline
  measure_ = o.measure;
  // Pinning only helps when every worker has a core; oversubscribed, the OS
  // must be free to move threads around.
  pinned_ = o.pin == 1 || (o.pin == -1 && n <= int(cpus_.size()));
  owner_ = std::this_thread::get_id();
  for (int k = 0; k < n; ++k) {
    auto w = std::make_unique<Worker>();
    w->rt = this;
    w->id = k;
    w->rng = 0x9e3779b97f4a7c15ull * std::uint64_t(k + 1);
    w->task_pool.init(&task_global_);
    w->edge_pool.init(&edge_global_);
    workers_.push_back(std::move(w));
  }
  // The threads start active and go idle (and flush) as they find nothing; the owner
  // counts itself in once they all did, as at the end of wait().
  state_.store(n - 1, std::memory_order_relaxed);
  saved_tls_ = tls_worker;
  tls_worker = workers_[0].get();
  if (pinned_) {
    main_affinity_ = save_affinity();
    saved_affinity_ = pin_current_thread(cpus_[0]);
  }
  window_start_ = window_end_ = ticks();
  for (int k = 1; k < n; ++k)
    workers_[k]->thread = std::thread([this, k] {
      if (pinned_) pin_current_thread(cpus_[std::size_t(k) % cpus_.size()]);
      thread_main(k);
    });
  // Until every thread has gone idle once, its start-up writes race with the
  // owner (e.g. reset_stats()); after, state_ orders them. The last one to go idle
  // wakes us (go_idle): on a busy machine they may need this core to start at all.
  for (Backoff backoff(no_yield_until_); state_.load(std::memory_order_acquire) != 0;) {
    if (backoff.keep_polling()) continue;
    const std::uint32_t seen = parking_.prepare();
    if (state_.load(std::memory_order_seq_cst) == 0) {
      parking_.cancel();
      break;
    }
    parking_.sleep(seen, backoff.next_sleep_us());
  }
  state_.fetch_add(1, std::memory_order_acq_rel);
}

Impl::~Impl() {
  stop_.store(true, std::memory_order_seq_cst);
  parking_.wake_all();
  for (auto& w : workers_)
    if (w->thread.joinable()) w->thread.join();
  if (saved_affinity_) restore_affinity(main_affinity_);
  tls_worker = saved_tls_;
}

Worker& Impl::caller() {
  Worker* w = current();
  if (!w) {
    std::fprintf(stderr, "tbrt: called from a thread that is not one of this runtime's workers\n");
    std::abort();
  }
  return *w;
}

}  // namespace detail

Runtime::Runtime(const Options& opts) : impl_(std::make_unique<detail::Impl>(opts)) {}
Runtime::~Runtime() = default;

int Runtime::num_workers() const { return impl_->opts_.num_workers; }
const Options& Runtime::options() const { return impl_->opts_; }
bool Runtime::pinned() const { return impl_->pinned_; }

int Runtime::worker_id() const {
  detail::Worker* w = impl_->current();
  return w ? w->id : -1;
}

void Runtime::wait() { impl_->wait(); }

void Runtime::submit(Graph& g, std::uint32_t replays, std::int64_t i_step) {
  if (!g.finalized_) g.finalize();
  if (replays == 0) return;
  if (replays > 1 && !g.all_homed_)
    throw std::invalid_argument("tbrt::Runtime::submit: replays > 1 need every node homed");
  detail::Impl& rt = *impl_;
  detail::Worker& w = rt.caller();
  const std::uint64_t t0 = rt.measure_discovery(w) ? ticks() : 0;
  // The whole graph is discovered at once: one local add, no per-node work.
  w.discovered += std::int64_t(g.size()) * replays;
  const std::uint32_t replay = g.replays_ + 1;
  g.replays_ += replays;
  if (!g.home_begin_.empty()) {
    for (std::size_t h = 0; h + 1 < g.home_begin_.size(); ++h)
      if (g.home_begin_[h] < g.home_begin_[h + 1]) {
        const detail::HomeEntry* begin = g.home_entries_.data() + g.home_begin_[h];
        rt.publish_home_run(int(h), detail::HomeRun{begin, begin, g.home_entries_.data() + g.home_begin_[h + 1],
                                                    g.home_preds_.data(), replay, 0, replays - 1, 0, i_step});
      }
    rt.wake_for_home_runs();
  }
  // Reverse order: the owner pops the newest, so root 0 runs first here while
  // thieves take from the other end.
  for (auto r = g.roots_.rbegin(); r != g.roots_.rend(); ++r) rt.make_ready(w, *r);
  if (t0) rt.add_discovery(w, t0);
}

Stats Runtime::stats() const {
  Stats s;
  const double tps = ticks_per_second();
  s.elapsed = double(impl_->window_end_ - impl_->window_start_) / tps;
  for (const auto& w : impl_->workers_) {
    ThreadStats t;
    t.work = double(w->work) / tps;
    t.overhead = double(w->overhead) / tps;
    t.discovery = double(w->discovery) / tps;
    t.idle = std::max(0.0, s.elapsed - t.work - t.overhead - t.discovery);
    t.tasks = w->tasks;
    t.steals = w->steals;
    s.threads.push_back(t);
  }
  return s;
}

void Runtime::reset_stats() {
  for (auto& w : impl_->workers_) w->work = w->overhead = w->discovery = w->tasks = w->steals = 0;
  impl_->window_start_ = impl_->window_end_ = ticks();
}

}  // namespace tbrt
