// A bounded pool of large memory blocks: a freed block is kept and handed out
// again for a later request of a fitting size, so a fresh result skips the
// page faults (and the kernel's zero-filling) of newly mapped memory.
// No Python here; python/result_memory.cc makes it NumPy's memory handler.
#ifndef ELTWISE_CORE_BUFFER_POOL_H_
#define ELTWISE_CORE_BUFFER_POOL_H_

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace eltwise {

// Blocks of at least this many bytes are pooled; smaller ones go straight to
// malloc/free (their pages are reused by malloc already).
constexpr size_t kPoolMinBytes = size_t{1} << 20;

struct BufferPoolStats {
  size_t limit;         // bytes the pool may hold (idle blocks + reuse slack)
  size_t held_bytes;    // idle blocks kept for reuse
  size_t held_buffers;
  size_t slack_bytes;   // capacity beyond the request of reused blocks in use
  uint64_t hits;        // requests served by a kept block
  uint64_t misses;      // pooled-size requests that needed new memory
};

// Fit policy: a request is rounded up to whole pages; it takes the smallest
// idle block whose capacity is at least that and at most twice that. The
// unused part of a reused block (its slack) counts against the limit while it
// is in use, so the process never holds more than its blocks' requests plus
// the limit. A freed block that would overflow the limit evicts the oldest
// idle blocks; one larger than the limit is returned to the system.
//
// Every block carries a small header before its data (its capacity and
// request), so Free trusts no size from the caller. Thread-safe; usable in a
// forked child (the mutex is held across fork and made anew in the child).
class BufferPool {
 public:
  // The process-wide pool; never destroyed (arrays may outlive the module).
  static BufferPool& Get();

  // Returns a block of at least `bytes` (1 if 0), or nullptr when memory is
  // exhausted. *fresh (if given) says whether its pages are newly allocated.
  void* Allocate(size_t bytes, bool* fresh = nullptr);
  // As Allocate, zero-filled; never from the idle blocks (new pages are
  // zero already, a kept block would need clearing).
  void* AllocateZeroed(size_t bytes);
  // Resizes `p` (from this pool) keeping its first min(old, new) bytes; on
  // failure returns nullptr and `p` is untouched.
  void* Reallocate(void* p, size_t bytes);
  // Takes back a block from Allocate/AllocateZeroed/Reallocate (nullptr ok).
  void Free(void* p);

  // Sets the limit in bytes (0: keep nothing) and evicts idle blocks to fit.
  void SetLimit(size_t bytes);
  size_t limit() const;
  // Returns every idle block to the system.
  void Release();
  BufferPoolStats Stats() const;

 private:
  struct Idle {
    void* data;
    size_t capacity;
    uint64_t freed_at;  // order of frees: evict the oldest first
  };

  BufferPool();
  // Frees idle blocks, oldest first, until held + slack + extra <= limit_.
  // Requires mutex_; returns the blocks to free after unlocking.
  void EvictToFit(size_t extra, std::vector<void*>* victims);

  mutable std::mutex mutex_;
  std::vector<Idle> idle_;  // a few dozen at most: linear scans are cheap
  size_t limit_;
  size_t held_ = 0;
  size_t slack_ = 0;
  uint64_t frees_ = 0;
  uint64_t hits_ = 0;
  uint64_t misses_ = 0;
};

// Writes one byte of every page of `data` on the worker threads, so that
// the page faults of new memory happen in parallel before a kernel runs.
void TouchPages(void* data, size_t bytes);

// The default limit: 256 MiB (four 64 MiB results, enough for a chain of
// large temporaries), at most 1/16 of physical memory on small machines.
size_t DefaultPoolLimit();

}  // namespace eltwise

#endif  // ELTWISE_CORE_BUFFER_POOL_H_
