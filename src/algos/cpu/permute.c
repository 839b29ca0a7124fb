/* permute: a uniformly random permutation of an array of 8-byte elements in place, by Fisher and
 * Yates as the VAT thesis states it (§2.1): for j = n-1 down to 1, draw i from 0..j and swap A[i]
 * and A[j]. The A[j] side is a descending sequential scan; the A[i] side is a random access to the
 * not yet permuted prefix, which is what makes the translation cost grow like log n (a "RAT" in the
 * thesis's §2.6.2). A step is one RAM operation (draw and swap); each swap is a read-modify-write
 * of both cells. The input is A[i] = i, so the check is that every value 0..n-1 is still there. */
#include "algos/cpu/cpu-algo.h"

static gboolean
check_permutation (const guint64 *a, guint64 n, GError **error)
{
  g_autofree guint8 *seen = g_try_malloc0 ((gsize) (n / 8 + 1));
  if (seen == NULL)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "permute: n=%" G_GUINT64_FORMAT ": cannot "
                   "allocate the check's bitmap", n);
      return FALSE;
    }
  for (guint64 i = 0; i < n; i++)
    {
      guint64 v = a[i];
      if (v >= n || (seen[v / 8] & (1u << (v % 8))))
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "permute: A[%" G_GUINT64_FORMAT "] = %"
                       G_GUINT64_FORMAT " is %s; the result is not a permutation of 0..%"
                       G_GUINT64_FORMAT, i, v, v >= n ? "out of range" : "a repeat", n - 1);
          return FALSE;
        }
      seen[v / 8] |= (guint8) (1u << (v % 8));
    }
  return TRUE;
}

static gboolean
permute (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec, MdlAlgoTimer *timer,
         guint64 *checksum, GError **error)
{
  g_autofree guint64 *a = mdl_algo_alloc_pages (rec, params, n, sizeof *a, "array", error);
  guint64 state = seed;
  (void) rec;
  if (a == NULL)
    return FALSE;
  for (guint64 i = 0; i < n; i++)
    a[i] = i;
  MDL_ALGO_ESCAPE (a);
  mdl_algo_timer_start (timer);
  MDL_PHASE_BEGIN (rec, "permute");
  for (guint64 j = n - 1; j > 0; j--)
    {
      guint64 i = mdl_algo_below (&state, j + 1);
      guint64 t = a[i];
      MDL_MODIFY (rec, &a[j]);
      MDL_MODIFY (rec, &a[i]);
      MDL_OPS (rec, 1);
      a[i] = a[j];
      a[j] = t;
    }
  MDL_PHASE_END (rec, "permute");
  mdl_algo_timer_stop (timer);
  *checksum = mdl_algo_weighted_sum (a, n);
  return check_permutation (a, n, error);
}

MDL_ALGO_DEFINE (permute, permute)
