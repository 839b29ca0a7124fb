/* Tests of the VAT experiment's instrumented runs on several threads (--jobs): what the engines
 * count for a point cannot depend on the number of threads nor on what the heap held before,
 * since the recorder gives each run's arrays simulated addresses (mdl_recorder_map(), checked by
 * hand in test-recorder.c; here through a hand-derived point); the timings all come before the
 * first instrumented run; bad settings are refused by name. */
#include "helpers.h"

#include <models/error.h>
#include <models/experiment.h>

#include <string.h>

#define MIB (G_GUINT64_CONSTANT (1) << 20)

/* Algorithms with one array (scan/seq), two (scan/random, mergesort, transpose), three
 * (matmul) and a huge-page series (permute), at a few sizes: every way the experiment allocates. */
static const char *const algos[] = {
  "scan/seq", "scan/random", "permute/fisher-yates", "heap/sort", "mergesort/bottom-up",
  "transpose/rows", "matmul/naive", NULL
};

static void
small_config (MdlVatExperimentConfig *cfg)
{
  mdl_vat_experiment_config_init (cfg);
  cfg->algorithms = algos;
  cfg->max_bytes = 128 << 10;
  cfg->growth = 2;
  cfg->reps = 1;
  cfg->min_seconds = 0;
}

/* The counts of two points, field by field (every field but the timings and the fits on them). */
static void
assert_same_counts (const MdlVatPoint *a, const MdlVatPoint *b, guint i)
{
  const struct { const char *name; guint64 x, y; } fields[] = {
#define FIELD(f) { #f, a->f, b->f }
    FIELD (n), FIELD (bytes), FIELD (huge_pages), FIELD (ram_ops), FIELD (accesses),
    FIELD (tc_misses), FIELD (tc_misses_small), FIELD (em_misses[0]), FIELD (em_misses[1]),
    FIELD (em_misses[2]), FIELD (lines), FIELD (cache_misses[0]), FIELD (cache_misses[1]),
    FIELD (cache_misses[2]), FIELD (random_misses[0]), FIELD (random_misses[1]),
    FIELD (random_misses[2]), FIELD (tlb_misses), FIELD (walks), FIELD (branches),
    FIELD (mispredicts),
#undef FIELD
  };
  if (strcmp (a->algorithm, b->algorithm) != 0)
    fail_msg ("point %u: algorithm %s against %s", i, a->algorithm, b->algorithm);
  for (guint f = 0; f < G_N_ELEMENTS (fields); f++)
    if (fields[f].x != fields[f].y)
      fail_msg ("point %u (%s n=%" G_GUINT64_FORMAT "%s): %s is %" G_GUINT64_FORMAT " with one "
                "thread, %" G_GUINT64_FORMAT " with three", i, a->algorithm, a->n,
                a->huge_pages ? ", huge" : "", fields[f].name, fields[f].x, fields[f].y);
}

/* What the progress callback saw: the stages in order, the most runs in flight. */
typedef struct {
  guint jobs;
  guint max_running;
  gboolean model_seen, time_after_model;
  guint last_step, n_steps;
  double last_work;
  gboolean work_went_back;
} Seen;

static void
watch_progress (const MdlVatProgress *p, void *data)
{
  Seen *s = data;
  if (p->stage == NULL || strcmp (p->stage, "done") == 0)
    return;
  if (strcmp (p->stage, "model") == 0)
    s->model_seen = TRUE;
  else if (s->model_seen)
    s->time_after_model = TRUE;
  s->max_running = MAX (s->max_running, p->running);
  s->work_went_back |= p->work_done < s->last_work;
  s->last_work = p->work_done;
  s->last_step = p->step;
  s->n_steps = p->n_steps;
}

static MdlVatExperiment *
run_with_jobs (guint jobs, Seen *seen)
{
  MdlVatExperimentConfig cfg;
  g_autoptr (GError) error = NULL;
  MdlVatExperiment *exp;
  small_config (&cfg);
  cfg.jobs = jobs;
  cfg.progress = watch_progress;
  cfg.progress_data = seen;
  exp = mdl_vat_experiment_run (&cfg, &error);
  if (exp == NULL)
    fail_msg ("jobs=%u: %s", jobs, error->message);
  return exp;
}

/* Ensure every point counts the same with three threads as with one, although the three-thread
 * run's workers allocate from other malloc arenas and the heap holds blocks the first run did not
 * see; and that the progress shows every timing before the first instrumented run, never more
 * runs in flight than threads, a share of the work that never goes back, and every step. */
static void
test_counts_do_not_depend_on_jobs (void **state)
{
  Seen one = { .jobs = 1 }, three = { .jobs = 3 };
  g_autoptr (MdlVatExperiment) a = NULL, b = NULL;
  g_autoptr (GPtrArray) clutter = g_ptr_array_new_with_free_func (g_free);
  const MdlVatResults *ra, *rb;
  (void) state;
  a = run_with_jobs (1, &one);
  for (guint i = 1; i <= 9; i++)
    g_ptr_array_add (clutter, g_malloc0 (i * 37000));
  b = run_with_jobs (3, &three);
  ra = mdl_vat_experiment_results (a);
  rb = mdl_vat_experiment_results (b);
  assert_int_equal (ra->n_points, rb->n_points);
  assert_true (ra->n_points > 20);
  for (guint i = 0; i < ra->n_points; i++)
    assert_same_counts (&ra->points[i], &rb->points[i], i);
  for (Seen *s = &one; s; s = s == &one ? &three : NULL)
    {
      assert_true (s->model_seen);
      assert_false (s->time_after_model);
      assert_false (s->work_went_back);
      assert_true (s->max_running >= 1 && s->max_running <= s->jobs);
      assert_int_equal (s->last_step, s->n_steps);
    }
}

/* Ensure the engines see the simulated layout: one 2 MiB array of scan/seq (n = 2^18) lies in a
 * single 2 MiB node of the translation tree, which malloc's 4 KiB-aligned block would straddle
 * (511 times in 512). By hand, x86-64 (K = 512, d = 4, W = 1638 holds every node): the root, one
 * node at each of levels 1 to 3 and the 512 pages, 516 TC misses; 2^21 / 64 = 32768 lines. The
 * same with two threads. */
static void
test_simulated_layout_by_hand (void **state)
{
  const char *const scan[] = { "scan/seq", NULL };
  (void) state;
  for (guint jobs = 1; jobs <= 2; jobs++)
    {
      MdlVatExperimentConfig cfg;
      g_autoptr (MdlVatExperiment) exp = NULL;
      g_autoptr (GError) error = NULL;
      const MdlVatResults *r;
      mdl_vat_experiment_config_init (&cfg);
      cfg.algorithms = scan;
      cfg.min_n = 2 * MIB / 8;
      cfg.max_bytes = 24 * cfg.min_n;   /* the smallest bound the experiment takes */
      cfg.growth = 16;                  /* the next size is beyond it */
      cfg.reps = 1;
      cfg.min_seconds = 0;
      cfg.huge = FALSE;
      cfg.jobs = jobs;
      exp = mdl_vat_experiment_run (&cfg, &error);
      if (exp == NULL)
        fail_msg ("jobs=%u: %s", jobs, error->message);
      r = mdl_vat_experiment_results (exp);
      assert_int_equal (r->n_points, 1);
      assert_int_equal (r->points[0].n, 262144);
      assert_int_equal (r->points[0].tc_misses, 516);
      assert_int_equal (r->points[0].lines, 32768);
    }
}

/* The "points" of `models experiment vat --format json` with the values that come from the
 * clock (times, the repetitions they set, and what the fits predict from them) blanked. */
static char *
points_without_times (const char *json)
{
  g_autoptr (GRegex) timed = g_regex_new ("\"(seconds_min|seconds_median|reps|norm_ns|vat_ns|"
                                          "em_ns)\": [^,}]+", 0, 0, NULL);
  const char *start = strstr (json, "\n  \"points\": ["), *end = strstr (json, "\n  \"fits\": [");
  g_autofree char *points = NULL;
  if (start == NULL || end == NULL || end < start)
    fail_msg ("no points in the JSON:\n%s", json);
  points = g_strndup (start, (gsize) (end - start));
  return g_regex_replace (timed, points, -1, 0, "\"\\1\": T", 0, NULL);
}

/* Ensure the JSON points of the command are equal with --jobs 1 and --jobs 3 but for the values
 * that come from the clock. */
static void
test_json_equal_for_one_and_three_jobs (void **state)
{
  const char *base[] = { "experiment", "vat", "--max-bytes", "128k", "--growth", "2", "--reps",
                         "1", "--algos", "scan/random,mergesort/bottom-up,matmul/naive",
                         "--format", "json", "--jobs", NULL, NULL };
  g_autofree char *out1 = NULL, *out3 = NULL, *p1 = NULL, *p3 = NULL;
  (void) state;
  base[13] = "1";
  assert_int_equal (test_run_models (NULL, base, &out1, NULL), 0);
  base[13] = "3";
  assert_int_equal (test_run_models (NULL, base, &out3, NULL), 0);
  p1 = points_without_times (out1);
  p3 = points_without_times (out3);
  assert_non_null (strstr (p1, "\"tc_misses\": "));
  assert_string_equal (p1, p3);
}

/* Ensure jobs outside 1..4096 is refused by name, before anything runs. */
static void
test_bad_jobs_refused (void **state)
{
  MdlVatExperimentConfig cfg;
  GError *error = NULL;
  (void) state;
  small_config (&cfg);
  cfg.jobs = 0;
  assert_null (mdl_vat_experiment_run (&cfg, &error));
  assert_mdl_error (error, MDL_ERROR_PARAM, "experiment vat: jobs=0 is out of range (1..4096)");
  error = NULL;
  cfg.jobs = 4097;
  assert_null (mdl_vat_experiment_run (&cfg, &error));
  assert_mdl_error (error, MDL_ERROR_PARAM, "jobs=4097 is out of range");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_bad_jobs_refused),
    cmocka_unit_test (test_simulated_layout_by_hand),
    cmocka_unit_test (test_counts_do_not_depend_on_jobs),
    cmocka_unit_test (test_json_equal_for_one_and_three_jobs),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
