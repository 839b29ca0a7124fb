/* The CPU sorts of the GPU sorts' inputs (issue 13): n 32-bit keys of a distribution of
 * src/algos/keys.h (dist=), as unsigned integers or floats (keys=u32|f32, the floats
 * mdl_keys_f32_bits of the integers), sorted ascending by libc qsort (sort/qsort) or by the tuned C
 * introsort of src/algos/introsort.h (sort/introsort), the same code that the CUDA harness times
 * on the GPU machine's host (baseline/qsort-sort, baseline/introsort-sort). The input is drawn and
 * a copy kept before the clock starts; the result is checked sorted and a permutation of the input
 * against keys.h's reference (float keys by value against the floats in totalOrder, so that a
 * comparison sort may put -0 and +0 either way).
 * Instrumented, the introsort records every key it reads or writes and one RAM operation per
 * comparison; qsort records the two keys of each comparison only (libc's moves are out of
 * sight). */
#define _GNU_SOURCE   /* qsort_r */

#include "algos/cpu/cpu-algo.h"

#include "algos/keys.h"

#include <stdlib.h>
#include <string.h>

/* The introsort's accesses, recorded in the instrumented build (rec is the MdlRecorder). */
#define MDL_INTROSORT_READ(rec, p) ((void) (rec), MDL_READ ((MdlRecorder *) (rec), (p)))
#define MDL_INTROSORT_WRITE(rec, p) ((void) (rec), MDL_WRITE ((MdlRecorder *) (rec), (p)))
#define MDL_INTROSORT_OPS(rec, k) ((void) (rec), MDL_OPS ((MdlRecorder *) (rec), (k)))
#include "algos/introsort.h"

typedef enum { SORT_QSORT, SORT_INTROSORT } SortKind;

#ifndef MDL_NATIVE
/* qsort_r's comparators of the instrumented build: the two keys read, one operation. */
static int
cmp_u32_recorded (const void *x, const void *y, void *rec)
{
  MDL_READ ((MdlRecorder *) rec, (const uint32_t *) x);
  MDL_READ ((MdlRecorder *) rec, (const uint32_t *) y);
  MDL_OPS ((MdlRecorder *) rec, 1);
  return mdl_keys_cmp_u32 (x, y);
}

static int
cmp_f32_recorded (const void *x, const void *y, void *rec)
{
  MDL_READ ((MdlRecorder *) rec, (const float *) x);
  MDL_READ ((MdlRecorder *) rec, (const float *) y);
  MDL_OPS ((MdlRecorder *) rec, 1);
  return mdl_keys_cmp_f32 (x, y);
}
#endif

/* Sorts @keys (n of them, floats when @is_float) by @kind. */
static void
sort_keys (SortKind kind, void *keys, guint64 n, gboolean is_float, MdlRecorder *rec)
{
  if (kind == SORT_INTROSORT && is_float)
    mdl_introsort_f32 (keys, n, rec);
  else if (kind == SORT_INTROSORT)
    mdl_introsort_u32 (keys, n, rec);
  else
    {
#ifdef MDL_NATIVE
      (void) rec;
      qsort (keys, n, 4, is_float ? mdl_keys_cmp_f32 : mdl_keys_cmp_u32);
#else
      qsort_r (keys, n, 4, is_float ? cmp_f32_recorded : cmp_u32_recorded, rec);
#endif
    }
}

static gboolean
sort_body (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec,
           MdlAlgoTimer *timer, SortKind kind, guint64 *checksum, GError **error)
{
  const char *name = kind == SORT_QSORT ? "sort/qsort" : "sort/introsort";
  MdlKeyDist dist = (MdlKeyDist) mdl_params_choice (params, "dist");
  gboolean is_float = mdl_params_choice (params, "keys") == 1;
  g_autofree uint32_t *in = NULL, *keys = NULL;
  guint64 first = 0, bad, sum = 0;

  /* Before any allocation: a request of 2^61 keys must not reach malloc. */
  if (n > G_GUINT64_CONSTANT (1) << 32)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "%s: n=%" G_GUINT64_FORMAT ": cannot allocate "
                   "the array (more than 2^32 keys, the distributions' limit)", name, n);
      return FALSE;
    }
  if (!(keys = mdl_algo_alloc_pages (rec, params, n, sizeof *keys, "array", error)))
    return FALSE;
  if (!(in = mdl_algo_alloc (rec, n, sizeof *in, "input copy", error)))
    return FALSE;
  if (!mdl_keys_fill (in, n, dist, seed))
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "%s: n=%" G_GUINT64_FORMAT ": out of memory "
                   "ordering the keys", name, n);
      return FALSE;
    }
  for (guint64 i = 0; is_float && i < n; i++)
    in[i] = mdl_keys_f32_bits (dist, in[i]);
  memcpy (keys, in, n * sizeof *keys);
  MDL_ALGO_ESCAPE (keys);
  mdl_algo_timer_start (timer);
  sort_keys (kind, keys, n, is_float, rec);
  mdl_algo_timer_stop (timer);
  for (guint64 i = 0; i < n; i++)
    sum += (guint64) keys[i] * (2 * i + 1);
  *checksum = sum;
  bad = is_float ? mdl_keys_check_f32 (in, keys, n, TRUE, &first) : mdl_keys_check (in, keys, n, &first);
  if (bad == UINT64_MAX)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "%s: n=%" G_GUINT64_FORMAT ": out of memory "
                   "checking the result", name, n);
      return FALSE;
    }
  if (bad)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "%s: %" G_GUINT64_FORMAT " of %"
                   G_GUINT64_FORMAT " keys out of place, the first at %" G_GUINT64_FORMAT, name,
                   bad, n, first);
      return FALSE;
    }
  return TRUE;
}

MDL_ALGO_DEFINE_VARIANT (sort_qsort, sort_body, SORT_QSORT)
MDL_ALGO_DEFINE_VARIANT (sort_introsort, sort_body, SORT_INTROSORT)
