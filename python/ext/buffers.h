// Borrowing the memory of Python objects (bytes, bytearray, memoryview, numpy arrays, ...)
// through the buffer protocol, so a task's inputs and output reach the core without a copy.
#pragma once

#include <Python.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace taskbench_py {

// One borrowed buffer, released when it goes out of scope (the object cannot be resized or
// freed while it is held, which is what makes passing its pointer to the core safe).
class Borrowed {
 public:
  Borrowed() = default;
  Borrowed(const Borrowed&) = delete;
  Borrowed& operator=(const Borrowed&) = delete;
  ~Borrowed() {
    if (held_) PyBuffer_Release(&view_);
  }

  // Returns false with a Python exception set (TypeError, BufferError) when the object has
  // no contiguous buffer, or no writable one when `writable`.
  bool acquire(PyObject* object, bool writable) {
    const int flags = PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(object, &view_, flags) != 0) return false;
    held_ = true;
    return true;
  }
  char* data() const { return static_cast<char*>(view_.buf); }
  size_t size() const { return static_cast<size_t>(view_.len); }

 private:
  Py_buffer view_{};
  bool held_ = false;
};

// The inputs of one task: a list or tuple of buffers. Most tasks have a few inputs; a fixed
// array of that many avoids a heap allocation per task.
class BorrowedList {
 public:
  static constexpr size_t kInline = 16;

  // Returns false with a Python exception set when `sequence` is not a list/tuple of buffers.
  bool acquire(PyObject* sequence) {
    PyObject* fast = PySequence_Fast(sequence, "inputs must be a list or tuple of buffers");
    if (fast == nullptr) return false;
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    PyObject** items = PySequence_Fast_ITEMS(fast);
    on_heap_ = static_cast<size_t>(n) > kInline;
    if (on_heap_) {
      heap_ = std::vector<Borrowed>(static_cast<size_t>(n));
      pointers_heap_.resize(static_cast<size_t>(n));
      sizes_heap_.resize(static_cast<size_t>(n));
    }
    Borrowed* held = on_heap_ ? heap_.data() : inline_;
    const char** pointers = this->pointers();
    size_t* sizes = this->sizes();
    bool ok = true;
    for (Py_ssize_t k = 0; k < n && ok; ++k) {
      ok = held[k].acquire(items[k], false);
      if (ok) {
        pointers[k] = held[k].data();
        sizes[k] = held[k].size();
      }
    }
    Py_DECREF(fast);  // the items stay alive: each is held by its buffer export
    count_ = static_cast<size_t>(n);
    return ok;
  }
  size_t count() const { return count_; }
  const char** pointers() { return on_heap_ ? pointers_heap_.data() : pointers_; }
  size_t* sizes() { return on_heap_ ? sizes_heap_.data() : sizes_; }

 private:
  Borrowed inline_[kInline];
  const char* pointers_[kInline];
  size_t sizes_[kInline];
  std::vector<Borrowed> heap_;
  std::vector<const char*> pointers_heap_;
  std::vector<size_t> sizes_heap_;
  size_t count_ = 0;
  bool on_heap_ = false;
};

}  // namespace taskbench_py
