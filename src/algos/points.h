/* Private: the 2D point sets of the convex hull (Jurkiewicz & Danilewski §3, A.4; the reading
 * notes ../shared/spec/msimd-jurkiewicz-danilewski.md V9) and the CPU reference hull, one header
 * for the SIMT twin, the tests and the CUDA harness, so that every side sees the same points for
 * the same seed and checks against the same hull.
 *
 * Points live on a grid so that the orientation test is exact in double arithmetic. A float point
 * has coordinates k·2^-24 with |k| <= 2^24 (every such value is a float; in [0.5, 1) it is exactly
 * float32 rounding, which is where the ring's points are, so V9's float32 duplicates appear); a
 * double point has the grid 2^-25. The cross product of two differences of grid points then has
 * at most 2·(g+1) + 1 <= 53 significant bits, g = 25: every product and the final subtraction are
 * exact, so collinear input is decided exactly without extended arithmetic.
 *
 * Point k depends only on the seed and k (draws numbered per point), as keys.h's keys do.
 * Only <stdint.h>, <stdlib.h> and <math.h>: nvcc compiles it too (no GLib on the GPU machine). */
#ifndef MDL_POINTS_H
#define MDL_POINTS_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "../core/splitmix.h"

/* The orientation test runs in CUDA kernels too (baseline/quickhull's functors). */
#ifdef __CUDACC__
#define MDL_POINT_HD __host__ __device__
#else
#define MDL_POINT_HD
#endif

/* MDL_POINT_DISTS (X) calls X (NAME, DESCRIPTION) in the order of MdlPointDist. The paper's A.4
 * has the first three; line and equal are the degenerate inputs every hull must survive. */
#define MDL_POINT_DISTS(X)                                                                         \
  X ("square", "uniform in the square [-1, 1]^2")                                                 \
  X ("disc", "uniform in the unit disc (area)")                                                   \
  X ("ring", "on the unit circle (a disc point scaled to length 1, then rounded to the grid)")    \
  X ("line", "uniform on the segment y = x/2, |x| <= 1: all collinear")                          \
  X ("equal", "every point (0.25, -0.5)")

#define MDL_POINT_DIST_CHOICES "square|disc|ring|line|equal"

typedef enum {
  MDL_POINTS_SQUARE = 0,
  MDL_POINTS_DISC,
  MDL_POINTS_RING,
  MDL_POINTS_LINE,
  MDL_POINTS_EQUAL,
  MDL_POINTS_N_DISTS
} MdlPointDist;

/* Coordinate precision: float pairs (8 bytes, the paper's) or double pairs (16 bytes). */
typedef enum { MDL_POINTS_F32 = 0, MDL_POINTS_F64 } MdlPointPrec;
#define MDL_POINT_PREC_CHOICES "f32|f64"

/* hull/msimd's part= (the independent stage's partition), as the SIMT twin's parameter table, the
 * CUDA twin's check and the row's cases spell it. */
#define MDL_HULL_PART_CHOICES "copy|alg5"

/* log2 of the grid's steps per unit. */
static inline int
mdl_point_grid_bits (MdlPointPrec prec)
{
  return prec == MDL_POINTS_F32 ? 24 : 25;
}

/* Bytes per point. */
static inline unsigned
mdl_point_bytes (MdlPointPrec prec)
{
  return prec == MDL_POINTS_F32 ? 8u : 16u;
}

/* Draw @i of point @k for @seed: uniform in [-1, 1) with 53 bits. 16 draws per point, the most a
 * disc point's rejection sampling uses before it settles for the centre (probability 2^-35). */
static inline double
mdl_point_draw (uint64_t seed, uint64_t k, uint64_t i)
{
  uint64_t r = mdl_splitmix64_mix (seed + (16 * k + i + 1) * MDL_SPLITMIX64_GAMMA);
  return (double) (r >> 11) * 0x1p-52 - 1.0;
}

/* @v rounded to the grid of @prec (ties to even). */
static inline double
mdl_point_round (double v, MdlPointPrec prec)
{
  double scale = ldexp (1.0, mdl_point_grid_bits (prec));
  return nearbyint (v * scale) / scale;
}

/* Point @k of @dist for @seed, on the grid of @prec. */
static inline void
mdl_point_make (MdlPointDist dist, MdlPointPrec prec, uint64_t seed, uint64_t k, double *x,
                double *y)
{
  double u = mdl_point_draw (seed, k, 0), v = mdl_point_draw (seed, k, 1);
  if (dist == MDL_POINTS_DISC || dist == MDL_POINTS_RING)
    {
      /* Rejection from the square; the ring scales the disc point to length 1, which is uniform
       * in angle and uses only correctly rounded operations (the same bits on every machine). */
      int ok = 0;
      for (uint64_t i = 0; i < 8 && !ok; i++)
        {
          u = mdl_point_draw (seed, k, 2 * i), v = mdl_point_draw (seed, k, 2 * i + 1);
          ok = u * u + v * v < 1.0 && (dist == MDL_POINTS_DISC || u * u + v * v > 0x1p-20);
        }
      if (!ok)
        u = dist == MDL_POINTS_RING, v = 0;
      else if (dist == MDL_POINTS_RING)
        {
          double len = sqrt (u * u + v * v);
          u /= len, v /= len;
        }
    }
  else if (dist == MDL_POINTS_LINE)
    v = mdl_point_round (u / 2, prec), u = 2 * v;
  else if (dist == MDL_POINTS_EQUAL)
    u = 0.25, v = -0.5;
  *x = mdl_point_round (u, prec);
  *y = mdl_point_round (v, prec);
}

/* Fills @out with @n points of @dist for @seed as @prec pairs (x, y): 2n floats or 2n doubles. */
static inline void
mdl_points_fill (void *out, uint64_t n, MdlPointDist dist, MdlPointPrec prec, uint64_t seed)
{
  for (uint64_t k = 0; k < n; k++)
    {
      double x, y;
      mdl_point_make (dist, prec, seed, k, &x, &y);
      if (prec == MDL_POINTS_F32)
        ((float *) out)[2 * k] = (float) x, ((float *) out)[2 * k + 1] = (float) y;
      else
        ((double *) out)[2 * k] = x, ((double *) out)[2 * k + 1] = y;
    }
}

/* Point @k of an array of @prec pairs, as doubles. */
static inline void
mdl_point_get (const void *pts, MdlPointPrec prec, uint64_t k, double *x, double *y)
{
  if (prec == MDL_POINTS_F32)
    *x = ((const float *) pts)[2 * k], *y = ((const float *) pts)[2 * k + 1];
  else
    *x = ((const double *) pts)[2 * k], *y = ((const double *) pts)[2 * k + 1];
}

/* The cross product (b − a) × (c − a): > 0 when c is left of the directed line a→b, 0 when the
 * three are collinear. Exact for grid points (see the top). */
MDL_POINT_HD static inline double
mdl_point_cross (double ax, double ay, double bx, double by, double cx, double cy)
{
  return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
}

static inline int
mdl_point_cmp_xy (const void *a, const void *b)
{
  const double *p = (const double *) a, *q = (const double *) b;
  return p[0] < q[0] ? -1 : p[0] > q[0] ? 1 : p[1] < q[1] ? -1 : p[1] > q[1];
}

/* The reference hull (Andrew's monotone chain) of the @n points @xy (2n doubles) into @hull (room
 * for 2n + 2 doubles): the strict vertices in counter-clockwise order from the smallest (x, y).
 * Conventions: duplicates count once and points on the boundary between two vertices (collinear)
 * are not vertices, so all-equal input gives 1 vertex and collinear input its 2 ends. Returns the
 * number of vertices h, or −1 when out of memory. O(n log n). */
static inline int64_t
mdl_hull_chain (const double *xy, uint64_t n, double *hull)
{
  double *s = (double *) malloc (2 * (n ? n : 1) * sizeof (double));
  int64_t m = 0, k = 0;
  if (!s)
    return -1;
  for (uint64_t i = 0; i < 2 * n; i++)
    s[i] = xy[i];
  qsort (s, n, 2 * sizeof (double), mdl_point_cmp_xy);
  for (uint64_t i = 0; i < n; i++)
    if (m == 0 || s[2 * m - 2] != s[2 * i] || s[2 * m - 1] != s[2 * i + 1])
      s[2 * m] = s[2 * i], s[2 * m + 1] = s[2 * i + 1], m++;
  /* The lower chain left to right, then the upper one back; a turn that is not strictly left
   * pops, which leaves collinear points out. */
  for (int64_t i = 0; i < m; i++)
    {
      while (k >= 2 && mdl_point_cross (hull[2 * k - 4], hull[2 * k - 3], hull[2 * k - 2],
                                        hull[2 * k - 1], s[2 * i], s[2 * i + 1]) <= 0)
        k--;
      hull[2 * k] = s[2 * i], hull[2 * k + 1] = s[2 * i + 1], k++;
    }
  for (int64_t i = m - 2, t = k + 1; i >= 0; i--)
    {
      while (k >= t && mdl_point_cross (hull[2 * k - 4], hull[2 * k - 3], hull[2 * k - 2],
                                        hull[2 * k - 1], s[2 * i], s[2 * i + 1]) <= 0)
        k--;
      hull[2 * k] = s[2 * i], hull[2 * k + 1] = s[2 * i + 1], k++;
    }
  free (s);
  /* With two or more points the upper chain ends on the first vertex again. */
  return m >= 2 ? k - 1 : m;
}

/* Compares a hull @got of @g vertices (2g doubles, clockwise, starting anywhere) with the
 * reference @ref of @h (mdl_hull_chain). Returns −1 when they are the same cycle, else the index
 * in @ref's order of the first vertex that differs (h when the counts differ). */
static inline int64_t
mdl_hull_diff (const double *ref, int64_t h, const double *got, int64_t g)
{
  int64_t start = -1;
  if (g != h)
    return h;
  for (int64_t i = 0; i < g && start < 0; i++)
    if (h > 0 && got[2 * i] == ref[0] && got[2 * i + 1] == ref[1])
      start = i;
  if (h > 0 && start < 0)
    return 0;
  /* Counter-clockwise from the reference's first: @got read backwards. */
  for (int64_t j = 0; j < h; j++)
    {
      int64_t i = ((start - j) % g + g) % g;
      if (got[2 * i] != ref[2 * j] || got[2 * i + 1] != ref[2 * j + 1])
        return j;
    }
  return -1;
}

#endif
