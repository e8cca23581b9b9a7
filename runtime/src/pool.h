// Per-worker free lists of fixed-size objects (tasks, edges).
//
// Allocation and free are a few instructions on a worker-private list. Objects
// freed on another thread than the one that allocated them (producer/consumer
// patterns) make lists drift, so a list that grows past 2 batches hands one
// batch to a shared stash, and an empty list refills from it: the shared mutex
// is taken once per kBatch objects at most.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace tbrt::detail {

struct FreeObj {
  FreeObj* next;
};

class GlobalPool {
 public:
  static constexpr std::size_t kBatch = 256;

  // Objects are `size` bytes rounded up to `align` (a cache line for tasks, so
  // two tasks run by different workers never share one).
  GlobalPool(std::size_t size, std::size_t align)
      : size_((size + align - 1) / align * align), align_(align) {}

  FreeObj* take_batch() {
    std::lock_guard<std::mutex> g(m_);
    if (!batches_.empty()) {
      FreeObj* b = batches_.back();
      batches_.pop_back();
      return b;
    }
    // New slab of kBatch objects, linked in address order.
    slabs_.emplace_back(new char[size_ * kBatch + align_]);
    char* base = slabs_.back().get();
    base += (align_ - reinterpret_cast<std::uintptr_t>(base) % align_) % align_;
    for (std::size_t k = 0; k < kBatch; ++k)
      reinterpret_cast<FreeObj*>(base + k * size_)->next =
          k + 1 < kBatch ? reinterpret_cast<FreeObj*>(base + (k + 1) * size_) : nullptr;
    return reinterpret_cast<FreeObj*>(base);
  }

  void give_batch(FreeObj* list) {
    std::lock_guard<std::mutex> g(m_);
    batches_.push_back(list);
  }

  // Free from a thread without a worker (rare: a TaskHandle dropped there).
  void give_one(void* p) {
    std::lock_guard<std::mutex> g(m_);
    auto* f = static_cast<FreeObj*>(p);
    f->next = loose_;
    loose_ = f;
    if (++loose_count_ == kBatch) {
      batches_.push_back(loose_);
      loose_ = nullptr;
      loose_count_ = 0;
    }
  }

 private:
  std::mutex m_;
  std::size_t size_, align_;
  std::vector<FreeObj*> batches_;  // each a list of exactly kBatch objects
  std::vector<std::unique_ptr<char[]>> slabs_;
  FreeObj* loose_ = nullptr;
  std::size_t loose_count_ = 0;
};

class LocalPool {
 public:
  void init(GlobalPool* g) { global_ = g; }

  void* alloc() {
    if (!head_) {
      head_ = global_->take_batch();
      count_ = GlobalPool::kBatch;
    }
    FreeObj* p = head_;
    head_ = p->next;
    --count_;
    return p;
  }

  void free(void* p) {
    auto* f = static_cast<FreeObj*>(p);
    f->next = head_;
    head_ = f;
    if (++count_ == 2 * GlobalPool::kBatch) spill();
  }

 private:
  void spill() {
    FreeObj* cut = head_;
    for (std::size_t k = 1; k < GlobalPool::kBatch; ++k) cut = cut->next;
    FreeObj* rest = cut->next;
    cut->next = nullptr;
    global_->give_batch(head_);
    head_ = rest;
    count_ = GlobalPool::kBatch;
  }

  GlobalPool* global_ = nullptr;
  FreeObj* head_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace tbrt::detail
