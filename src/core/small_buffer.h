// Storage for a count of values known at run time, on the stack while it is
// small: per-call state of a short chain allocates nothing.
#ifndef ELTWISE_CORE_SMALL_BUFFER_H_
#define ELTWISE_CORE_SMALL_BUFFER_H_

#include <cstddef>
#include <memory>

namespace eltwise {

// n default-constructed values of T: in the object itself for n <= N, else
// on the heap (new may throw std::bad_alloc).
template <class T, size_t N>
class SmallBuffer {
 public:
  explicit SmallBuffer(size_t n) : p_(n <= N ? inline_ : Allocate(n)) {}
  SmallBuffer(const SmallBuffer&) = delete;
  SmallBuffer& operator=(const SmallBuffer&) = delete;
  T* get() { return p_; }
  T& operator[](size_t i) { return p_[i]; }

 private:
  T* Allocate(size_t n) {
    heap_.reset(new T[n]);
    return heap_.get();
  }
  T inline_[N];
  std::unique_ptr<T[]> heap_;
  T* p_;  // declared last: initialized after inline_ and heap_
};

}  // namespace eltwise

#endif  // ELTWISE_CORE_SMALL_BUFFER_H_
