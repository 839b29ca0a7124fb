/* Bottom-up merge sort of 8-byte elements, ascending and stable: passes of width 1, 2, 4, ...
 * merge neighbouring runs from one array into a second of the same size and swap the two roles; an
 * odd number of passes ends with a copy back. Every pass is two ascending read scans and one write
 * scan, a CAT in the VAT thesis's terms (§2.6.2), so its translation cost is O(n/P) per pass:
 * normalized time should stay flat. One RAM operation per element written (a merge step or a copy).
 * The second array is allocated and touched before the clock starts. */
#include "algos/cpu/cpu-algo.h"

#include <string.h>

/* Copies src[i..end-1] to dst from @k on, when the other run is exhausted: src[i], the head of
 * its run, was read already. Returns the next k. */
static inline guint64
copy_rest (const guint64 *src, guint64 *dst, guint64 i, guint64 end, guint64 k, MdlRecorder *rec)
{
  (void) rec;
  for (gboolean first = TRUE; i < end; i++, k++, first = FALSE)
    {
      if (!first)
        MDL_READ (rec, &src[i]);
      MDL_OPS (rec, 1);
      dst[k] = src[i];
      MDL_WRITE (rec, &dst[k]);
    }
  return k;
}

/* Merges src[lo..mid-1] and src[mid..hi-1] into dst[lo..hi-1]; each element is read once, when it
 * becomes the head of its run. A head read after a compare is a dependent load (the compare of
 * the two heads' values chose which run moves on), though a stream prefetcher has it in cache. */
static void
merge (const guint64 *src, guint64 *dst, guint64 lo, guint64 mid, guint64 hi, MdlRecorder *rec)
{
  guint64 i = lo, j = mid, k = lo;
  (void) rec;
  if (i < mid)
    MDL_READ (rec, &src[i]);
  if (j < hi)
    MDL_READ (rec, &src[j]);
  while (i < mid && j < hi)
    {
      MDL_OPS (rec, 1);
      if (MDL_BRANCH (rec, src[j] < src[i]))
        {
          dst[k] = src[j++];
          if (j < hi)
            MDL_READ_DEP (rec, &src[j], TRUE);
        }
      else
        {
          dst[k] = src[i++];
          if (i < mid)
            MDL_READ_DEP (rec, &src[i], TRUE);
        }
      MDL_WRITE (rec, &dst[k]);
      k++;
    }
  /* One run is exhausted (one of the two copies is empty). */
  k = copy_rest (src, dst, i, mid, k, rec);
  copy_rest (src, dst, j, hi, k, rec);
}

static gboolean
mergesort_bottom_up (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec,
                     MdlAlgoTimer *timer, guint64 *checksum, GError **error)
{
  guint64 fingerprint = 0;
  g_autofree guint64 *a = mdl_algo_random_input (rec, params, n, seed, &fingerprint, error);
  g_autofree guint64 *tmp = a ? mdl_algo_alloc_pages (rec, params, n, sizeof *tmp, "second array",
                                                      error) : NULL;
  guint64 *src, *dst;
  if (tmp == NULL)
    return FALSE;
  memset (tmp, 0, n * sizeof *tmp);
  MDL_ALGO_ESCAPE (a);
  MDL_ALGO_ESCAPE (tmp);
  mdl_algo_timer_start (timer);
  MDL_PHASE_BEGIN (rec, "merge");
  src = a;
  dst = tmp;
  for (guint64 width = 1; width < n; width *= 2)
    {
      guint64 *t;
      for (guint64 lo = 0; lo < n; lo += 2 * width)
        {
          guint64 mid = MIN (lo + width, n), hi = MIN (lo + 2 * width, n);
          merge (src, dst, lo, mid, hi, rec);
        }
      t = src;
      src = dst;
      dst = t;
    }
  MDL_PHASE_END (rec, "merge");
  if (src != a)
    {
      MDL_PHASE_BEGIN (rec, "copy");
      for (guint64 i = 0; i < n; i++)
        {
          MDL_READ (rec, &src[i]);
          MDL_OPS (rec, 1);
          a[i] = src[i];
          MDL_WRITE (rec, &a[i]);
        }
      MDL_PHASE_END (rec, "copy");
    }
  mdl_algo_timer_stop (timer);
  *checksum = mdl_algo_weighted_sum (a, n);
  return mdl_algo_check_sorted ("mergesort/bottom-up", a, n, fingerprint, error);
}

MDL_ALGO_DEFINE (mergesort_bottom_up, mergesort_bottom_up)
