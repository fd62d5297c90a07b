#include "core/thread_pool.h"

#include <sched.h>

namespace eltwise {

int AvailableCpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  const unsigned hc = std::thread::hardware_concurrency();
  return hc ? static_cast<int>(hc) : 1;
}

ThreadPool& ThreadPool::Get() {
  // Leaked on purpose: joining threads during interpreter shutdown can hang.
  static ThreadPool* pool = new ThreadPool();
  return *pool;
}

ThreadPool::ThreadPool() { SetThreads(AvailableCpus()); }

ThreadPool::~ThreadPool() { Stop(); }

void ThreadPool::Stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& w : workers_) w.join();
  workers_.clear();
  stopping_ = false;
}

void ThreadPool::SetThreads(int n) {
  std::lock_guard<std::mutex> run_lock(run_mutex_);
  if (n < 1) n = 1;
  if (n == threads_ && static_cast<int>(workers_.size()) == n - 1) return;
  Stop();
  threads_ = n;
  // Workers start from the current call count (no Run is in progress: we hold
  // run_mutex_), so none re-runs an old call or misses the next one.
  for (int i = 1; i < n; ++i) workers_.emplace_back(&ThreadPool::WorkerLoop, this, i, generation_);
}

void ThreadPool::WorkerLoop(int index, uint64_t seen) {
  for (;;) {
    Task task;
    void* ctx;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      if (index >= count_) continue;
      task = task_;
      ctx = ctx_;
    }
    task(ctx, index);
    std::lock_guard<std::mutex> lock(mutex_);
    if (--pending_ == 0) done_.notify_one();
  }
}

void ThreadPool::Run(int count, Task task, void* ctx) {
  std::unique_lock<std::mutex> run_lock(run_mutex_, std::try_to_lock);
  if (!run_lock.owns_lock() || count <= 1 || count > threads_) {
    for (int i = 0; i < count; ++i) task(ctx, i);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    task_ = task;
    ctx_ = ctx;
    count_ = count;
    pending_ = count - 1;
    ++generation_;
  }
  wake_.notify_all();
  task(ctx, 0);
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [&] { return pending_ == 0; });
}

}  // namespace eltwise
