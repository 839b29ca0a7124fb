/* Tests of the bitonic sorting network (src/algos/bitonic.h, src/algos/simt/bitonic.c) and of the
 * sorting cost formulas of Capannini's thesis and of Koike & Sadakane. Expected numbers are the
 * validation cases of ../shared/spec/kmodel-capannini.md (V9-V13) and agpu-koike-sadakane.md
 * (V10), or are derived in the comment above them; docs/models/sort-bitonic.md says which the
 * engines measure on the SIMT twin and which are formulas only. */
#include "helpers.h"

#include "algos/bitonic.h"
#include "algos/keys.h"
#include "algos/simt/simt-algo.h"

#include <math.h>
#include <string.h>

static MdlBitonicPlan plan;

/* Ensure the network on 2^L keys has (L² + L)/2 steps, (s, c) in Algorithm 2's order, and that
 * every layout's passes cover them once, in order (V9: 55 steps at 2^10, 210 at 2^20). */
static void
test_steps_v9 (void **state)
{
  static const guint32 log_n[] = { 1, 2, 10, 20, 26 };
  static const guint32 steps[] = { 1, 3, 55, 210, 351 };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (log_n); i++)
    for (int layout = MDL_BITONIC_GLOBAL; layout <= MDL_BITONIC_FORMULA; layout++)
      {
        guint32 next = 0;
        mdl_bitonic_plan (&plan, log_n[i], 11, 4, (MdlBitonicLayout) layout);
        assert_int_equal (plan.n_steps, steps[i]);
        for (guint p = 0; p < plan.n_passes; p++)
          {
            assert_int_equal (plan.pass[p].first, next);
            assert_true (plan.pass[p].steps >= 1);
            next += plan.pass[p].steps;
          }
        assert_int_equal (next, steps[i]);
      }
  mdl_bitonic_plan (&plan, 3, 11, 4, MDL_BITONIC_GLOBAL);
  /* (1,0) (2,1) (2,0) (3,2) (3,1) (3,0) */
  assert_int_equal (plan.step_s[0], 1);
  assert_int_equal (plan.step_c[0], 0);
  assert_int_equal (plan.step_s[2], 2);
  assert_int_equal (plan.step_c[2], 0);
  assert_int_equal (plan.step_s[3], 3);
  assert_int_equal (plan.step_c[3], 2);
  assert_int_equal (plan.n_passes, 6);
}

/* Ensure InsAt(7, 0, 1) = 1101₂ = 13 and the V9 partition example: n = 16, Γ = {2, 1}: parts
 * {0,2,4,6}, {1,3,5,7}, {8,10,12,14}, {9,11,13,15} (part i: bits of i in positions 0 and 3). */
static void
test_partition_v9 (void **state)
{
  static const guint32 parts[4][4] = {
    { 0, 2, 4, 6 }, { 1, 3, 5, 7 }, { 8, 10, 12, 14 }, { 9, 11, 13, 15 }
  };
  guint32 gamma = 0x6, rest = 0xf & ~gamma;
  (void) state;
  assert_int_equal (mdl_bitonic_ins_at (7, 0, 1), 13);
  assert_int_equal (mdl_bitonic_ins_at (7, 1, 1), 15);
  assert_int_equal (mdl_bitonic_ins_at (5, 0, 0), 10);
  for (guint32 i = 0; i < 4; i++)
    for (guint32 e = 0; e < 4; e++)
      assert_int_equal (mdl_bitonic_deposit (i, rest) | mdl_bitonic_deposit (e, gamma), parts[i][e]);
  assert_int_equal (mdl_bitonic_rank (0x6, 2), 1);
  assert_int_equal (mdl_bitonic_rank (0x6, 1), 0);
}

/* Ensure the tile kernels' O(1) deposits (the masked increment) equal the bit-by-bit deposit
 * for random masks and block sizes, and that a key t | i·n deposits as deposit(t) | deposit(i·n)
 * (how the kernels combine them). */
static void
test_deposits_match_bit_by_bit (void **state)
{
  guint32 seed = test_seed (1313);
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  static guint32 dep[1024];
  (void) state;
  for (guint round = 0; round < 200; round++)
    {
      guint32 mask = g_rand_int (rand) & (round % 2 ? 0xffff : 0xffffffffu);
      guint32 n = 1u << g_rand_int_range (rand, 0, 11);
      mdl_bitonic_deposits (n, mask, dep);
      for (guint32 t = 0; t < n; t++)
        {
          guint32 i = g_rand_int_range (rand, 0, 64);
          if (dep[t] != mdl_bitonic_deposit (t, mask)
              || mdl_bitonic_deposit (t | i * n, mask) != (dep[t] | mdl_bitonic_deposit (i * n, mask)))
            fail_msg ("seed %u: mask 0x%x, n %u, t %u, i %u: %u, deposit %u", seed, mask, n, t, i,
                      dep[t], mdl_bitonic_deposit (t, mask));
        }
    }
}

/* Ensure the greedy schedule of V10 for n = 2^6, σ = 8, k = 2, pass by pass: Γ (as a mask) and
 * the steps it takes. */
static void
test_greedy_schedule_v10 (void **state)
{
  static const struct {
    guint32 gamma, first, steps;
  } want[] = {
    { 0x07, 0, 6 },    /* {2,1,0}: stages 1-3 */
    { 0x0d, 6, 2 },    /* {3,2,0}: (4,3) (4,2) */
    { 0x13, 8, 3 },    /* {4,1,0}: (4,1) (4,0) (5,4) */
    { 0x0d, 11, 2 },   /* {3,2,0}: (5,3) (5,2) */
    { 0x23, 13, 3 },   /* {5,1,0}: (5,1) (5,0) (6,5) */
    { 0x19, 16, 2 },   /* {4,3,0}: (6,4) (6,3) */
    { 0x07, 18, 3 },   /* {2,1,0}: (6,2) (6,1) (6,0) */
  };
  (void) state;
  mdl_bitonic_plan (&plan, 6, 3, 1, MDL_BITONIC_GREEDY);
  assert_int_equal (plan.n_passes, G_N_ELEMENTS (want));
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    {
      assert_int_equal (plan.pass[i].gamma, want[i].gamma);
      assert_int_equal (plan.pass[i].first, want[i].first);
      assert_int_equal (plan.pass[i].steps, want[i].steps);
    }
}

/* Ensure V10's pass counts: the thesis's closed form P, which the formula layout cuts, and the
 * greedy rule's; and G = 2·P·n/k. */
static void
test_pass_counts_v10 (void **state)
{
  static const struct {
    guint32 log_n, log_sigma, log_k, formula, greedy;
    guint64 g_formula, g_greedy;
  } rows[] = {
    { 6, 3, 1, 8, 7, 512, 448 },
    { 10, 4, 2, 19, 18, 9728, 9216 },
    { 16, 11, 4, 11, 9, 90112, 73728 },
    { 20, 11, 4, 21, 17, 2752512, 2228224 },
    { 20, 12, 4, 17, 14, 0, 0 },
  };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      guint64 n = (guint64) 1 << rows[i].log_n, k = (guint64) 1 << rows[i].log_k;
      assert_int_equal (mdl_bitonic_passes_thesis (rows[i].log_n, rows[i].log_sigma, rows[i].log_k),
                        rows[i].formula);
      mdl_bitonic_plan (&plan, rows[i].log_n, rows[i].log_sigma, rows[i].log_k, MDL_BITONIC_FORMULA);
      assert_int_equal (plan.n_passes, rows[i].formula);
      mdl_bitonic_plan (&plan, rows[i].log_n, rows[i].log_sigma, rows[i].log_k, MDL_BITONIC_GREEDY);
      assert_int_equal (plan.n_passes, rows[i].greedy);
      if (rows[i].g_formula)
        {
          assert_int_equal (2 * rows[i].formula * n / k, rows[i].g_formula);
          assert_int_equal (2 * rows[i].greedy * n / k, rows[i].g_greedy);
        }
    }
}

/* Ensure the kmodel engine measures G = 2·P·n/k on the SIMT twin for V10's first three rows, both
 * cuts: every pass reads and writes each key once in whole aligned k-key runs (Γ holds the log k
 * low bits), and a k-lane group of a warp instruction touches one run. */
static void
test_kmodel_g_v10 (void **state)
{
  static const struct {
    guint64 n;
    const char *algo;
    const char *engine;
    guint64 g;
  } rows[] = {
    { 64, "sort/bitonic:layout=greedy,tile=8,k=2,block=4", "kmodel:k=2", 448 },
    { 64, "sort/bitonic:layout=formula,tile=8,k=2,block=4", "kmodel:k=2", 512 },
    { 1024, "sort/bitonic:layout=greedy,tile=16,k=4,block=8", "kmodel:k=4", 9216 },
    { 1024, "sort/bitonic:layout=formula,tile=16,k=4,block=8", "kmodel:k=4", 9728 },
    { 65536, "sort/bitonic:layout=greedy,tile=2048,k=16,block=512", "kmodel:k=16", 73728 },
    { 65536, "sort/bitonic:layout=formula,tile=2048,k=16,block=512", "kmodel:k=16", 90112 },
  };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (MdlReport) r = test_run_algo (rows[i].algo, rows[i].n, 3, rows[i].engine, NULL);
      guint64 g = test_report_count (r, "G");
      if (g != rows[i].g)
        fail_msg ("%s n=%" G_GUINT64_FORMAT ": G %" G_GUINT64_FORMAT ", expected %" G_GUINT64_FORMAT,
                  rows[i].algo, rows[i].n, g, rows[i].g);
    }
}

/* Ensure the tile passes' shared latency under the K-model (k = 16 banks, p and q loads issued
 * separately, as the CUDA twin does): one tile of 32 keys, 16 threads (one warp of 16 lanes: one
 * k-group). Load and store of the tile: 2 rounds each of conflict-free shared stores, loads: 4.
 * The 15 steps of stages 1..5 have c = 0 five times, 1 four, 2 three, 3 twice, 4 once; each is
 * one round of 4 shared instructions (ld p, ld q, st p, st q, q's pattern being p's shifted) with
 * p = InsAt(j, 0, c), j = 0..15, mod 16: c = 0: 0,2,..,14 twice (queue 2); c = 1: 0,1,4,5,..,13
 * twice (2); c = 2: 0..3, 8..11 twice (2); c = 3: 0..7 twice (2); c = 4: 0..15 (1) — the notes'
 * "c < log k gives 2-way conflicts". T = 4 + 4·(5·2 + 4·2 + 3·2 + 2·2 + 1·1) = 120; the
 * instructions number 4 + 4·15 = 64. With fuse=1 (the engine's default) the p and q loads of a
 * step are one instruction of 32 requests, 2 on every bank for every c (the notes' check of
 * Algorithm 4): T = 4 + 15·2 + 2·(5·2 + 4·2 + 3·2 + 2·2 + 1·1) = 92. */
static void
test_kmodel_tile_conflicts (void **state)
{
  static const struct {
    const char *engine;
    guint64 t;
  } rows[] = { { "kmodel:k=16,fuse=0", 120 }, { "kmodel:k=16,fuse=1", 92 } };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (MdlReport) r = test_run_algo ("sort/bitonic:layout=greedy,tile=32,block=16", 32, 5,
                                               rows[i].engine, NULL);
      assert_int_equal (test_report_count (r, "T_shared_loads")
                          + test_report_count (r, "T_shared_stores"), rows[i].t);
    }
}

/* Ensure the register groups of one tile pass over 32 keys (stages 1..5, 15 steps): with 16 keys
 * a thread (4 positions) the steps (1,0)..(4,0) fit {0,1,2,3} (10 steps); (5,4) opens {4} and
 * (5,3), (5,2), (5,1) join it (4 steps); (5,0) opens the last group, filled to {0,1,2,3}. Each
 * group moves every key through shared memory once each way, so the K-model's W of shared loads
 * (lanes summed; fuse=0, as a fused pair of loads counts its length once) is 32 per group plus 32
 * for the tile's store to global: 128, against
 * 32·(15 + 1) = 512 with a pair per step (regs=2). */
static void
test_register_groups (void **state)
{
  guint32 mask[MDL_BITONIC_MAX_STEPS], steps[MDL_BITONIC_MAX_STEPS];
  static const struct {
    const char *algo;
    guint64 w;
  } rows[] = {
    { "sort/bitonic:layout=greedy,tile=32,block=2,regs=16", 128 },
    { "sort/bitonic:layout=greedy,tile=32,block=16,regs=2", 512 },
    { "sort/bitonic:layout=greedy,tile=32,block=2,regs=16,pad=1", 128 },
  };
  (void) state;
  mdl_bitonic_plan (&plan, 5, 5, 4, MDL_BITONIC_GREEDY);
  assert_int_equal (plan.n_passes, 1);
  assert_int_equal (mdl_bitonic_groups (&plan, &plan.pass[0], 4, mask, steps), 3);
  assert_int_equal (mask[0], 0xf);
  assert_int_equal (steps[0], 10);
  assert_int_equal (mask[1], 0x1e);
  assert_int_equal (steps[1], 4);
  assert_int_equal (mask[2], 0xf);
  assert_int_equal (steps[2], 1);
  assert_int_equal (mdl_bitonic_groups (&plan, &plan.pass[0], 1, mask, steps), 15);
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (MdlReport) r = test_run_algo (rows[i].algo, 32, 6, "kmodel:k=16,fuse=0", NULL);
      assert_int_equal (test_report_count (r, "W_shared_loads"), rows[i].w);
      assert_int_equal (test_report_count (r, "W_shared_stores"), rows[i].w);
    }
}

/* Ensure the V11 calibration: with σ = 2^11, k = 16 and the greedy rule, P = 17, 22, 27, 34 at
 * n = 2^20 .. 2^26, and Table 3.2's measured bitonic transactions are 0.3572 ± 0.0006 of
 * 2·P·n/16 at every size (the notes' 5/14 factor), so that the size-to-size ratios agree within
 * 0.2%; the thesis's closed form does not (its factor drifts from 0.289 to 0.304). */
static void
test_table32_calibration_v11 (void **state)
{
  static const guint64 measured[] = { 796800, 4119680, 20223360, 101866786 };
  static const guint32 greedy[] = { 17, 22, 27, 34 };
  double ratio[4], thesis_ratio[4];
  (void) state;
  for (guint i = 0; i < 4; i++)
    {
      guint32 log_n = 20 + 2 * i;
      double n = ldexp (1, (int) log_n);
      mdl_bitonic_plan (&plan, log_n, 11, 4, MDL_BITONIC_GREEDY);
      assert_int_equal (plan.n_passes, greedy[i]);
      ratio[i] = measured[i] / (2.0 * plan.n_passes * n / 16);
      thesis_ratio[i] = measured[i] / (2.0 * mdl_bitonic_passes_thesis (log_n, 11, 4) * n / 16);
      assert_true (fabs (ratio[i] - 0.3572) < 0.0006);
    }
  for (guint i = 1; i < 4; i++)
    {
      double got = (double) measured[i] / measured[i - 1];
      double want = 4.0 * greedy[i] / greedy[i - 1];
      assert_true (fabs (got / want - 1) < 0.002);
    }
  assert_true (thesis_ratio[0] < 0.290 && thesis_ratio[3] > 0.303);
}

/* Ensure Table 3.2's "divergent paths" of the bitonic sort, 0: the SIMT twin issues no branch
 * (the network is data-independent), on any distribution. */
static void
test_no_divergence_v11 (void **state)
{
  static const char *const algos[] = {
    "sort/bitonic:layout=greedy,tile=64,block=16,dist=uniform",
    "sort/bitonic:layout=stage,tile=64,block=16,dist=few",
    "sort/bitonic:layout=global,block=16,dist=reverse",
  };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (algos); i++)
    {
      g_autoptr (MdlReport) r = test_run_algo (algos[i], 1024, 9, "divergence", NULL);
      assert_int_equal (test_report_count (r, "branches"), 0);
      assert_int_equal (test_report_count (r, "divergent_branches"), 0);
    }
}

/* Ensure V12: the thesis's quicksort table at n = 2^20, k = 16, per step and × log n = 20. */
static void
test_quicksort_formulas_v12 (void **state)
{
  static const guint64 want[3][3] = {
    { 65538, 65536, 1048576 },
    { 16384, 64, 131072 },
    { 1114112, 65536, 1048576 },
  };
  guint64 g = 0, t = 0, w = 0;
  (void) state;
  for (guint k = 1; k <= 3; k++)
    {
      guint64 kg, kt, kw;
      mdl_capannini_quicksort_step (k, 1 << 20, 16, &kg, &kt, &kw);
      assert_int_equal (kg, want[k - 1][0]);
      assert_int_equal (kt, want[k - 1][1]);
      assert_int_equal (kw, want[k - 1][2]);
      g += kg, t += kt, w += kw;
    }
  assert_int_equal (20 * g, 23920680);
  assert_int_equal (20 * t, 2622720);
  assert_int_equal (20 * w, 44564480);
}

/* Ensure V13: the radix sort's (32/b)(n/h)2^b = 131,072 at b = 4, h = 1024, n = 2^20; and the
 * thesis's ranking at 2^20 (radix's G below the greedy bitonic's 2,228,224 and quicksort's). */
static void
test_radix_formula_v13 (void **state)
{
  (void) state;
  assert_int_equal (mdl_capannini_radix_g (1 << 20, 4, 1024), 131072);
  assert_int_equal (mdl_capannini_radix_g (1 << 20, 8, 1024), 4 * 1024 * 256);
  assert_true (mdl_capannini_radix_g (1 << 20, 4, 1024) < 2228224);
}

/* Ensure AGPU V10's bitonic I/O: (2n/b)(1 + L(L+3)/2), L = log(n/M): 45 passes, 2,949,120 block
 * accesses at n = 2^20, M = 2^12, b = 32; the stage layout with tile M cuts exactly those passes;
 * and the agpu engine measures (2n/b)·passes on the SIMT twin at n = 2^14, M = 2^9 (L = 5:
 * 21 passes, 21,504). */
static void
test_agpu_bitonic_io_v10 (void **state)
{
  (void) state;
  assert_int_equal (mdl_koike_bitonic_io (1 << 20, 1 << 12, 32), 2949120);
  mdl_bitonic_plan (&plan, 20, 12, 5, MDL_BITONIC_STAGE);
  assert_int_equal (plan.n_passes, 45);
  mdl_bitonic_plan (&plan, 14, 9, 5, MDL_BITONIC_STAGE);
  assert_int_equal (plan.n_passes, 21);
  assert_int_equal (mdl_koike_bitonic_io (1 << 14, 1 << 9, 32), 21504);
  {
    g_autoptr (MdlReport) r = test_run_algo ("sort/bitonic:layout=stage,tile=512,block=256",
                                             1 << 14, 4, "agpu:b=32,M=512", NULL);
    assert_int_equal (test_report_count (r, "io"), 21504);
  }
}

/* The checksum of the first @n keys of @dist for @seed, sorted: what a correct run returns. */
static guint64
sorted_checksum (guint64 n, MdlKeyDist dist, guint64 seed)
{
  g_autofree guint32 *keys = g_new (guint32, n);
  assert_true (mdl_keys_fill (keys, n, dist, seed));
  assert_true (mdl_keys_sort (keys, n));
  return mdl_simt_algo_checksum (keys, 4 * n);
}

/* Ensure every layout sorts every distribution at powers of two and at other n (padded with the
 * largest key), the instrumented and native builds agreeing with a sort of our own. */
static void
test_sorts_all_distributions (void **state)
{
  static const char *const layouts[] = {
    "layout=global,block=8", "layout=stage,tile=16,block=4", "layout=greedy,tile=32,k=4,block=8",
    "layout=formula,tile=16,k=2,block=2", "layout=greedy,tile=8192,block=1024",
    "layout=greedy,tile=64,k=4,block=4,regs=8,pad=1", "layout=stage,tile=32,block=2,regs=16",
    "layout=formula,tile=128,k=8,block=8,regs=4,pad=1",
    "layout=greedy,tile=32768,k=32,block=1024,regs=16,pad=1",
  };
  static const guint64 sizes[] = { 1, 2, 3, 31, 32, 33, 100, 512, 1000 };
  static const char *const dists[] = { "uniform", "gaussian", "zero", "sorted", "bucket",
                                       "staggered", "reverse", "few", "special" };
  const MdlAlgo *algo = mdl_algo_lookup ("sort/bitonic", NULL);
  (void) state;
  assert_non_null (algo);
  for (guint l = 0; l < G_N_ELEMENTS (layouts); l++)
    for (guint d = 0; d < G_N_ELEMENTS (dists); d++)
      for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
        {
          g_autofree char *spec = g_strdup_printf ("%s,dist=%s", layouts[l], dists[d]);
          g_auto (GStrv) assigns = g_strsplit (spec, ",", -1);
          g_autoptr (GError) error = NULL;
          g_autoptr (MdlParams) params = mdl_params_parse ("sort/bitonic", algo->params,
                                                           (const char *const *) assigns, &error);
          guint64 sum = 0, want = sorted_checksum (sizes[s], (MdlKeyDist) d, 11 + s);
          assert_non_null (params);
          if (!algo->run_native (params, sizes[s], 11 + s, NULL, &sum, &error))
            fail_msg ("%s n=%" G_GUINT64_FORMAT ": %s", spec, sizes[s], error->message);
          assert_true (sum == want);
        }
  {
    guint64 sum = 0;
    g_autoptr (MdlReport) r = test_run_algo ("sort/bitonic:layout=greedy,tile=64,block=32,dist=few",
                                             1000, 2, "count", &sum);
    assert_true (sum == sorted_checksum (1000, MDL_KEYS_FEW, 2));
  }
}

/* Ensure bad sizes and parameters are refused with the name of the problem. */
static void
test_refuses_bad_input (void **state)
{
  const MdlAlgo *algo = mdl_algo_lookup ("sort/bitonic", NULL);
  const char *const bad_tile[] = { "tile=24", NULL };
  const char *const bad_layout[] = { "layout=odd", NULL };
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlParams) params = mdl_params_parse ("sort/bitonic", algo->params, NULL, &error);
  guint64 sum;
  (void) state;
  assert_false (algo->run_native (params, 0, 1, NULL, &sum, &error));
  test_assert_error (error, MDL_ERROR_PARAM, "n=0", __FILE__, __LINE__);
  g_clear_error (&error);
  assert_false (algo->run_native (params, ((guint64) 1 << 26) + 1, 1, NULL, &sum, &error));
  test_assert_error (error, MDL_ERROR_PARAM, "sort/bitonic", __FILE__, __LINE__);
  g_clear_error (&error);
  assert_null (mdl_params_parse ("sort/bitonic", algo->params, bad_tile, &error));
  test_assert_error (error, MDL_ERROR_PARAM, "tile", __FILE__, __LINE__);
  g_clear_error (&error);
  assert_null (mdl_params_parse ("sort/bitonic", algo->params, bad_layout, &error));
  test_assert_error (error, MDL_ERROR_PARAM, "layout", __FILE__, __LINE__);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_steps_v9),
    cmocka_unit_test (test_partition_v9),
    cmocka_unit_test (test_deposits_match_bit_by_bit),
    cmocka_unit_test (test_greedy_schedule_v10),
    cmocka_unit_test (test_pass_counts_v10),
    cmocka_unit_test (test_kmodel_g_v10),
    cmocka_unit_test (test_kmodel_tile_conflicts),
    cmocka_unit_test (test_register_groups),
    cmocka_unit_test (test_table32_calibration_v11),
    cmocka_unit_test (test_no_divergence_v11),
    cmocka_unit_test (test_quicksort_formulas_v12),
    cmocka_unit_test (test_radix_formula_v13),
    cmocka_unit_test (test_agpu_bitonic_io_v10),
    cmocka_unit_test (test_sorts_all_distributions),
    cmocka_unit_test (test_refuses_bad_input),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
