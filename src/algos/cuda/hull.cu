/* hull/msimd: the CUDA twin of src/algos/simt/hull.c (the MSIMD 2D convex hull, Jurkiewicz &
 * Danilewski §4.7, Appendix A.3). One warp is one SIMD-processor (a block of 32 threads), and the
 * stages, kernels, pivot rules, pruning rule, slot layout and output order are the SIMT twin's
 * (its header explains them): init (quad, quad consult, bin count, scan, bin copy), collaborative
 * rounds (pivot, pivot consult, count, scan, copy, empty; the host reads the pivots and the
 * counts between them and assigns processors by Lemma 1), the independent stage (a stack of
 * problems in shared memory per warp) and the final compaction (count, scan, copy).
 * Where the CUDA form differs, the work is the same: a warp argmax is a shuffle butterfly (ties
 * to the smaller slot, which is the SIMT twin's first-found); the pivot consult gives each
 * problem to one lane of its single warp, which folds that problem's candidates (the SIMT twin
 * runs a segmented scan over all processors); the host reads the quadrilateral's points from its
 * copy of the input. Coordinates are f32 (float2) or f64 (double2) as prec= says; predicates run
 * in double, exact on the grid of src/algos/points.h.
 * Buffers: in (the points, read only: the harness times repeated launches), out (the hull as
 * pairs, clockwise), out2 (the vertex count, then the failure flag), in2 (scratch: two slot
 * buffers of n + 4 points, then the descriptors, candidates, counters, pivots, quadrilateral). */
#include <cmath>
#include <vector>

#include "../points.h"
#include "twin.h"

#define H_S 32u
#define H_DESC 16u
#define H_ENTRY 6u
#define H_STACK 64u
#define H_NONE 0xffffffffu
#define H_RETRIES 8u
#define H_FULL 0xffffffffu

enum { D_LO, D_N, D_PS, D_RANK, D_FIRST, D_L, D_R, D_A, D_B, D_SRC, D_ACTIVE, D_PERP };
enum { E_LO, E_N, E_L, E_R, E_SRC, E_PERP };
/* The failure flag (out2's second word; the largest raised wins). */
enum { FAIL_STACK = 1, FAIL_STUCK = 2, FAIL_ALG5 = 4 };

template <typename V> struct HullArgs {
  const V *in;
  V *buf0, *buf1, *out;
  unsigned *desc, *cand, *cnt, *piv, *quad;
  unsigned long long *result;   /* out2: the vertex count, the failure flag */
  unsigned long long n, P, slots, seed, scan_words;
};

struct Pd {
  double x, y;
};

/* A pivot direction: maximize nrm·p, then d·p (so the winner is an extreme point). */
struct Dir {
  Pd nrm, d;
};

/* A warp's candidate: a point and its slot (H_NONE: none). */
struct Best {
  Pd p;
  unsigned slot;
};

template <typename V>
__device__ static Pd
pd_of (V v)
{
  return { (double) v.x, (double) v.y };
}

template <typename V>
__device__ static Pd
ld_pt (const V *x, unsigned long long i)
{
  return pd_of (x[i]);
}

template <typename V>
__device__ static V
to_v (Pd p)
{
  V v;
  v.x = (decltype (v.x)) p.x;
  v.y = (decltype (v.y)) p.y;
  return v;
}

template <typename V>
__device__ static V
empty_v ()
{
  V v;
  v.x = v.y = (decltype (v.x)) NAN;
  return v;
}

template <typename V>
__device__ static V *
hbuf (const HullArgs<V> &a, unsigned k)
{
  return k == 0 ? a.buf0 : a.buf1;
}

__device__ static unsigned
lane_id ()
{
  return threadIdx.x % H_S;
}

/* ---- geometry (the SIMT twin's) ---- */

__device__ static double
h_cross (Pd a, Pd b, Pd c)
{
  return mdl_point_cross (a.x, a.y, b.x, b.y, c.x, c.y);
}

__device__ static bool
pt_eq (Pd a, Pd b)
{
  return a.x == b.x && a.y == b.y;
}

/* Alg. 3's direction: the normal of the pair a→b that points away from l→r, or l→r's own normal
 * when the pair gives none (a = b, ab perpendicular to the normal of lr, or @perp). */
__device__ static Dir
direction (Pd l, Pd r, Pd a, Pd b, bool perp)
{
  Pd out = { -(r.y - l.y), r.x - l.x }, d = { b.x - a.x, b.y - a.y }, nrm = { -d.y, d.x };
  double side = nrm.x * out.x + nrm.y * out.y;
  if (perp || side == 0)
    return { out, { r.x - l.x, r.y - l.y } };
  if (side < 0)
    return { { -nrm.x, -nrm.y }, { -d.x, -d.y } };
  return { nrm, d };
}

__device__ static bool
beats (const Dir &dir, Pd p, Pd q)
{
  double a = dir.nrm.x * p.x + dir.nrm.y * p.y, b = dir.nrm.x * q.x + dir.nrm.y * q.y;
  return a > b || (a == b && dir.d.x * p.x + dir.d.y * p.y > dir.d.x * q.x + dir.d.y * q.y);
}

/* 0 left of l→m, 1 left of m→r, 2 in the closed triangle (dropped). */
__device__ static unsigned
side_of (Pd l, Pd m, Pd r, Pd p)
{
  return h_cross (l, m, p) > 0 ? 0 : h_cross (m, r, p) > 0 ? 1 : 2;
}

/* q in the closed triangle (a, p, c). */
__device__ static bool
covered (Pd a, Pd c, Pd p, Pd q)
{
  return h_cross (a, p, q) <= 0 && h_cross (p, c, q) <= 0;
}

/* The primary quadrilateral's directions, clockwise from the top-left (A, B, C, D). */
__device__ static Dir
quad_dir (unsigned e)
{
  double nx = e == 0 || e == 3 ? -1 : 1, ny = e < 2 ? 1 : -1;
  /* The next direction clockwise breaks ties. */
  unsigned f = (e + 1) % 4;
  double dx = f == 0 || f == 3 ? -1 : 1, dy = f < 2 ? 1 : -1;
  return { { nx, ny }, { dx, dy } };
}

/* TRUE when candidate @q is better than @b along @dir (a missing one never is). */
__device__ static bool
better (const Dir &dir, const Best &q, const Best &b)
{
  if (q.slot == H_NONE)
    return false;
  if (b.slot == H_NONE)
    return true;
  return beats (dir, q.p, b.p) || (!beats (dir, b.p, q.p) && q.slot < b.slot);
}

/* The warp's best of its lanes' candidates (every lane gets it), combining lanes 16, 8, .., @stop
 * apart (@stop = 4: the best per residue of the lane mod 4, for the quad consult). */
__device__ static Best
warp_best (const Dir &dir, Best b, unsigned stop)
{
  for (unsigned o = 16; o >= stop; o /= 2)
    {
      Best q;
      q.p.x = __shfl_xor_sync (H_FULL, b.p.x, o);
      q.p.y = __shfl_xor_sync (H_FULL, b.p.y, o);
      q.slot = __shfl_xor_sync (H_FULL, b.slot, o);
      if (better (dir, q, b))
        b = q;
    }
  return b;
}

__device__ static Pd
shfl_pt (Pd p, unsigned lane)
{
  return { __shfl_sync (H_FULL, p.x, lane), __shfl_sync (H_FULL, p.y, lane) };
}

/* Lanes 0..@k−1 load slots @s0..@s3 of @x (one gather); every lane gets all. */
template <typename V>
__device__ static void
ld_few (const V *x, unsigned k, unsigned s0, unsigned s1, unsigned s2, unsigned s3, Pd *e)
{
  unsigned lane = lane_id (), s = lane == 0 ? s0 : lane == 1 ? s1 : lane == 2 ? s2 : s3;
  Pd mine = { 0, 0 };
  if (lane < k)
    mine = ld_pt (x, s);
  for (unsigned t = 0; t < k; t++)
    e[t] = shfl_pt (mine, t);
}

/* The descriptor of processor @p, lane i loading word i, broadcast. */
template <typename V>
__device__ static void
ld_desc (const HullArgs<V> &a, unsigned p, unsigned d[H_DESC])
{
  unsigned lane = lane_id (), w = lane < H_DESC ? a.desc[(size_t) p * H_DESC + lane] : 0;
#pragma unroll
  for (unsigned i = 0; i < H_DESC; i++)
    d[i] = __shfl_sync (H_FULL, w, i);
}

/* The block [*a, *b) that processor @rank of @ps claims of @n slots at @lo. */
__host__ __device__ static void
claim (unsigned long long lo, unsigned long long n, unsigned long long ps, unsigned long long rank,
       unsigned long long *a, unsigned long long *b)
{
  unsigned long long m = (n + ps - 1) / ps;
  *a = lo + rank * m < lo + n ? lo + rank * m : lo + n;
  *b = *a + m < lo + n ? *a + m : lo + n;
}

/* The random pair of a problem at @lo of @n points: slots i and i + n/2, i from a hash. */
__host__ __device__ static void
pair_of (unsigned long long seed, unsigned long long lo, unsigned long long n, unsigned *a,
         unsigned *b)
{
  unsigned long long i
    = n >= 2 ? mdl_splitmix64_mix (seed ^ (lo * MDL_SPLITMIX64_GAMMA) ^ (n << 1)) % (n / 2) : 0;
  *a = (unsigned) (lo + i);
  *b = (unsigned) (lo + i + n / 2);
}

/* ---- the passes of one warp over slots [a, b) ---- */

/* Alg. 3 line 3: the furthest point along @dir (slot H_NONE when the range is empty). */
template <typename V>
__device__ static Best
pivot_pass (const V *x, unsigned long long a, unsigned long long b, const Dir &dir)
{
  Best best = { { 0, 0 }, H_NONE };
#pragma unroll 4
  for (unsigned long long c = a / H_S; a < b && c <= (b - 1) / H_S; c++)
    {
      unsigned long long i = c * H_S + lane_id ();
      if (i >= a && i < b)
        {
          Best q = { ld_pt (x, i), (unsigned) i };
          if (better (dir, q, best))
            best = q;
        }
    }
  return warp_best (dir, best, 1);
}

/* The count phase for pivot @m of (l, r): classify, prune pairs of one class (ranks 2j, 2j+1 of
 * the chunk's lanes of that class), overwrite a pruned point by @m in place, count the survivors
 * of each child into @kept. */
template <typename V>
__device__ static void
count_pass (V *x, unsigned long long a, unsigned long long b, Pd l, Pd m, Pd r, unsigned kept[2])
{
  unsigned lane = lane_id (), below = (1u << lane) - 1;
  V mv = to_v<V> (m);
  kept[0] = kept[1] = 0;
#pragma unroll 4
  for (unsigned long long c = a / H_S; a < b && c <= (b - 1) / H_S; c++)
    {
      unsigned long long i = c * H_S + lane;
      bool in = i >= a && i < b, drop = false;
      Pd p = in ? ld_pt (x, i) : Pd { 0, 0 };
      unsigned cls = in ? side_of (l, m, r, p) : 3;
      unsigned m0 = __ballot_sync (H_FULL, cls == 0), m1 = __ballot_sync (H_FULL, cls == 1);
      unsigned mine = cls == 0 ? m0 : cls == 1 ? m1 : 0, rank = __popc (mine & below);
      unsigned partner = lane;
      if (cls < 2 && (rank & 1))
        partner = 31 - __clz (mine & below);
      else if (cls < 2 && (mine & ~below & ~(1u << lane)))
        partner = __ffs (mine & ~below & ~(1u << lane)) - 1;
      Pd q = shfl_pt (p, partner);
      if (partner != lane)
        {
          Pd base_a = cls == 0 ? l : m, base_c = cls == 0 ? m : r;
          Pd even = rank & 1 ? q : p, odd = rank & 1 ? p : q;
          bool odd_covered = covered (base_a, base_c, even, odd);
          drop = rank & 1 ? odd_covered : !odd_covered && covered (base_a, base_c, odd, even);
        }
      if (drop)
        x[i] = mv;
      kept[0] += __popc (__ballot_sync (H_FULL, cls == 0 && !drop));
      kept[1] += __popc (__ballot_sync (H_FULL, cls == 1 && !drop));
    }
  __syncwarp ();
}

/* The commit: the left points to @dst at *@pos_l on, the right ones at *@pos_r on, in order. */
template <typename V>
__device__ static void
copy_pass (const V *x, V *dst, unsigned long long a, unsigned long long b, Pd l, Pd m, Pd r,
           unsigned long long *pos_l, unsigned long long *pos_r)
{
  unsigned lane = lane_id (), below = (1u << lane) - 1;
#pragma unroll 4
  for (unsigned long long c = a / H_S; a < b && c <= (b - 1) / H_S; c++)
    {
      unsigned long long i = c * H_S + lane;
      bool in = i >= a && i < b;
      V v = in ? x[i] : V ();
      unsigned cls = in ? side_of (l, m, r, { (double) v.x, (double) v.y }) : 3;
      unsigned m0 = __ballot_sync (H_FULL, cls == 0), m1 = __ballot_sync (H_FULL, cls == 1);
      if (cls == 0)
        dst[*pos_l + __popc (m0 & below)] = v;
      else if (cls == 1)
        dst[*pos_r + __popc (m1 & below)] = v;
      *pos_l += __popc (m0);
      *pos_r += __popc (m1);
    }
  __syncwarp ();
}

/* Empty markers into slots [a, b) of both buffers. */
template <typename V>
__device__ static void
fill_empty (const HullArgs<V> &h, unsigned long long a, unsigned long long b)
{
  for (unsigned long long i = a + lane_id (); i < b; i += H_S)
    h.buf0[i] = h.buf1[i] = empty_v<V> ();
  __syncwarp ();
}

/* ---- init ---- */

/* Each warp's four extremes of its ⌈n/P⌉ input points → cand[4p + e]. */
template <typename V>
__global__ void
hull_quad (HullArgs<V> h)
{
  unsigned long long a, b;
  Best best[4];
  claim (0, h.n, h.P, blockIdx.x, &a, &b);
  for (unsigned e = 0; e < 4; e++)
    best[e] = { { 0, 0 }, H_NONE };
#pragma unroll 4
  for (unsigned long long c = a / H_S; a < b && c <= (b - 1) / H_S; c++)
    {
      unsigned long long i = c * H_S + lane_id ();
      if (i >= a && i < b)
        {
          Best q = { ld_pt (h.in, i), (unsigned) i };
          for (unsigned e = 0; e < 4; e++)
            if (better (quad_dir (e), q, best[e]))
              best[e] = q;
        }
    }
  for (unsigned e = 0; e < 4; e++)
    best[e] = warp_best (quad_dir (e), best[e], 1);
  if (lane_id () < 4)
    {
      unsigned e = lane_id ();
      h.cand[4 * blockIdx.x + e]
        = e == 0 ? best[0].slot : e == 1 ? best[1].slot : e == 2 ? best[2].slot : best[3].slot;
    }
}

/* The primary quadrilateral: the best of the warps' candidates per direction → quad[e]. Lane t
 * reads candidates of direction t mod 4 only (32 is a multiple of 4). */
template <typename V>
__global__ void
hull_quad_consult (HullArgs<V> h)
{
  unsigned lane = lane_id (), e = lane % 4;
  Dir dir = quad_dir (e);
  Best best = { { 0, 0 }, H_NONE };
  for (unsigned long long j = lane; j < 4 * h.P; j += H_S)
    {
      unsigned s = h.cand[j];
      if (s != H_NONE)
        {
          Best q = { ld_pt (h.in, s), s };
          if (better (dir, q, best))
            best = q;
        }
    }
  best = warp_best (dir, best, 4);
  if (lane < 4)
    h.quad[lane] = best.slot;
}

/* ABCD, lanes 0..3 loading them, broadcast. */
template <typename V>
__device__ static void
ld_quad (const HullArgs<V> &h, Pd q[4])
{
  unsigned lane = lane_id ();
  Pd mine = { 0, 0 };
  if (lane < 4)
    mine = ld_pt (h.in, h.quad[lane]);
  for (unsigned e = 0; e < 4; e++)
    q[e] = shfl_pt (mine, e);
}

/* The edge of ABCD a point is above (0..3), or 4. */
__device__ static unsigned
edge_of (const Pd q[4], Pd p)
{
  for (unsigned e = 0; e < 4; e++)
    if (h_cross (q[e], q[(e + 1) % 4], p) > 0)
      return e;
  return 4;
}

/* Counts of each warp's points above each edge → cnt[e P + p]. */
template <typename V>
__global__ void
hull_bin_count (HullArgs<V> h)
{
  unsigned long long a, b;
  unsigned count[4] = { 0, 0, 0, 0 };
  Pd q[4];
  ld_quad (h, q);
  claim (0, h.n, h.P, blockIdx.x, &a, &b);
#pragma unroll 4
  for (unsigned long long c = a / H_S; a < b && c <= (b - 1) / H_S; c++)
    {
      unsigned long long i = c * H_S + lane_id ();
      unsigned cls = i >= a && i < b ? edge_of (q, ld_pt (h.in, i)) : 4;
      for (unsigned e = 0; e < 4; e++)
        count[e] += __popc (__ballot_sync (H_FULL, cls == e));
    }
  if (lane_id () < 4)
    {
      unsigned e = lane_id ();
      h.cnt[e * h.P + blockIdx.x] = e == 0 ? count[0] : e == 1 ? count[1] : e == 2 ? count[2] : count[3];
    }
}

/* Each warp copies its points into the bins of buf0; warp 0 writes ABCD's slots to both buffers
 * (a vertex equal to an earlier one leaves its slot empty). */
template <typename V>
__global__ void
hull_bin_copy (HullArgs<V> h)
{
  unsigned lane = lane_id (), below = (1u << lane) - 1;
  unsigned long long a, b, pos[4], start[4];
  Pd q[4];
  ld_quad (h, q);
  {
    unsigned w = lane < 8 ? h.cnt[(lane % 4) * h.P + (lane < 4 ? blockIdx.x : 0)] : 0;
    for (unsigned e = 0; e < 4; e++)
      {
        pos[e] = 1 + e + __shfl_sync (H_FULL, w, e);
        start[e] = __shfl_sync (H_FULL, w, 4 + e);
      }
  }
  claim (0, h.n, h.P, blockIdx.x, &a, &b);
#pragma unroll 4
  for (unsigned long long c = a / H_S; a < b && c <= (b - 1) / H_S; c++)
    {
      unsigned long long i = c * H_S + lane;
      bool in = i >= a && i < b;
      V v = in ? h.in[i] : V ();
      unsigned cls = in ? edge_of (q, { (double) v.x, (double) v.y }) : 4;
      for (unsigned e = 0; e < 4; e++)
        {
          unsigned mask = __ballot_sync (H_FULL, cls == e);
          if (cls == e)
            h.buf0[pos[e] + __popc (mask & below)] = v;
          pos[e] += __popc (mask);
        }
    }
  if (blockIdx.x == 0 && lane < 4)
    {
      bool dup = false;
      for (unsigned e = 0; e < lane; e++)
        dup |= pt_eq (q[e], q[lane]);
      unsigned long long at = lane + (lane == 0 ? start[0] : lane == 1 ? start[1] : lane == 2 ? start[2] : start[3]);
      V w = dup ? empty_v<V> () : h.in[h.quad[lane]];
      h.buf0[at] = h.buf1[at] = w;
    }
}

/* Exclusive scan of cnt[0 .. scan_words) in place by one warp, the total at cnt[scan_words]. */
template <typename V>
__global__ void
hull_scan (HullArgs<V> h)
{
  unsigned lane = lane_id (), carry = 0;
  for (unsigned long long c = 0; c * H_S < h.scan_words; c++)
    {
      unsigned long long i = c * H_S + lane;
      unsigned v = i < h.scan_words ? h.cnt[i] : 0, incl = v;
      for (unsigned o = 1; o < H_S; o *= 2)
        {
          unsigned u = __shfl_up_sync (H_FULL, incl, o);
          if (lane >= o)
            incl += u;
        }
      if (i < h.scan_words)
        h.cnt[i] = carry + incl - v;
      carry += __shfl_sync (H_FULL, incl, H_S - 1);
    }
  if (lane == 0)
    h.cnt[h.scan_words] = carry;
}

/* ---- the collaborative stage ---- */

template <typename V>
__global__ void
hull_collab_pivot (HullArgs<V> h)
{
  unsigned d[H_DESC];
  unsigned long long a, b;
  Pd e[4];
  ld_desc (h, blockIdx.x, d);
  if (!d[D_ACTIVE])
    return;
  const V *x = hbuf (h, d[D_SRC]);
  ld_few (x, 4, d[D_L], d[D_R], d[D_A], d[D_B], e);
  Dir dir = direction (e[0], e[1], e[2], e[3], d[D_PERP] != 0);
  claim (d[D_LO], d[D_N], d[D_PS], d[D_RANK], &a, &b);
  Best best = pivot_pass (x, a, b, dir);
  if (lane_id () == 0)
    h.cand[blockIdx.x] = best.slot;
}

/* The pivot of every shared problem: lane t folds the candidates of the problems whose first
 * processor is t mod 32; the problem's last processor gets piv = the winner's slot, or H_NONE
 * when l or r is further (a failed attempt). */
template <typename V>
__global__ void
hull_pivot_consult (HullArgs<V> h)
{
  for (unsigned long long p = lane_id (); p < h.P; p += H_S)
    {
      const unsigned *d = h.desc + p * H_DESC;
      if (!d[D_ACTIVE] || d[D_RANK] != 0)
        continue;
      const V *x = hbuf (h, d[D_SRC]);
      Pd l = ld_pt (x, d[D_L]), r = ld_pt (x, d[D_R]);
      Dir dir = direction (l, r, ld_pt (x, d[D_A]), ld_pt (x, d[D_B]), d[D_PERP] != 0);
      Best best = { { 0, 0 }, H_NONE };
      for (unsigned k = 0; k < d[D_PS]; k++)
        {
          unsigned s = h.cand[p + k];
          if (s != H_NONE)
            {
              Best q = { ld_pt (x, s), s };
              if (better (dir, q, best))
                best = q;
            }
        }
      if (best.slot != H_NONE && (beats (dir, l, best.p) || beats (dir, r, best.p)))
        best.slot = H_NONE;
      h.piv[p + d[D_PS] - 1] = best.slot;
    }
}

/* What an active processor knows in a collaborative round's count and copy: its descriptor, its
 * problem's l, m and r (m's slot from piv of the problem's last processor) and its share [a, b).
 * ld_share returns false for a processor that sits the round out. */
struct Share {
  unsigned d[H_DESC];
  unsigned long long a, b;
  Pd l, m, r;
};

template <typename V>
__device__ static bool
ld_share (const HullArgs<V> &h, Share *s)
{
  Pd e[3];
  ld_desc (h, blockIdx.x, s->d);
  if (!s->d[D_ACTIVE])
    return false;
  unsigned m_slot = h.piv[s->d[D_FIRST] + s->d[D_PS] - 1];
  ld_few (hbuf (h, s->d[D_SRC]), 3, s->d[D_L], m_slot, s->d[D_R], 0, e);
  s->l = e[0], s->m = e[1], s->r = e[2];
  claim (s->d[D_LO], s->d[D_N], s->d[D_PS], s->d[D_RANK], &s->a, &s->b);
  return true;
}

template <typename V>
__global__ void
hull_collab_count (HullArgs<V> h)
{
  Share s;
  unsigned kept[2], lane = lane_id ();
  if (!ld_share (h, &s))
    return;
  count_pass (hbuf (h, s.d[D_SRC]), s.a, s.b, s.l, s.m, s.r, kept);
  /* Class-major counters: cnt[2 f + c ps + rank]. */
  if (lane < 2)
    h.cnt[2 * s.d[D_FIRST] + lane * s.d[D_PS] + s.d[D_RANK]] = lane == 0 ? kept[0] : kept[1];
}

template <typename V>
__global__ void
hull_collab_copy (HullArgs<V> h)
{
  Share s;
  if (!ld_share (h, &s))
    return;
  unsigned f = s.d[D_FIRST], ps = s.d[D_PS], rank = s.d[D_RANK], lane = lane_id ();
  /* Lanes 0..4: own left, own right, the problem's three bounds. */
  unsigned at = lane == 0 ? 2 * f + rank : lane == 1 ? 2 * f + ps + rank : 2 * f + (lane - 2) * ps;
  unsigned w = lane < 5 ? h.cnt[at] : 0, v[5];
  for (unsigned k = 0; k < 5; k++)
    v[k] = __shfl_sync (H_FULL, w, k);
  unsigned long long nl = v[3] - v[2], lo = s.d[D_LO];
  unsigned long long pos_l = lo + v[0] - v[2], pos_r = lo + nl + 1 + v[1] - v[3];
  V *dst = hbuf (h, 1 - s.d[D_SRC]);
  copy_pass (hbuf (h, s.d[D_SRC]), dst, s.a, s.b, s.l, s.m, s.r, &pos_l, &pos_r);
  if (rank == 0 && lane == 0)
    dst[lo + nl] = to_v<V> (s.m);
}

/* A.3 step 6, after the copy: empty markers to the slots no child uses, in both buffers, and m
 * to its slot of the source too. */
template <typename V>
__global__ void
hull_collab_empty (HullArgs<V> h)
{
  unsigned d[H_DESC];
  unsigned long long a, b;
  ld_desc (h, blockIdx.x, d);
  if (!d[D_ACTIVE])
    return;
  unsigned f = d[D_FIRST], ps = d[D_PS], src = d[D_SRC], lane = lane_id ();
  unsigned w = lane < 3 ? h.cnt[2 * f + lane * ps] : 0;
  unsigned long long v0 = __shfl_sync (H_FULL, w, 0), v1 = __shfl_sync (H_FULL, w, 1);
  unsigned long long v2 = __shfl_sync (H_FULL, w, 2), nl = v1 - v0, nr = v2 - v1, lo = d[D_LO];
  if (d[D_RANK] == 0 && lane == 0)
    hbuf (h, src)[lo + nl] = hbuf (h, 1 - src)[lo + nl];
  claim (lo + nl + 1 + nr, d[D_N] - nl - 1 - nr, ps, d[D_RANK], &a, &b);
  fill_empty (h, a, b);
}

/* ---- Algorithm 5: the independent stage's partition in place (part=alg5) ---- */

/* A register slot's class: side_of's left and right, and free (a dropped point's slot too: it is
 * never stored). */
enum { C_LEFT, C_RIGHT, C_FREE };

/* One partition (Algorithm 5 lines 6–30) of the n slots at lo of x for pivot m of (l, r), the
 * SIMT twin's Alg5. The 2S-point register buffer (③): lane t holds slot t in p0 (class c0) and
 * slot t + S in p1 (c1). The unread slots are [rf, rb); the left child's survivors are stored
 * from the front on (wf), the right child's from the back down (wb). Every step returns false
 * when an invariant fails; the warp agrees on it (the tests are ballots or uniform). */
template <typename V>
struct Alg5 {
  V *x, *other;            /* the problem's buffer; the other one (a lone child's copy) */
  V *sorted;               /* the counting sort's 2S points of shared memory */
  Pd l, m, r;
  unsigned long long lo, n, rf, rb, wf, wb;
  V p0, p1;
  unsigned c0, c1, nl, nr; /* nl, nr: live points of each class (the same in every lane) */
};

/* A window of k <= S consecutive slots from @first: the index in it of this lane's slot (the
 * window's slot is first + that index when it is below k; each lane holds one slot of it). */
__device__ static unsigned
win_index (unsigned first)
{
  return (lane_id () + H_S - first % H_S) % H_S;
}

/* Reads @k points into slots [@first, @first + k) from the front or the back of the unread
 * range, and classifies them (④). */
template <typename V>
__device__ static bool
alg5_read (Alg5<V> *a, bool front, unsigned first, unsigned k)
{
  unsigned j = win_index (first), s = first + j;
  bool on = j < k;
  if (k > H_S || first + k > 2 * H_S || k > a->rb - a->rf)
    return false;
  unsigned long long from = front ? a->rf : a->rb - k;
  V v = on ? a->x[from + j] : V ();
  unsigned cls = on ? side_of (a->l, a->m, a->r, pd_of (v)) : C_FREE;
  if (__any_sync (H_FULL, on && (s < H_S ? a->c0 : a->c1) != C_FREE))
    return false;
  if (on && s < H_S)
    a->p0 = v, a->c0 = cls;
  else if (on)
    a->p1 = v, a->c1 = cls;
  a->nl += __popc (__ballot_sync (H_FULL, cls == C_LEFT));
  a->nr += __popc (__ballot_sync (H_FULL, cls == C_RIGHT));
  if (front)
    a->rf += k;
  else
    a->rb -= k;
  return true;
}

/* ⑥: the 3-key counting sort of the 2S slots, left first, right last (ranks by ballots), each
 * lane's live points through shared memory. */
template <typename V>
__device__ static bool
alg5_sort (Alg5<V> *a)
{
  unsigned lane = lane_id (), below = (1u << lane) - 1, base = 2 * H_S - a->nr;
  unsigned l0 = __ballot_sync (H_FULL, a->c0 == C_LEFT);
  unsigned r0 = __ballot_sync (H_FULL, a->c0 == C_RIGHT);
  unsigned l1 = __ballot_sync (H_FULL, a->c1 == C_LEFT);
  unsigned r1 = __ballot_sync (H_FULL, a->c1 == C_RIGHT);
  if ((unsigned) (__popc (l0) + __popc (l1)) != a->nl
      || (unsigned) (__popc (r0) + __popc (r1)) != a->nr)
    return false;
  if (a->c0 != C_FREE)
    a->sorted[a->c0 == C_LEFT ? __popc (l0 & below) : base + __popc (r0 & below)] = a->p0;
  if (a->c1 != C_FREE)
    a->sorted[a->c1 == C_LEFT ? __popc (l0) + __popc (l1 & below)
                              : base + __popc (r0) + __popc (r1 & below)] = a->p1;
  __syncwarp ();
  a->c0 = lane < a->nl ? C_LEFT : lane >= base ? C_RIGHT : C_FREE;
  a->c1 = lane + H_S < a->nl ? C_LEFT : lane + H_S >= base ? C_RIGHT : C_FREE;
  if (a->c0 != C_FREE)
    a->p0 = a->sorted[lane];
  if (a->c1 != C_FREE)
    a->p1 = a->sorted[lane + H_S];
  /* The next sort's stores wait for every lane's loads. */
  __syncwarp ();
  return true;
}

/* ⑦ and ⑧: connectInPairsAndDiscardSome on the @k (<= S) points of class @c in slots [@first,
 * @first + k) (partners s and s ^ 1, both in the window), then storeChunk: the survivors, in
 * slot order, to the front (left) or the back (right) of the problem in one store; a child that
 * ends with one point (a vertex: no problem is pushed for it) goes to the other buffer too. */
template <typename V>
__device__ static bool
alg5_store (Alg5<V> *a, unsigned c, unsigned first, unsigned k)
{
  unsigned j = win_index (first), s = first + j, q = s ^ 1;
  bool on = j < k, hi = s >= H_S, drop = false;
  V v = hi ? a->p1 : a->p0, w;
  Pd base_a = c == C_LEFT ? a->l : a->m, base_c = c == C_LEFT ? a->m : a->r;
  if (k > H_S || first + k > 2 * H_S || __any_sync (H_FULL, on && (hi ? a->c1 : a->c0) != c))
    return false;
  /* Slot s ^ 1 is in lane ^ 1 and the same half (S is even). */
  w.x = __shfl_xor_sync (H_FULL, v.x, 1);
  w.y = __shfl_xor_sync (H_FULL, v.y, 1);
  if (on && q >= first && q < first + k)
    {
      Pd even = s & 1 ? pd_of (w) : pd_of (v), odd = s & 1 ? pd_of (v) : pd_of (w);
      bool odd_covered = covered (base_a, base_c, even, odd);
      drop = s & 1 ? odd_covered : !odd_covered && covered (base_a, base_c, odd, even);
    }
  unsigned keep = __ballot_sync (H_FULL, on && !drop), kept = __popc (keep);
  /* Bit i of the rotated mask is the window's slot first + i. */
  unsigned rank = __popc (__funnelshift_r (keep, keep, first % H_S) & ((1u << j) - 1));
  bool all_read = a->rf == a->rb;
  /* ⑧: stores stay in the problem, apart, on slots already read; a pair drops one point at most,
     so a full chunk keeps at least S/2 (V13). */
  if (a->wf + kept > a->wb || 2 * kept < k
      || (!all_read && (c == C_LEFT ? a->wf + kept > a->rf : a->wb - kept < a->rb)))
    return false;
  unsigned long long at = c == C_LEFT ? a->wf : a->wb - kept;
  bool alone = kept == 1 && (c == C_LEFT ? a->wf == a->lo : a->wb == a->lo + a->n);
  if (on && !drop)
    {
      a->x[at + rank] = v;
      if (alone)
        a->other[at + rank] = v;
    }
  if (on && hi)
    a->c1 = C_FREE;
  else if (on)
    a->c0 = C_FREE;
  if (c == C_LEFT)
    a->nl -= k, a->wf += kept;
  else
    a->nr -= k, a->wb -= kept;
  return true;
}

/* Lines 6–30: the loop reads into the half the last store emptied, from that store's end (the
 * first time from the back, ⑤); when no half filled up (gap i) into the free slots, from the
 * same end as before; at most one half is stored per read (gap ii: an else-if). Leaves the
 * children in [lo, wf) and [wb, lo + n), and at least the slot wf for m between them. */
template <typename V>
__device__ static bool
alg5_partition (Alg5<V> *a)
{
  bool front = false, ok;
  unsigned first = H_S, room = H_S;
  a->p0 = a->p1 = V (), a->c0 = a->c1 = C_FREE, a->nl = a->nr = 0;
  a->rf = a->wf = a->lo, a->rb = a->wb = a->lo + a->n;
  ok = alg5_read (a, true, 0, (unsigned) min ((unsigned long long) H_S, a->n));
  while (ok && a->rf < a->rb)
    {
      unsigned k = (unsigned) min ((unsigned long long) min (room, H_S), a->rb - a->rf);
      ok = alg5_read (a, front, first, k) && alg5_sort (a);
      room = H_S;
      if (ok && a->nl >= H_S)
        ok = alg5_store (a, C_LEFT, 0, H_S), front = true, first = 0;
      else if (ok && a->nr >= H_S)
        ok = alg5_store (a, C_RIGHT, H_S, H_S), front = false, first = H_S;
      else
        first = a->nl, room = 2 * H_S - a->nl - a->nr;
    }
  ok = ok && alg5_sort (a) && (!a->nl || alg5_store (a, C_LEFT, 0, a->nl))
       && (!a->nr || alg5_store (a, C_RIGHT, 2 * H_S - a->nr, a->nr));
  /* The next problem reads what other lanes stored. */
  __syncwarp ();
  return ok && a->wf < a->wb;
}

/* ---- the independent stage ---- */

__device__ static void
push (unsigned (*stack)[H_ENTRY], unsigned *depth, const unsigned w[H_ENTRY])
{
  unsigned lane = lane_id ();
  if (lane < H_ENTRY)
    stack[*depth][lane] = lane == 0 ? w[0] : lane == 1 ? w[1] : lane == 2 ? w[2] : lane == 3 ? w[3]
                                                        : lane == 4 ? w[4] : w[5];
  __syncwarp ();
  (*depth)++;
}

__device__ static void
pop (unsigned (*stack)[H_ENTRY], unsigned *depth, unsigned w[H_ENTRY])
{
  (*depth)--;
  for (unsigned k = 0; k < H_ENTRY; k++)
    w[k] = stack[*depth][k];
  __syncwarp ();
}

/* Each warp solves the problems it owns alone, the larger child pushed first (the smaller on
 * top, so the depth stays within log2 n + 1). part=copy: a pivot pass, then count and copy to
 * the other buffer (the children at lo and lo + nl + 1); part=alg5: a pivot pass, then Algorithm
 * 5 in place (the children at lo and at the back, m after the left one, empty slots between),
 * and only children of two or more points are pushed (lines 32–33). */
template <typename V, bool ALG5>
__device__ static void
independent (const HullArgs<V> &h, unsigned (*stack)[H_ENTRY], V *sorted)
{
  unsigned d[H_DESC], depth = 0, w[H_ENTRY];
  unsigned long long iters = 0;
  ld_desc (h, blockIdx.x, d);
  if (!d[D_ACTIVE])
    return;
  w[E_LO] = d[D_LO], w[E_N] = d[D_N], w[E_L] = d[D_L], w[E_R] = d[D_R], w[E_SRC] = d[D_SRC];
  w[E_PERP] = d[D_PERP];
  push (stack, &depth, w);
  while (depth > 0)
    {
      Pd e[4];
      pop (stack, &depth, w);
      /* Each iteration emits a vertex or retries once on lr's normal: 2n + 2 is beyond any run. */
      if (++iters > 2ull * d[D_N] + 2)
        {
          if (lane_id () == 0)
            atomicMax (&h.result[1], (unsigned long long) FAIL_STUCK);
          return;
        }
      /* The children at lo (nl points) and right_lo (nr), the empty slots [gap, gap_end). */
      unsigned long long lo = w[E_LO], n = w[E_N], nl, nr, right_lo, gap, gap_end;
      unsigned src = w[E_SRC], dst = 1 - src, pa, pb;
      V *x = hbuf (h, src);
      pair_of (h.seed, lo, n, &pa, &pb);
      ld_few (x, 4, w[E_L], w[E_R], pa, pb, e);
      Dir dir = direction (e[0], e[1], e[2], e[3], w[E_PERP] != 0);
      Pd m = pivot_pass (x, lo, lo + n, dir).p;
      if (beats (dir, e[0], m) || beats (dir, e[1], m))
        {
          /* m would be l or r: retry on lr's normal, which always finds a vertex. */
          w[E_PERP] = 1;
          push (stack, &depth, w);
          continue;
        }
      if constexpr (ALG5)
        {
          Alg5<V> a;
          a.x = x, a.other = hbuf (h, dst), a.sorted = sorted;
          a.l = e[0], a.m = m, a.r = e[1], a.lo = lo, a.n = n;
          if (!alg5_partition (&a))
            {
              if (lane_id () == 0)
                atomicMax (&h.result[1], (unsigned long long) FAIL_ALG5);
              return;
            }
          nl = a.wf - lo, nr = lo + n - a.wb, right_lo = a.wb, dst = src;
          gap = lo + nl + 1, gap_end = right_lo;
        }
      else
        {
          unsigned kept[2];
          count_pass (x, lo, lo + n, e[0], m, e[1], kept);
          unsigned long long pos_l = lo, pos_r = lo + kept[0] + 1;
          copy_pass (x, hbuf (h, dst), lo, lo + n, e[0], m, e[1], &pos_l, &pos_r);
          nl = kept[0], nr = kept[1], right_lo = lo + nl + 1;
          gap = right_lo + nr, gap_end = lo + n;
        }
      if (lane_id () == 0)
        h.buf0[lo + nl] = h.buf1[lo + nl] = to_v<V> (m);
      fill_empty (h, gap, gap_end);
      unsigned least = ALG5 ? 2 : 1;
      unsigned left[H_ENTRY] = { (unsigned) lo, (unsigned) nl, w[E_L], (unsigned) (lo + nl), dst, 0 };
      unsigned right[H_ENTRY]
        = { (unsigned) right_lo, (unsigned) nr, (unsigned) (lo + nl), w[E_R], dst, 0 };
      const unsigned *big = nl >= nr ? left : right, *small = nl >= nr ? right : left;
      if (depth + (big[E_N] >= least) + (small[E_N] >= least) > H_STACK)
        {
          if (lane_id () == 0)
            atomicMax (&h.result[1], (unsigned long long) FAIL_STACK);
          return;
        }
      if (big[E_N] >= least)
        push (stack, &depth, big);
      if (small[E_N] >= least)
        push (stack, &depth, small);
    }
}

template <typename V>
__global__ void
hull_independent (HullArgs<V> h)
{
  __shared__ unsigned stack[H_STACK][H_ENTRY];
  independent<V, false> (h, stack, nullptr);
}

template <typename V>
__global__ void
hull_independent_alg5 (HullArgs<V> h)
{
  __shared__ unsigned stack[H_STACK][H_ENTRY];
  __shared__ V sorted[2 * H_S];
  independent<V, true> (h, stack, sorted);
}

/* ---- the final compaction ---- */

template <typename V>
__global__ void
hull_final_count (HullArgs<V> h)
{
  unsigned long long a, b;
  unsigned count = 0;
  claim (0, h.slots, h.P, blockIdx.x, &a, &b);
#pragma unroll 4
  for (unsigned long long c = a / H_S; a < b && c <= (b - 1) / H_S; c++)
    {
      unsigned long long i = c * H_S + lane_id ();
      count += __popc (__ballot_sync (H_FULL, i >= a && i < b && !isnan ((double) h.buf0[i].x)));
    }
  if (lane_id () == 0)
    h.cnt[blockIdx.x] = count;
}

template <typename V>
__global__ void
hull_final_copy (HullArgs<V> h)
{
  unsigned lane = lane_id (), below = (1u << lane) - 1;
  unsigned long long a, b, pos = h.cnt[blockIdx.x];
  claim (0, h.slots, h.P, blockIdx.x, &a, &b);
#pragma unroll 4
  for (unsigned long long c = a / H_S; a < b && c <= (b - 1) / H_S; c++)
    {
      unsigned long long i = c * H_S + lane;
      V v = i >= a && i < b ? h.buf0[i] : empty_v<V> ();
      bool keep = !isnan ((double) v.x);
      unsigned mask = __ballot_sync (H_FULL, keep);
      if (keep)
        h.out[pos + __popc (mask & below)] = v;
      pos += __popc (mask);
    }
  if (blockIdx.x == 0 && lane == 0)
    h.result[0] = h.cnt[h.P];
}

/* ---- host ---- */

struct HullConfig {
  unsigned P;
  MdlPointPrec prec;
  bool alg5;   /* part=alg5: Algorithm 5 in the independent stage */
};

static HullConfig
hull_config (const Case &c)
{
  return { (unsigned) c.num ("P", 480),
           c.text ("prec", "f32") == "f64" ? MDL_POINTS_F64 : MDL_POINTS_F32,
           c.text ("part", "copy") == "alg5" };
}

static bool
hull_validate (const Case &c, std::string *why)
{
  HullConfig k = hull_config (c);
  if (!mdl_cuda_choice_ok (c, "dist", "disc", MDL_POINT_DIST_CHOICES, why)
      || !mdl_cuda_choice_ok (c, "prec", "f32", MDL_POINT_PREC_CHOICES, why)
      || !mdl_cuda_choice_ok (c, "part", "copy", MDL_HULL_PART_CHOICES, why))
    return false;
  if (k.P < 4 || k.P > 65535)
    return mdl_cuda_refuse (why, "P must be 4..65535 (as the SIMT twin)");
  if (c.n < 0 || c.n > (1L << 26))
    return mdl_cuda_refuse (why, "n must be 0..2^26 (as the SIMT twin)");
  return true;
}

/* Words of in2 after the two slot buffers: descriptors, candidates, counters, pivots, quad. */
static size_t
hull_words (unsigned P)
{
  return (size_t) H_DESC * P + 4 * (size_t) P + (4 * (size_t) P + 1) + P + 4;
}

static void
hull_prepare (const Case &c, Buffers &b, uint64_t *rng)
{
  HullConfig k = hull_config (c);
  size_t n = (size_t) c.n, pb = mdl_point_bytes (k.prec), room = pb * (n + 4);
  b.in.assign (pb * n, 0);
  mdl_points_fill (b.in.data (), n, mdl_cuda_point_dist (c), k.prec, mdl_splitmix64 (rng));
  b.in2.assign (2 * room + 4 * hull_words (k.P), 0);
  b.out.assign (room, MDL_CUDA_POISON);
  b.out2.assign (2 * sizeof (unsigned long long), 0);
}

/* A problem as the host driver keeps it (the SIMT twin's Prob). */
struct HullProb {
  unsigned long long lo, n, ps, first, l, r, src, failures;
  bool perp;
};

static void
set_desc (std::vector<unsigned> &desc, unsigned long long p, const HullProb &u,
          unsigned long long rank, unsigned a, unsigned b)
{
  unsigned *d = &desc[p * H_DESC];
  std::fill (d, d + H_DESC, 0u);
  d[D_LO] = (unsigned) u.lo, d[D_N] = (unsigned) u.n, d[D_PS] = (unsigned) u.ps;
  d[D_RANK] = (unsigned) rank, d[D_FIRST] = (unsigned) u.first;
  d[D_L] = (unsigned) u.l, d[D_R] = (unsigned) u.r, d[D_A] = a, d[D_B] = b;
  d[D_SRC] = (unsigned) u.src, d[D_ACTIVE] = 1, d[D_PERP] = u.perp;
}

#define H_LAUNCH(kernel, grid, h)                                                                  \
  do                                                                                               \
    {                                                                                              \
      kernel<V><<<(grid), H_S>>> (h);                                                              \
      CUDA_OK (cudaGetLastError ());                                                               \
      launches++;                                                                                  \
    }                                                                                              \
  while (0)

static void
to_device (unsigned *d, const std::vector<unsigned> &h)
{
  CUDA_OK (cudaMemcpy (d, h.data (), h.size () * 4, cudaMemcpyHostToDevice));
}

static void
to_host (std::vector<unsigned> &h, const unsigned *d, size_t words)
{
  h.resize (words);
  CUDA_OK (cudaMemcpy (h.data (), d, words * 4, cudaMemcpyDeviceToHost));
}

/* Init's host part: the bins and their processors (A.3 step 7: in proportion to size, at least
 * one each), as the SIMT twin's hull_init. Returns the points kept (above the edges). */
static unsigned long long
hull_bins (const Buffers &b, MdlPointPrec prec, unsigned P, const std::vector<unsigned> &cnt,
           const std::vector<unsigned> &quad, std::vector<HullProb> &shared,
           std::vector<HullProb> &own)
{
  unsigned long long size[4], ps[4] = { 0, 0, 0, 0 }, home[4], total = cnt[4 * (size_t) P];
  unsigned long long given = 0, big = 0, first = 0;
  for (unsigned e = 0; e < 4; e++)
    {
      double qx, qy;
      size[e] = (e < 3 ? cnt[(e + 1) * (size_t) P] : total) - cnt[e * (size_t) P];
      home[e] = e + cnt[e * (size_t) P];
      mdl_point_get (b.in.data (), prec, quad[e], &qx, &qy);
      for (unsigned k = 0; k < e; k++)
        {
          double ox, oy;
          mdl_point_get (b.in.data (), prec, quad[k], &ox, &oy);
          if (ox == qx && oy == qy)
            {
              home[e] = home[k];
              break;
            }
        }
      if (size[e])
        ps[e] = std::max (1ull, P * size[e] / total), given += ps[e];
      if (size[e] > size[big])
        big = e;
    }
  while (given > P)
    {
      unsigned most = 0;
      for (unsigned e = 1; e < 4; e++)
        if (ps[e] > ps[most])
          most = e;
      ps[most]--, given--;
    }
  if (total)
    ps[big] += P - given;
  for (unsigned e = 0; e < 4; e++)
    if (size[e])
      {
        HullProb u = { 1 + e + cnt[e * (size_t) P], size[e], ps[e], first, home[e],
                       home[(e + 1) % 4], 0, 0, false };
        (ps[e] >= 2 ? shared : own).push_back (u);
        first += ps[e];
      }
  return total;
}

template <typename V>
static int
hull_run (const Case &c, Buffers &b)
{
  HullConfig k = hull_config (c);
  unsigned P = k.P;
  unsigned long long n = (unsigned long long) c.n, g;
  uint64_t rng;
  int launches = 0;
  HullArgs<V> h;
  h.in = (const V *) b.d_in;
  h.buf0 = (V *) b.d_in2;
  h.buf1 = h.buf0 + n + 4;
  h.out = (V *) b.d_out;
  h.desc = (unsigned *) (h.buf1 + n + 4);
  h.cand = h.desc + (size_t) H_DESC * P;
  h.cnt = h.cand + 4 * (size_t) P;
  h.piv = h.cnt + 4 * (size_t) P + 1;
  h.quad = h.piv + P;
  h.result = (unsigned long long *) b.d_out2;
  h.n = n, h.P = P, h.slots = 0, h.seed = 0x68756c6cull ^ n, h.scan_words = 4 * (size_t) P;
  rng = h.seed;
  std::vector<unsigned> desc ((size_t) H_DESC * P, 0u), cnt, piv, quad;
  std::vector<HullProb> shared, own, next;
  CUDA_OK (cudaMemset (h.result, 0, 2 * sizeof (unsigned long long)));
  /* No points, no hull: the SIMT twin launches nothing either. */
  if (n == 0)
    return launches;

  H_LAUNCH (hull_quad, P, h);
  H_LAUNCH (hull_quad_consult, 1, h);
  H_LAUNCH (hull_bin_count, P, h);
  H_LAUNCH (hull_scan, 1, h);
  H_LAUNCH (hull_bin_copy, P, h);
  to_host (cnt, h.cnt, 4 * (size_t) P + 1);
  to_host (quad, h.quad, 4);
  h.slots = 4 + hull_bins (b, k.prec, P, cnt, quad, shared, own);
  g = (h.slots - 4 + P - 1) / P;

  /* The collaborative stage: rounds while a problem has two or more processors. */
  while (!shared.empty ())
    {
      std::vector<bool> won (shared.size ());
      std::fill (desc.begin (), desc.end (), 0u);
      for (const HullProb &u : shared)
        {
          unsigned pa, pb;
          pair_of (mdl_splitmix64 (&rng), u.lo, u.n, &pa, &pb);
          for (unsigned long long r = 0; r < u.ps; r++)
            set_desc (desc, u.first + r, u, r, pa, pb);
        }
      to_device (h.desc, desc);
      H_LAUNCH (hull_collab_pivot, P, h);
      H_LAUNCH (hull_pivot_consult, 1, h);
      to_host (piv, h.piv, P);
      /* A problem whose pivot came out as l or r sits the round out and retries on lr's normal. */
      for (size_t i = 0; i < shared.size (); i++)
        {
          const HullProb &u = shared[i];
          won[i] = piv[u.first + u.ps - 1] != H_NONE;
          for (unsigned long long r = 0; r < u.ps; r++)
            desc[(u.first + r) * H_DESC + D_ACTIVE] = won[i];
        }
      to_device (h.desc, desc);
      CUDA_OK (cudaMemset (h.cnt, 0, 4 * (2 * (size_t) P + 1)));
      h.scan_words = 2 * (size_t) P;
      H_LAUNCH (hull_collab_count, P, h);
      H_LAUNCH (hull_scan, 1, h);
      to_host (cnt, h.cnt, 2 * (size_t) P + 1);
      next.clear ();
      for (size_t i = 0; i < shared.size (); i++)
        {
          HullProb u = shared[i];
          unsigned long long base = 2 * u.first, p[2], nl, nr, m_slot;
          if (!won[i])
            {
              u.perp = true;
              next.push_back (u);
              continue;
            }
          nl = cnt[base + u.ps] - cnt[base], nr = cnt[base + 2 * u.ps] - cnt[base + u.ps];
          /* A bin that got its one processor by the at-least-one rule may hold more than ps·g
             points; Lemma 1 then needs this problem's own g. */
          if (!mdl_cuda_mqs_assign (false, nl / g + nr / g > u.ps ? (u.n + u.ps - 1) / u.ps : g,
                                    u.ps, nl, nr, &p[0], &p[1]))
            {
              u.failures++, u.perp = false;
              for (unsigned long long r = 0; r < u.ps; r++)
                desc[(u.first + r) * H_DESC + D_ACTIVE] = 0;
              if (u.failures >= H_RETRIES)
                u.ps = 1;
              (u.ps >= 2 ? next : own).push_back (u);
              continue;
            }
          m_slot = u.lo + nl;
          HullProb kid[2] = { { u.lo, nl, p[0], u.first, u.l, m_slot, 1 - u.src, 0, false },
                              { m_slot + 1, nr, p[1], u.first + p[0], m_slot, u.r, 1 - u.src, 0,
                                false } };
          for (const HullProb &kd : kid)
            if (kd.n)
              (kd.ps >= 2 ? next : own).push_back (kd);
        }
      to_device (h.desc, desc);
      H_LAUNCH (hull_collab_copy, P, h);
      H_LAUNCH (hull_collab_empty, P, h);
      shared.swap (next);
    }

  std::fill (desc.begin (), desc.end (), 0u);
  for (const HullProb &u : own)
    set_desc (desc, u.first, u, 0, 0, 0);
  to_device (h.desc, desc);
  if (k.alg5)
    H_LAUNCH (hull_independent_alg5, P, h);
  else
    H_LAUNCH (hull_independent, P, h);
  H_LAUNCH (hull_final_count, P, h);
  h.scan_words = P;
  H_LAUNCH (hull_scan, 1, h);
  H_LAUNCH (hull_final_copy, P, h);
  return launches;
}

static int
hull_launch (const Case &c, Buffers &b)
{
  return hull_config (c).prec == MDL_POINTS_F64 ? hull_run<double2> (c, b) : hull_run<float2> (c, b);
}

static long
hull_check (const Case &c, const Buffers &b)
{
  return mdl_cuda_check_hull (c, b, hull_config (c).prec);
}

static std::string
hull_kernel (const Case &c)
{
  return hull_config (c).prec == MDL_POINTS_F64 ? "hull_quad<double2>" : "hull_quad<float2>";
}

const CudaTwin cuda_twin_hull_msimd
  = { hull_validate, hull_prepare, hull_launch, hull_check, hull_kernel, nullptr, false };
