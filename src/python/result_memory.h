// Memory for the fast door's large results: a NumPy memory handler (NEP 49)
// that keeps freed result buffers in a bounded pool and hands them to later
// results, so that a fresh result does not fault in new pages on every call
// (glibc returns large blocks to the kernel on free; faulting them back costs
// about as much as the computation).
#ifndef ELTWISE_PYTHON_RESULT_MEMORY_H_
#define ELTWISE_PYTHON_RESULT_MEMORY_H_

#include <cstddef>
#include <string>

#include "python/numpy_dtypes.h"

namespace eltwise {

// Results of at least this many bytes come from the pool: glibc's malloc
// maps (and unmaps on free) every block from 32 MiB, its largest dynamic
// mmap threshold, so those would fault in new pages on every call. Smaller
// blocks it recycles from its heap, and the block it hands out is the one
// freed last, whoever freed it: still in cache, where a pooled buffer last
// written by an earlier eltwise call may not be (a 1 MiB threshold made
// 10^6-element results slower than NumPy's memory in the benchmark suite).
constexpr size_t kPooledResultBytes = size_t{32} << 20;
// The default bound on the bytes the pool holds (set_result_pool_limit).
constexpr size_t kDefaultResultPoolLimit = size_t{256} << 20;

// A new array like PyArray_NewFromDescr(&PyArray_Type, descr, nd, dims,
// strides, nullptr, 0, nullptr) (steals descr), its memory from the pool when
// it is large and the pool's limit is not 0. *new_pages says whether the pool
// had no fitting buffer and took new memory, whose pages fault on first
// touch (see FaultInPages). nullptr with an error set.
PyObject* NewResultArray(PyArray_Descr* descr, int nd, npy_intp* dims, npy_intp* strides,
                         bool* new_pages);

// Writes one byte of every page of [data, data + bytes) on the worker
// threads, so that the page faults of new memory are taken in parallel and
// before the kernel, which then writes at the speed of memory. Call without
// the GIL.
void FaultInPages(void* data, size_t bytes);

struct ResultPoolStats {
  size_t held_bytes;   // freed buffers kept for reuse
  size_t held_buffers;
  size_t limit_bytes;
  size_t reused;       // results that took a kept buffer, since import
  size_t allocated;    // results that took new memory, since import
};
ResultPoolStats GetResultPoolStats();
// Sets the bound (0: keep nothing) and frees what no longer fits.
void SetResultPoolLimit(size_t bytes);
// Frees every kept buffer; returns the bytes freed.
size_t ReleaseResultPool();
// One line for show_config().
std::string ResultPoolText();

}  // namespace eltwise

#endif  // ELTWISE_PYTHON_RESULT_MEMORY_H_
