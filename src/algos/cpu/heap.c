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

/* Sifts a[i] down a min-heap of @n elements (less = TRUE) or a max-heap (less = FALSE). The
 * children of every level below the first are dependent loads: the compares of the last level's
 * values chose them. */
static inline void
sift (guint64 *a, guint64 n, guint64 i, gboolean less, MdlRecorder *rec)
{
  const guint64 top = i;
  guint64 v = a[i];
  (void) rec;
  (void) top;
  MDL_READ (rec, &a[i]);
  for (;;)
    {
      guint64 c = 2 * i + 1;
      if (c >= n)
        break;
      MDL_OPS (rec, 1);
      MDL_READ_DEP (rec, &a[c], i != top);
      if (c + 1 < n)
        {
          MDL_READ_DEP (rec, &a[c + 1], i != top);
          if (MDL_BRANCH (rec, less ? a[c + 1] < a[c] : a[c + 1] > a[c]))
            c++;
        }
      if (MDL_BRANCH (rec, less ? a[c] >= v : a[c] <= v))
        break;
      a[i] = a[c];
      MDL_WRITE (rec, &a[i]);
      i = c;
    }
  a[i] = v;
  MDL_WRITE (rec, &a[i]);
}

/* The construction, phase "heapify" of a min-heap or "build" of heapsort's max-heap. */
static void
build (guint64 *a, guint64 n, gboolean less, MdlRecorder *rec)
{
  (void) rec;
  MDL_PHASE_BEGIN (rec, less ? "heapify" : "build");
  for (guint64 i = n / 2; i > 0; i--)
    sift (a, n, i - 1, less, rec);
  MDL_PHASE_END (rec, less ? "heapify" : "build");
}

/* heap/heapify: the min-heap construction. */
static void
heapify (guint64 *a, guint64 n, MdlRecorder *rec)
{
  build (a, n, TRUE, rec);
}

/* heap/sort: a max-heap, then n-1 times the maximum swapped to the end of the shrinking heap and
 * the new root sifted down. */
static void
heapsort (guint64 *a, guint64 n, MdlRecorder *rec)
{
  build (a, n, FALSE, rec);
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
}

static gboolean
check_min_heap (const char *name, const guint64 *a, guint64 n, guint64 fingerprint,
                GError **error)
{
  for (guint64 i = 1; i < n; i++)
    if (a[(i - 1) / 2] > a[i])
      {
        g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "%s: A[%" G_GUINT64_FORMAT "] is smaller "
                     "than its parent A[%" G_GUINT64_FORMAT "]", name, i, (i - 1) / 2);
        return FALSE;
      }
  return mdl_algo_check_same (name, a, n, fingerprint, error);
}

static const MdlAlgoInPlace heapify_row = { "heap/heapify", heapify, check_min_heap };
static const MdlAlgoInPlace heapsort_row = { "heap/sort", heapsort, mdl_algo_check_sorted };

MDL_ALGO_DEFINE_VARIANT (heap_heapify, mdl_algo_in_place, &heapify_row)
MDL_ALGO_DEFINE_VARIANT (heap_sort, mdl_algo_in_place, &heapsort_row)
