// A persistent pool of worker threads for large calls. No Python here.
#ifndef ELTWISE_CORE_THREAD_POOL_H_
#define ELTWISE_CORE_THREAD_POOL_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace eltwise {

class ThreadPool {
 public:
  using Task = void (*)(void* ctx, int index);

  // The process-wide pool.
  static ThreadPool& Get();

  // Sets the number of threads that run tasks (the caller counts as one).
  void SetThreads(int n);
  int threads() const { return threads_; }

  // Runs task(ctx, i) for i in [0, count), the caller taking i == 0;
  // returns when all are done. If another caller is using the pool, or
  // count exceeds threads(), runs every task on the calling thread instead.
  void Run(int count, Task task, void* ctx);

  ~ThreadPool();

 private:
  ThreadPool();
  void Stop();
  void WorkerLoop(int index, uint64_t seen);
  // Waits (spinning first) until generation_ differs from `seen`; false when
  // the pool is stopping.
  bool AwaitCall(uint64_t seen);

  int threads_ = 1;
  std::vector<std::thread> workers_;
  std::mutex run_mutex_;  // one Run at a time

  // A call: published by the release store to generation_.
  Task task_ = nullptr;
  void* ctx_ = nullptr;
  int count_ = 0;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> pending_{0};

  // Sleeping workers, for wake-ups after a spin ran out.
  std::mutex mutex_;
  std::condition_variable wake_;
  int sleepers_ = 0;
  std::atomic<bool> stopping_{false};
};

// The CPUs this process may run on.
int AvailableCpus();

}  // namespace eltwise

#endif  // ELTWISE_CORE_THREAD_POOL_H_
