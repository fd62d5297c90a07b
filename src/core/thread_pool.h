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
  // Waits for a Run in progress. Workers already started are kept while the
  // calling thread's affinity mask is the one they were started under: those
  // beyond n - 1 park (asleep, joining no call) until a later SetThreads
  // needs them again, so that switching between thread counts starts no
  // thread. Otherwise (a new mask) they are stopped. Missing workers start
  // on the next Run.
  void SetThreads(int n);
  int threads() const { return threads_.load(std::memory_order_relaxed); }

  // True on the pool's worker threads, false on every other thread (a
  // caller's): a task uses it to give the caller and the workers work from
  // opposite ends (core/claims.h).
  static bool OnWorker();

  // Runs task(ctx) on the calling thread and on every worker that joins in
  // time; returns once no thread is inside it. A worker that is late (its
  // core busy elsewhere, or asleep) finds the work taken and leaves: the
  // caller never waits for a thread that is not running. If another caller
  // holds the pool, the task runs on the calling thread alone. Starts the
  // workers when they are not running (first call, after SetThreads, after a
  // fork).
  //
  // A worker idle for a call spins for kSpin, then dozes (sleeps in steps of
  // kDozeStep, looking for a call after each) until kDoze has passed, then
  // sleeps until woken. Waking a worker is a system call that costs the
  // caller more than 10 us on a virtual machine, and the woken worker joins
  // tens of microseconds later. So a call wakes dozing and sleeping workers
  // only when `wake` says it is long enough to repay that; a shorter call is
  // shared by the workers that spin, is seen by a dozing worker at its next
  // step (which then spins again), and wakes sleeping workers only when it
  // follows the last call within kLoopGap: a loop of short calls pays one
  // wake-up, an isolated short call none.
  void Run(Task task, void* ctx, bool wake);

  // The Runs so far that offered their call to the workers (not those run on
  // the calling thread alone: one thread, no workers, or the pool held by
  // another caller). Whether a call split is visible through it, for tests
  // and the benchmarks' threads goal (eltwise._eltwise._shared_calls).
  uint64_t shared_calls() const { return shared_.load(std::memory_order_relaxed); }

 private:
  ThreadPool();
  void StartWorkers();
  void StopWorkers();
  // In a forked child: forgets the parent's workers and locks.
  void ResetAfterFork();
  void WorkerLoop(uint64_t seen, int index);
  // Whether worker `index` may join calls at the current thread count.
  bool Active(int index) const {
    return index < threads_.load(std::memory_order_relaxed) - 1;
  }
  // Waits (spinning unless `spin` is false, then dozing, then asleep) until
  // generation_ differs from `seen`; false when the pool is stopping.
  bool AwaitCall(uint64_t seen, bool spin);

  std::atomic<int> threads_{1};  // read by callers without run_mutex_
  // Guarded by run_mutex_: the workers (the first threads_ - 1 of them join
  // calls, the others park), whether StartWorkers ran for the current count,
  // and the affinity mask of the thread that started them (a copy of a
  // cpu_set_t, empty where unknown).
  std::vector<std::thread> workers_;
  bool started_ = false;
  std::vector<unsigned char> start_mask_;
  std::mutex run_mutex_;  // one Run (or SetThreads) at a time

  // Three cache lines, each written by one side per call: a write to a
  // line another core reads moves the line between the cores' caches (a
  // miss on each side, measured: docs/benchmarks.md), so the line a spinning
  // worker polls holds only what the caller writes once per call.
  //   The call, written by the caller before it advances generation_ (the
  //   release publishes it), read by joining workers: task_ and ctx_ are
  //   published by the store to open_; last_run_ and caller_cpu_ are
  //   written on every Run too.
  alignas(64) Task task_ = nullptr;
  void* ctx_ = nullptr;
  std::atomic<bool> open_{false};  // workers may still join
  // When the last Run started (steady_clock nanoseconds), for kLoopGap.
  std::atomic<int64_t> last_run_{0};
  // The CPU the last Run's caller ran on (-2 where unknown): no worker spins
  // there.
  std::atomic<int> caller_cpu_{-2};
  std::atomic<uint64_t> shared_{0};  // shared_calls(); written under run_mutex_
  //   What a spinning worker polls: written once per call (and once to stop).
  alignas(64) std::atomic<uint64_t> generation_{0};  // calls so far: wakes the workers
  std::atomic<bool> stopping_{false};
  //   Written by the workers as they join and leave, polled by the caller.
  alignas(64) std::atomic<int> inside_{0};  // workers inside task_

  // Dozing and sleeping workers not yet woken, for wake-ups after a spin ran
  // out; guarded by mutex_. A wake-up zeroes both counts and advances
  // wakes_, so that the calls made before the woken workers run (tens of
  // microseconds or more on a virtual machine) do not wake them again; a
  // worker that leaves its wait with wakes_ unchanged takes itself off.
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable park_;  // parked workers wait here for SetThreads
  int dozers_ = 0;
  int sleepers_ = 0;
  uint64_t wakes_ = 0;
};

// The CPUs this process may run on.
int AvailableCpus();

}  // namespace eltwise

#endif  // ELTWISE_CORE_THREAD_POOL_H_
