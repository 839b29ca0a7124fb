/* The CUDA twin of sort/gpu-quicksort (src/algos/simt/gpu-quicksort.c): Cederman's GPU-Quicksort
 * with the same kernels, records, pivot rules and cumulative sums. Phase one: the host loop of
 * Algorithm 1 (block list up, sequence records down after each launch), gqsort_kernel per
 * iteration (count, cumulative sum, FAA on the sequence's cursors, scatter, last block by FAA on
 * its block counter), or with phase1=host p1_count_kernel, the blocks' sums on the host,
 * p1_scatter_kernel and p1_pivot_kernel (no atomics, the 8800GTX's way); phase two:
 * lqsort_kernel, one block per sequence, longest first, with a shared stack and a bitonic sort in
 * shared memory below MINSIZE. A launch first copies the input to the output buffer (d; for
 * keys=f32 it maps it there, float-keys.cu, and maps d back at the end), which the algorithm sorts
 * in place with an auxiliary buffer of n keys (the first n words of out2; the bookkeeping
 * follows). Checked against the CPU radix sort of src/algos/keys.h. Spec:
 * ../shared/spec/gpu-quicksort-cederman.md §2; the choices are in
 * docs/models/sort-gpu-quicksort.md. */
#include <algorithm>

#include "twin.h"

namespace {

enum { SQ_SSTART, SQ_SEND, SQ_OLDSTART, SQ_OLDEND, SQ_COUNT, SQ_PIVOT, SQ_FIRST, SQ_NBLOCKS,
       SQ_LPIVOT, SQ_GPIVOT, SQ_WORDS = 16 };
enum { BD_WORDS = 4, MM_WORDS = 4, P2_WORDS = 4, STACK = 32 };
/* phase1=host: a block's totals (count kernel) and regions (the host). */
enum { HB_LT, HB_GT, HB_LBEG, HB_GBEG, HB_WORDS = 4 };
enum { SUM_SCAN, SUM_SERIAL, SUM_FAA };

struct Config {
  unsigned threads, maxseq, minsize;
  bool median;   /* phase one's pivots by the median of three, else the min/max average */
  bool host;     /* phase1=host: three kernels an iteration, block sums on the host */
  int sum;
};

Config
config_of (const Case &c)
{
  Config k;
  std::string sum = c.text ("sum", "scan");
  k.threads = (unsigned) c.num ("threads", 128);
  k.maxseq = (unsigned) c.num ("maxseq", 512);
  k.minsize = (unsigned) c.num ("minsize", 256);
  k.median = c.text ("pivot", "minmax") == "median";
  k.host = c.text ("phase1", "atomic") == "host";
  k.sum = sum == "faa" ? SUM_FAA : sum == "serial" ? SUM_SERIAL : SUM_SCAN;
  return k;
}

__host__ __device__ inline unsigned
midpoint (unsigned mn, unsigned mx)
{
  return mn + (mx - mn) / 2;
}

__host__ __device__ inline unsigned
median3 (unsigned a, unsigned b, unsigned c)
{
  return max (min (a, b), min (max (a, b), c));
}

/* The block's cumulative sum of the per-thread counts @nl, @ng (§2.6) through lt[0..T] and
 * gt[0..T]: each thread's offsets and the totals. The caller has a barrier between the last reads
 * of lt, gt and this call. */
template <int SUM>
__device__ void
cumsum (unsigned *lt, unsigned *gt, unsigned nl, unsigned ng, unsigned &ol, unsigned &og,
        unsigned &tl, unsigned &tg)
{
  const unsigned T = blockDim.x, tid = threadIdx.x;
  if (SUM == SUM_FAA)
    {
      if (tid == 0)
        {
          lt[T] = 0;
          gt[T] = 0;
        }
      __syncthreads ();
      ol = atomicAdd (&lt[T], nl);
      og = atomicAdd (&gt[T], ng);
      __syncthreads ();
      tl = lt[T];
      tg = gt[T];
      return;
    }
  lt[tid] = nl;
  gt[tid] = ng;
  __syncthreads ();
  if (SUM == SUM_SERIAL)
    {
      if (tid == 0)
        {
          unsigned s0 = 0, s1 = 0;
          for (unsigned k = 0; k < T; k++)
            {
              unsigned v0 = lt[k], v1 = gt[k];
              lt[k] = s0;
              gt[k] = s1;
              s0 += v0;
              s1 += v1;
            }
          lt[T] = s0;
          gt[T] = s1;
        }
      __syncthreads ();
    }
  else
    {
      unsigned offset = 1;
      for (unsigned d = T >> 1; d > 0; d >>= 1, offset <<= 1)
        {
          if (tid < d)
            {
              unsigned ai = offset * (2 * tid + 1) - 1, bi = offset * (2 * tid + 2) - 1;
              lt[bi] += lt[ai];
              gt[bi] += gt[ai];
            }
          __syncthreads ();
        }
      if (tid == 0)
        {
          lt[T] = lt[T - 1];
          lt[T - 1] = 0;
          gt[T] = gt[T - 1];
          gt[T - 1] = 0;
        }
      __syncthreads ();
      for (unsigned d = 1; d < T; d <<= 1)
        {
          offset >>= 1;
          if (tid < d)
            {
              unsigned ai = offset * (2 * tid + 1) - 1, bi = offset * (2 * tid + 2) - 1;
              unsigned x = lt[ai], y = gt[ai];
              lt[ai] = lt[bi];
              lt[bi] += x;
              gt[ai] = gt[bi];
              gt[bi] += y;
            }
          __syncthreads ();
        }
    }
  ol = lt[tid];
  og = gt[tid];
  tl = lt[T];
  tg = gt[T];
}

/* The block's min of mn0, mn1 and max of mx0, mx1 through m[0..4T), into thread 0's registers;
 * ends after a barrier. */
__device__ void
block_minmax (unsigned *m, unsigned &mn0, unsigned &mx0, unsigned &mn1, unsigned &mx1)
{
  const unsigned T = blockDim.x, tid = threadIdx.x;
  m[tid] = mn0;
  m[T + tid] = mx0;
  m[2 * T + tid] = mn1;
  m[3 * T + tid] = mx1;
  __syncthreads ();
  for (unsigned s = T / 2; s > 0; s >>= 1)
    {
      if (tid < s)
        {
          mn0 = min (mn0, m[tid + s]);
          m[tid] = mn0;
          mx0 = max (mx0, m[T + tid + s]);
          m[T + tid] = mx0;
          mn1 = min (mn1, m[2 * T + tid + s]);
          m[2 * T + tid] = mn1;
          mx1 = max (mx1, m[3 * T + tid + s]);
          m[3 * T + tid] = mx1;
        }
      __syncthreads ();
    }
}

/* Phase one's pass 1 over the block's keys [start, end) of @src and the block's cumulative sum:
 * each thread's offsets @ol, @og and the totals @tl, @tg; with MINMAX, the block's extremes to
 * its mm record. Shared memory: lt[T+1], gt[T+1], m[4T]. */
template <int SUM, bool MINMAX>
__device__ void
p1_count (unsigned *sh, const unsigned *src, unsigned *mm, unsigned start, unsigned end,
          unsigned pivot, unsigned &ol, unsigned &og, unsigned &tl, unsigned &tg)
{
  const unsigned T = blockDim.x, tid = threadIdx.x;
  unsigned *lt = sh, *gt = sh + T + 1, *m = sh + 2 * T + 2;
  unsigned nl = 0, ng = 0, mn0 = ~0u, mx0 = 0, mn1 = ~0u, mx1 = 0;
#pragma unroll 4
  for (unsigned i = start + tid; i < end; i += T)
    {
      unsigned x = src[i];
      if (x < pivot)
        {
          nl++;
          if (MINMAX)
            {
              mn0 = min (mn0, x);
              mx0 = max (mx0, x);
            }
        }
      if (x > pivot)
        {
          ng++;
          if (MINMAX)
            {
              mn1 = min (mn1, x);
              mx1 = max (mx1, x);
            }
        }
    }
  cumsum<SUM> (lt, gt, nl, ng, ol, og, tl, tg);
  if (MINMAX)
    {
      block_minmax (m, mn0, mx0, mn1, mx1);
      if (tid == 0)
        {
          unsigned *o = mm + MM_WORDS * blockIdx.x;
          o[0] = mn0;
          o[1] = mx0;
          o[2] = mn1;
          o[3] = mx1;
        }
    }
}

/* Pass 2: the block's keys to its regions of @dst, from @lfrom (left) and @gfrom (right). */
__device__ void
p1_scatter (const unsigned *src, unsigned *dst, unsigned start, unsigned end, unsigned pivot,
            unsigned lfrom, unsigned gfrom)
{
  const unsigned T = blockDim.x, tid = threadIdx.x;
#pragma unroll 4
  for (unsigned i = start + tid; i < end; i += T)
    {
      unsigned x = src[i];
      if (x < pivot)
        dst[lfrom++] = x;
      if (x > pivot)
        dst[gfrom++] = x;
    }
}

/* The end of sequence @seq's partition once all its blocks have scattered into @dst: the pivot
 * run to @d and the pivots of the two new sequences. Shared memory: m[4T] at sh + 2T + 2. */
template <bool MINMAX>
__device__ void
p1_finish (unsigned *sh, unsigned *seq, const unsigned *mm, const unsigned *dst, unsigned *d,
           unsigned pivot)
{
  const unsigned T = blockDim.x, tid = threadIdx.x;
  unsigned *m = sh + 2 * T + 2;
  volatile unsigned *vs = seq;
  const unsigned sstart = vs[SQ_SSTART], send = vs[SQ_SEND];
  const unsigned oldstart = vs[SQ_OLDSTART], oldend = vs[SQ_OLDEND];
  for (unsigned i = sstart + tid; i < send; i += T)
    d[i] = pivot;
  if (MINMAX)
    {
      const unsigned first = vs[SQ_FIRST], nb = vs[SQ_NBLOCKS];
      unsigned mn0 = ~0u, mx0 = 0, mn1 = ~0u, mx1 = 0;
      for (unsigned b = first + tid; b < first + nb; b += T)
        {
          const unsigned *o = mm + MM_WORDS * b;
          mn0 = min (mn0, __ldcg (o));
          mx0 = max (mx0, __ldcg (o + 1));
          mn1 = min (mn1, __ldcg (o + 2));
          mx1 = max (mx1, __ldcg (o + 3));
        }
      block_minmax (m, mn0, mx0, mn1, mx1);
      if (tid == 0)
        {
          seq[SQ_LPIVOT] = midpoint (mn0, mx0);
          seq[SQ_GPIVOT] = midpoint (mn1, mx1);
        }
    }
  else if (tid == 0)
    {
      unsigned lo[2] = { oldstart, send }, hi[2] = { sstart, oldend };
      for (int side = 0; side < 2; side++)
        {
          unsigned s0 = 0, s1 = 0, s2 = 0;
          if (lo[side] < hi[side])
            {
              s0 = __ldcg (dst + lo[side]);
              s1 = __ldcg (dst + lo[side] + (hi[side] - lo[side]) / 2);
              s2 = __ldcg (dst + hi[side] - 1);
            }
          seq[side ? SQ_GPIVOT : SQ_LPIVOT] = median3 (s0, s1, s2);
        }
    }
}

/* Phase one (Algorithm 2), phase1=atomic: block b partitions its part of sequence blocks[b].seq
 * from @src into @dst; the sequence's last block writes the pivot run to @d and the new
 * sequences' pivots. Shared memory: lt[T+1], gt[T+1], m[4T], three words. */
template <int SUM, bool MINMAX>
__global__ void
gqsort_kernel (const unsigned *blocks, unsigned *seqs, unsigned *mm, const unsigned *src,
               unsigned *dst, unsigned *d)
{
  extern __shared__ unsigned sh[];
  const unsigned T = blockDim.x, tid = threadIdx.x;
  unsigned *sc = sh + 6 * T + 2;
  const unsigned *bd = blocks + BD_WORDS * blockIdx.x;
  const unsigned start = bd[0], end = bd[1];
  unsigned *seq = seqs + SQ_WORDS * bd[2];
  const unsigned pivot = seq[SQ_PIVOT];
  unsigned ol, og, tl, tg;
  p1_count<SUM, MINMAX> (sh, src, mm, start, end, pivot, ol, og, tl, tg);
  if (tid == 0)
    {
      sc[0] = atomicAdd (&seq[SQ_SSTART], tl);
      sc[1] = atomicAdd (&seq[SQ_SEND], 0u - tg) - tg;
    }
  __syncthreads ();
  p1_scatter (src, dst, start, end, pivot, sc[0] + ol, sc[1] + og);
  /* Every block's keys, extremes and cursors are visible before its count goes down. */
  __threadfence ();
  __syncthreads ();
  if (tid == 0)
    sc[2] = atomicAdd (&seq[SQ_COUNT], ~0u) == 1;
  __syncthreads ();
  if (!sc[2])
    return;
  __threadfence ();
  p1_finish<MINMAX> (sh, seq, mm, dst, d, pivot);
}

/* phase1=host, kernel 1 of 3: pass 1 and the block's sum; every thread stores its two offsets
 * (@off: 2T words a block, left ones first) and thread 0 the block's totals in its @hb record. */
template <int SUM, bool MINMAX>
__global__ void
p1_count_kernel (const unsigned *blocks, const unsigned *seqs, unsigned *mm, const unsigned *src,
                 unsigned *hb, unsigned *off)
{
  extern __shared__ unsigned sh[];
  const unsigned T = blockDim.x, tid = threadIdx.x;
  const unsigned *bd = blocks + BD_WORDS * blockIdx.x;
  const unsigned start = bd[0], end = bd[1];
  const unsigned pivot = seqs[SQ_WORDS * bd[2] + SQ_PIVOT];
  unsigned *o = off + 2 * T * blockIdx.x, ol, og, tl, tg;
  p1_count<SUM, MINMAX> (sh, src, mm, start, end, pivot, ol, og, tl, tg);
  o[tid] = ol;
  o[T + tid] = og;
  if (tid == 0)
    {
      hb[HB_WORDS * blockIdx.x + HB_LT] = tl;
      hb[HB_WORDS * blockIdx.x + HB_GT] = tg;
    }
}

/* phase1=host, kernel 2 of 3: every thread reads its offsets and the block's regions (summed by
 * the host) and scatters. */
__global__ void
p1_scatter_kernel (const unsigned *blocks, const unsigned *seqs, const unsigned *src,
                   unsigned *dst, const unsigned *hb, const unsigned *off)
{
  const unsigned T = blockDim.x, tid = threadIdx.x;
  const unsigned *bd = blocks + BD_WORDS * blockIdx.x;
  const unsigned start = bd[0], end = bd[1];
  const unsigned pivot = seqs[SQ_WORDS * bd[2] + SQ_PIVOT];
  const unsigned *o = off + 2 * T * blockIdx.x, *h = hb + HB_WORDS * blockIdx.x;
  const unsigned ol = o[tid], og = o[T + tid];
  p1_scatter (src, dst, start, end, pivot, h[HB_LBEG] + ol, h[HB_GBEG] + og);
}

/* phase1=host, kernel 3 of 3: block s finishes sequence s (the launch boundary is the barrier
 * that the atomic variant's block counter stands for). Shared memory as gqsort_kernel's. */
template <bool MINMAX>
__global__ void
p1_pivot_kernel (unsigned *seqs, const unsigned *mm, const unsigned *dst, unsigned *d)
{
  extern __shared__ unsigned sh[];
  unsigned *seq = seqs + SQ_WORDS * blockIdx.x;
  p1_finish<MINMAX> (sh, seq, mm, dst, d, seq[SQ_PIVOT]);
}

/* The alternative sort: [start, start + len) of @src through the shared @buf (padded with ~0 to
 * the power of two sb >= len), bitonic, to d[start..). Ends with a barrier (the buffer is reused). */
__device__ void
altsort (unsigned *buf, const unsigned *src, unsigned *d, unsigned start, unsigned len)
{
  const unsigned T = blockDim.x, tid = threadIdx.x;
  unsigned sb = 1;
  while (sb < len)
    sb <<= 1;
  for (unsigned i = tid; i < sb; i += T)
    buf[i] = i < len ? src[start + i] : ~0u;
  __syncthreads ();
  for (unsigned k = 2; k <= sb; k <<= 1)
    for (unsigned j = k >> 1; j > 0; j >>= 1)
      {
        for (unsigned i = tid; i < sb; i += T)
          {
            unsigned ixj = i ^ j;
            if (ixj > i)
              {
                unsigned a = buf[i], b = buf[ixj];
                bool up = (i & k) == 0;
                if (up ? a > b : a < b)
                  {
                    buf[i] = b;
                    buf[ixj] = a;
                  }
              }
          }
        __syncthreads ();
      }
  for (unsigned i = tid; i < len; i += T)
    d[start + i] = buf[i];
  __syncthreads ();
}

/* Phase two (Algorithm 3): block b sorts sequence list[b] ([start, end) in buffer flip: 0 d,
 * 1 aux). Shared memory: lt[T+1], gt[T+1], the stack (start, end, flip; STACK each), its depth,
 * the bitonic buffer (minsize words). */
template <int SUM>
__global__ void
lqsort_kernel (const unsigned *list, unsigned *d, unsigned *aux, unsigned minsize)
{
  extern __shared__ unsigned sh[];
  const unsigned T = blockDim.x, tid = threadIdx.x;
  unsigned *lt = sh, *gt = sh + T + 1, *stk = sh + 2 * T + 2, *spp = stk + 3 * STACK;
  unsigned *buf = spp + 1;
  if (tid == 0)
    {
      const unsigned *e = list + P2_WORDS * blockIdx.x;
      stk[0] = e[0];
      stk[STACK] = e[1];
      stk[2 * STACK] = e[2];
      *spp = 1;
    }
  __syncthreads ();
  while (*spp > 0)
    {
      const unsigned sp = *spp;
      const unsigned start = stk[sp - 1], end = stk[STACK + sp - 1], flip = stk[2 * STACK + sp - 1];
      __syncthreads ();
      if (tid == 0)
        *spp = sp - 1;
      const unsigned len = end - start;
      unsigned *src = flip ? aux : d, *dst = flip ? d : aux;
      if (len < minsize)
        {
          if (len > 0)
            altsort (buf, src, d, start, len);
          __syncthreads ();
          continue;
        }
      const unsigned pivot = median3 (src[start], src[start + len / 2], src[end - 1]);
      unsigned nl = 0, ng = 0, ol, og, tl, tg;
#pragma unroll 4
      for (unsigned i = start + tid; i < end; i += T)
        {
          unsigned x = src[i];
          nl += x < pivot;
          ng += x > pivot;
        }
      cumsum<SUM> (lt, gt, nl, ng, ol, og, tl, tg);
      unsigned lfrom = start + ol, gfrom = end - (og + ng);
#pragma unroll 4
      for (unsigned i = start + tid; i < end; i += T)
        {
          unsigned x = src[i];
          if (x < pivot)
            dst[lfrom++] = x;
          if (x > pivot)
            dst[gfrom++] = x;
        }
      /* When the sequence lives in d, the pivot run overwrites keys that other warps may still
       * be reading in pass 2. */
      __syncthreads ();
      for (unsigned i = start + tl + tid; i < end - tg; i += T)
        d[i] = pivot;
      /* The keys of the new sequences were written by other threads of this block. */
      __syncthreads ();
      const unsigned lo[2] = { start, end - tg }, hi[2] = { start + tl, end };
      const int longer = tg > tl;
      for (int k = 0; k < 2; k++)
        {
          int c = k == 0 ? longer : 1 - longer;
          unsigned clen = hi[c] - lo[c];
          if (clen >= minsize)
            {
              if (tid == 0)
                {
                  unsigned s = *spp;
                  if (s < STACK)
                    {
                      stk[s] = lo[c];
                      stk[STACK + s] = hi[c];
                      stk[2 * STACK + s] = 1 - flip;
                      *spp = s + 1;
                    }
                }
            }
          else if (clen > 0)
            altsort (buf, dst, d, lo[c], clen);
        }
      __syncthreads ();
    }
}

typedef void (*P1Kernel) (const unsigned *, unsigned *, unsigned *, const unsigned *, unsigned *,
                          unsigned *);
typedef void (*P2Kernel) (const unsigned *, unsigned *, unsigned *, unsigned);
typedef void (*CountKernel) (const unsigned *, const unsigned *, unsigned *, const unsigned *,
                             unsigned *, unsigned *);
typedef void (*PivotKernel) (unsigned *, const unsigned *, const unsigned *, unsigned *);

CountKernel
count_kernel (const Config &k)
{
  static const CountKernel table[3][2] = {
    { p1_count_kernel<SUM_SCAN, false>, p1_count_kernel<SUM_SCAN, true> },
    { p1_count_kernel<SUM_SERIAL, false>, p1_count_kernel<SUM_SERIAL, true> },
    { p1_count_kernel<SUM_FAA, false>, p1_count_kernel<SUM_FAA, true> },
  };
  return table[k.sum][!k.median];
}

PivotKernel
pivot_kernel (const Config &k)
{
  return k.median ? p1_pivot_kernel<false> : p1_pivot_kernel<true>;
}

P1Kernel
p1_kernel (const Config &k)
{
  static const P1Kernel table[3][2] = {
    { gqsort_kernel<SUM_SCAN, false>, gqsort_kernel<SUM_SCAN, true> },
    { gqsort_kernel<SUM_SERIAL, false>, gqsort_kernel<SUM_SERIAL, true> },
    { gqsort_kernel<SUM_FAA, false>, gqsort_kernel<SUM_FAA, true> },
  };
  return table[k.sum][!k.median];
}

P2Kernel
p2_kernel (const Config &k)
{
  static const P2Kernel table[3] = { lqsort_kernel<SUM_SCAN>, lqsort_kernel<SUM_SERIAL>,
                                     lqsort_kernel<SUM_FAA> };
  return table[k.sum];
}

/* The words of out2: aux (n), then the records. */
struct Layout {
  size_t seqs, blocks, mm, list, hb, off, words;
  size_t cap_blocks, cap_list;
};

Layout
layout_of (const Config &k, size_t n)
{
  Layout l;
  l.cap_blocks = 3 * (size_t) k.maxseq + 1;
  l.cap_list = 2 * (size_t) k.maxseq + 1;
  l.seqs = (n + 63) / 64 * 64;
  l.blocks = l.seqs + SQ_WORDS * (size_t) k.maxseq;
  l.mm = l.blocks + BD_WORDS * l.cap_blocks;
  l.list = l.mm + MM_WORDS * l.cap_blocks;
  l.hb = l.list + P2_WORDS * l.cap_list;
  l.off = l.hb + (k.host ? HB_WORDS * l.cap_blocks : 0);
  l.words = l.off + (k.host ? 2 * (size_t) k.threads * l.cap_blocks : 0);
  return l;
}

unsigned
p2_shared (const Config &k)
{
  return 4 * (2 * k.threads + 2 + 3 * STACK + 1 + k.minsize);
}

bool
gqs_validate (const Case &c, std::string *why)
{
  Config k = config_of (c);
  auto pow2 = [] (long v, long lo, long hi) { return v >= lo && v <= hi && (v & (v - 1)) == 0; };
  if (!mdl_cuda_dist_ok (c, why))
    return false;
  if (c.n < 0 || c.n > (1L << 28))
    return mdl_cuda_refuse (why, "n must be 0..2^28");
  if (!pow2 (c.num ("threads", 128), 32, 1024))
    return mdl_cuda_refuse (why, "threads must be a power of two, 32..1024");
  if (c.num ("maxseq", 512) < 1 || c.num ("maxseq", 512) > (1L << 20))
    return mdl_cuda_refuse (why, "maxseq must be 1..2^20");
  if (!pow2 (c.num ("minsize", 256), 1, 8192))
    return mdl_cuda_refuse (why, "minsize must be a power of two, 1..8192");
  if (!mdl_cuda_choice_ok (c, "pivot", "minmax", "minmax|median", why)
      || !mdl_cuda_choice_ok (c, "sum", "scan", "scan|serial|faa", why)
      || !mdl_cuda_choice_ok (c, "phase1", "atomic", "atomic|host", why))
    return false;
  (void) k;
  return true;
}

void
gqs_prepare (const Case &c, Buffers &b, uint64_t *rng)
{
  Config k = config_of (c);
  mdl_cuda_fill_keys (c, b.in, rng);
  b.out.assign ((size_t) c.n * 4, MDL_CUDA_POISON);
  b.out2.assign (layout_of (k, (size_t) c.n).words * 4, MDL_CUDA_POISON);
  CUDA_OK (cudaFuncSetAttribute ((const void *) p2_kernel (k),
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, (int) p2_shared (k)));
}

struct Work {
  unsigned start, end, pivot;
};
struct Done {
  unsigned start, end, flip;
};

/* phase1=host: the count kernel, the host's cumulative sum of each sequence's blocks (the SIMT
 * twin's p1_host_step), the scatter kernel and the pivot kernel over the @n_seqs sequences whose
 * records are in @seqs (and on the device). Returns the launches (3). */
int
p1_host_step (const Config &k, const Layout &l, unsigned *base, std::vector<unsigned> &seqs,
              size_t n_seqs, size_t nb, const unsigned *src, unsigned *dst, unsigned *d)
{
  const unsigned T = k.threads;
  std::vector<unsigned> hb (HB_WORDS * nb);
  count_kernel (k)<<<(unsigned) nb, T, 4 * (6 * T + 6)>>> (base + l.blocks, base + l.seqs,
                                                            base + l.mm, src, base + l.hb,
                                                            base + l.off);
  CUDA_OK (cudaGetLastError ());
  CUDA_OK (cudaMemcpy (hb.data (), base + l.hb, 4 * hb.size (), cudaMemcpyDeviceToHost));
  for (size_t s = 0; s < n_seqs; s++)
    {
      unsigned *q = &seqs[SQ_WORDS * s];
      for (unsigned b = q[SQ_FIRST]; b < q[SQ_FIRST] + q[SQ_NBLOCKS]; b++)
        {
          unsigned *h = &hb[HB_WORDS * b];
          h[HB_LBEG] = q[SQ_SSTART];
          q[SQ_SSTART] += h[HB_LT];
          q[SQ_SEND] -= h[HB_GT];
          h[HB_GBEG] = q[SQ_SEND];
        }
    }
  CUDA_OK (cudaMemcpy (base + l.hb, hb.data (), 4 * hb.size (), cudaMemcpyHostToDevice));
  CUDA_OK (cudaMemcpy (base + l.seqs, seqs.data (), 4 * SQ_WORDS * n_seqs,
                       cudaMemcpyHostToDevice));
  p1_scatter_kernel<<<(unsigned) nb, T>>> (base + l.blocks, base + l.seqs, src, dst, base + l.hb,
                                           base + l.off);
  CUDA_OK (cudaGetLastError ());
  pivot_kernel (k)<<<(unsigned) n_seqs, T, 4 * (6 * T + 6)>>> (base + l.seqs, base + l.mm, dst, d);
  CUDA_OK (cudaGetLastError ());
  return 3;
}

/* The sort of d (the input copied, or mapped to words for keys=f32, first); returns the
 * launches. */
int
gqs_sort (const Case &c, Buffers &b)
{
  Config k = config_of (c);
  const size_t n = (size_t) c.n;
  const unsigned T = k.threads;
  Layout l = layout_of (k, n);
  unsigned *d = (unsigned *) b.d_out, *base = (unsigned *) b.d_out2, *aux = base;
  unsigned *buf[2] = { d, aux };
  std::vector<Work> work, next;
  std::vector<Done> done;
  std::vector<unsigned> seqs, blocks, list;
  int launches = 0, cur = 0;
  if (n == 0)
    return 0;
  if (mdl_cuda_float_keys (c))
    {
      mdl_cuda_keys_order ((const unsigned *) b.d_in, d, n, false);
      launches++;
    }
  else
    CUDA_OK (cudaMemcpy (d, b.d_in, 4 * n, cudaMemcpyDeviceToDevice));
  {
    unsigned s[3];
    size_t at[3] = { 0, n / 2, n - 1 };
    for (int i = 0; i < 3; i++)
      CUDA_OK (cudaMemcpy (&s[i], d + at[i], 4, cudaMemcpyDeviceToHost));
    work.push_back ({ 0, (unsigned) n,
                      k.median ? median3 (s[0], s[1], s[2])
                               : midpoint (std::min ({ s[0], s[1], s[2] }),
                                           std::max ({ s[0], s[1], s[2] })) });
  }
  while (!work.empty () && work.size () + done.size () < k.maxseq)
    {
      size_t total = 0, nb = 0, minlength = std::max (n / k.maxseq, (size_t) k.minsize);
      for (const Work &w : work)
        total += w.end - w.start;
      size_t blocksize = std::max (total / k.maxseq, (size_t) T);
      seqs.assign (SQ_WORDS * work.size (), 0);
      blocks.clear ();
      for (size_t s = 0; s < work.size (); s++)
        {
          const Work &w = work[s];
          size_t count = (w.end - w.start + blocksize - 1) / blocksize;
          unsigned *q = &seqs[SQ_WORDS * s];
          q[SQ_SSTART] = q[SQ_OLDSTART] = w.start;
          q[SQ_SEND] = q[SQ_OLDEND] = w.end;
          q[SQ_COUNT] = q[SQ_NBLOCKS] = (unsigned) count;
          q[SQ_PIVOT] = w.pivot;
          q[SQ_FIRST] = (unsigned) nb;
          for (size_t i = 0; i < count; i++, nb++)
            {
              blocks.push_back ((unsigned) (w.start + i * blocksize));
              blocks.push_back (i + 1 == count ? w.end : (unsigned) (w.start + (i + 1) * blocksize));
              blocks.push_back ((unsigned) s);
              blocks.push_back (0);
            }
        }
      if (nb > l.cap_blocks)
        {
          fprintf (stderr, "gpu-kernels: %s: %zu blocks, more than the %zu planned\n",
                   c.spec.c_str (), nb, l.cap_blocks);
          exit (2);
        }
      CUDA_OK (cudaMemcpy (base + l.seqs, seqs.data (), 4 * seqs.size (), cudaMemcpyHostToDevice));
      CUDA_OK (cudaMemcpy (base + l.blocks, blocks.data (), 4 * blocks.size (),
                           cudaMemcpyHostToDevice));
      if (k.host)
        launches += p1_host_step (k, l, base, seqs, work.size (), nb, buf[cur], buf[1 - cur], d);
      else
        {
          p1_kernel (k)<<<(unsigned) nb, T, 4 * (6 * T + 6)>>> (base + l.blocks, base + l.seqs,
                                                                 base + l.mm, buf[cur],
                                                                 buf[1 - cur], d);
          CUDA_OK (cudaGetLastError ());
          launches++;
        }
      CUDA_OK (cudaMemcpy (seqs.data (), base + l.seqs, 4 * seqs.size (), cudaMemcpyDeviceToHost));
      next.clear ();
      for (size_t s = 0; s < work.size (); s++)
        {
          const unsigned *q = &seqs[SQ_WORDS * s];
          Work kids[2] = { { q[SQ_OLDSTART], q[SQ_SSTART], q[SQ_LPIVOT] },
                           { q[SQ_SEND], q[SQ_OLDEND], q[SQ_GPIVOT] } };
          for (const Work &kid : kids)
            {
              size_t len = kid.end - kid.start;
              if (len == 0)
                continue;
              if (len < minlength)
                done.push_back ({ kid.start, kid.end, (unsigned) (1 - cur) });
              else
                next.push_back (kid);
            }
        }
      work.swap (next);
      cur = 1 - cur;
    }
  for (const Work &w : work)
    done.push_back ({ w.start, w.end, (unsigned) cur });
  if (done.empty ())
    return launches;
  std::sort (done.begin (), done.end (), [] (const Done &x, const Done &y) {
    if (x.end - x.start != y.end - y.start)
      return x.end - x.start > y.end - y.start;
    return x.start < y.start;
  });
  list.clear ();
  for (const Done &dn : done)
    list.insert (list.end (), { dn.start, dn.end, dn.flip, 0 });
  CUDA_OK (cudaMemcpy (base + l.list, list.data (), 4 * list.size (), cudaMemcpyHostToDevice));
  p2_kernel (k)<<<(unsigned) done.size (), T, p2_shared (k)>>> (base + l.list, d, aux, k.minsize);
  CUDA_OK (cudaGetLastError ());
  return launches + 1;
}

int
gqs_launch (const Case &c, Buffers &b)
{
  int launches = gqs_sort (c, b);
  mdl_cuda_keys_out (c, (unsigned *) b.d_out, (size_t) c.n, &launches);
  return launches;
}

long
gqs_check (const Case &c, const Buffers &b)
{
  return mdl_cuda_check_sort_total (c, b);
}

std::string
gqs_kernel (const Case &)
{
  return "qsort_kernel";
}

} // namespace

const CudaTwin cuda_twin_gpu_quicksort = { gqs_validate, gqs_prepare, gqs_launch, gqs_check,
                                           gqs_kernel };
