/* Tests of sort/gpu-quicksort (src/algos/simt/gpu-quicksort.c), Cederman's GPU-Quicksort on the
 * SIMT layer: the validation cases §5.1-5.2 of ../shared/spec/gpu-quicksort-cederman.md. Runs go
 * through mdl_gqs_sort with no sink (the counters are the algorithm's own), with the pivot
 * invariant checked after every partition. The pass and iteration counts are what our reading of
 * the thesis's rules gives on keys.h's inputs (seed 1); docs/models/sort-gpu-quicksort.md sets
 * them beside the reading notes' model and says why they differ. */
#include "helpers.h"

#include "algos/keys.h"
#include "algos/simt/gpu-quicksort.h"

#include <models/pipeline.h>

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

/* Ensure zero is sorted in one phase-one iteration and two read passes (§5.2 case 7): the first
 * pivot is the only value, every key goes to d as a pivot, nothing to the auxiliary buffer, and
 * phase two gets no sequence. */
static void
test_zero_one_iteration_two_passes (void **state)
{
  MdlGqsConfig cfg = mdl_gqs_config_default ();
  const guint64 n = 1 << 20;
  MdlGqsStats st = sort_keys (&cfg, MDL_KEYS_ZERO, n);
  (void) state;
  assert_int_equal (st.iterations, 1);
  assert_int_equal (st.key_reads, 2 * n);
  assert_int_equal (st.aux_writes, 0);
  assert_int_equal (st.pivot_writes, n);
  assert_int_equal (st.sequences, 0);
  assert_int_equal (st.p2_partitions, 0);
  assert_int_equal (st.altsorts, 0);
}

/* One row of the pass counts at n = 2^20. */
typedef struct {
  MdlKeyDist dist;
  guint maxseq;
  guint iterations;
  guint64 sequences, p2_partitions, altsorts;
  guint max_stack;
  guint64 key_reads;
} CountRow;

/* Ensure the phase-one iterations, the sequences phase two gets, its partitions and bitonic sorts,
 * the deepest stack and the key reads at n = 2^20, T = 128, MINSIZE = 256 (§5.2 cases 8-11) are
 * what the rules give; docs/models/sort-gpu-quicksort.md compares them with the notes' model
 * (uniform 9 / 512 / 6,503 / 27.63 n; gaussian 10 / 549; sorted 5,441 partitions). Every sequence
 * phase one partitions has exactly one last block. */
static void
test_counts_at_2_20 (void **state)
{
  static const CountRow rows[] = {
    { MDL_KEYS_UNIFORM, 512, 9, 512, 6520, 7032, 4, 29189882 },
    { MDL_KEYS_GAUSSIAN, 512, 10, 527, 6428, 6955, 4, 30580396 },
    { MDL_KEYS_SORTED, 512, 9, 512, 6472, 6984, 3, 28967437 },
    { MDL_KEYS_BUCKET, 512, 9, 512, 6496, 7008, 3, 28968175 },
    { MDL_KEYS_STAGGERED, 512, 9, 512, 6464, 6976, 3, 28895215 },
    { MDL_KEYS_UNIFORM, 1024, 10, 1024, 6014, 7038, 3, 28808969 },
  };
  const guint64 n = 1 << 20;
  guint bad = 0;
  (void) state;
  for (gsize i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      MdlGqsConfig cfg = mdl_gqs_config_default ();
      MdlGqsStats st;
      cfg.maxseq = rows[i].maxseq;
      st = sort_keys (&cfg, rows[i].dist, n);
      if (st.iterations != rows[i].iterations || st.sequences != rows[i].sequences
          || st.p2_partitions != rows[i].p2_partitions || st.altsorts != rows[i].altsorts
          || st.max_stack != rows[i].max_stack || st.key_reads != rows[i].key_reads)
        print_error ("row %zu (dist %d, maxseq %u): iterations %u, sequences %" G_GUINT64_FORMAT
                  ", p2 partitions %" G_GUINT64_FORMAT ", altsorts %" G_GUINT64_FORMAT
                  ", max stack %u, reads %" G_GUINT64_FORMAT, i, rows[i].dist, rows[i].maxseq,
                  st.iterations, st.sequences, st.p2_partitions, st.altsorts, st.max_stack,
                  st.key_reads), bad++;
      assert_int_equal (st.last_blocks, st.p1_partitions);
      assert_true (st.max_stack <= MDL_GQS_STACK);
      assert_int_equal (st.pivot_writes + st.sorted_writes, n);
    }
  assert_int_equal (bad, 0);
}

/* Ensure exactly one block of a sequence sees itself last (§5.1 case 6) with k = 1, 2 and 100
 * blocks on the sequence: zero keys, so that phase one is the one launch of k blocks; the counter
 * starts at k and the block whose FAA returns 1 is the last. */
static void
test_exactly_one_last_block (void **state)
{
  static const struct {
    guint64 n;
    guint maxseq, blocks;
  } rows[] = { { 128, 2, 1 }, { 256, 2, 2 }, { 12800, 100, 100 } };
  (void) state;
  for (gsize i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      MdlGqsConfig cfg = mdl_gqs_config_default ();
      MdlGqsStats st;
      cfg.maxseq = rows[i].maxseq;
      st = sort_keys (&cfg, MDL_KEYS_ZERO, rows[i].n);
      assert_int_equal (st.iterations, 1);
      assert_int_equal (st.p1_blocks, rows[i].blocks);
      assert_int_equal (st.last_blocks, 1);
    }
}

/* Ensure the space is 2n keys plus bookkeeping that depends on maxseq alone (Theorem 2.2, §5.1
 * case 4): the auxiliary buffer is n keys; the records are 16 words per sequence, 8 per block
 * (at most 3 maxseq + 1 blocks) and 4 per phase-two sequence (at most 2 maxseq + 1). */
static void
test_space_is_2n_plus_bookkeeping (void **state)
{
  static const guint64 sizes[] = { 1000, 1 << 16 };
  (void) state;
  for (guint maxseq = 64; maxseq <= 512; maxseq *= 8)
    for (gsize i = 0; i < G_N_ELEMENTS (sizes); i++)
      {
        MdlGqsConfig cfg = mdl_gqs_config_default ();
        MdlGqsStats st;
        cfg.maxseq = maxseq;
        st = sort_keys (&cfg, MDL_KEYS_UNIFORM, sizes[i]);
        assert_int_equal (st.aux_bytes, 4 * sizes[i]);
        assert_int_equal (st.bookkeeping_bytes,
                          4 * (16 * maxseq + 8 * (3 * maxseq + 1) + 4 * (2 * maxseq + 1)));
      }
}

/* Ensure the result is in d also where the last partition of a run of keys happened in the
 * auxiliary buffer (§5.1 case 3): with maxseq = 8 phase one ends after 3 iterations, its sequences
 * in the auxiliary buffer (an odd number of moves), and phase two's bitonic sorts take keys from
 * both buffers into d. */
static void
test_final_buffer_is_d (void **state)
{
  MdlGqsConfig cfg = mdl_gqs_config_default ();
  MdlGqsStats st;
  const guint64 n = 1 << 14;
  (void) state;
  cfg.maxseq = 8;
  st = sort_keys (&cfg, MDL_KEYS_UNIFORM, n);
  assert_int_equal (st.iterations, 3);
  assert_true (st.altsort_from_aux > 0);
  assert_true (st.altsort_from_aux < st.sorted_writes);
  assert_int_equal (st.pivot_writes + st.sorted_writes, n);
}

/* Sorts @n keys of @dist (seed 1) with @cfg under the count engine; *@d_out receives d (transfer
 * full), *@counts warp_ld_global, warp_st_global, warp_atom_global and markers_launch. */
static MdlGqsStats
sort_counted (const MdlGqsConfig *cfg, MdlKeyDist dist, guint64 n, guint32 **d_out,
              guint64 counts[4])
{
  static const char *const names[4] = { "warp_ld_global", "warp_st_global", "warp_atom_global",
                                        "markers_launch" };
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlPipeline) p = mdl_pipeline_new ();
  g_autoptr (MdlSimt) gpu = NULL;
  g_autofree MdlReport **reports = NULL;
  MdlGqsConfig c = *cfg;
  MdlGqsStats st;
  MdlSink sink;
  guint nr;
  guint64 d;
  assert_true (mdl_pipeline_add_engine_spec (p, "count", &error));
  sink = mdl_pipeline_sink (p);
  gpu = mdl_simt_new (&sink, 32);
  assert_true ((d = mdl_simt_alloc (gpu, 4 * n, &error)) != 0);
  assert_true (mdl_keys_fill (mdl_simt_host (gpu, d), n, dist, 1));
  c.check = TRUE;
  if (!mdl_gqs_sort (gpu, &c, d, n, &st, &error))
    fail_msg ("dist %d n=%" G_GUINT64_FORMAT ": %s", dist, n, error->message);
  *d_out = g_memdup2 (mdl_simt_host (gpu, d), 4 * n);
  mdl_simt_free (g_steal_pointer (&gpu));
  reports = mdl_pipeline_reports (p, &nr);
  assert_int_equal (nr, 1);
  for (int k = 0; k < 4; k++)
    counts[k] = test_report_count (reports[0], names[k]);
  mdl_report_free (reports[0]);
  return st;
}

/* Ensure phase1=host (the 8800GTX's phase one without atomics) sorts to the same d as
 * phase1=atomic, with the same partitions, and costs what its kernels say, per phase-one block of
 * T threads (W = T/32 warps): no FAA (atomic: 3 one-lane FAAs), 2W + 2 more global stores (every
 * thread's two offsets, thread 0's two block totals), 8W more global loads (the scatter kernel
 * reads the block record and pivot again (4 uniform loads), the two offsets and the two regions
 * (2 uniform loads)), and per partitioned sequence one more uniform load (W warps: the pivot
 * kernel reads the pivot); two more launches per iteration. */
static void
test_phase1_host_same_sort_documented_costs (void **state)
{
  static const struct {
    MdlKeyDist dist;
    guint64 n;
    guint threads, maxseq;
  } rows[] = {
    { MDL_KEYS_UNIFORM, 1 << 16, 128, 512 }, { MDL_KEYS_ZERO, 20000, 128, 512 },
    { MDL_KEYS_SORTED, 20000, 32, 64 },      { MDL_KEYS_FEW, 20000, 256, 3 },
    { MDL_KEYS_SPECIAL, 20000, 128, 512 },   { MDL_KEYS_GAUSSIAN, 1000, 64, 512 },
  };
  (void) state;
  for (gsize i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      MdlGqsConfig cfg = mdl_gqs_config_default ();
      g_autofree guint32 *d_atomic = NULL, *d_host = NULL;
      guint64 ca[4], ch[4], w = rows[i].threads / 32;
      MdlGqsStats sa, sh;
      cfg.threads = rows[i].threads;
      cfg.maxseq = rows[i].maxseq;
      sa = sort_counted (&cfg, rows[i].dist, rows[i].n, &d_atomic, ca);
      cfg.phase1 = MDL_GQS_PHASE1_HOST;
      sh = sort_counted (&cfg, rows[i].dist, rows[i].n, &d_host, ch);
      assert_memory_equal (d_atomic, d_host, 4 * rows[i].n);
      assert_int_equal (sa.iterations, sh.iterations);
      assert_int_equal (sa.p1_blocks, sh.p1_blocks);
      assert_int_equal (sa.sequences, sh.sequences);
      assert_int_equal (sa.p2_partitions, sh.p2_partitions);
      assert_int_equal (sa.key_reads, sh.key_reads);
      assert_int_equal (sa.last_blocks, sa.p1_partitions);
      assert_int_equal (sh.last_blocks, sh.p1_partitions);
      assert_int_equal (sa.p1_launches, sa.iterations);
      assert_int_equal (sh.p1_launches, 3 * (guint64) sh.iterations);
      assert_int_equal (sa.p1_atomics, 3 * sa.p1_blocks);
      assert_int_equal (sh.p1_atomics, 0);
      assert_int_equal (sh.host_sums, sh.p1_blocks);
      assert_int_equal (ca[2], 3 * sa.p1_blocks);
      assert_int_equal (ch[2], 0);
      assert_int_equal (ch[1] - ca[1], (2 * w + 2) * sa.p1_blocks);
      assert_int_equal (ch[0] - ca[0], 8 * w * sa.p1_blocks + w * sa.p1_partitions);
      assert_int_equal (ch[3] - ca[3], 2 * (guint64) sa.iterations);
    }
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
    cmocka_unit_test (test_zero_one_iteration_two_passes),
    cmocka_unit_test (test_counts_at_2_20),
    cmocka_unit_test (test_exactly_one_last_block),
    cmocka_unit_test (test_space_is_2n_plus_bookkeeping),
    cmocka_unit_test (test_final_buffer_is_d),
    cmocka_unit_test (test_phase1_host_same_sort_documented_costs),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
