/* Tests of the AGPU merge sorts (src/algos/simt/merge-sort.c, src/algos/merge-sort-plan.h):
 * sort/dway-merge (Koike & Sadakane §7.3) and sort/warpsort (§7.1.2, d = 2), under the agpu
 * engine. Expected numbers come from V10 and Lemmas 7.2 / 7.7 of
 * ../shared/spec/agpu-koike-sadakane.md, or are worked out by hand in the comment above them from
 * the kernels' memory instructions and the engine's rule (a global access costs its distinct b-word
 * blocks; a fully predicated-off access costs no I/O). */
#include "helpers.h"
#include "algos/merge-sort-plan.h"
#include "algos/simt/simt-algo.h"

#include <math.h>
#include <stdlib.h>

/* Ensure the closed formula gives V10's table at the paper's N = 2^28, b = 32: merge passes
 * 23, 12, 8, 6, 5, 4, 4, 3 and total I/O 2^24 x (24, 13, 9, 7, 6, 5, 5, 4) for d = 2 ... 256
 * (n/b = 2^23 blocks, ⌈23 / log2 d⌉ passes, each 2n/b = 2^24, plus part 1). */
static void
test_v10_table (void **state)
{
  static const guint64 passes[] = { 23, 12, 8, 6, 5, 4, 4, 3 };
  static const guint64 units[] = { 24, 13, 9, 7, 6, 5, 5, 4 };
  const guint64 n = G_GUINT64_CONSTANT (1) << 28;
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (passes); i++)
    {
      guint64 d = G_GUINT64_CONSTANT (2) << i;
      assert_int_equal (mdl_merge_sort_passes (n, 32, d), passes[i]);
      assert_int_equal (mdl_merge_sort_io (n, 32, d), units[i] << 24);
    }
  /* Part 1 alone is V10's 2n/b = 16,777,216. */
  assert_int_equal (2 * n / 32, 16777216);
}

/* Ensure the SIMT twin, run with l = 1 (column-wise merges to the end, the I/O model's merge
 * sort), costs exactly 2⌈n/b⌉ I/Os in part 1 and in every merge pass (Lemma 7.2 for d = 2, Lemma
 * 7.7 with its O(d) term 0), so its total is the closed formula, for d = 2 ... 256. Rows by hand:
 *  n = 4096, b = 4: 1024 blocks; passes ⌈10 / log2 d⌉ = 10, 5, 4, 3, 2, 2, 2, 2;
 *    I/O = 2048 (1 + passes) = 22528, 12288, 10240, 8192, 6144 (x4);
 *  n = 1000, b = 8, d = 2: 125 blocks, 7 passes: 250 x 8 = 2000 (a partial last block is one
 *    block read and written);
 *  n = 4097, b = 8, d = 8: 513 blocks, ⌈log8 513⌉ = 4 passes: 1026 x 5 = 5130;
 *  n = 2048, b = 32, warpsort: 64 blocks, 6 passes: 128 x 7 = 896. */
static void
test_merge_passes_cost_2n_over_b (void **state)
{
  static const struct {
    const char *spec;
    guint64 n, b, d, io, passes;
  } rows[] = {
    { "sort/dway-merge:b=4,d=2,l=1", 4096, 4, 2, 22528, 10 },
    { "sort/dway-merge:b=4,d=4,l=1", 4096, 4, 4, 12288, 5 },
    { "sort/dway-merge:b=4,d=8,l=1", 4096, 4, 8, 10240, 4 },
    { "sort/dway-merge:b=4,d=16,l=1", 4096, 4, 16, 8192, 3 },
    { "sort/dway-merge:b=4,d=32,l=1", 4096, 4, 32, 6144, 2 },
    { "sort/dway-merge:b=4,d=64,l=1", 4096, 4, 64, 6144, 2 },
    { "sort/dway-merge:b=4,d=128,l=1", 4096, 4, 128, 6144, 2 },
    { "sort/dway-merge:b=4,d=256,l=1", 4096, 4, 256, 6144, 2 },
    { "sort/dway-merge:b=8,d=2,l=1", 1000, 8, 2, 2000, 7 },
    { "sort/dway-merge:b=8,d=8,l=1", 4097, 8, 8, 5130, 4 },
    { "sort/warpsort:b=32,l=1", 2048, 32, 2, 896, 6 },
  };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *engine = g_strdup_printf ("agpu:b=%" G_GUINT64_FORMAT, rows[i].b);
      g_autoptr (MdlReport) r = test_run_algo (rows[i].spec, rows[i].n, 3, engine, NULL);
      guint64 blocks = (rows[i].n + rows[i].b - 1) / rows[i].b;
      guint64 got[] = { test_report_count (r, "io"), test_phase_count (r, "initialize", "io"),
                        test_phase_count (r, "column-merge", "io"),
                        test_report_count (r, "launches") };
      guint64 want[] = { rows[i].io, 2 * blocks, 2 * blocks * rows[i].passes, 1 + rows[i].passes };
      assert_int_equal (mdl_merge_sort_io (rows[i].n, rows[i].b, rows[i].d), rows[i].io);
      assert_int_equal (mdl_merge_sort_passes (rows[i].n, rows[i].b, rows[i].d), rows[i].passes);
      for (guint j = 0; j < G_N_ELEMENTS (got); j++)
        if (got[j] != want[j])
          fail_msg ("%s n=%" G_GUINT64_FORMAT ": counter %u is %" G_GUINT64_FORMAT ", expected %"
                    G_GUINT64_FORMAT, rows[i].spec, rows[i].n, j, got[j], want[j]);
    }
}

/* Ensure every part's I/O on a case worked out by hand: n = 64, b = 4, d = 2, l = 4, sigma = 1000
 * (larger than a run: no separators, one group).
 *  part 1: 16 blocks read and written: 32;
 *  part 2: 16 -> 8 -> 4 runs of R = 16: two passes of 32: 64;
 *  part 3: the search writes pos, (0 + 2) x 4 = 8 words in 2 blocks (its loads are all predicated
 *    off: every range is empty); the offsets read pos rows 0 and 1 (a block each) and write off,
 *    5 words (two stores: 4 words, then 1): 2 + 2; total 6;
 *  part 4: t0 = 2 steps. Step 1, 2 blocks: each loads 2 words of pos row 0, 2 of row 1 and 1 of
 *    off (a block each: 3), then merges 32 aligned keys (one group: off[0][i] = 16 i): 6 + 32;
 *    step 2, 1 block: off words 0, 2, 4 (blocks 0 and 1: 2), then 32: total 72.
 *  Sum 174. */
static void
test_parts_io_by_hand (void **state)
{
  g_autoptr (MdlReport) r = test_run_algo ("sort/dway-merge:b=4,d=2,l=4,sigma=1000", 64, 5,
                                           "agpu:b=4", NULL);
  (void) state;
  assert_int_equal (test_phase_count (r, "initialize", "io"), 32);
  assert_int_equal (test_phase_count (r, "column-merge", "io"), 64);
  assert_int_equal (test_phase_count (r, "partition", "io"), 6);
  assert_int_equal (test_phase_count (r, "row-merge", "io"), 72);
  assert_int_equal (test_report_count (r, "io"), 174);
  /* launches: 1 + 2 + (search, offsets) + 2 */
  assert_int_equal (test_report_count (r, "launches"), 7);
}

/* Ensure the lower bound of §5.4 (Theorem 7.6's counting, mdl_merge_sort_lower_bound) holds for
 * the closed formula over sizes n = b·2^k, and for the SIMT twin's measured I/O at small n, with M
 * the shared memory the sort uses, b(d+1) words; and that the d-way sort stays within a constant
 * factor of it once n/b >= d (optimality, Theorem 7.9: here at most 6). */
static void
test_lower_bound_property (void **state)
{
  static const guint64 bs[] = { 4, 8, 32 };
  static const guint64 ds[] = { 2, 4, 16, 64 };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (bs); i++)
    for (guint j = 0; j < G_N_ELEMENTS (ds); j++)
      for (guint k = 1; k <= 30; k++)
        {
          guint64 b = bs[i], d = ds[j], n = b << k, io = mdl_merge_sort_io (n, b, d);
          double lb = mdl_merge_sort_lower_bound (n, b, b * (d + 1));
          if ((double) io < lb)
            fail_msg ("n=%" G_GUINT64_FORMAT " b=%" G_GUINT64_FORMAT " d=%" G_GUINT64_FORMAT
                      ": I/O %" G_GUINT64_FORMAT " below the bound %.1f", n, b, d, io, lb);
          if (n / b >= d && (double) io > 6 * lb)
            fail_msg ("n=%" G_GUINT64_FORMAT " b=%" G_GUINT64_FORMAT " d=%" G_GUINT64_FORMAT
                      ": I/O %" G_GUINT64_FORMAT " more than 6 x the bound %.1f", n, b, d, io, lb);
        }
  for (guint64 d = 2; d <= 16; d *= 2)
    for (guint64 n = 64; n <= 4096; n *= 4)
      {
        g_autofree char *spec = g_strdup_printf ("sort/dway-merge:b=8,d=%" G_GUINT64_FORMAT
                                                 ",l=4,sigma=32", d);
        g_autoptr (MdlReport) r = test_run_algo (spec, n, 11, "agpu:b=8", NULL);
        double lb = mdl_merge_sort_lower_bound (n, 8, 8 * (d + 1));
        assert_true ((double) test_report_count (r, "io") >= lb);
      }
}

/* Ensure the bound itself on a case by hand: n = 8, b = 2, M = 4: log(8!/2!^4) = log 2520,
 * per read log(4^2/2!) = log 8, reads >= 3.766, below n/b = 4, so the bound is 4 + 4 = 8. */
static void
test_lower_bound_by_hand (void **state)
{
  (void) state;
  assert_true (fabs (mdl_merge_sort_lower_bound (8, 2, 4) - 8.0) < 1e-9);
  assert_true (fabs (log (2520.0) / log (8.0) - 3.7664) < 1e-4);
}

/* Ensure the plan's parts on cases by hand: n = 10000, b = 8, d = 4, l = 16, sigma = 100: 1250
 * blocks; part 2 runs 1250 -> 313 -> 79 -> 20 -> 5 (R = 2048, s0 = 4); 5 runs, the last of
 * 10000 − 8192 = 1808 keys: 20 separators of each whole run and 18 of the last, m = 98; t0 =
 * ⌈log4 5⌉ = 2; 7 passes. */
static void
test_plan_by_hand (void **state)
{
  MdlMergePlan p = mdl_merge_plan (10000, 8, 4, 16, 100);
  (void) state;
  assert_int_equal (p.s0, 4);
  assert_int_equal (p.run, 2048);
  assert_int_equal (p.runs, 5);
  assert_int_equal (p.per_run, 20);
  assert_int_equal (p.m, 98);
  assert_int_equal (p.t0, 2);
  assert_int_equal (p.passes, 7);
  /* The defaults (l = 0, sigma = 0) at n = 2^26, b = 128, d = 2: n/b = 2^19, ℓ = 512 (512^2 =
   * 2^18 <= 2^19 < 1024^2); part 2 to R = 2^17 (s0 = 10), 512 runs; σ = R/2, two separators a run,
   * m = 1024 (1025 groups; with one separator a run or none, parts 3-4 would run on one group);
   * t0 = 9; 20 passes. */
  p = mdl_merge_plan (G_GUINT64_CONSTANT (1) << 26, 128, 2, 0, 0);
  assert_int_equal (p.l, 512);
  assert_int_equal (p.s0, 10);
  assert_int_equal (p.run, G_GUINT64_CONSTANT (1) << 17);
  assert_int_equal (p.runs, 512);
  assert_int_equal (p.sigma, G_GUINT64_CONSTANT (1) << 16);
  assert_int_equal (p.m, 1024);
  assert_int_equal (p.t0, 9);
  assert_int_equal (p.passes, 20);
  p = mdl_merge_plan (100, 8, 4, 1, 100);
  assert_int_equal (p.runs, 1);
  assert_int_equal (p.t0, 0);
  assert_int_equal (p.passes, 3);
}

/* Ensure both sorts sort every distribution, through all four parts, with separators that fall
 * inside and across blocks, short last runs and groups, many duplicates (zero, few) and more
 * leaves than pieces; the run fails (MDL_ERROR_MODEL) when a key is out of place. */
static void
test_sorts_every_distribution (void **state)
{
  static const char *const dists[] = { "uniform", "gaussian", "zero", "sorted",
                                       "bucket", "staggered", "reverse", "few", "special" };
  static const char *const specs[] = {
    "sort/dway-merge:b=8,d=4,l=16,sigma=64", "sort/dway-merge:b=4,d=2,l=5,sigma=7",
    "sort/warpsort:b=16,l=8,sigma=100", "sort/dway-merge:b=32,d=8,l=3,sigma=32",
    "sort/dway-merge:b=8,d=16,l=40,sigma=16", "sort/dway-merge:b=2,d=2,l=1",
  };
  static const guint64 sizes[] = { 1, 2, 5, 33, 1000, 4097 };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (specs); i++)
    for (guint j = 0; j < G_N_ELEMENTS (dists); j++)
      for (guint k = 0; k < G_N_ELEMENTS (sizes); k++)
        {
          g_autofree char *spec = g_strdup_printf ("%s,dist=%s", specs[i], dists[j]);
          test_native_checksum (spec, sizes[k], 1 + k);
        }
}

/* Ensure the instrumented and native runs return the same checksum, the FNV-1a of the sorted keys
 * (which equals that of the reference sort). */
static void
test_checksum_is_of_sorted_keys (void **state)
{
  g_autoptr (MdlReport) r = NULL;
  guint64 sum = 0, n = 777;
  guint32 *keys = g_new (guint32, n);
  (void) state;
  r = test_run_algo ("sort/dway-merge:b=8,d=4,l=4,sigma=16", n, 9, "agpu:b=8", &sum);
  assert_true (mdl_keys_fill (keys, n, MDL_KEYS_UNIFORM, 9) && mdl_keys_sort (keys, n));
  assert_int_equal (sum, mdl_simt_algo_checksum (keys, 4 * n));
  g_free (keys);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_v10_table),
    cmocka_unit_test (test_merge_passes_cost_2n_over_b),
    cmocka_unit_test (test_parts_io_by_hand),
    cmocka_unit_test (test_lower_bound_property),
    cmocka_unit_test (test_lower_bound_by_hand),
    cmocka_unit_test (test_plan_by_hand),
    cmocka_unit_test (test_sorts_every_distribution),
    cmocka_unit_test (test_checksum_is_of_sorted_keys),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
