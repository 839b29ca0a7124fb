/* Tests of sort/gpu-quicksort (src/algos/simt/gpu-quicksort.c), Cederman's GPU-Quicksort on the
 * SIMT layer: the validation cases §5.1-5.2 of ../shared/spec/gpu-quicksort-cederman.md. Runs go
 * through mdl_gqs_sort with no sink (the counters are the algorithm's own), with the pivot
 * invariant checked after every partition. The pass and iteration counts are what our reading of
 * the thesis's rules gives on keys.h's inputs (seed 1); docs/models/sort-gpu-quicksort.md sets
 * them beside the reading notes' model and says why they differ. */
#include "helpers.h"

#include "algos/keys.h"
#include "algos/simt/gpu-quicksort.h"

#include <string.h>

/* Sorts @n keys of @dist (seed 1) with @cfg (check on), asserts that d holds them sorted and that
 * no partition broke the pivot invariant, and returns the counters. */
static MdlGqsStats
sort_keys (const MdlGqsConfig *cfg, MdlKeyDist dist, guint64 n)
{
  g_autoptr (MdlSimt) gpu = mdl_simt_new (NULL, 32);
  g_autofree guint32 *in = g_new (guint32, n + 1);
  MdlGqsConfig c = *cfg;
  MdlGqsStats st;
  GError *error = NULL;
  guint64 d = mdl_simt_alloc (gpu, 4 * (n + 1), &error), first = 0, bad;
  guint32 *keys;
  assert_true (d != 0);
  keys = mdl_simt_host (gpu, d);
  assert_true (mdl_keys_fill (keys, n, dist, 1));
  memcpy (in, keys, 4 * n);
  c.check = TRUE;
  if (!mdl_gqs_sort (gpu, &c, d, n, &st, &error))
    fail_msg ("dist %d n=%" G_GUINT64_FORMAT ": %s", dist, n, error->message);
  bad = mdl_keys_check (in, keys, n, &first);
  if (bad)
    fail_msg ("dist %d n=%" G_GUINT64_FORMAT ": %" G_GUINT64_FORMAT " keys out of place, first at %"
              G_GUINT64_FORMAT, dist, n, bad, first);
  assert_int_equal (st.violations, 0);
  if (g_getenv ("GQS_PRINT"))
    g_printerr ("dist=%d n=%" G_GUINT64_FORMAT " T=%u maxseq=%u S=%u: iterations %u, p1 blocks %"
                G_GUINT64_FORMAT ", p1 partitions %" G_GUINT64_FORMAT ", last blocks %"
                G_GUINT64_FORMAT ", sequences %" G_GUINT64_FORMAT ", p2 partitions %"
                G_GUINT64_FORMAT ", altsorts %" G_GUINT64_FORMAT ", max stack %u, reads %"
                G_GUINT64_FORMAT " (%.3f n), scattered %" G_GUINT64_FORMAT ", pivots %"
                G_GUINT64_FORMAT ", sorted %" G_GUINT64_FORMAT ", from aux %" G_GUINT64_FORMAT
                ", samples %" G_GUINT64_FORMAT "\n", dist, n, c.threads, c.maxseq, c.minsize,
                st.iterations, st.p1_blocks, st.p1_partitions, st.last_blocks, st.sequences,
                st.p2_partitions, st.altsorts, st.max_stack, st.key_reads,
                n ? (double) st.key_reads / (double) n : 0.0, st.aux_writes, st.pivot_writes,
                st.sorted_writes, st.altsort_from_aux, st.sample_reads);
  return st;
}

/* Ensure every distribution sorts at the spec's small sizes: 0, 1, 2, 15, 16, 17, MINSIZE - 1,
 * MINSIZE, MINSIZE + 1, 1000 and 2^16 (§5.1 case 1), under the default parameters. */
static void
test_sorts_every_distribution_at_small_sizes (void **state)
{
  static const guint64 sizes[] = { 0, 1, 2, 15, 16, 17, 255, 256, 257, 1000, 1 << 16 };
  MdlGqsConfig cfg = mdl_gqs_config_default ();
  (void) state;
  for (int dist = 0; dist < MDL_KEYS_N_DISTS; dist++)
    for (gsize i = 0; i < G_N_ELEMENTS (sizes); i++)
      {
        MdlGqsStats st = sort_keys (&cfg, (MdlKeyDist) dist, sizes[i]);
        /* Every key ends in d exactly once: as a pivot or through the bitonic sort. */
        assert_int_equal (st.pivot_writes + st.sorted_writes, sizes[i]);
      }
}

/* Ensure the variants sort too: the serial and FAA cumulative sums, median pivots in phase one,
 * T from 32 to 1024, maxseq 1 (phase two alone) and 3, MINSIZE 1 (no bitonic sort) and 8192. */
static void
test_variants_sort (void **state)
{
  MdlGqsConfig cfgs[8];
  (void) state;
  for (int k = 0; k < 8; k++)
    cfgs[k] = mdl_gqs_config_default ();
  cfgs[0].sum = MDL_GQS_SUM_SERIAL;
  cfgs[1].sum = MDL_GQS_SUM_FAA;
  cfgs[2].pivot = MDL_GQS_PIVOT_MEDIAN;
  cfgs[3].threads = 32;
  cfgs[4].threads = 1024;
  cfgs[5].maxseq = 1;
  cfgs[6].maxseq = 3;
  cfgs[6].minsize = 1;
  cfgs[7].minsize = 8192;
  for (int k = 0; k < 8; k++)
    for (int dist = 0; dist < MDL_KEYS_N_DISTS; dist += 3)
      sort_keys (&cfgs[k], (MdlKeyDist) dist, 20000);
}

/* Ensure a bad configuration is a parameter error naming the parameter. */
static void
test_bad_config_is_param_error (void **state)
{
  g_autoptr (MdlSimt) gpu = mdl_simt_new (NULL, 32);
  MdlGqsConfig cfg = mdl_gqs_config_default ();
  GError *error = NULL;
  guint64 d = mdl_simt_alloc (gpu, 64, &error);
  (void) state;
  cfg.threads = 96;
  assert_false (mdl_gqs_sort (gpu, &cfg, d, 16, NULL, &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM, "threads must be a power of two");
  cfg = mdl_gqs_config_default ();
  cfg.minsize = 300;
  assert_false (mdl_gqs_sort (gpu, &cfg, d, 16, NULL, &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM, "minsize must be a power of two");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_sorts_every_distribution_at_small_sizes),
    cmocka_unit_test (test_variants_sort),
    cmocka_unit_test (test_bad_config_is_param_error),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
