/* Tests of the GPU experiment (include/models/experiment.h, src/experiments/gpu-experiment.c) on a
 * synthetic GPU run written by hand (tests/data/gpu-experiment): its comments derive the numbers.
 * Six fitted cases of three algorithms whose times follow t = 2 launches + 0.001 sectors +
 * 0.0005 wavefronts + 0.0002 warp_insts (us), one case below the fits' 2^16, one that failed its
 * CUDA check, CUB and device-copy baselines; five cases profiled, one over two launches. The
 * predictions come from the hand-written predictions.csv (no SIMT run), except in the test of
 * predictions at small n, which runs reduce/tree and checks the AGPU numbers derived below. */
#include "helpers.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#define DIR "tests/data/gpu-experiment"
#define PREDICTIONS DIR "/predictions.csv"

static MdlGpuExperimentConfig
synthetic_config (void)
{
  MdlGpuExperimentConfig cfg;
  mdl_gpu_experiment_config_init (&cfg);
  cfg.measured = DIR;
  cfg.predictions = PREDICTIONS;
  cfg.compute = FALSE;
  return cfg;
}

static MdlGpuExperiment *
run_or_fail (const MdlGpuExperimentConfig *cfg)
{
  g_autoptr (GError) error = NULL;
  MdlGpuExperiment *exp = mdl_gpu_experiment_run (cfg, &error);
  if (exp == NULL)
    fail_msg ("%s", error->message);
  return exp;
}

/* The index of quantity @name, and of fit @name. */
static guint
cost_index (const char *name)
{
  guint n;
  const MdlGpuCost *costs = mdl_gpu_experiment_costs (&n);
  for (guint k = 0; k < n; k++)
    if (strcmp (costs[k].name, name) == 0)
      return k;
  fail_msg ("no quantity %s", name);
  return 0;
}

static const MdlGpuFitInfo *
fit_of (const MdlGpuExperiment *exp, const char *name, guint *index)
{
  const MdlGpuResults *r = mdl_gpu_experiment_results (exp);
  for (guint f = 0; f < r->n_fits; f++)
    if (strcmp (r->fits[f].name, name) == 0)
      {
        if (index)
          *index = f;
        return &r->fits[f];
      }
  fail_msg ("no fit %s", name);
  return NULL;
}

/* The metric row of point @i named @metric. */
static const MdlGpuRow *
row_of (const MdlGpuExperiment *exp, guint i, const char *metric)
{
  const MdlGpuPoint *p = &mdl_gpu_experiment_results (exp)->points[i];
  for (guint k = 0; k < p->n_rows; k++)
    if (strcmp (mdl_gpu_experiment_row (exp, i, k)->metric, metric) == 0)
      return mdl_gpu_experiment_row (exp, i, k);
  fail_msg ("%s: no row %s", p->spec, metric);
  return NULL;
}

/* Ensure the join: points in the order of their algorithms' first case, then by n; times, spread
 * and launches from timings.csv; measured counters summed over a case's launches (reduce/tree at
 * 1024: 40 + 24 load sectors + 2 store sectors = 66; 300 + 150 = 450 warp instructions against
 * 442 predicted); verdicts as in `models measure` (a ratio over two launches has no value, a
 * ratio with no branch matches ncu's 0); an unprofiled case has no measured counters. */
static void
test_join_reads_times_counters_and_launches (void **state)
{
  MdlGpuExperimentConfig cfg = synthetic_config ();
  g_autoptr (MdlGpuExperiment) exp = run_or_fail (&cfg);
  const MdlGpuResults *r = mdl_gpu_experiment_results (exp);
  static const char *const order[] = {
    "reduce/tree:n=1024,b=32", "reduce/tree:n=65536,b=32", "reduce/tree:n=131072,b=32",
    "reduce/cascade:n=65536,b=32,k=16", "reduce/cascade:n=131072,b=32,k=16",
    "reduce/cascade:n=262144,b=32,k=16", "scan/nopad:n=65536,block=2048",
    "scan/nopad:n=131072,block=2048", "baseline/cub-reduce:n=65536",
    "baseline/cub-reduce:n=131072", "baseline/cub-scan:n=65536", "baseline/cub-scan:n=131072",
    "baseline/memcpy:n=65536", "baseline/memcpy:n=131072",
  };
  guint sectors = cost_index ("sectors"), insts = cost_index ("warp_insts");
  guint launches = cost_index ("launches"), small;
  const MdlGpuPoint *p;
  (void) state;
  assert_int_equal (r->n_points, G_N_ELEMENTS (order));
  for (guint i = 0; i < G_N_ELEMENTS (order); i++)
    assert_string_equal (r->points[i].spec, order[i]);

  p = test_gpu_point (exp, "reduce/tree:n=65536,b=32", NULL);
  assert_true (p->measured && p->predicted && p->profiled && p->cuda_check && p->fitted);
  assert_true (p->median_us == 3.0 && p->min_us == 2.9 && p->max_us == 3.2 && p->launches == 1);
  assert_true (p->cost[sectors] == 1000 && p->cost_measured[sectors] == 1000);
  assert_string_equal (p->algorithm, "reduce/tree");
  assert_string_equal (p->params, "b=32");
  assert_true (p->n == 65536 && !p->baseline);

  p = test_gpu_point (exp, "reduce/tree:n=1024,b=32", &small);
  assert_true (p->profiled && !p->fitted && p->launches == 2);
  assert_true (p->cost[sectors] == 66 && p->cost_measured[sectors] == 66);
  assert_true (p->cost[insts] == 442 && p->cost_measured[insts] == 450);
  assert_true (p->cost[launches] == 2 && p->cost_measured[launches] == 2);
  assert_int_equal (row_of (exp, small, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum")->verdict,
                    MDL_GPU_MATCH);
  assert_int_equal (row_of (exp, small, "smsp__inst_executed.sum")->verdict, MDL_GPU_DIFFERS);
  assert_int_equal (row_of (exp, small,
                            "smsp__thread_inst_executed_per_inst_executed.ratio")->verdict,
                    MDL_GPU_NO_COLUMN);
  {
    guint i;
    test_gpu_point (exp, "reduce/tree:n=65536,b=32", &i);
    assert_int_equal (row_of (exp, i,
                              "smsp__thread_inst_executed_per_inst_executed.ratio")->verdict,
                      MDL_GPU_NOT_APPLICABLE);
  }

  p = test_gpu_point (exp, "scan/nopad:n=131072,block=2048", NULL);
  assert_true (p->measured && !p->profiled && p->fitted);
  assert_true (isnan (p->cost_measured[sectors]) && p->cost_measured[launches] == 1);

  p = test_gpu_point (exp, "reduce/cascade:n=262144,b=32,k=16", NULL);
  assert_true (p->measured && !p->cuda_check && !p->fitted);
  p = test_gpu_point (exp, "baseline/memcpy:n=65536", NULL);
  assert_true (p->baseline && !p->predicted && !p->fitted && p->n_rows == 0);
  assert_true (p->launches == 0 && p->bytes == 8 * 65536.0);
}

/* Ensure the fits recover the coefficients the times were made with: the counters fit on the six
 * fitted cases and the measured-counters fit on the five profiled ones (measured = predicted
 * there), exactly, with R^2 = 1, and the counters fit predicts the cases it did not fit from their
 * predicted counters: reduce/tree at 1024 is 2 x 2 + 0.001 x 66 + 0.0005 x 289 + 0.0002 x 442 =
 * 4.2989 us. */
static void
test_fits_recover_known_coefficients (void **state)
{
  static const double want[] = { 2, 0.001, 0.0005, 0.0002, 0 };
  static const char *const terms[] = { "launches", "sectors", "wavefronts", "warp_insts",
                                       "latency_rounds" };
  MdlGpuExperimentConfig cfg = synthetic_config ();
  g_autoptr (MdlGpuExperiment) exp = run_or_fail (&cfg);
  static const char *const fits[] = { "counters", "counters-measured" };
  static const guint n_points[] = { 6, 5 };
  guint f;
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (fits); i++)
    {
      const MdlGpuFitInfo *fit = fit_of (exp, fits[i], NULL);
      assert_null (fit->why);
      assert_int_equal (fit->n_points, n_points[i]);
      assert_int_equal (fit->n_algorithms, 3);
      assert_int_equal (fit->n_terms, G_N_ELEMENTS (want));
      for (guint t = 0; t < fit->n_terms; t++)
        {
          assert_string_equal (fit->terms[t], terms[t]);
          if (fabs (fit->coef[t] - want[t]) > 1e-9 * want[t])
            fail_msg ("%s: %s is %.17g, expected %g", fits[i], terms[t], fit->coef[t], want[t]);
        }
      assert_float_equal (fit->r2, 1, 1e-12);
      assert_float_equal (fit->max_rel_error, 0, 1e-9);
    }
  fit_of (exp, "counters", &f);
  assert_float_equal (test_gpu_point (exp, "reduce/tree:n=1024,b=32", NULL)->fit_us[f], 4.2989,
                      1e-9);
  /* every left-out algorithm is predicted exactly too: the data hold one law */
  assert_float_equal (fit_of (exp, "counters", NULL)->loao_r2, 1, 1e-9);
}

/* Ensure leave-one-algorithm-out on a toy: the msimd fit (launches, all 1, and the MSIMD cost)
 * with absolute errors on cost -> time: tree (1, 3), (2, 5); cascade (3, 7), (4, 9); nopad
 * (1, 4), (2, 6). Without tree, the line through the other four is t = 2.5 + 1.6 c: tree
 * predicted 4.1 and 5.7; without cascade, t = 1.5 + 2 c: 7.5 and 9.5; without nopad, t = 1 + 2 c:
 * 3 and 5. Residuals 1.1, 0.7, 0.5, 0.5, -1, -1: RSS 4.2; TSS about the mean 34/6 is 140/6; LOAO
 * R^2 = 1 - 4.2 x 6 / 140 = 0.82. Relative errors 1.1/3, 0.7/5, 0.5/7, 0.5/9, 1/4, 1/6: median
 * (0.14 + 1/6) / 2, largest 1.1/3. The fit on all six: slope 74/41, intercept 432/246. */
static void
test_loao_on_a_toy (void **state)
{
  static const struct { const char *spec; double loao; } rows[] = {
    { "reduce/tree:n=65536,b=32", 4.1 },          { "reduce/tree:n=131072,b=32", 5.7 },
    { "reduce/cascade:n=65536,b=32,k=16", 7.5 },  { "reduce/cascade:n=131072,b=32,k=16", 9.5 },
    { "scan/nopad:n=65536,block=2048", 3 },       { "scan/nopad:n=131072,block=2048", 5 },
  };
  MdlGpuExperimentConfig cfg = synthetic_config ();
  g_autoptr (MdlGpuExperiment) exp = NULL;
  const MdlGpuFitInfo *fit;
  guint f;
  (void) state;
  cfg.weights = MDL_GPU_WEIGHTS_ABSOLUTE;
  exp = run_or_fail (&cfg);
  fit = fit_of (exp, "msimd", &f);
  assert_int_equal (fit->n_points, 6);
  assert_float_equal (fit->coef[0], 432.0 / 246, 1e-9);
  assert_float_equal (fit->coef[1], 74.0 / 41, 1e-9);
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      double got = test_gpu_point (exp, rows[i].spec, NULL)->loao_us[f];
      if (fabs (got - rows[i].loao) > 1e-9)
        fail_msg ("%s: LOAO %.17g, expected %g", rows[i].spec, got, rows[i].loao);
    }
  assert_float_equal (fit->loao_r2, 0.82, 1e-9);
  assert_float_equal (fit->loao_median_rel_error, (0.14 + 1.0 / 6) / 2, 1e-9);
  assert_float_equal (fit->loao_max_rel_error, 1.1 / 3, 1e-9);
  /* not fitted, not predicted out of sample */
  assert_true (isnan (test_gpu_point (exp, "reduce/tree:n=1024,b=32", NULL)->loao_us[f]));
}

/* Ensure each kernel's time against CUB's of its problem at the same n, and its bandwidth against
 * the device copy's: reduce/tree at 2^16 takes 3 us to CUB's 1.5 and moves 4 x (65536 + 1) bytes
 * (input and the one output word), the copy 8 x 65536 bytes in 2 us; scan/nopad at 2^17 moves
 * 8 x 131072 bytes in 6 us, the copy as many in 3 us: half. A case whose problem has no baseline
 * at its n, or a baseline's own ratio to itself, follow the same rule. */
static void
test_ratios_and_bandwidth (void **state)
{
  MdlGpuExperimentConfig cfg = synthetic_config ();
  g_autoptr (MdlGpuExperiment) exp = run_or_fail (&cfg);
  const MdlGpuPoint *p;
  (void) state;
  p = test_gpu_point (exp, "reduce/tree:n=65536,b=32", NULL);
  assert_float_equal (p->cub_ratio, 2, 1e-12);
  assert_float_equal (p->bytes, 4 * 65537.0, 0);
  assert_float_equal (p->copy_fraction, (4 * 65537.0 / 3) / (8 * 65536.0 / 2), 1e-12);
  p = test_gpu_point (exp, "reduce/tree:n=131072,b=32", NULL);
  assert_float_equal (p->cub_ratio, 2, 1e-12);
  assert_float_equal (p->copy_fraction, (4 * 131073.0 / 5) / (8 * 131072.0 / 3), 1e-12);
  p = test_gpu_point (exp, "scan/nopad:n=131072,block=2048", NULL);
  assert_float_equal (p->cub_ratio, 2, 1e-12);
  assert_float_equal (p->copy_fraction, 0.5, 1e-12);
  p = test_gpu_point (exp, "reduce/tree:n=1024,b=32", NULL);
  assert_true (isnan (p->cub_ratio) && isnan (p->copy_fraction));
  p = test_gpu_point (exp, "baseline/cub-scan:n=65536", NULL);
  assert_float_equal (p->cub_ratio, 1, 0);
  assert_float_equal (p->copy_fraction, 1, 1e-12);
}

/* Ensure predictions at small n, run here, have AGPU's numbers on the h100 preset (b = 32 warp
 * lanes, k = 132 SMs), derived as in tests/test-agpu.c for reduce/tree: a level of c chunks of
 * 2b = 64 words costs 3 accesses per chunk and 26 instructions per block on the busiest of k MPs,
 * ceil(c / k) blocks: n = 1024: 16 chunks, then 1: io 3 x 17 = 51, time 26 x 2 = 52, 2 launches;
 * n = 16384: 256, 4, 1 chunks: io 3 x 261 = 783, time 26 x (2 + 1 + 1) = 104, 3 launches. Then
 * the predictions file they were appended to gives the same numbers without running anything,
 * and the MSIMD spec names P = 132. */
static void
test_predictions_at_small_n (void **state)
{
  static const char *const cases[] = { "reduce/tree:b=32", "baseline/cub-reduce", NULL };
  static const guint64 sizes[] = { 1024, 16384 };
  static const struct { const char *spec; double io, time, launches; } want[] = {
    { "reduce/tree:n=1024,b=32", 51, 52, 2 },
    { "reduce/tree:n=16384,b=32", 783, 104, 3 },
  };
  g_autofree char *dir = test_temp_dir ();
  g_autofree char *file = g_build_filename (dir, "predictions.csv", NULL);
  MdlGpuExperimentConfig cfg;
  (void) state;
  for (guint pass = 0; pass < 2; pass++)
    {
      g_autoptr (MdlGpuExperiment) exp = NULL;
      const MdlGpuResults *r;
      mdl_gpu_experiment_config_init (&cfg);
      cfg.cases = cases;
      cfg.sizes = sizes;
      cfg.n_sizes = G_N_ELEMENTS (sizes);
      cfg.predictions = file;
      cfg.compute = pass == 0;
      cfg.jobs = 2;
      exp = run_or_fail (&cfg);
      r = mdl_gpu_experiment_results (exp);
      assert_int_equal (r->n_points, 2);   /* the baseline is left out: nothing to predict */
      for (guint i = 0; i < G_N_ELEMENTS (want); i++)
        {
          const MdlGpuPoint *p = test_gpu_point (exp, want[i].spec, NULL);
          assert_true (p->predicted && !p->measured);
          if (p->cost[cost_index ("agpu_io")] != want[i].io
              || p->cost[cost_index ("agpu_time")] != want[i].time
              || p->cost[cost_index ("launches")] != want[i].launches)
            fail_msg ("pass %u: %s: io %g time %g launches %g", pass, p->spec,
                      p->cost[cost_index ("agpu_io")], p->cost[cost_index ("agpu_time")],
                      p->cost[cost_index ("launches")]);
        }
      assert_non_null (strstr (mdl_gpu_experiment_notes (exp),
                               pass == 0 ? "predictions: 2 run here" : "0 run here"));
      assert_non_null (strstr (mdl_gpu_experiment_notes (exp), "msimd:machine=h100,P=132,"));
    }
  g_unlink (file);
  g_rmdir (dir);
}

/* Ensure a case whose SIMT twin refuses its parameters stays unpredicted with the reason, in its
 * point and in the notes, and does not stop the others. */
static void
test_failed_case_does_not_stop_the_others (void **state)
{
  static const char *const cases[] = { "scan/padding:block=2048,k=3", "reduce/tree:b=32", NULL };
  static const guint64 sizes[] = { 1024 };
  MdlGpuExperimentConfig cfg;
  g_autoptr (MdlGpuExperiment) exp = NULL;
  const MdlGpuPoint *bad, *good;
  (void) state;
  mdl_gpu_experiment_config_init (&cfg);
  cfg.cases = cases;
  cfg.sizes = sizes;
  cfg.n_sizes = 1;
  exp = run_or_fail (&cfg);
  bad = test_gpu_point (exp, "scan/padding:n=1024,block=2048,k=3", NULL);
  good = test_gpu_point (exp, "reduce/tree:n=1024,b=32", NULL);
  assert_false (bad->predicted);
  assert_non_null (bad->error);
  assert_non_null (strstr (bad->error, "k=3 is not a power of two"));
  assert_true (good->predicted && good->error == NULL);
  assert_non_null (strstr (mdl_gpu_experiment_notes (exp), "2 run here (1 failed;"));
  assert_non_null (strstr (mdl_gpu_experiment_notes (exp),
                           "case scan/padding:n=1024,block=2048,k=3 failed: "));
}

/* Ensure a predictions file cut by an interrupted run loses only its cut line (the case it
 * belonged to is incomplete, so not used), and a run that may compute trims the cut line off
 * before appending. */
static void
test_cut_predictions_file (void **state)
{
  g_autofree char *text = NULL;
  g_autofree char *path = NULL;
  gsize len;
  MdlGpuExperimentConfig cfg = synthetic_config ();
  g_autoptr (MdlGpuExperiment) exp = NULL;
  (void) state;
  assert_true (g_file_get_contents (PREDICTIONS, &text, &len, NULL));
  /* cut the last case's seconds row in the middle */
  path = test_write_temp ("predictions.csv", text, len - 4);
  cfg.predictions = path;
  exp = run_or_fail (&cfg);
  assert_false (test_gpu_point (exp, "reduce/cascade:n=262144,b=32,k=16", NULL)->predicted);
  assert_true (test_gpu_point (exp, "reduce/cascade:n=131072,b=32,k=16", NULL)->predicted);
  assert_non_null (strstr (mdl_gpu_experiment_notes (exp), "ended in a cut line"));
  g_unlink (path);
}

/* Writes @files (name, text pairs, NULL-terminated) into a fresh directory; returns its path. */
static char *
write_dir (const char *const *files)
{
  char *dir = test_temp_dir ();
  for (guint i = 0; files[i]; i += 2)
    {
      g_autofree char *path = g_build_filename (dir, files[i], NULL);
      assert_true (g_file_set_contents (path, files[i + 1], -1, NULL));
    }
  return dir;
}

static void
remove_dir (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  while ((name = g_dir_read_name (d)))
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_unlink (path);
    }
  g_rmdir (dir);
}

#define TIMINGS_HEADER "launch,case,kernel,device,mode,seed,mismatches,median_us,reps\n"

/* Ensure bad input is an error naming the file and the line: a field that is not a number, a
 * missing column, a case measured twice, an unknown algorithm, a predictions row of an unknown
 * kind or value; and an unknown machine. */
static void
test_bad_input_names_file_and_line (void **state)
{
  static const struct {
    const char *name, *timings, *predictions;
    int code;
    const char *needle;
  } rows[] = {
    { "median not a number", TIMINGS_HEADER "0,\"reduce/tree:n=1024\",k,d,time,1,0,3.0,21\n"
      "1,\"reduce/tree:n=2048\",k,d,time,1,0,fast,21\n", NULL, MDL_ERROR_FORMAT,
      "timings.csv:3: median_us is \"fast\"" },
    { "no median column", "launch,case,kernel,device,mode,seed,mismatches,reps\n"
      "0,\"reduce/tree\",k,d,time,1,0,21\n", NULL, MDL_ERROR_FORMAT,
      "timings.csv:1: no column \"median_us\"" },
    { "negative mismatches", TIMINGS_HEADER "0,\"reduce/tree\",k,d,time,1,-1,3.0,21\n", NULL,
      MDL_ERROR_FORMAT, "timings.csv:2: mismatches is \"-1\"" },
    { "measured twice", TIMINGS_HEADER "# a comment line still counts as a line\n"
      "0,\"reduce/tree:n=1024,b=32\",k,d,time,1,0,3.0,21\n"
      "1,\"reduce/tree:b=32,n=1024\",k,d,time,1,0,3.0,21\n", NULL, MDL_ERROR_FORMAT,
      "timings.csv:4: case reduce/tree:b=32,n=1024 was measured already (line 3)" },
    { "unknown algorithm", TIMINGS_HEADER "0,\"reduce/sideways:n=1024\",k,d,time,1,0,3.0,21\n",
      NULL, MDL_ERROR_UNKNOWN_NAME, "timings.csv:2: " },
    { "bad kind", TIMINGS_HEADER "0,\"reduce/tree:n=1024\",k,d,time,1,0,3.0,21\n",
      "case,spec,counter,kind,value,unit,metric\n"
      "reduce/tree:n=1024,agpu,time,int,5,count,\n", MDL_ERROR_FORMAT,
      "predictions.csv:2: kind is \"int\", expected count, peak or real" },
    { "bad count", TIMINGS_HEADER "0,\"reduce/tree:n=1024\",k,d,time,1,0,3.0,21\n",
      "case,spec,counter,kind,value,unit,metric\n"
      "reduce/tree:n=1024,agpu,time,count,5.5,count,\n", MDL_ERROR_FORMAT,
      "predictions.csv:2: value \"5.5\" of time is not a whole number" },
    { "no spec column", TIMINGS_HEADER "0,\"reduce/tree:n=1024\",k,d,time,1,0,3.0,21\n",
      "case,counter,kind,value,unit,metric\n", MDL_ERROR_FORMAT,
      "predictions.csv:1: no column \"spec\"" },
  };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      const char *const files[] = { "timings.csv", rows[i].timings, "predictions.csv",
                                    rows[i].predictions ? rows[i].predictions : "", NULL };
      g_autofree char *dir = write_dir (rows[i].predictions ? files : (const char *[]) {
                                          files[0], files[1], NULL });
      g_autofree char *predictions = g_build_filename (dir, "predictions.csv", NULL);
      MdlGpuExperimentConfig cfg;
      GError *error = NULL;
      mdl_gpu_experiment_config_init (&cfg);
      cfg.measured = dir;
      cfg.predictions = predictions;
      cfg.compute = FALSE;
      if (mdl_gpu_experiment_run (&cfg, &error) != NULL)
        fail_msg ("%s: no error", rows[i].name);
      if (error->code != rows[i].code || !strstr (error->message, rows[i].needle))
        fail_msg ("%s: got \"%s\" (code %d), expected code %d and \"%s\"", rows[i].name,
                  error->message, error->code, rows[i].code, rows[i].needle);
      g_clear_error (&error);
      remove_dir (dir);
    }
  {
    MdlGpuExperimentConfig cfg = synthetic_config ();
    GError *error = NULL;
    cfg.machine = "z80";
    assert_null (mdl_gpu_experiment_run (&cfg, &error));
    assert_mdl_error (error, MDL_ERROR_UNKNOWN_NAME, "unknown machine \"z80\"");
  }
}

/* Ensure the writers hold together: one CSV row per point, JSON without NaN, a Markdown table
 * with the fits and the cases, and every file write_files promises. */
static void
test_outputs_hold_together (void **state)
{
  static const char *const files[] = { "gpu.md", "gpu.csv", "gpu-fits.csv", "gpu.json",
                                       "gpu-fit.dat", "gpu-time.dat", "gpu-fit-panels.gp",
                                       "gpu-time-panels.gp", "gpu.gp" };
  MdlGpuExperimentConfig cfg = synthetic_config ();
  g_autoptr (MdlGpuExperiment) exp = run_or_fail (&cfg);
  g_autoptr (GString) csv = g_string_new (NULL);
  g_autoptr (GString) json = g_string_new (NULL);
  g_autoptr (GString) md = g_string_new (NULL);
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = test_temp_dir ();
  g_auto (GStrv) lines = NULL;
  (void) state;
  mdl_gpu_experiment_write (exp, MDL_FORMAT_CSV, csv);
  lines = g_strsplit (g_strstrip (csv->str), "\n", -1);
  assert_int_equal (g_strv_length (lines), mdl_gpu_experiment_results (exp)->n_points + 1);
  assert_true (g_str_has_prefix (lines[0], "case,algorithm,params,n,"));
  mdl_gpu_experiment_write (exp, MDL_FORMAT_JSON, json);
  assert_non_null (strstr (json->str, "\"experiment\": \"gpu\""));
  assert_null (strstr (json->str, "nan"));
  assert_null (strstr (json->str, "inf"));
  mdl_gpu_experiment_write (exp, MDL_FORMAT_TABLE, md);
  assert_non_null (strstr (md->str, "| counters | launches 2000, sectors 1, wavefronts 0.5, "
                                    "warp_insts 0.2, latency_rounds 0 | 6 | 3 | 1.0000 |"));
  assert_non_null (strstr (md->str, "| reduce/tree | b=32 | 2^16 |"));
  assert_non_null (strstr (md->str, "| 1000 / 1000 |"));
  assert_true (mdl_gpu_experiment_write_files (exp, dir, &error));
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = g_build_filename (dir, files[i], NULL);
      assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
    }
  remove_dir (dir);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_join_reads_times_counters_and_launches),
    cmocka_unit_test (test_fits_recover_known_coefficients),
    cmocka_unit_test (test_loao_on_a_toy),
    cmocka_unit_test (test_ratios_and_bandwidth),
    cmocka_unit_test (test_predictions_at_small_n),
    cmocka_unit_test (test_failed_case_does_not_stop_the_others),
    cmocka_unit_test (test_cut_predictions_file),
    cmocka_unit_test (test_bad_input_names_file_and_line),
    cmocka_unit_test (test_outputs_hold_together),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
