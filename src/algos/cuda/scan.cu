/* The CUDA twins of the prefix sums of Capannini's thesis §3.3 (src/algos/simt/scan.c,
 * docs/models/kmodel.md): scan/nopad, scan/padding, scan/leftright (exclusive, Blelloch/Harris
 * up-sweep, root, down-sweep, with three layouts of the tree in shared memory) and
 * scan/hillis-steele (inclusive). 32-bit words, 32-bit addition, random inputs; every case is
 * checked against a sequential scan.
 *
 * Same work, layout and mapping as the SIMT twin, memory instruction for memory instruction: one
 * block scans m = `block` elements (an array of n <= block: one block of the next power of two);
 * a tree block has max(m/2, 1) threads, at most 1024, a Hillis-Steele block min(m, 1024). Thread t
 * moves elements first + t of round first = 0, P, 2P, ... between global words and shared words
 * (one 4-byte LDG and one STS per round, or LDS and STG), does operation first + t of each round
 * of a tree level (up: LDS left, LDS right, add, STS parent; down: LDS, LDS, add, STS, STS), and
 * element first + t of each Hillis-Steele step (LDS, add; barrier; STS; barrier). Shared word of
 * node i of level d: tree_slot below, the SIMT twin's formula. Longer arrays take the thesis's
 * three kernels: tree, block totals to partial[] (load + up-sweep + total), the same scan of
 * partial[], then every block again (load + up-sweep + root = partial[j] + down-sweep + store);
 * Hillis-Steele, per-block scans writing their totals, the same scan of the totals, then a carry
 * kernel (block j + 1 adds the inclusive total of blocks 0..j; every lane loads it). Each level's
 * partial[] is its own 256-byte aligned stretch of the scratch buffer (out2), as mdl_simt_alloc
 * aligns it; the scans read in and write out (the SIMT twin scans in place: the same accesses to
 * another equally aligned array).
 *
 * Kernels (as Nsight Compute names them), per launch:
 *   scan_tree<LAYOUT, M, MODE>         LAYOUT 0 nopad, 1 padding, 2 leftright (LR'), 3 leftright
 *                                      mapping=literal (Eq. 3.2); M elements per block; MODE 0 the
 *                                      whole array in one block, 1 totals (first of three), 2 seeded
 *                                      (third of three);
 *   scan_hillis_steele<M, TOTALS>      TOTALS 1: first of three, writes the block's total;
 *   scan_hillis_steele_carry<M>        third of three, grid blocks - 1.
 * Launches per case: L(n) = 1 when n <= block, else 2 + L(ceil(n / block)); block=2048: 1 up to
 * 2048, 3 up to 2^22 (n = 2^20: 3), 5 up to 2^33 (n = 2^24 + 7 and 2^27: 5).
 * M is a template parameter (1 .. 2^15: every power of two a parameter table's block can give,
 * but 65536, whose block needs 256 KiB of shared memory where an H100 block gets at most 227 KiB;
 * validate refuses it unless n <= 32768 makes the block smaller). So every loop over rounds,
 * levels and steps has compile-time bounds and is unrolled (#pragma unroll), as in the SIMT twin,
 * where those loops are host C and issue nothing; the registers of per-round values (a
 * Hillis-Steele thread's elements, a LeftRight thread's left operands) stay registers.
 *
 * Branches the SASS has: each `if_in` of the SIMT twin (the threads of a round inside [lo, hi)) is
 * an in_round() here: a loop of at most one trip (stride blockDim.x), not an if, because ptxas
 * turns a short if into predicated code, and a warp whose lanes are all predicated off still issues
 * its LDS/STS (Nsight Compute counts it in smsp__inst_executed_op_shared_*, docs/models/gpu.md
 * difference 1) where the SIMT twin's if issues nothing; a loop body is not predicated. Expected
 * per in_round, per warp: a conditional BRA past the loop (the if's branch; none where the
 * compiler proves every lane of the round inside, i.e. lo = 0 and hi a compile-time bound at or
 * past the round's end: tree levels with count >= P) and the loop's bottom test, a conditional BRA
 * never taken, executed by the warps with a lane inside (for a round of one operation, the root
 * and the top levels, nvcc reduces that test to blockDim.x == 0: still a branch); ptxas may add
 * BSSY/BSYNC around a loop that can diverge. Per warp and launch, the in_rounds are:
 *   scan_tree: M/P load rounds (lo = 0, hi = n), then per level d (0 .. log2 M - 1) the rounds of
 *     count = M >> (d+1) operations (max(count/P, 1) each; hi = count), one for the root (thread
 *     0), then (MODE != 1) the down-sweep's rounds again and M/P store rounds (hi = n). MODE 1 ends
 *     with EXIT after the root.
 *   scan_hillis_steele: M/P load rounds (hi = n); per step off = 1, 2, .. M/2 and per round first
 *     with first + P > off: one for the loads and one for the stores ([off, M)); M/P store rounds
 *     (hi = n); TOTALS: one for the total (lane P - 1 of the last round).
 *   scan_hillis_steele_carry: the carry's load (every lane, no branch), then M/P rounds (hi = n).
 * No other branch: layouts, modes and levels are template constants, LeftRight's choice of the
 * parent's word in the down-sweep is a select (the SIMT twin's one ALU instruction), and the
 * words' arithmetic with k = 2^h, a kernel argument, is ALU (mapping=literal's d mod h an inline
 * 32-bit division).
 *
 * What could make Nsight Compute differ from the SIMT prediction, to look at in the SASS first:
 * an in_round predicated after all (shared instruction counts of the warps entirely outside a
 * round: tree levels with count < P, the root, the last block's rounds past n, Hillis-Steele rounds
 * below off); register spills (LDL/STL, which the SIMT twin does not have: ptxas -v must report 0
 * spill bytes; it does with __launch_bounds__ (P, 1), while with (P) alone ptxas aimed at 32
 * registers for two 1024-thread blocks per SM and spilled at M = 8192); adjacent shared words
 * merged into LDS.64/STS.64 (nopad and leftright touch words 2i and 2i + 1 at level 0: nvcc's
 * vectorizer merged them, so shared accesses are inline PTX, lds/sts; ptxas is not expected to
 * merge). Elements past n in the last block
 * are not zeroed here (the SIMT twin's shared memory starts at 0): they change only that block's
 * total, which no later block reads, never the counters. mapping=literal races inside a level for
 * blocks of more than k^2 elements (a parent on neither operand's word), so its wrong results may
 * differ from the SIMT twin's; its addresses, and so its counters, do not. */
#include <array>
#include <cstring>
#include <utility>

#include "twin.h"

/* ---- the layouts (src/algos/simt/scan.c) ---- */

enum { LAYOUT_NOPAD, LAYOUT_PADDING, LAYOUT_LR, LAYOUT_LR_LITERAL };
enum { MODE_WHOLE, MODE_TOTALS, MODE_SEEDED };

/* Blocks up to 2^MAX_LOG elements: 2^15 words of padding at k = 2 need 192 KiB of shared memory,
 * 2^16 words alone 256 KiB, past the 227 KiB an sm_90 block may have. */
static const int MAX_LOG = 15;

/* LR'(i, d + 1) = LR'(step (i), d): a parent of the first k/2 of each run of k nodes sits on its
 * left operand's word, one of the last k/2 on its right one's (b_i, bit h - 1 of i). */
__host__ __device__ __forceinline__ unsigned
lr_step (unsigned i, unsigned h)
{
  return 2 * i + ((i >> (h - 1)) & 1);
}

/* The shared word of node @i of level @d (level 0: the elements) for banks k = 2^@h, but LR'
 * (applying lr_step d times): no padding, Harris's padding, Eq. 3.2 as printed (the h low bits
 * rotated left by d mod h; not in place past k^2). */
__host__ __device__ __forceinline__ unsigned
closed_slot (int layout, unsigned i, unsigned d, unsigned h)
{
  unsigned a = (i << d) + (1u << d) - 1, low = (1u << h) - 1, b = i & low, r = h ? d % h : 0;
  if (layout == LAYOUT_LR_LITERAL)
    return ((i << d) & ~low) + (r ? ((b << r) | (b >> (h - r))) & low : b);
  return layout == LAYOUT_PADDING ? a + (a >> h) : a;
}

/* The same, for the host: any layout, any level. */
static unsigned
slot_of (int layout, unsigned i, unsigned d, unsigned h)
{
  if (layout != LAYOUT_LR)
    return closed_slot (layout, i, d, h);
  for (unsigned l = 0; l < d; l++)
    i = lr_step (i, h);
  return i;
}

/* The same in a kernel, with the level a compile-time constant (LR' unrolled by recursion). */
template <int LAYOUT, unsigned D>
__device__ __forceinline__ unsigned
tree_slot (unsigned i, unsigned h)
{
  if constexpr (LAYOUT != LAYOUT_LR)
    return closed_slot (LAYOUT, i, D, h);
  else if constexpr (D == 0)
    return i;
  else
    return tree_slot<LAYOUT, D - 1> (lr_step (i, h), h);
}

/* ---- block shapes, shared by the kernels and the host ---- */

__host__ __device__ constexpr unsigned
tree_threads (unsigned m)
{
  return m / 2 < 1 ? 1 : m / 2 > 1024 ? 1024 : m / 2;
}

__host__ __device__ constexpr unsigned
hs_threads (unsigned m)
{
  return m > 1024 ? 1024 : m;
}

__host__ __device__ constexpr unsigned
log2_of (unsigned m)
{
  return m <= 1 ? 0 : 1 + log2_of (m / 2);
}

/* The rounds of a tree block of M elements: level d has count = M >> (d+1) operations, done by P
 * threads in ceil(count / P) rounds; round r of the up-sweep (counting all levels, level 0 first)
 * is the index of the thread's left-operand register of that round. */
template <int M>
struct TreeRounds {
  static constexpr unsigned P = tree_threads (M), LEVELS = log2_of (M);

  __host__ __device__ static constexpr unsigned
  of_level (unsigned d)
  {
    return ((M >> (d + 1)) + P - 1) / P;
  }
  __host__ __device__ static constexpr unsigned
  before (unsigned d)
  {
    return d == 0 ? 0 : before (d - 1) + of_level (d - 1);
  }
  static constexpr unsigned ALL = before (LEVELS);
  __host__ __device__ static constexpr unsigned
  level (unsigned r)
  {
    unsigned d = 0;
    while (before (d + 1) <= r)
      d++;
    return d;
  }
  __host__ __device__ static constexpr unsigned
  first (unsigned r)
  {
    return (r - before (level (r))) * P;
  }
  /* the round of the up-sweep that the down-sweep's j-th round redoes: levels top down, each
   * level's rounds in order */
  __host__ __device__ static constexpr unsigned
  down (unsigned j)
  {
    unsigned d = LEVELS - 1;
    while (j >= of_level (d))
      j -= of_level (d--);
    return before (d) + j;
  }
};

/* Thread t runs @body (first + t) when lo <= first + t < hi, in the round [first, first + P) of the
 * P threads of the block: the SIMT twin's if_in. A loop of at most one trip (its stride
 * blockDim.x = P takes x past the round), not an if: ptxas predicates a short if, and a warp with
 * every lane predicated off still issues the shared loads and stores the SIMT twin's if skips
 * (see the file's header). blockDim.x, unknown to the compiler, keeps it a loop. */
template <unsigned P, typename F>
__device__ __forceinline__ void
in_round (unsigned first, unsigned lo, unsigned hi, F body)
{
  unsigned end = hi < first + P ? hi : first + P;
#pragma unroll 1
  for (unsigned x = first + threadIdx.x; x >= lo && x < end; x += blockDim.x)
    body (x);
}

/* ---- shared memory, one 4-byte LDS or STS per access ---- */

extern __shared__ unsigned shared_words[];

/* In PTX, so that no access is merged with its neighbour: nvcc's load-store vectorizer makes
 * ld.shared.v2 of words 2i and 2i + 1 (level 0 of nopad and leftright), an 8-byte access the SIMT
 * twin does not have. */
__device__ __forceinline__ unsigned
lds (unsigned word)
{
  unsigned v, at = (unsigned) __cvta_generic_to_shared (shared_words) + 4 * word;
  asm volatile ("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(at) : "memory");
  return v;
}

__device__ __forceinline__ void
sts (unsigned word, unsigned v)
{
  unsigned at = (unsigned) __cvta_generic_to_shared (shared_words) + 4 * word;
  asm volatile ("st.shared.u32 [%0], %1;" : : "r"(at), "r"(v) : "memory");
}

/* ---- kernels ---- */

/* Round R of the up-sweep (Algorithm 6's operation on any layout): node op of level d + 1 = node
 * 2op + node 2op + 1 of level d, the left operand kept in left[R]; a barrier ends each level. */
template <int LAYOUT, int M, unsigned R>
__device__ __forceinline__ void
up_round (unsigned *left, unsigned h)
{
  typedef TreeRounds<M> T;
  constexpr unsigned D = T::level (R), FIRST = T::first (R), COUNT = M >> (D + 1);
  in_round<T::P> (FIRST, 0, COUNT, [&] (unsigned op) {
    unsigned x = lds (tree_slot<LAYOUT, D> (2 * op, h));
    unsigned y = lds (tree_slot<LAYOUT, D> (2 * op + 1, h));
    left[R] = x;
    sts (tree_slot<LAYOUT, D + 1> (op, h), x + y);
  });
  if (FIRST + T::P >= COUNT)
    __syncthreads ();
}

/* Round R again in the down-sweep, Harris's step: left child <- the parent's prefix, right child
 * <- prefix + the left child's sum. NoPadding and Padding keep the parent on the right operand's
 * word; LeftRight on either (a left-sum destroyed the left child's sum, kept in left[R]: a select,
 * no branch); Eq. 3.2 past k^2 on neither, which breaks the scan as in the SIMT twin. */
template <int LAYOUT, int M, unsigned R>
__device__ __forceinline__ void
down_round (const unsigned *left, unsigned h)
{
  typedef TreeRounds<M> T;
  constexpr unsigned D = T::level (R), FIRST = T::first (R), COUNT = M >> (D + 1);
  in_round<T::P> (FIRST, 0, COUNT, [&] (unsigned op) {
    unsigned at_l = tree_slot<LAYOUT, D> (2 * op, h), at_r = tree_slot<LAYOUT, D> (2 * op + 1, h);
    unsigned x = lds (at_l), y = lds (at_r);
    bool on_right = LAYOUT == LAYOUT_NOPAD || LAYOUT == LAYOUT_PADDING
                    || tree_slot<LAYOUT, D + 1> (op, h) == at_r;
    unsigned prefix = on_right ? y : x, left_sum = on_right ? x : left[R];
    sts (at_l, prefix);
    sts (at_r, prefix + left_sum);
  });
  if (FIRST + T::P >= COUNT)
    __syncthreads ();
}

template <int LAYOUT, int M, unsigned... R>
__device__ __forceinline__ void
up_sweep (unsigned *left, unsigned h, std::integer_sequence<unsigned, R...>)
{
  (up_round<LAYOUT, M, R> (left, h), ...);
}

template <int LAYOUT, int M, unsigned... J>
__device__ __forceinline__ void
down_sweep (const unsigned *left, unsigned h, std::integer_sequence<unsigned, J...>)
{
  (down_round<LAYOUT, M, TreeRounds<M>::down (J)> (left, h), ...);
}

/* One block of a tree scan: its M elements from @in to their leaf words, the up-sweep, then
 * thread 0 either writes the total to partial[block] (MODE_TOTALS) or sets the root to the block's
 * prefix (0, or partial[block] when seeded), the down-sweep, and the leaves to @out. */
template <int LAYOUT, int M, int MODE>
__global__ void __launch_bounds__ (tree_threads (M), 1)
scan_tree (unsigned *in, unsigned *out, unsigned *partial, unsigned n, unsigned h)
{
  typedef TreeRounds<M> T;
  constexpr unsigned P = T::P;
  unsigned base = blockIdx.x * M;
  unsigned left[T::ALL > 0 ? T::ALL : 1];

#pragma unroll
  for (unsigned first = 0; first < M; first += P)
    in_round<P> (base + first, 0, n,
                 [&] (unsigned x) { sts (tree_slot<LAYOUT, 0> (x - base, h), in[x]); });
  __syncthreads ();

  up_sweep<LAYOUT, M> (left, h, std::make_integer_sequence<unsigned, T::ALL> ());

  unsigned root = tree_slot<LAYOUT, T::LEVELS> (0, h);
  in_round<P> (0, 0, 1, [&] (unsigned) {
    if (MODE == MODE_TOTALS)
      partial[blockIdx.x] = lds (root);
    else
      sts (root, MODE == MODE_SEEDED ? partial[blockIdx.x] : 0);
  });
  if (MODE == MODE_TOTALS)
    return;
  __syncthreads ();

  down_sweep<LAYOUT, M> (left, h, std::make_integer_sequence<unsigned, T::ALL> ());

#pragma unroll
  for (unsigned first = 0; first < M; first += P)
    in_round<P> (base + first, 0, n,
                 [&] (unsigned x) { out[x] = lds (tree_slot<LAYOUT, 0> (x - base, h)); });
}

/* One block of Hillis-Steele (Algorithm 5, cleaned): thread t keeps element rP + t in v[r]; at
 * step off, every element e >= off loads element e - off and adds it, a barrier, then stores
 * itself, a barrier (reads of a step before its writes). Inclusive. With TOTALS, lane P - 1 of the
 * last round writes the block's total to partial[block]. */
template <int M, int TOTALS>
__global__ void __launch_bounds__ (hs_threads (M), 1)
scan_hillis_steele (unsigned *in, unsigned *out, unsigned *partial, unsigned n, unsigned)
{
  constexpr unsigned P = hs_threads (M), R = M / P;
  unsigned base = blockIdx.x * M;
  unsigned v[R];

#pragma unroll
  for (unsigned r = 0; r < R; r++)
    {
      v[r] = 0;
      in_round<P> (base + r * P, 0, n, [&] (unsigned x) {
        v[r] = in[x];
        sts (x - base, v[r]);
      });
    }
  __syncthreads ();

#pragma unroll
  for (unsigned off = 1; off < M; off *= 2)
    {
#pragma unroll
      for (unsigned r = 0; r < R; r++)
        in_round<P> (r * P, off, M, [&] (unsigned e) { v[r] += lds (e - off); });
      __syncthreads ();
#pragma unroll
      for (unsigned r = 0; r < R; r++)
        in_round<P> (r * P, off, M, [&] (unsigned e) { sts (e, v[r]); });
      __syncthreads ();
    }

#pragma unroll
  for (unsigned r = 0; r < R; r++)
    in_round<P> (base + r * P, 0, n, [&] (unsigned x) { out[x] = v[r]; });
  if (TOTALS)
    in_round<P> (M - P, M - 1, M, [&] (unsigned) { partial[blockIdx.x] = v[R - 1]; });
}

/* Hillis-Steele's third kernel: block j adds partial[j], the inclusive total of blocks 0..j, to
 * block j + 1 (every lane loads it). */
template <int M>
__global__ void __launch_bounds__ (hs_threads (M), 1)
scan_hillis_steele_carry (unsigned *, unsigned *out, unsigned *partial, unsigned n, unsigned)
{
  constexpr unsigned P = hs_threads (M);
  unsigned base = (blockIdx.x + 1) * M;
  unsigned carry = partial[blockIdx.x];
#pragma unroll
  for (unsigned first = 0; first < M; first += P)
    in_round<P> (base + first, 0, n, [&] (unsigned x) { out[x] += carry; });
}

/* ---- the kernel tables: one entry per M = 2^0 .. 2^MAX_LOG ---- */

typedef void (*ScanKernel) (unsigned *, unsigned *, unsigned *, unsigned, unsigned);
typedef std::array<ScanKernel, MAX_LOG + 1> BySize;
typedef std::make_index_sequence<MAX_LOG + 1> Sizes;

template <int LAYOUT, int MODE, size_t... L>
static constexpr BySize
tree_sizes (std::index_sequence<L...>)
{
  return { { scan_tree<LAYOUT, 1 << L, MODE>... } };
}

/* tree_kernels[layout * 3 + mode][log2 M] */
template <size_t... I>
static constexpr std::array<BySize, sizeof... (I)>
tree_table (std::index_sequence<I...>)
{
  return { { tree_sizes<I / 3, I % 3> (Sizes ())... } };
}
static const std::array<BySize, 12> tree_kernels = tree_table (std::make_index_sequence<12> ());

template <int TOTALS, size_t... L>
static constexpr BySize
hs_sizes (std::index_sequence<L...>)
{
  return { { scan_hillis_steele<1 << L, TOTALS>... } };
}
static const BySize hs_kernels[2] = { hs_sizes<0> (Sizes ()), hs_sizes<1> (Sizes ()) };

template <size_t... L>
static constexpr BySize
carry_sizes (std::index_sequence<L...>)
{
  return { { scan_hillis_steele_carry<1 << L>... } };
}
static const BySize carry_kernels = carry_sizes (Sizes ());

/* ---- the twins ---- */

enum { SCAN_NOPAD, SCAN_PADDING, SCAN_LEFTRIGHT, SCAN_HILLIS_STEELE };

/* A case as the SIMT twin's Scan: its layout, log2 k, block. */
struct Scan {
  bool tree;  /* false: Hillis-Steele */
  int layout; /* a tree's; Hillis-Steele's elements sit at their own index (nopad, level 0) */
  unsigned h;
  unsigned block;
};

static Scan
scan_of (int family, const Case &c)
{
  Scan s = { family != SCAN_HILLIS_STEELE, LAYOUT_NOPAD, 0, (unsigned) c.num ("block", 2048) };
  if (family == SCAN_PADDING || family == SCAN_LEFTRIGHT)
    s.h = (unsigned) log2_of ((unsigned) c.num ("k", 16));
  if (family == SCAN_PADDING)
    s.layout = LAYOUT_PADDING;
  if (family == SCAN_LEFTRIGHT)
    s.layout = c.text ("mapping", "corrected") == "literal" ? LAYOUT_LR_LITERAL : LAYOUT_LR;
  return s;
}

/* The elements of one block for an array of @n: `block`, or the power of two that holds all. */
static unsigned
block_elements (const Scan &s, unsigned n)
{
  unsigned m = 1;
  if (n > s.block)
    return s.block;
  while (m < n)
    m *= 2;
  return m;
}

static unsigned
shared_bytes (const Scan &s, unsigned m)
{
  return 4 * (slot_of (s.layout, m - 1, 0, s.h) + 1);
}

/* Where a kernel argument points: the case's input, its output, or a word of the scratch buffer
 * (out2) that holds every level's partial[]. */
enum { BUF_NONE, BUF_IN, BUF_OUT, BUF_SCRATCH };
struct Ref {
  int buf;
  size_t word;
};

/* One kernel launch of a case. */
struct Step {
  ScanKernel kernel;
  std::string name; /* as Nsight Compute shows it, less the arguments */
  unsigned grid, threads, shared, n;
  Ref in, out, partial;
};

/* Appends the launches that scan the @n words at @in into @out (the SIMT twin's scan_array),
 * taking each level's partial[] from the scratch words past *@scratch. */
static void
plan_array (const Scan &s, Ref in, Ref out, unsigned n, size_t *scratch, std::vector<Step> &steps)
{
  unsigned m = block_elements (s, n), blocks = (n + m - 1) / m, lg = log2_of (m);
  unsigned threads = s.tree ? tree_threads (m) : hs_threads (m);
  std::string size = std::to_string (m);
  std::string tree = "scan_tree<" + std::to_string (s.layout) + ", " + size + ", ";
  Ref none = { BUF_NONE, 0 }, partial = { BUF_SCRATCH, *scratch };
  if (blocks == 1)
    {
      if (s.tree)
        steps.push_back ({ tree_kernels[s.layout * 3 + MODE_WHOLE][lg], tree + "0>", 1, threads,
                           shared_bytes (s, m), n, in, out, none });
      else
        steps.push_back ({ hs_kernels[0][lg], "scan_hillis_steele<" + size + ", 0>", 1, threads,
                           shared_bytes (s, m), n, in, out, none });
      return;
    }
  *scratch += (blocks + 63) / 64 * 64;
  if (s.tree)
    steps.push_back ({ tree_kernels[s.layout * 3 + MODE_TOTALS][lg], tree + "1>", blocks,
                       threads, shared_bytes (s, m), n, in, none, partial });
  else
    steps.push_back ({ hs_kernels[1][lg], "scan_hillis_steele<" + size + ", 1>", blocks, threads,
                       shared_bytes (s, m), n, in, out, partial });
  plan_array (s, partial, partial, blocks, scratch, steps);
  if (s.tree)
    steps.push_back ({ tree_kernels[s.layout * 3 + MODE_SEEDED][lg], tree + "2>", blocks,
                       threads, shared_bytes (s, m), n, in, out, partial });
  else
    steps.push_back ({ carry_kernels[lg], "scan_hillis_steele_carry<" + size + ">", blocks - 1,
                       threads, 0, n, out, out, partial });
}

/* The case's launches, and the scratch words they need. */
static std::vector<Step>
plan_case (const Scan &s, const Case &c, size_t *scratch)
{
  std::vector<Step> steps;
  *scratch = 0;
  plan_array (s, { BUF_IN, 0 }, { BUF_OUT, 0 }, (unsigned) c.n, scratch, steps);
  return steps;
}

static bool
refuse (std::string *why, const std::string &text)
{
  *why = text;
  return false;
}

static bool
pow2_in (long v, long lo, long hi)
{
  return v >= lo && v <= hi && (v & (v - 1)) == 0;
}

template <int FAMILY>
static bool
scan_validate (const Case &c, std::string *why)
{
  Scan s = scan_of (FAMILY, c);
  std::string mapping = c.text ("mapping", "corrected");
  if (c.n < 1 || c.n > (1L << 28))
    return refuse (why, "n must be 1..2^28");
  if (!pow2_in (c.num ("block", 2048), 2, 65536))
    return refuse (why, "block must be a power of two, 2..65536");
  if ((FAMILY == SCAN_PADDING || FAMILY == SCAN_LEFTRIGHT) && !pow2_in (c.num ("k", 16), 2, 1024))
    return refuse (why, "k must be a power of two, 2..1024");
  if (mapping != "corrected" && mapping != "literal")
    return refuse (why, "mapping must be one of corrected|literal");
  if (block_elements (s, (unsigned) c.n) > (1u << MAX_LOG))
    return refuse (why, "a block of " + std::to_string (block_elements (s, (unsigned) c.n))
                          + " elements needs "
                          + std::to_string (shared_bytes (s, block_elements (s, (unsigned) c.n))
                                            / 1024)
                          + " KiB of shared memory, more than the 227 KiB an H100 block may have "
                            "(block=32768 is the largest that runs)");
  return true;
}

template <int FAMILY>
static void
scan_prepare (const Case &c, Buffers &b, uint64_t *rng)
{
  Scan s = scan_of (FAMILY, c);
  size_t scratch;
  b.in.resize ((size_t) c.n * 4);
  mdl_cuda_fill_random (b.in, rng);
  b.out.assign ((size_t) c.n * 4, MDL_CUDA_POISON);
  for (const Step &step : plan_case (s, c, &scratch))
    CUDA_OK (cudaFuncSetAttribute ((const void *) step.kernel,
                                   cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int) step.shared));
  b.out2.assign (scratch * 4, MDL_CUDA_POISON);
}

static unsigned *
device_words (const Buffers &b, Ref r)
{
  switch (r.buf)
    {
    case BUF_IN:
      return (unsigned *) b.d_in + r.word;
    case BUF_OUT:
      return (unsigned *) b.d_out + r.word;
    case BUF_SCRATCH:
      return (unsigned *) b.d_out2 + r.word;
    default:
      return nullptr;
    }
}

template <int FAMILY>
static int
scan_launch (const Case &c, Buffers &b)
{
  Scan s = scan_of (FAMILY, c);
  size_t scratch;
  std::vector<Step> steps = plan_case (s, c, &scratch);
  for (const Step &step : steps)
    step.kernel<<<step.grid, step.threads, step.shared>>> (
      device_words (b, step.in), device_words (b, step.out), device_words (b, step.partial),
      step.n, s.h);
  return (int) steps.size ();
}

/* The parents of a block of @m elements that Eq. 3.2 puts on neither operand's word
 * (mdl_scan_leftright_off_operand). */
static unsigned
off_operand (const Scan &s, unsigned m)
{
  unsigned off = 0;
  for (unsigned d = 0; (2u << d) <= m; d++)
    for (unsigned i = 0; i < m >> (d + 1); i++)
      {
        unsigned p = slot_of (s.layout, i, d + 1, s.h);
        off += p != slot_of (s.layout, 2 * i, d, s.h) && p != slot_of (s.layout, 2 * i + 1, d, s.h);
      }
  return off;
}

/* Says on stderr where the output first differs from the reference and what the case launched. */
static void
report_wrong (const Scan &s, const Case &c, size_t i, unsigned got, unsigned want)
{
  size_t scratch;
  unsigned m = block_elements (s, (unsigned) c.n);
  fprintf (stderr, "gpu-kernels: %s: element %zu of %ld (block %zu, offset %zu) is 0x%08x, the "
           "sequential %s scan has 0x%08x; launches:", c.spec.c_str (), i, c.n, i / m, i % m, got,
           s.tree ? "exclusive" : "inclusive", want);
  for (const Step &step : plan_case (s, c, &scratch))
    fprintf (stderr, " %s %u x %u (%u B, n=%u);", step.name.c_str (), step.grid, step.threads,
             step.shared, step.n);
  if (s.layout == LAYOUT_LR_LITERAL && off_operand (s, m))
    fprintf (stderr, " mapping=literal (Eq. 3.2 as printed) puts %u of the %u parents of a "
             "%u-element block on neither operand's word (blocks of more than k^2 = %u elements), "
             "so its down-sweep fails, as the SIMT twin's", off_operand (s, m), m - 1, m,
             1u << (2 * s.h));
  fprintf (stderr, "\n");
}

template <int FAMILY>
static long
scan_check (const Case &c, const Buffers &b)
{
  Scan s = scan_of (FAMILY, c);
  std::vector<unsigned char> want (b.out.size ());
  unsigned sum = 0;
  bool reported = false;
  for (size_t i = 0; i < (size_t) c.n; i++)
    {
      unsigned next = sum + mdl_cuda_word (b.in, i), w = s.tree ? sum : next;
      memcpy (&want[4 * i], &w, 4);
      if (!reported && mdl_cuda_word (b.out, i) != w)
        {
          report_wrong (s, c, i, mdl_cuda_word (b.out, i), w);
          reported = true;
        }
      sum = next;
    }
  return mdl_cuda_count_diff (want, b.out);
}

template <int FAMILY>
static std::string
scan_kernel (const Case &)
{
  /* contained in the name of every kernel the case launches, so that all its launches join */
  return FAMILY == SCAN_HILLIS_STEELE ? "scan_hillis_steele" : "scan_tree";
}

#define SCAN_TWIN(family)                                                                          \
  { scan_validate<family>, scan_prepare<family>, scan_launch<family>, scan_check<family>,          \
    scan_kernel<family> }

const CudaTwin cuda_twin_scan_nopad = SCAN_TWIN (SCAN_NOPAD);
const CudaTwin cuda_twin_scan_padding = SCAN_TWIN (SCAN_PADDING);
const CudaTwin cuda_twin_scan_leftright = SCAN_TWIN (SCAN_LEFTRIGHT);
const CudaTwin cuda_twin_scan_hillis_steele = SCAN_TWIN (SCAN_HILLIS_STEELE);
