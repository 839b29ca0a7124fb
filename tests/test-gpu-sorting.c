/* Tests of the sorts' part of the GPU experiment (src/experiments/gpu-sorting.c and the join of
 * gpu-experiment.c) on a small synthetic timings.csv written here, with times chosen so that
 * every ratio is exact in binary: each sort is compared with CUB radix sort on its own n,
 * distribution and key type (a case that names no dist or keys takes uniform and u32), never on
 * another input; bandwidth is 8n bytes over the device copy's at that n; the by-distribution table
 * appears at an n where a sort was measured on 5 distributions; two configurations of one sort on
 * one input stay two rows. */
#include "helpers.h"

#include "experiments/gpu-experiment-private.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#define HEADER                                                                                     \
  "launch,case,kernel,device,mode,seed,mismatches,median_us,reps,launches,min_us,max_us\n"
#define ROW(k, spec, us) k ",\"" spec "\",k,dev,time,1,0," us ",11,1," us "," us "\n"

/* n = 1024 keys = 8192 bytes moved. CUB u32 at 1024: uniform 16 us, gaussian 20, zero 8, sorted
 * 32, bucket 64 (five distributions: the by-distribution table); CUB f32 uniform 16; the device
 * copy 2 us (4096 bytes/us). */
static const char timings[] =
  HEADER
  ROW ("0", "baseline/cub-sort:n=1024,dist=uniform,keys=u32", "16.000")
  ROW ("1", "baseline/cub-sort:n=1024,dist=gaussian,keys=u32", "20.000")
  ROW ("2", "baseline/cub-sort:n=1024,dist=zero,keys=u32", "8.000")
  ROW ("3", "baseline/cub-sort:n=1024,dist=sorted,keys=u32", "32.000")
  ROW ("4", "baseline/cub-sort:n=1024,dist=bucket,keys=u32", "64.000")
  ROW ("5", "baseline/cub-sort:n=1024,dist=uniform,keys=f32", "16.000")
  ROW ("6", "baseline/thrust-sort:n=1024,dist=uniform,keys=u32", "32.000")
  ROW ("7", "baseline/thrust-sort:n=1024,dist=gaussian,keys=u32", "30.000")
  ROW ("8", "baseline/thrust-sort:n=1024,dist=uniform,keys=f32", "40.000")
  ROW ("9", "baseline/qsort-sort:n=1024,keys=f32", "64.000")
  ROW ("10", "baseline/memcpy:n=1024", "2.000")
  ROW ("11", "baseline/cub-sort:n=2048,dist=uniform,keys=u32", "24.000")
  ROW ("12", "baseline/thrust-sort:n=2048,dist=zero,keys=u32", "50.000")
  ROW ("13", "sort/bitonic:n=1024,layout=global,block=256,dist=uniform", "64.000")
  ROW ("14", "sort/bitonic:n=1024,layout=stage,tile=2048,dist=uniform,block=512", "32.000");

static MdlGpuExperiment *
run_synthetic (char **dir_out)
{
  MdlGpuExperimentConfig cfg;
  mdl_gpu_experiment_config_init (&cfg);
  cfg.compute = FALSE;
  return test_gpu_experiment_on (timings, &cfg, dir_out);
}

/* Ensure each sort's ratio is to CUB on the same n, distribution and key type, and none where CUB
 * was not measured on that input. */
static void
test_ratio_to_cub_on_the_same_input (void **state)
{
  static const struct {
    const char *spec;
    double ratio;
  } rows[] = {
    { "baseline/thrust-sort:n=1024,dist=uniform,keys=u32", 2.0 },    /* 32 / 16 */
    { "baseline/thrust-sort:n=1024,dist=gaussian,keys=u32", 1.5 },   /* 30 / 20, not / 16 */
    { "baseline/thrust-sort:n=1024,dist=uniform,keys=f32", 2.5 },    /* 40 / 16 (f32) */
    { "baseline/qsort-sort:n=1024,keys=f32", 4.0 },                  /* uniform by default */
    { "baseline/cub-sort:n=1024,dist=zero,keys=u32", 1.0 },
    { "baseline/thrust-sort:n=2048,dist=zero,keys=u32", NAN },       /* no CUB zero at 2048 */
  };
  g_autoptr (MdlGpuExperiment) exp = run_synthetic (NULL);
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      double got = test_gpu_point (exp, rows[i].spec, NULL)->cub_ratio;
      if (isnan (rows[i].ratio) ? !isnan (got) : got != rows[i].ratio)
        fail_msg ("%s: ratio %g, expected %g", rows[i].spec, got, rows[i].ratio);
    }
}

/* Ensure the bandwidth share is 8n bytes / time over the device copy's at that n, whatever the
 * input: thrust at 32 us moves 256 bytes/us, the copy 4096. */
static void
test_copy_share (void **state)
{
  g_autoptr (MdlGpuExperiment) exp = run_synthetic (NULL);
  const MdlGpuPoint *thrust =
    test_gpu_point (exp, "baseline/thrust-sort:n=1024,dist=uniform,keys=u32", NULL);
  const MdlGpuPoint *bucket =
    test_gpu_point (exp, "baseline/cub-sort:n=1024,dist=bucket,keys=u32", NULL);
  const MdlGpuPoint *uncopied =
    test_gpu_point (exp, "baseline/cub-sort:n=2048,dist=uniform,keys=u32", NULL);
  (void) state;
  assert_true (thrust->copy_fraction == 0.0625);
  assert_true (bucket->copy_fraction == 0.03125);
  assert_true (isnan (uncopied->copy_fraction));
}

/* Ensure gpu.md's sorts section: a row per case (G keys/s = n / us / 1000) and the
 * by-distribution table at n = 2^10 only (2^11 has one distribution per sort); and the figure
 * data: CUB u32's times by distribution index. */
static void
test_markdown_and_figure_data (void **state)
{
  g_autofree char *dir = NULL, *md = NULL, *dat = NULL, *md_path = NULL, *dat_path = NULL;
  g_autoptr (MdlGpuExperiment) exp = run_synthetic (&dir);
  g_autoptr (GError) error = NULL;
  (void) state;
  if (!mdl_gpu_experiment_write_files (exp, dir, &error))
    fail_msg ("%s", error->message);
  md_path = g_build_filename (dir, "gpu.md", NULL);
  dat_path = g_build_filename (dir, "gpu-sort-dist.dat", NULL);
  assert_true (g_file_get_contents (md_path, &md, NULL, NULL));
  assert_true (g_file_get_contents (dat_path, &dat, NULL, NULL));
  assert_non_null (strstr (md, "\n## Sorts\n"));
  assert_non_null (strstr (md, "| baseline/thrust-sort | u32 | uniform | 2^10 | 32.00 | 0.032 | "
                               "2.000 | 6.2% |\n"));
  assert_non_null (strstr (md, "| baseline/qsort-sort | f32 | uniform | 2^10 | 64.00 | 0.016 | "
                               "4.000 | 3.1% |\n"));
  assert_non_null (strstr (md, "| baseline/thrust-sort | u32 | zero | 2^11 | 50.00 | 0.04096 | - "
                               "| - |\n"));
  assert_non_null (strstr (md, "### Sorts by distribution at n = 2^10 (G keys/s)\n"));
  assert_null (strstr (md, "### Sorts by distribution at n = 2^11"));
  assert_non_null (strstr (md, "| baseline/cub-sort | u32 | 0.064 | 0.0512 | 0.128 | 0.032 | "
                               "0.016 | - | - | - | - |\n"));
  assert_non_null (strstr (dat, "# n=1024 baseline/cub-sort keys=u32: dist median_us\n? ?\n"
                                "0 16\n1 20\n2 8\n3 32\n4 64\n"));
}

/* Ensure two configurations of one sort measured on the same input are two rows and two series,
 * each labelled with its parameters less the input's (dist, keys), in the order given. */
static void
test_configurations_apart (void **state)
{
  g_autofree char *dir = NULL, *md = NULL, *md_path = NULL;
  g_autoptr (MdlGpuExperiment) exp = run_synthetic (&dir);
  g_autoptr (GError) error = NULL;
  (void) state;
  if (!mdl_gpu_experiment_write_files (exp, dir, &error))
    fail_msg ("%s", error->message);
  md_path = g_build_filename (dir, "gpu.md", NULL);
  assert_true (g_file_get_contents (md_path, &md, NULL, NULL));
  assert_non_null (strstr (md, "| sort/bitonic:layout=global,block=256 | u32 | uniform | 2^10 | "
                               "64.00 | 0.016 | 4.000 | 3.1% |\n"));
  assert_non_null (strstr (md, "| sort/bitonic:layout=stage,tile=2048,block=512 | u32 | uniform | "
                               "2^10 | 32.00 | 0.032 | 2.000 | 6.2% |\n"));
  assert_non_null (strstr (md, "| sort/bitonic:layout=global,block=256 | u32 | 0.016 | - |"));
  assert_non_null (strstr (md, "| sort/bitonic:layout=stage,tile=2048,block=512 | u32 | 0.032 | - |"));
}

/* Ensure the input of a case is read from its parameters with the defaults. */
static void
test_params_and_inputs (void **state)
{
  g_autofree char *a = mdl_gpu_param ("dist=zero,keys=f32", "keys", "u32");
  g_autofree char *b = mdl_gpu_param ("b=32", "dist", "uniform");
  g_autofree char *c = mdl_gpu_param ("xdist=zero", "dist", "uniform");
  (void) state;
  assert_string_equal (a, "f32");
  assert_string_equal (b, "uniform");
  assert_string_equal (c, "uniform");
  assert_true (mdl_gpu_same_input ("dist=uniform,keys=u32", ""));
  assert_true (mdl_gpu_same_input ("keys=u32,dist=few", "dist=few"));
  assert_false (mdl_gpu_same_input ("dist=few", "dist=zero"));
  assert_false (mdl_gpu_same_input ("keys=f32", "dist=uniform"));
  assert_true (mdl_gpu_is_sort ("baseline/cub-sort") && mdl_gpu_is_sort ("sort/bitonic"));
  assert_false (mdl_gpu_is_sort ("baseline/cub-scan") || mdl_gpu_is_sort ("scan/nopad"));
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_ratio_to_cub_on_the_same_input),
    cmocka_unit_test (test_copy_share),
    cmocka_unit_test (test_markdown_and_figure_data),
    cmocka_unit_test (test_configurations_apart),
    cmocka_unit_test (test_params_and_inputs),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
