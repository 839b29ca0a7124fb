/* Tests of the posting-list codecs (src/algos/postings.h) and of their SIMT decoder
 * (src/algos/simt/postings.c): hand-encoded cases, round trips for many sizes and seeds, the
 * optimal VS partition against an exhaustive search, and the K-model counts of
 * ../shared/spec/kmodel-capannini.md V14 measured by the kmodel engine on the SIMT twin. */
#include "helpers.h"

#include "algos/postings.h"

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MdlPostings, mdl_postings_free)

#include <string.h>

/* Ensure three values coded as one VS bunch of width 2 are packed low bits first and decode. */
static void
test_vs_hand_packing (void **state)
{
  static const guint32 v[] = { 1, 2, 3 };
  static const guint32 sizes[] = { 3 };
  guint32 out[3];
  g_autoptr (MdlPostings) p = mdl_postings_encode_vs (v, 3, 4, sizes, 1);
  (void) state;
  assert_int_equal (p->n_blocks, 1);
  assert_int_equal (p->n_bunches, 4);
  assert_int_equal (p->count[0], 3);
  assert_int_equal (p->count[1], 0);
  assert_int_equal (p->width[0], 2);
  /* 1 | 2 << 2 | 3 << 4 = 57 */
  assert_int_equal (p->words[0], 57);
  assert_int_equal (p->block_bit[1], 6);
  mdl_postings_decode (p, out);
  assert_memory_equal (out, v, sizeof v);
}

/* Ensure P4D picks the least width holding 90% of a bunch and keeps the rest's high bits as an
 * exception: 31 ones and 1000 at position 5 give width 1 and exception (5, 1000 >> 1 = 500), the
 * bunch's word all ones but bit 5 (1000 is even); a codeword straddling a word boundary (bit 31) decodes too. */
static void
test_p4d_hand_exception (void **state)
{
  guint32 v[MDL_P4D_NBAR], out[MDL_P4D_NBAR];
  g_autoptr (MdlPostings) p = NULL;
  (void) state;
  for (guint i = 0; i < MDL_P4D_NBAR; i++)
    v[i] = 1;
  v[5] = 1000;
  p = mdl_postings_encode_p4d (v, MDL_P4D_NBAR, 16, MDL_P4D_NBAR);
  assert_int_equal (p->width[0], 1);
  assert_int_equal (p->n_exc, 1);
  assert_int_equal (p->exc_pos[0], 5);
  assert_int_equal (p->exc_high[0], 500);
  assert_int_equal (p->words[0], 0xffffffdfu);
  mdl_postings_decode (p, out);
  assert_memory_equal (out, v, sizeof v);
  /* bits 31..33 of {0x80000000, 0x3}: 1 | 1 << 1 | 1 << 2 */
  assert_int_equal (mdl_postings_bitcpy ((const guint32[]) { 0x80000000u, 3u, 0 }, 31, 3), 7);
}

static guint64
encoded_bits (const MdlPostings *p)
{
  guint64 bits = 0;
  for (guint64 b = 0; b < p->n_bunches; b++)
    if (p->count[b] > 0)
      bits += MDL_VS_SIGNATURE_BITS + (guint64) p->count[b] * p->width[b];
  return bits;
}

/* The least bits of any partition of @v[0..@n) into bunches: every cut tried (exponential). */
static guint64
brute_best (const guint32 *v, guint n)
{
  guint64 best = G_MAXUINT64;
  if (n == 0)
    return 0;
  for (guint l = 1; l <= n && l <= MDL_VS_MAX_BUNCH; l++)
    {
      guint width = 0;
      for (guint c = 0; c < l; c++)
        width = MAX (width, v[c] == 0 ? 0u : 32u - (guint) __builtin_clz (v[c]));
      best = MIN (best, MDL_VS_SIGNATURE_BITS + (guint64) l * width + brute_best (v + l, n - l));
    }
  return best;
}

/* Ensure the VS partition has the least bits of all partitions, on short Zipf and geometric
 * lists (every cut of up to 12 values). */
static void
test_vs_partition_optimal (void **state)
{
  (void) state;
  for (guint64 seed = 1; seed <= 40; seed++)
    {
      guint32 v[12];
      guint n = 1 + (guint) (seed % 12);
      g_autoptr (MdlPostings) p = NULL;
      mdl_postings_gaps (v, n, seed % 2 ? MDL_GAPS_ZIPF : MDL_GAPS_GEOMETRIC, 100, seed);
      p = mdl_postings_encode_vs (v, n, 4, NULL, 0);
      assert_int_equal (encoded_bits (p), brute_best (v, n));
    }
}

/* Ensure both encoders round-trip through the reference decoder for every size around k and
 * larger ones, both distributions, several k and seeds. */
static void
test_round_trip_cpu (void **state)
{
  static const guint k[] = { 4, 16, 32 };
  (void) state;
  for (guint ki = 0; ki < G_N_ELEMENTS (k); ki++)
    {
      guint64 sizes[] = { 0, 1, k[ki] - 1, k[ki], k[ki] + 1, 32 * k[ki] + 3, 100000 };
      for (guint si = 0; si < G_N_ELEMENTS (sizes); si++)
        for (guint64 seed = 1; seed <= 3; seed++)
          for (int dist = MDL_GAPS_GEOMETRIC; dist <= MDL_GAPS_ZIPF; dist++)
            {
              guint64 n = sizes[si];
              g_autofree guint32 *v = g_new0 (guint32, n + 1), *out = g_new0 (guint32, n + 1);
              g_autoptr (MdlPostings) vs = NULL, p4d = NULL;
              mdl_postings_gaps (v, n, (MdlGapDist) dist, 16, seed);
              vs = mdl_postings_encode_vs (v, n, k[ki], NULL, 0);
              p4d = mdl_postings_encode_p4d (v, n, k[ki], MDL_P4D_NBAR);
              mdl_postings_decode (vs, out);
              assert_memory_equal (out, v, 4 * n + 4);
              memset (out, 0, 4 * n);
              mdl_postings_decode (p4d, out);
              assert_memory_equal (out, v, 4 * n + 4);
              assert_int_equal (vs->block_out[vs->n_blocks], n);
            }
    }
}

/* Ensure the d-gaps look like their laws: the geometric mean near `mean`, Zipf's median 0 or 1
 * (P(g = 0) = 1 − 2^−1.5 ≈ 0.65) with a tail past 1000. */
static void
test_gap_laws (void **state)
{
  guint64 n = 200000, sum = 0, zeros = 0, big = 0;
  g_autofree guint32 *v = g_new (guint32, n);
  (void) state;
  mdl_postings_gaps (v, n, MDL_GAPS_GEOMETRIC, 16, 7);
  for (guint64 i = 0; i < n; i++)
    sum += v[i];
  assert_true (sum > 15 * n && sum < 17 * n);
  mdl_postings_gaps (v, n, MDL_GAPS_ZIPF, 16, 7);
  for (guint64 i = 0; i < n; i++)
    {
      zeros += v[i] == 0;
      big += v[i] > 1000;
    }
  assert_true (zeros > n * 60 / 100 && zeros < n * 70 / 100);
  assert_true (big > 0);
}

/* Ensure the SIMT decoder decodes (it checks itself against the encoder's input, so a run that
 * returns is a correct decode) at sizes around k, and that VS and P4D give the same checksum on
 * the same gaps (the same output, coded two ways). */
static void
test_simt_round_trip (void **state)
{
  static const char *const dists[] = { "geometric", "zipf" };
  static const guint64 sizes[] = { 1, 15, 16, 17, 513, 5000 };
  (void) state;
  for (guint d = 0; d < G_N_ELEMENTS (dists); d++)
    for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
      {
        g_autofree char *vs = g_strdup_printf ("postings/vs:dist=%s", dists[d]);
        g_autofree char *p4d = g_strdup_printf ("postings/p4d:dist=%s", dists[d]);
        guint64 sum_vs = 0, sum_p4d = 1;
        g_autoptr (MdlReport) a = test_run_algo (vs, sizes[s], s + 1, "kmodel:k=16", &sum_vs);
        g_autoptr (MdlReport) b = test_run_algo (p4d, sizes[s], s + 1, "kmodel:k=16", &sum_p4d);
        assert_int_equal (sum_vs, sum_p4d);
        {
          g_autofree char *own = g_strdup_printf ("postings/vs:dist=%s,approach=i", dists[d]);
          guint64 sum_own = 2;
          g_autoptr (MdlReport) c = test_run_algo (own, sizes[s], s + 1, "kmodel:k=16", &sum_own);
          assert_int_equal (sum_own, sum_vs);
        }
      }
}

/* V14 approach (ii): bunches [5, 16, 33, 1] at k = 16 take Σ⌈n_i/k⌉ = 1 + 1 + 3 + 1 = 6
 * EXTRACTBUNCH iterations whose output stores have lengths summing to W = 55: the extract phase's
 * shared stores (one per iteration, consecutive words, latency 1) give T = 6 and W = 55, so the
 * efficiency 55/(16·6) = 0.573. PPSUM_16: log 16 = 4 steps whose stores have lengths 15 + 14 + 12
 * + 8 = 49 and latency 1 each (conflict-free). */
static void
test_kmodel_vs_v14 (void **state)
{
  g_autoptr (MdlReport) r = test_run_algo ("postings/vs:bunches=5.16.33.1", 55, 1,
                                           "kmodel:k=16", NULL);
  g_autoptr (MdlReport) unfused = test_run_algo ("postings/vs:bunches=5.16.33.1", 55, 1,
                                                 "kmodel:k=16,fuse=0", NULL);
  guint64 t = test_phase_count (r, "extract", "T_shared_stores");
  guint64 w = test_phase_count (r, "extract", "W_shared_stores");
  (void) state;
  assert_int_equal (t, 6);
  assert_int_equal (w, 55);
  assert_float_equal ((double) w / (16.0 * (double) t), 0.573, 0.0005);
  assert_int_equal (test_phase_count (r, "ppsum-g", "T_shared_stores"), 4);
  assert_int_equal (test_phase_count (r, "ppsum-g", "W_shared_stores"), 49);
  assert_int_equal (test_phase_count (r, "ppsum-h", "W_shared_stores"), 49);
  /* the loads of a step, unfused, are two conflict-free instructions of length k − 2^s */
  assert_int_equal (test_phase_count (unfused, "ppsum-g", "T_shared_loads"), 8);
  assert_int_equal (test_phase_count (unfused, "ppsum-g", "W_shared_loads"), 98);
}

/* V14 approach (i): lane j decodes bunch j alone, so the same bunches take max n_j = 33
 * iterations, each one BITCPY: the extract phase's ALU instructions are 33 plus the 3 of the
 * setup (n·s and the two exclusive sums), 36. Its stores still have W = 55, but lanes 1 and 2
 * store words 5 + c and 21 + c, one bank, while both run (c < 16): T_shared_stores = 16·2 + 17
 * = 49, and the efficiency of the iterations is 55/(16·33) = 0.104 against approach (ii)'s 0.573.
 * The decode is still right (the run checks it). */
static void
test_kmodel_vs_approach_i_v14 (void **state)
{
  g_autoptr (MdlReport) r = test_run_algo ("postings/vs:bunches=5.16.33.1,approach=i", 55, 1,
                                           "kmodel:k=16", NULL);
  (void) state;
  assert_int_equal (test_phase_count (r, "extract", "T_arith"), 33 + 3);
  assert_int_equal (test_phase_count (r, "extract", "W_shared_stores"), 55);
  assert_int_equal (test_phase_count (r, "extract", "T_shared_stores"), 49);
  /* per iteration one BITCPY and one store; the setup's 4 loads fuse into 2, plus its 3 ALU */
  assert_int_equal (test_phase_count (r, "extract", "instructions"), 2 * 33 + 2 + 3);
}

/* V14, P4D with n̄ = 32 at k = 16: one full block of 16 bunches (512 integers) takes 2
 * iterations per bunch, each storing k outputs: T = 32, W = 512, efficiency 1.0. There is no
 * PPSUM of g (g_i = 32·i). */
static void
test_kmodel_p4d_v14 (void **state)
{
  g_autoptr (MdlReport) r = test_run_algo ("postings/p4d", 512, 1, "kmodel:k=16", NULL);
  (void) state;
  assert_int_equal (test_phase_count (r, "extract", "T_shared_stores"), 32);
  assert_int_equal (test_phase_count (r, "extract", "W_shared_stores"), 512);
  assert_int_equal (test_phase_count (r, "ppsum-h", "T_shared_stores"), 4);
}

/* Ensure bad input is refused with the place named. */
static void
test_refuses_bad_input (void **state)
{
  const MdlAlgo *algo = mdl_algo_lookup ("postings/vs", NULL);
  const char *const bad[] = { "bunches=5.0.3", NULL };
  g_autoptr (MdlParams) params = NULL;
  GError *error = NULL;
  guint64 sum;
  (void) state;
  assert_non_null (algo);
  params = mdl_params_parse ("postings/vs", algo->params, bad, &error);
  assert_non_null (params);
  assert_false (algo->run_native (params, 100, 1, NULL, &sum, &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM, "bunches=5.0.3: '0'");
  assert_false (algo->run_native (params, 0, 1, NULL, &sum, &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM, "postings/vs: n=0");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_vs_hand_packing),
    cmocka_unit_test (test_p4d_hand_exception),
    cmocka_unit_test (test_vs_partition_optimal),
    cmocka_unit_test (test_round_trip_cpu),
    cmocka_unit_test (test_gap_laws),
    cmocka_unit_test (test_simt_round_trip),
    cmocka_unit_test (test_kmodel_vs_v14),
    cmocka_unit_test (test_kmodel_vs_approach_i_v14),
    cmocka_unit_test (test_kmodel_p4d_v14),
    cmocka_unit_test (test_refuses_bad_input),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
