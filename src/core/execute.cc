#include "core/execute.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <new>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "core/claims.h"
#include "core/thread_pool.h"

namespace eltwise {
namespace {

constexpr int64_t kBlock = 1024;  // elements per gathered block
// Rows against a column shorter than kShortRow elements, and rows against a
// repeated row of at most kTile / 2, run kTile elements per kernel call
// (ExecuteColumnRepeated, ExecuteTiled).
constexpr int64_t kShortRow = 512, kTile = 4096;
// The least work a thread claims at a time, in bytes of operands and result.
constexpr size_t kMinChunkBytes = 48 << 10;

// Copies n elements of T from a packed buffer to a strided destination; the
// fixed-size memcpy compiles to one load and one store, alignment-safe.
template <typename T>
void ScatterT(char* dst, int64_t stride, const char* src, int64_t n) {
  for (int64_t i = 0; i < n; ++i) memcpy(dst + i * stride, src + i * sizeof(T), sizeof(T));
}

void Scatter(char* dst, int64_t stride, const char* src, int64_t n, size_t size) {
  switch (size) {
    case 1: return ScatterT<uint8_t>(dst, stride, src, n);
    case 2: return ScatterT<uint16_t>(dst, stride, src, n);
    case 4: return ScatterT<uint32_t>(dst, stride, src, n);
    default: return ScatterT<uint64_t>(dst, stride, src, n);
  }
}

// Whether a call's stores bypass the cache (ExecuteArgs::stream): its result
// is at least kStreamBytes, or kStreamSplitBytes where both operands that move
// along the inner dimension start at another offset within a 64-byte cache
// line than the result. A streaming store must be aligned, so the kernel
// aligns the result's runs; such an operand then splits every 64-byte vector
// load (every other 32-byte one) across two cache lines, and with both split
// that costs more than bypassing the cache saves until the call's bytes are
// well beyond the last-level cache (measured: docs/benchmarks.md, "Bandwidth
// and fresh results").
bool Streams(const Plan& plan, const ExecuteArgs& args) {
  const size_t out_bytes = static_cast<size_t>(plan.size) * args.out_itemsize;
  if (out_bytes < kStreamBytes) return false;
  const int inner = plan.ndim - 1;
  const auto line_offset = [](const char* p) { return reinterpret_cast<uintptr_t>(p) % 64; };
  const uintptr_t out = line_offset(args.out);
  const bool a_split = plan.stride[kA][inner] != 0 && line_offset(args.a) != out;
  const bool b_split = plan.stride[kB][inner] != 0 && line_offset(args.b) != out;
  return !(a_split && b_split) || out_bytes >= kStreamSplitBytes;
}

}  // namespace

bool CpuIsIntel() {
  static const bool intel = [] {
#if defined(__x86_64__) || defined(__i386__)
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    // "GenuineIntel" in ebx, edx, ecx.
    return __get_cpuid(0, &eax, &ebx, &ecx, &edx) && ebx == 0x756E6547u &&
           edx == 0x49656E69u && ecx == 0x6C65746Eu;
#else
    return false;
#endif
  }();
  return intel;
}

unsigned CpuHints() { return CpuIsIntel() ? static_cast<unsigned>(kHintSplitStoresCostly) : 0u; }

namespace {

// Runs n elements of one inner run with byte strides sa, sb, so. settled: a
// and b are the caller's memory, not a buffer just filled (kHintSettledInputs).
int RunInner(const ExecuteArgs& x, const char* a, const char* b, char* out, int64_t n,
             int64_t sa, int64_t sb, int64_t so, bool settled) {
  const int64_t isz = static_cast<int64_t>(x.in_itemsize);
  const int64_t osz = static_cast<int64_t>(x.out_itemsize);
  if (n == 1) sa = sa ? isz : 0, sb = sb ? isz : 0, so = osz;
  const bool a_scalar = sa == 0, b_scalar = sb == 0;
  if (so == osz && !(a_scalar && b_scalar) && (a_scalar || sa == isz) && (b_scalar || sb == isz)) {
    const LoopKind kind = a_scalar   ? LoopKind::kScalarFirst
                          : b_scalar ? LoopKind::kScalarSecond
                                     : LoopKind::kContiguous;
    const unsigned hints = (x.stream ? kHintStream : 0u) | (settled ? kHintSettledInputs : 0u) |
                           CpuHints();
    return x.kernels[static_cast<int>(kind)](a, b, out, static_cast<size_t>(n), hints);
  }
  // The strided loop loads whole vectors at strides of 0, 1 and 2 elements,
  // and lanes one by one at others. A vector load right after that many
  // narrow (1- and 2-byte) stores stalls, slower than packing first; so do a
  // heavy op's long chains on wider lanes (lanes stored one by one and read
  // back as a vector fail to forward from the store buffer), where a block
  // packed before its vectors load has left the buffer.
  const auto loads_in_place = [&](int64_t s) {
    return s == 0 || s == isz || s == 2 * isz || (isz >= 4 && !x.heavy);
  };
  const bool needs_scalar_second = b_scalar && !a_scalar && x.pack_beside_scalar_second;
  if (x.strided && so == osz && loads_in_place(sa) && loads_in_place(sb) && !needs_scalar_second) {
    return x.strided(a, sa, b, sb, out, static_cast<size_t>(n));
  }
  // Strided: through contiguous blocks. When both are scalars, b is
  // replicated into a block and a stays the scalar.
  alignas(64) char buf_a[kBlock * 8], buf_b[kBlock * 8], buf_o[kBlock * 8];
  const bool b_packed = !b_scalar || a_scalar;
  const LoopKind kind = a_scalar   ? LoopKind::kScalarFirst
                        : b_packed ? LoopKind::kContiguous
                                   : LoopKind::kScalarSecond;
  int flags = 0;
  for (int64_t i = 0; i < n; i += kBlock) {
    const int64_t m = std::min(kBlock, n - i);
    const char* pa = a + i * sa;
    const char* pb = b + i * sb;
    if (!a_scalar && sa != isz) x.pack(buf_a, pa, sa, m, isz), pa = buf_a;
    if (b_packed && sb != isz) x.pack(buf_b, pb, sb, m, isz), pb = buf_b;
    char* po = so == osz ? out + i * so : buf_o;
    flags |= x.kernels[static_cast<int>(kind)](pa, pb, po, static_cast<size_t>(m), 0);
    if (po == buf_o) Scatter(out + i * so, so, buf_o, m, osz);
  }
  return flags;
}

// The work of one call: units [0, units), a unit being one chunk of an inner
// run (rows are cut into chunks so a single long run splits too). Threads
// claim batches of units (Claims) until none are left.
struct Work {
  const Plan* plan;
  const ExecuteArgs* args;
  int64_t chunk;           // elements per chunk
  int64_t chunks_per_row;
  int across = -1;         // >= 0: the slot read across rows; units are groups of rows
  int64_t group_rows = 0;
  int64_t units;
  Claims claims;
  std::atomic<int> flags{0};
};

// A 2-d plan whose operand `across` (a or b) is read across rows, 1, 2 or 4
// bytes a lane (see AcrossRows): a transposed uint8 matrix, each element of a
// row on its own cache line and the next row's elements beside them. Packed
// row by row, every row fetched all those lines again and copied lane by
// lane; here a group of rows (as many as share a line) is transposed into a
// buffer kGroupColumns columns at a time (TransposeBlock, in registers),
// reading each line once, and each row of the group runs from the buffer, or
// the whole group as one run where its rows allow.
constexpr int64_t kGroupColumns = 256;
constexpr int64_t kLine = 64;
constexpr int64_t kGroupBytes = 32 << 10;  // the transposed buffer, on the stack

void RunGroups(Work& w, int64_t begin, int64_t end) {
  const Plan& p = *w.plan;
  const ExecuteArgs& x = *w.args;
  const int64_t rows = p.shape[0], n = p.shape[1];
  const int s = w.across;
  const int64_t inner = p.stride[s][1], outer = p.stride[s][0];
  const int64_t isz = static_cast<int64_t>(x.in_itemsize);
  alignas(64) char buf[kGroupBytes];
  // Whether a slot's rows run on one into the next (its row stride is n of
  // its inner strides; both 0: a broadcast scalar). |n * inner| is at most
  // the extent of the slot's array, or 0.
  const auto rows_follow = [&](int slot) { return p.stride[slot][0] == n * p.stride[slot][1]; };
  const bool merge = n <= kGroupColumns && rows_follow(s == kA ? kB : kA) && rows_follow(kOut);
  int flags = 0;
  for (int64_t g = begin; g < end; ++g) {
    const int64_t r0 = g * w.group_rows, k = std::min(w.group_rows, rows - r0);
    for (int64_t c = 0; c < n; c += kGroupColumns) {
      const int64_t m = std::min(kGroupColumns, n - c);
      const char* src = (s == kA ? x.a : x.b) + r0 * outer + c * inner;
      x.transpose(buf, src, inner, outer, k, m, x.in_itemsize);
      if (merge) {
        // Whole rows, and the other operand's and the result's rows lie one
        // after the other as the buffer's do: the group is one run of k * n
        // elements, one kernel call instead of k (a call's fixed cost is
        // large beside a short row's few vectors).
        flags |= RunInner(x, s == kA ? buf : x.a + r0 * p.stride[kA][0],
                          s == kB ? buf : x.b + r0 * p.stride[kB][0],
                          x.out + r0 * p.stride[kOut][0], k * n,
                          s == kA ? isz : p.stride[kA][1], s == kB ? isz : p.stride[kB][1],
                          p.stride[kOut][1], /*settled=*/false);
        continue;
      }
      for (int64_t r = 0; r < k; ++r) {
        const char* row = buf + r * m * isz;
        const int64_t at = r0 + r;
        flags |= RunInner(x, s == kA ? row : x.a + at * p.stride[kA][0] + c * p.stride[kA][1],
                          s == kB ? row : x.b + at * p.stride[kB][0] + c * p.stride[kB][1],
                          x.out + at * p.stride[kOut][0] + c * p.stride[kOut][1], m,
                          s == kA ? isz : p.stride[kA][1], s == kB ? isz : p.stride[kB][1],
                          p.stride[kOut][1], /*settled=*/false);
      }
    }
  }
  if (flags) w.flags.fetch_or(flags, std::memory_order_relaxed);
}

// The slot RunGroups transposes (-1: none) and its rows per group. 1- and
// 2-byte lanes always; 4-byte lanes only where a column's elements lie side
// by side, forwards or backwards (TransposeBlock's tiles transpose those in
// registers; other strides would be copied element by element, slower than
// the strided loop), in rows of at least kGroupColumns. A heavy op
// (ExecuteArgs::heavy) takes this path for 8-byte lanes and rows of any
// length too: packed row by row, every row would fetch all those lines again
// (each on its own page in a transposed matrix). Other 8-byte lanes stay on
// the strided loop, which is faster for them than groups (measurements: the
// commits that set these rules).
int AcrossRows(const Plan& p, const ExecuteArgs& x, int64_t* group_rows) {
  const size_t in_itemsize = x.in_itemsize;
  if (p.ndim != 2 || in_itemsize > (x.heavy ? 8u : 4u)) return -1;
  if (!x.heavy && p.shape[1] < kGroupColumns) return -1;
  const int64_t isz = static_cast<int64_t>(in_itemsize);
  const int64_t fit = kGroupBytes / (kGroupColumns * isz);
  for (int s = kA; s <= kB; ++s) {
    const int64_t inner = p.stride[s][1], outer = p.stride[s][0];
    // Magnitudes compared without negating: INT64_MIN has none.
    const bool across = inner >= kLine || inner <= -kLine;
    const bool beside = in_itemsize <= 2 ? outer != 0 && outer < kLine && outer > -kLine
                                         : outer == isz || outer == -isz;
    if (across && beside) {
      *group_rows = std::min({kLine / (outer < 0 ? -outer : outer), fit, p.shape[0]});
      if (*group_rows > 1) return s;
    }
  }
  return -1;
}

void RunUnits(Work& w, int64_t begin, int64_t end) {
  if (w.across >= 0) return RunGroups(w, begin, end);
  const Plan& p = *w.plan;
  const ExecuteArgs& x = *w.args;
  const int inner = p.ndim - 1;
  const int64_t n = p.shape[inner];
  int flags = 0;
  int64_t row = -1;
  int64_t index[kMaxDims];  // the row's index over the outer dims
  int64_t offset[3] = {0, 0, 0};
  const bool whole_rows = w.chunks_per_row == 1;
  for (int64_t u = begin; u < end; ++u) {
    const int64_t r = whole_rows ? u : u / w.chunks_per_row;
    if (r == row + 1 && row >= 0) {  // the next row: step the index like an odometer
      for (int d = inner - 1; d >= 0; --d) {
        for (int s = 0; s < 3; ++s) offset[s] += p.stride[s][d];
        if (++index[d] < p.shape[d]) break;
        for (int s = 0; s < 3; ++s) offset[s] -= p.shape[d] * p.stride[s][d];
        index[d] = 0;
      }
      row = r;
    } else if (r != row) {  // unravel the row index over the outer dims
      row = r;
      int64_t rem = r;
      offset[0] = offset[1] = offset[2] = 0;
      for (int d = inner - 1; d >= 0; --d) {
        index[d] = rem % p.shape[d];
        rem /= p.shape[d];
        for (int s = 0; s < 3; ++s) offset[s] += index[d] * p.stride[s][d];
      }
    }
    const int64_t start = whole_rows ? 0 : (u % w.chunks_per_row) * w.chunk;
    const int64_t m = std::min(w.chunk, n - start);
    flags |= RunInner(x, x.a + offset[kA] + start * p.stride[kA][inner],
                      x.b + offset[kB] + start * p.stride[kB][inner],
                      x.out + offset[kOut] + start * p.stride[kOut][inner], m,
                      p.stride[kA][inner], p.stride[kB][inner], p.stride[kOut][inner],
                      /*settled=*/true);
  }
  if (flags) w.flags.fetch_or(flags, std::memory_order_relaxed);
}

void RunTask(void* ctx) {
  Work& w = *static_cast<Work*>(ctx);
  for (int64_t begin, end; w.claims.Next(&begin, &end);) {
    RunUnits(w, begin, end);
  }
}

}  // namespace

// Rows against a repeated row ((N, 3) + (3,), NumPy issue 13307): one kernel
// call per row would cost more than the row, and at a thousand elements a
// call and a partial vector per row still cost a large share of the work.
// When x (a or b) and out are contiguous over both dims and the
// other operand repeats one row of at most kTile / 2 elements, the row is
// tiled k >= 2 times into a buffer and the call becomes (N / k) runs of k
// rows each, plus the leftover rows as they were.
// (Rows against a column stay per row from kShortRow on: repeating a column
// into a buffer cost more than a call per row for 4- and 8-byte lanes.)
static int ExecuteTiled(const Plan& plan, const ExecuteArgs& args, bool* done) {
  *done = false;
  if (plan.ndim != 2) return 0;
  const int64_t rows = plan.shape[0], n = plan.shape[1];
  const int64_t isz = static_cast<int64_t>(args.in_itemsize);
  const int64_t osz = static_cast<int64_t>(args.out_itemsize);
  const int64_t k = kTile / std::max<int64_t>(n, 1);
  if (k < 2 || rows < 2 * k) return 0;
  const auto dense = [&](int s, int64_t size) {
    return plan.stride[s][1] == size && plan.stride[s][0] == n * size;
  };
  const auto repeated = [&](int s) { return plan.stride[s][1] == isz && plan.stride[s][0] == 0; };
  int tiled;
  if (dense(kA, isz) && repeated(kB) && dense(kOut, osz)) {
    tiled = kB;
  } else if (dense(kB, isz) && repeated(kA) && dense(kOut, osz)) {
    tiled = kA;
  } else {
    return 0;
  }
  // No exception may leave Execute (it runs without the GIL): without
  // memory for the tile, the call takes the ordinary path.
  std::unique_ptr<char[]> tile(new (std::nothrow) char[static_cast<size_t>(k * n * isz)]);
  if (!tile) return 0;
  *done = true;
  const char* row = tiled == kA ? args.a : args.b;
  for (int64_t r = 0; r < k; ++r) memcpy(tile.get() + r * n * isz, row, static_cast<size_t>(n * isz));

  const int64_t blocks = rows / k;
  Plan main = plan;
  main.shape[0] = blocks;
  main.shape[1] = k * n;
  main.size = blocks * k * n;
  for (int s = 0; s < 3; ++s) main.stride[s][0] = s == tiled ? 0 : k * n * (s == kOut ? osz : isz);
  ExecuteArgs main_args = args;
  (tiled == kA ? main_args.a : main_args.b) = tile.get();
  int flags = Execute(main, main_args);

  Plan rest = plan;  // the leftover rows, through the ordinary path
  rest.shape[0] = rows - blocks * k;
  rest.size = rest.shape[0] * n;
  ExecuteArgs rest_args = args;
  const int64_t skip = blocks * k;
  if (tiled != kA) rest_args.a += skip * plan.stride[kA][0];
  if (tiled != kB) rest_args.b += skip * plan.stride[kB][0];
  rest_args.out += skip * plan.stride[kOut][0];
  return flags | Execute(rest, rest_args);
}

// Short rows against a column ((N, 2) + (N, 1)): the column's value repeats
// along each row, so the inner run is the row and one kernel call per row
// would cost more than the row. When x (a or b) and out are contiguous over
// both dims, blocks of rows run as one contiguous call each, with the
// column's values repeated into a buffer on the running thread's stack.
namespace {

template <typename T>
void RepeatEachT(char* dst, const char* src, int64_t src_stride, int64_t m, int64_t n) {
  T* d = reinterpret_cast<T*>(dst);
  for (int64_t i = 0; i < m; ++i) {
    T v;
    memcpy(&v, src + i * src_stride, sizeof(T));
    for (int64_t j = 0; j < n; ++j) d[i * n + j] = v;
  }
}

// dst[i * n + j] = src[i * src_stride] for i < m, j < n.
void RepeatEach(char* dst, const char* src, int64_t src_stride, int64_t m, int64_t n,
                size_t size) {
  switch (size) {
    case 1: return RepeatEachT<uint8_t>(dst, src, src_stride, m, n);
    case 2: return RepeatEachT<uint16_t>(dst, src, src_stride, m, n);
    case 4: return RepeatEachT<uint32_t>(dst, src, src_stride, m, n);
    default: return RepeatEachT<uint64_t>(dst, src, src_stride, m, n);
  }
}

struct ColumnWork {
  const ExecuteArgs* args;
  int column;              // kA or kB: the operand that repeats along rows
  int64_t column_stride;   // bytes between its rows
  int64_t rows, n, k;      // k rows per block
  int64_t blocks;
  Claims claims;
  std::atomic<int> flags{0};
};

void RunColumnBlocks(ColumnWork& w, int64_t begin, int64_t end) {
  const ExecuteArgs& x = *w.args;
  const int64_t isz = static_cast<int64_t>(x.in_itemsize);
  const int64_t osz = static_cast<int64_t>(x.out_itemsize);
  alignas(64) char buf[kTile * 8];
  int flags = 0;
  for (int64_t blk = begin; blk < end; ++blk) {
    const int64_t r0 = blk * w.k, m = std::min(w.k, w.rows - r0);
    const char* col = (w.column == kA ? x.a : x.b) + r0 * w.column_stride;
    RepeatEach(buf, col, w.column_stride, m, w.n, x.in_itemsize);
    const char* dense = (w.column == kA ? x.b : x.a) + r0 * w.n * isz;
    flags |= x.kernels[static_cast<int>(LoopKind::kContiguous)](
        w.column == kA ? buf : dense, w.column == kA ? dense : buf, x.out + r0 * w.n * osz,
        static_cast<size_t>(m * w.n), x.stream ? kHintStream : 0u);
  }
  if (flags) w.flags.fetch_or(flags, std::memory_order_relaxed);
}

void RunColumnTask(void* ctx) {
  ColumnWork& w = *static_cast<ColumnWork*>(ctx);
  for (int64_t begin, end; w.claims.Next(&begin, &end);) {
    RunColumnBlocks(w, begin, end);
  }
}

}  // namespace

static int ExecuteColumnRepeated(const Plan& plan, const ExecuteArgs& in_args, bool* done) {
  *done = false;
  if (plan.ndim != 2) return 0;
  const int64_t rows = plan.shape[0], n = plan.shape[1];
  const int64_t isz = static_cast<int64_t>(in_args.in_itemsize);
  const int64_t osz = static_cast<int64_t>(in_args.out_itemsize);
  if (n >= kShortRow || rows < 2 * (kTile / n)) return 0;
  const auto dense = [&](int s, int64_t size) {
    return plan.stride[s][1] == size && plan.stride[s][0] == n * size;
  };
  const auto column = [&](int s) { return plan.stride[s][1] == 0 && plan.stride[s][0] != 0; };
  ColumnWork w;
  if (dense(kA, isz) && column(kB) && dense(kOut, osz)) {
    w.column = kB;
  } else if (dense(kB, isz) && column(kA) && dense(kOut, osz)) {
    w.column = kA;
  } else {
    return 0;
  }
  *done = true;
  ExecuteArgs args = in_args;
  args.stream = Streams(plan, args);
  w.args = &args;
  w.column_stride = plan.stride[w.column][0];
  w.rows = rows;
  w.n = n;
  w.k = kTile / n;
  w.blocks = (rows + w.k - 1) / w.k;
  const size_t bytes = static_cast<size_t>(plan.size) * (2 * args.in_itemsize + args.out_itemsize);
  ThreadPool& pool = ThreadPool::Get();
  const int tasks = bytes >= args.parallel_bytes ? pool.threads() : 1;
  if (tasks <= 1) {
    RunColumnBlocks(w, 0, w.blocks);
  } else {
    w.claims.Reset(w.blocks, tasks);
    pool.Run(&RunColumnTask, &w, bytes >= args.wake_bytes);
  }
  return w.flags.load(std::memory_order_relaxed);
}

int Execute(const Plan& plan, const ExecuteArgs& in_args) {
  if (plan.size == 0) return 0;
  if (plan.ndim == 1 && static_cast<size_t>(plan.size) * (2 * in_args.in_itemsize +
                                                          in_args.out_itemsize) < in_args.parallel_bytes) {
    // One run on this thread: small calls pay for nothing else.
    return RunInner(in_args, in_args.a, in_args.b, in_args.out, plan.shape[0], plan.stride[kA][0],
                    plan.stride[kB][0], plan.stride[kOut][0], /*settled=*/true);
  }
  bool tiled;
  const int tiled_flags = ExecuteTiled(plan, in_args, &tiled);
  if (tiled) return tiled_flags;
  bool repeated;
  const int column_flags = ExecuteColumnRepeated(plan, in_args, &repeated);
  if (repeated) return column_flags;
  ExecuteArgs args = in_args;
  args.stream = Streams(plan, args);
  Work w;
  w.plan = &plan;
  w.args = &args;
  const int64_t n = plan.shape[plan.ndim - 1];
  const size_t bytes = static_cast<size_t>(plan.size) * (2 * args.in_itemsize + args.out_itemsize);
  ThreadPool& pool = ThreadPool::Get();
  int tasks = bytes >= args.parallel_bytes ? pool.threads() : 1;
  // Chunks of at least kMinChunkBytes (operands and result) keep the cost of
  // a claim (one contended atomic) below 10% of the chunk's.
  const int64_t rows = plan.size / n;
  w.chunk = n;
  if (tasks > 1 && rows < 8 * tasks) {
    const int64_t want = std::max<int64_t>(1, 8 * tasks / rows);
    const int64_t min_chunk = static_cast<int64_t>(
        kMinChunkBytes / (2 * args.in_itemsize + args.out_itemsize));
    w.chunk = std::max<int64_t>(min_chunk, (n + want - 1) / want);
    // A multiple of 64 elements: where the row starts on a cache line, no
    // line of the result is written by two threads (a line written on two
    // cores moves between their caches).
    w.chunk = (w.chunk + 63) / 64 * 64;
  }
  w.chunks_per_row = (n + w.chunk - 1) / w.chunk;
  w.units = rows * w.chunks_per_row;
  w.across = AcrossRows(plan, args, &w.group_rows);
  if (w.across >= 0) w.units = (rows + w.group_rows - 1) / w.group_rows;
  if (tasks <= 1 || w.units == 1) {
    RunUnits(w, 0, w.units);
  } else {
    w.claims.Reset(w.units, tasks);
    pool.Run(&RunTask, &w, bytes >= args.wake_bytes);
  }
  return w.flags.load(std::memory_order_relaxed);
}

}  // namespace eltwise
