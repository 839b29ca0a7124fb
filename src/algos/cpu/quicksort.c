/* Introsort of 8-byte elements, ascending: the quicksort of the VAT thesis's experiments ("introsort
 * is a synonym for quicksort", §2.1), in the shape the C++ standard library gives it. Ranges longer
 * than 16 are partitioned around the median of their second, middle and last elements (moved to the
 * front, where it also stops the scans, so they need no bounds checks); the right part recurses,
 * the left part loops. After 2 floor(log2 n) levels a range is heapsorted instead, which bounds the
 * worst case at n log n (random inputs never get there). One final insertion sort over the whole
 * array finishes the short ranges left unsorted. Its accesses are scans that move monotonically, so
 * its translation cost is O((n/P) log(n/P)) (Theorem 2.32), far below its RAM cost.
 * One RAM operation per comparison against the pivot, per insertion step and per sift level. */
#include "algos/cpu/cpu-algo.h"

#define INTRO_CUTOFF 16

static inline void
swap_cells (guint64 *a, guint64 i, guint64 j, MdlRecorder *rec)
{
  guint64 t = a[i];
  (void) rec;
  a[i] = a[j];
  a[j] = t;
  MDL_WRITE (rec, &a[i]);
  MDL_WRITE (rec, &a[j]);
}

/* The fallback: heapsort of a[lo..hi-1] with a max-heap (never taken on random inputs); children
 * below the first level are dependent loads, as in heap.c. */
static void
sift_max (guint64 *a, guint64 n, guint64 i, MdlRecorder *rec)
{
  const guint64 top = i;
  guint64 v = a[i];
  (void) rec;
  (void) top;
  MDL_READ (rec, &a[i]);
  for (guint64 c; (c = 2 * i + 1) < n; i = c)
    {
      MDL_OPS (rec, 1);
      MDL_READ_DEP (rec, &a[c], i != top);
      if (c + 1 < n)
        {
          MDL_READ_DEP (rec, &a[c + 1], i != top);
          c += a[c + 1] > a[c];
        }
      if (MDL_BRANCH (rec, a[c] <= v))
        break;
      a[i] = a[c];
      MDL_WRITE (rec, &a[i]);
    }
  a[i] = v;
  MDL_WRITE (rec, &a[i]);
}

static void
heapsort_range (guint64 *a, guint64 n, MdlRecorder *rec)
{
  for (guint64 i = n / 2; i > 0; i--)
    sift_max (a, n, i - 1, rec);
  for (guint64 end = n - 1; end > 0; end--)
    {
      MDL_READ (rec, &a[0]);
      MDL_READ (rec, &a[end]);
      MDL_OPS (rec, 1);
      swap_cells (a, 0, end, rec);
      sift_max (a, end, 0, rec);
    }
}

/* Moves the median of a[x], a[y], a[z] to a[lo]. */
static void
median_to_front (guint64 *a, guint64 lo, guint64 x, guint64 y, guint64 z, MdlRecorder *rec)
{
  guint64 m;
  MDL_READ (rec, &a[x]);
  MDL_READ (rec, &a[y]);
  MDL_READ (rec, &a[z]);
  MDL_OPS (rec, 1);
  if (a[x] < a[y])
    m = a[y] < a[z] ? y : (a[x] < a[z] ? z : x);
  else
    m = a[x] < a[z] ? x : (a[y] < a[z] ? z : y);
  MDL_READ (rec, &a[lo]);
  swap_cells (a, lo, m, rec);
}

/* Partitions a[lo+1..hi-1] around the pivot a[lo]; returns the cut: a[lo..cut-1] <= pivot <=
 * a[cut..hi-1]. Why the scans stay in range: the other two median candidates, one no larger and
 * one no smaller than the pivot, lie in the range, and after each swap the swapped elements stop
 * the next scans; the right scan also stops at the pivot itself. */
static guint64
partition (guint64 *a, guint64 lo, guint64 hi, MdlRecorder *rec)
{
  guint64 pivot = a[lo], i = lo + 1, j = hi;
  for (;;)
    {
      MDL_READ (rec, &a[i]);
      MDL_OPS (rec, 1);
      while (MDL_BRANCH (rec, a[i] < pivot))
        {
          i++;
          MDL_READ (rec, &a[i]);
          MDL_OPS (rec, 1);
        }
      j--;
      MDL_READ (rec, &a[j]);
      MDL_OPS (rec, 1);
      while (MDL_BRANCH (rec, pivot < a[j]))
        {
          j--;
          MDL_READ (rec, &a[j]);
          MDL_OPS (rec, 1);
        }
      if (i >= j)
        return i;
      swap_cells (a, i, j, rec);
      i++;
    }
}

static void
intro_loop (guint64 *a, guint64 lo, guint64 hi, guint depth_limit, MdlRecorder *rec)
{
  while (hi - lo > INTRO_CUTOFF)
    {
      guint64 cut;
      if (depth_limit == 0)
        {
          heapsort_range (a + lo, hi - lo, rec);
          return;
        }
      depth_limit--;
      median_to_front (a, lo, lo + 1, lo + (hi - lo) / 2, hi - 1, rec);
      cut = partition (a, lo, hi, rec);
      intro_loop (a, cut, hi, depth_limit, rec);
      hi = cut;
    }
}

static void
insertion_sort (guint64 *a, guint64 n, MdlRecorder *rec)
{
  (void) rec;
  for (guint64 i = 1; i < n; i++)
    {
      guint64 v = a[i], j = i;
      MDL_READ (rec, &a[i]);
      MDL_OPS (rec, 1);
      for (; j > 0; j--)
        {
          MDL_READ (rec, &a[j - 1]);
          if (MDL_BRANCH (rec, a[j - 1] <= v))
            break;
          MDL_OPS (rec, 1);
          a[j] = a[j - 1];
          MDL_WRITE (rec, &a[j]);
        }
      if (j != i)
        {
          a[j] = v;
          MDL_WRITE (rec, &a[j]);
        }
    }
}

static void
introsort (guint64 *a, guint64 n, MdlRecorder *rec)
{
  MDL_PHASE_BEGIN (rec, "partition");
  intro_loop (a, 0, n, 2 * (guint) g_bit_nth_msf (n, -1), rec);
  MDL_PHASE_END (rec, "partition");
  MDL_PHASE_BEGIN (rec, "insertion");
  insertion_sort (a, n, rec);
  MDL_PHASE_END (rec, "insertion");
}

static const MdlAlgoInPlace introsort_row = { "quicksort/intro", introsort, mdl_algo_check_sorted };

MDL_ALGO_DEFINE_VARIANT (quicksort_intro, mdl_algo_in_place, &introsort_row)
