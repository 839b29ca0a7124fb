/* Tests of the CPU cost models (src/experiments/cpu-model.c) on synthetic experiments: points whose
 * times are made from known costs per event are fitted back, so that each term's count (dependent
 * and independent misses per level, the prefetched stream, TLB, walks, mispredictions) is shown
 * to reach the column its coefficient multiplies, and the fit to recover the costs. */
#include "helpers.h"

#include "experiments/vat-private.h"

#include <math.h>
#include <string.h>

#define N_ALGOS 6
#define N_SIZES 8

/* The costs the synthetic times are made of, ns per event, in the hierarchy+ops+branch model's
 * term order and then the store misses'; hierarchy+ops has them all but the branches', the
 * hierarchy model neither the dependent loads', the branches' nor the stores'. Dependent misses
 * cost far more than independent ones of the same level, as on a real core, and so do the misses
 * of stores; an independent load's miss costs what the level's independent miss costs (the
 * times without store misses are the same for both names). */
static const VatCpuTerm true_terms[] = {
  TERM_OPS, TERM_DEP_READ, TERM_BRANCH, TERM_WRITE, TERM_L1_INDEP, TERM_L1_DEP, TERM_L2_INDEP,
  TERM_L2_DEP, TERM_L3_INDEP, TERM_L3_DEP, TERM_L3_STREAM, TERM_TLB, TERM_WALK, TERM_MISPREDICT,
  TERM_L1_STORE, TERM_L2_STORE, TERM_L1_LOAD_INDEP, TERM_L2_LOAD_INDEP, TERM_MISPREDICT_WARM,
  TERM_CHASE_READ, TERM_L1_DEP_BRANCH, TERM_L2_DEP_BRANCH, TERM_L3_DEP_BRANCH, TERM_L1_CHASE,
  TERM_L2_CHASE, TERM_L3_CHASE, TERM_WALK_INDEP, TERM_WALK_DEP, TERM_L1_DEP_GUESSED,
  TERM_L2_DEP_GUESSED, TERM_L3_DEP_GUESSED, TERM_L1_DEP_MISGUESSED, TERM_L2_DEP_MISGUESSED,
  TERM_L3_DEP_MISGUESSED,
};
static const double true_ns[] = { 1.0, 1.5, 0.6, 0.3, 0.5, 4.0, 2.0, 30.0, 8.0, 90.0, 2.5, 1.5,
                                  20.0, 7.0, 3.0, 12.0, 0.5, 2.0, 7.0, 2.5, 4.0, 30.0, 90.0, 9.0,
                                  110.0, 160.0, 20.0, 35.0, 1.0, 6.0, 40.0, 8.0, 70.0, 150.0 };

/* Which costs a synthetic experiment's times hold: per-operation ones, misses of stores (part of
 * the random-only misses of L1 and L2, at their own price), the mispredictions of a warm
 * predictor (fewer than a cold one's, which then cost nothing), chase loads (some of the
 * dependent ones, costing more), and chase misses (some of the dependent misses of each level,
 * at a higher price; without them a dependent miss costs the same whether it is a chase's or
 * not, so the TERM_L*_DEP_BRANCH costs repeat the TERM_L*_DEP ones), and dependent loads' page
 * walks (some of the walks, at a higher price; TERM_WALK_INDEP's cost repeats TERM_WALK's).
 * CHASES_IN_FIRST_ONLY: only algorithm "a" has chase loads and chase misses, as only the van Emde
 * Boas search has them among the experiment's algorithms. WITH_GUESSES: a branch-chosen
 * dependent miss costs the TERM_L*_DEP_GUESSED price, or the TERM_L*_DEP_MISGUESSED one for the
 * point's share of warm mispredictions per branch. */
enum { WITH_DEP_AND_STORES = 1, WITH_BRANCHES = 2, WITH_STORE_MISSES = 4, WITH_WARM_BRANCHES = 8,
       WITH_CHASES = 16, WITH_CHASE_MISSES = 32, WITH_DEP_WALKS = 64, CHASES_IN_FIRST_ONLY = 128,
       WITH_GUESSES = 256 };
G_STATIC_ASSERT (G_N_ELEMENTS (true_ns) == G_N_ELEMENTS (true_terms));

static double
true_cost (VatCpuTerm t)
{
  for (guint k = 0; k < G_N_ELEMENTS (true_terms); k++)
    if (true_terms[k] == t)
      return true_ns[k];
  fail_msg ("no true cost for term %s", mdl_vat_cpu_term_name (t));
  return NAN;
}

static const char *const algo_names[N_ALGOS] = { "a", "b", "c", "d", "e", "f" };

/* A count of about @scale per element of @n, drawn from @rand. */
static guint64
draw (GRand *rand, guint64 n, double scale)
{
  return (guint64) (g_rand_double_range (rand, 0.05, 1.0) * scale * (double) n);
}

/* An experiment of N_ALGOS algorithms at N_SIZES sizes with random counts and times made exactly
 * of true_ns (the per-operation costs only those @with asks for). No line counts as a warm first
 * touch (lines = 0), so every miss is charged. */
static MdlVatExperiment *
synthetic_experiment (guint32 seed, guint with)
{
  MdlVatExperiment *exp = g_new0 (MdlVatExperiment, 1);
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  exp->points = g_array_new (FALSE, TRUE, sizeof (MdlVatPoint));
  exp->n_algos = N_ALGOS;
  exp->algo_names = g_new (const char *, N_ALGOS);
  memcpy (exp->algo_names, algo_names, sizeof algo_names);
  exp->cache_bytes[0] = 32 << 10;
  exp->cache_bytes[1] = 1 << 20;
  exp->cache_bytes[2] = 32 << 20;
  exp->page_bytes = 4096;
  exp->tc_cells = 64;
  exp->split_bytes = (guint64) 1 << 20;
  for (guint a = 0; a < N_ALGOS; a++)
    for (guint s = 0; s < N_SIZES; s++)
      {
        guint64 n = (guint64) 1024 << s, dep[3], indep[3], store[3] = { 0 }, chase[3] = { 0 };
        guint64 stream;
        double ns = 0;
        MdlVatPoint p = { .algorithm = algo_names[a], .n = n, .bytes = 8 * n };
        p.ram_ops = n + draw (rand, n, 20);
        for (guint l = 0; l < 3; l++)
          {
            dep[l] = draw (rand, n, 1.0 / (1 + l));
            indep[l] = draw (rand, n, 2.0 / (1 + l));
            if (l < 2 && (with & WITH_STORE_MISSES))
              store[l] = draw (rand, n, 0.5 / (1 + l));
            if ((with & WITH_CHASE_MISSES) && (a == 0 || !(with & CHASES_IN_FIRST_ONLY)))
              chase[l] = (guint64) (g_rand_double (rand) * (double) dep[l]);
            p.dependent_misses[l] = dep[l];
            p.chase_misses[l] = chase[l];
            p.random_write_misses[l] = store[l];
            p.random_misses[l] = dep[l] + indep[l] + store[l];
            p.cache_misses[l] = dep[l] + indep[l] + store[l];
          }
        stream = draw (rand, n, 0.5);
        p.cache_misses[2] += stream;   /* at L3 the random-only cache lacks the streams' misses */
        p.tlb_misses = draw (rand, n, 0.3);
        p.walks = draw (rand, n, 0.1);
        if (with & WITH_DEP_WALKS)
          p.dependent_walks = (guint64) (g_rand_double (rand) * (double) p.walks);
        p.mispredicts = draw (rand, n, 0.5);
        p.dependent_reads = draw (rand, n, 3);
        p.branches = p.mispredicts + draw (rand, n, 2);
        if (with & WITH_WARM_BRANCHES)
          p.warm_mispredicts = (guint64) (g_rand_double (rand) * (double) p.mispredicts);
        if ((with & WITH_CHASES) && (a == 0 || !(with & CHASES_IN_FIRST_ONLY)))
          p.chase_reads = (guint64) (g_rand_double (rand) * (double) p.dependent_reads);
        p.writes = draw (rand, n, 4);
        {
          /* The load-only names repeat the independent misses, the branch-chosen dependent ones
           * the dependent (counted once, as dependent misses less the chases'), and the
           * independent walks the walks (counted once, as walks less the dependent ones'). */
          const guint64 counts[] = { p.ram_ops, p.dependent_reads, p.branches, p.writes,
                                     indep[0], dep[0] - chase[0], indep[1], dep[1] - chase[1],
                                     indep[2], dep[2] - chase[2], stream, p.tlb_misses,
                                     p.walks - p.dependent_walks, p.mispredicts, store[0],
                                     store[1], 0, 0, p.warm_mispredicts, p.chase_reads, 0, 0, 0,
                                     chase[0], chase[1], chase[2], 0, p.dependent_walks,
                                     0, 0, 0, 0, 0, 0 };
          G_STATIC_ASSERT (G_N_ELEMENTS (counts) == G_N_ELEMENTS (true_ns));
          for (guint t = 0; t < G_N_ELEMENTS (counts); t++)
            {
              VatCpuTerm term = true_terms[t];
              if ((term == TERM_DEP_READ || term == TERM_WRITE) && !(with & WITH_DEP_AND_STORES))
                continue;
              if (term == TERM_BRANCH && !(with & WITH_BRANCHES))
                continue;
              if (term == (with & WITH_WARM_BRANCHES ? TERM_MISPREDICT : TERM_MISPREDICT_WARM))
                continue;
              if ((term == TERM_L1_DEP || term == TERM_L2_DEP || term == TERM_L3_DEP)
                  && (with & WITH_GUESSES))
                continue;
              ns += true_ns[t] * (double) counts[t];
            }
          for (guint l = 0; l < 3 && (with & WITH_GUESSES); l++)
            {
              double wrong = (double) p.warm_mispredicts / (double) p.branches;
              ns += (double) (dep[l] - chase[l])
                    * ((1 - wrong) * true_cost (TERM_L1_DEP_GUESSED + l)
                       + wrong * true_cost (TERM_L1_DEP_MISGUESSED + l));
            }
        }
        p.seconds = ns * 1e-9;
        g_array_append_val (exp->points, p);
      }
  return exp;
}

static void
experiment_free (MdlVatExperiment *exp)
{
  mdl_vat_cpu_models_clear (exp);
  g_array_unref (exp->points);
  g_free (exp);
}

static const VatCpuModel *
model_named (const MdlVatExperiment *exp, const char *name)
{
  for (guint m = 0; m < VAT_CPU_MODELS; m++)
    if (strcmp (exp->cpu[m].name, name) == 0)
      return &exp->cpu[m];
  fail_msg ("no cost model %s", name);
  return NULL;
}

/* Fits the cost models of synthetic experiments (5 seeds) and checks that model @name gives back
 * every cost the times were made of, each beside the term named for it, with @n_terms terms, and
 * predicts every algorithm it left out exactly (LOAO R^2 = 1). */
static void
assert_recovers_costs (const char *name, guint n_terms, guint with)
{
  guint32 seed = test_seed (20261127);
  for (guint k = 0; k < 5; k++)
    {
      MdlVatExperiment *exp = synthetic_experiment (seed + k, with);
      const VatCpuModel *h;
      mdl_vat_cpu_models (exp);
      h = model_named (exp, name);
      assert_int_equal (h->n_terms, n_terms);
      for (guint t = 0; t < h->n_terms; t++)
        if (fabs (h->coef[t] - true_cost (h->terms[t])) > 1e-6 * true_cost (h->terms[t]))
          fail_msg ("seed %u: %s: %s fitted %.9f ns, made with %.3f", seed + k, name,
                    mdl_vat_cpu_term_name (h->terms[t]), h->coef[t], true_cost (h->terms[t]));
      assert_float_equal (h->r2_fit, 1, 1e-9);
      assert_float_equal (h->r2_loao, 1, 1e-9);
      assert_float_equal (h->loao_max, 0, 1e-6);
      experiment_free (exp);
    }
}

/* Ensure the hierarchy model recovers the 11 costs of times made without per-operation terms. */
static void
test_hierarchy_recovers_known_costs (void **state)
{
  (void) state;
  assert_recovers_costs ("hierarchy", 11, 0);
}

/* Ensure hierarchy+ops recovers its 13 costs, the dependent loads' and the stores' included,
 * and hierarchy+ops+branch its 14 with the branches', which the counts dependent_reads, writes
 * and branches reach; and that a model without them cannot predict the algorithms it leaves out
 * from the same times. */
static void
test_per_operation_terms_recover_their_costs (void **state)
{
  MdlVatExperiment *exp = synthetic_experiment (test_seed (20261127),
                                                WITH_DEP_AND_STORES | WITH_BRANCHES);
  (void) state;
  assert_recovers_costs ("hierarchy+ops", 13, WITH_DEP_AND_STORES);
  assert_recovers_costs ("hierarchy+ops+branch", 14, WITH_DEP_AND_STORES | WITH_BRANCHES);
  mdl_vat_cpu_models (exp);
  assert_true (model_named (exp, "hierarchy")->loao_max > 0.01);
  assert_true (model_named (exp, "hierarchy+ops")->loao_max > 0.01);
  experiment_free (exp);
}

/* Ensure hierarchy+stores recovers its 15 costs when the misses of stores cost more than those
 * of independent loads, and that hierarchy+ops, which prices both alike, cannot, though every
 * coefficient it fits stays non-negative. */
static void
test_store_misses_recover_their_costs (void **state)
{
  const guint with = WITH_DEP_AND_STORES | WITH_STORE_MISSES;
  MdlVatExperiment *exp = synthetic_experiment (test_seed (20261127), with);
  const VatCpuModel *ops;
  (void) state;
  assert_recovers_costs ("hierarchy+stores", 15, with);
  mdl_vat_cpu_models (exp);
  ops = model_named (exp, "hierarchy+ops");
  assert_true (ops->loao_max > 0.01);
  for (guint t = 0; t < ops->n_terms; t++)
    assert_true (ops->coef[t] >= 0);
  experiment_free (exp);
}

/* Ensure hierarchy+stores+warm recovers its 15 costs when the times pay for the warm predictor's
 * mispredictions, and that hierarchy+stores, which counts a cold one's, cannot. */
static void
test_warm_mispredictions_recover_their_cost (void **state)
{
  const guint with = WITH_DEP_AND_STORES | WITH_STORE_MISSES | WITH_WARM_BRANCHES;
  MdlVatExperiment *exp = synthetic_experiment (test_seed (20261127), with);
  (void) state;
  assert_recovers_costs ("hierarchy+stores+warm", 15, with);
  mdl_vat_cpu_models (exp);
  assert_true (model_named (exp, "hierarchy+stores")->loao_max > 0.01);
  experiment_free (exp);
}

/* Ensure hierarchy+chase recovers its 16 costs when chase loads cost more than the other dependent
 * loads, and that hierarchy+stores+warm, which prices all dependent loads alike, cannot. */
static void
test_chase_loads_recover_their_cost (void **state)
{
  const guint with = WITH_DEP_AND_STORES | WITH_STORE_MISSES | WITH_WARM_BRANCHES | WITH_CHASES;
  MdlVatExperiment *exp = synthetic_experiment (test_seed (20261127), with);
  (void) state;
  assert_recovers_costs ("hierarchy+chase", 16, with);
  mdl_vat_cpu_models (exp);
  assert_true (model_named (exp, "hierarchy+stores+warm")->loao_max > 0.01);
  experiment_free (exp);
}

/* Ensure hierarchy+chase-misses recovers its 19 costs when a chase load's miss costs more than
 * another dependent load's at every level, and that hierarchy+chase, which prices both alike,
 * cannot, though every coefficient it fits stays non-negative. */
static void
test_chase_misses_recover_their_cost (void **state)
{
  const guint with = WITH_DEP_AND_STORES | WITH_STORE_MISSES | WITH_WARM_BRANCHES | WITH_CHASES
                     | WITH_CHASE_MISSES;
  MdlVatExperiment *exp = synthetic_experiment (test_seed (20261127), with);
  const VatCpuModel *chase;
  (void) state;
  assert_recovers_costs ("hierarchy+chase-misses", 19, with);
  mdl_vat_cpu_models (exp);
  chase = model_named (exp, "hierarchy+chase");
  assert_true (chase->loao_max > 0.01);
  for (guint t = 0; t < chase->n_terms; t++)
    assert_true (chase->coef[t] >= 0);
  experiment_free (exp);
}

/* Ensure hierarchy+dep-walks recovers its 20 costs when a dependent load's page walk costs more
 * than another's, and that hierarchy+chase-misses, which prices every walk alike, cannot. */
static void
test_dependent_walks_recover_their_cost (void **state)
{
  const guint with = WITH_DEP_AND_STORES | WITH_STORE_MISSES | WITH_WARM_BRANCHES | WITH_CHASES
                     | WITH_CHASE_MISSES | WITH_DEP_WALKS;
  MdlVatExperiment *exp = synthetic_experiment (test_seed (20261127), with);
  (void) state;
  assert_recovers_costs ("hierarchy+dep-walks", 20, with);
  mdl_vat_cpu_models (exp);
  assert_true (model_named (exp, "hierarchy+chase-misses")->loao_max > 0.01);
  experiment_free (exp);
}

/* Ensure hierarchy+chase-probe predicts an algorithm left out whose chase loads and misses no
 * other algorithm has, exactly, when they and the dependent walks cost what the probe measured
 * (its chase: 2.5 ns a step in L1, then 9, 110 and 160 ns more per level, and 35 ns more on 4 KiB
 * pages), and sets those prices beside its fitted ones; hierarchy+dep-walks, which must fit them
 * from the other algorithms, cannot. */
static void
test_probe_priced_chases_predict_the_only_chaser (void **state)
{
  const guint with = WITH_DEP_AND_STORES | WITH_STORE_MISSES | WITH_WARM_BRANCHES | WITH_CHASES
                     | WITH_CHASE_MISSES | WITH_DEP_WALKS | CHASES_IN_FIRST_ONLY;
  MdlVatExperiment *exp = synthetic_experiment (test_seed (20261127), with);
  const double chase_ns[5] = { 2.5, 2.5 + 9.0, 2.5 + 9.0 + 110.0, 2.5 + 9.0 + 110.0 + 160.0,
                               2.5 + 9.0 + 110.0 + 160.0 + 35.0 };
  const VatCpuModel *probe, *fitted;
  (void) state;
  memcpy (exp->probe.chase_ns, chase_ns, sizeof chase_ns);
  mdl_vat_cpu_models (exp);
  probe = model_named (exp, "hierarchy+chase-probe");
  fitted = model_named (exp, "hierarchy+dep-walks");
  assert_int_equal (probe->n_terms, 20);
  for (guint t = 0; t < probe->n_terms; t++)
    if (fabs (probe->coef[t] - true_cost (probe->terms[t])) > 1e-6 * true_cost (probe->terms[t]))
      fail_msg ("%s fitted %.9f ns, made with %.3f", mdl_vat_cpu_term_name (probe->terms[t]),
                probe->coef[t], true_cost (probe->terms[t]));
  assert_float_equal (probe->algos[0].loao_max, 0, 1e-6);
  assert_float_equal (probe->r2_loao, 1, 1e-9);
  assert_true (fitted->algos[0].loao_max > 0.01);
  experiment_free (exp);
}

/* Ensure hierarchy+guesses recovers its 23 costs (the chases' and the dependent walks' priced
 * by the probe, as in the test above) when a branch-chosen miss whose branch was mispredicted
 * costs more than one whose branch was guessed right, and that hierarchy+chase-probe, with one
 * price for both, cannot. */
static void
test_misguessed_misses_recover_their_cost (void **state)
{
  const guint with = WITH_DEP_AND_STORES | WITH_STORE_MISSES | WITH_WARM_BRANCHES | WITH_CHASES
                     | WITH_CHASE_MISSES | WITH_DEP_WALKS | WITH_GUESSES;
  const double chase_ns[5] = { 2.5, 2.5 + 9.0, 2.5 + 9.0 + 110.0, 2.5 + 9.0 + 110.0 + 160.0,
                               2.5 + 9.0 + 110.0 + 160.0 + 35.0 };
  guint32 seed = test_seed (20261127);
  (void) state;
  for (guint k = 0; k < 5; k++)
    {
      MdlVatExperiment *exp = synthetic_experiment (seed + k, with);
      const VatCpuModel *h;
      memcpy (exp->probe.chase_ns, chase_ns, sizeof chase_ns);
      mdl_vat_cpu_models (exp);
      h = model_named (exp, "hierarchy+guesses");
      assert_int_equal (h->n_terms, 23);
      for (guint t = 0; t < h->n_terms; t++)
        if (fabs (h->coef[t] - true_cost (h->terms[t])) > 1e-6 * true_cost (h->terms[t]))
          fail_msg ("seed %u: %s fitted %.9f ns, made with %.3f", seed + k,
                    mdl_vat_cpu_term_name (h->terms[t]), h->coef[t], true_cost (h->terms[t]));
      assert_float_equal (h->r2_loao, 1, 1e-9);
      if (model_named (exp, "hierarchy+chase-probe")->loao_max <= 0.01)
        fail_msg ("seed %u: hierarchy+chase-probe fits misguessed misses it cannot price",
                  seed + k);
      experiment_free (exp);
    }
}

/* Ensure a small fit worked by hand: one operation per element costing 1 ns, and every other
 * size of algorithm "a" with one independent load miss per element at 0.25 ns, of algorithm "b"
 * with one store miss per element at 3 ns (16 sizes each, so that either alone has as many rows
 * as the 15 terms). hierarchy+stores gets op = 1, l1_miss_load_indep = 0.25 and l1_miss_store
 * = 3 back; hierarchy+ops, with one price per L1 miss, fits op = 1 (the sizes without a miss)
 * and the mean of the two prices, (0.25 + 3) / 2 = 1.625. Left out, "a" is predicted by the fit
 * on "b" alone, which has no load miss to price: 1 ns where it took 1.25, 20% off. */
static void
test_store_miss_fit_by_hand (void **state)
{
  MdlVatExperiment *exp = synthetic_experiment (1, 0);
  const VatCpuModel *stores, *ops;
  (void) state;
  g_array_set_size (exp->points, 0);
  exp->n_algos = 2;
  for (guint a = 0; a < 2; a++)
    for (guint s = 0; s < 16; s++)
      {
        guint64 n = (guint64) 1024 << s, misses = s % 2 ? n : 0;
        MdlVatPoint p = { .algorithm = algo_names[a], .n = n, .bytes = 8, .ram_ops = n,
                          .cache_misses = { misses }, .random_misses = { misses },
                          .random_write_misses = { a == 1 ? misses : 0 } };
        p.seconds = ((double) n + (a == 0 ? 0.25 : 3.0) * (double) misses) * 1e-9;
        g_array_append_val (exp->points, p);
      }
  mdl_vat_cpu_models (exp);
  stores = model_named (exp, "hierarchy+stores");
  ops = model_named (exp, "hierarchy+ops");
  for (guint t = 0; t < stores->n_terms; t++)
    {
      double want = stores->terms[t] == TERM_OPS ? 1.0
                    : stores->terms[t] == TERM_L1_LOAD_INDEP ? 0.25
                    : stores->terms[t] == TERM_L1_STORE ? 3.0 : 0;
      if (fabs (stores->coef[t] - want) > 1e-9)
        fail_msg ("hierarchy+stores: %s fitted %.9f ns, by hand %.3f",
                  mdl_vat_cpu_term_name (stores->terms[t]), stores->coef[t], want);
    }
  for (guint t = 0; t < ops->n_terms; t++)
    {
      double want = ops->terms[t] == TERM_OPS ? 1.0 : ops->terms[t] == TERM_L1_INDEP ? 1.625 : 0;
      if (fabs (ops->coef[t] - want) > 1e-9)
        fail_msg ("hierarchy+ops: %s fitted %.9f ns, by hand %.3f",
                  mdl_vat_cpu_term_name (ops->terms[t]), ops->coef[t], want);
    }
  assert_float_equal (stores->r2_fit, 1, 1e-12);
  assert_float_equal (stores->algos[0].loao_max, 0.25 / 1.25, 1e-9);
  assert_float_equal (stores->algos[0].loao_median, 0.5 * 0.25 / 1.25, 1e-9);
  experiment_free (exp);
}

/* Ensure hierarchy+streams charges what the probe measured, worked by hand. Algorithm "a" (a
 * scan) does one operation per element and, at every other size, one L2 miss per element that a
 * stream continues (an L1 miss too, which no price charges: the prefetcher brings the line from
 * L2 while the loop works); "b" one operation and, at every other size, one L1 miss per element
 * of a random independent load. The probe reads an independent L1 hit 0.3 ns and L2 hit 0.5 ns
 * (an independent load's L1 miss: 0.2 ns more) and a sequential read 3 ns per line, and the
 * times are made of those prices: a = 0.3 n + 3 m, b = 0.3 n + 0.2 m. hierarchy+streams has
 * nothing left to fit and predicts either algorithm left out exactly; hierarchy+chase-probe fits
 * one price per L1 and L2 miss of an independent load, and left out, "a" is predicted from "b",
 * where no L2 miss costs anything: 0.3 n + 0.2 m against 3.3 n, (3 - 0.2) / 3.3 off. */
static void
test_streams_priced_by_the_probe_by_hand (void **state)
{
  MdlVatExperiment *exp = synthetic_experiment (1, 0);
  const VatCpuModel *streams, *fitted;
  (void) state;
  g_array_set_size (exp->points, 0);
  exp->n_algos = 2;
  exp->probe.random_ns[0] = 0.3;
  exp->probe.random_ns[1] = 0.5;
  exp->probe.random_ns[2] = 2.0;
  exp->probe.stream_ns = 3.0;
  for (guint a = 0; a < 2; a++)
    for (guint s = 0; s < 16; s++)
      {
        guint64 n = (guint64) 1024 << s, m = s % 2 ? n : 0;
        MdlVatPoint p = { .algorithm = algo_names[a], .n = n, .bytes = 8, .ram_ops = n,
                          .cache_misses = { m, a == 0 ? m : 0 },
                          .random_misses = { a == 1 ? m : 0 } };
        p.seconds = (0.3 * (double) n + (a == 0 ? 3.0 : 0.2) * (double) m) * 1e-9;
        g_array_append_val (exp->points, p);
      }
  mdl_vat_cpu_models (exp);
  streams = model_named (exp, "hierarchy+streams");
  fitted = model_named (exp, "hierarchy+chase-probe");
  for (guint t = 0; t < streams->n_terms; t++)
    {
      VatCpuTerm term = streams->terms[t];
      double want = term == TERM_OPS ? 0.3 : term == TERM_L1_RANDOM_LOAD ? 0.2
                    : term == TERM_L2_STREAM ? 3.0 : term == TERM_L2_RANDOM_LOAD ? 1.5 : 0;
      if (fabs (streams->coef[t] - want) > 1e-9)
        fail_msg ("hierarchy+streams: %s priced %.9f ns, by hand %.3f",
                  mdl_vat_cpu_term_name (term), streams->coef[t], want);
    }
  assert_float_equal (streams->r2_loao, 1, 1e-12);
  assert_float_equal (streams->loao_max, 0, 1e-9);
  assert_float_equal (fitted->algos[0].loao_max, (3.0 - 0.2) / 3.3, 1e-9);
  experiment_free (exp);
}

/* Ensure the same data defeat the model with one cost per miss per level: a dependent miss costs
 * 8 to 15 times an independent one there, and no single cost fits both. */
static void
test_flat_hierarchy_cannot_fit_dependent_misses (void **state)
{
  MdlVatExperiment *exp = synthetic_experiment (test_seed (20261127), 0);
  const VatCpuModel *flat;
  (void) state;
  mdl_vat_cpu_models (exp);
  flat = model_named (exp, "hierarchy-flat");
  assert_true (flat->r2_fit < 0.999);
  assert_true (flat->loao_max > 0.01);
  for (guint t = 0; t < flat->n_terms; t++)
    assert_true (flat->coef[t] >= 0);
  experiment_free (exp);
}

/* Ensure the counts per element by hand: the first touches of lines a warm cache holds are not
 * misses, and since the counts do not say which of them were dependent loads', they are taken
 * from the dependent and the other misses in proportion. n = 1000 elements over 20000 lines:
 *  - L1 (512 lines): 600 misses, 512 warm: 88 independent, none dependent (no random-only miss);
 *  - L2 (16384 lines): 40000 misses, 32768 of them random-only, 3/4 of those (24576) dependent.
 *    Beyond the 16384 warm lines: 16384 random-only, so 12288 dependent; 40000 - 16384 = 23616
 *    in all, so 11328 independent; 4096 of the random-only misses are stores', so beyond the
 *    warm lines 2048, leaving 9280 to independent loads; of the dependent ones 8192 are chase
 *    loads', so beyond the warm lines 4096 chase and 8192 chosen by a branch;
 *  - L3 (524288 lines, all 20000 warm): 50000 misses, 30000 random-only, 10000 dependent: 10000
 *    random-only beyond warm, a third dependent (3333.3: 1333.3 of the 4000 chase misses, 2000 of
 *    the 6000 others), 6666.7 independent, and the 20000 more of the full cache are the
 *    streams'. */
static void
test_term_counts_by_hand (void **state)
{
  MdlVatExperiment *exp = synthetic_experiment (1, 0);
  MdlVatPoint p = { .algorithm = "a", .n = 1000, .ram_ops = 3000, .lines = 20000,
                    .cache_misses = { 600, 40000, 50000 }, .random_misses = { 0, 32768, 30000 },
                    .dependent_misses = { 0, 24576, 10000 }, .chase_misses = { 0, 8192, 4000 },
                    .random_write_misses = { 0, 4096, 0 }, .tlb_misses = 7, .walks = 5,
                    .dependent_walks = 2, .mispredicts = 11, .warm_mispredicts = 3,
                    .chase_reads = 900, .dependent_reads = 2500, .branches = 1300, .writes = 400 };
  static const struct {
    VatCpuTerm term;
    double per_elem;
  } want[] = {
    { TERM_OPS, 3.0 }, { TERM_L1_INDEP, 0.088 }, { TERM_L1_DEP, 0 }, { TERM_L2_INDEP, 11.328 },
    { TERM_L2_DEP, 12.288 }, { TERM_L3_INDEP, 20.0 / 3 }, { TERM_L3_DEP, 10.0 / 3 },
    { TERM_L3_STREAM, 20.0 }, { TERM_L1, 0.088 }, { TERM_L2, 23.616 }, { TERM_L3_RANDOM, 10.0 },
    { TERM_TLB, 0.007 }, { TERM_WALK, 0.005 }, { TERM_MISPREDICT, 0.011 },
    { TERM_DEP_READ, 2.5 }, { TERM_BRANCH, 1.3 }, { TERM_WRITE, 0.4 },
    { TERM_L1_STORE, 0 }, { TERM_L1_LOAD_INDEP, 0.088 }, { TERM_L2_STORE, 2.048 },
    { TERM_L2_LOAD_INDEP, 9.28 }, { TERM_MISPREDICT_WARM, 0.003 },
    { TERM_CHASE_READ, 0.9 }, { TERM_L1_CHASE, 0 }, { TERM_L1_DEP_BRANCH, 0 },
    { TERM_L2_CHASE, 4.096 }, { TERM_L2_DEP_BRANCH, 8.192 }, { TERM_L3_CHASE, 4.0 / 3 },
    { TERM_L3_DEP_BRANCH, 2.0 }, { TERM_WALK_DEP, 0.002 }, { TERM_WALK_INDEP, 0.003 },
    { TERM_L2_STREAM, 7.232 }, { TERM_L1_RANDOM_LOAD, 0 }, { TERM_L2_RANDOM_LOAD, 2.048 },
  };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    {
      double got = mdl_vat_cpu_term_value (exp, &p, want[i].term);
      if (fabs (got - want[i].per_elem) > 1e-9)
        fail_msg ("%s: %.9f per element, expected %.9f", mdl_vat_cpu_term_name (want[i].term),
                  got, want[i].per_elem);
    }
  experiment_free (exp);
}

/* Ensure the split loses nothing and invents nothing: on random points with warm lines, the
 * dependent and independent misses of L1 and L2 add up to the level's misses (flat model's count),
 * and so do their dependent, store and independent-load misses; the chase and branch-chosen
 * misses of every level add up to its dependent ones; those of L3 add up to its
 * random-only misses; every count is non-negative. */
static void
test_split_adds_up_to_the_flat_counts (void **state)
{
  guint32 seed = test_seed (20261127);
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  MdlVatExperiment *exp = synthetic_experiment (seed, 0);
  static const VatCpuTerm whole[3] = { TERM_L1, TERM_L2, TERM_L3_RANDOM };
  (void) state;
  for (guint k = 0; k < 1000; k++)
    {
      MdlVatPoint p = { .n = (guint64) g_rand_int_range (rand, 1, 1 << 20) };
      p.lines = (guint64) g_rand_int_range (rand, 0, 1 << 20);
      for (guint l = 0; l < 3; l++)
        {
          p.dependent_misses[l] = (guint64) g_rand_int_range (rand, 0, 1 << 20);
          p.chase_misses[l] = (guint64) g_rand_int_range (rand, 0, (gint32) p.dependent_misses[l] + 1);
          p.random_write_misses[l] = (guint64) g_rand_int_range (rand, 0, 1 << 20);
          p.random_misses[l] = p.dependent_misses[l] + p.random_write_misses[l]
                               + (guint64) g_rand_int_range (rand, 0, 1 << 20);
          p.cache_misses[l] = p.random_misses[l] + (guint64) g_rand_int_range (rand, 0, 1 << 20);
        }
      for (guint l = 0; l < 3; l++)
        {
          double dep = mdl_vat_cpu_term_value (exp, &p, TERM_L1_DEP + l);
          double indep = mdl_vat_cpu_term_value (exp, &p, TERM_L1_INDEP + l);
          double all = mdl_vat_cpu_term_value (exp, &p, whole[l]);
          double chase = mdl_vat_cpu_term_value (exp, &p, TERM_L1_CHASE + l);
          double dep_branch = mdl_vat_cpu_term_value (exp, &p, TERM_L1_DEP_BRANCH + l);
          if (dep < 0 || indep < 0 || fabs (dep + indep - all) > 1e-9 * MAX (1, all))
            fail_msg ("seed %u, point %u, level %u: dependent %.6f + independent %.6f, whole "
                      "%.6f", seed, k, l + 1, dep, indep, all);
          if (chase < 0 || dep_branch < 0 || fabs (chase + dep_branch - dep) > 1e-9 * MAX (1, dep))
            fail_msg ("seed %u, point %u, level %u: chase %.6f + branch-chosen %.6f, dependent "
                      "%.6f", seed, k, l + 1, chase, dep_branch, dep);
          if (l < 2)
            {
              double store = mdl_vat_cpu_term_value (exp, &p, TERM_L1_STORE + l);
              double load = mdl_vat_cpu_term_value (exp, &p, TERM_L1_LOAD_INDEP + l);
              double random_load = mdl_vat_cpu_term_value (exp, &p, TERM_L1_RANDOM_LOAD + l);
              double stream = l ? mdl_vat_cpu_term_value (exp, &p, TERM_L2_STREAM) : NAN;
              if (store < 0 || load < 0 || fabs (dep + store + load - all) > 1e-9 * MAX (1, all))
                fail_msg ("seed %u, point %u, level %u: dependent %.6f + store %.6f + "
                          "independent load %.6f, whole %.6f", seed, k, l + 1, dep, store, load,
                          all);
              /* L1 has no stream term: its random loads' misses are a part of the
               * independent loads' all the same. */
              if (random_load < 0 || random_load > load + 1e-9 * MAX (1, load)
                  || (l == 1 && (stream < 0 || fabs (stream + random_load - load)
                                                   > 1e-9 * MAX (1, load))))
                fail_msg ("seed %u, point %u, level %u: stream %.6f + random load %.6f, "
                          "independent load %.6f", seed, k, l + 1, stream, random_load, load);
            }
        }
    }
  experiment_free (exp);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_hierarchy_recovers_known_costs),
    cmocka_unit_test (test_per_operation_terms_recover_their_costs),
    cmocka_unit_test (test_store_misses_recover_their_costs),
    cmocka_unit_test (test_store_miss_fit_by_hand),
    cmocka_unit_test (test_warm_mispredictions_recover_their_cost),
    cmocka_unit_test (test_chase_loads_recover_their_cost),
    cmocka_unit_test (test_chase_misses_recover_their_cost),
    cmocka_unit_test (test_dependent_walks_recover_their_cost),
    cmocka_unit_test (test_probe_priced_chases_predict_the_only_chaser),
    cmocka_unit_test (test_misguessed_misses_recover_their_cost),
    cmocka_unit_test (test_streams_priced_by_the_probe_by_hand),
    cmocka_unit_test (test_flat_hierarchy_cannot_fit_dependent_misses),
    cmocka_unit_test (test_term_counts_by_hand),
    cmocka_unit_test (test_split_adds_up_to_the_flat_counts),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
