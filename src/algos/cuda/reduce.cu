/* The CUDA twins of Koike & Sadakane's reductions in src/algos/simt/reduce.c: reduce/tree
 * (Algorithm 1), reduce/cascade (Algorithms 2-3) and reduce/pipeline (Algorithms 4-6), with the
 * trees of levels and the plan helpers that reduce/matrix (matrix.cu) shares (agpu.h says how the
 * memory instructions and buffers match the SIMT twins').
 *
 * Kernels and launches per case (L(d, c): the levels of a tree over d values, c per block: the
 * number of times d <- ⌈d/c⌉ until d <= 1; L(1, c) = 0):
 *   reduce/tree      tree_level<b> x L(n, 2b)            (n = 1: no launch, the input is the sum)
 *   reduce/cascade   cascade_rows<b>, tree_level<b> x L(k, 2b)
 *   reduce/pipeline  pipeline_rows<b>, affine_level<b> x L(k, b)
 *
 * Branches the SASS has (everything over b is unrolled; the rest is for the SIMT twins'
 * machine-instruction accounting to follow):
 *   tree_level, affine_level  none in the algorithm; lane 0's final store is `if (t == 0)`, which
 *     nvcc writes as a predicated EXIT of the other lanes (or predicated LDS/STG), and the
 *     affine steps' `if (t < live)` as predicated LDS/STS or, for warps wholly outside, a
 *     warp-uniform branch over them (nvcc's choice: the SASS tells).
 *   cascade_rows   one runtime loop over the rows (rows >= 1 always), unrolled by 4 by
 *     #pragma unroll 4: nvcc emits a remainder loop of rows mod 4 iterations and a main loop of
 *     ⌊rows/4⌋ iterations, each with its guard and back-edge branch. The 4 loads of an unrolled
 *     iteration are the SIMT twin's 4 row loads, one LDG per warp and row each.
 *   pipeline_rows  one runtime loop over the rows (#pragma unroll 1: its body has two barriers,
 *     unrolling would not overlap the loads): a guard and one back-edge branch per row; the log b
 *     drain iterations are unrolled. */
#include <cstring>

#include "agpu.h"

/* ---- kernels ---- */

/* tree_kernel: block ρ reads its chunk of 2B words (two aligned B-word loads), adds them and
 * reduces the B sums (agpu_block_sum) into out[ρ]. */
template <int B>
__global__ void __launch_bounds__ (B)
tree_level (unsigned *out, unsigned *in)
{
  __shared__ unsigned s[B + B / 2];
  unsigned *chunk = in + 2 * B * blockIdx.x + threadIdx.x;
  agpu_block_sum<B> (s, chunk[0] + chunk[B], out);
}

/* mdl_simt_cascade_kernel: block ρ sums word ρ·block_words + i·row_words + t over the rows i
 * (lane t's running sum in a register), then agpu_block_sum into out[ρ]. */
template <int B>
__global__ void __launch_bounds__ (B)
cascade_rows (unsigned *out, unsigned *in, unsigned rows, unsigned row_words, unsigned block_words)
{
  __shared__ unsigned s[B + B / 2];
  unsigned *column = in + block_words * blockIdx.x + threadIdx.x, x = 0;
#pragma unroll 4
  for (unsigned i = 0; i < rows; i++)
    x += column[i * row_words];
  agpu_block_sum<B> (s, x, out);
}

/* One iteration of Algorithm 5 (pipe_kernel): the row's element @x goes to leaf slot @at_s, every
 * lane combines slots @at_1 and @at_2 and stores the result at slot @at_r; the lane that computes
 * the accumulator (B−1) combines them the other way round, acc (+) root, when @swap (order=fixed;
 * order=printed keeps root (+) acc as Algorithm 5 prints it). */
static __device__ __forceinline__ void
pipe_step (Shared *s, unsigned x, unsigned at_s, unsigned at_1, unsigned at_2, unsigned at_r,
           bool swap)
{
  s[at_s] = x;
  __syncthreads ();
  unsigned y1 = s[at_1], y2 = s[at_2];
  __syncthreads ();
  /* Selects, not a branch: only lane B−1 swaps. */
  s[at_r] = mdl_affine (swap ? y2 : y1, swap ? y1 : y2);
}

/* pipe_kernel: block ρ pipes its rows·B contiguous words through the tree of 2B slots (the
 * bank-conflict-free layout of Fig. 8), then log B identities drain it, and lane 0 stores slot
 * 3B/2−1 at out[ρ]. */
template <int B>
__global__ void __launch_bounds__ (B)
pipeline_rows (unsigned *out, unsigned *in, unsigned rows, bool printed)
{
  __shared__ unsigned shared[2 * B];
  Shared *s = shared;
  unsigned t = threadIdx.x;
  unsigned at_s = t % 2 ? t / 2 + 3 * B / 2 : t / 2, at_r = t % 2 ? t / 2 + B : t / 2 + B / 2;
  unsigned at_2 = t < B / 2 ? t + 3 * B / 2 : t + B / 2;
  bool swap = t == B - 1 && !printed;
  unsigned *row = in + blockIdx.x * rows * B + t;
  s[t] = MDL_AFFINE_ID;
  s[B + t] = MDL_AFFINE_ID;
  __syncthreads ();
#pragma unroll 1
  for (unsigned j = 0; j < rows; j++)
    pipe_step (s, row[j * B], at_s, t, at_2, at_r, swap);
#pragma unroll
  for (unsigned drain = B / 2; drain > 0; drain /= 2)   /* log B times */
    pipe_step (s, MDL_AFFINE_ID, at_s, t, at_2, at_r, swap);
  __syncthreads ();
  agpu_lane0_store (s, 3 * B / 2 - 1, out + blockIdx.x);
}

/* tree2_kernel (Algorithm 6, cleaned): block ρ loads B consecutive words into shared words 0..B−1
 * and combines them in order into out[ρ]. */
template <int B>
__global__ void __launch_bounds__ (B)
affine_level (unsigned *out, unsigned *in)
{
  __shared__ unsigned shared[B];
  Shared *s = shared;
  s[threadIdx.x] = in[B * blockIdx.x + threadIdx.x];
  agpu_affine_combine<B> (s, out + blockIdx.x);
}

/* ---- what matrix.cu shares (agpu.h) ---- */

void
mdl_cuda_agpu_tree (AgpuPlan *p, bool from_input, size_t in_at, size_t d, size_t chunk,
                    bool separate)
{
  size_t used = agpu_next_alloc (p->out_words);
  while (d > 1)
    {
      AgpuLevel level = { from_input, in_at, separate ? agpu_next_alloc (used) : used, chunk,
                          (d + chunk - 1) / chunk };
      p->levels.push_back (level);
      used = level.out_at + agpu_round_up (level.chunks, chunk);
      from_input = false;
      in_at = level.out_at;
      d = level.chunks;
    }
  p->out_words = used;
}

bool
mdl_cuda_agpu_validate (const Case &c, unsigned b_max, bool has_k, std::string *why)
{
  long b = c.num ("b", 32), k = c.num ("k", 16);
  if (b < 2 || b > (long) b_max || (b & (b - 1)) != 0)
    return mdl_cuda_refuse (why, "b must be a power of two from 2 to " + std::to_string (b_max));
  if (has_k && (k < 1 || k > 65535))
    return mdl_cuda_refuse (why, "k must be 1..65535");
  if (c.n < 1 || c.n > (1L << 28))
    return mdl_cuda_refuse (why, "n must be 1..2^28 (as the SIMT twin)");
  return true;
}

bool
mdl_cuda_agpu_padded_ok (const Case &c, size_t unit, const char *what, std::string *why)
{
  size_t padded = agpu_round_up ((size_t) c.n, unit);
  if (padded <= (size_t) AGPU_PADDED_MAX)
    return true;
  return mdl_cuda_refuse (why, "n=" + std::to_string (c.n) + " padded to a multiple of " + what
                               + " = " + std::to_string (unit) + " is " + std::to_string (padded)
                               + " words, more than 2^29");
}

bool
mdl_cuda_agpu_shared_ok (size_t shared_bytes, const std::string &what, std::string *why)
{
  if (shared_bytes <= AGPU_SHARED_MAX)
    return true;
  return mdl_cuda_refuse (why, what + " need " + std::to_string (shared_bytes) + " bytes of shared "
                               "memory per block, more than the H100's "
                               + std::to_string (AGPU_SHARED_MAX));
}

/* The words of out that a kernel of @p writes: W and every level's values. */
template <typename Visit>
static void
each_written (const AgpuPlan &p, Visit visit)
{
  for (size_t i = 0; i < p.k; i++)
    visit (i);
  for (const AgpuLevel &level : p.levels)
    for (size_t i = 0; i < level.chunks; i++)
      visit (level.out_at + i);
}

static void
put_word (std::vector<unsigned char> &v, size_t i, unsigned x)
{
  memcpy (&v[4 * i], &x, 4);
}

void
mdl_cuda_agpu_prepare (const Case &c, const AgpuPlan &p, Buffers &b, uint64_t *rng)
{
  unsigned id = agpu_identity (p.op), poison;
  b.in.resize (4 * p.in_words);
  mdl_cuda_fill_random (b.in, rng);
  for (size_t i = 0; i < p.in_words; i++)
    if (i >= (size_t) c.n)
      put_word (b.in, i, id);
    else if (p.op == AGPU_AFFINE)
      put_word (b.in, i, mdl_cuda_word (b.in, i) | 0x10000u);
  b.out.resize (4 * p.out_words);
  for (size_t i = 0; i < p.out_words; i++)
    put_word (b.out, i, id);
  memset (&poison, MDL_CUDA_POISON, 4);
  each_written (p, [&] (size_t i) { put_word (b.out, i, poison); });
}

int
mdl_cuda_agpu_levels (const AgpuPlan &p, Buffers &b)
{
  for (const AgpuLevel &level : p.levels)
    {
      unsigned *in = (unsigned *) (level.from_input ? b.d_in : b.d_out) + level.in_at;
      unsigned *out = (unsigned *) b.d_out + level.out_at;
      unsigned grid = (unsigned) level.chunks;
      agpu_by_b (p.b, [&] (auto B) {
        if (p.op == AGPU_SUM)
          tree_level<B><<<grid, B.value>>> (out, in);
        else
          affine_level<B><<<grid, B.value>>> (out, in);
      });
    }
  return (int) p.levels.size ();
}

void
mdl_cuda_agpu_report (const Case &c, const std::string &where, unsigned got, unsigned want,
                      long bad)
{
  fprintf (stderr, "gpu-kernels: %s: %s is 0x%08x, the CPU reference has 0x%08x (%ld wrong "
           "bytes in all)\n", c.spec.c_str (), where.c_str (), got, want, bad);
}

/* Where out word @i of @p lies, for a report. */
static std::string
out_place (const AgpuPlan &p, size_t i)
{
  if (i < p.k)
    return "W[" + std::to_string (i) + "] (block " + std::to_string (i) + " of the first kernel)";
  for (size_t l = 0; l < p.levels.size (); l++)
    if (i >= p.levels[l].out_at && i < p.levels[l].out_at + p.levels[l].chunks)
      return "word " + std::to_string (i - p.levels[l].out_at) + " of tree level "
             + std::to_string (l) + " (launch " + std::to_string (l + (p.k ? 1 : 0)) + " of "
             + std::to_string (p.levels.size () + (p.k ? 1 : 0)) + ")";
  return "out word " + std::to_string (i) + " (padding, never written)";
}

long
mdl_cuda_agpu_check (const Case &c, const AgpuPlan &p, const Buffers &b,
                     const std::vector<unsigned> &w)
{
  unsigned id = agpu_identity (p.op), sequential = id, folded;
  std::vector<unsigned> want (p.out_words, id);
  std::vector<unsigned char> want_bytes (4 * p.out_words);
  long bad;
  std::copy (w.begin (), w.end (), want.begin ());
  for (const AgpuLevel &level : p.levels)
    for (size_t i = 0; i < level.chunks; i++)
      {
        unsigned acc = id;
        for (size_t at = level.in_at + i * level.chunk; at < level.in_at + (i + 1) * level.chunk;
             at++)
          acc = agpu_apply (p.op, acc, level.from_input ? mdl_cuda_word (b.in, at) : want[at]);
        want[level.out_at + i] = acc;
      }
  for (size_t i = 0; i < p.out_words; i++)
    put_word (want_bytes, i, want[i]);
  bad = mdl_cuda_count_diff (want_bytes, b.out);
  for (size_t i = 0; bad && i < p.out_words; i++)
    if (mdl_cuda_word (b.out, i) != want[i])
      {
        mdl_cuda_agpu_report (c, out_place (p, i), mdl_cuda_word (b.out, i), want[i], bad);
        break;
      }
  for (size_t i = 0; i < (size_t) c.n; i++)
    sequential = agpu_apply (p.op, sequential, mdl_cuda_word (b.in, i));
  folded = !p.levels.empty () ? want[p.levels.back ().out_at] : p.k ? want[0]
                                                                    : mdl_cuda_word (b.in, 0);
  if (folded != sequential)
    {
      fprintf (stderr, "gpu-kernels: %s: the CPU reference's levels give 0x%08x, the sequential "
               "fold 0x%08x (a bug of the reference)\n", c.spec.c_str (), folded, sequential);
      return bad + 4;
    }
  return bad;
}

void
mdl_cuda_agpu_cascade (unsigned b, unsigned k, unsigned *out, unsigned *in, unsigned rows,
                       unsigned row_words, unsigned block_words)
{
  agpu_by_b (b, [&] (auto B) {
    cascade_rows<B><<<k, B.value>>> (out, in, rows, row_words, block_words);
  });
}

/* ---- the twins ---- */

/* reduce/tree: the tree over the input, padded with zeros to a multiple of 2b words. */

static AgpuPlan
tree_plan (const Case &c)
{
  size_t two_b = 2 * (size_t) agpu_b (c);
  AgpuPlan p = { AGPU_SUM, agpu_b (c), agpu_round_up ((size_t) c.n, two_b), 0, 0, {} };
  mdl_cuda_agpu_tree (&p, true, 0, (size_t) c.n, two_b, false);
  return p;
}

static bool
tree_validate (const Case &c, std::string *why)
{
  return mdl_cuda_agpu_validate (c, AGPU_B_MAX, false, why)
         && mdl_cuda_agpu_padded_ok (c, 2 * (size_t) agpu_b (c), "2b", why);
}

static const AgpuReduction tree = { "tree_level", tree_validate, tree_plan, NULL, NULL, NULL };
const CudaTwin cuda_twin_reduce_tree = agpu_twin<tree> ();

/* reduce/cascade: W of k column sums over the n/p x p matrix (p = bk, n padded with zeros to a
 * multiple of p), zero-padded to a multiple of 2b, then the tree over W. */

static size_t
cascade_p (const Case &c)
{
  return (size_t) agpu_b (c) * agpu_k (c);
}

static AgpuPlan
cascade_plan (const Case &c)
{
  size_t two_b = 2 * (size_t) agpu_b (c), k = agpu_k (c);
  AgpuPlan p = { AGPU_SUM, agpu_b (c), agpu_round_up ((size_t) c.n, cascade_p (c)),
                 agpu_round_up (k, two_b), k, {} };
  mdl_cuda_agpu_tree (&p, false, 0, k, two_b, false);
  return p;
}

static bool
cascade_validate (const Case &c, std::string *why)
{
  return mdl_cuda_agpu_validate (c, AGPU_B_MAX, true, why)
         && mdl_cuda_agpu_padded_ok (c, cascade_p (c), "p = bk", why);
}

static void
cascade_first (const Case &c, const AgpuPlan &p, Buffers &b)
{
  unsigned pw = (unsigned) cascade_p (c);
  mdl_cuda_agpu_cascade (p.b, (unsigned) p.k, (unsigned *) b.d_out, (unsigned *) b.d_in,
                         (unsigned) (p.in_words / pw), pw, p.b);
}

/* W[ρ]: the sum of column block ρ (words ρb..ρb+b−1 of every row of p words). */
static std::vector<unsigned>
cascade_w (const Case &c, const AgpuPlan &p, const Buffers &b)
{
  size_t pw = cascade_p (c);
  std::vector<unsigned> w (p.k, 0);
  for (size_t i = 0; i < p.in_words; i++)
    w[i % pw / p.b] += mdl_cuda_word (b.in, i);
  return w;
}

static const AgpuReduction cascade = {
  "cascade_rows", cascade_validate, cascade_plan, cascade_first, cascade_w, NULL,
};
const CudaTwin cuda_twin_reduce_cascade = agpu_twin<cascade> ();

/* reduce/pipeline: block ρ pipes rows = ⌈n/bk⌉ rows of b contiguous maps (n padded with the
 * identity), W[ρ] its product; W (identity-padded to a multiple of b) then goes through
 * Algorithm 6's levels. order=printed combines root (+) acc, and the check fails as the SIMT
 * twin's does. */

AgpuPlan
mdl_cuda_agpu_affine_plan (const Case &c, size_t in_words)
{
  size_t b = agpu_b (c), k = agpu_k (c);
  AgpuPlan p = { AGPU_AFFINE, (unsigned) b, in_words, agpu_round_up (k, b), k, {} };
  mdl_cuda_agpu_tree (&p, false, 0, k, b, true);
  return p;
}

std::vector<unsigned>
mdl_cuda_agpu_group_products (const Case &, const AgpuPlan &p, const Buffers &b)
{
  size_t group = p.in_words / p.k;
  std::vector<unsigned> w (p.k, MDL_AFFINE_ID);
  for (size_t i = 0; i < p.in_words; i++)
    w[i / group] = mdl_affine (w[i / group], mdl_cuda_word (b.in, i));
  return w;
}

static AgpuPlan
pipeline_plan (const Case &c)
{
  return mdl_cuda_agpu_affine_plan (c, agpu_round_up ((size_t) c.n, cascade_p (c)));
}

static bool
pipeline_validate (const Case &c, std::string *why)
{
  return mdl_cuda_agpu_validate (c, AGPU_B_MAX, true, why)
         && mdl_cuda_agpu_padded_ok (c, cascade_p (c), "p = bk", why)
         && mdl_cuda_choice_ok (c, "order", "fixed", "fixed|printed", why);
}

static void
pipeline_first (const Case &c, const AgpuPlan &p, Buffers &b)
{
  unsigned rows = (unsigned) (p.in_words / cascade_p (c));
  bool printed = c.text ("order", "fixed") == "printed";
  agpu_by_b (p.b, [&] (auto B) {
    pipeline_rows<B><<<(unsigned) p.k, B.value>>> ((unsigned *) b.d_out, (unsigned *) b.d_in,
                                                   rows, printed);
  });
}

static const AgpuReduction pipeline = {
  "pipeline_rows", pipeline_validate, pipeline_plan, pipeline_first, mdl_cuda_agpu_group_products,
  NULL,
};
const CudaTwin cuda_twin_reduce_pipeline = agpu_twin<pipeline> ();
