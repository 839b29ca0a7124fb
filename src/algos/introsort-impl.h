/* Private to src/algos/introsort.h, which includes it once per key type with MDL_INTROSORT_KEY
 * (the type) and MDL_INTROSORT_FN (stem) (the function names) defined: the introsort's body,
 * written once for both key types. No include guard on purpose. */

#define KEY MDL_INTROSORT_KEY

/* Sorts a[0..n-1] by straight insertion. */
static inline void
MDL_INTROSORT_FN (mdl_introsort_insertion) (KEY *a, size_t n, void *rec)
{
  for (size_t i = 1; i < n; i++)
    {
      KEY v = a[i];
      size_t j = i;
      MDL_INTROSORT_READ (rec, &a[i]);
      for (; j > 0; j--)
        {
          MDL_INTROSORT_READ (rec, &a[j - 1]);
          MDL_INTROSORT_OPS (rec, 1);
          if (!(v < a[j - 1]))
            break;
          a[j] = a[j - 1];
          MDL_INTROSORT_WRITE (rec, &a[j]);
        }
      a[j] = v;
      MDL_INTROSORT_WRITE (rec, &a[j]);
    }
}

/* Sifts a[i] down the max-heap a[0..n-1]. */
static inline void
MDL_INTROSORT_FN (mdl_introsort_sift) (KEY *a, size_t n, size_t i, void *rec)
{
  KEY v = a[i];
  MDL_INTROSORT_READ (rec, &a[i]);
  for (size_t c; (c = 2 * i + 1) < n; i = c)
    {
      MDL_INTROSORT_READ (rec, &a[c]);
      MDL_INTROSORT_OPS (rec, 1);
      if (c + 1 < n)
        {
          MDL_INTROSORT_READ (rec, &a[c + 1]);
          c += a[c] < a[c + 1];
        }
      if (!(v < a[c]))
        break;
      a[i] = a[c];
      MDL_INTROSORT_WRITE (rec, &a[i]);
    }
  a[i] = v;
  MDL_INTROSORT_WRITE (rec, &a[i]);
}

/* Sorts a[0..n-1] by heapsort: the fallback of a range that partitions badly. */
static inline void
MDL_INTROSORT_FN (mdl_introsort_heapsort) (KEY *a, size_t n, void *rec)
{
  for (size_t i = n / 2; i > 0; i--)
    MDL_INTROSORT_FN (mdl_introsort_sift) (a, n, i - 1, rec);
  for (size_t end = n; end > 1; end--)
    {
      KEY t = a[0];
      MDL_INTROSORT_READ (rec, &a[end - 1]);
      a[0] = a[end - 1];
      a[end - 1] = t;
      MDL_INTROSORT_WRITE (rec, &a[0]);
      MDL_INTROSORT_WRITE (rec, &a[end - 1]);
      MDL_INTROSORT_FN (mdl_introsort_sift) (a, end - 1, 0, rec);
    }
}

/* Swaps a[i] and a[j] when a[j] < a[i]. */
static inline void
MDL_INTROSORT_FN (mdl_introsort_order) (KEY *a, size_t i, size_t j, void *rec)
{
  MDL_INTROSORT_READ (rec, &a[i]);
  MDL_INTROSORT_READ (rec, &a[j]);
  MDL_INTROSORT_OPS (rec, 1);
  if (a[j] < a[i])
    {
      KEY t = a[i];
      a[i] = a[j];
      a[j] = t;
      MDL_INTROSORT_WRITE (rec, &a[i]);
      MDL_INTROSORT_WRITE (rec, &a[j]);
    }
}

/* Sorts a[0..n-1], heapsorting once @depth more partitioning levels have passed. */
static inline void
MDL_INTROSORT_FN (mdl_introsort_levels) (KEY *a, size_t n, unsigned depth, void *rec)
{
  while (n > MDL_INTROSORT_CUTOFF)
    {
      size_t mid = n / 2, i = 0, j = n - 1;
      KEY pivot;
      if (depth-- == 0)
        {
          MDL_INTROSORT_FN (mdl_introsort_heapsort) (a, n, rec);
          return;
        }
      /* a[0] <= a[mid] <= a[n-1]: the pivot is their median, and the two ends stop the scans. */
      MDL_INTROSORT_FN (mdl_introsort_order) (a, 0, mid, rec);
      MDL_INTROSORT_FN (mdl_introsort_order) (a, mid, n - 1, rec);
      MDL_INTROSORT_FN (mdl_introsort_order) (a, 0, mid, rec);
      pivot = a[mid];
      /* Hoare's scans over a[1..n-2]; keys equal to the pivot stop both scans and are swapped,
       * which splits a run of equal keys in the middle (no quadratic case on "zero"). */
      for (;;)
        {
          do
            {
              i++;
              MDL_INTROSORT_READ (rec, &a[i]);
              MDL_INTROSORT_OPS (rec, 1);
            }
          while (a[i] < pivot);
          do
            {
              j--;
              MDL_INTROSORT_READ (rec, &a[j]);
              MDL_INTROSORT_OPS (rec, 1);
            }
          while (pivot < a[j]);
          if (i >= j)
            break;
          {
            KEY t = a[i];
            a[i] = a[j];
            a[j] = t;
            MDL_INTROSORT_WRITE (rec, &a[i]);
            MDL_INTROSORT_WRITE (rec, &a[j]);
          }
        }
      /* Why: a[0..j] <= pivot <= a[j+1..n-1], and both parts are shorter than n. */
      if (j + 1 < n - j - 1)
        {
          MDL_INTROSORT_FN (mdl_introsort_levels) (a, j + 1, depth, rec);
          a += j + 1;
          n -= j + 1;
        }
      else
        {
          MDL_INTROSORT_FN (mdl_introsort_levels) (a + j + 1, n - j - 1, depth, rec);
          n = j + 1;
        }
    }
  MDL_INTROSORT_FN (mdl_introsort_insertion) (a, n, rec);
}

/* Sorts a[0..n-1] ascending (see introsort.h). */
static inline void
MDL_INTROSORT_FN (mdl_introsort) (KEY *a, size_t n, void *rec)
{
  MDL_INTROSORT_FN (mdl_introsort_levels) (a, n, mdl_introsort_depth (n), rec);
}

#undef KEY
