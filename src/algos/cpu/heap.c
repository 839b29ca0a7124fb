/* Binary heaps in an array of 8-byte elements, 0-based (children of i at 2i+1 and 2i+2):
 *  - heapify: bottom-up construction of a min-heap as the VAT thesis states it (§2.5): sift(i) for
 *    i = n/2-1 down to 0, moving the value down past the smaller child until both children are no
 *    smaller. Its translation cost is O(tau (d + n p / P)): the sift walks are descending scans;
 *  - sort: heapsort, ascending: the same construction for a max-heap (phase "build"), then n-1
 *    times the maximum swapped to the end and the new root sifted down (phase "extract"). The thesis
 *    measured it growing like n log^2 n, without an analysis.
 * One RAM operation per sift level (read both children, compare, move one) and one per extraction.
 * The sift holds the moving value in a register and writes each hole once, so a level is two reads
 * and a write. */
#include "algos/cpu/cpu-algo.h"

/* Sifts a[i] down a min-heap of @n elements (less = TRUE) or a max-heap (less = FALSE). */
static inline void
sift (guint64 *a, guint64 n, guint64 i, gboolean less, MdlRecorder *rec)
{
  guint64 v = a[i];
  (void) rec;
  MDL_READ (rec, &a[i]);
  for (;;)
    {
      guint64 c = 2 * i + 1;
      if (c >= n)
        break;
      MDL_OPS (rec, 1);
      MDL_READ (rec, &a[c]);
      if (c + 1 < n)
        {
          MDL_READ (rec, &a[c + 1]);
          if (less ? a[c + 1] < a[c] : a[c + 1] > a[c])
            c++;
        }
      if (less ? a[c] >= v : a[c] <= v)
        break;
      a[i] = a[c];
      MDL_WRITE (rec, &a[i]);
      i = c;
    }
  a[i] = v;
  MDL_WRITE (rec, &a[i]);
}

static void
build (guint64 *a, guint64 n, gboolean less, MdlRecorder *rec)
{
  (void) rec;
  for (guint64 i = n / 2; i > 0; i--)
    sift (a, n, i - 1, less, rec);
}

static guint64 *
make_input (const MdlParams *params, guint64 n, guint64 seed, guint64 *fingerprint, GError **error)
{
  guint64 *a = mdl_algo_alloc_pages (params, n, sizeof *a, "array", error);
  if (a)
    {
      mdl_algo_fill_random (a, n, seed);
      *fingerprint = mdl_algo_multiset (a, n);
    }
  return a;
}

static gboolean
same_elements (const char *name, const guint64 *a, guint64 n, guint64 fingerprint, GError **error)
{
  if (mdl_algo_multiset (a, n) == fingerprint)
    return TRUE;
  g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "%s: the result does not hold the input's "
               "elements (multiset fingerprints differ)", name);
  return FALSE;
}

static gboolean
run_heapify (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec,
             MdlAlgoTimer *timer, guint64 *checksum, GError **error)
{
  guint64 fingerprint = 0;
  g_autofree guint64 *a = make_input (params, n, seed, &fingerprint, error);
  if (a == NULL)
    return FALSE;
  MDL_ALGO_ESCAPE (a);
  mdl_algo_timer_start (timer);
  MDL_PHASE_BEGIN (rec, "heapify");
  build (a, n, TRUE, rec);
  MDL_PHASE_END (rec, "heapify");
  mdl_algo_timer_stop (timer);
  *checksum = mdl_algo_weighted_sum (a, n);
  for (guint64 i = 1; i < n; i++)
    if (a[(i - 1) / 2] > a[i])
      {
        g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "heap/heapify: A[%" G_GUINT64_FORMAT "] "
                     "is smaller than its parent A[%" G_GUINT64_FORMAT "]", i, (i - 1) / 2);
        return FALSE;
      }
  return same_elements ("heap/heapify", a, n, fingerprint, error);
}

MDL_ALGO_DEFINE (heap_heapify, run_heapify)

static gboolean
run_heapsort (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec,
              MdlAlgoTimer *timer, guint64 *checksum, GError **error)
{
  guint64 fingerprint = 0;
  g_autofree guint64 *a = make_input (params, n, seed, &fingerprint, error);
  if (a == NULL)
    return FALSE;
  MDL_ALGO_ESCAPE (a);
  mdl_algo_timer_start (timer);
  MDL_PHASE_BEGIN (rec, "build");
  build (a, n, FALSE, rec);
  MDL_PHASE_END (rec, "build");
  MDL_PHASE_BEGIN (rec, "extract");
  for (guint64 end = n - 1; end > 0; end--)
    {
      guint64 top = a[0];
      MDL_READ (rec, &a[0]);
      MDL_READ (rec, &a[end]);
      MDL_OPS (rec, 1);
      a[0] = a[end];
      a[end] = top;
      MDL_WRITE (rec, &a[end]);
      sift (a, end, 0, FALSE, rec);
    }
  MDL_PHASE_END (rec, "extract");
  mdl_algo_timer_stop (timer);
  *checksum = mdl_algo_weighted_sum (a, n);
  for (guint64 i = 1; i < n; i++)
    if (a[i - 1] > a[i])
      {
        g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "heap/sort: A[%" G_GUINT64_FORMAT "] > A[%"
                     G_GUINT64_FORMAT "]: not sorted", i - 1, i);
        return FALSE;
      }
  return same_elements ("heap/sort", a, n, fingerprint, error);
}

MDL_ALGO_DEFINE (heap_sort, run_heapsort)
