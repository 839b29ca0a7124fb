/* Transpose of an N x N row-major matrix of 8-byte elements into a second one, B[j][i] = A[i][j],
 * with N = floor(sqrt(n)) so that n bounds the elements of one matrix (VAT thesis §2.6.2):
 *  - rows: row by row; A is read sequentially, B is written one element per row, a jump of N
 *    cells, so no translation path is reused once N exceeds the TC's reach: Theta(tau n d);
 *  - recursive: the cache-oblivious order, splitting the longer side of the block in halves down to
 *    blocks of at most 8 x 8, over the same row-major arrays; its cost grows in jumps each time N
 *    grows by a factor of K (the thesis's Fig. 2.7).
 * One RAM operation per element. B is touched before the clock starts. */
#include "algos/cpu/cpu-algo.h"

#include <string.h>

#define BLOCK_SIDE 8

typedef struct {
  const guint64 *a;
  guint64 *b;
  guint64 side;
  MdlRecorder *rec;
} Transpose;

static inline void
move_one (const Transpose *t, guint64 i, guint64 j)
{
  const guint64 *from = &t->a[i * t->side + j];
  guint64 *to = &t->b[j * t->side + i];
  MDL_READ (t->rec, from);
  MDL_OPS (t->rec, 1);
  *to = *from;
  MDL_WRITE (t->rec, to);
}

static void
by_rows (const Transpose *t)
{
  for (guint64 i = 0; i < t->side; i++)
    for (guint64 j = 0; j < t->side; j++)
      move_one (t, i, j);
}

/* Rows i0..i1-1, columns j0..j1-1 of A. */
static void
by_blocks (const Transpose *t, guint64 i0, guint64 i1, guint64 j0, guint64 j1)
{
  if (i1 - i0 <= BLOCK_SIDE && j1 - j0 <= BLOCK_SIDE)
    {
      for (guint64 i = i0; i < i1; i++)
        for (guint64 j = j0; j < j1; j++)
          move_one (t, i, j);
    }
  else if (i1 - i0 >= j1 - j0)
    {
      guint64 mid = i0 + (i1 - i0) / 2;
      by_blocks (t, i0, mid, j0, j1);
      by_blocks (t, mid, i1, j0, j1);
    }
  else
    {
      guint64 mid = j0 + (j1 - j0) / 2;
      by_blocks (t, i0, i1, j0, mid);
      by_blocks (t, i0, i1, mid, j1);
    }
}

static gboolean
transpose (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec, MdlAlgoTimer *timer,
           gboolean recursive, guint64 *checksum, GError **error)
{
  guint64 side = mdl_algo_isqrt (n), cells = side * side;
  g_autofree guint64 *a = NULL, *b = NULL;
  Transpose t;
  a = mdl_algo_alloc_matrix (rec, params, n, 2, "array", error);
  b = a ? mdl_algo_alloc_matrix (rec, params, n, 2, "transposed array", error) : NULL;
  if (b == NULL)
    return FALSE;
  t = (Transpose) { .a = a, .b = b, .side = side, .rec = rec };
  mdl_algo_fill_random (a, cells, seed);
  memset (b, 0, cells * sizeof *b);
  MDL_ALGO_ESCAPE (a);
  MDL_ALGO_ESCAPE (b);
  mdl_algo_timer_start (timer);
  MDL_PHASE_BEGIN (rec, "transpose");
  if (recursive)
    by_blocks (&t, 0, side, 0, side);
  else
    by_rows (&t);
  MDL_PHASE_END (rec, "transpose");
  mdl_algo_timer_stop (timer);
  *checksum = mdl_algo_weighted_sum (b, cells);
  for (guint64 i = 0; i < side; i++)
    for (guint64 j = 0; j < side; j++)
      if (b[j * side + i] != a[i * side + j])
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "transpose/%s: B[%" G_GUINT64_FORMAT "][%"
                       G_GUINT64_FORMAT "] differs from A[%" G_GUINT64_FORMAT "][%" G_GUINT64_FORMAT
                       "]", recursive ? "recursive" : "rows", j, i, i, j);
          return FALSE;
        }
  return TRUE;
}

MDL_ALGO_DEFINE_VARIANT (transpose_rows, transpose, FALSE)
MDL_ALGO_DEFINE_VARIANT (transpose_recursive, transpose, TRUE)
