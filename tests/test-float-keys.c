/* Tests of the float keys of the seed sorts (keys=f32): the map of float bits to words
 * (mdl_keys_f32_order, src/algos/keys.h) against IEEE 754's totalOrder written out value by value,
 * the "special" distribution's values, and every seed sort's SIMT twin at keys=f32 (and at u32 on
 * the special bits) on every distribution against a slow insertion sort with a comparator that
 * knows nothing of the map; NaNs (which no distribution draws) through GPU-Quicksort, whose pivot
 * run would turn keys equal to the pivot under a float compare (-0 and +0, NaNs) into the pivot. */
#include "helpers.h"

#include "algos/keys.h"
#include "algos/simt/gpu-quicksort.h"
#include "algos/simt/simt-algo.h"

#include <math.h>
#include <string.h>

/* totalOrder as a signed magnitude: negative floats (NaNs included) below every positive one,
 * more negative the larger their magnitude bits. */
static gint64
total_rank (guint32 bits)
{
  gint64 magnitude = bits & 0x7fffffffu;
  return bits >> 31 ? -magnitude - 1 : magnitude;
}

static void
slow_sort (guint32 *a, guint64 n, gboolean is_float)
{
  for (guint64 i = 1; i < n; i++)
    for (guint64 j = i; j > 0; j--)
      {
        guint32 t;
        if (is_float ? total_rank (a[j - 1]) <= total_rank (a[j]) : a[j - 1] <= a[j])
          break;
        t = a[j];
        a[j] = a[j - 1];
        a[j - 1] = t;
      }
}

/* Ensure the map orders a ladder of floats in totalOrder (-NaN, -inf, -max, -1, -min normal,
 * denormals, -0, +0, ... +NaN), agrees with the float comparison on random non-NaN pairs, and is
 * undone by mdl_keys_f32_unorder on every word tried. */
static void
test_order_is_total_order (void **state)
{
  static const guint32 ladder[] = {
    0xffffffffu, 0xffc00000u, 0xff800001u, 0xff800000u, 0xff7fffffu, 0xbf800000u, 0x80800000u,
    0x807fffffu, 0x80000001u, 0x80000000u, 0x00000000u, 0x00000001u, 0x007fffffu, 0x00800000u,
    0x3f800000u, 0x7f7fffffu, 0x7f800000u, 0x7f800001u, 0x7fc00000u, 0x7fffffffu,
  };
  guint32 seed = test_seed (13);
  g_autoptr (GRand) rng = g_rand_new_with_seed (seed);
  (void) state;
  for (gsize i = 0; i + 1 < G_N_ELEMENTS (ladder); i++)
    if (mdl_keys_f32_order (ladder[i]) >= mdl_keys_f32_order (ladder[i + 1]))
      fail_msg ("0x%08x maps to 0x%08x, not below 0x%08x's 0x%08x", ladder[i],
                mdl_keys_f32_order (ladder[i]), ladder[i + 1], mdl_keys_f32_order (ladder[i + 1]));
  for (int k = 0; k < 100000; k++)
    {
      guint32 a = g_rand_int (rng), b = g_rand_int (rng);
      float fa, fb;
      memcpy (&fa, &a, 4);
      memcpy (&fb, &b, 4);
      if (mdl_keys_f32_unorder (mdl_keys_f32_order (a)) != a)
        fail_msg ("seed %u: 0x%08x does not come back", seed, a);
      if (!isnan (fa) && !isnan (fb) && fa < fb
          && mdl_keys_f32_order (a) >= mdl_keys_f32_order (b))
        fail_msg ("seed %u: %g < %g but the words are not", seed, fa, fb);
    }
}

/* Ensure "special" draws each of its 16 values, about half of the keys, and no NaN. */
static void
test_special_distribution (void **state)
{
  const guint64 n = 4096;
  g_autofree guint32 *keys = g_new (guint32, n);
  guint64 seen[MDL_KEYS_N_SPECIAL] = { 0 }, specials = 0;
  (void) state;
  assert_true (mdl_keys_fill_typed (keys, n, MDL_KEYS_SPECIAL, 5, TRUE));
  for (guint64 i = 0; i < n; i++)
    {
      float f;
      memcpy (&f, &keys[i], 4);
      assert_false (isnan (f));
      for (guint s = 0; s < MDL_KEYS_N_SPECIAL; s++)
        if (keys[i] == mdl_keys_special[s])
          {
            seen[s]++;
            specials++;
          }
    }
  for (guint s = 0; s < MDL_KEYS_N_SPECIAL; s++)
    assert_true (seen[s] > 0);
  /* Bit 0 of a uniform draw: 2048 expected, 5 standard deviations are 160. */
  assert_true (specials > 1800 && specials < 2300);
}

/* Ensure every seed sort's SIMT twin sorts floats on every distribution at n = 1, 17 and 1000 to
 * what the slow sort gives (its checksum, of the same keys), and integers on the special bits. */
static void
test_seed_sorts_match_slow_sort (void **state)
{
  static const char *const sorts[] = {
    "sort/gpu-quicksort", "sort/gpu-quicksort:phase1=host,pivot=median",
    "sort/msimd-quicksort:P=16", "sort/bitonic", "sort/bitonic:layout=greedy,tile=256,block=128",
    "sort/warpsort", "sort/dway-merge:d=8",
  };
  static const guint64 sizes[] = { 1, 17, 1000 };
  (void) state;
  for (gsize s = 0; s < G_N_ELEMENTS (sorts); s++)
    for (int dist = 0; dist < (int) MDL_KEYS_N_DISTS; dist++)
      for (int is_float = 0; is_float < 2; is_float++)
        for (gsize z = 0; z < G_N_ELEMENTS (sizes); z++)
          {
            g_auto (GStrv) dists = g_strsplit (MDL_KEY_DIST_CHOICES, "|", -1);
            guint64 n = sizes[z];
            g_autofree guint32 *want = g_new (guint32, n);
            g_autofree char *spec = NULL;
            if (!is_float && dist != MDL_KEYS_SPECIAL)
              continue;
            spec = g_strdup_printf ("%s%sdist=%s,keys=%s", sorts[s],
                                    strchr (sorts[s], ':') ? "," : ":", dists[dist],
                                    is_float ? "f32" : "u32");
            assert_true (mdl_keys_fill_typed (want, n, (MdlKeyDist) dist, 3, is_float));
            slow_sort (want, n, is_float);
            if (test_native_checksum (spec, n, 3) != mdl_simt_algo_checksum (want, 4 * n))
              fail_msg ("%s n=%" G_GUINT64_FORMAT ": not the slow sort's output", spec, n);
          }
}

/* Ensure GPU-Quicksort (both phase ones, both pivot rules) puts NaNs of both signs and payloads,
 * signed zeros and infinities in totalOrder, bit for bit: floats through the map, the sort, the
 * map back. */
static void
test_gpu_quicksort_nan_in_total_order (void **state)
{
  static const guint32 odd[] = { 0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xffffffffu, 0x80000000u,
                                 0x00000000u, 0x7f800000u, 0xff800000u };
  const guint64 n = 3000;
  (void) state;
  for (int variant = 0; variant < 4; variant++)
    {
      g_autoptr (MdlSimt) gpu = mdl_simt_new (NULL, 32);
      g_autofree guint32 *want = g_new (guint32, n);
      g_autoptr (GError) error = NULL;
      MdlGqsConfig cfg = mdl_gqs_config_default ();
      guint64 d = mdl_simt_alloc (gpu, 4 * n, &error);
      guint32 *keys = mdl_simt_host (gpu, d);
      cfg.phase1 = variant & 1 ? MDL_GQS_PHASE1_HOST : MDL_GQS_PHASE1_ATOMIC;
      cfg.pivot = variant & 2 ? MDL_GQS_PIVOT_MEDIAN : MDL_GQS_PIVOT_MINMAX;
      cfg.maxseq = 8;
      cfg.minsize = 64;
      cfg.check = TRUE;
      assert_true (mdl_keys_fill_typed (keys, n, MDL_KEYS_SPECIAL, 9, TRUE));
      for (guint64 i = 0; i < n; i += 3)
        keys[i] = odd[(i / 3) % G_N_ELEMENTS (odd)];
      memcpy (want, keys, 4 * n);
      slow_sort (want, n, TRUE);
      if (!mdl_simt_keys_order (gpu, d, d, n, FALSE, &error)
          || !mdl_gqs_sort (gpu, &cfg, d, n, NULL, &error)
          || !mdl_simt_keys_order (gpu, d, d, n, TRUE, &error))
        fail_msg ("variant %d: %s", variant, error->message);
      for (guint64 i = 0; i < n; i++)
        if (keys[i] != want[i])
          fail_msg ("variant %d: key %" G_GUINT64_FORMAT " is 0x%08x, totalOrder has 0x%08x",
                    variant, i, keys[i], want[i]);
    }
}

/* Ensure keys=f32 costs a data-independent sort (the bitonic network) exactly the two map
 * launches: per warp of 32 keys one global load and one store each way (n = 65536: 2048 warps,
 * 4096 more of each), whatever the distribution. */
static void
test_float_map_costs_two_passes (void **state)
{
  static const char *const dists[] = { "uniform", "special" };
  const guint64 n = 65536;
  (void) state;
  for (gsize d = 0; d < G_N_ELEMENTS (dists); d++)
    {
      g_autofree char *u32 = g_strdup_printf ("sort/bitonic:dist=%s", dists[d]);
      g_autofree char *f32 = g_strdup_printf ("sort/bitonic:dist=%s,keys=f32", dists[d]);
      guint64 sum_u = 0, sum_f = 0;
      g_autoptr (MdlReport) ru = test_run_algo (u32, n, 1, "count", &sum_u);
      g_autoptr (MdlReport) rf = test_run_algo (f32, n, 1, "count", &sum_f);
      assert_int_equal (test_report_count (rf, "warp_ld_global")
                          - test_report_count (ru, "warp_ld_global"), 2 * n / 32);
      assert_int_equal (test_report_count (rf, "warp_st_global")
                          - test_report_count (ru, "warp_st_global"), 2 * n / 32);
      assert_int_equal (test_report_count (rf, "markers_launch")
                          - test_report_count (ru, "markers_launch"), 2);
    }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_order_is_total_order),
    cmocka_unit_test (test_special_distribution),
    cmocka_unit_test (test_seed_sorts_match_slow_sort),
    cmocka_unit_test (test_gpu_quicksort_nan_in_total_order),
    cmocka_unit_test (test_float_map_costs_two_passes),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
