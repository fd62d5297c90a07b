#include "core/fused.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "core/cast.h"
#include "core/claims.h"
#include "core/plan.h"
#include "core/small_buffer.h"
#include "core/thread_pool.h"

namespace eltwise {
namespace {

// A step operand or result within one block: `ndim` dims of the block's
// shape, byte strides, elements of `dtype`. Only the block's ndim strides
// are set (a view is made per step and block; the rest are never read).
struct BlockView {
  const char* p = nullptr;
  DType dtype = DType::kBool;
  int64_t s[kMaxDims];
};

// Steps times threads up to which a run keeps its per-thread state on the
// stack (a short chain on one thread allocates nothing for it).
constexpr size_t kInlineResults = 8;

// RunTiles: a tile holds kTileBudget / (the arrays it reads and writes in
// full: inputs that vary along the last axis, and outputs) bytes of the
// program's widest dtype, within [kMinTileBytes, kMaxTileBytes] and a multiple
// of 64 elements (the coded dtypes' block on AVX3_DL), so that those tiles stay
// in L1 together (32 KiB or more on x86 CPUs with AVX2); programs of more steps
// than kMaxTiledSteps run step by step over the block. A run whose arrays
// come from memory (kMemoryBytes or more in all, past any last-level cache a
// run of this size finds free) takes kMemory* tiles instead, a few cache
// lines per array: the arrays are then read nearly as one loop over all of
// them reads them, where long runs of one or two arrays at a time left memory
// idle (docs/benchmarks.md, "Fused chains"). Its outputs are stored through
// the cache (the register path's as RunFused's chain_stream says), but for
// results of kMemoryStreamBytes or more (past the
// last-level cache): those non-temporally and unfenced (kHintNoFlush),
// RunBlock fencing them once per block (a fence per tile had cost more than
// the reads for ownership such stores save; smaller results stored so ran
// up to 2x slower into an `out=` array).
constexpr int64_t kTileBudget = 12 * 1024;
constexpr int64_t kMinTileBytes = 2048, kMaxTileBytes = 4096;
constexpr int64_t kMemoryTileBudget = 3 * 1024;
constexpr int64_t kMinMemoryTileBytes = 512, kMaxMemoryTileBytes = 1024;
constexpr size_t kMemoryBytes = size_t{16} << 20;
constexpr size_t kMemoryStreamBytes = size_t{32} << 20;
constexpr size_t kMaxTiledSteps = 64;
static_assert(kMaxChainSteps <= kMaxTiledSteps, "a register program runs in RunTiles");

// A run on more threads cuts its result into at least kBlocksPerThread
// blocks per thread, each of at least kMinSplitBlock elements (a block is
// a thread's unit of work).
constexpr int64_t kBlocksPerThread = 4;
constexpr int64_t kMinSplitBlock = 4096;

struct Work {
  const FusedProgram* program = nullptr;
  FusedOperands operands = {};
  int axis = 0;             // the block axis
  int ndim = 1;             // dims of a block: the block axis and every later one
  int64_t per_axis = 1;     // indices of `axis` per block
  int64_t along = 1;        // blocks along `axis`
  int64_t blocks = 0;
  size_t slot_bytes = 0;    // one buffer: a block of 8-byte elements
  size_t thread_bytes = 0;  // a thread's buffers: the slots and two for casts
  char* scratch = nullptr;  // thread_bytes per thread
  int threads = 1;
  std::atomic<int> joined{0};
  Claims claims;            // the blocks, on more threads
  bool stream = false;      // the outputs are larger than the cache: non-temporal stores
  const bool* read_later = nullptr;  // per step: a later step reads its result
  bool tiled = false;       // at most kMaxTiledSteps steps, and not w.stream unless w.memory
  bool memory = false;      // the arrays come from memory: kMemory* tiles
  bool memory_stream = false;  // w.memory, with results of kMemoryStreamBytes or more
  bool chain_stream = false;   // the register path's result: non-temporal stores (RunFused)
  int64_t tile_elements = 1;  // RunTiles' largest tile (kTileBudget)
  // Per thread: the steps' results in the block at hand, and their flags.
  BlockView* results = nullptr;
  int* thread_flags = nullptr;
};

// An sfence: orders the non-temporal stores before it before every later
// store (x86; elsewhere a full fence).
void FenceStreamedStores() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_sfence();
#else
  std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
}

void ContiguousStrides(const int64_t* shape, int ndim, int64_t itemsize, int64_t* strides) {
  int64_t s = itemsize;
  for (int i = ndim - 1; i >= 0; --i) {
    strides[i] = s;
    s *= shape[i];
  }
}

// Converts the block view `v` (any strides) into contiguous elements of `to`
// at dst, row by row along the block's last axis.
void CastBlock(const CastKernels* casts, const BlockView& v, DType to, const int64_t* shape,
               int ndim, char* dst) {
  const int64_t n = shape[ndim - 1], last = v.s[ndim - 1];
  const size_t from_size = ItemSize(v.dtype), to_size = ItemSize(to);
  int64_t rows = 1;
  for (int i = 0; i + 1 < ndim; ++i) rows *= shape[i];
  int64_t index[kMaxDims] = {};
  for (int64_t r = 0; r < rows; ++r) {
    const char* src = v.p;
    for (int i = 0; i + 1 < ndim; ++i) src += index[i] * v.s[i];
    if (last == static_cast<int64_t>(from_size)) {
      CastRun(casts, v.dtype, to, src, dst, n);
    } else if (last == 0) {
      CastRun(v.dtype, to, src, dst, 1);
      for (int64_t j = 1; j < n; ++j) memcpy(dst + j * to_size, dst, to_size);
    } else {
      for (int64_t j = 0; j < n; ++j) CastRun(v.dtype, to, src + j * last, dst + j * to_size, 1);
    }
    dst += n * to_size;
    for (int i = ndim - 2; i >= 0 && ++index[i] == shape[i]; --i) index[i] = 0;
  }
}

// The byte range block view v covers when its elements are one contiguous
// run (the block's C order); false otherwise.
bool ContiguousExtent(const BlockView& v, const int64_t* shape, int ndim, int64_t* bytes) {
  int64_t s = static_cast<int64_t>(ItemSize(v.dtype));
  for (int i = ndim - 1; i >= 0; --i) {
    if (shape[i] != 1 && v.s[i] != s) return false;
    s *= shape[i];
  }
  *bytes = s;
  return true;
}

// Whether block view v reads one element for the whole block (from axis
// `first` on: one per index of the axes before it): every stride is 0 but
// those of axes of extent 1, which are never applied.
bool IsOneValue(const BlockView& v, const int64_t* shape, int ndim, int first = 0) {
  for (int d = first; d < ndim; ++d) {
    if (v.s[d] != 0 && shape[d] != 1) return false;
  }
  return true;
}

// Runs one step on a block whose views are one contiguous run each (or a
// scalar): the kernel itself, as Execute's one-run path calls it.
bool RunContiguous(const FusedStep& step, const BlockView* const* x, const BlockView& out,
                   const int64_t* shape, int ndim, unsigned hints, int* flags) {
  int64_t n = 1;
  for (int i = 0; i < ndim; ++i) n *= shape[i];
  bool scalar[2];
  int64_t bytes;
  for (int i = 0; i < 2; ++i) {
    scalar[i] = IsOneValue(*x[i], shape, ndim);
    if (!scalar[i] && !ContiguousExtent(*x[i], shape, ndim, &bytes)) return false;
  }
  if ((scalar[0] && scalar[1]) || !ContiguousExtent(out, shape, ndim, &bytes)) return false;
  const LoopKind kind = scalar[0]   ? LoopKind::kScalarFirst
                        : scalar[1] ? LoopKind::kScalarSecond
                                    : LoopKind::kContiguous;
  *flags |= step.args.kernels[static_cast<int>(kind)](x[0]->p, x[1]->p, const_cast<char*>(out.p),
                                                       static_cast<size_t>(n), hints);
  return true;
}

// Block b of the program: its shape (w.ndim dims), and where it lies in an
// array of the program's shape.
struct Block {
  int64_t shape[kMaxDims];
  int64_t start;  // the first index of the block axis
  int64_t outer_index[kMaxDims];  // the index of every axis before it

  Block(const Work& w, int64_t b) {
    const FusedProgram& p = *w.program;
    const int k = w.axis;
    int64_t outer = b / w.along;
    start = (b % w.along) * w.per_axis;
    shape[0] = std::min(w.per_axis, p.shape[k] - start);
    for (int i = 1; i < w.ndim; ++i) shape[i] = p.shape[k + i];
    for (int i = k - 1; i >= 0; --i) {
      outer_index[i] = outer % p.shape[i];
      outer /= p.shape[i];
    }
  }

  void ViewInto(const Work& w, const FusedView& v, BlockView* r) const {
    const int k = w.axis;
    int64_t offset = start * v.strides[k];
    for (int i = 0; i < k; ++i) offset += outer_index[i] * v.strides[i];
    r->p = v.base + offset;
    r->dtype = v.dtype;
    for (int i = 0; i < w.ndim; ++i) r->s[i] = v.strides[k + i];
  }
};

// Where one step's operand or result lies in the tile at hand: p advanced by
// `advance` bytes per element of the tile's start (0 for a broadcast scalar
// and for a buffer slot, which holds the tile at its start) and by
// `row_advance` bytes per row of the block (a value per row: its stride along
// the block axis; 0 otherwise).
// (No member initializers: RunTiles' arrays of them are set before they are
// read, and initializing kMaxTiledSteps of each cost a short chain's call.)
struct TilePlace {
  const char* p;
  int64_t advance;
  int64_t row_advance;
};

// Whether block view v reads one element per row of the block (per index of
// its first axis, the block axis): every later stride is 0 but those of axes
// of extent 1. A per-channel parameter in a block of several channels.
bool IsOneValuePerRow(const BlockView& v, const int64_t* shape, int ndim) {
  return ndim > 1 && IsOneValue(v, shape, ndim, 1);
}

// RunTiles' rows hold at least this many elements: each row costs every step
// one more kernel call (as the block path's plan does, one call per row).
constexpr int64_t kMinRowElements = 64;

// Step s's KernelHints. settled: both operands are the caller's memory, read
// as they are (not a buffer the block or tile just wrote: a step's result or
// a cast). An output streams past the cache unless a later step reads it.
unsigned StepHints(const Work& w, size_t s, bool settled) {
  const bool stream = w.program->steps[s].dest_output && w.stream && !w.read_later[s];
  return (stream ? kHintStream : 0u) | (settled ? kHintSettledInputs : 0u);
}

// Operand i's buffer for a conversion to its step's dtype (a block's worth,
// after the slots in a thread's scratch).
char* CastBuffer(const Work& w, char* scratch, int i) {
  return scratch + (static_cast<size_t>(w.program->slots) + i) * w.slot_bytes;
}

// Runs block `block` tile by tile: every step on w.tile_elements elements, then
// every step on the next ones. A step's result is then read back from a tile
// that is still in L1, where running each step over the whole block would
// write and re-read block-sized buffers (past L1, often past L2). Each step's
// kernel computes the same elements of the same operands as on the whole
// block, and an operand in another dtype is converted by the same CastRun, so
// the bits are the same. Applies when every operand of every step is, in this
// block, one contiguous run, a broadcast scalar, or one value per row of the
// block (IsOneValuePerRow; tiles then stay within a row, where that value is
// the kernel's broadcast scalar, as in the unfused call's plan), and every
// output one contiguous run (and w.tiled); false, having run nothing,
// otherwise.
bool RunTiles(Work& w, const Block& block, char* scratch, int* flags) {
  const FusedProgram& p = *w.program;
  const int nd = w.ndim;
  const int64_t* shape = block.shape;
  const size_t n_steps = p.steps.size();
  TilePlace x[kMaxTiledSteps][2], out[kMaxTiledSteps];
  DType from[kMaxTiledSteps][2];  // the operand's dtype where it lies
  bool scalar[kMaxTiledSteps][2];
  LoopKind kind[kMaxTiledSteps];
  unsigned hints[kMaxTiledSteps];
  int64_t bytes;
  bool per_row = false;  // some operand is one value per row
  for (size_t s = 0; s < n_steps; ++s) {
    const FusedStep& step = p.steps[s];
    bool settled = true;  // StepHints'
    for (int i = 0; i < 2; ++i) {
      const FusedSource& src = step.x[i];
      bool& one = scalar[s][i];
      one = src.kind == FusedSource::kScalar;
      if (src.kind == FusedSource::kScalar) {
        x[s][i] = {w.operands.scalars[src.index], 0, 0};
        from[s][i] = step.compute;
      } else if (src.kind == FusedSource::kInput) {
        BlockView v;
        block.ViewInto(w, w.operands.inputs[src.index], &v);
        one = IsOneValue(v, shape, nd);
        if (one) {
          x[s][i] = {v.p, 0, 0};
        } else if (IsOneValuePerRow(v, shape, nd)) {
          one = per_row = true;
          x[s][i] = {v.p, 0, v.s[0]};
        } else if (ContiguousExtent(v, shape, nd, &bytes)) {
          x[s][i] = {v.p, static_cast<int64_t>(ItemSize(v.dtype)), 0};
        } else {
          return false;
        }
        from[s][i] = v.dtype;
      } else {
        x[s][i] = out[src.index];
        from[s][i] = p.steps[src.index].result;
        settled = false;
      }
      settled &= from[s][i] == step.compute;
    }
    const bool* scalar_s = scalar[s];
    if (scalar_s[0] && scalar_s[1]) return false;
    kind[s] = scalar_s[0] ? LoopKind::kScalarFirst
              : scalar_s[1] ? LoopKind::kScalarSecond
                            : LoopKind::kContiguous;
    if (step.dest_output) {
      BlockView v;
      block.ViewInto(w, w.operands.outputs[step.dest], &v);
      if (!ContiguousExtent(v, shape, nd, &bytes)) return false;
      out[s] = {v.p, static_cast<int64_t>(ItemSize(step.result)), 0};
    } else {
      out[s] = {scratch + step.dest * w.slot_bytes, 0, 0};
    }
    hints[s] = StepHints(w, s, settled);
    if (w.memory) hints[s] = w.memory_stream ? hints[s] | kHintNoFlush : hints[s] & ~kHintStream;
  }
  int64_t n = 1;
  for (int i = 0; i < nd; ++i) n *= shape[i];
  // Rows: the block's first axis where a value per row needs them, else one.
  const int64_t rows = per_row ? shape[0] : 1, row_elements = n / rows;
  if (row_elements < kMinRowElements) return false;
  const auto at = [](const TilePlace& place, int64_t element, int64_t row) {
    return place.p + element * place.advance + row * place.row_advance;
  };
  if (p.chain != nullptr) {
    // The register path: one kernel call per row, its code's operands at the
    // row (MarkChain made the code; every step's operands are placed above).
    const size_t n_code = p.chain_code.size();
    ChainInstr code[3 * kMaxChainSteps];  // at most two loads and an op per step
    const size_t last = n_steps - 1;
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t e = r * row_elements;
      for (size_t k = 0; k < n_code; ++k) {
        const ChainCode& c = p.chain_code[k];
        if (c.op == kChainLoad) {
          code[k] = {at(x[c.step][c.operand], e, r), kChainLoad, from[c.step][c.operand],
                     scalar[c.step][c.operand]};
        } else {
          code[k] = {nullptr, c.op, DType::kBool, false};
        }
      }
      p.chain(code, n_code, const_cast<char*>(at(out[last], e, r)),
              static_cast<size_t>(row_elements),
              (w.chain_stream ? kHintStream : 0u) | kHintNoFlush);
    }
    // The rows' streamed stores, fenced once (a fence per row costs more than
    // the reads for ownership they save).
    if (w.chain_stream) FenceStreamedStores();
    return true;
  }
  // A row in tiles of equal length, rounded up to 64 elements, at most
  // w.tile_elements (a row of 3136 in tiles of 512: 448 each, not six of 512
  // and one of 64, which costs every step a call for 64 elements).
  const int64_t tiles_per_row = (row_elements + w.tile_elements - 1) / w.tile_elements;
  const int64_t tile =
      std::min(w.tile_elements, (row_elements / tiles_per_row + 63) / 64 * 64);
  // An operand in another dtype than its step computes in is converted tile by
  // tile into its cast buffer, as CastBlock converts a block.
  char* cast_buffer[2] = {CastBuffer(w, scratch, 0), CastBuffer(w, scratch, 1)};
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t t0 = 0; t0 < row_elements; t0 += tile) {
      const int64_t len = std::min(tile, row_elements - t0);
      const int64_t e = r * row_elements + t0;  // the tile's first element in the block
      for (size_t s = 0; s < n_steps; ++s) {
        const FusedStep& step = p.steps[s];
        const char* operand[2];
        for (int i = 0; i < 2; ++i) {
          operand[i] = at(x[s][i], e, r);
          if (from[s][i] != step.compute) {
            CastRun(p.casts, from[s][i], step.compute, operand[i], cast_buffer[i],
                    scalar[s][i] ? 1 : len);
            operand[i] = cast_buffer[i];
          }
        }
        const BinaryKernel kernel = step.args.kernels[static_cast<int>(kind[s])];
        flags[s] |= kernel(operand[0], operand[1], const_cast<char*>(at(out[s], e, r)),
                           static_cast<size_t>(len), hints[s]);
      }
    }
  }
  return true;
}

void RunBlock(Work& w, int64_t b, char* scratch, BlockView* results, int* flags) {
  const FusedProgram& p = *w.program;
  const int nd = w.ndim;
  const Block block(w, b);
  if ((w.tiled || p.chain != nullptr) && RunTiles(w, block, scratch, flags)) {
    // The block's unfenced streamed stores (kHintNoFlush), ordered before the
    // run's end makes them the caller's (the pool's completion is not a fence
    // for non-temporal stores).
    if (w.memory_stream) FenceStreamedStores();
    return;
  }
  const int64_t* shape = block.shape;
  char* cast_buffer[2] = {CastBuffer(w, scratch, 0), CastBuffer(w, scratch, 1)};
  BlockView local[2];  // operand i's view when it is not an earlier step's result
  for (size_t s = 0; s < p.steps.size(); ++s) {
    const FusedStep& step = p.steps[s];
    const BlockView* x[2];
    bool settled = true;  // StepHints'
    for (int i = 0; i < 2; ++i) {
      const FusedSource& src = step.x[i];
      x[i] = &local[i];
      if (src.kind == FusedSource::kScalar) {
        local[i].p = w.operands.scalars[src.index];
        local[i].dtype = step.compute;
        for (int d = 0; d < nd; ++d) local[i].s[d] = 0;
      } else if (src.kind == FusedSource::kInput) {
        block.ViewInto(w, w.operands.inputs[src.index], &local[i]);
      } else {
        x[i] = &results[src.index];
      }
      settled &= src.kind != FusedSource::kStep;
      if (x[i]->dtype != step.compute) {
        // Converted where it lies: an axis it is broadcast along stays
        // broadcast (stride 0), so the step's plan, like the unfused call's,
        // sees a per-row value as the kernel's scalar (float power's exact
        // small exponents are that kernel's).
        settled = false;
        int64_t cast_shape[kMaxDims];
        for (int d = 0; d < nd; ++d) cast_shape[d] = x[i]->s[d] == 0 ? 1 : shape[d];
        CastBlock(p.casts, *x[i], step.compute, cast_shape, nd, cast_buffer[i]);
        local[i].p = cast_buffer[i];
        local[i].dtype = step.compute;
        ContiguousStrides(cast_shape, nd, static_cast<int64_t>(ItemSize(step.compute)),
                          local[i].s);
        for (int d = 0; d < nd; ++d) local[i].s[d] = cast_shape[d] == 1 ? 0 : local[i].s[d];
        x[i] = &local[i];
      }
    }
    BlockView& out = results[s];
    if (step.dest_output) {
      block.ViewInto(w, w.operands.outputs[step.dest], &out);
    } else {
      out.p = scratch + step.dest * w.slot_bytes;
      out.dtype = step.result;
      ContiguousStrides(shape, nd, static_cast<int64_t>(ItemSize(step.result)), out.s);
    }
    const unsigned hints = StepHints(w, s, settled);
    if (RunContiguous(step, x, out, shape, nd, hints, &flags[s])) continue;
    const Plan plan = MakePlan(shape, nd, x[0]->s, x[1]->s, out.s);
    ExecuteArgs args = step.args;
    args.a = x[0]->p;
    args.b = x[1]->p;
    args.out = const_cast<char*>(out.p);
    args.parallel_bytes = SIZE_MAX;  // this thread runs the whole block
    flags[s] |= Execute(plan, args);
  }
}

void RunBlocks(Work& w) {
  const int t = w.joined.fetch_add(1, std::memory_order_relaxed);
  if (t >= w.threads) return;  // more threads joined than buffers were made for
  char* scratch = w.scratch + static_cast<size_t>(t) * w.thread_bytes;
  const size_t n = w.program->steps.size();
  BlockView* results = w.results + t * n;
  int* flags = w.thread_flags + t * n;
  for (int64_t b0, b1; w.claims.Next(&b0, &b1);) {
    for (int64_t b = b0; b < b1; ++b) RunBlock(w, b, scratch, results, flags);
  }
}

void RunTask(void* ctx) { RunBlocks(*static_cast<Work*>(ctx)); }

// 64-byte aligned memory.
char* AllocateAligned(size_t bytes) {
  return static_cast<char*>(::operator new(bytes, std::align_val_t{64}));
}
void FreeAligned(char* p) { ::operator delete(p, std::align_val_t{64}); }

// The buffers of a run. The last run's memory is kept (up to kKeptScratch
// bytes) and reused by the next run that fits while no other run holds it:
// a chain called in a loop then takes no new pages, where fresh memory (the
// allocator maps and unmaps blocks this large) faults on every page's first
// touch, which costs more than a small chain's kernels.
constexpr size_t kKeptScratch = size_t{16} << 20;
// A run's buffers up to this size are on RunFused's stack.
constexpr size_t kStackScratch = 4096;
std::mutex g_kept_mutex;
char* g_kept = nullptr;  // guarded by g_kept_mutex, as are the two below
size_t g_kept_bytes = 0;
bool g_kept_busy = false;

class Scratch {
 public:
  // `stack`, of stack_bytes, serves a run that fits it (a short chain on a few
  // elements), which then takes no lock.
  Scratch(size_t bytes, char* stack, size_t stack_bytes) {
    if (bytes <= stack_bytes) {
      p_ = stack;
      return;
    }
    owned_ = true;
    {
      std::lock_guard<std::mutex> lock(g_kept_mutex);
      if (!g_kept_busy && bytes <= kKeptScratch) {
        if (g_kept_bytes < bytes) {
          if (g_kept) FreeAligned(g_kept);
          g_kept = nullptr;
          g_kept_bytes = 0;
          g_kept = AllocateAligned(bytes);  // may throw, leaving nothing kept
          g_kept_bytes = bytes;
        }
        g_kept_busy = true;
        p_ = g_kept;
        kept_ = true;
        return;
      }
    }
    p_ = AllocateAligned(bytes);
  }
  ~Scratch() {
    if (!owned_) return;
    if (!kept_) {
      FreeAligned(p_);
      return;
    }
    std::lock_guard<std::mutex> lock(g_kept_mutex);
    g_kept_busy = false;
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  char* get() const { return p_; }

 private:
  char* p_ = nullptr;
  bool owned_ = false;  // not the caller's stack: the kept memory or an allocation
  bool kept_ = false;
};

// Whether view v of a program of `shape` is one value (every stride 0 where
// the extent is above 1: *one set) or one C-order contiguous run.
bool WholeRun(const FusedView& v, const int64_t* shape, int ndim, bool* one) {
  int64_t s = static_cast<int64_t>(ItemSize(v.dtype));
  bool zero = true, contiguous = true;
  for (int d = ndim - 1; d >= 0; --d) {
    if (shape[d] != 1) {
      zero &= v.strides[d] == 0;
      contiguous &= v.strides[d] == s;
    }
    s *= shape[d];
  }
  *one = zero;
  return zero || contiguous;
}

// Runs a program of `size` elements whose buffers fit kStackScratch, on the
// calling thread, where every input is one value or one contiguous run and
// every output one contiguous run: each step's kernel once over all elements,
// in step order. That is what RunBlock does for a one-block run whose
// operands RunContiguous takes (the same kernel calls on the same elements,
// operands converted by the same CastRun, the same hints), without the
// block's views. False, having run nothing, otherwise.
bool RunSmall(const FusedProgram& p, const FusedOperands& operands, int64_t size, int* flags) {
  const size_t n_steps = p.steps.size();
  const int nd = p.ndim;
  // A run whose buffers fit kStackScratch has at most kStackScratch / 8
  // elements: checked first, so that size * 8 cannot overflow (size is the
  // product of the program's shape, which a zero-stride view can make huge).
  if (size > static_cast<int64_t>(kStackScratch / 8)) return false;
  const size_t slot_bytes = (static_cast<size_t>(size) * 8 + 63) / 64 * 64;
  if (n_steps > kMaxTiledSteps ||
      (static_cast<size_t>(p.slots) + 2) * slot_bytes > kStackScratch) {
    return false;
  }
  bool one[kMaxTiledSteps][2];
  for (size_t s = 0; s < n_steps; ++s) {
    const FusedStep& step = p.steps[s];
    for (int i = 0; i < 2; ++i) {
      const FusedSource& src = step.x[i];
      one[s][i] = src.kind == FusedSource::kScalar;
      if (src.kind == FusedSource::kInput &&
          !WholeRun(operands.inputs[src.index], p.shape, nd, &one[s][i])) {
        return false;
      }
    }
    if (one[s][0] && one[s][1]) return false;
    bool output_one;
    if (step.dest_output &&
        (!WholeRun(operands.outputs[step.dest], p.shape, nd, &output_one) || output_one)) {
      return false;
    }
  }
  alignas(64) char scratch[kStackScratch];
  char* cast_buffer[2] = {scratch + static_cast<size_t>(p.slots) * slot_bytes,
                          scratch + (static_cast<size_t>(p.slots) + 1) * slot_bytes};
  char* result[kMaxTiledSteps];
  for (size_t s = 0; s < n_steps; ++s) {
    const FusedStep& step = p.steps[s];
    const char* operand[2];
    bool settled = true;  // StepHints'
    for (int i = 0; i < 2; ++i) {
      const FusedSource& src = step.x[i];
      DType from = step.compute;
      if (src.kind == FusedSource::kScalar) {
        operand[i] = operands.scalars[src.index];
      } else if (src.kind == FusedSource::kInput) {
        operand[i] = operands.inputs[src.index].base;
        from = operands.inputs[src.index].dtype;
      } else {
        operand[i] = result[src.index];
        from = p.steps[src.index].result;
        settled = false;
      }
      if (from != step.compute) {
        CastRun(p.casts, from, step.compute, operand[i], cast_buffer[i], one[s][i] ? 1 : size);
        operand[i] = cast_buffer[i];
        settled = false;
      }
    }
    result[s] = step.dest_output ? operands.outputs[step.dest].base
                                 : scratch + static_cast<size_t>(step.dest) * slot_bytes;
    const LoopKind kind = one[s][0]   ? LoopKind::kScalarFirst
                          : one[s][1] ? LoopKind::kScalarSecond
                                      : LoopKind::kContiguous;
    flags[s] |= step.args.kernels[static_cast<int>(kind)](
        operand[0], operand[1], result[s], static_cast<size_t>(size),
        settled ? kHintSettledInputs : 0u);
  }
  return true;
}

}  // namespace

namespace {

// The most values pending while step s's postfix code runs (its operand
// with the larger need evaluated first; Sethi and Ullman's number).
size_t ChainNeed(const FusedProgram& p, int s) {
  size_t need[2];
  for (int i = 0; i < 2; ++i) {
    const FusedSource& src = p.steps[static_cast<size_t>(s)].x[i];
    need[i] = src.kind == FusedSource::kStep ? ChainNeed(p, src.index) : 1;
  }
  return need[0] == need[1] ? need[0] + 1 : std::max(need[0], need[1]);
}

// Appends step s's postfix code to code: the operand of the larger need
// first (operand 0 on a tie), then the other, then the step's op, marked
// kChainSwapped where operand 1 went first (so that it lies below).
void AppendChainCode(const FusedProgram& p, int s, std::vector<ChainCode>* code) {
  const FusedStep& step = p.steps[static_cast<size_t>(s)];
  const auto need = [&](int i) {
    return step.x[i].kind == FusedSource::kStep ? ChainNeed(p, step.x[i].index) : size_t{1};
  };
  const bool swapped = need(1) > need(0);
  for (int k = 0; k < 2; ++k) {
    const int i = swapped ? 1 - k : k;
    const FusedSource& src = step.x[i];
    if (src.kind == FusedSource::kStep) {
      AppendChainCode(p, src.index, code);
    } else {
      code->push_back({kChainLoad, s, i});
    }
  }
  code->push_back({step.chain_op | (swapped ? kChainSwapped : 0), s, -1});
}

}  // namespace

void MarkChain(FusedProgram* p, ChainKernel kernel) {
  p->chain = nullptr;
  p->chain_code.clear();
  const size_t n = p->steps.size();
  if (kernel == nullptr || n == 0 || n > kMaxChainSteps) return;
  const DType t = p->steps[0].compute;
  std::vector<int> readers(n, 0);
  for (size_t s = 0; s < n; ++s) {
    const FusedStep& step = p->steps[s];
    if (step.chain_op < 0 || step.compute != t || step.result != t ||
        step.dest_output != (s + 1 == n)) {
      return;
    }
    for (const FusedSource& src : step.x) {
      if (src.kind == FusedSource::kStep) {
        ++readers[static_cast<size_t>(src.index)];
      } else if (src.kind == FusedSource::kInput &&
                 !ChainCastIsExact(p->inputs[static_cast<size_t>(src.index)].dtype, t)) {
        return;
      }
    }
  }
  // A tree: every result but the last read exactly once.
  for (size_t s = 0; s + 1 < n; ++s) {
    if (readers[s] != 1) return;
  }
  if (ChainNeed(*p, static_cast<int>(n - 1)) > kMaxChainDepth) return;
  std::vector<ChainCode> code;
  AppendChainCode(*p, static_cast<int>(n - 1), &code);
  p->chain_code = std::move(code);
  p->chain = kernel;
}

bool CastIsExact(DType from, DType to) {
  if (WidensHalfExactly(from, to)) return true;
  const auto plain = [](DType t) { return !IsNarrowFloat(t) && !IsCoded(t); };
  if (!plain(from) || !plain(to)) return false;
  if (IsFloat(from) && !IsFloat(to)) return false;
  return !(from == DType::kF64 && to == DType::kF32);
}

void RunFused(const FusedProgram& p, const FusedOperands& operands, int threads, int* flags) {
  const size_t n = p.steps.size();
  for (size_t s = 0; s < n; ++s) flags[s] = 0;
  int64_t size = 1;
  for (int i = 0; i < p.ndim; ++i) size *= p.shape[i];
  if (size == 0 || n == 0) return;
  Work w;
  w.program = &p;
  w.operands = operands;
  // More threads only where some step's unfused call would take them (its
  // bytes at least its parallel_bytes, as Execute splits a call), and sleeping
  // workers woken only where some step's call would wake them (wake_bytes).
  bool split = false, wake = false;
  for (const FusedStep& s : p.steps) {
    const size_t per = 2 * s.args.in_itemsize + s.args.out_itemsize;
    size_t bytes;
    if (__builtin_mul_overflow(static_cast<size_t>(size), per, &bytes)) bytes = SIZE_MAX;
    split |= bytes >= s.args.parallel_bytes;
    wake |= bytes >= s.args.wake_bytes;
  }
  if (!split) threads = 1;
  if (threads == 1 && RunSmall(p, operands, size, flags)) return;
  // The block: axis k with every later axis whole, at most block_elements
  // elements where the later axes allow; on more threads, small enough that
  // each thread gets kBlocksPerThread blocks (but not below kMinSplitBlock
  // elements), so that a result of one or a few blocks is still shared.
  int64_t limit = std::max<int64_t>(1, p.block_elements);
  if (threads > 1) {
    const int64_t share = (size + kBlocksPerThread * threads - 1) / (kBlocksPerThread * threads);
    limit = std::min(limit, std::max(kMinSplitBlock, share));
  }
  int k = p.ndim - 1;
  int64_t inner = 1;
  while (k > 0 && inner * p.shape[k] <= limit) inner *= p.shape[k--];
  w.axis = k;
  w.ndim = p.ndim - k;
  w.per_axis = std::max<int64_t>(1, std::min(p.shape[k], limit / inner));
  w.along = (p.shape[k] + w.per_axis - 1) / w.per_axis;
  w.blocks = size / (inner * p.shape[k]) * w.along;
  // 64-byte multiples keep every buffer aligned for any dtype.
  w.slot_bytes = (static_cast<size_t>(w.per_axis * inner) * 8 + 63) / 64 * 64;
  w.thread_bytes = (static_cast<size_t>(p.slots) + 2) * w.slot_bytes;
  w.threads = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, w.blocks)));
  size_t out_bytes = 0;
  for (const FusedView& v : p.outputs) out_bytes += static_cast<size_t>(size) * ItemSize(v.dtype);
  w.stream = out_bytes >= kStreamBytes;
  SmallBuffer<bool, kInlineResults> read_later(n);
  for (size_t s = 0; s < n; ++s) read_later[s] = false;
  for (const FusedStep& step : p.steps) {
    for (const FusedSource& src : step.x) {
      if (src.kind == FusedSource::kStep) read_later[static_cast<size_t>(src.index)] = true;
    }
  }
  w.read_later = read_later.get();
  size_t widest = 1;
  for (const FusedStep& step : p.steps) {
    widest = std::max({widest, ItemSize(step.compute), ItemSize(step.result)});
  }
  // The arrays tiles read and write in full: outputs, and inputs that vary
  // along the last axis of extent above 1 (not a per-channel value); and the
  // bytes of every array the run reads or writes (an input's elements along
  // the axes it varies along); and whether such an input lies at the first
  // output's offset in a cache line (for chain_stream below).
  int64_t streams = static_cast<int64_t>(p.outputs.size());
  size_t array_bytes = out_bytes;
  bool input_at_out_line = false;
  if (p.ndim > 0) {
    int last = p.ndim - 1;
    while (last > 0 && p.shape[last] == 1) --last;
    const uintptr_t line =
        p.outputs.empty() ? 0 : reinterpret_cast<uintptr_t>(operands.outputs[0].base) % 64;
    for (size_t i = 0; i < p.inputs.size(); ++i) {
      const FusedView& v = operands.inputs[i];
      streams += v.strides[last] != 0;
      input_at_out_line |= v.strides[last] != 0 && reinterpret_cast<uintptr_t>(v.base) % 64 == line;
      // Saturating: a view of overlapping strides may claim more than memory.
      size_t bytes = ItemSize(v.dtype);
      for (int d = 0; d < p.ndim; ++d) {
        if (v.strides[d] != 0 &&
            __builtin_mul_overflow(bytes, static_cast<size_t>(p.shape[d]), &bytes)) {
          bytes = SIZE_MAX;
        }
      }
      if (__builtin_add_overflow(array_bytes, bytes, &array_bytes)) array_bytes = SIZE_MAX;
    }
  }
  // Tiles pay where the operands come from the cache, and where they come
  // from memory (w.memory). Between the two, a result that streams past the
  // cache (w.stream) runs a step at a time over its block, its outputs stored
  // past the cache.
  w.memory = array_bytes >= kMemoryBytes;
  w.memory_stream = w.memory && out_bytes >= kMemoryStreamBytes;
  // The register path streams its one result as Execute streams a call's
  // (core/execute.h, kStreamBytes): from kStreamBytes where some array it
  // reads along the last axis lies at the result's offset in a cache line
  // (the head that aligns the streamed stores then aligns that array's loads
  // too), else from kStreamSplitBytes; beside streamed stores, loads split
  // in every array cost more than the stores save. Measured in one process
  // (docs/benchmarks.md, "Fused chains"): ((a - b) * c + d) / e on 4-6e6
  // float32 about 10% faster than stores through the cache, which it had
  // taken below 32 MiB.
  if (p.chain != nullptr && w.stream && p.ndim > 0) {
    w.chain_stream = input_at_out_line || out_bytes >= kStreamSplitBytes;
  }
  w.tiled = n <= kMaxTiledSteps && (w.memory || !w.stream);
  const int64_t budget = w.memory ? kMemoryTileBudget : kTileBudget;
  const int64_t min_tile = w.memory ? kMinMemoryTileBytes : kMinTileBytes;
  const int64_t max_tile = w.memory ? kMaxMemoryTileBytes : kMaxTileBytes;
  const int64_t tile_bytes = std::clamp(budget / std::max<int64_t>(1, streams), min_tile, max_tile);
  w.tile_elements = std::max<int64_t>(64, tile_bytes / static_cast<int64_t>(widest) / 64 * 64);
  alignas(64) char stack_scratch[kStackScratch];
  Scratch scratch(w.thread_bytes * w.threads, stack_scratch, sizeof(stack_scratch));
  w.scratch = scratch.get();
  const size_t per_run = n * static_cast<size_t>(w.threads);
  SmallBuffer<BlockView, kInlineResults> results(per_run);
  SmallBuffer<int, kInlineResults> thread_flags(per_run);
  w.results = results.get();
  w.thread_flags = thread_flags.get();
  for (size_t i = 0; i < per_run; ++i) w.thread_flags[i] = 0;
  if (w.threads == 1) {
    // Every block in turn, with no claims to share (RunBlocks' atomics).
    for (int64_t b = 0; b < w.blocks; ++b) RunBlock(w, b, w.scratch, w.results, w.thread_flags);
  } else {
    w.claims.Reset(w.blocks, w.threads);
    ThreadPool::Get().Run(&RunTask, &w, wake);
  }
  // Every thread has left the run (ThreadPool::Run returns after they do), so
  // their flags are final.
  for (int t = 0; t < w.threads; ++t) {
    for (size_t s = 0; s < n; ++s) flags[s] |= w.thread_flags[t * n + s];
  }
}

}  // namespace eltwise
