#include "core/thread_pool.h"

#include <pthread.h>
#include <sched.h>

#include <chrono>
#include <exception>
#include <new>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define ELTWISE_PAUSE() _mm_pause()
#else
#define ELTWISE_PAUSE() std::this_thread::yield()
#endif

namespace eltwise {
namespace {

// How long an idle worker spins before it dozes. Waking a sleeping thread
// costs tens of microseconds on a virtual machine, more than a whole 1 MB call;
// back-to-back calls find the workers still spinning.
constexpr auto kSpin = std::chrono::microseconds(200);
// A dozing worker sleeps kDozeStep at a time, so a call that wakes no one is
// seen within kDozeStep (plus the timer's slack, 50 us on Linux), and dozes
// for kDoze after its last call: long enough to span a pause of a loop of
// calls (another library's calls, Python work between them), short enough
// that an idle process stops waking up soon.
constexpr auto kDozeStep = std::chrono::microseconds(100);
constexpr auto kDoze = std::chrono::milliseconds(50);
// A call that starts within kLoopGap of the last one is taken as part of a
// loop of calls (Python work between them included), worth one wake-up.
constexpr int64_t kLoopGapNs = 1000000;

// The CPU the calling thread runs on, -1 where unknown.
int CurrentCpu() {
#if defined(__linux__)
  return sched_getcpu();
#else
  return -1;
#endif
}

// Where the calling worker runs on `caller_cpu` (the last caller's CPU, -2
// where unknown), moves it to another CPU its affinity mask allows and leaves
// the mask as it was: the mask without that CPU moves it, the old mask then
// allows every CPU again without moving it back. A worker whose mask has no
// other CPU stays, and stops asking: its mask is the one it started with
// (eltwise never changes it; SetThreads starts new workers).
void LeaveCallerCpu(int caller_cpu) {
#if defined(__linux__)
  thread_local bool one_cpu = false;
  if (one_cpu || caller_cpu < 0) return;
  const int cpu = CurrentCpu();
  if (cpu != caller_cpu || cpu >= CPU_SETSIZE) return;
  cpu_set_t mask, others;
  if (sched_getaffinity(0, sizeof(mask), &mask) != 0) return;
  others = mask;
  CPU_CLR(cpu, &others);
  if (CPU_COUNT(&others) == 0) {
    one_cpu = true;
    return;
  }
  if (sched_setaffinity(0, sizeof(others), &others) == 0) sched_setaffinity(0, sizeof(mask), &mask);
#else
  (void)caller_cpu;
#endif
}

// The calling thread's affinity mask as bytes (empty where unknown).
std::vector<unsigned char> CurrentMask() {
#if defined(__linux__)
  cpu_set_t mask;
  if (sched_getaffinity(0, sizeof(mask), &mask) == 0) {
    const auto* p = reinterpret_cast<const unsigned char*>(&mask);
    return std::vector<unsigned char>(p, p + sizeof(mask));
  }
#endif
  return {};
}

thread_local bool t_on_worker = false;

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

int AvailableCpus() {
#if defined(__linux__)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
#endif  // macOS has no affinity masks: every CPU is available
  const unsigned hc = std::thread::hardware_concurrency();
  return hc ? static_cast<int>(hc) : 1;
}

ThreadPool& ThreadPool::Get() {
  static ThreadPool* pool = new ThreadPool();
  return *pool;
}

namespace {

// The pool, for the fork handler (which must not wait on Get()'s guard).
std::atomic<ThreadPool*> g_pool{nullptr};

// Made while the extension loads, so that no fork can catch its construction
// half done in another thread. Starts no thread.
struct MakeOnLoad {
  MakeOnLoad() { ThreadPool::Get(); }
} g_make_on_load;

}  // namespace

ThreadPool::ThreadPool() : threads_(AvailableCpus()) {
  // Registered once: the pool lives as long as the process.
  pthread_atfork(nullptr, nullptr, [] {
    if (ThreadPool* pool = g_pool.load()) pool->ResetAfterFork();
  });
  g_pool.store(this);
}

void ThreadPool::ResetAfterFork() {
  // Only the forking thread exists in the child: the workers are gone and any
  // lock may be held by a thread that no longer exists. Reuse the storage of
  // the thread objects (joining them hangs, destroying a joinable one
  // terminates), the locks and the condition variable without destroying
  // them: the parent's thread objects are leaked.
  new (&workers_) std::vector<std::thread>();
  new (&run_mutex_) std::mutex();
  new (&mutex_) std::mutex();
  new (&wake_) std::condition_variable();
  new (&park_) std::condition_variable();
  new (&start_mask_) std::vector<unsigned char>();
  started_ = false;  // the next Run starts the child's workers
  task_ = nullptr;
  ctx_ = nullptr;
  open_.store(false);
  inside_.store(0);
  dozers_ = 0;
  sleepers_ = 0;
  stopping_.store(false);
}

void ThreadPool::StopWorkers() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_.store(true);
  }
  wake_.notify_all();
  park_.notify_all();
  for (auto& w : workers_) w.join();
  workers_.clear();
  stopping_.store(false);
  started_ = false;
}

void ThreadPool::StartWorkers() {
  started_ = true;
  if (workers_.empty()) start_mask_ = CurrentMask();
  // Workers start from the current call count (no call is open: we hold
  // run_mutex_), so none re-runs an old call and all see the next one.
  const uint64_t now = generation_.load();
  const int n = threads_.load();
  try {
    for (int i = static_cast<int>(workers_.size()); i < n - 1; ++i) {
      workers_.emplace_back(&ThreadPool::WorkerLoop, this, now, i);
    }
  } catch (const std::exception&) {
    // No more threads (resource limits): run with those that started.
  }
}

void ThreadPool::SetThreads(int n) {
  if (n < 1) n = 1;
  std::lock_guard<std::mutex> run_lock(run_mutex_);
  if (n == threads_.load()) return;
  // New workers inherit the calling thread's mask: under another mask, the
  // kept ones would not be what starting them now gives.
  if (!workers_.empty() && CurrentMask() != start_mask_) StopWorkers();
  {
    // Under mutex_, so that a worker between its check and its wait on
    // park_ cannot miss the change.
    std::lock_guard<std::mutex> lock(mutex_);
    threads_.store(n);
  }
  park_.notify_all();
  if (static_cast<int>(workers_.size()) < n - 1) started_ = false;  // the next Run starts the rest
}

bool ThreadPool::AwaitCall(uint64_t seen, bool spin) {
  const auto deadline = std::chrono::steady_clock::now() + kSpin;
  for (int i = 0; spin; ++i) {
    if (generation_.load(std::memory_order_acquire) != seen) return true;
    if (stopping_.load(std::memory_order_relaxed)) return false;
    ELTWISE_PAUSE();
    if ((i & 255) == 255) {
      if (std::chrono::steady_clock::now() > deadline) break;
      // On the CPU of the last caller, a spinning worker only takes the
      // caller's time, and the scheduler was seen to leave it there with the
      // other CPU idle for tens of milliseconds: it moves off. Anywhere, it
      // yields every few microseconds to a thread that waits for its CPU.
      LeaveCallerCpu(caller_cpu_.load(std::memory_order_relaxed));
      std::this_thread::yield();
    }
  }
  const auto called = [&] {
    return stopping_.load() || generation_.load(std::memory_order_acquire) != seen;
  };
  std::unique_lock<std::mutex> lock(mutex_);
  uint64_t wakes = wakes_;
  ++dozers_;
  const auto doze_end = std::chrono::steady_clock::now() + kDoze;
  while (!called() && std::chrono::steady_clock::now() < doze_end) {
    wake_.wait_for(lock, kDozeStep);
    // Dozing on the caller's CPU, the wake-ups would take the caller's time.
    lock.unlock();
    LeaveCallerCpu(caller_cpu_.load(std::memory_order_relaxed));
    lock.lock();
  }
  if (wakes_ == wakes) --dozers_;
  if (!called()) {
    wakes = wakes_;
    ++sleepers_;
    wake_.wait(lock, called);
    if (wakes_ == wakes) --sleepers_;
  }
  return !stopping_.load();
}

bool ThreadPool::OnWorker() { return t_on_worker; }

void ThreadPool::WorkerLoop(uint64_t seen, int index) {
  t_on_worker = true;
#if defined(__linux__)
  pthread_setname_np(pthread_self(), "eltwise-pool");  // as top and /proc show it
#endif
  // A worker spins after a call and when it starts (inside a Run): the next
  // call is likely soon. One unparked by SetThreads dozes instead: woken on
  // the caller's CPU, it would spin there beside the caller's calls that are
  // too short to split.
  bool spin = true;
  for (;;) {
    if (!Active(index)) {
      // Parked: no call is this worker's until SetThreads raises the count
      // (threads_ changes under mutex_, and only while no Run is open).
      std::unique_lock<std::mutex> lock(mutex_);
      park_.wait(lock, [&] { return stopping_.load() || Active(index); });
      if (stopping_.load()) return;
      seen = generation_.load(std::memory_order_acquire);  // the calls made meanwhile are done
      spin = false;
      continue;
    }
    if (!AwaitCall(seen, spin)) return;
    spin = true;
    seen = generation_.load(std::memory_order_acquire);
    if (!Active(index)) continue;  // parked while it waited: the call is not its own
    // Join only while the call is open; the caller waits for inside_ == 0
    // after closing it, so ctx_ outlives every thread that joined.
    inside_.fetch_add(1);
    if (open_.load()) task_(ctx_);
    inside_.fetch_sub(1);
  }
}

void ThreadPool::Run(Task task, void* ctx, bool wake) {
  std::unique_lock<std::mutex> run_lock(run_mutex_, std::try_to_lock);
  if (!run_lock.owns_lock()) {
    task(ctx);
    return;
  }
  if (!started_) StartWorkers();
  if (workers_.empty() || threads_.load() <= 1) {
    task(ctx);
    return;
  }
  task_ = task;
  ctx_ = ctx;
  shared_.store(shared_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  open_.store(true);
  const int cpu = CurrentCpu();
  caller_cpu_.store(cpu < 0 ? -2 : cpu, std::memory_order_relaxed);
  const int64_t now = NowNs();
  const bool looping = now - last_run_.exchange(now, std::memory_order_relaxed) < kLoopGapNs;
  // Last: the call's line is whole before a worker reads it.
  generation_.fetch_add(1, std::memory_order_release);
  if (wake || looping) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (sleepers_ > 0 || (wake && dozers_ > 0)) {
      sleepers_ = dozers_ = 0;
      ++wakes_;
      wake_.notify_all();
    }
  }
  task(ctx);
  open_.store(false);
  for (int i = 0; inside_.load() != 0; ++i) {
    // Yields soon: a worker inside the task may be waiting for this CPU.
    if (i < 256) ELTWISE_PAUSE(); else std::this_thread::yield();
  }
}

}  // namespace eltwise
