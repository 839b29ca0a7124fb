/* Tests of the K-model scans (src/algos/simt/scan.c) run under the kmodel engine. Expected costs
 * are the validation cases V3-V6 and V8 of ../shared/spec/kmodel-capannini.md (the thesis's
 * formulas, checked there by the notes' own simulation), or are derived in the comment above
 * them. Every scan checks its own output; the correctness tests here also recompute the result
 * with a sequential scan of their own and compare checksums. */
#include "helpers.h"

#include "algos/simt/simt-algo.h"

#include <math.h>
#include <string.h>



/* One cost case: @algo on @n elements under kmodel:@engine; @expect the up-sweep's store latency. */
typedef struct {
  const char *algo;
  const char *engine;
  guint64 n;
  guint64 expect;
} StoreRow;

/* Checks T_shared_stores of phase upsweep for every row; and, for every row with n >= k (k read
 * from the engine spec), that the up-sweep's stores have length n − 1 (W, Eq. 3.3) and that the
 * run moves n/k segments in and n/k out (G; one block, so one traversal each way). */
static void
check_store_rows (const StoreRow *rows, guint n_rows)
{
  for (guint i = 0; i < n_rows; i++)
    {
      g_autofree char *spec = g_strdup_printf ("kmodel:%s", rows[i].engine);
      g_autoptr (MdlReport) r = test_run_algo (rows[i].algo, rows[i].n, 7, spec, NULL);
      guint64 k = g_ascii_strtoull (strstr (rows[i].engine, "k=") + 2, NULL, 10);
      guint64 t = test_phase_count (r, "upsweep", "T_shared_stores");
      guint64 w = test_phase_count (r, "upsweep", "W_shared_stores"), g = test_phase_count (r, NULL, "G");
      if (t != rows[i].expect)
        fail_msg ("%s n=%" G_GUINT64_FORMAT " %s: up-sweep store T %" G_GUINT64_FORMAT ", expected %"
                  G_GUINT64_FORMAT, rows[i].algo, rows[i].n, spec, t, rows[i].expect);
      if (w != rows[i].n - 1)
        fail_msg ("%s n=%" G_GUINT64_FORMAT ": up-sweep store W %" G_GUINT64_FORMAT, rows[i].algo,
                  rows[i].n, w);
      if (rows[i].n >= k && g != 2 * rows[i].n / k)
        fail_msg ("%s n=%" G_GUINT64_FORMAT ": G %" G_GUINT64_FORMAT ", expected 2n/k",
                  rows[i].algo, rows[i].n, g);
    }
}

/* Ensure NoPadding's up-sweep store latency is V3's n (log k + 1)/k − 1 for n >= k, log n below.
 * n = 4096 exceeds the thesis's 2048-element stream element: the formula is per element, so that
 * row runs one block of 4096 (block=4096). Below k each of the log n levels is one instruction
 * whose stores lie in the n < k words of the tree, so on distinct banks: latency 1, T = log n. */
static void
test_nopad_upsweep_stores_v3 (void **state)
{
  static const StoreRow rows[] = {
    { "scan/nopad", "k=4", 16, 11 },
    { "scan/nopad", "k=4", 32, 23 },
    { "scan/nopad", "k=4", 64, 47 },
    { "scan/nopad", "k=4", 2048, 1535 },
    { "scan/nopad", "k=16", 32, 9 },
    { "scan/nopad", "k=16", 256, 79 },
    { "scan/nopad", "k=16", 2048, 639 },
    { "scan/nopad:block=4096", "k=16", 4096, 1279 },
    { "scan/nopad", "k=32", 2048, 383 },
    /* n < k: T = log n. */
    { "scan/nopad", "k=16", 8, 3 },
    { "scan/nopad", "k=16", 2, 1 },
    { "scan/nopad", "k=16", 1, 0 },
    { "scan/nopad", "k=4", 2, 1 },
  };
  (void) state;
  check_store_rows (rows, G_N_ELEMENTS (rows));
}

/* Ensure Padding's up-sweep store latency is V4's: n(k−1)/k² + T_NoPad(n/k, k) for n >= k², and
 * T_LeftRight (conflict-free) for k <= n <= k². */
static void
test_padding_upsweep_stores_v4 (void **state)
{
  static const StoreRow rows[] = {
    { "scan/padding", "k=16", 256, 19 },
    { "scan/padding", "k=16", 512, 39 },
    { "scan/padding", "k=16", 1024, 79 },
    { "scan/padding", "k=16", 2048, 159 },
    { "scan/padding:block=4096", "k=16", 4096, 319 },
    { "scan/padding", "k=16", 32, 5 },
    { "scan/padding", "k=16", 64, 7 },
    { "scan/padding", "k=16", 128, 11 },
    { "scan/padding:k=4", "k=4", 16, 5 },
    { "scan/padding:k=4", "k=4", 64, 23 },
  };
  (void) state;
  check_store_rows (rows, G_N_ELEMENTS (rows));
}

/* The up-sweep's store instructions: level d has n/2^(d+1) operations on consecutive lanes from
 * lane 0, so ⌈(n/2^(d+1))/k⌉ instructions (k <= 32: the engine's chunks lie within a warp). */
static guint64
upsweep_store_instructions (guint64 n, guint64 k)
{
  guint64 l = 0;
  for (guint64 count = n / 2; count >= 1; count /= 2)
    l += (count + k - 1) / k;
  return l;
}

/* Ensure LeftRight's up-sweep store latency is V5's log k + (n−k)/k = ℓ(n, k), and equals the
 * number of store instructions: every latency is at least 1, so each is exactly 1. The k = 32,
 * n = 16384 row is one stream element of 16384 words (block=16384 and sigma=16384: the thesis's
 * formula is per element; beyond the 2048-element limit of its GPU). */
static void
test_leftright_upsweep_stores_v5 (void **state)
{
  static const StoreRow rows[] = {
    { "scan/leftright", "k=16", 32, 5 },
    { "scan/leftright", "k=16", 256, 19 },
    { "scan/leftright", "k=16", 512, 35 },
    { "scan/leftright", "k=16", 1024, 67 },
    { "scan/leftright", "k=16", 2048, 131 },
    { "scan/leftright:block=4096", "k=16", 4096, 259 },
    { "scan/leftright:k=4", "k=4", 16, 5 },
    { "scan/leftright:k=4", "k=4", 32, 9 },
    { "scan/leftright:k=4", "k=4", 64, 17 },
    { "scan/leftright:k=32,block=16384", "k=32,sigma=16384", 16384, 516 },
  };
  (void) state;
  check_store_rows (rows, G_N_ELEMENTS (rows));
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      guint64 k = g_ascii_strtoull (strstr (rows[i].engine, "k=") + 2, NULL, 10);
      if (rows[i].expect != upsweep_store_instructions (rows[i].n, k))
        fail_msg ("n=%" G_GUINT64_FORMAT " k=%" G_GUINT64_FORMAT ": %" G_GUINT64_FORMAT
                  " store instructions, T %" G_GUINT64_FORMAT, rows[i].n, k,
                  upsweep_store_instructions (rows[i].n, k), rows[i].expect);
    }
}

/* Ensure V7: the efficiency of LeftRight's up-sweep stores, W/(k T) with W = n − 1 and T = ℓ(n, k),
 * is Eq. 3.5's (n − 1)/(k log k + n − k), k = 16, to the notes' four decimals (each block of
 * n ≤ 2048 is one stream element; 4096 runs as one block). */
static void
test_leftright_efficiency_v7 (void **state)
{
  static const struct { guint64 n; double expect; } rows[] = {
    { 32, 0.3875 }, { 64, 0.5625 }, { 128, 0.7216 }, { 256, 0.8388 }, { 512, 0.9125 },
    { 1024, 0.9543 }, { 2048, 0.9766 }, { 4096, 0.9882 },
  };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (MdlReport) r = test_run_algo ("scan/leftright:block=4096", rows[i].n, 7,
                                               "kmodel:k=16", NULL);
      double w = (double) test_phase_count (r, "upsweep", "W_shared_stores");
      double t = (double) test_phase_count (r, "upsweep", "T_shared_stores");
      double eq35 = (double) (rows[i].n - 1) / (16.0 * 4 + (double) rows[i].n - 16);
      if (fabs (w / (16 * t) - rows[i].expect) > 5e-5 || fabs (eq35 - rows[i].expect) > 5e-5)
        fail_msg ("n=%" G_GUINT64_FORMAT ": efficiency %.5f, Eq. 3.5 %.5f, notes %.4f", rows[i].n,
                  w / (16 * t), eq35, rows[i].expect);
    }
}

/* Ensure the parents off their operand slots are the notes' §4.2 counts: Eq. 3.2 as printed,
 * 2 of 31 at n = 32, k = 4 and 56 at n = 2048, k = 16, none up to n = k²; LR', none. */
static void
test_leftright_parents_on_operands (void **state)
{
  static const struct { guint64 n; guint k; gboolean literal; guint64 expect; } rows[] = {
    { 32, 4, TRUE, 2 },
    { 2048, 16, TRUE, 56 },
    { 16, 4, TRUE, 0 },
    { 256, 16, TRUE, 0 },
    { 1024, 32, TRUE, 0 },
    { 32, 4, FALSE, 0 },
    { 2048, 16, FALSE, 0 },
    { 16384, 32, FALSE, 0 },
    { 1, 16, FALSE, 0 },
  };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      guint64 got = mdl_scan_leftright_off_operand (rows[i].n, rows[i].k, rows[i].literal);
      if (got != rows[i].expect)
        fail_msg ("n=%" G_GUINT64_FORMAT " k=%u %s: %" G_GUINT64_FORMAT " parents off their "
                  "operands, expected %" G_GUINT64_FORMAT, rows[i].n, rows[i].k,
                  rows[i].literal ? "literal" : "corrected", got, rows[i].expect);
    }
}

/* Ensure mapping=literal never gives a wrong scan silently: beyond k² it fails its check with an
 * MDL_ERROR_MODEL naming the first wrong element and the erratum; up to k² it is in place, so it
 * scans correctly, at the same cost as LR' (the two share their banks). */
static void
test_leftright_literal_mapping (void **state)
{
  static const struct { const char *params[4]; guint64 n; const char *needle; } bad[] = {
    { { "k=4", "mapping=literal", NULL }, 32, "2 of the 31 parents of a 32-element block" },
    { { "mapping=literal", NULL }, 2048, "56 of the 2047 parents of a 2048-element block" },
  };
  const MdlAlgo *algo = mdl_algo_lookup ("scan/leftright", NULL);
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (MdlParams) params = mdl_params_parse ("scan/leftright", algo->params, bad[i].params,
                                                   NULL);
      GError *error = NULL;
      guint64 sum;
      assert_false (algo->run_native (params, bad[i].n, 7, NULL, &sum, &error));
      assert_non_null (error);
      assert_non_null (strstr (error->message, "scan/leftright: element "));
      assert_non_null (strstr (error->message, "the sequential exclusive scan has"));
      assert_non_null (strstr (error->message, "use mapping=corrected"));
      assert_mdl_error (error, MDL_ERROR_MODEL, bad[i].needle);
    }
  {
    g_autoptr (MdlReport) lit = test_run_algo ("scan/leftright:mapping=literal", 256, 7,
                                               "kmodel:k=16", NULL);
    g_autoptr (MdlReport) cor = test_run_algo ("scan/leftright", 256, 7, "kmodel:k=16", NULL);
    assert_int_equal (test_phase_count (lit, "upsweep", "T_shared_stores"), 19);
    assert_int_equal (test_phase_count (lit, NULL, "T"), test_phase_count (cor, NULL, "T"));
  }
}

/* Ensure Hillis-Steele (CM) does V6's work and per-step ceiling time. Step d = 0..log n − 1 adds
 * element e − 2^d into element e for e >= 2^d: n − 2^d operations on consecutive lanes and
 * consecutive words (conflict-free), one shared load, one add and one shared store each. So in
 * phase steps each of the three classes has W = Σ (n − 2^d) = n log n − n + 1 and
 * T = Σ ⌈(n − 2^d)/k⌉ (instructions, latency 1 each):
 *  n = 2048, k = 16: W = 20481; T = 4 x 128 + 127 + 126 + 124 + 120 + 112 + 96 + 64 = 1281 (the
 *    thesis's W/k = 1280.06 is the bound without ceilings);
 *  n = 256, k = 16: W = 1793; T = 4 x 16 + 15 + 14 + 12 + 8 = 113. */
static void
test_hillis_steele_v6 (void **state)
{
  static const struct { guint64 n, W, T; } rows[] = { { 2048, 20481, 1281 }, { 256, 1793, 113 } };
  static const char *const classes[] = { "shared_loads", "shared_stores", "arith" };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (MdlReport) r = test_run_algo ("scan/hillis-steele", rows[i].n, 7, "kmodel:k=16",
                                               NULL);
      for (guint c = 0; c < G_N_ELEMENTS (classes); c++)
        {
          g_autofree char *t = g_strconcat ("T_", classes[c], NULL);
          g_autofree char *w = g_strconcat ("W_", classes[c], NULL);
          if (test_phase_count (r, "steps", t) != rows[i].T || test_phase_count (r, "steps", w) != rows[i].W)
            fail_msg ("n=%" G_GUINT64_FORMAT ": %s %" G_GUINT64_FORMAT ", %s %" G_GUINT64_FORMAT
                      ", expected %" G_GUINT64_FORMAT " and %" G_GUINT64_FORMAT, rows[i].n, t,
                      test_phase_count (r, "steps", t), w, test_phase_count (r, "steps", w), rows[i].T, rows[i].W);
        }
    }
}

/* Ensure the full up-sweep at n = 2048, k = 16 costs V8's T: loads, adds and stores (T minus the
 * branches of "i < count", which the thesis does not charge), with the x and y loads separate
 * (fuse=0) or one instruction of 2k requests (fuse=1). */
static void
test_full_upsweep_v8 (void **state)
{
  static const struct { const char *algo; const char *engine; guint64 expect; } rows[] = {
    { "scan/nopad", "kmodel:k=16,fuse=0", 2048 },
    { "scan/padding", "kmodel:k=16,fuse=0", 608 },
    { "scan/leftright", "kmodel:k=16,fuse=0", 778 },
    { "scan/nopad", "kmodel:k=16,fuse=1", 1536 },
    { "scan/padding", "kmodel:k=16,fuse=1", 576 },
    { "scan/leftright", "kmodel:k=16,fuse=1", 520 },
  };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (MdlReport) r = test_run_algo (rows[i].algo, 2048, 7, rows[i].engine, NULL);
      guint64 t = test_phase_count (r, "upsweep", "T_shared_loads") + test_phase_count (r, "upsweep", "T_shared_stores")
                  + test_phase_count (r, "upsweep", "T_arith");
      if (t != rows[i].expect || t != test_phase_count (r, "upsweep", "T") - test_phase_count (r, "upsweep", "T_control"))
        fail_msg ("%s %s: up-sweep T without control %" G_GUINT64_FORMAT ", expected %"
                  G_GUINT64_FORMAT, rows[i].algo, rows[i].engine, t, rows[i].expect);
    }
}

/* Ensure observation (i) of §3.3.2: the down-sweep visits the up-sweep's pairs in reverse, so it
 * has the same conflicts. Each down-sweep operation loads the same two words as the up-sweep's
 * (same loads: T and W equal, fused or not) and stores both (two store instructions hitting the
 * words of the up-sweep's two separate loads: down-sweep store T = up-sweep load T with fuse=0). */
static void
test_downsweep_mirrors_upsweep (void **state)
{
  static const char *const algos[] = { "scan/nopad", "scan/padding", "scan/leftright",
                                       "scan/leftright:k=4" };
  static const guint64 sizes[] = { 64, 512, 2048 };
  (void) state;
  for (guint a = 0; a < G_N_ELEMENTS (algos); a++)
    for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
      {
        g_autoptr (MdlReport) sep = test_run_algo (algos[a], sizes[s], 7, "kmodel:k=16,fuse=0",
                                                   NULL);
        g_autoptr (MdlReport) fus = test_run_algo (algos[a], sizes[s], 7, "kmodel:k=16,fuse=1",
                                                   NULL);
        const MdlReport *both[] = { sep, fus };
        for (guint f = 0; f < 2; f++)
          {
            static const char *const same[] = { "T_shared_loads", "W_shared_loads", "T_arith",
                                                 "W_arith" };
            for (guint c = 0; c < G_N_ELEMENTS (same); c++)
              if (test_phase_count (both[f], "downsweep", same[c]) != test_phase_count (both[f], "upsweep", same[c]))
                fail_msg ("%s n=%" G_GUINT64_FORMAT " fuse=%u: %s down %" G_GUINT64_FORMAT
                          " up %" G_GUINT64_FORMAT, algos[a], sizes[s], f, same[c],
                          test_phase_count (both[f], "downsweep", same[c]),
                          test_phase_count (both[f], "upsweep", same[c]));
            if (test_phase_count (both[f], "downsweep", "T_shared_stores") != test_phase_count (sep, "upsweep", "T_shared_loads"))
              fail_msg ("%s n=%" G_GUINT64_FORMAT " fuse=%u: down-sweep store T %" G_GUINT64_FORMAT
                        ", up-sweep separate load T %" G_GUINT64_FORMAT, algos[a], sizes[s], f,
                        test_phase_count (both[f], "downsweep", "T_shared_stores"),
                        test_phase_count (sep, "upsweep", "T_shared_loads"));
          }
      }
}

/* The checksum of the scan of the n inputs of @seed, computed sequentially here. */
static guint64
reference_checksum (guint64 n, guint64 seed, gboolean inclusive)
{
  g_autofree guint32 *out = g_new (guint32, n);
  guint64 state = seed;
  guint32 sum = 0;
  for (guint64 i = 0; i < n; i++)
    {
      guint32 a = (guint32) mdl_splitmix64 (&state);
      out[i] = inclusive ? sum + a : sum;
      sum += a;
    }
  return mdl_simt_algo_checksum (out, n * sizeof *out);
}

/* Ensure every scan computes the right result on random inputs, in both builds, for n = 1, sizes
 * that are not powers of two, one block exactly, just over one block (three kernels), and, with
 * small blocks, arrays whose block totals need a second and third level of kernels (block=64,
 * n = 64·64 + 5; block=2, n = 37); LeftRight and Padding also with k = 4 (blocks beyond k²). */
static void
test_scans_correct_random (void **state)
{
  static const char *const algos[] = {
    "scan/nopad", "scan/padding", "scan/leftright", "scan/hillis-steele",
    "scan/padding:k=4,block=64", "scan/leftright:k=4,block=64", "scan/nopad:block=64",
    "scan/hillis-steele:block=64", "scan/leftright:block=2", "scan/hillis-steele:block=2",
  };
  static const guint64 sizes[] = { 1, 2, 3, 17, 37, 1000, 2048, 2049, 4101, 5000 };
  guint32 seed = test_seed (11);
  (void) state;
  for (guint a = 0; a < G_N_ELEMENTS (algos); a++)
    for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
      {
        g_autoptr (GError) error = NULL;
        g_autofree char *name = NULL;
        g_auto (GStrv) assigns = NULL;
        g_autoptr (MdlParams) params = NULL;
        const MdlAlgo *algo;
        g_autoptr (MdlPipeline) p = mdl_pipeline_new ();
        g_autoptr (MdlRecorder) rec = NULL;
        MdlSink sink;
        guint64 want, run = 0, native = 0;
        assert_true (mdl_pipeline_add_engine_spec (p, "kmodel", NULL));
        sink = mdl_pipeline_sink (p);
        rec = mdl_recorder_new (&sink, 0);
        assert_true (mdl_spec_split (algos[a], &name, &assigns, NULL));
        algo = mdl_algo_lookup (name, NULL);
        params = mdl_params_parse (name, algo->params, (const char *const *) assigns, NULL);
        want = reference_checksum (sizes[s], seed, strcmp (name, "scan/hillis-steele") == 0);
        if (!algo->run (params, sizes[s], seed, rec, &run, &error)
            || !mdl_recorder_finish (rec, &error)
            || !algo->run_native (params, sizes[s], seed, NULL, &native, &error))
          fail_msg ("%s n=%" G_GUINT64_FORMAT " seed %u: %s", algos[a], sizes[s], seed,
                    error->message);
        if (run != want || native != want)
          fail_msg ("%s n=%" G_GUINT64_FORMAT " seed %u: checksums %" G_GUINT64_FORMAT " (run), %"
                    G_GUINT64_FORMAT " (native), sequential %" G_GUINT64_FORMAT, algos[a],
                    sizes[s], seed, run, native, want);
      }
}

/* Ensure a run over three kernels moves what the kernels say (n = 4096, block = 2048, k = 16):
 * NoPadding: kernel 1 loads 4096 words (256 segments) and lane 0 of each block writes its total
 * (2); the 2 totals are scanned by one block of one thread (2 loads, 2 stores of 1 segment);
 * kernel 3's lane 0 loads its partial (2), then the block is loaded (256) and stored (256):
 * G = 256 + 2 + 4 + 2 + 512 = 776. The up-sweep phase holds both kernels' up-sweeps (2 x 2 x 639)
 * and the totals' one (1): 2557. */
static void
test_three_kernels (void **state)
{
  g_autoptr (MdlReport) r = test_run_algo ("scan/nopad", 4096, 7, "kmodel:k=16", NULL);
  (void) state;
  assert_int_equal (test_phase_count (r, NULL, "G"), 776);
  assert_int_equal (test_phase_count (r, "upsweep", "T_shared_stores"), 2557);
}

static void
phase_kernel (MdlSimtBlock *blk, void *p)
{
  (void) p;
  mdl_simt_alu (blk, 1);
  mdl_simt_phase_begin (blk, "inner");
  mdl_simt_alu (blk, 1);
  mdl_simt_phase_end (blk, "inner");
}

/* Ensure a phase marked inside a kernel reaches the sink after the warp events issued before it
 * (the layer batches them): launch, ALU, begin, ALU, end, sync. */
static void
test_simt_phase_marker_order (void **state)
{
  TestCollector *c = test_collector_new ();
  MdlSink sink = test_collector_sink (c);
  g_autoptr (MdlSimt) gpu = mdl_simt_new (&sink, 32);
  MdlSimtLaunch shape = { .grid_x = 1, .block_x = 32 };
  (void) state;
  assert_true (mdl_simt_launch (gpu, &shape, phase_kernel, NULL, NULL));
  assert_string_equal (c->order->str, "mwmwmm");
  assert_int_equal (((const TestMarker *) g_ptr_array_index (c->markers, 1))->marker.kind,
                    MDL_MARK_PHASE_BEGIN);
  assert_string_equal (((const TestMarker *) g_ptr_array_index (c->markers, 2))->name, "inner");
  test_collector_free (c);
}

/* Ensure bad parameters are errors that name them. */
static void
test_scan_params (void **state)
{
  const MdlAlgo *algo = mdl_algo_lookup ("scan/leftright", NULL);
  const char *bad_mapping[] = { "mapping=printed", NULL }, *bad_block[] = { "block=48", NULL };
  GError *error = NULL;
  (void) state;
  assert_null (mdl_params_parse ("scan/leftright", algo->params, bad_mapping, &error));
  assert_mdl_error (error, MDL_ERROR_PARAM, "mapping");
  error = NULL;
  assert_null (mdl_params_parse ("scan/leftright", algo->params, bad_block, &error));
  assert_mdl_error (error, MDL_ERROR_PARAM, "block");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_nopad_upsweep_stores_v3),
    cmocka_unit_test (test_padding_upsweep_stores_v4),
    cmocka_unit_test (test_leftright_upsweep_stores_v5),
    cmocka_unit_test (test_leftright_efficiency_v7),
    cmocka_unit_test (test_leftright_parents_on_operands),
    cmocka_unit_test (test_leftright_literal_mapping),
    cmocka_unit_test (test_hillis_steele_v6),
    cmocka_unit_test (test_full_upsweep_v8),
    cmocka_unit_test (test_downsweep_mirrors_upsweep),
    cmocka_unit_test (test_scans_correct_random),
    cmocka_unit_test (test_three_kernels),
    cmocka_unit_test (test_simt_phase_marker_order),
    cmocka_unit_test (test_scan_params),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
