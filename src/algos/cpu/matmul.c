/* Product C = A B of N x N row-major matrices of 8-byte integers (arithmetic modulo 2^64, so that
 * both builds and both orders give bit-identical results), N = floor(sqrt(n)):
 *  - naive: for each i and j the dot product of row i of A with column j of B, which walks B down a
 *    column, one page per element once N exceeds a page: Theta(tau N^3 d) translation cost;
 *  - recursive: the cache-oblivious order (Frigo et al.), halving the largest of the three
 *    dimensions down to 16 x 16 x 16 blocks, over the same row-major arrays; Theorem 2.32 bounds its
 *    faults by about N^3 / (a^(1/2) P^(3/2)) with a = W/d.
 * One RAM operation per multiply-add. The result is checked with Freivalds' test, A (B x) = C x for
 * a seeded vector x, in O(N^2). C is zeroed (touched) before the clock starts. */
#include "algos/cpu/cpu-algo.h"

#include <string.h>

#define BLOCK_SIDE 16

typedef struct {
  const guint64 *a;
  const guint64 *b;
  guint64 *c;
  guint64 side;
  MdlRecorder *rec;
} Matmul;

static void
naive (const Matmul *m)
{
  const guint64 s = m->side;
  for (guint64 i = 0; i < s; i++)
    for (guint64 j = 0; j < s; j++)
      {
        guint64 sum = 0;
        for (guint64 k = 0; k < s; k++)
          {
            MDL_READ (m->rec, &m->a[i * s + k]);
            MDL_READ (m->rec, &m->b[k * s + j]);
            MDL_OPS (m->rec, 1);
            sum += m->a[i * s + k] * m->b[k * s + j];
          }
        m->c[i * s + j] = sum;
        MDL_WRITE (m->rec, &m->c[i * s + j]);
      }
}

/* C[i0..i1-1][j0..j1-1] += A[i0..i1-1][k0..k1-1] B[k0..k1-1][j0..j1-1]. */
static void
blocks (const Matmul *m, guint64 i0, guint64 i1, guint64 k0, guint64 k1, guint64 j0, guint64 j1)
{
  const guint64 s = m->side;
  guint64 di = i1 - i0, dk = k1 - k0, dj = j1 - j0;
  if (di <= BLOCK_SIDE && dk <= BLOCK_SIDE && dj <= BLOCK_SIDE)
    {
      for (guint64 i = i0; i < i1; i++)
        for (guint64 j = j0; j < j1; j++)
          {
            guint64 sum = 0;
            for (guint64 k = k0; k < k1; k++)
              {
                MDL_READ (m->rec, &m->a[i * s + k]);
                MDL_READ (m->rec, &m->b[k * s + j]);
                MDL_OPS (m->rec, 1);
                sum += m->a[i * s + k] * m->b[k * s + j];
              }
            m->c[i * s + j] += sum;
            MDL_MODIFY (m->rec, &m->c[i * s + j]);
          }
    }
  else if (di >= dk && di >= dj)
    {
      blocks (m, i0, i0 + di / 2, k0, k1, j0, j1);
      blocks (m, i0 + di / 2, i1, k0, k1, j0, j1);
    }
  else if (dj >= dk)
    {
      blocks (m, i0, i1, k0, k1, j0, j0 + dj / 2);
      blocks (m, i0, i1, k0, k1, j0 + dj / 2, j1);
    }
  else
    {
      blocks (m, i0, i1, k0, k0 + dk / 2, j0, j1);
      blocks (m, i0, i1, k0 + dk / 2, k1, j0, j1);
    }
}

/* Freivalds: compares A (B x) with C x; returns the first row that differs, or side if none. */
static guint64
freivalds (const Matmul *m, guint64 seed)
{
  const guint64 s = m->side;
  g_autofree guint64 *x = g_new (guint64, 3 * s);
  guint64 *bx = x + s, *cx = x + 2 * s, state = seed ^ 0xF4E1A1D5ull;
  for (guint64 j = 0; j < s; j++)
    x[j] = mdl_splitmix64 (&state) | 1;
  for (guint64 r = 0; r < s; r++)
    {
      guint64 u = 0, v = 0;
      for (guint64 j = 0; j < s; j++)
        {
          u += m->b[r * s + j] * x[j];
          v += m->c[r * s + j] * x[j];
        }
      bx[r] = u;
      cx[r] = v;
    }
  for (guint64 r = 0; r < s; r++)
    {
      guint64 abx = 0;
      for (guint64 k = 0; k < s; k++)
        abx += m->a[r * s + k] * bx[k];
      if (abx != cx[r])
        return r;
    }
  return s;
}

static gboolean
matmul (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec, MdlAlgoTimer *timer,
        gboolean recursive, guint64 *checksum, GError **error)
{
  guint64 side = mdl_algo_isqrt (n), cells = side * side, bad;
  g_autofree guint64 *a = NULL, *b = NULL, *c = NULL;
  Matmul m;
  a = mdl_algo_alloc_matrix (rec, params, n, 3, "array", error);
  b = a ? mdl_algo_alloc_matrix (rec, params, n, 3, "array B", error) : NULL;
  c = b ? mdl_algo_alloc_matrix (rec, params, n, 3, "array C", error) : NULL;
  if (c == NULL)
    return FALSE;
  m = (Matmul) { .a = a, .b = b, .c = c, .side = side, .rec = rec };
  mdl_algo_fill_random (a, cells, seed);
  mdl_algo_fill_random (b, cells, seed ^ 0x3C6EF372FE94F82Bull);
  memset (c, 0, cells * sizeof *c);
  MDL_ALGO_ESCAPE (a);
  MDL_ALGO_ESCAPE (b);
  MDL_ALGO_ESCAPE (c);
  mdl_algo_timer_start (timer);
  MDL_PHASE_BEGIN (rec, "multiply");
  if (recursive)
    blocks (&m, 0, side, 0, side, 0, side);
  else
    naive (&m);
  MDL_PHASE_END (rec, "multiply");
  mdl_algo_timer_stop (timer);
  *checksum = mdl_algo_weighted_sum (c, cells);
  if ((bad = freivalds (&m, seed)) < side)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "matmul/%s: row %" G_GUINT64_FORMAT " of C "
                   "fails Freivalds' test (A B x != C x)", recursive ? "recursive" : "naive", bad);
      return FALSE;
    }
  return TRUE;
}

MDL_ALGO_DEFINE_VARIANT (matmul_naive, matmul, FALSE)
MDL_ALGO_DEFINE_VARIANT (matmul_recursive, matmul, TRUE)
