/* Tests of the hull's part of the GPU experiment (src/experiments/gpu-hull.c and the hull's row of
 * gpu-experiment.c's problems) on a small synthetic timings.csv written here, the SIMT twins run
 * at small n: a hull's n points are 8n bytes of f32, and baseline/quickhull solves the hull
 * problem too; each hull is set beside the quickhull on its own distribution and n (a case that
 * names no dist ran on the disc); the LOAO prediction of the hull is the fit made without the
 * hull's cases; gpu.md gets a row per case and the figures their blocks. Times are chosen so that
 * every ratio is exact in binary. */
#include "helpers.h"

#include "experiments/gpu-experiment-private.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#define HEADER                                                                                     \
  "launch,case,kernel,device,mode,seed,mismatches,median_us,reps,launches,min_us,max_us\n"
/* A case of one launch that ran @us every time; @bad mismatches. */
#define ROW(k, spec, bad, us) k ",\"" spec "\",k,dev,time,1," bad "," us ",11,1," us "," us "\n"

/* Six sizes of a reduction for the fits without the hull (the counters fit has five terms), the
 * hulls at 2^12 and 2^13 (the alg5 ring at 2^13 has no quickhull beside it), and the device copy
 * at 2^12: 8n bytes in 2 us. */
#define TIMINGS(hull_bad)                                                                          \
  HEADER                                                                                           \
  ROW ("0", "reduce/tree:n=1024", "0", "10.000")                                                   \
  ROW ("1", "reduce/tree:n=2048", "0", "12.000")                                                   \
  ROW ("2", "reduce/tree:n=4096", "0", "15.000")                                                   \
  ROW ("3", "reduce/tree:n=8192", "0", "20.000")                                                   \
  ROW ("4", "reduce/tree:n=16384", "0", "31.000")                                                  \
  ROW ("5", "reduce/tree:n=32768", "0", "50.000")                                                  \
  ROW ("6", "hull/msimd:n=4096,dist=disc,part=alg5", hull_bad, "64.000")                          \
  ROW ("7", "hull/msimd:n=4096,dist=disc", hull_bad, "48.000")                                     \
  ROW ("8", "baseline/quickhull:n=4096,dist=disc", "0", "32.000")                                  \
  ROW ("9", "hull/msimd:n=4096,dist=ring,part=alg5", hull_bad, "96.000")                           \
  ROW ("10", "baseline/quickhull:n=4096,dist=ring", "0", "128.000")                                \
  ROW ("11", "hull/msimd:n=8192,dist=ring,part=alg5", hull_bad, "128.000")                         \
  ROW ("12", "baseline/quickhull:n=8192", "0", "16.000")                                           \
  ROW ("13", "baseline/memcpy:n=4096", "0", "2.000")

static MdlGpuExperiment *
run_synthetic (const char *timings, char **dir_out)
{
  MdlGpuExperimentConfig cfg;
  mdl_gpu_experiment_config_init (&cfg);
  cfg.min_fit_n = 1024;
  return test_gpu_experiment_on (timings, &cfg, dir_out);
}

/* Ensure the hull's problem: 8n bytes for the hull and the quickhull alike (2 words a point), so
 * that both get the copy share (2 us over 64 and 32); no CUB baseline. */
static void
test_hull_problem (void **state)
{
  g_autoptr (MdlGpuExperiment) exp = run_synthetic (TIMINGS ("0"), NULL);
  const MdlGpuPoint *alg5 = test_gpu_point (exp, "hull/msimd:n=4096,dist=disc,part=alg5", NULL);
  const MdlGpuPoint *quick = test_gpu_point (exp, "baseline/quickhull:n=4096,dist=disc", NULL);
  (void) state;
  assert_true (alg5->bytes == 8 * 4096 && quick->bytes == 8 * 4096);
  assert_true (alg5->copy_fraction == 0.03125 && quick->copy_fraction == 0.0625);
  assert_true (isnan (alg5->cub_ratio));
  assert_true (alg5->predicted && alg5->fitted && !quick->fitted);
  assert_true (mdl_gpu_is_hull ("hull/msimd") && mdl_gpu_is_hull ("baseline/quickhull"));
  assert_false (mdl_gpu_is_hull ("baseline/cub-sort") || mdl_gpu_is_hull ("sort/bitonic"));
}

/* Ensure the hull's LOAO prediction is the fit made without its cases: the same run with every
 * hull case failing its check (so that no fit uses it) predicts the hull with those fits, for
 * every fit that has one. */
static void
test_loao_is_the_fit_without_the_hull (void **state)
{
  static const char *const hulls[] = { "hull/msimd:n=4096,dist=disc,part=alg5",
                                       "hull/msimd:n=4096,dist=disc",
                                       "hull/msimd:n=4096,dist=ring,part=alg5",
                                       "hull/msimd:n=8192,dist=ring,part=alg5" };
  g_autoptr (MdlGpuExperiment) with = run_synthetic (TIMINGS ("0"), NULL);
  g_autoptr (MdlGpuExperiment) without = run_synthetic (TIMINGS ("1"), NULL);
  const MdlGpuResults *r = mdl_gpu_experiment_results (with);
  guint compared = 0;
  (void) state;
  for (guint h = 0; h < G_N_ELEMENTS (hulls); h++)
    for (guint f = 0; f <= GPU_FIT_COUNTERS; f++)
      {
        double loao = test_gpu_point (with, hulls[h], NULL)->loao_us[f];
        double fit = test_gpu_point (without, hulls[h], NULL)->fit_us[f];
        if (isnan (fit))
          {
            assert_true (isnan (loao));
            continue;
          }
        if (fabs (loao - fit) > 1e-9 * fabs (fit))
          fail_msg ("%s, fit %s: LOAO %.17g, the fit without the hull %.17g", hulls[h],
                    r->fits[f].name, loao, fit);
        compared++;
      }
  /* the counters fit at least, on all four hulls */
  assert_true (compared >= G_N_ELEMENTS (hulls));
  assert_true (isfinite (test_gpu_point (with, hulls[0], NULL)->loao_us[GPU_FIT_COUNTERS]));
}

/* Ensure gpu.md's hulls section (a row per case by distribution, n and label, the quickhull
 * ratio on the same distribution and n, "-" where none) and the figures' data and drawing. */
static void
test_markdown_and_figures (void **state)
{
  g_autofree char *dir = NULL, *md = NULL, *time_dat = NULL, *fit_dat = NULL, *gp = NULL;
  g_autoptr (MdlGpuExperiment) exp = run_synthetic (TIMINGS ("0"), &dir);
  g_autoptr (GError) error = NULL;
  (void) state;
  if (!mdl_gpu_experiment_write_files (exp, dir, &error))
    fail_msg ("%s", error->message);
  md = test_read_text (dir, "gpu.md");
  time_dat = test_read_text (dir, "gpu-hull-time.dat");
  fit_dat = test_read_text (dir, "gpu-hull-fit.dat");
  gp = test_read_text (dir, "gpu.gp");
  assert_non_null (strstr (md, "\n## Hulls\n"));
  /* disc at 2^12, labels in order: the quickhull, the copy partition (no part=), alg5 */
  assert_non_null (strstr (md, "| baseline/quickhull | disc | 2^12 | 32.00 | 128.0 | 1.000 | 1 | - "
                               "| - | - |\n| hull/msimd | disc | 2^12 | 48.00 | 85.3 | 1.500 | 1 / "));
  assert_non_null (strstr (md, "|\n| hull/msimd:part=alg5 | disc | 2^12 | 64.00 | 64.0 | 2.000 "
                               "| "));
  /* the quickhull that names no dist ran on the disc */
  assert_non_null (strstr (md, "| baseline/quickhull | disc | 2^13 | 16.00 | 512.0 | 1.000 |"));
  assert_non_null (strstr (md, "| hull/msimd:part=alg5 | ring | 2^12 | 96.00 | 42.7 | 0.750 | "));
  assert_non_null (strstr (md, "| hull/msimd:part=alg5 | ring | 2^13 | 128.00 | 64.0 | - | "));
  assert_null (strstr (md, "| reduce/tree | disc"));
  /* side by side, in ms: the quickhull, the copy partition and alg5, each with its ratio */
  assert_non_null (strstr (md, "| dist | n | baseline/quickhull | hull/msimd | x | LOAO | "
                               "hull/msimd:part=alg5 | x | LOAO |\n"));
  assert_non_null (strstr (md, "| disc | 2^12 | 0.03 | 0.05 | 1.50 | "));
  assert_non_null (strstr (md, "| ring | 2^12 | 0.13 | - | - | - | 0.10 | 0.75 | "));
  assert_non_null (strstr (md, "| ring | 2^13 | - | - | - | - | 0.13 | - | "));
  assert_non_null (strstr (md, "### Each fit's error on the hull's fitted cases\n"));
  /* counters: four fitted hull cases, each predicted without the hull */
  assert_non_null (strstr (md, "| counters | 4 | "));
  assert_non_null (strstr (time_dat, "# hull/msimd:part=alg5 ring: n median_us min_us max_us\n"
                                     "? ? ? ?\n4096 96 96 96\n8192 128 128 128\n"));
  assert_non_null (strstr (time_dat, "# baseline/quickhull disc: n median_us min_us max_us\n"
                                     "? ? ? ?\n4096 32 32 32\n8192 16 16 16\n"));
  assert_non_null (strstr (fit_dat, "# fit counters, ring: measured_us loao_us fit_us n\n? ? ? ?\n96 "));
  assert_null (strstr (fit_dat, "\n32 "));   /* a baseline is never predicted */
  assert_non_null (strstr (gp, "set output 'gpu-hull-time.png'\nload 'gpu-hull-time-panels.gp'"));
  assert_non_null (strstr (gp, "set output 'gpu-hull-fit.png'\nload 'gpu-hull-fit-panels.gp'"));
}

/* Ensure a run without a hull writes no hull section and no hull figure. */
static void
test_no_hull (void **state)
{
  g_autofree char *dir = NULL, *md = NULL, *gp = NULL, *dat = NULL;
  g_autoptr (MdlGpuExperiment) exp = run_synthetic (HEADER ROW ("0", "reduce/tree:n=1024", "0",
                                                                "10.000"), &dir);
  g_autoptr (GError) error = NULL;
  (void) state;
  if (!mdl_gpu_experiment_write_files (exp, dir, &error))
    fail_msg ("%s", error->message);
  md = test_read_text (dir, "gpu.md");
  gp = test_read_text (dir, "gpu.gp");
  dat = g_build_filename (dir, "gpu-hull-time.dat", NULL);
  assert_null (strstr (md, "## Hulls"));
  assert_null (strstr (gp, "gpu-hull"));
  assert_false (g_file_test (dat, G_FILE_TEST_EXISTS));
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_hull_problem),
    cmocka_unit_test (test_loao_is_the_fit_without_the_hull),
    cmocka_unit_test (test_markdown_and_figures),
    cmocka_unit_test (test_no_hull),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
