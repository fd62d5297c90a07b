// The units of work of one call shared by the thread pool's threads
// (core/execute.cc's calls, core/fused.cc's runs), claimed in batches from
// both ends. No Python here.
#ifndef ELTWISE_CORE_CLAIMS_H_
#define ELTWISE_CORE_CLAIMS_H_

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "core/thread_pool.h"

namespace eltwise {

// The batches of a split call, claimed from both ends: the calling thread
// takes them from the front, the pool's workers from the back. A batch is a
// thread's whole share (units / tasks, rounded down; a remainder makes one
// more, shorter batch, taken by whichever thread is free first), so a call
// costs each thread one claim (an atomic on a line the threads share), and a
// call made again on the same operands (a loop) gives each thread the same
// part as the last time, still in that core's cache. (With smaller batches the
// point where the two ends meet moves from call to call, and with it cache
// lines between the cores: docs/benchmarks.md, the threads goal.)
// A late thread costs at most its share: the thread that finishes first
// takes the next batch from its end, the late thread's share whole, and the
// late thread then finds none left. Every batch runs once, on one thread,
// whatever the order: the same results for any thread count.
class Claims {
 public:
  // Before the call is shared: units [0, units) for `tasks` threads, a batch
  // of at least one unit a thread, at most kMaxBatches batches so that both
  // ends fit one atomic word.
  void Reset(int64_t units, int tasks) {
    units_ = units;
    batch_ = std::max<int64_t>(1, units / tasks);
    batch_ = std::max(batch_, (units + kMaxBatches - 1) / kMaxBatches);
    ends_.store(static_cast<uint64_t>((units + batch_ - 1) / batch_) << 32);
  }
  // The next batch for the calling thread, its units [*begin, *end); false
  // when none is left.
  bool Next(int64_t* begin, int64_t* end) {
    const bool back = ThreadPool::OnWorker();
    uint64_t r = ends_.load(std::memory_order_relaxed);
    for (;;) {
      const uint64_t front = r & 0xffffffffu, last = r >> 32;
      if (front >= last) return false;
      const uint64_t taken = back ? r - (uint64_t{1} << 32) : r + 1;
      if (ends_.compare_exchange_weak(r, taken, std::memory_order_relaxed)) {
        const int64_t i = static_cast<int64_t>(back ? last - 1 : front);
        *begin = i * batch_;
        *end = std::min(units_, *begin + batch_);
        return true;
      }
    }
  }

 private:
  static constexpr int64_t kMaxBatches = int64_t{1} << 30;
  int64_t units_ = 0;
  int64_t batch_ = 1;
  std::atomic<uint64_t> ends_{0};  // the first batch left (low half), one past the last (high)
};

}  // namespace eltwise

#endif  // ELTWISE_CORE_CLAIMS_H_
