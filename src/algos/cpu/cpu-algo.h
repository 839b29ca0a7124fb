/* Private: what every CPU algorithm file shares. Each file under src/algos/cpu/ is compiled twice:
 * instrumented, defining NAME_run, and with MDL_NATIVE, defining NAME_native (the MDL_* macros of
 * record.h then expand to nothing). src/algos/algos.c lists both entry points. */
#ifndef MDL_CPU_ALGO_H
#define MDL_CPU_ALGO_H

#include <models/algo.h>
#include <models/error.h>
#include <models/record.h>

#include "core/splitmix.h"

#include <time.h>

#ifdef MDL_NATIVE
#define MDL_ALGO_ENTRY(name) mdl_algo_##name##_native
#else
#define MDL_ALGO_ENTRY(name) mdl_algo_##name##_run
#endif

#define MDL_ALGO_DECLARE(name)                                                                     \
  gboolean mdl_algo_##name##_run (const MdlParams *, guint64, guint64, MdlRecorder *, guint64 *,   \
                                  GError **);                                                      \
  gboolean mdl_algo_##name##_native (const MdlParams *, guint64, guint64, MdlRecorder *,           \
                                     guint64 *, GError **);                                        \
  gboolean mdl_algo_##name##_timed (const MdlParams *, guint64, guint64, guint64 *, double *,      \
                                    GError **)

/* The CPU algorithms, one row each: X (SYM, NAME, PARAMS, SUMMARY) for the algorithm NAME whose
 * file defines the entry points mdl_algo_SYM_run, _native and _timed; PARAMS is one of the
 * parameter tables of src/algos/algos.c (page_params, search_params, sort_params). The registry's
 * rows and the declarations below come from this list. Adding a CPU algorithm: its file and a row
 * here. */
#define MDL_CPU_ALGOS(X)                                                                           \
  X (scan_seq, "scan/seq", page_params, "sequential scan: sum of A[i], 8-byte elements")           \
  X (scan_random, "scan/random", page_params,                                                      \
     "random scan: sum of A[pi(i)] for a random permutation pi")                                  \
  X (permute, "permute/fisher-yates", page_params,                                                 \
     "Fisher-Yates shuffle in place: swap A[j] with a random A[0..j]")                            \
  X (binsearch_sorted, "binsearch/sorted", search_params,                                          \
     "n binary searches for random keys of a sorted array")                                       \
  X (binsearch_veb, "binsearch/veb", search_params,                                                \
     "the same searches in a search tree in van Emde Boas layout")                                \
  X (heap_heapify, "heap/heapify", page_params, "bottom-up construction of a binary min-heap")     \
  X (heap_sort, "heap/sort", page_params, "heapsort, phases build and extract")                    \
  X (quicksort_intro, "quicksort/intro", page_params,                                              \
     "introsort: median-of-3 quicksort, heapsort fallback, final insertion sort")                 \
  X (mergesort_bottom_up, "mergesort/bottom-up", page_params,                                      \
     "bottom-up merge sort between two arrays")                                                    \
  X (transpose_rows, "transpose/rows", page_params,                                                \
     "N x N transpose row by row, N = floor(sqrt(n))")                                            \
  X (transpose_recursive, "transpose/recursive", page_params,                                      \
     "N x N transpose in cache-oblivious order")                                                   \
  X (matmul_naive, "matmul/naive", page_params,                                                    \
     "N x N integer matrix product, i-j-k loops, N = floor(sqrt(n))")                             \
  X (matmul_recursive, "matmul/recursive", page_params,                                            \
     "N x N integer matrix product, recursive halving")                                           \
  X (sort_qsort, "sort/qsort", sort_params,                                                        \
     "libc qsort of n 32-bit keys (dist=, keys=u32|f32), the GPU sorts' inputs")                  \
  X (sort_introsort, "sort/introsort", sort_params,                                                \
     "tuned C introsort of n 32-bit keys (dist=, keys=u32|f32), the GPU sorts' inputs")

#define MDL_CPU_ALGO_DECLARE(sym, name, params, summary) MDL_ALGO_DECLARE (sym);
MDL_CPU_ALGOS (MDL_CPU_ALGO_DECLARE)

/* The timer of the native build's timed entry point: the algorithm proper runs between
 * mdl_algo_timer_start() and mdl_algo_timer_stop(); both do nothing on a NULL timer, which is what
 * the instrumented build and the untimed native entry point pass. */
typedef struct {
  guint64 start_ns;
  guint64 elapsed_ns;
} MdlAlgoTimer;

static inline guint64
mdl_algo_clock_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (guint64) ts.tv_sec * 1000000000u + (guint64) ts.tv_nsec;
}

/* Makes the compiler assume the memory behind @p may be read or written here: the arrays escape
 * before the clock starts, so that no load or store of the algorithm can move across the (opaque)
 * clock calls. */
#define MDL_ALGO_ESCAPE(p) __asm__ volatile ("" : : "r" (p) : "memory")

static inline void
mdl_algo_timer_start (MdlAlgoTimer *t)
{
  if (t)
    t->start_ns = mdl_algo_clock_ns ();
}

static inline void
mdl_algo_timer_stop (MdlAlgoTimer *t)
{
  if (t)
    t->elapsed_ns = mdl_algo_clock_ns () - t->start_ns;
}

/* The body every algorithm file writes once: REC is NULL in the native build, TIMER NULL except in
 * the timed entry point. */
typedef gboolean (*MdlAlgoBody) (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec,
                                 MdlAlgoTimer *timer, guint64 *checksum, GError **error);

/* Defines the entry points of algorithm NAME from BODY: NAME_run in the instrumented build,
 * NAME_native and NAME_timed in the native one. */
#ifdef MDL_NATIVE
#define MDL_ALGO_DEFINE(name, body)                                                                \
  gboolean mdl_algo_##name##_native (const MdlParams *params, guint64 n, guint64 seed,              \
                                     MdlRecorder *rec, guint64 *checksum, GError **error)          \
  {                                                                                                \
    (void) rec;                                                                                    \
    return body (params, n, seed, NULL, NULL, checksum, error);                                    \
  }                                                                                                \
  gboolean mdl_algo_##name##_timed (const MdlParams *params, guint64 n, guint64 seed,               \
                                    guint64 *checksum, double *seconds, GError **error)            \
  {                                                                                                \
    MdlAlgoTimer timer = { 0, 0 };                                                                 \
    gboolean ok = body (params, n, seed, NULL, &timer, checksum, error);                           \
    *seconds = (double) timer.elapsed_ns * 1e-9;                                                   \
    return ok;                                                                                     \
  }
#else
#define MDL_ALGO_DEFINE(name, body)                                                                \
  gboolean mdl_algo_##name##_run (const MdlParams *params, guint64 n, guint64 seed,                 \
                                  MdlRecorder *rec, guint64 *checksum, GError **error)             \
  {                                                                                                \
    return body (params, n, seed, rec, NULL, checksum, error);                                     \
  }
#endif

/* Defines algorithm NAME as one VARIANT of a body that several algorithms of a file share: BODY
 * takes the variant after the timer, BODY (params, n, seed, rec, timer, VARIANT, checksum,
 * error). */
#define MDL_ALGO_DEFINE_VARIANT(name, body, variant)                                               \
  static gboolean                                                                                  \
  name##_variant (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec,              \
                  MdlAlgoTimer *timer, guint64 *checksum, GError **error)                          \
  {                                                                                                \
    return body (params, n, seed, rec, timer, variant, checksum, error);                           \
  }                                                                                                \
  MDL_ALGO_DEFINE (name, name##_variant)

/* A uniform draw from 0..bound-1 (bound >= 1): the high half of a 64x64-bit product, which has no
 * division and a bias below bound/2^64. */
static inline guint64
mdl_algo_below (guint64 *state, guint64 bound)
{
  return (guint64) (((unsigned __int128) mdl_splitmix64 (state) * bound) >> 64);
}

/* Fills @a with @n seeded 48-bit values (duplicates are possible and allowed). */
static inline void
mdl_algo_fill_random (guint64 *a, guint64 n, guint64 seed)
{
  guint64 state = seed;
  for (guint64 i = 0; i < n; i++)
    a[i] = mdl_splitmix64 (&state) >> 16;
}

/* An order-independent fingerprint of the multiset of @a's values: a sum of mixed values, so that a
 * sort or a permutation keeps it and losing or duplicating an element changes it (but for a 2^-64
 * chance). */
static inline guint64
mdl_algo_multiset (const guint64 *a, guint64 n)
{
  guint64 sum = 0;
  for (guint64 i = 0; i < n; i++)
    {
      guint64 v = a[i] + 0x9E3779B97F4A7C15ull;
      v = (v ^ (v >> 31)) * 0xD6E8FEB86659FD93ull;
      sum += v ^ (v >> 32);
    }
  return sum;
}

/* TRUE when @a holds the elements whose fingerprint mdl_algo_multiset() gave before the run;
 * else a MDL_ERROR_MODEL naming algorithm @name. */
static inline gboolean
mdl_algo_check_same (const char *name, const guint64 *a, guint64 n, guint64 fingerprint,
                     GError **error)
{
  if (mdl_algo_multiset (a, n) == fingerprint)
    return TRUE;
  g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "%s: the result does not hold the input's "
               "elements (multiset fingerprints differ)", name);
  return FALSE;
}

/* TRUE when @a is the input of @fingerprint in ascending order; else a MDL_ERROR_MODEL naming
 * algorithm @name and the first pair out of order. */
static inline gboolean
mdl_algo_check_sorted (const char *name, const guint64 *a, guint64 n, guint64 fingerprint,
                       GError **error)
{
  for (guint64 i = 1; i < n; i++)
    if (a[i - 1] > a[i])
      {
        g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "%s: A[%" G_GUINT64_FORMAT "] > A[%"
                     G_GUINT64_FORMAT "]: not sorted", name, i - 1, i);
        return FALSE;
      }
  return mdl_algo_check_same (name, a, n, fingerprint, error);
}

/* A checksum that depends on every element and its position: sum of a[i] * (2i+1). */
static inline guint64
mdl_algo_weighted_sum (const guint64 *a, guint64 n)
{
  guint64 sum = 0;
  for (guint64 i = 0; i < n; i++)
    sum += a[i] * (2 * i + 1);
  return sum;
}

/* floor(sqrt(n)): the side of the largest square matrix of at most @n elements. */
static inline guint64
mdl_algo_isqrt (guint64 n)
{
  guint64 r = 0;
  for (guint64 bit = G_GUINT64_CONSTANT (1) << 31; bit; bit >>= 1)
    if ((r + bit) * (r + bit) <= n)
      r += bit;
  return r;
}

/* The `pages` parameter every algorithm of src/algos/cpu takes (a row of its table). */
#define MDL_ALGO_PAGES_ROW                                                                         \
  { "pages", MDL_PARAM_CHOICE, "default", NULL, 0, 0, "default|4k|huge", 0,                        \
    "page size of the arrays: default (as malloc gives), 4k (transparent huge pages refused), "    \
    "huge (2 MiB-aligned, transparent huge pages requested with madvise)" }

/* Sets the error mdl_algo_alloc() sets for @n elements of @elem_bytes, without allocating: for a
 * size an algorithm refuses before allocating (a matrix or tree that could not be indexed). */
void mdl_algo_size_error (guint64 n, gsize elem_bytes, const char *what, GError **error);

/* Allocates @n elements of @elem_bytes for algorithm @params (its `pages` row says how), or sets
 * MDL_ERROR_PARAM naming the size (MDL_ERROR_UNSUPPORTED when pages=huge or 4k cannot be had on
 * this system), and maps the array in @rec (NULL in the native build: mdl_recorder_map()), so that
 * its recorded addresses do not depend on the allocator. Free with g_free(). src/algos/pages.c. */
void *mdl_algo_alloc_pages (MdlRecorder *rec, const MdlParams *params, guint64 n, gsize elem_bytes,
                            const char *what, GError **error);

/* Allocates @n elements of @elem_bytes, mapped in @rec as above, or sets MDL_ERROR_PARAM naming
 * the size. */
void *mdl_algo_alloc (MdlRecorder *rec, guint64 n, gsize elem_bytes, const char *what,
                      GError **error);

/* One of the @count N x N matrices of a matrix algorithm, N = floor(sqrt(n)), allocated for
 * algorithm @params; NULL with @error set when @count such matrices could not be indexed or this
 * one cannot be had. */
static inline guint64 *
mdl_algo_alloc_matrix (MdlRecorder *rec, const MdlParams *params, guint64 n, guint count,
                       const char *what, GError **error)
{
  guint64 side = mdl_algo_isqrt (n);
  if (n > G_MAXSIZE / (count * sizeof (guint64)))
    {
      mdl_algo_size_error (n, sizeof (guint64), "array", error);
      return NULL;
    }
  return mdl_algo_alloc_pages (rec, params, side * side, sizeof (guint64), what, error);
}

/* The input of the sorts and heaps: @n seeded random elements (mdl_algo_fill_random) in an array
 * allocated for algorithm @params, with their multiset fingerprint in *fingerprint; NULL with
 * @error set when the array cannot be had. */
static inline guint64 *
mdl_algo_random_input (MdlRecorder *rec, const MdlParams *params, guint64 n, guint64 seed,
                       guint64 *fingerprint, GError **error)
{
  guint64 *a = mdl_algo_alloc_pages (rec, params, n, sizeof *a, "array", error);
  if (a)
    {
      mdl_algo_fill_random (a, n, seed);
      *fingerprint = mdl_algo_multiset (a, n);
    }
  return a;
}

/* An algorithm that rearranges a random array in place (a sort, a heap construction): its name,
 * its run over the array (which marks its own phases) and the check of the result, given the
 * input's fingerprint. A file lists its rows and defines each algorithm with
 * MDL_ALGO_DEFINE_VARIANT (NAME, mdl_algo_in_place, &ROW). */
typedef struct {
  const char *name;
  void (*run) (guint64 *a, guint64 n, MdlRecorder *rec);
  gboolean (*check) (const char *name, const guint64 *a, guint64 n, guint64 fingerprint,
                     GError **error);
} MdlAlgoInPlace;

/* The body of every MdlAlgoInPlace: the random input (mdl_algo_random_input), the timed run, the
 * checksum of the result (mdl_algo_weighted_sum) and its check. */
static inline gboolean
mdl_algo_in_place (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec,
                   MdlAlgoTimer *timer, const MdlAlgoInPlace *algo, guint64 *checksum,
                   GError **error)
{
  guint64 fingerprint = 0;
  g_autofree guint64 *a = mdl_algo_random_input (rec, params, n, seed, &fingerprint, error);
  if (a == NULL)
    return FALSE;
  MDL_ALGO_ESCAPE (a);
  mdl_algo_timer_start (timer);
  algo->run (a, n, rec);
  mdl_algo_timer_stop (timer);
  *checksum = mdl_algo_weighted_sum (a, n);
  return algo->check (algo->name, a, n, fingerprint, error);
}

#endif
