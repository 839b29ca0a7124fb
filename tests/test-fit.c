/* Tests of the least-squares fitting of the experiments (src/experiments/fit.c): known parameters
 * recovered from synthetic data, exactly without noise and closely with seeded noise, at the
 * magnitudes the VAT experiment fits (ns per operation beside TC misses per operation); the R^2
 * definition; weights; and refusals of what cannot be fitted. Also one small end-to-end VAT
 * experiment, to check that its fits and writers hold together. */
#include "helpers.h"

#include "experiments/fit.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#define DEFAULT_SEED 20130612u

/* Ensure a line through exact points is recovered exactly, with R^2 = 1. */
static void
test_line_exact (void **state)
{
  const double x[] = { 10, 10.5, 11, 12.5, 20 }, k = -0.25, c = 3.5;
  double y[G_N_ELEMENTS (x)], slope, intercept, r2;
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (x); i++)
    y[i] = c + k * x[i];
  assert_true (mdl_fit_line (x, y, G_N_ELEMENTS (x), &slope, &intercept, &r2));
  assert_float_equal (slope, k, 1e-12);
  assert_float_equal (intercept, c, 1e-12);
  assert_float_equal (r2, 1, 1e-12);
}

/* Ensure a line needs two distinct x. */
static void
test_line_undefined (void **state)
{
  const double x[] = { 4, 4, 4 }, y[] = { 1, 2, 3 };
  (void) state;
  assert_false (mdl_fit_line (x, y, 3, NULL, NULL, NULL));
  assert_false (mdl_fit_line (x, y, 1, NULL, NULL, NULL));
}

/* Synthetic VAT data: normalized time = a[alg] + b * (misses per op), misses per op spanning
 * 1e-4 .. 2 as in the experiment, a of a few ns, b of tens of ns. Row-major [intercepts | x]. */
typedef struct {
  guint n_rows, n_algos;
  double *x, *y;
} Synthetic;

static Synthetic
synthetic (const double *a, guint n_algos, double b, guint per_algo, double noise, GRand *rand)
{
  Synthetic s = { per_algo * n_algos, n_algos, NULL, NULL };
  guint cols = n_algos + 1;
  s.x = g_new0 (double, s.n_rows * cols);
  s.y = g_new (double, s.n_rows);
  for (guint r = 0; r < s.n_rows; r++)
    {
      guint alg = r % n_algos;
      double misses = pow (10, g_rand_double_range (rand, -4, 0.3));
      s.x[r * cols + alg] = 1;
      s.x[r * cols + n_algos] = misses;
      s.y[r] = a[alg] + b * misses + noise * g_rand_double_range (rand, -1, 1);
    }
  return s;
}

static void
synthetic_free (Synthetic *s)
{
  g_free (s->x);
  g_free (s->y);
}

/* Ensure per-algorithm intercepts and a shared miss cost are recovered exactly without noise,
 * although the columns differ by four orders of magnitude. */
static void
test_recovers_known_parameters_exactly (void **state)
{
  const double a[] = { 0.3, 1.2, 5.0, 2.5 }, b = 42.0;
  guint32 seed = test_seed (DEFAULT_SEED);
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  Synthetic s = synthetic (a, G_N_ELEMENTS (a), b, 30, 0, rand);
  g_autoptr (GError) error = NULL;
  MdlFit fit;
  (void) state;
  if (!mdl_fit_least_squares (s.x, s.y, NULL, s.n_rows, s.n_algos + 1, &fit, &error))
    fail_msg ("seed %u: %s", seed, error->message);
  for (guint i = 0; i < G_N_ELEMENTS (a); i++)
    if (fabs (fit.coef[i] - a[i]) > 1e-9)
      fail_msg ("seed %u: intercept %u is %.12g, expected %g", seed, i, fit.coef[i], a[i]);
  if (fabs (fit.coef[s.n_algos] - b) > 1e-9 || fabs (fit.r2 - 1) > 1e-12)
    fail_msg ("seed %u: b = %.12g (expected %g), R^2 = %.15g", seed, fit.coef[s.n_algos], b, fit.r2);
  assert_int_equal (fit.n_points, s.n_rows);
  assert_int_equal (fit.n_coef, s.n_algos + 1);
  synthetic_free (&s);
}

/* Ensure with uniform noise of +-0.05 ns the parameters come back within a few hundredths and R^2
 * stays near 1; and that the fit's residuals are no larger than the true parameters' (least squares
 * is the minimum). */
static void
test_recovers_known_parameters_with_noise (void **state)
{
  const double a[] = { 0.3, 1.2, 5.0 }, b = 12.0, noise = 0.05;
  guint32 seed = test_seed (DEFAULT_SEED + 1);
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  Synthetic s = synthetic (a, G_N_ELEMENTS (a), b, 200, noise, rand);
  MdlFit fit;
  double true_rss = 0;
  (void) state;
  assert_true (mdl_fit_least_squares (s.x, s.y, NULL, s.n_rows, s.n_algos + 1, &fit, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (a); i++)
    if (fabs (fit.coef[i] - a[i]) > 0.02)
      fail_msg ("seed %u: intercept %u is %g, expected %g", seed, i, fit.coef[i], a[i]);
  if (fabs (fit.coef[s.n_algos] - b) > 0.05 || fit.r2 < 0.999)
    fail_msg ("seed %u: b = %g (expected %g), R^2 = %g", seed, fit.coef[s.n_algos], b, fit.r2);
  for (guint r = 0; r < s.n_rows; r++)
    {
      double pred = a[r % s.n_algos] + b * s.x[r * (s.n_algos + 1) + s.n_algos];
      true_rss += (s.y[r] - pred) * (s.y[r] - pred);
    }
  assert_true (fit.rss <= true_rss + 1e-12);
  synthetic_free (&s);
}

/* Ensure R^2 is 1 - RSS/TSS: 0 for the mean alone, and the textbook value for a small worked
 * example: y = 1, 3, 2, 4 on x = 1..4 gives the line 0.5 + 0.8 x, RSS 1.8, TSS 5, R^2 0.64. */
static void
test_r2_definition (void **state)
{
  const double ones[] = { 1, 1, 1, 1 }, y[] = { 1, 3, 2, 4 };
  const double xl[] = { 1, 1, 1, 2, 1, 3, 1, 4 };
  MdlFit fit;
  (void) state;
  assert_true (mdl_fit_least_squares (ones, y, NULL, 4, 1, &fit, NULL));
  assert_float_equal (fit.coef[0], 2.5, 1e-12);
  assert_float_equal (fit.r2, 0, 1e-12);
  assert_true (mdl_fit_least_squares (xl, y, NULL, 4, 2, &fit, NULL));
  assert_float_equal (fit.coef[0], 0.5, 1e-12);
  assert_float_equal (fit.coef[1], 0.8, 1e-12);
  assert_float_equal (fit.rss, 1.8, 1e-12);
  assert_float_equal (fit.r2, 0.64, 1e-12);
}

/* Ensure a weight of 2 on a row fits exactly as that row given twice. */
static void
test_weight_equals_repetition (void **state)
{
  const double x[] = { 1, 0, 1, 1, 1, 2, 1, 5 }, y[] = { 0.2, 1.9, 4.4, 9.1 };
  const double w[] = { 1, 2, 1, 1 };
  const double x2[] = { 1, 0, 1, 1, 1, 1, 1, 2, 1, 5 }, y2[] = { 0.2, 1.9, 1.9, 4.4, 9.1 };
  MdlFit a, b;
  (void) state;
  assert_true (mdl_fit_least_squares (x, y, w, 4, 2, &a, NULL));
  assert_true (mdl_fit_least_squares (x2, y2, NULL, 5, 2, &b, NULL));
  assert_float_equal (a.coef[0], b.coef[0], 1e-12);
  assert_float_equal (a.coef[1], b.coef[1], 1e-12);
  assert_float_equal (a.r2, b.r2, 1e-12);
}

/* Ensure what cannot be fitted is refused with MDL_ERROR_PARAM naming the cause: dependent
 * columns, too few points, a non-finite value, an all-zero column. */
static void
test_refuses_what_cannot_be_fitted (void **state)
{
  const double dependent[] = { 1, 2, 1, 2, 1, 2 }, y[] = { 1, 2, 3 };
  const double bad[] = { 1, NAN, 1, 2, 1, 3 }, zero[] = { 1, 0, 1, 0, 1, 0 };
  MdlFit fit = { 0 };
  GError *error = NULL;
  (void) state;
  assert_false (mdl_fit_least_squares (dependent, y, NULL, 3, 2, &fit, &error));
  assert_mdl_error (error, MDL_ERROR_PARAM, "column 1 is a linear combination");
  error = NULL;
  assert_false (mdl_fit_least_squares (dependent, y, NULL, 1, 2, &fit, &error));
  assert_mdl_error (error, MDL_ERROR_PARAM, "1 points for 2 coefficients");
  error = NULL;
  assert_false (mdl_fit_least_squares (bad, y, NULL, 3, 2, &fit, &error));
  assert_mdl_error (error, MDL_ERROR_PARAM, "not finite");
  error = NULL;
  assert_false (mdl_fit_least_squares (zero, y, NULL, 3, 2, &fit, &error));
  assert_mdl_error (error, MDL_ERROR_PARAM, "column 1 is all zero");
  assert_int_equal (fit.n_coef, 0);   /* untouched */
}

/* ---- non-negative least squares -------------------------------------------------------------- */

/* Ensure NNLS recovers non-negative coefficients exactly from data made with them, at the GPU
 * experiment's magnitudes: time in us from launches (a few), sectors (up to 1e8), wavefronts and
 * warp instructions, with relative weights 1/y^2. */
static void
test_nnls_recovers_known_coefficients (void **state)
{
  enum { ROWS = 40, COLS = 4 };
  const double c[COLS] = { 3.5, 2e-4, 5e-5, 0 };   /* us per launch, sector, wavefront, inst */
  double x[ROWS * COLS], y[ROWS], w[ROWS];
  guint32 seed = test_seed (DEFAULT_SEED + 2);
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  MdlFit fit;
  g_autoptr (GError) error = NULL;
  (void) state;
  for (guint r = 0; r < ROWS; r++)
    {
      y[r] = 0;
      x[r * COLS + 0] = g_rand_int_range (rand, 1, 8);
      for (guint j = 1; j < COLS; j++)
        x[r * COLS + j] = pow (10, g_rand_double_range (rand, 3, 8));
      for (guint j = 0; j < COLS; j++)
        y[r] += c[j] * x[r * COLS + j];
      w[r] = 1 / (y[r] * y[r]);
    }
  if (!mdl_fit_nnls (x, y, w, ROWS, COLS, &fit, &error))
    fail_msg ("seed %u: %s", seed, error->message);
  for (guint j = 0; j < COLS; j++)
    if (fabs (fit.coef[j] - c[j]) > 1e-9 * MAX (c[j], 1e-4))
      fail_msg ("seed %u: coefficient %u is %g, expected %g", seed, j, fit.coef[j], c[j]);
  assert_float_equal (fit.r2, 1, 1e-12);
}

/* Ensure a coefficient that unconstrained least squares makes negative is 0, the others refitted
 * without it, and an all-zero column is 0 rather than an error. y = 3 - x2 on x2 = 0..3: least
 * squares gives c = (3, -1); with c2 >= 0 the best is c2 = 0 and c1 the mean of y, 1.5. */
static void
test_nnls_clamps_at_zero (void **state)
{
  const double x[] = { 1, 0, 0,  1, 1, 0,  1, 2, 0,  1, 3, 0 }, y[] = { 3, 2, 1, 0 };
  const double x2[] = { 1, 0,  1, 1,  1, 2,  1, 3 };   /* the first two columns alone */
  MdlFit fit;
  (void) state;
  assert_true (mdl_fit_least_squares (x2, y, NULL, 4, 2, &fit, NULL));
  assert_float_equal (fit.coef[0], 3, 1e-12);
  assert_float_equal (fit.coef[1], -1, 1e-12);
  assert_true (mdl_fit_nnls (x, y, NULL, 4, 3, &fit, NULL));
  assert_float_equal (fit.coef[0], 1.5, 1e-12);
  assert_true (fit.coef[1] == 0 && fit.coef[2] == 0);
}

/* The brute-force NNLS optimum: over every subset of columns, the unconstrained least-squares fit
 * on it when all its coefficients are >= 0; the smallest RSS among those. The NNLS optimum is one
 * of them (its support's fit), and each is a feasible point, so the minimum is the optimum. */
static double
brute_force_nnls_rss (const double *x, const double *y, guint rows, guint cols)
{
  double best = INFINITY, ysq = 0;
  for (guint r = 0; r < rows; r++)
    ysq += y[r] * y[r];
  best = ysq;   /* the empty subset: every coefficient 0 */
  for (guint mask = 1; mask < (1u << cols); mask++)
    {
      double sub[16 * 4];
      guint k = 0, idx[4];
      MdlFit fit;
      gboolean feasible = TRUE;
      for (guint j = 0; j < cols; j++)
        if (mask & (1u << j))
          idx[k++] = j;
      for (guint r = 0; r < rows; r++)
        for (guint j = 0; j < k; j++)
          sub[r * k + j] = x[r * cols + idx[j]];
      if (!mdl_fit_least_squares (sub, y, NULL, rows, k, &fit, NULL))
        continue;
      for (guint j = 0; j < k; j++)
        feasible = feasible && fit.coef[j] >= 0;
      if (feasible)
        best = MIN (best, fit.rss);
    }
  return best;
}

/* Ensure NNLS reaches the brute-force optimum on small random problems whose unconstrained fits
 * often go negative (random signs in y), up to rounding. */
static void
test_nnls_matches_brute_force_enumeration (void **state)
{
  enum { ROWS = 16, MAX_COLS = 4, PROBLEMS = 300 };
  guint32 seed = test_seed (DEFAULT_SEED + 3);
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  (void) state;
  for (guint p = 0; p < PROBLEMS; p++)
    {
      guint cols = (guint) g_rand_int_range (rand, 1, MAX_COLS + 1);
      double x[ROWS * MAX_COLS], y[ROWS], rss, best;
      MdlFit fit;
      for (guint r = 0; r < ROWS; r++)
        {
          for (guint j = 0; j < cols; j++)
            x[r * cols + j] = g_rand_double_range (rand, 0, 10);
          y[r] = g_rand_double_range (rand, -5, 20);
        }
      if (!mdl_fit_nnls (x, y, NULL, ROWS, cols, &fit, NULL))
        fail_msg ("seed %u, problem %u: NNLS refused", seed, p);
      rss = 0;
      for (guint r = 0; r < ROWS; r++)
        {
          double pred = 0;
          for (guint j = 0; j < cols; j++)
            {
              if (fit.coef[j] < 0)
                fail_msg ("seed %u, problem %u: coefficient %u is %g < 0", seed, p, j,
                          fit.coef[j]);
              pred += fit.coef[j] * x[r * cols + j];
            }
          rss += (y[r] - pred) * (y[r] - pred);
        }
      best = brute_force_nnls_rss (x, y, ROWS, cols);
      if (rss > best * (1 + 1e-9) + 1e-12)
        fail_msg ("seed %u, problem %u (%u columns): NNLS RSS %.12g, brute force %.12g", seed, p,
                  cols, rss, best);
    }
}

/* ---- the experiment end to end ---------------------------------------------------------------- */

/* Ensure a tiny experiment (two algorithms, a few sizes, one repetition) yields one point per size,
 * normalized times that are time / operations, fits with R^2 at most 1, a slope per algorithm, and
 * the files its writers promise, with one CSV row per point. */
static void
test_small_experiment_holds_together (void **state)
{
  const char *const algos[] = { "scan/seq", "scan/random", NULL };
  MdlVatExperimentConfig cfg;
  g_autoptr (MdlVatExperiment) exp = NULL;
  const MdlVatResults *results;
  g_autoptr (GError) error = NULL;
  g_autoptr (GString) csv = g_string_new (NULL);
  g_autoptr (GString) json = g_string_new (NULL);
  g_autofree char *dir = test_temp_dir ();
  g_auto (GStrv) lines = NULL;
  guint n4k = 0;
  (void) state;
  mdl_vat_experiment_config_init (&cfg);
  cfg.algorithms = algos;
  cfg.max_bytes = 256 << 10;   /* scan/random: 16 bytes per element, up to 16k elements */
  cfg.reps = 1;
  cfg.min_seconds = 0;
  cfg.huge = FALSE;
  exp = mdl_vat_experiment_run (&cfg, &error);
  if (exp == NULL)
    fail_msg ("%s", error->message);
  results = mdl_vat_experiment_results (exp);
  for (guint i = 0; i < results->n_points; i++)
    {
      const MdlVatPoint *p = &results->points[i];
      assert_false (p->huge_pages);
      assert_true (p->ram_ops == p->n);   /* one operation per element in both scans */
      assert_float_equal (p->norm_ns, p->seconds * 1e9 / (double) p->ram_ops, 1e-9);
      assert_true (p->em_misses[0] >= p->em_misses[1]);
      n4k++;
    }
  /* 1024 * 1.4^k up to 32k elements (scan/seq) and 16k (scan/random): 11 and 9 sizes. */
  assert_int_equal (n4k, 11 + 9);
  assert_int_equal (results->n_slopes, 2);
  assert_int_equal (results->n_fits, 7);
  for (guint i = 0; i < results->n_fits; i++)
    {
      const MdlVatFitInfo *f = &results->fits[i];
      assert_true (isnan (f->r2) || f->r2 <= 1 + 1e-12);
    }
  mdl_vat_experiment_write (exp, MDL_FORMAT_CSV, csv);
  lines = g_strsplit (g_strstrip (csv->str), "\n", -1);
  assert_int_equal (g_strv_length (lines), n4k + 1);
  assert_true (g_str_has_prefix (lines[0], "algorithm,n,log2_n,pages,"));
  /* 256 KiB is far below twice the TLB reach (1638 pages of 4 KiB): the run says so, in the
   * warnings, the table and the JSON, and names every fit whose miss cost came out negative. */
  assert_non_null (strstr (mdl_vat_experiment_warnings (exp), "TLB reach"));
  for (guint i = 0; i < results->n_fits; i++)
    if (results->fits[i].miss_ns < 0)
      {
        g_autofree char *name = g_strdup_printf ("fit %s: ", results->fits[i].model);
        assert_non_null (strstr (mdl_vat_experiment_warnings (exp), name));
      }
  {
    g_autoptr (GString) table = g_string_new (NULL);
    mdl_vat_experiment_write (exp, MDL_FORMAT_TABLE, table);
    /* arrays of at most 256 KiB print in KiB (they printed as "0.2 MiB") */
    assert_non_null (strstr (table->str, "\nwarning: the largest arrays ("));
    assert_non_null (strstr (table->str, " KiB) are less than 2 times the TLB reach"));
  }
  mdl_vat_experiment_write (exp, MDL_FORMAT_JSON, json);
  assert_non_null (strstr (json->str, "\"warnings\": [\n    \"the largest arrays"));
  assert_non_null (strstr (json->str, "\"experiment\": \"vat\""));
  assert_null (strstr (json->str, "nan"));
  assert_true (mdl_vat_experiment_write_files (exp, dir, &error));
  {
    static const char *const files[] = { "vat.txt", "vat.csv", "vat-fits.csv", "vat-slopes.csv",
                                         "vat.json", "vat-plot.dat", "vat-huge.dat",
                                         "vat-panels.gp", "vat.gp", "vat-models.csv",
                                         "vat-models-points.csv", "vat-models.dat",
                                         "vat-models.gp" };
    for (guint i = 0; i < G_N_ELEMENTS (files); i++)
      {
        g_autofree char *path = g_build_filename (dir, files[i], NULL);
        assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
        g_unlink (path);
      }
    g_rmdir (dir);
  }
}

/* Ensure that the plan, made before anything runs, counts the points the run will measure, the
 * largest arrays and the TLB reach, and that its time grows with the bound. */
static void
test_plan_before_the_run (void **state)
{
  const char *const algos[] = { "scan/seq", "scan/random", NULL };
  MdlVatExperimentConfig cfg;
  MdlVatPlan small, large;
  g_autoptr (GError) error = NULL;
  (void) state;
  mdl_vat_experiment_config_init (&cfg);
  cfg.algorithms = algos;
  cfg.max_bytes = 256 << 10;
  cfg.huge = FALSE;
  assert_true (mdl_vat_experiment_plan (&cfg, &small, &error));
  /* The sizes of test_small_experiment_holds_together: 11 + 9. The largest arrays: scan/random's
   * 15112 elements (1024 * 1.4^8, rounded) of 16 bytes, above scan/seq's 29620 of 8. */
  assert_int_equal (small.n_points, 11 + 9);
  assert_int_equal (small.largest_bytes, 15112 * 16);
  /* x86-64: W = 64 L1 DTLB + 1536 L2 TLB + 38 paging-structure cache entries, P = 4096. */
  assert_int_equal (small.tlb_reach_bytes, (64 + 1536 + 38) * 4096);
  cfg.max_bytes = 64 << 20;
  assert_true (mdl_vat_experiment_plan (&cfg, &large, &error));
  assert_true (large.n_points > small.n_points);
  assert_true (large.seconds > small.seconds && small.seconds > 0);
  cfg.max_bytes = 100;
  assert_false (mdl_vat_experiment_plan (&cfg, &large, &error));
  assert_mdl_error (error, MDL_ERROR_PARAM, "max-bytes 100");
}

/* Ensure bad settings are refused naming the setting and the valid range, and unknown algorithms
 * list the valid ones. */
static void
test_experiment_rejects_bad_settings (void **state)
{
  const char *const unknown[] = { "scan/sideways", NULL };
  MdlVatExperimentConfig cfg;
  GError *error = NULL;
  (void) state;
  mdl_vat_experiment_config_init (&cfg);
  cfg.growth = 1.0;
  assert_null (mdl_vat_experiment_run (&cfg, &error));
  assert_mdl_error (error, MDL_ERROR_PARAM, "growth 1 is out of range");
  error = NULL;
  mdl_vat_experiment_config_init (&cfg);
  cfg.max_bytes = 100;
  assert_null (mdl_vat_experiment_run (&cfg, &error));
  assert_mdl_error (error, MDL_ERROR_PARAM, "max-bytes 100");
  error = NULL;
  mdl_vat_experiment_config_init (&cfg);
  cfg.algorithms = unknown;
  assert_null (mdl_vat_experiment_run (&cfg, &error));
  assert_mdl_error (error, MDL_ERROR_UNKNOWN_NAME, "valid: scan/seq");
  error = NULL;
  mdl_vat_experiment_config_init (&cfg);
  cfg.machine = "h100";
  assert_null (mdl_vat_experiment_run (&cfg, &error));
  assert_mdl_error (error, MDL_ERROR_PARAM, "machine h100 has no page_bytes");
}

/* Ensure a preset field of a MODELS_MACHINES file that does not start with a digit is refused
 * naming the machine and the field: g_ascii_strtoull alone reads "-1" as 2^64 - 1 and "+4096" as
 * 4096. */
static void
test_experiment_rejects_unsigned_preset_fields_without_digits (void **state)
{
  const char *const bad[] = { "-1", "+4096", "0x1000" };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *text = g_strdup_printf ("[signed]\npage_bytes=%s\ntree_arity=512\n"
                                               "tree_depth=4\nl1_dtlb_entries=64\n", bad[i]);
      g_autofree char *path = test_write_temp ("machines.ini", text, strlen (text));
      g_autofree char *dir = g_path_get_dirname (path);
      MdlVatExperimentConfig cfg;
      GError *error = NULL;
      g_autoptr (MdlVatExperiment) exp = NULL;
      g_setenv ("MODELS_MACHINES", path, TRUE);
      mdl_vat_experiment_config_init (&cfg);
      cfg.machine = "signed";
      exp = mdl_vat_experiment_run (&cfg, &error);
      g_unsetenv ("MODELS_MACHINES");
      g_unlink (path);
      g_rmdir (dir);
      if (exp != NULL)
        fail_msg ("page_bytes=\"%s\" was accepted", bad[i]);
      assert_mdl_error (error, MDL_ERROR_FORMAT, "machine signed: page_bytes=");
    }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_line_exact),
    cmocka_unit_test (test_line_undefined),
    cmocka_unit_test (test_recovers_known_parameters_exactly),
    cmocka_unit_test (test_recovers_known_parameters_with_noise),
    cmocka_unit_test (test_r2_definition),
    cmocka_unit_test (test_weight_equals_repetition),
    cmocka_unit_test (test_refuses_what_cannot_be_fitted),
    cmocka_unit_test (test_nnls_recovers_known_coefficients),
    cmocka_unit_test (test_nnls_clamps_at_zero),
    cmocka_unit_test (test_nnls_matches_brute_force_enumeration),
    cmocka_unit_test (test_small_experiment_holds_together),
    cmocka_unit_test (test_experiment_rejects_bad_settings),
    cmocka_unit_test (test_experiment_rejects_unsigned_preset_fields_without_digits),
    cmocka_unit_test (test_plan_before_the_run),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
