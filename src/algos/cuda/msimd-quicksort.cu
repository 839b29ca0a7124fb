/* sort/msimd-quicksort: the CUDA twin of src/algos/simt/msimd-quicksort.c (MSIMD quicksort,
 * Jurkiewicz & Danilewski §2, Appendix A.1). One warp is one SIMD-processor, a block of 32
 * threads each, as in the SIMT twin. Collaborative stage: rounds of three kernels (collect,
 * consult on one warp, commit), the host driver reading the counters between consult and commit
 * to assign processors (Lemma 1; rule=spare or literal) and writing the descriptors; then one
 * kernel in which each warp sorts its own subproblem (the same partition without the consult, a
 * stack in shared memory, a bitonic sort in shared memory at most `base` keys). The memory
 * instructions are the SIMT twin's: per chunk of 32 keys one load per pass; per output chunk one
 * store (commit=buffered) or per class and input chunk one store (commit=direct); the loads of a
 * few chunks are issued together here (the same loads, earlier), so that a warp has more than one
 * in flight. Buffers: the input (read only: the harness times repeated launches), two scratch
 * buffers the partitions move keys between, the output, which receives every equal class and
 * every bitonic-sorted leaf. */
#include <algorithm>
#include <cstring>
#include <vector>

#include "twin.h"

#define MQS_S 32u
#define MQS_RING 64u
#define MQS_DESC 8u
#define MQS_STACK 64u
#define MQS_UNROLL 4

enum { D_LO, D_N, D_PS, D_RANK, D_FIRST, D_PIVOT, D_SRC, D_ACTIVE };

struct MqsArgs {
  const unsigned *in;
  unsigned *buf1, *buf2, *out, *desc, *cnt;
  unsigned P, base;
  unsigned long long seed;
  int direct;
};

__device__ static const unsigned *
mqs_src (const MqsArgs &a, unsigned src)
{
  return src == 0 ? a.in : src == 1 ? a.buf1 : a.buf2;
}

__device__ static unsigned *
mqs_dst (const MqsArgs &a, unsigned src)
{
  return src == 1 ? a.buf2 : a.buf1;
}

__host__ __device__ static unsigned
mqs_other (unsigned src)
{
  return src == 1 ? 2 : 1;
}

/* The descriptor of processor @p, lane i holding word i (one load), broadcast. */
__device__ static void
mqs_desc (const MqsArgs &a, unsigned p, unsigned d[MQS_DESC])
{
  unsigned lane = threadIdx.x, w = lane < MQS_DESC ? a.desc[p * MQS_DESC + lane] : 0;
#pragma unroll
  for (unsigned i = 0; i < MQS_DESC; i++)
    d[i] = __shfl_sync (0xffffffffu, w, i);
}

__device__ static unsigned
mqs_pivot (const unsigned *x, unsigned i)
{
  unsigned v = threadIdx.x == 0 ? x[i] : 0;
  return __shfl_sync (0xffffffffu, v, 0);
}

__device__ static unsigned
mqs_sum (unsigned v)
{
#pragma unroll
  for (int o = 16; o > 0; o /= 2)
    v += __shfl_xor_sync (0xffffffffu, v, o);
  return v;
}

/* Collect: the keys of [ca, cb) below and equal to the pivot (warp totals). */
__device__ static void
mqs_collect_range (const unsigned *__restrict__ x, unsigned ca, unsigned cb, unsigned pivot,
                   unsigned *less, unsigned *equal)
{
  unsigned lane = threadIdx.x, lt = 0, eq = 0;
  if (ca < cb)
    {
      unsigned c0 = ca / MQS_S, c1 = (cb - 1) / MQS_S;
#pragma unroll 8
      for (unsigned c = c0; c <= c1; c++)
        {
          unsigned i = c * MQS_S + lane;
          if (i >= ca && i < cb)
            {
              unsigned k = x[i];
              lt += k < pivot;
              eq += k == pivot;
            }
        }
    }
  *less = mqs_sum (lt);
  *equal = mqs_sum (eq);
}

/* Commit: the keys of [ca, cb) to their classes' outputs dst[d] at pos[d]; @ring: 3 x 64 words of
 * this warp's shared memory. */
__device__ static void
mqs_commit_range (const unsigned *__restrict__ x, unsigned ca, unsigned cb, unsigned pivot,
                  unsigned *d0, unsigned *d1, unsigned *d2, unsigned p0, unsigned p1, unsigned p2,
                  unsigned *ring, bool direct)
{
  unsigned lane = threadIdx.x, below = (1u << lane) - 1;
  unsigned pos[3] = { p0, p1, p2 }, head[3] = { 0, 0, 0 }, fill[3] = { 0, 0, 0 };
  unsigned *dst[3] = { d0, d1, d2 };
  if (ca >= cb)
    return;
  unsigned c0 = ca / MQS_S, c1 = (cb - 1) / MQS_S;
  for (unsigned cb0 = c0; cb0 <= c1; cb0 += MQS_UNROLL)
    {
      unsigned key[MQS_UNROLL];
      bool in[MQS_UNROLL];
#pragma unroll
      for (int u = 0; u < MQS_UNROLL; u++)
        {
          unsigned i = (cb0 + u) * MQS_S + lane;
          in[u] = cb0 + u <= c1 && i >= ca && i < cb;
          key[u] = in[u] ? x[i] : 0;
        }
#pragma unroll
      for (int u = 0; u < MQS_UNROLL; u++)
        {
          unsigned k = key[u], cls = k < pivot ? 0 : k == pivot ? 1 : 2;
          unsigned m0 = __ballot_sync (0xffffffffu, in[u] && cls == 0);
          unsigned m1 = __ballot_sync (0xffffffffu, in[u] && cls == 1);
          unsigned m2 = __ballot_sync (0xffffffffu, in[u] && cls == 2);
          unsigned mine = cls == 0 ? m0 : cls == 1 ? m1 : m2;
          unsigned rank = (unsigned) __popc (mine & below);
          unsigned count[3] = { (unsigned) __popc (m0), (unsigned) __popc (m1), (unsigned) __popc (m2) };
          if (direct)
            {
              unsigned at = cls == 0 ? pos[0] : cls == 1 ? pos[1] : pos[2];
              unsigned *dp = cls == 0 ? dst[0] : cls == 1 ? dst[1] : dst[2];
              if (in[u])
                dp[at + rank] = k;
#pragma unroll
              for (int d = 0; d < 3; d++)
                pos[d] += count[d];
              continue;
            }
          unsigned h = cls == 0 ? head[0] + fill[0] : cls == 1 ? head[1] + fill[1] : head[2] + fill[2];
          if (in[u])
            ring[cls * MQS_RING + (h + rank) % MQS_RING] = k;
          __syncwarp ();
#pragma unroll
          for (int d = 0; d < 3; d++)
            {
              fill[d] += count[d];
              while (fill[d] >= MQS_S - pos[d] % MQS_S)
                {
                  unsigned need = MQS_S - pos[d] % MQS_S;
                  if (lane < need)
                    dst[d][pos[d] + lane] = ring[d * MQS_RING + (head[d] + lane) % MQS_RING];
                  pos[d] += need;
                  head[d] = (head[d] + need) % MQS_RING;
                  fill[d] -= need;
                }
            }
          __syncwarp ();
        }
    }
#pragma unroll
  for (int d = 0; d < 3; d++)
    if (!direct && fill[d])
      {
        if (lane < fill[d])
          dst[d][pos[d] + lane] = ring[d * MQS_RING + (head[d] + lane) % MQS_RING];
      }
  __syncwarp ();
}

__device__ static void
mqs_claim (unsigned lo, unsigned n, unsigned ps, unsigned rank, unsigned *a, unsigned *b)
{
  unsigned m = (unsigned) (((unsigned long long) n + ps - 1) / ps);
  unsigned long long s = (unsigned long long) lo + (unsigned long long) rank * m;
  *a = (unsigned) min (s, (unsigned long long) lo + n);
  *b = (unsigned) min ((unsigned long long) *a + m, (unsigned long long) lo + n);
}

__global__ void
msimd_qs_collect (MqsArgs a)
{
  unsigned d[MQS_DESC], ca, cb, less, equal;
  mqs_desc (a, blockIdx.x, d);
  if (!d[D_ACTIVE])
    return;
  const unsigned *x = mqs_src (a, d[D_SRC]);
  unsigned pivot = mqs_pivot (x, d[D_PIVOT]);
  mqs_claim (d[D_LO], d[D_N], d[D_PS], d[D_RANK], &ca, &cb);
  mqs_collect_range (x, ca, cb, pivot, &less, &equal);
  unsigned lane = threadIdx.x;
  if (lane < 3)
    a.cnt[3 * d[D_FIRST] + lane * d[D_PS] + d[D_RANK]]
      = lane == 0 ? less : lane == 1 ? equal : (cb - ca) - less - equal;
}

/* One warp: the exclusive scan of cnt[0 .. 3P). */
__global__ void
msimd_qs_consult (MqsArgs a)
{
  unsigned lane = threadIdx.x, words = 3 * a.P, carry = 0;
  for (unsigned c = 0; c < words; c += MQS_S)
    {
      unsigned i = c + lane, v = i < words ? a.cnt[i] : 0, incl = v;
#pragma unroll
      for (int o = 1; o < 32; o *= 2)
        {
          unsigned y = __shfl_up_sync (0xffffffffu, incl, o);
          if (lane >= (unsigned) o)
            incl += y;
        }
      if (i < words)
        a.cnt[i] = carry + incl - v;
      carry += __shfl_sync (0xffffffffu, incl, 31);
    }
}

__global__ void
msimd_qs_commit (MqsArgs a)
{
  __shared__ unsigned ring[3 * MQS_RING];
  unsigned d[MQS_DESC], ca, cb, lane = threadIdx.x;
  mqs_desc (a, blockIdx.x, d);
  if (!d[D_ACTIVE])
    return;
  const unsigned *x = mqs_src (a, d[D_SRC]);
  unsigned pivot = mqs_pivot (x, d[D_PIVOT]);
  unsigned base = 3 * d[D_FIRST];
  unsigned v = lane < 4 ? a.cnt[lane < 3 ? base + lane * d[D_PS] + d[D_RANK] : base] : 0;
  unsigned s0 = __shfl_sync (0xffffffffu, v, 0), s1 = __shfl_sync (0xffffffffu, v, 1);
  unsigned s2 = __shfl_sync (0xffffffffu, v, 2), s3 = __shfl_sync (0xffffffffu, v, 3);
  unsigned *other = mqs_dst (a, d[D_SRC]);
  mqs_claim (d[D_LO], d[D_N], d[D_PS], d[D_RANK], &ca, &cb);
  mqs_commit_range (x, ca, cb, pivot, other, a.out, other, d[D_LO] + s0 - s3, d[D_LO] + s1 - s3,
                    d[D_LO] + s2 - s3, ring, a.direct);
}

/* The SIMT twin's pivot of a subproblem in the independent stage (splitmix64's finaliser of the
 * seed and its place). */
__device__ static unsigned
mqs_indep_pivot (unsigned long long seed, unsigned lo, unsigned n)
{
  unsigned long long z = seed ^ ((unsigned long long) lo * 0x9e3779b97f4a7c15ull)
                         ^ ((unsigned long long) n << 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return lo + (unsigned) (z % n);
}

/* Bitonic sort of x[lo .. lo + n) (n <= base) in shared @small into out[lo ..). */
__device__ static void
mqs_small_sort (const unsigned *__restrict__ x, unsigned *out, unsigned lo, unsigned n,
                unsigned *small)
{
  unsigned lane = threadIdx.x, m = MQS_S;
  while (m < n)
    m *= 2;
  for (unsigned i = lane; i < m; i += MQS_S)
    small[i] = i < n ? x[lo + i] : 0xffffffffu;
  __syncwarp ();
  for (unsigned k = 2; k <= m; k *= 2)
    for (unsigned j = k / 2; j > 0; j /= 2)
      {
        for (unsigned p = lane; p < m / 2; p += MQS_S)
          {
            unsigned i = 2 * j * (p / j) + p % j, l = i + j;
            unsigned u = small[i], w = small[l];
            bool up = (i & k) == 0;
            if ((u > w) == up)
              {
                small[i] = w;
                small[l] = u;
              }
          }
        __syncwarp ();
      }
  for (unsigned i = lane; i < n; i += MQS_S)
    out[lo + i] = small[i];
  __syncwarp ();
}

__global__ void
msimd_qs_independent (MqsArgs a)
{
  extern __shared__ unsigned sh[];
  unsigned *ring = sh, *stack = sh + 3 * MQS_RING, *small = stack + 3 * MQS_STACK;
  unsigned d[MQS_DESC], lane = threadIdx.x;
  int depth = 0;
  mqs_desc (a, blockIdx.x, d);
  if (!d[D_ACTIVE])
    return;
  if (lane == 0)
    stack[0] = d[D_LO], stack[1] = d[D_N], stack[2] = d[D_SRC];
  depth = 1;
  __syncwarp ();
  while (depth > 0)
    {
      depth--;
      unsigned lo = stack[3 * depth], n = stack[3 * depth + 1], src = stack[3 * depth + 2];
      __syncwarp ();
      const unsigned *x = mqs_src (a, src);
      if (n <= a.base)
        {
          if (n)
            mqs_small_sort (x, a.out, lo, n, small);
          continue;
        }
      unsigned pivot = mqs_pivot (x, mqs_indep_pivot (a.seed, lo, n)), less, equal;
      mqs_collect_range (x, lo, lo + n, pivot, &less, &equal);
      unsigned *other = mqs_dst (a, src);
      mqs_commit_range (x, lo, lo + n, pivot, other, a.out, other, lo, lo + less, lo + less + equal,
                        ring, a.direct);
      unsigned greater = n - less - equal, glo = lo + less + equal, o = mqs_other (src);
      if (lane == 0)
        {
          /* The larger child below, the smaller on top: sorted next, the stack stays shallow. */
          bool left_big = less >= greater;
          unsigned *e = stack + 3 * depth;
          e[0] = left_big ? lo : glo, e[1] = left_big ? less : greater, e[2] = o;
          e[3] = left_big ? glo : lo, e[4] = left_big ? greater : less, e[5] = o;
        }
      depth += 2;
      __syncwarp ();
    }
}

/* ---- host ---- */

struct MqsConfig {
  unsigned P, base, retries;
  bool literal, direct;
};

static MqsConfig
mqs_config (const Case &c)
{
  MqsConfig k;
  k.P = (unsigned) c.num ("P", 16);
  k.base = (unsigned) c.num ("base", 256);
  k.retries = (unsigned) c.num ("retries", 64);
  k.literal = c.text ("rule", "spare") == "literal";
  k.direct = c.text ("commit", "buffered") == "direct";
  return k;
}

static bool
mqs_validate (const Case &c, std::string *why)
{
  MqsConfig k = mqs_config (c);
  if (!mdl_cuda_dist_ok (c, why) || !mdl_cuda_choice_ok (c, "rule", "spare", "spare|literal", why)
      || !mdl_cuda_choice_ok (c, "commit", "buffered", "buffered|direct", why))
    return false;
  if (k.P < 1 || k.P > 65535)
    return mdl_cuda_refuse (why, "P must be 1..65535");
  if (k.base < 32 || k.base > 1024 || (k.base & (k.base - 1)))
    return mdl_cuda_refuse (why, "base must be a power of two from 32 to 1024");
  if (c.n < 1 || c.n > (1L << 28))
    return mdl_cuda_refuse (why, "n must be 1..2^28 (as the SIMT twin)");
  return true;
}

static void
mqs_prepare (const Case &c, Buffers &b, uint64_t *rng)
{
  MqsConfig k = mqs_config (c);
  mdl_cuda_fill_keys (c, b.in, rng);
  mdl_cuda_keys_scratch (c, b);
  b.out.assign ((size_t) c.n * 4, MDL_CUDA_POISON);
  b.out2.assign ((2 * (size_t) c.n + (MQS_DESC + 3) * (size_t) k.P) * 4, MDL_CUDA_POISON);
}

/* The SIMT twin's mdl_mqs_assign (twin.h; hull/msimd's rounds use it too). */
bool
mdl_cuda_mqs_assign (bool literal, unsigned long long g, unsigned long long ps, unsigned long long nl,
            unsigned long long nr, unsigned long long *pl_out, unsigned long long *pr_out)
{
  unsigned long long pl = nl / g, pr = nr / g, spare = ps - pl - pr;
  if (!literal)
    {
      if (nl && !pl && spare)
        pl = 1, spare--;
      if (nr && !pr && spare)
        pr = 1, spare--;
      if (nl >= nr)
        pl += spare;
      else
        pr += spare;
    }
  *pl_out = pl;
  *pr_out = pr;
  return !((nl && !pl) || (nr && !pr));
}

struct MqsSub {
  unsigned lo, n, ps, first, src, failures;
};

static void
mqs_set_desc (std::vector<unsigned> &desc, unsigned p, const MqsSub &u, unsigned rank,
              unsigned pivot, bool active)
{
  unsigned *d = &desc[(size_t) p * MQS_DESC];
  d[D_LO] = u.lo, d[D_N] = u.n, d[D_PS] = u.ps, d[D_RANK] = rank, d[D_FIRST] = u.first;
  d[D_PIVOT] = pivot, d[D_SRC] = u.src, d[D_ACTIVE] = active;
}

static int
mqs_launch (const Case &c, Buffers &b)
{
  MqsConfig k = mqs_config (c);
  unsigned n = (unsigned) c.n, P = k.P, launches = 0;
  unsigned long long g = ((unsigned long long) n + P - 1) / P;
  uint64_t rng = 0x6d71736f72740000ull ^ n;
  int map_launches = 0;
  MqsArgs a;
  a.in = mdl_cuda_keys_in (c, b, &map_launches);
  a.out = (unsigned *) b.d_out;
  a.buf1 = (unsigned *) b.d_out2;
  a.buf2 = a.buf1 + n;
  a.desc = a.buf2 + n;
  a.cnt = a.desc + (size_t) MQS_DESC * P;
  a.P = P;
  a.base = k.base;
  a.seed = 0x5eed0000ull ^ n;
  a.direct = k.direct;
  std::vector<unsigned> desc ((size_t) MQS_DESC * P), cnt (3 * (size_t) P);
  std::vector<MqsSub> subs, next, own;
  MqsSub root = { 0, n, P, 0, 0, 0 };
  (P >= 2 ? subs : own).push_back (root);
  while (!subs.empty ())
    {
      std::fill (desc.begin (), desc.end (), 0u);
      for (const MqsSub &u : subs)
        {
          unsigned pivot = u.lo + (unsigned) (mdl_splitmix64 (&rng) % u.n);
          for (unsigned r = 0; r < u.ps; r++)
            mqs_set_desc (desc, u.first + r, u, r, pivot, true);
        }
      CUDA_OK (cudaMemcpy (a.desc, desc.data (), desc.size () * 4, cudaMemcpyHostToDevice));
      msimd_qs_collect<<<P, MQS_S>>> (a);
      msimd_qs_consult<<<1, MQS_S>>> (a);
      CUDA_OK (cudaMemcpy (cnt.data (), a.cnt, cnt.size () * 4, cudaMemcpyDeviceToHost));
      next.clear ();
      for (MqsSub u : subs)
        {
          unsigned base = 3 * u.first, nl = cnt[base + u.ps] - cnt[base];
          unsigned ne = cnt[base + 2 * u.ps] - cnt[base + u.ps], nr = u.n - nl - ne;
          unsigned long long p[2];
          bool ok = mdl_cuda_mqs_assign (k.literal, g, u.ps, nl, nr, &p[0], &p[1]);
          for (unsigned r = 0; r < u.ps; r++)
            desc[(size_t) (u.first + r) * MQS_DESC + D_ACTIVE] = ok;
          if (!ok)
            {
              u.failures++;
              (u.failures >= k.retries ? own : next).push_back (u);
              continue;
            }
          MqsSub kid[2] = { { u.lo, nl, (unsigned) p[0], u.first, mqs_other (u.src), 0 },
                            { u.lo + nl + ne, nr, (unsigned) p[1], u.first + (unsigned) p[0],
                              mqs_other (u.src), 0 } };
          for (const MqsSub &kd : kid)
            if (kd.n)
              (kd.ps >= 2 ? next : own).push_back (kd);
        }
      CUDA_OK (cudaMemcpy (a.desc, desc.data (), desc.size () * 4, cudaMemcpyHostToDevice));
      msimd_qs_commit<<<P, MQS_S>>> (a);
      launches += 3;
      subs.swap (next);
    }
  std::fill (desc.begin (), desc.end (), 0u);
  for (const MqsSub &u : own)
    {
      MqsSub one = u;
      one.ps = 1;
      mqs_set_desc (desc, u.first, one, 0, 0, true);
    }
  CUDA_OK (cudaMemcpy (a.desc, desc.data (), desc.size () * 4, cudaMemcpyHostToDevice));
  size_t shared = 4 * (3 * MQS_RING + 3 * MQS_STACK + (size_t) k.base);
  msimd_qs_independent<<<P, MQS_S, shared>>> (a);
  mdl_cuda_keys_out (c, a.out, n, &map_launches);
  return (int) launches + 1 + map_launches;
}

static std::string
mqs_kernel (const Case &)
{
  return "msimd_qs";
}

const CudaTwin cuda_twin_msimd_quicksort
  = { mqs_validate, mqs_prepare, mqs_launch, mdl_cuda_check_sort_total, mqs_kernel };
