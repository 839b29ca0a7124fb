/* Private to src/algos/cuda: what the CUDA twins of Koike & Sadakane's AGPU algorithms share
 * (reduce.cu: reduce/tree, reduce/cascade, reduce/pipeline; matrix.cu: reduce/matrix,
 * scan/matrix), as their SIMT twins share src/algos/simt/simt-algo.h: the instantiation of b,
 * the device pieces both files' kernels end with (block_sum, the affine combine, lane 0's store),
 * the layout of a case's buffers, the trees of levels that finish a reduction, and the CPU
 * reference and the report of a mismatch.
 *
 * Memory instructions. Each kernel issues exactly the loads and stores of its SIMT twin, per warp,
 * with the same widths and the same shared-memory words: shared memory is accessed through
 * volatile (Shared), so nvcc neither keeps a word in a register across two accesses the SIMT twin
 * makes nor merges two neighbouring words into one wider access; global pointers are neither
 * const nor __restrict__ (which would turn LDG.E into LDG.E.CONSTANT); and every in-block loop
 * over b runs over a template parameter under #pragma unroll, so that it costs no branch. The
 * SIMT layer runs a block in lock step (every warp finishes an instruction before the next
 * starts); the CUDA kernels get the same order from __syncthreads () where one lane reads a word
 * that another lane writes in the same step. Those barriers (BAR.SYNC) have no event in the SIMT
 * twins.
 *
 * Buffers. Global memory is laid out as the SIMT twin allocates it: the harness's device buffers
 * (cudaMalloc, 256-byte aligned) stand for the SIMT twin's allocations, and where the SIMT twin
 * makes several (W, then the levels of a tree) they sit in one buffer, each at the next multiple
 * of 256 bytes (MDL_SIMT_ALIGN), so every address agrees with the SIMT twin's modulo 256 and
 * the coalescing counts (32-byte sectors, 128-byte lines) are the same. */
#ifndef MDL_CUDA_AGPU_H
#define MDL_CUDA_AGPU_H

#include <type_traits>

#include "../gpu-affine.h"
#include "twin.h"

/* The largest b of the parameter tables (MDL_AGPU_B_ROW); b runs over the powers of two 2..max. */
#define AGPU_B_MAX 512
/* The most shared memory a block of an H100 (sm_90) may have, opted in: 227 KiB. */
#define AGPU_SHARED_MAX (227 * 1024)
/* The largest padded input the twins take (words): 2 GiB a buffer. */
#define AGPU_PADDED_MAX (1L << 29)

/* Shared memory as every AGPU kernel accesses it (see the head of this file). */
typedef volatile unsigned Shared;

/* Calls go (std::integral_constant<int, B> ()) for the power of two B == @b (2 <= B <= MAX):
 * the launch-time choice among a kernel's instantiations. validate() has checked @b. */
template <int MAX = AGPU_B_MAX, int B = 2, typename Go>
static void
agpu_by_b (unsigned b, Go go)
{
  if constexpr (B <= MAX)
    {
      if (b == (unsigned) B)
        go (std::integral_constant<int, B> ());
      else
        agpu_by_b<MAX, 2 * B> (b, go);
    }
}

/* ---- device pieces (the SIMT twin's helpers of the same names in src/algos/simt/reduce.c) ---- */

/* lane0_store: lane 0 alone loads shared word @from and stores it at @to. */
static __device__ __forceinline__ void
agpu_lane0_store (Shared *s, unsigned from, unsigned *to)
{
  if (threadIdx.x == 0)
    *to = s[from];
}

/* block_sum: the B values @x go to shared words 0..B−1, log B in-place steps s[t] += s[t+δ] by all
 * B lanes (words up to 3B/2−1: lanes t >= δ add words that are never used), and lane 0 stores s[0]
 * at out[blockIdx.x]. Per step: LDS s[t], LDS s[t+δ], STS s[t]. */
template <int B>
static __device__ __forceinline__ void
agpu_block_sum (Shared *s, unsigned x, unsigned *out)
{
  unsigned t = threadIdx.x;
  s[t] = x;
#pragma unroll
  for (unsigned delta = B / 2; delta > 0; delta /= 2)
    {
      __syncthreads ();
      unsigned mine = s[t], other = s[t + delta];
      __syncthreads ();
      s[t] = mine + other;
    }
  __syncthreads ();
  agpu_lane0_store (s, 0, out + blockIdx.x);
}

/* mdl_simt_affine_combine: shared words 0..B−1 combine in order, in place: log B steps in which
 * lanes t < live load words 2t and 2t+1 and store their product at word t (predicated); then lane
 * 0 stores word 0 at @out. */
template <int B>
static __device__ __forceinline__ void
agpu_affine_combine (Shared *s, unsigned *out)
{
  unsigned t = threadIdx.x;
#pragma unroll
  for (unsigned live = B / 2; live > 0; live /= 2)
    {
      unsigned x = 0;
      __syncthreads ();
      if (t < live)
        {
          unsigned left = s[2 * t], right = s[2 * t + 1];
          x = mdl_affine (left, right);
        }
      __syncthreads ();
      if (t < live)
        s[t] = x;
    }
  __syncthreads ();
  agpu_lane0_store (s, 0, out);
}

/* ---- a case's buffers and levels ---- */

/* The operator of a reduction: 32-bit addition, or the affine maps of src/algos/gpu-affine.h. */
enum AgpuOp { AGPU_SUM, AGPU_AFFINE };

static inline unsigned
agpu_identity (AgpuOp op)
{
  return op == AGPU_SUM ? 0u : MDL_AFFINE_ID;
}

static inline unsigned
agpu_apply (AgpuOp op, unsigned acc, unsigned v)
{
  return op == AGPU_SUM ? acc + v : mdl_affine (acc, v);
}

/* One launch of a tree: @chunks blocks, block i folding the @chunk words from @in_at + i·@chunk
 * (of the input buffer when @from_input, else of the out buffer) into out word @out_at + i. */
struct AgpuLevel {
  bool from_input;
  size_t in_at, out_at, chunk, chunks;
};

/* A reduction's plan: the input of @in_words words (the first n random, the rest the identity),
 * the out buffer of @out_words words (starting as the identity): W, @k words at word 0 written by
 * the first kernel (k = 0: none), then the @levels of the tree that reduces it. */
struct AgpuPlan {
  AgpuOp op;
  unsigned b;
  size_t in_words, out_words, k;
  std::vector<AgpuLevel> levels;
};

/* The case's b and k (the SIMT twin's defaults: 32 and 16). */
static inline unsigned
agpu_b (const Case &c)
{
  return (unsigned) c.num ("b", 32);
}

static inline unsigned
agpu_k (const Case &c)
{
  return (unsigned) c.num ("k", 16);
}

/* The name Nsight Compute shows for the instantiation of @kernel at the case's b. */
static inline std::string
agpu_kernel_name (const char *kernel, const Case &c)
{
  return std::string (kernel) + "<" + std::to_string (agpu_b (c)) + ">";
}

/* @words rounded up to a multiple of @unit. */
static inline size_t
agpu_round_up (size_t words, size_t unit)
{
  return (words + unit - 1) / unit * unit;
}

/* The word at which the SIMT layer's next allocation starts after @used words: the next multiple
 * of 256 bytes. */
static inline size_t
agpu_next_alloc (size_t used)
{
  return agpu_round_up (used, 64);
}

/* Appends to @p the levels of a tree over @d values at word @in_at of the input (@from_input) or
 * of the out buffer, @chunk values per block, until one value is left; each level's ⌈d/chunk⌉
 * values are padded to a multiple of @chunk words, placed after @p->out_words as new allocations:
 * one for all levels, one after the other (@separate false: reduce.c's tree_levels), or one each
 * (@separate: affine_tree's identity buffers). */
void mdl_cuda_agpu_tree (AgpuPlan *p, bool from_input, size_t in_at, size_t d, size_t chunk,
                         bool separate);

/* The plan of the order-preserving reductions (reduce/pipeline, reduce/matrix): W of k products,
 * identity-padded to a multiple of b words, then Algorithm 6's levels, each an allocation of its
 * own; the input of @in_words words. */
AgpuPlan mdl_cuda_agpu_affine_plan (const Case &c, size_t in_words);
/* W of an order-preserving reduction: W[ρ] the in-order product of block ρ's contiguous group of
 * in_words/k words of the input. */
std::vector<unsigned> mdl_cuda_agpu_group_products (const Case &c, const AgpuPlan &p,
                                                    const Buffers &b);

/* The checks of the SIMT twin's table rows b (a power of two, 2..@b_max) and, when @has_k, k
 * (1..65535), and of n (1..2^28, mdl_simt_algo_size_ok). */
bool mdl_cuda_agpu_validate (const Case &c, unsigned b_max, bool has_k, std::string *why);
/* FALSE, with the reason, when the input padded to a multiple of @unit (which @what names) has
 * more than AGPU_PADDED_MAX words. */
bool mdl_cuda_agpu_padded_ok (const Case &c, size_t unit, const char *what, std::string *why);
/* @shared_bytes of dynamic shared memory for the kernel @fn, which the case's b and another
 * parameter (named in @what) make: FALSE with the reason when more than AGPU_SHARED_MAX. */
bool mdl_cuda_agpu_shared_ok (size_t shared_bytes, const std::string &what, std::string *why);

/* The input of @p: @n random words (a odd, bit 16 set, for the affine maps, as the SIMT twin's
 * affine_input), the rest the identity; the out buffer the identity, its words that a kernel
 * writes poisoned. */
void mdl_cuda_agpu_prepare (const Case &c, const AgpuPlan &p, Buffers &b, uint64_t *rng);
/* Launches the levels of @p (tree_level or affine_level, by its op); returns how many. */
int mdl_cuda_agpu_levels (const AgpuPlan &p, Buffers &b);
/* The CPU reference of @p: the out buffer with @w (W, @p.k words) at its head and every level
 * folded from it; compared with the GPU's, byte by byte, the first wrong word reported on stderr
 * with its place; the folded result is also compared with the sequential fold of the n inputs
 * (a check of the reference itself). Returns the bytes that differ. */
long mdl_cuda_agpu_check (const Case &c, const AgpuPlan &p, const Buffers &b,
                          const std::vector<unsigned> &w);

/* Prints on stderr the first of the @bad words where @got differs from @want: "CASE: WHERE is
 * 0x..., the CPU reference has 0x...". */
void mdl_cuda_agpu_report (const Case &c, const std::string &where, unsigned got, unsigned want,
                           long bad);

/* What tells one AGPU reduction (reduce/tree, cascade, pipeline, matrix) from another;
 * agpu_twin () makes its CudaTwin, whose prepare, launch (the kernel that makes W, then the
 * levels) and check (W's reference, then the levels') are the same for all. */
struct AgpuReduction {
  const char *kernel;   /* the first kernel's name, without <b> */
  bool (*validate) (const Case &c, std::string *why);
  AgpuPlan (*plan) (const Case &c);
  /* Launches the kernel that makes W; NULL when the tree reduces the input itself. */
  void (*first) (const Case &c, const AgpuPlan &p, Buffers &b);
  /* The CPU reference of W; NULL when there is no W. */
  std::vector<unsigned> (*w) (const Case &c, const AgpuPlan &p, const Buffers &b);
  /* Raises the first kernel's dynamic shared memory limit; NULL when it needs no more. */
  void (*setup) (const Case &c);
};

template <const AgpuReduction &R>
static void
agpu_twin_prepare (const Case &c, Buffers &b, uint64_t *rng)
{
  if (R.setup)
    R.setup (c);
  mdl_cuda_agpu_prepare (c, R.plan (c), b, rng);
}

template <const AgpuReduction &R>
static int
agpu_twin_launch (const Case &c, Buffers &b)
{
  AgpuPlan p = R.plan (c);
  if (R.first)
    R.first (c, p, b);
  return (R.first ? 1 : 0) + mdl_cuda_agpu_levels (p, b);
}

template <const AgpuReduction &R>
static long
agpu_twin_check (const Case &c, const Buffers &b)
{
  AgpuPlan p = R.plan (c);
  return mdl_cuda_agpu_check (c, p, b, R.w ? R.w (c, p, b) : std::vector<unsigned> ());
}

template <const AgpuReduction &R>
static std::string
agpu_twin_kernel (const Case &c)
{
  return agpu_kernel_name (R.kernel, c);
}

template <const AgpuReduction &R>
static CudaTwin
agpu_twin ()
{
  return { R.validate, agpu_twin_prepare<R>, agpu_twin_launch<R>, agpu_twin_check<R>,
           agpu_twin_kernel<R> };
}

/* Algorithm 3's kernel (reduce/cascade, and scan/matrix's first phase): k blocks of b threads;
 * block ρ sums @rows rows of b words, row i at word i·@row_words + ρ·@block_words of @in, and lane
 * 0 stores the sum at out[ρ]. */
void mdl_cuda_agpu_cascade (unsigned b, unsigned k, unsigned *out, unsigned *in, unsigned rows,
                            unsigned row_words, unsigned block_words);

#endif
