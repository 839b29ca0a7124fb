/* Scans over an array of 8-byte elements: sequential (sum of A[i]) and random (sum of A[pi(i)]
 * for a random permutation pi). The VAT thesis's two baselines: the sequential scan's translation
 * cost per element is constant, the random scan's grows like log n. Each element costs one RAM
 * operation (load and add); the random scan also reads pi(i), sequentially. Building the input
 * and the permutation is not part of the measured algorithm and is not instrumented. */
#include "algos/cpu/cpu-algo.h"

static guint64 *
make_input (MdlRecorder *rec, const MdlParams *params, guint64 n, guint64 seed, GError **error)
{
  guint64 *a = mdl_algo_alloc_pages (rec, params, n, sizeof *a, "array", error);
  guint64 state = seed;
  for (guint64 i = 0; a && i < n; i++)
    a[i] = mdl_splitmix64 (&state) >> 16;
  return a;
}

static gboolean
check_sum (const guint64 *a, guint64 n, guint64 sum, GError **error)
{
  guint64 expected = 0;
  for (guint64 i = 0; i < n; i++)
    expected += a[i];
  if (expected == sum)
    return TRUE;
  g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "scan: sum %" G_GUINT64_FORMAT " differs from "
               "the reference %" G_GUINT64_FORMAT, sum, expected);
  return FALSE;
}

static gboolean
scan_seq (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec, MdlAlgoTimer *timer,
          guint64 *checksum, GError **error)
{
  g_autofree guint64 *a = make_input (rec, params, n, seed, error);
  guint64 sum = 0;
  (void) rec;
  if (a == NULL)
    return FALSE;
  MDL_ALGO_ESCAPE (a);
  mdl_algo_timer_start (timer);
  MDL_PHASE_BEGIN (rec, "scan");
  for (guint64 i = 0; i < n; i++)
    {
      MDL_READ (rec, &a[i]);
      MDL_OPS (rec, 1);
      sum += a[i];
    }
  MDL_PHASE_END (rec, "scan");
  mdl_algo_timer_stop (timer);
  *checksum = sum;
  return check_sum (a, n, sum, error);
}

MDL_ALGO_DEFINE (scan_seq, scan_seq)

static gboolean
scan_random (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec,
             MdlAlgoTimer *timer, guint64 *checksum, GError **error)
{
  g_autofree guint64 *a = make_input (rec, params, n, seed, error);
  g_autofree guint64 *perm = a ? mdl_algo_alloc_pages (rec, params, n, sizeof *perm, "permutation",
                                                       error) : NULL;
  guint64 state = seed ^ 0x5DEECE66Dull, sum = 0;
  (void) rec;
  if (perm == NULL)
    return FALSE;
  for (guint64 i = 0; i < n; i++)
    perm[i] = i;
  for (guint64 i = n - 1; i > 0; i--)
    {
      guint64 j = mdl_splitmix64 (&state) % (i + 1);
      guint64 t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
    }
  MDL_ALGO_ESCAPE (a);
  MDL_ALGO_ESCAPE (perm);
  mdl_algo_timer_start (timer);
  MDL_PHASE_BEGIN (rec, "scan");
  for (guint64 i = 0; i < n; i++)
    {
      MDL_READ (rec, &perm[i]);
      MDL_READ (rec, &a[perm[i]]);
      MDL_OPS (rec, 1);
      sum += a[perm[i]];
    }
  MDL_PHASE_END (rec, "scan");
  mdl_algo_timer_stop (timer);
  *checksum = sum;
  return check_sum (a, n, sum, error);
}

MDL_ALGO_DEFINE (scan_random, scan_random)
