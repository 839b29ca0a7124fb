/* The hull's baseline (MDL_GPU_BASELINES: baseline/quickhull): a plain GPU quickhull built from
 * Thrust, the partition-based kind of Srikanth et al. that the MSIMD paper compares with. The host
 * keeps a stack of problems (l, r, a range of one of two scratch buffers); each problem is one
 * thrust::max_element (the point furthest from lr, ties broken along lr, so a strict vertex) and
 * two thrust::copy_if into the other buffer (the points left of l→m, then of m→r). Every call
 * synchronizes, so the time includes one round trip per problem: on the ring (h in the 10^5s) it
 * is launch-bound by design, the cost the MSIMD hull's batched rounds avoid.
 *
 * Points: dist= of src/algos/points.h as float pairs (prec f32, the exact grid); out gets the hull
 * clockwise from the smallest (x, y) and out2 its vertex count; check() compares it as a cycle with
 * the monotone chain (mdl_hull_diff). Scratch (2n points) travels as in2. */
#include <cstring>

#include <thrust/copy.h>
#include <thrust/execution_policy.h>
#include <thrust/extrema.h>

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

/* Strictly left of a→b. */
struct LeftOf {
  Pt2 a, b;
  __host__ __device__ bool operator() (const Pt2 &p) const { return qh_cross (a, b, p) > 0; }
};

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

static void
qh_prepare (const Case &c, Buffers &b, uint64_t *rng)
{
  size_t n = (size_t) c.n, room = 8 * (n + 1);
  b.in.assign (room, 0);
  mdl_points_fill (b.in.data (), n, mdl_cuda_point_dist (c), MDL_POINTS_F32, mdl_splitmix64 (rng));
  b.in2.assign (2 * room, 0);
  b.out.assign (room, MDL_CUDA_POISON);
  b.out2.assign (8, 0);
}

/* One problem: the points of [off, off + len) of buffer @buf strictly left of l→r. */
struct Problem {
  Pt2 l, r;
  size_t off, len;
  int buf;
  bool emit;   /* a marker: append l to the hull */
};

static int
qh_launch (const Case &c, Buffers &b)
{
  size_t n = (size_t) c.n, h = 0;
  const Pt2 *in = (const Pt2 *) b.d_in;
  Pt2 *buf[2] = { (Pt2 *) b.d_in2, (Pt2 *) b.d_in2 + n + 1 };
  std::vector<Pt2> hull;
  std::vector<Problem> stack;
  int launches = 0;
  if (n > 0)
    {
      thrust::pair<const Pt2 *, const Pt2 *> ends
        = thrust::minmax_element (thrust::device, in, in + n, LessXY ());
      Pt2 l, r;
      launches++;
      CUDA_OK (cudaMemcpy (&l, ends.first, sizeof l, cudaMemcpyDeviceToHost));
      CUDA_OK (cudaMemcpy (&r, ends.second, sizeof r, cudaMemcpyDeviceToHost));
      if (l.x == r.x && l.y == r.y)
        hull.push_back (l);
      else
        {
          /* Upper points (left of l→r) to the front of buffer 0, lower ones (left of r→l) after. */
          Pt2 *up = thrust::copy_if (thrust::device, in, in + n, buf[0], LeftOf { l, r });
          Pt2 *down = thrust::copy_if (thrust::device, in, in + n, up, LeftOf { r, l });
          size_t nu = (size_t) (up - buf[0]), nd = (size_t) (down - up);
          launches += 2;
          /* Popped last first: l, upper(l, r), r, lower(r, l): clockwise from l. */
          stack.push_back ({ r, l, nu, nd, 0, false });
          stack.push_back ({ r, r, 0, 0, 0, true });
          stack.push_back ({ l, r, 0, nu, 0, false });
          stack.push_back ({ l, l, 0, 0, 0, true });
        }
    }
  while (!stack.empty ())
    {
      Problem u = stack.back ();
      stack.pop_back ();
      if (u.emit)
        {
          hull.push_back (u.l);
          continue;
        }
      if (u.len == 0)
        continue;
      Pt2 *src = buf[u.buf] + u.off, *dst = buf[1 - u.buf] + u.off, m;
      const Pt2 *far = thrust::max_element (thrust::device, src, src + u.len, Nearer { u.l, u.r });
      CUDA_OK (cudaMemcpy (&m, far, sizeof m, cudaMemcpyDeviceToHost));
      Pt2 *mid = thrust::copy_if (thrust::device, src, src + u.len, dst, LeftOf { u.l, m });
      Pt2 *end = thrust::copy_if (thrust::device, src, src + u.len, mid, LeftOf { m, u.r });
      size_t nl = (size_t) (mid - dst), nr = (size_t) (end - mid);
      launches += 3;
      stack.push_back ({ m, u.r, u.off + nl, nr, 1 - u.buf, false });
      stack.push_back ({ m, m, 0, 0, 0, true });
      stack.push_back ({ u.l, m, u.off, nl, 1 - u.buf, false });
    }
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
  return "thrust::max_element";
}

const CudaTwin cuda_twin_quickhull = {
  qh_validate, qh_prepare, qh_launch, qh_check, qh_kernel, nullptr, false,
};
