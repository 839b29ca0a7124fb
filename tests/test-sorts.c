/* Tests of the CPU sorts of the GPU sorts' inputs: the tuned introsort of src/algos/introsort.h
 * (u32 and f32, and its heapsort fallback on its own) against a slow, obviously correct insertion
 * sort, over every distribution of src/algos/keys.h and odd sizes around the insertion cutoff; and
 * the registry's sort/qsort and sort/introsort (src/algos/cpu/sort.c) run natively and
 * instrumented, with the instrumented introsort's accesses counted by hand on two keys. */
#include "helpers.h"

#include "algos/introsort.h"
#include "algos/keys.h"

#include <models/algo.h>

#include <string.h>

/* Sizes: empty, tiny, around the cutoff of 16, odd ones past it, and one that partitions deeply. */
static const guint64 sizes[] = { 0, 1, 2, 3, 7, 15, 16, 17, 31, 33, 100, 257, 1000, 4097 };

/* The reference: straight insertion sort, one adjacent swap at a time. */
static void
slow_sort_u32 (uint32_t *a, guint64 n)
{
  for (guint64 i = 1; i < n; i++)
    for (guint64 j = i; j > 0 && a[j - 1] > a[j]; j--)
      {
        uint32_t t = a[j];
        a[j] = a[j - 1];
        a[j - 1] = t;
      }
}

static void
slow_sort_f32 (float *a, guint64 n)
{
  for (guint64 i = 1; i < n; i++)
    for (guint64 j = i; j > 0 && a[j - 1] > a[j]; j--)
      {
        float t = a[j];
        a[j] = a[j - 1];
        a[j - 1] = t;
      }
}

/* Ensure the introsort sorts every distribution at every size, as 32-bit integers and as floats,
 * exactly as the insertion sort does. */
static void
test_introsort_matches_slow_sort (void **state)
{
  guint32 seed = test_seed (13);
  (void) state;
  for (int d = 0; d < (int) MDL_KEYS_N_DISTS; d++)
    for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
      {
        guint64 n = sizes[s];
        g_autofree uint32_t *a = g_new (uint32_t, n + 1), *want = g_new (uint32_t, n + 1);
        g_autofree float *f = g_new (float, n + 1), *fwant = g_new (float, n + 1);
        assert_int_equal (mdl_keys_fill (a, n, (MdlKeyDist) d, seed + s), 1);
        for (guint64 i = 0; i < n; i++)
          f[i] = mdl_keys_float (a[i]);
        memcpy (want, a, n * sizeof *a);
        memcpy (fwant, f, n * sizeof *f);
        slow_sort_u32 (want, n);
        slow_sort_f32 (fwant, n);
        mdl_introsort_u32 (a, n, NULL);
        mdl_introsort_f32 (f, n, NULL);
        for (guint64 i = 0; i < n; i++)
          if (a[i] != want[i] || f[i] != fwant[i])
            fail_msg ("seed %u: dist %d, n=%" G_GUINT64_FORMAT ": key %" G_GUINT64_FORMAT
                      " is %u / %g, the slow sort has %u / %g", seed, d, n, i, a[i], f[i],
                      want[i], fwant[i]);
      }
}

/* Ensure the heapsort fallback, which random inputs never reach, sorts on its own, and that an
 * organ-pipe input (ascending then descending) is sorted. */
static void
test_heapsort_fallback_and_organ_pipe (void **state)
{
  (void) state;
  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      guint64 n = sizes[s];
      g_autofree uint32_t *a = g_new (uint32_t, n + 1), *b = g_new (uint32_t, n + 1);
      g_autofree uint32_t *want = g_new (uint32_t, n + 1);
      assert_int_equal (mdl_keys_fill (a, n, MDL_KEYS_FEW, s), 1);
      for (guint64 i = 0; i < n; i++)
        b[i] = (uint32_t) (i < n / 2 ? i : n - i);
      memcpy (want, a, n * sizeof *a);
      slow_sort_u32 (want, n);
      mdl_introsort_heapsort_u32 (a, n, NULL);
      assert_memory_equal (a, want, n * sizeof *a);
      memcpy (want, b, n * sizeof *b);
      slow_sort_u32 (want, n);
      mdl_introsort_u32 (b, n, NULL);
      assert_memory_equal (b, want, n * sizeof *b);
    }
}

/* Ensure the depth limit is 2 floor(log2 n). */
static void
test_depth_limit (void **state)
{
  (void) state;
  assert_int_equal (mdl_introsort_depth (0), 0);
  assert_int_equal (mdl_introsort_depth (1), 0);
  assert_int_equal (mdl_introsort_depth (2), 2);
  assert_int_equal (mdl_introsort_depth (17), 8);
  assert_int_equal (mdl_introsort_depth (1u << 20), 40);
}

/* The native checksum of @spec at @n: sum of key[i] * (2i+1) over the sorted keys (as bits). */
static guint64
native_checksum (const char *spec, guint64 n, guint64 seed)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *name = NULL;
  g_auto (GStrv) assigns = NULL;
  g_autoptr (MdlParams) params = NULL;
  const MdlAlgo *algo;
  guint64 sum = 0;
  if (!mdl_spec_split (spec, &name, &assigns, &error) || !(algo = mdl_algo_lookup (name, &error))
      || !(params = mdl_params_parse (name, algo->params, (const char *const *) assigns, &error))
      || !algo->run_native (params, n, seed, NULL, &sum, &error))
    fail_msg ("%s, n=%" G_GUINT64_FORMAT ": %s", spec, n, error->message);
  return sum;
}

/* Ensure sort/qsort and sort/introsort, run natively on every distribution and key type at odd
 * sizes, pass their own check and give the checksum of the slow sort's result. */
static void
test_registry_sorts_match_slow_sort (void **state)
{
  static const guint64 ns[] = { 1, 17, 1000, 4097 };
  (void) state;
  for (int d = 0; d < (int) MDL_KEYS_N_DISTS; d++)
    for (int f = 0; f < 2; f++)
      for (guint s = 0; s < G_N_ELEMENTS (ns); s++)
        {
          guint64 n = ns[s], want = 0;
          g_autofree uint32_t *a = g_new (uint32_t, n);
          g_autofree char *q = NULL, *intro = NULL;
          g_auto (GStrv) names = g_strsplit (MDL_KEY_DIST_CHOICES, "|", -1);
          assert_int_equal (mdl_keys_fill_typed (a, n, (MdlKeyDist) d, 5, f), 1);
          if (f)
            slow_sort_f32 ((float *) a, n);
          else
            slow_sort_u32 (a, n);
          for (guint64 i = 0; i < n; i++)
            want += (guint64) a[i] * (2 * i + 1);
          q = g_strdup_printf ("sort/qsort:dist=%s,keys=%s", names[d], f ? "f32" : "u32");
          intro = g_strdup_printf ("sort/introsort:dist=%s,keys=%s", names[d], f ? "f32" : "u32");
          /* Float special keys hold -0 and +0, which a comparison sort may put either way: the
           * runs' own check (by value) must pass, their checksums may differ from the slow
           * sort's. */
          if (f && d == MDL_KEYS_SPECIAL)
            {
              native_checksum (q, n, 5);
              native_checksum (intro, n, 5);
              continue;
            }
          assert_int_equal (native_checksum (q, n, 5), want);
          assert_int_equal (native_checksum (intro, n, 5), want);
        }
}

/* Ensure the instrumented introsort records what it touches, counted by hand for two keys: in
 * order, the insertion step reads a[1] and a[0] (one comparison) and writes a[1] back; reversed,
 * it also moves a[0] up (reads 2, writes 2). */
static void
test_instrumented_counts_by_hand (void **state)
{
  static const struct {
    const char *spec;
    guint64 reads, writes, ops;
  } rows[] = {
    { "sort/introsort:dist=sorted", 2, 1, 1 },
    { "sort/introsort:dist=reverse", 2, 2, 1 },
    { "sort/introsort:dist=reverse,keys=f32", 2, 2, 1 },
  };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (MdlReport) r = NULL;
      guint64 sum = 0;
      /* the keys of seed 3 are distinct, so "reverse" is strictly descending */
      r = test_run_algo (rows[i].spec, 2, 3, "count", &sum);
      if (test_report_count (r, "cpu_reads") != rows[i].reads
          || test_report_count (r, "cpu_writes") != rows[i].writes
          || test_report_count (r, "ram_ops") != rows[i].ops)
        fail_msg ("%s: reads %" G_GUINT64_FORMAT ", writes %" G_GUINT64_FORMAT ", ops %"
                  G_GUINT64_FORMAT, rows[i].spec, test_report_count (r, "cpu_reads"),
                  test_report_count (r, "cpu_writes"), test_report_count (r, "ram_ops"));
    }
}

/* Ensure the instrumented qsort records two key reads and one operation per comparison and no
 * write. How many comparisons libc makes is libc's (a sanitizer's qsort interceptor adds its own),
 * so only that ratio, and at least the one comparison two keys need, are checked. */
static void
test_instrumented_qsort_records_comparisons (void **state)
{
  static const char *const specs[] = { "sort/qsort:dist=sorted", "sort/qsort:dist=reverse,keys=f32",
                                       "sort/qsort:dist=few" };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (specs); i++)
    for (guint64 n = 2; n <= 1000; n *= 10)
      {
        g_autoptr (MdlReport) r = test_run_algo (specs[i], n, 3, "count", NULL);
        guint64 ops = test_report_count (r, "ram_ops");
        if (ops < n - 1 || test_report_count (r, "cpu_reads") != 2 * ops
            || test_report_count (r, "cpu_writes") != 0)
          fail_msg ("%s n=%" G_GUINT64_FORMAT ": reads %" G_GUINT64_FORMAT ", writes %"
                    G_GUINT64_FORMAT ", ops %" G_GUINT64_FORMAT, specs[i], n,
                    test_report_count (r, "cpu_reads"), test_report_count (r, "cpu_writes"), ops);
      }
}

/* Ensure a bad distribution or key type is refused with the choices named. */
static void
test_bad_parameters (void **state)
{
  static const char *const bad[][2] = {
    { "dist=normal", "normal" },
    { "keys=u64", "u64" },
  };
  const MdlAlgo *algo = mdl_algo_lookup ("sort/introsort", NULL);
  (void) state;
  assert_non_null (algo);
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      const char *assigns[] = { bad[i][0], NULL };
      GError *error = NULL;
      assert_null (mdl_params_parse (algo->name, algo->params, assigns, &error));
      assert_mdl_error (error, MDL_ERROR_PARAM, bad[i][1]);
    }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_introsort_matches_slow_sort),
    cmocka_unit_test (test_heapsort_fallback_and_organ_pipe),
    cmocka_unit_test (test_depth_limit),
    cmocka_unit_test (test_registry_sorts_match_slow_sort),
    cmocka_unit_test (test_instrumented_counts_by_hand),
    cmocka_unit_test (test_instrumented_qsort_records_comparisons),
    cmocka_unit_test (test_bad_parameters),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
