#include "core/buffer_pool.h"

#include "core/thread_pool.h"

#include <pthread.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>

namespace eltwise {
namespace {

constexpr size_t kPage = 4096;
// Small blocks keep malloc's 16-byte alignment; large ones start on a page,
// so a block's data covers whole pages (and whole cache lines).
constexpr size_t kSmallAlign = 16;
constexpr size_t kHugePageFrom = size_t{1} << 22;

// Stored just before each block's data.
struct alignas(kSmallAlign) Header {
  void* raw;        // what malloc returned
  size_t capacity;  // usable bytes
  size_t request;   // bytes asked for (Reallocate copies these)
  size_t slack;     // capacity - rounded request, when reused from the pool
};
constexpr size_t kHeaderBytes = sizeof(Header);

Header* HeaderOf(void* data) { return static_cast<Header*>(data) - 1; }

size_t RoundUp(size_t n, size_t to) { return (n + to - 1) / to * to; }

// Allocates a block with room for `capacity` bytes aligned to `align`
// (kSmallAlign or kPage), zeroed if asked; nullptr if out of memory.
void* NewBlock(size_t capacity, size_t request, size_t align, bool zeroed) {
  const size_t extra = kHeaderBytes + (align > kSmallAlign ? align : 0);
  if (capacity > SIZE_MAX - extra) return nullptr;
  void* raw = zeroed ? std::calloc(1, capacity + extra) : std::malloc(capacity + extra);
  if (!raw) return nullptr;
  const uintptr_t first = reinterpret_cast<uintptr_t>(raw) + kHeaderBytes;
  void* data = reinterpret_cast<void*>(RoundUp(first, align));
  *HeaderOf(data) = Header{raw, capacity, request, 0};
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  // As NumPy's own allocator does from 4 MiB: transparent huge pages make
  // 512 times fewer page faults (and TLB misses). Failure (an old kernel)
  // only means small pages.
  if (capacity >= kHugePageFrom) madvise(data, capacity, MADV_HUGEPAGE);
#endif
  return data;
}

// The pool, for the fork handlers (which must not wait on Get()'s guard).
std::atomic<BufferPool*> g_pool{nullptr};

// Made while the extension loads, so that no fork can catch its construction
// half done in another thread.
struct MakeOnLoad {
  MakeOnLoad() { BufferPool::Get(); }
} g_make_on_load;

}  // namespace

size_t DefaultPoolLimit() {
  constexpr size_t kDefault = size_t{256} << 20;
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return kDefault;
  return std::min(kDefault, static_cast<size_t>(pages) / 16 * static_cast<size_t>(page));
}

BufferPool& BufferPool::Get() {
  static BufferPool* pool = new BufferPool();
  return *pool;
}

BufferPool::BufferPool() : limit_(DefaultPoolLimit()) {
  // Holding the mutex across fork keeps the idle list whole in the child; the
  // child's copy is made anew (its owner is the forking thread, the child's
  // only one), as thread_pool.cc does with its locks.
  pthread_atfork(
      [] { if (BufferPool* p = g_pool.load()) p->mutex_.lock(); },
      [] { if (BufferPool* p = g_pool.load()) p->mutex_.unlock(); },
      [] { if (BufferPool* p = g_pool.load()) new (&p->mutex_) std::mutex(); });
  g_pool.store(this);
}

void* BufferPool::Allocate(size_t bytes, bool* fresh) {
  if (fresh) *fresh = true;
  if (bytes == 0) bytes = 1;
  if (bytes < kPoolMinBytes) return NewBlock(bytes, bytes, kSmallAlign, false);
  if (bytes > SIZE_MAX - 2 * kPage) return nullptr;
  const size_t need = RoundUp(bytes, kPage);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    size_t best = idle_.size();
    for (size_t i = 0; i < idle_.size(); ++i) {
      const size_t c = idle_[i].capacity;
      if (c >= need && c / 2 <= need && (best == idle_.size() || c < idle_[best].capacity)) best = i;
    }
    if (best != idle_.size()) {
      void* data = idle_[best].data;
      const size_t capacity = idle_[best].capacity;
      idle_.erase(idle_.begin() + static_cast<std::ptrdiff_t>(best));
      held_ -= capacity;
      slack_ += capacity - need;
      ++hits_;
      Header* h = HeaderOf(data);
      h->request = bytes;
      h->slack = capacity - need;
      if (fresh) *fresh = false;
      return data;
    }
    ++misses_;
  }
  return NewBlock(need, bytes, kPage, false);
}

void* BufferPool::AllocateZeroed(size_t bytes) {
  if (bytes == 0) bytes = 1;
  if (bytes < kPoolMinBytes) return NewBlock(bytes, bytes, kSmallAlign, true);
  if (bytes > SIZE_MAX - 2 * kPage) return nullptr;
  return NewBlock(RoundUp(bytes, kPage), bytes, kPage, true);
}

void* BufferPool::Reallocate(void* p, size_t bytes) {
  if (!p) return Allocate(bytes);
  void* q = Allocate(bytes);
  if (!q) return nullptr;
  std::memcpy(q, p, std::min(HeaderOf(p)->request, std::max<size_t>(bytes, 1)));
  Free(p);
  return q;
}

void BufferPool::Free(void* p) {
  if (!p) return;
  Header* h = HeaderOf(p);
  if (h->capacity < kPoolMinBytes) {
    std::free(h->raw);
    return;
  }
  std::vector<void*> victims;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    slack_ -= h->slack;
    h->slack = 0;
    bool keep = h->capacity <= limit_;
    if (keep) {
      EvictToFit(h->capacity, &victims);
      keep = held_ + slack_ + h->capacity <= limit_;
    }
    if (keep) {
      idle_.push_back(Idle{p, h->capacity, ++frees_});
      held_ += h->capacity;
    } else {
      victims.push_back(p);
    }
  }
  // Unmapping takes a while: not under the lock.
  for (void* v : victims) std::free(HeaderOf(v)->raw);
}

void BufferPool::EvictToFit(size_t extra, std::vector<void*>* victims) {
  while (!idle_.empty() && held_ + slack_ + extra > limit_) {
    auto oldest = std::min_element(idle_.begin(), idle_.end(), [](const Idle& a, const Idle& b) {
      return a.freed_at < b.freed_at;
    });
    victims->push_back(oldest->data);
    held_ -= oldest->capacity;
    idle_.erase(oldest);
  }
}

void BufferPool::SetLimit(size_t bytes) {
  std::vector<void*> victims;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    limit_ = bytes;
    EvictToFit(0, &victims);
  }
  for (void* v : victims) std::free(HeaderOf(v)->raw);
}

size_t BufferPool::limit() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return limit_;
}

void BufferPool::Release() {
  std::vector<Idle> idle;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    idle.swap(idle_);
    held_ = 0;
  }
  for (const Idle& b : idle) std::free(HeaderOf(b.data)->raw);
}

BufferPoolStats BufferPool::Stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return BufferPoolStats{limit_, held_, idle_.size(), slack_, hits_, misses_};
}

namespace {
struct TouchWork {
  char* data;
  size_t bytes;
  std::atomic<size_t> next{0};
};
constexpr size_t kTouchChunk = size_t{1} << 21;
void TouchTask(void* ctx) {
  TouchWork& w = *static_cast<TouchWork*>(ctx);
  for (;;) {
    const size_t begin = w.next.fetch_add(kTouchChunk, std::memory_order_relaxed);
    if (begin >= w.bytes) return;
    const size_t end = std::min(w.bytes, begin + kTouchChunk);
    for (size_t i = begin; i < end; i += kPage) {
      reinterpret_cast<volatile char*>(w.data)[i] = 0;
    }
  }
}
}  // namespace

void TouchPages(void* data, size_t bytes) {
  TouchWork w;
  w.data = static_cast<char*>(data);
  w.bytes = bytes;
  ThreadPool::Get().Run(&TouchTask, &w);
}

}  // namespace eltwise
