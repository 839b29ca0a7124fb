/* The CUDA twins of Koike & Sadakane's matrix-based algorithms in src/algos/simt/matrix.c:
 * reduce/matrix (§5.2.1, for a non-commutative operator) and scan/matrix (Algorithms 7 and 8,
 * cleaned: an exclusive scan of 32-bit addition). The file head of matrix.c derives both; agpu.h
 * says how the memory instructions and buffers match the SIMT twins'.
 *
 * Kernels and launches per case (L(d, c) as in reduce.cu):
 *   reduce/matrix  matrix_tiles<b>, affine_level<b> x L(k, b)
 *   scan/matrix    cascade_rows<b> (local-reduction), scan_matrices<b> on one block (global-scan),
 *                  scan_matrices<b> on k blocks (local-scan): 3
 *
 * Shared memory is dynamic (b x (b+1) and alpha x (b+1) words pass 48 KiB); prepare() raises the
 * kernels' limit to the case's size. reduce/matrix takes b up to 128 where the SIMT twin takes 256:
 * a 256 x 257 tile is 263168 bytes, more than a block of an H100 may have.
 *
 * Branches the SASS has (everything over b is unrolled):
 *   matrix_tiles   one runtime loop over the steps (run/b of them, #pragma unroll 1: the body is
 *     2b memory instructions and two barriers): a guard and one back-edge branch per step; then
 *     the affine combine (reduce.cu's affine_level says how its `if (t < live)` compiles).
 *   scan_matrices  the carry's load, `if (carry && t == 0)` (uniform, then lane 0: a branch or
 *     predication, nvcc's choice); a runtime loop over the matrices of the segment; inside it four
 *     runtime loops over the alpha rows (alpha is a run-time parameter, #pragma unroll 1): the
 *     transposed load (alpha trips), the column sums (alpha−1), the column scan (alpha−1) and the
 *     transposed store (alpha), each with a guard and a back-edge branch; the load and the store
 *     of a row outside the segment are predicated (`if (e < seg)`), the log b doubling steps'
 *     `if (t >= d)` predicated or branched as the affine combine's. */
#include <cstring>

#include "agpu.h"

/* ---- kernels ---- */

/* matrix_kernel: block ρ's group of run·B words is B runs of run words; per step, row j of the
 * B x (B+1) tile gets words st..st+B−1 of run j (one aligned load, a conflict-free store), then
 * lane t folds row t, its own next B elements, in order (column loads hit distinct banks thanks
 * to the padding). Lane t's product goes to shared word t and the B products combine in order. */
template <int B>
__global__ void __launch_bounds__ (B)
matrix_tiles (unsigned *out, unsigned *in, unsigned run)
{
  extern __shared__ unsigned shared[];
  Shared *s = shared;
  const unsigned pitch = B + 1, t = threadIdx.x;
  unsigned *group = in + blockIdx.x * run * B + t, acc = MDL_AFFINE_ID;
#pragma unroll 1
  for (unsigned st = 0; st < run; st += B)
    {
#pragma unroll
      for (unsigned j = 0; j < B; j++)
        s[j * pitch + t] = group[j * run + st];
      __syncthreads ();
#pragma unroll
      for (unsigned col = 0; col < B; col++)
        acc = mdl_affine (acc, s[t * pitch + col]);
      __syncthreads ();
    }
  s[t] = acc;
  agpu_affine_combine<B> (s, out + blockIdx.x);
}

/* Lane t's element e = jB + t of row j of a transposed load or store, and its cell m[e mod α]
 * [⌊e/α⌋] of the α x (B+1) array, moved on row by row without a division: e grows by B, so the
 * row of the cell by B mod α and the column by ⌊B/α⌋ (plus a carry). */
struct Transposed {
  unsigned e, row, col;
  unsigned step_row, step_col, alpha;

  __device__ Transposed (unsigned b, unsigned t, unsigned alpha_)
    : e (t), row (t % alpha_), col (t / alpha_), step_row (b % alpha_), step_col (b / alpha_),
      alpha (alpha_)
  {
  }

  __device__ unsigned cell (unsigned pitch) const { return row * pitch + col; }

  __device__ void
  next (unsigned b)
  {
    e += b;
    row += step_row;
    col += step_col;
    if (row >= alpha)
      {
        row -= alpha;
        col++;
      }
  }
};

/* scan_kernel (Algorithm 8, cleaned) for segment ρ = blockIdx.x of @seg elements: lane 0 starts
 * from carry[ρ] (none when @carry is null); per matrix of αB elements (1) the transposed load
 * (elements past the segment load as 0), (2) column sums, carry first, m[0][t] kept in a
 * register, (3) the doubling scan of the column sums in row 0, (4) the exclusive scan down each
 * column from the inclusive sum of column t−1 (lane 0: the carry, which moves to column B−1's
 * inclusive sum unless @printed), (5) the transposed store inside the segment. */
template <int B>
__global__ void __launch_bounds__ (B)
scan_matrices (unsigned *out, unsigned *in, unsigned *carry_in, unsigned seg, unsigned alpha,
               bool printed)
{
  extern __shared__ unsigned shared[];
  Shared *s = shared;
  const unsigned pitch = B + 1, t = threadIdx.x, seg0 = blockIdx.x * seg;
  unsigned carry = 0;
  if (carry_in && t == 0)
    carry = carry_in[blockIdx.x];
#pragma unroll 1
  for (unsigned e0 = 0; e0 < seg; e0 += alpha * B)
    {
      /* (1) */
      Transposed at (B, t, alpha);
#pragma unroll 1
      for (unsigned j = 0; j < alpha; j++, at.next (B))
        {
          unsigned v = 0;
          if (e0 + at.e < seg)
            v = in[seg0 + e0 + at.e];
          s[at.cell (pitch)] = v;
        }
      __syncthreads ();
      /* (2) */
      unsigned first = s[t], sum = first;
#pragma unroll 1
      for (unsigned j = 1; j < alpha; j++)
        sum += s[j * pitch + t];
      sum = carry + sum;
      /* (3) */
      s[t] = sum;
#pragma unroll
      for (unsigned d = 1; d < B; d *= 2)
        {
          unsigned v = 0;
          __syncthreads ();
          if (t >= d)
            v = s[t - d];
          __syncthreads ();
          if (t >= d)
            {
              sum = v + sum;
              s[t] = sum;
            }
        }
      __syncthreads ();
      unsigned before = s[(t + B - 1) % B], next = t == 0 ? carry : before;
      if (t == 0 && !printed)
        carry = before;
      __syncthreads ();
      /* (4): m[j][t] <- next, next += the old m[j][t] (m[0][t] is first) */
      unsigned old = first;
      s[t] = next;
#pragma unroll 1
      for (unsigned j = 1; j < alpha; j++)
        {
          next += old;
          old = s[j * pitch + t];
          s[j * pitch + t] = next;
        }
      __syncthreads ();
      /* (5) */
      at = Transposed (B, t, alpha);
#pragma unroll 1
      for (unsigned j = 0; j < alpha; j++, at.next (B))
        {
          unsigned v = s[at.cell (pitch)];
          if (e0 + at.e < seg)
            out[seg0 + e0 + at.e] = v;
        }
      __syncthreads ();
    }
}

/* Raises @kernel's dynamic shared memory limit to @bytes when that is past the default 48 KiB. */
template <typename Kernel>
static void
allow_shared (Kernel kernel, size_t bytes)
{
  if (bytes > 48 * 1024)
    CUDA_OK (cudaFuncSetAttribute (kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int) bytes));
}

/* ---- reduce/matrix: n padded with the identity to a multiple of k·b², run = n/(bk) elements per
 * core, W of k products, then Algorithm 6's levels ---- */

/* The largest b whose tile fits a block of an H100; validate() takes the SIMT table's b up to 256
 * and refuses 256 for its shared memory. */
#define MATRIX_B_MAX 128

static size_t
matrix_round (const Case &c)
{
  return (size_t) agpu_b (c) * agpu_b (c) * agpu_k (c);
}

static size_t
matrix_tile_bytes (const Case &c)
{
  return 4 * (size_t) agpu_b (c) * (agpu_b (c) + 1);
}

static AgpuPlan
matrix_plan (const Case &c)
{
  return mdl_cuda_agpu_affine_plan (c, agpu_round_up ((size_t) c.n, matrix_round (c)));
}

static bool
matrix_validate (const Case &c, std::string *why)
{
  std::string b = std::to_string (agpu_b (c));
  return mdl_cuda_agpu_validate (c, 256, true, why)
         && mdl_cuda_agpu_shared_ok (matrix_tile_bytes (c), "b=" + b + ": the tile's " + b + " x "
                                                              + b + "+1 words", why)
         && mdl_cuda_agpu_padded_ok (c, matrix_round (c), "k b^2", why);
}

static void
matrix_setup (const Case &c)
{
  agpu_by_b<MATRIX_B_MAX> (agpu_b (c), [&] (auto B) {
    allow_shared (matrix_tiles<B>, matrix_tile_bytes (c));
  });
}

static void
matrix_first (const Case &c, const AgpuPlan &p, Buffers &b)
{
  unsigned run = (unsigned) (p.in_words / p.b / p.k);
  agpu_by_b<MATRIX_B_MAX> (p.b, [&] (auto B) {
    matrix_tiles<B><<<(unsigned) p.k, B.value, matrix_tile_bytes (c)>>> ((unsigned *) b.d_out,
                                                                         (unsigned *) b.d_in, run);
  });
}

static const AgpuReduction matrix = {
  "matrix_tiles", matrix_validate, matrix_plan, matrix_first, mdl_cuda_agpu_group_products,
  matrix_setup,
};
const CudaTwin cuda_twin_reduce_matrix = agpu_twin<matrix> ();

/* ---- scan/matrix: T (in) padded with zeros to a multiple of k·α·b, U (out) its exclusive scan,
 * C (out2: k words, zero-padded to a multiple of b) the segments' sums, then their exclusive
 * scan. carry=printed never moves the carry, and the check fails as the SIMT twin's does. ---- */

static unsigned
alpha_of (const Case &c)
{
  return (unsigned) c.num ("alpha", 16);
}

static size_t
scan_padded (const Case &c)
{
  return agpu_round_up ((size_t) c.n, (size_t) agpu_k (c) * alpha_of (c) * agpu_b (c));
}

static size_t
scan_shared_bytes (const Case &c)
{
  return 4 * (size_t) alpha_of (c) * (agpu_b (c) + 1);
}

static bool
scan_validate (const Case &c, std::string *why)
{
  long alpha = c.num ("alpha", 16);
  if (!mdl_cuda_agpu_validate (c, AGPU_B_MAX, true, why)
      || !mdl_cuda_choice_ok (c, "carry", "advance", "advance|printed", why))
    return false;
  if (alpha < 1 || alpha > (long) agpu_b (c))
    return mdl_cuda_refuse (why, "alpha must be 1..b (a matrix has alpha <= b rows)");
  return mdl_cuda_agpu_shared_ok (scan_shared_bytes (c), "alpha x (b+1) = "
                                                           + std::to_string (alpha) + " x "
                                                           + std::to_string (agpu_b (c) + 1)
                                                           + " words", why)
         && mdl_cuda_agpu_padded_ok (c, (size_t) agpu_k (c) * alpha * agpu_b (c), "k alpha b",
                                     why);
}

static void
scan_prepare (const Case &c, Buffers &b, uint64_t *rng)
{
  size_t padded = scan_padded (c), k = agpu_k (c);
  agpu_by_b (agpu_b (c), [&] (auto B) {
    allow_shared (scan_matrices<B>, scan_shared_bytes (c));
  });
  b.in.resize (4 * padded);
  mdl_cuda_fill_random (b.in, rng);
  memset (&b.in[4 * (size_t) c.n], 0, 4 * (padded - (size_t) c.n));
  b.out.assign (4 * padded, MDL_CUDA_POISON);
  b.out2.assign (4 * agpu_round_up (k, agpu_b (c)), 0);
  memset (&b.out2[0], MDL_CUDA_POISON, 4 * k);
}

static int
scan_launch (const Case &c, Buffers &b)
{
  unsigned k = agpu_k (c), alpha = alpha_of (c), seg = (unsigned) (scan_padded (c) / k);
  unsigned *t = (unsigned *) b.d_in, *u = (unsigned *) b.d_out, *carries = (unsigned *) b.d_out2;
  bool printed = c.text ("carry", "advance") == "printed";
  size_t shared_bytes = scan_shared_bytes (c);
  /* Phase 1: C[ρ] = the sum of segment ρ, seg/b rows of b words each. */
  mdl_cuda_agpu_cascade (agpu_b (c), k, carries, t, seg / agpu_b (c), agpu_b (c), seg);
  agpu_by_b (agpu_b (c), [&] (auto B) {
    /* Phase 2: C becomes its exclusive scan, on one block. */
    scan_matrices<B><<<1, B.value, shared_bytes>>> (carries, carries, nullptr, k, alpha, printed);
    /* Phase 3: every segment from its carry. */
    scan_matrices<B><<<k, B.value, shared_bytes>>> (u, t, carries, seg, alpha, printed);
  });
  return 3;
}

/* @out: the exclusive scan of the first @n words of @v. */
static void
exclusive_scan (const std::vector<unsigned char> &v, size_t n, std::vector<unsigned> &out)
{
  unsigned run = 0;
  out.resize (n);
  for (size_t i = 0; i < n; i++)
    {
      out[i] = run;
      run += mdl_cuda_word (v, i);
    }
}

/* The bytes of @got (words) that differ from @want; the first wrong word reported as @name[i]. */
static long
scan_compare (const Case &c, const char *name, const std::vector<unsigned> &want,
              const std::vector<unsigned char> &got, const std::string &note)
{
  std::vector<unsigned char> want_bytes (4 * want.size ());
  long bad;
  memcpy (want_bytes.data (), want.data (), want_bytes.size ());
  bad = mdl_cuda_count_diff (want_bytes, got);
  for (size_t i = 0; bad && i < want.size (); i++)
    if (mdl_cuda_word (got, i) != want[i])
      {
        mdl_cuda_agpu_report (c, std::string (name) + "[" + std::to_string (i) + "]" + note,
                              mdl_cuda_word (got, i), want[i], bad);
        break;
      }
  return bad;
}

static long
scan_check (const Case &c, const Buffers &b)
{
  size_t padded = scan_padded (c), k = agpu_k (c), seg = padded / k;
  std::vector<unsigned> want_u, sums (k, 0), want_c (agpu_round_up (k, agpu_b (c)), 0);
  unsigned run = 0;
  exclusive_scan (b.in, padded, want_u);
  for (size_t i = 0; i < padded; i++)
    sums[i / seg] += mdl_cuda_word (b.in, i);
  for (size_t r = 0; r < k; r++)
    {
      want_c[r] = run;
      run += sums[r];
    }
  return scan_compare (c, "C", want_c, b.out2, " (the segments' carries: phases 1 and 2)")
         + scan_compare (c, "U", want_u, b.out, " (the scan: phase 3; segment of "
                                                  + std::to_string (seg) + " words, matrices of "
                                                  + std::to_string (alpha_of (c) * agpu_b (c))
                                                  + ")");
}

static std::string
scan_kernel (const Case &c)
{
  return agpu_kernel_name ("cascade_rows", c);
}

const CudaTwin cuda_twin_scan_matrix = {
  scan_validate, scan_prepare, scan_launch, scan_check, scan_kernel,
};
