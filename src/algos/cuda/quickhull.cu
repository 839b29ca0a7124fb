/* The hull's baseline (MDL_GPU_BASELINES: baseline/quickhull): a plain GPU quickhull built from
 * Thrust, the partition-based kind of Srikanth et al. that the MSIMD paper compares with, made
 * level-synchronous so that it is a fair one: every open problem of a recursion level is processed
 * at once, the points of all problems in one array, each with its problem's id (segments in
 * problem order). Per level: one thrust::reduce_by_key finds every problem's furthest point m from
 * its l→r (ties broken along lr, so a strict vertex); one exclusive_scan_by_key ranks each point
 * among its problem's left (of l→m) and right (of m→r) points and one reduce_by_key counts them;
 * the host reads the pivots and counts, replaces each problem in its ordered list of vertices and
 * problems by [left child, m, right child], and one for_each scatters the points to their
 * children. So the host round trips are one per level (about log h), not one per vertex. The root
 * level uses the leftmost and rightmost points (minmax_element): the problem (L, L) with m = R
 * splits the points into the upper (left of L→R) and lower (left of R→L) hulls.
 *
 * Points: dist= of src/algos/points.h as float pairs (prec f32, the exact grid); out gets the hull
 * clockwise from the smallest (x, y) and out2 its vertex count; check() compares it as a cycle with
 * the monotone chain (hull-points.cu). Scratch travels as in2 (qh_layout). */
#include <cstring>
#include <vector>

#include <thrust/execution_policy.h>
#include <thrust/extrema.h>
#include <thrust/for_each.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>

#include "../points.h"
#include "twin.h"

struct Pt2 {
  float x, y;
};

__host__ __device__ static double
qh_cross (Pt2 a, Pt2 b, Pt2 c)
{
  return mdl_point_cross (a.x, a.y, b.x, b.y, c.x, c.y);
}

/* Orders points by distance from l→r, then along it (max_element takes the furthest). */
struct Nearer {
  Pt2 l, r;
  __host__ __device__ bool operator() (const Pt2 &p, const Pt2 &q) const
  {
    double dp = qh_cross (l, r, p), dq = qh_cross (l, r, q);
    double ax = (double) r.x - l.x, ay = (double) r.y - l.y;
    double ap = ax * p.x + ay * p.y, aq = ax * q.x + ay * q.y;
    return dp < dq || (dp == dq && ap < aq);
  }
};

/* (x, y) lexicographic. */
struct LessXY {
  __host__ __device__ bool operator() (const Pt2 &p, const Pt2 &q) const
  {
    return p.x < q.x || (p.x == q.x && p.y < q.y);
  }
};

static bool
qh_validate (const Case &c, std::string *why)
{
  if (c.n < 0 || c.n > (1L << 26))
    return mdl_cuda_refuse (why, "n must be 0..2^26");
  return mdl_cuda_choice_ok (c, "dist", "disc", MDL_POINT_DIST_CHOICES, why);
}

/* A point with its problem's id (the values of the per-level reduction). */
struct Cand {
  unsigned seg;
  Pt2 p;
};

struct MakeCand {
  const Pt2 *pts;
  const unsigned *seg;
  __host__ __device__ Cand operator() (size_t i) const { return { seg[i], pts[i] }; }
};

/* The further of two points of one problem from its l→r (ends[2 seg], ends[2 seg + 1]), of the
 * n_seg open problems. The reduction may apply it to values that are not the level's points (the
 * H100 run's memcheck found reads of ends far out of range here), so a value whose problem id is
 * out of range never indexes ends. */
struct Further {
  const Pt2 *ends;
  unsigned n_seg;
  __host__ __device__ Cand operator() (const Cand &a, const Cand &b) const
  {
    if (a.seg >= n_seg)
      return b;
    if (b.seg >= n_seg)
      return a;
    Nearer nearer = { ends[2 * a.seg], ends[2 * a.seg + 1] };
    return nearer (a.p, b.p) ? b : a;
  }
};

/* The child of point i: 0 left of l→m, 1 left of m→r, 2 dropped (in the closed triangle); as a
 * count, 1 in the low 32 bits for the left child, in the high ones for the right. */
struct Side {
  const Pt2 *pts;
  const unsigned *seg;
  const Pt2 *ends;
  const Cand *mid;
  __host__ __device__ unsigned child (size_t i) const
  {
    unsigned s = seg[i];
    Pt2 l = ends[2 * s], r = ends[2 * s + 1], m = mid[s].p, p = pts[i];
    return qh_cross (l, m, p) > 0 ? 0 : qh_cross (m, r, p) > 0 ? 1 : 2;
  }
  __host__ __device__ unsigned long long operator() (size_t i) const
  {
    unsigned c = child (i);
    return c == 0 ? 1ull : c == 1 ? 1ull << 32 : 0ull;
  }
};

/* Point i to its child: at the child's offset plus its rank there, with the child's new id. */
struct Scatter {
  Side side;
  const unsigned long long *rank;
  const unsigned *off, *id;
  Pt2 *dst;
  unsigned *dseg;
  __host__ __device__ void operator() (size_t i) const
  {
    unsigned c = side.child (i);
    if (c > 1)
      return;
    unsigned k = 2 * side.seg[i] + c;
    unsigned long long r = rank[i];
    size_t at = off[k] + (c == 0 ? (unsigned) r : (unsigned) (r >> 32));
    dst[at] = side.pts[i];
    dseg[at] = id[k];
  }
};

/* in2's arrays for n points: two point buffers and two id buffers (a level reads one of each,
 * writes the other), the ranks, and per problem (at most n of them, or 2n children) its counts,
 * ends, pivot, and its children's offsets and ids. */
struct QhScratch {
  Pt2 *pts[2], *ends;
  unsigned *seg[2], *off, *id;
  unsigned long long *rank, *counts;
  Cand *mid;
};

static size_t
qh_layout (size_t n, unsigned char *base, QhScratch *s)
{
  size_t m = n + 1, at = 0;
  auto take = [&] (size_t bytes) {
    unsigned char *p = base ? base + at : nullptr;
    at += (bytes + 15) / 16 * 16;
    return p;
  };
  s->pts[0] = (Pt2 *) take (8 * m);
  s->pts[1] = (Pt2 *) take (8 * m);
  s->rank = (unsigned long long *) take (8 * m);
  s->counts = (unsigned long long *) take (8 * m);
  s->ends = (Pt2 *) take (16 * m);
  s->mid = (Cand *) take (sizeof (Cand) * m);
  s->seg[0] = (unsigned *) take (4 * m);
  s->seg[1] = (unsigned *) take (4 * m);
  s->off = (unsigned *) take (8 * m);
  s->id = (unsigned *) take (8 * m);
  return at;
}

static void
qh_prepare (const Case &c, Buffers &b, uint64_t *rng)
{
  size_t n = (size_t) c.n, room = 8 * (n + 1);
  QhScratch s;
  b.in.assign (room, 0);
  mdl_points_fill (b.in.data (), n, mdl_cuda_point_dist (c), MDL_POINTS_F32, mdl_splitmix64 (rng));
  b.in2.assign (qh_layout (n, nullptr, &s), 0);
  b.out.assign (room, MDL_CUDA_POISON);
  b.out2.assign (8, 0);
}

/* The host's ordered list of the hull so far: vertices and open problems (l, r), clockwise. */
struct Item {
  bool vertex;
  Pt2 l, r;   /* a vertex is l */
};

template <typename T>
static void
qh_upload (T *d, const std::vector<T> &h)
{
  if (!h.empty ())
    CUDA_OK (cudaMemcpy (d, h.data (), h.size () * sizeof (T), cudaMemcpyHostToDevice));
}

template <typename T>
static void
qh_download (std::vector<T> &h, const T *d, size_t count)
{
  h.resize (count);
  if (count)
    CUDA_OK (cudaMemcpy (h.data (), d, count * sizeof (T), cudaMemcpyDeviceToHost));
}

static int
qh_launch (const Case &c, Buffers &b)
{
  size_t n = (size_t) c.n, points = n, k_open = 1;
  QhScratch s;
  std::vector<Item> list, next;
  std::vector<Pt2> hull, ends;
  std::vector<Cand> mid;
  std::vector<unsigned long long> counts;
  std::vector<unsigned> off, id;
  const Pt2 *pts = (const Pt2 *) b.d_in;
  int launches = 0, cur = 0;
  uint64_t h;
  qh_layout (n, b.d_in2, &s);
  if (n > 0)
    {
      thrust::pair<const Pt2 *, const Pt2 *> lr
        = thrust::minmax_element (thrust::device, pts, pts + n, LessXY ());
      Pt2 l, r;
      launches++;
      CUDA_OK (cudaMemcpy (&l, lr.first, sizeof l, cudaMemcpyDeviceToHost));
      CUDA_OK (cudaMemcpy (&r, lr.second, sizeof r, cudaMemcpyDeviceToHost));
      list.push_back ({ true, l, l });
      if (l.x != r.x || l.y != r.y)
        {
          /* The root (L, L) with m = R: its children are the upper and lower hulls. */
          list.push_back ({ false, l, l });
          ends = { l, l };
          mid = { { 0, r } };
          qh_upload (s.ends, ends);
          qh_upload (s.mid, mid);
          CUDA_OK (cudaMemset (s.seg[1], 0, 4 * n));
        }
    }
  /* A level reads pts and seg and writes pts[cur] and seg[cur]; the root reads the input. */
  const unsigned *seg = s.seg[1];
  for (bool root = true; list.size () > 1 && k_open > 0; root = false)
    {
      auto index = thrust::make_counting_iterator<size_t> (0);
      if (!root)
        {
          thrust::reduce_by_key (thrust::device, seg, seg + points,
                                 thrust::make_transform_iterator (index, MakeCand { pts, seg }),
                                 thrust::make_discard_iterator (), s.mid,
                                 thrust::equal_to<unsigned> (),
                                 Further { s.ends, (unsigned) k_open });
          qh_download (mid, s.mid, k_open);
          launches++;
        }
      Side side = { pts, seg, s.ends, s.mid };
      thrust::exclusive_scan_by_key (thrust::device, seg, seg + points,
                                     thrust::make_transform_iterator (index, side), s.rank);
      thrust::reduce_by_key (thrust::device, seg, seg + points,
                             thrust::make_transform_iterator (index, side),
                             thrust::make_discard_iterator (), s.counts);
      qh_download (counts, s.counts, k_open);
      launches += 2;
      /* Each problem becomes [left child, m, right child], the empty children left out. */
      next.clear (), ends.clear (), off.assign (2 * k_open, 0), id.assign (2 * k_open, 0);
      size_t k = 0, kept = 0;
      for (const Item &it : list)
        {
          if (it.vertex)
            {
              next.push_back (it);
              continue;
            }
          Pt2 m = mid[k].p;
          unsigned long long part[2] = { counts[k] & 0xffffffffull, counts[k] >> 32 };
          Item kid[2] = { { false, it.l, m }, { false, m, it.r } };
          for (unsigned ch = 0; ch < 2; ch++)
            {
              if (ch == 1)
                next.push_back ({ true, m, m });
              if (!part[ch])
                continue;
              off[2 * k + ch] = (unsigned) kept, id[2 * k + ch] = (unsigned) (ends.size () / 2);
              kept += part[ch];
              ends.push_back (kid[ch].l), ends.push_back (kid[ch].r);
              next.push_back (kid[ch]);
            }
          k++;
        }
      qh_upload (s.off, off);
      qh_upload (s.id, id);
      thrust::for_each (thrust::device, index, index + points,
                        Scatter { side, s.rank, s.off, s.id, s.pts[cur], s.seg[cur] });
      CUDA_OK (cudaGetLastError ());
      /* The scatter read this level's ends; the next level's replace them after it. */
      qh_upload (s.ends, ends);
      launches++;
      pts = s.pts[cur], seg = s.seg[cur], cur = 1 - cur;
      points = kept, k_open = ends.size () / 2;
      list.swap (next);
    }
  for (const Item &it : list)
    if (it.vertex)
      hull.push_back (it.l);
  h = hull.size ();
  if (h)
    CUDA_OK (cudaMemcpy (b.d_out, hull.data (), h * sizeof (Pt2), cudaMemcpyHostToDevice));
  CUDA_OK (cudaMemcpy (b.d_out2, &h, sizeof h, cudaMemcpyHostToDevice));
  return launches;
}

static long
qh_check (const Case &c, const Buffers &b)
{
  return mdl_cuda_check_hull (c, b, MDL_POINTS_F32);
}

static std::string
qh_kernel (const Case &)
{
  return "thrust::minmax_element";
}

const CudaTwin cuda_twin_quickhull = {
  qh_validate, qh_prepare, qh_launch, qh_check, qh_kernel, nullptr, false,
};
