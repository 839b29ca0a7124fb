/* The CUDA twins of the AGPU merge sorts in src/algos/simt/merge-sort.c: sort/dway-merge
 * (Koike & Sadakane §7.3, all four parts) and sort/warpsort (the same with d = 2). The plan (parts,
 * steps, run lengths, separators) is src/algos/merge-sort-plan.h, as the SIMT twin's.
 *
 * Kernels per case, in order (P = plan.passes; every launch over blocks of B = b threads):
 *   block_sort<B>     part 1, ⌈n/B⌉ blocks: B keys bitonic-sorted in shared memory;
 *   merge_blocks<B>   part 2, s0 launches: block g merges d runs (column-wise);
 *   sample_keys<B>, merge_blocks<B> x ⌈log_d⌉, search_pos<B>, group_offsets<B>: part 3 (when more
 *     than one run is left): separators, their sort, the split, the groups' offsets;
 *   merge_blocks<B>   part 4, t0 launches: every group's blocks merge d pieces each (row-wise).
 * The keys ping-pong between the output buffer and a scratch buffer (out2, with the tables), so
 * that the input stays as it was (the timed launches sort it again) and the last pass writes the
 * output.
 *
 * Memory instructions mirror the SIMT twin's per warp where they move keys: the leaf reads (one
 * predicated LDG of an aligned B-key block), the node merges (X and the incoming keys to the 2B
 * workspace, the flip stage, log B half-cleaners, the upper half back to X, the lower half to a
 * register), the output stores. The bookkeeping differs: the node keys and leaf cursors live in
 * shared memory (one thread writes, all read them), where the SIMT twin charges one ALU
 * instruction per level; group_offsets scans with CUB's BlockScan where the SIMT twin charges
 * ALU instructions. __syncthreads () separates the steps in which a thread reads a word that
 * another wrote (the SIMT twin's lock step). */
#include <cstring>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include "../merge-sort-plan.h"
#include "agpu.h"

#define MERGE_D_MAX 256
#define KEY_MAX 0xffffffffu

/* ---- part 1 ---- */

template <int B>
__global__ void __launch_bounds__ (B)
block_sort (unsigned *dst, const unsigned *src, unsigned n)
{
  __shared__ unsigned shared[B];
  Shared *s = shared;
  unsigned t = threadIdx.x, base = blockIdx.x * B;
  unsigned x = KEY_MAX;
  if (base + t < n)
    x = src[base + t];
  s[t] = x;
#pragma unroll
  for (unsigned k = 2; k <= B; k *= 2)
#pragma unroll
    for (unsigned j = k / 2; j > 0; j /= 2)
      {
        __syncthreads ();
        if (t < B / 2)
          {
            unsigned e = t / j * 2 * j + t % j;
            bool up = (e & k) == 0;
            unsigned lo = up ? e : e + j, hi = up ? e + j : e;
            unsigned a = s[lo], c = s[hi];
            s[lo] = min (a, c);
            s[hi] = max (a, c);
          }
      }
  __syncthreads ();
  x = s[t];
  if (base + t < n)
    dst[base + t] = x;
}

/* ---- the d-way merge (Lemma 7.7) ---- */

/* One merge launch, as the SIMT twin's MergeArgs: column mode when pos is NULL. */
struct MergeArgs {
  unsigned *src, *dst;
  unsigned n, run;
  unsigned *pos, *off;
  unsigned width, span, per_group, d;
};

/* The block's merge state in dynamic shared memory: X of the d−1 nodes (B keys each), the 2B
 * workspace, then the keys of the 2d nodes and the leaves' ranges and cursors. */
template <int B>
struct MergeState {
  Shared *x, *w;
  volatile unsigned *key, *lo, *hi, *cur;
  unsigned d;
};

/* The next B keys of leaf @r (see leaf_take in the SIMT twin). */
template <int B>
static __device__ __forceinline__ unsigned
leaf_take (const MergeState<B> &s, const unsigned *src, unsigned r)
{
  unsigned t = threadIdx.x, cur = s.cur[r], lo = s.lo[r], hi = s.hi[r], i = cur + t;
  unsigned f = i < lo ? 0u : KEY_MAX;
  if (cur >= hi)
    return f;
  if (i >= lo && i < hi)
    f = src[i];
  return f;
}

/* Node @i merges its X with @f (node_merge in the SIMT twin); returns the lower half's key. */
template <int B>
static __device__ __forceinline__ unsigned
node_merge (const MergeState<B> &s, unsigned i, unsigned f)
{
  unsigned t = threadIdx.x;
  Shared *x = s.x + (i - 1) * B, *w = s.w;
  unsigned a = x[t];
  w[t] = a;
  w[B + t] = f;
  __syncthreads ();
  {
    unsigned p = w[t], q = w[2 * B - 1 - t];
    w[t] = min (p, q);
    w[2 * B - 1 - t] = max (p, q);
  }
#pragma unroll
  for (unsigned j = B / 2; j > 0; j /= 2)
    {
      __syncthreads ();
      unsigned e = t / j * 2 * j + t % j;
      unsigned p = w[e], q = w[e + j];
      w[e] = min (p, q);
      w[e + j] = max (p, q);
    }
  __syncthreads ();
  a = w[B + t];
  x[t] = a;
  return w[t];
}

/* take(i): the B smallest keys left under node @i; thread B−1 records the node's key. */
template <int B>
static __device__ unsigned
take (const MergeState<B> &s, const unsigned *src, unsigned i)
{
  unsigned path[9], depth = 0, f;
  /* down to a leaf by the smaller keys */
  while (i < s.d)
    {
      path[depth++] = i;
      i = s.key[2 * i] <= s.key[2 * i + 1] ? 2 * i : 2 * i + 1;
    }
  f = leaf_take<B> (s, src, i - s.d);
  __syncthreads ();
  if (threadIdx.x == 0 && s.cur[i - s.d] < s.hi[i - s.d])
    s.cur[i - s.d] += B;
  if (threadIdx.x == B - 1)
    s.key[i] = f;
  while (depth > 0)
    {
      unsigned node = path[--depth];
      f = node_merge<B> (s, node, f);
      if (threadIdx.x == B - 1)
        s.key[node] = f;
    }
  __syncthreads ();
  return f;
}

template <int B>
__global__ void __launch_bounds__ (B)
merge_blocks (MergeArgs a)
{
  extern __shared__ unsigned dyn[];
  MergeState<B> s;
  unsigned t = threadIdx.x, d = a.d, bid = blockIdx.x;
  __shared__ unsigned out_at, junk_count[2];
  s.d = d;
  s.x = dyn;
  s.w = dyn + (d - 1) * B;
  s.key = dyn + (d + 1) * B;
  s.lo = s.key + 2 * d;
  s.hi = s.lo + d;
  s.cur = s.hi + d;
  for (unsigned r = t; r < 2 * d; r += B)
    s.key[r] = 0;
  if (a.pos == nullptr)
    {
      for (unsigned r = t; r < d; r += B)
        {
          unsigned lo = (unsigned) min ((unsigned long long) (bid * d + r) * a.run,
                                        (unsigned long long) a.n);
          s.lo[r] = lo;
          s.hi[r] = min (lo + a.run, a.n);
        }
      if (t == 0)
        out_at = (unsigned) min ((unsigned long long) bid * d * a.run, (unsigned long long) a.n);
    }
  else
    {
      unsigned j = bid / a.per_group, g = bid % a.per_group, row = a.width + 1;
      unsigned first = g * d * a.span;
      if (a.span == 1)
        {
          for (unsigned r = t; r < d; r += B)
            {
              bool in = first + r < a.width;
              unsigned k = min (first + r, a.width - 1);
              unsigned lo = a.pos[j * a.width + k], hi = a.pos[(j + 1) * a.width + k];
              s.lo[r] = in ? lo : 0;
              s.hi[r] = in ? hi : 0;
            }
          if (t == 0)
            out_at = a.off[j * row + first];
        }
      else
        {
          for (unsigned r = t; r <= d; r += B)
            {
              unsigned v = a.off[j * row + min (first + r * a.span, a.width)];
              if (r < d)
                s.lo[r] = v;
              if (r > 0)
                s.hi[r - 1] = v;
            }
          if (t == 0)
            out_at = a.off[j * row + first];
        }
    }
  __syncthreads ();
  if (t == 0)
    {
      unsigned junk = 0, count = 0;
      for (unsigned r = 0; r < d; r++)
        {
          unsigned lo = s.lo[r], hi = s.hi[r], cur = lo / B * B;
          if (lo < hi)
            {
              junk += lo - cur;
              count += hi - lo;
            }
          else
            cur = hi;
          s.cur[r] = cur;
        }
      junk_count[0] = junk;
      junk_count[1] = count;
    }
  __syncthreads ();
  unsigned junk = junk_count[0], count = junk_count[1], base = out_at;
  for (unsigned i = d - 1; i >= 1; i--)
    {
      unsigned f = take<B> (s, a.src, 2 * i);
      s.x[(i - 1) * B + t] = f;
    }
  for (unsigned m = 0; m * B < junk + count; m++)
    {
      unsigned f = take<B> (s, a.src, 1);
      unsigned o = m * B + t;
      if (o >= junk && o - junk < count)
        a.dst[base + o - junk] = f;
    }
}

/* ---- part 3 ---- */

struct PartArgs {
  unsigned *keys, *samples, *pos, *off;
  unsigned n, run, runs, per_run, m, sigma, steps;
};

template <int B>
__global__ void __launch_bounds__ (B)
sample_keys (PartArgs a)
{
  unsigned k = blockIdx.x * B + threadIdx.x;
  if (k < a.m)
    a.samples[k] = a.keys[k / a.per_run * a.run + (k % a.per_run + 1) * a.sigma - 1];
}

template <int B>
__global__ void __launch_bounds__ (B)
search_pos (PartArgs a)
{
  unsigned k = blockIdx.x * B + threadIdx.x;
  if (k >= (a.m + 2) * a.runs)
    return;
  unsigned j = k / a.runs, i = k % a.runs, start = i * a.run;
  unsigned end = (unsigned) min ((unsigned long long) start + a.run, (unsigned long long) a.n);
  unsigned lo = j == a.m + 1 ? end : start, len = j == 0 || j == a.m + 1 ? 0 : end - start;
  unsigned sep = len ? a.samples[j - 1] : 0;
  for (unsigned s = 0; s < a.steps; s++)
    if (len > 0)
      {
        unsigned half = len / 2;
        if (a.keys[lo + half] < sep)
          {
            lo += half + 1;
            len -= half + 1;
          }
        else
          len = half;
      }
  a.pos[k] = lo;
}

/* Block j: off[j][i] for i = 0 .. runs (offset_kernel in the SIMT twin): each thread sums a
 * contiguous part of the runs, CUB scans the parts. */
template <int B>
__global__ void __launch_bounds__ (B)
group_offsets (PartArgs a)
{
  typedef cub::BlockScan<unsigned, B> Scan;
  typedef cub::BlockReduce<unsigned, B> Reduce;
  __shared__ typename Scan::TempStorage scan_tmp;
  __shared__ typename Reduce::TempStorage reduce_tmp;
  __shared__ unsigned base_all;
  unsigned j = blockIdx.x, w = a.runs, t = threadIdx.x;
  unsigned per = (w + B - 1) / B, from = min (t * per, w), to = min (from + per, w);
  unsigned below = 0, mine = 0, before;
  const unsigned *row = a.pos + (size_t) j * w, *next = row + w;
  for (unsigned i = from; i < to; i++)
    {
      below += row[i] - i * a.run;
      mine += next[i] - row[i];
    }
  unsigned total = Reduce (reduce_tmp).Sum (below);
  if (t == 0)
    base_all = total;
  __syncthreads ();
  Scan (scan_tmp).ExclusiveSum (mine, before);
  unsigned *out = a.off + (size_t) j * (w + 1), at = base_all + before;
  for (unsigned i = from; i < to; i++)
    {
      out[i] = at;
      at += next[i] - row[i];
    }
  if (to == w && from < to)
    out[w] = at;
  if (w == 0 && t == 0)
    out[0] = base_all;
}

/* ---- the case ---- */

static MdlMergePlan
case_plan (const Case &c)
{
  unsigned d = c.twin == &cuda_twin_sort_warpsort ? 2 : (unsigned) c.num ("d", 4);
  return mdl_merge_plan ((uint64_t) c.n, (uint64_t) c.num ("b", 32), d,
                         (uint64_t) c.num ("l", 0), (uint64_t) c.num ("sigma", 0));
}

/* The scratch buffer (out2), in words: keys, two sample buffers, pos, off; each part at a
 * multiple of 64 words. */
struct Scratch {
  size_t keys, s0, s1, pos, off, words;
};

static Scratch
scratch_of (const MdlMergePlan &p)
{
  Scratch s;
  size_t w = p.runs, sm = p.m ? p.m : 1;
  s.keys = 0;
  s.s0 = agpu_round_up (p.n, 64);
  s.s1 = s.s0 + agpu_round_up (sm, 64);
  s.pos = s.s1 + agpu_round_up (sm, 64);
  s.off = s.pos + agpu_round_up ((p.m + 2) * w, 64);
  s.words = s.off + agpu_round_up ((p.m + 1) * (w + 1), 64);
  return s;
}

static bool
merge_validate (const Case &c, std::string *why)
{
  long b = c.num ("b", 32), d = c.num ("d", 4), l = c.num ("l", 0), sigma = c.num ("sigma", 0);
  if (b < 32 || b > 1024 || (b & (b - 1)) != 0)
    return mdl_cuda_refuse (why, "b must be a power of two from 32 to 1024 (the CUDA twin runs "
                                 "whole warps)");
  if (d < 2 || d > MERGE_D_MAX || (d & (d - 1)) != 0)
    return mdl_cuda_refuse (why, "d must be a power of two from 2 to 256");
  if (l < 0 || l > (1L << 20) || sigma < 0 || sigma > (1L << 30))
    return mdl_cuda_refuse (why, "l must be 0..2^20 and sigma 0..2^30 (0: chosen from n)");
  if (c.n < 1 || c.n > (1L << 28))
    return mdl_cuda_refuse (why, "n must be 1..2^28 (as the SIMT twin)");
  if (!mdl_cuda_agpu_shared_ok (4 * ((size_t) b * (d + 1) + 5 * d), "b and d", why))
    return false;
  return mdl_cuda_dist_ok (c, why);
}

static void
merge_prepare (const Case &c, Buffers &b, uint64_t *rng)
{
  MdlMergePlan p = case_plan (c);
  mdl_cuda_fill_keys (c, b.in, rng);
  mdl_cuda_keys_scratch (c, b);
  b.out.assign (4 * (size_t) c.n, MDL_CUDA_POISON);
  b.out2.assign (4 * scratch_of (p).words, 0);
}

template <int B>
static void
launch_merge (const MergeArgs &a, unsigned blocks)
{
  size_t shared = 4 * ((size_t) B * (a.d + 1) + 5 * a.d);
  CUDA_OK (cudaFuncSetAttribute (merge_blocks<B>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 (int) shared));
  merge_blocks<B><<<blocks, B, shared>>> (a);
}

/* Column-wise merges of @n keys at *@src, runs of @run, @steps times (see the SIMT twin). */
template <int B>
static int
column_merges (unsigned **src, unsigned **dst, uint64_t n, uint64_t run, uint64_t steps,
               unsigned d)
{
  for (uint64_t s = 0; s < steps; s++, run *= d)
    {
      MergeArgs a = { *src, *dst, (unsigned) n, (unsigned) run, nullptr, nullptr, 0, 0, 0, d };
      launch_merge<B> (a, (unsigned) mdl_merge_ceil_div (n, run * d));
      std::swap (*src, *dst);
    }
  return (int) steps;
}

template <int B>
static int
sort_launch (const Case &c, Buffers &b)
{
  MdlMergePlan p = case_plan (c);
  Scratch sc = scratch_of (p);
  unsigned *scratch = (unsigned *) b.d_out2, *buf[2] = { (unsigned *) b.d_out, scratch + sc.keys };
  unsigned *dst = buf[(p.passes - 1) % 2], *src = buf[p.passes % 2];
  unsigned d = (unsigned) p.d;
  int launches = 1;
  const unsigned *in = mdl_cuda_keys_in (c, b, &launches);
  block_sort<B><<<(unsigned) mdl_merge_ceil_div (p.n, B), B>>> (dst, in, (unsigned) p.n);
  std::swap (src, dst);
  launches += column_merges<B> (&src, &dst, p.n, B, p.s0, d);
  if (p.runs > 1)
    {
      unsigned *s0 = scratch + sc.s0, *s1 = scratch + sc.s1;
      unsigned steps = 0, w = (unsigned) p.runs, groups = (unsigned) p.m + 1, span = 1;
      while ((1ull << steps) <= p.run)
        steps++;
      PartArgs pa = { src, s0, scratch + sc.pos, scratch + sc.off, (unsigned) p.n,
                      (unsigned) p.run, w, (unsigned) p.per_run, (unsigned) p.m,
                      (unsigned) p.sigma, steps };
      if (p.m > 0)
        {
          uint64_t msteps = 0;
          for (uint64_t r = p.per_run; r < p.m; r *= d)
            msteps++;
          sample_keys<B><<<(unsigned) mdl_merge_ceil_div (p.m, B), B>>> (pa);
          launches += 1 + column_merges<B> (&s0, &s1, p.m, p.per_run, msteps, d);
          pa.samples = s0;
        }
      search_pos<B><<<(unsigned) mdl_merge_ceil_div ((p.m + 2) * w, B), B>>> (pa);
      group_offsets<B><<<groups, B>>> (pa);
      launches += 2;
      for (uint64_t t = 0; t < p.t0; t++, span *= d)
        {
          unsigned pieces = (w + span - 1) / span, per_group = (pieces + d - 1) / d;
          MergeArgs a = { src, dst, (unsigned) p.n, (unsigned) p.run, pa.pos, pa.off, w, span,
                          per_group, d };
          launch_merge<B> (a, groups * per_group);
          std::swap (src, dst);
          launches++;
        }
    }
  mdl_cuda_keys_out (c, (unsigned *) b.d_out, p.n, &launches);
  return launches;
}

static int
merge_launch (const Case &c, Buffers &b)
{
  int launches = 0;
  agpu_by_b<1024, 32> ((unsigned) c.num ("b", 32), [&] (auto B) {
    launches = sort_launch<decltype (B)::value> (c, b);
  });
  return launches;
}

static std::string
merge_kernel_name (const Case &c)
{
  return agpu_kernel_name ("block_sort", c);
}

const CudaTwin cuda_twin_sort_dway = { merge_validate, merge_prepare, merge_launch,
                                       mdl_cuda_check_sort_total, merge_kernel_name };
const CudaTwin cuda_twin_sort_warpsort = { merge_validate, merge_prepare, merge_launch,
                                           mdl_cuda_check_sort_total, merge_kernel_name };
