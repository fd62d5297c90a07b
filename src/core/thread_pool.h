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
  // A call's work: every thread that joins runs task(ctx), which claims
  // pieces of the work (an atomic counter in ctx) until none are left.
  using Task = void (*)(void* ctx);

  // The process-wide pool; never destroyed (joining threads during
  // interpreter shutdown can hang).
  static ThreadPool& Get();

  // Sets the number of threads that run tasks (the caller counts as one).
  // Waits for a Run in progress; the workers start on the next Run.
  void SetThreads(int n);
  int threads() const { return threads_.load(std::memory_order_relaxed); }

  // Runs task(ctx) on the calling thread and on every worker that wakes in
  // time; returns once no thread is inside it. A worker that is late (its
  // core busy elsewhere) finds the work taken and leaves: the caller never
  // waits for a thread that is not running. If another caller holds the
  // pool, the task runs on the calling thread alone. Starts the workers
  // when they are not running (first call, after SetThreads, after a fork).
  void Run(Task task, void* ctx);

 private:
  ThreadPool();
  void StartWorkers();
  void StopWorkers();
  // In a forked child: forgets the parent's workers and locks.
  void ResetAfterFork();
  void WorkerLoop(uint64_t seen);
  // Waits (spinning first) until generation_ differs from `seen`; false when
  // the pool is stopping.
  bool AwaitCall(uint64_t seen);

  std::atomic<int> threads_{1};  // read by callers without run_mutex_
  // Guarded by run_mutex_: the workers, and whether this process started them.
  std::vector<std::thread> workers_;
  bool started_ = false;
  std::mutex run_mutex_;  // one Run (or SetThreads) at a time

  // The call: task_ and ctx_ are published by the store to open_.
  Task task_ = nullptr;
  void* ctx_ = nullptr;
  std::atomic<bool> open_{false};      // workers may still join
  std::atomic<int> inside_{0};         // workers inside task_
  std::atomic<uint64_t> generation_{0};  // calls so far: wakes the workers

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
