/* Tests of sweeps (include/models/sweep.h): the grid syntax against hand-expanded lists, shards
 * that partition the plan, every row against `models run` of the same configuration alone (the
 * slow, obviously-correct reference), the same table on 1 and 4 threads, resuming a grid and a
 * sweep killed with SIGKILL at random moments, merging shards, and bad input. Sources are recorded
 * by $MODELS_BIN (default build/bin/models), as the command does. */
#include "helpers.h"

#include "experiments/csv.h"
#include "experiments/sweep-private.h"

#include <math.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>

static const char *
models_bin (void)
{
  const char *bin = g_getenv ("MODELS_BIN");
  return bin && *bin ? bin : "build/bin/models";
}

/* ---- the grid syntax ---- */

/* Each expected list is written out by hand from the rule: names first, then the keys in the
 * order written, the last key varying fastest; lo..hi doubles from lo while <= hi. */
static const struct {
  const char *grid;
  const char *expect;   /* the specs, space-separated */
} grid_rows[] = {
  { "count", "count" },
  { "vat:W=8", "vat:W=8" },
  { "vat:policy=lru,islru", "vat:policy=lru vat:policy=islru" },
  { "vat:policy=lru,islru,W=4..16",
    "vat:policy=lru,W=4 vat:policy=lru,W=8 vat:policy=lru,W=16 "
    "vat:policy=islru,W=4 vat:policy=islru,W=8 vat:policy=islru,W=16" },
  { "x:n=3..13", "x:n=3 x:n=6 x:n=12" },
  { "x:n=1k..2k", "x:n=1024 x:n=2048" },
  { "x:a=1..1,b=y", "x:a=1,b=y" },
  { "scan/nopad,scan/padding:k=32", "scan/nopad:k=32 scan/padding:k=32" },
  { "count,footprint", "count footprint" },
};

/* Ensure every grid expands to the hand-written list, in order. */
static void
test_grid_expands_as_written (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (grid_rows); i++)
    {
      g_autoptr (GPtrArray) specs = g_ptr_array_new_with_free_func (g_free);
      g_autoptr (GError) error = NULL;
      g_autofree char *got = NULL;
      if (!mdl_sweep_grid_expand (grid_rows[i].grid, specs, &error))
        fail_msg ("%s: %s", grid_rows[i].grid, error->message);
      g_ptr_array_add (specs, NULL);
      got = g_strjoinv (" ", (char **) specs->pdata);
      if (strcmp (got, grid_rows[i].expect) != 0)
        fail_msg ("%s: expected \"%s\", got \"%s\"", grid_rows[i].grid, grid_rows[i].expect, got);
    }
}

static const struct {
  const char *grid;
  const char *needle;
} bad_grid_rows[] = {
  { "vat:lru", "\"lru\" has no key" },
  { "vat:W=8..4", "the range goes down" },
  { ":k=1", "has no name" },
  { "a,,b", "empty name" },
  { "vat:W=0..4", "W" },
  { "vat:W=x..4", "W" },
};

/* Ensure a malformed grid is refused with a message naming the grid and the fault. */
static void
test_bad_grid_is_refused (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (bad_grid_rows); i++)
    {
      g_autoptr (GPtrArray) specs = g_ptr_array_new_with_free_func (g_free);
      GError *error = NULL;
      if (mdl_sweep_grid_expand (bad_grid_rows[i].grid, specs, &error))
        fail_msg ("%s: accepted", bad_grid_rows[i].grid);
      assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM, bad_grid_rows[i].needle);
    }
}

/* Ensure value lists take sizes with suffixes and ranges, in order. */
static void
test_values_expand (void **state)
{
  static const guint64 expect[] = { 5, 1024, 2048, 4096, 3 };
  g_autoptr (GArray) values = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr (GError) error = NULL;
  (void) state;
  assert_true (mdl_sweep_values_expand ("sweep", "n", "5, 1k..4k,3", values, &error));
  assert_int_equal (values->len, G_N_ELEMENTS (expect));
  for (guint i = 0; i < values->len; i++)
    assert_int_equal (g_array_index (values, guint64, i), expect[i]);
}

/* ---- plans ---- */

static MdlSweep *
small_grid (void)
{
  MdlSweep *s = mdl_sweep_new ();
  mdl_sweep_add_algo (s, "scan/seq,scan/random");
  mdl_sweep_add_sizes (s, "1k..2k");
  mdl_sweep_add_engine (s, "vat:policy=lru,islru,W=8,32");
  mdl_sweep_add_engine (s, "count");
  mdl_sweep_set_runner (s, models_bin ());
  return s;
}

/* Ensure the count is the product of the distinct values: a spec or a size written twice (count
 * again, n=1024 again as "1024") is one configuration. */
static void
test_count_is_the_distinct_product (void **state)
{
  g_autoptr (MdlSweep) s = small_grid ();
  g_autoptr (GError) error = NULL;
  guint n_sources = 0;
  (void) state;
  mdl_sweep_add_engine (s, "count");
  mdl_sweep_add_sizes (s, "1024");
  /* 2 algorithms x 2 sizes x 1 seed; 2 policies x 2 W + count = 5 specs. */
  assert_int_equal (mdl_sweep_count (s, &n_sources, &error), 20);
  assert_int_equal (n_sources, 4);
}

/* Ensure the shards of any count partition the plan in order: their keys, one after the other,
 * are the whole plan's. */
static void
test_shards_partition_the_plan (void **state)
{
  g_autoptr (MdlSweep) s = small_grid ();
  g_autoptr (SweepPlan) whole = NULL;
  (void) state;
  whole = mdl_sweep_plan (s, NULL);
  assert_non_null (whole);
  for (guint k = 1; k <= 7; k++)
    {
      guint at = 0;
      for (guint i = 0; i < k; i++)
        {
          g_autoptr (SweepPlan) part = NULL;
          assert_true (mdl_sweep_set_shard (s, i, k, NULL));
          part = mdl_sweep_plan (s, NULL);
          for (guint c = 0; c < part->configs->len; c++, at++)
            {
              const SweepConfig *a = g_ptr_array_index (part->configs, c);
              const SweepConfig *b = g_ptr_array_index (whole->configs, at);
              if (strcmp (a->key, b->key) != 0)
                fail_msg ("shard %u/%u: config %u is %s, expected %s", i, k, c, a->key, b->key);
            }
        }
      assert_int_equal (at, whole->configs->len);
    }
}

/* ---- running ---- */

static char *
export_csv (const char *db)
{
  g_autoptr (GString) out = g_string_new (NULL);
  g_autoptr (GError) error = NULL;
  if (!mdl_sweep_export (db, MDL_FORMAT_CSV, FALSE, out, &error))
    fail_msg ("%s: %s", db, error->message);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static char *
run_into (MdlSweep *s, const char *db, guint threads, MdlSweepProgress *stats)
{
  g_autoptr (GError) error = NULL;
  if (!mdl_sweep_run (s, db, threads, NULL, NULL, stats, &error))
    fail_msg ("%s: %s", db, error->message);
  return export_csv (db);
}

static char *
db_path (const char *name)
{
  static char *dir;   /* one per test program, removed at exit */
  if (dir == NULL)
    dir = test_temp_dir ();
  return g_build_filename (dir, name, NULL);
}

/* "algo,n,seed,spec,counter" -> value of every row of a CSV export. */
static GHashTable *
export_values (const char *csv_text)
{
  g_autoptr (MdlCsv) csv = mdl_csv_parse (csv_text, "export", 1, NULL);
  GHashTable *values = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (guint i = 1; i < csv->rows->len; i++)
    {
      GPtrArray *row = mdl_csv_row (csv, i);
      g_hash_table_insert (values,
                           g_strjoin ("|", mdl_csv_field (row, 0), mdl_csv_field (row, 1),
                                      mdl_csv_field (row, 2), mdl_csv_field (row, 3),
                                      mdl_csv_field (row, 4), NULL),
                           g_strdup (mdl_csv_field (row, 5)));
    }
  return values;
}

/* Runs `models ARGS...` and returns its standard output (text); fails the test on an error. */
static char *
models_output (const char *const *args)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  char *out = NULL;
  int status = 0;
  g_ptr_array_add (argv, (gpointer) models_bin ());
  for (const char *const *a = args; *a; a++)
    g_ptr_array_add (argv, (gpointer) *a);
  g_ptr_array_add (argv, NULL);
  if (!g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                     &out, NULL, &status, &error) || !g_spawn_check_wait_status (status, &error))
    fail_msg ("models %s %s: %s", args[0], args[1], error->message);
  return out;
}

/* Checks the rows of @got (export_values()) for source @src and engine @spec against
 * `models analyze TRACE --engine SPEC`: the same totals, counter by counter. Returns how many. */
static guint
check_against_analyze (GHashTable *got, const SweepSource *src, const char *spec,
                       const char *trace)
{
  g_autofree char *n = g_strdup_printf ("%" G_GUINT64_FORMAT, src->n);
  g_autofree char *seed = g_strdup_printf ("%" G_GUINT64_FORMAT, src->seed);
  const char *analyze[] = { "analyze", trace, "--engine", spec, "--format", "csv", NULL };
  g_autofree char *out = models_output (analyze);
  g_autoptr (MdlCsv) csv = mdl_csv_parse (out, "models analyze", 2, NULL);
  guint checked = 0;
  assert_non_null (csv);
  /* analyze's CSV: engine,spec,phase,counter,value,unit,metric; totals have no phase. */
  for (guint i = 1; i < csv->rows->len; i++)
    {
      GPtrArray *row = mdl_csv_row (csv, i);
      g_autofree char *key = NULL;
      const char *value;
      if (*mdl_csv_field (row, 2))
        continue;
      key = g_strjoin ("|", src->name, n, seed, spec, mdl_csv_field (row, 3), NULL);
      value = g_hash_table_lookup (got, key);
      if (value == NULL || strcmp (value, mdl_csv_field (row, 4)) != 0)
        fail_msg ("%s: models analyze says %s, the sweep %s", key, mdl_csv_field (row, 4),
                  value ? value : "nothing");
      checked++;
    }
  return checked;
}

/* Ensure every row is what `models analyze` reports for its configuration alone on the trace that
 * the sweep's recording command writes (that command, the same for every grid and thread
 * count, fixes the arrays' addresses): the same counters with the same values, nothing more. */
static void
test_rows_equal_analyze_of_the_recording (void **state)
{
  g_autoptr (MdlSweep) s = small_grid ();
  g_autoptr (SweepPlan) plan = mdl_sweep_plan (s, NULL);
  g_autofree char *db = db_path ("alone.db");
  g_autofree char *text = run_into (s, db, 2, NULL);
  g_autoptr (GHashTable) got = export_values (text);
  guint checked = 0;
  (void) state;
  for (guint c = 0; c < plan->configs->len; c++)
    {
      const SweepConfig *cfg = g_ptr_array_index (plan->configs, c);
      const SweepSource *src = g_ptr_array_index (plan->sources, cfg->source);
      g_autofree char *name = g_strdup_printf ("trace-%u.bin", cfg->source);
      g_autofree char *trace = db_path (name);
      if (!g_file_test (trace, G_FILE_TEST_EXISTS))
        {
          /* The recording command of mdl_sweep_set_runner(), its trace on standard output. */
          g_autofree char *shell = g_strdup_printf (
            "'%s' run '%s' --n %" G_GUINT64_FORMAT " --seed %" G_GUINT64_FORMAT " --engine count "
            "--trace-out - --output /dev/null > '%s'", models_bin (), src->name, src->n, src->seed,
            trace);
          const char *sh[] = { "/bin/sh", "-c", shell, NULL };
          g_autoptr (GError) error = NULL;
          int status = 0;
          if (!g_spawn_sync (NULL, (char **) sh, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL,
                             &status, &error) || !g_spawn_check_wait_status (status, &error))
            fail_msg ("%s: %s", shell, error->message);
        }
      checked += check_against_analyze (got, src, cfg->spec, trace);
    }
  assert_int_equal (g_hash_table_size (got), checked);
}

/* Ensure a trace file is a source whose rows are what `models analyze` reports on it, beside an
 * algorithm's, with n its size in bytes and seed 0. */
static void
test_trace_sources_equal_analyze (void **state)
{
  g_autofree char *trace = db_path ("source.lackey"), *db = db_path ("traces.db");
  g_autoptr (MdlSweep) s = mdl_sweep_new ();
  g_autoptr (SweepPlan) plan = NULL;
  g_autofree char *text = NULL;
  g_autoptr (GHashTable) got = NULL;
  const char *record[] = { "run", "scan/random", "--n", "3000", "--engine", "count",
                           "--trace-out", trace, NULL };
  guint checked = 0, trace_rows = 0;
  (void) state;
  g_free (models_output (record));
  mdl_sweep_add_trace (s, trace);
  mdl_sweep_add_trace (s, trace);   /* named twice: one source */
  mdl_sweep_add_algo (s, "scan/seq");
  mdl_sweep_add_sizes (s, "1k");
  mdl_sweep_add_engine (s, "vat:policy=lru,islru,W=8,32");
  mdl_sweep_add_engine (s, "footprint");
  mdl_sweep_set_runner (s, models_bin ());
  plan = mdl_sweep_plan (s, NULL);
  assert_int_equal (plan->sources->len, 2);
  text = run_into (s, db, 2, NULL);
  got = export_values (text);
  for (guint c = 0; c < plan->configs->len; c++)
    {
      const SweepConfig *cfg = g_ptr_array_index (plan->configs, c);
      const SweepSource *src = g_ptr_array_index (plan->sources, cfg->source);
      if (src->trace == NULL)
        continue;
      assert_int_equal (src->seed, 0);
      checked += check_against_analyze (got, src, cfg->spec, src->trace);
      trace_rows++;
    }
  assert_int_equal (trace_rows, 5);
  assert_true (checked > 0 && checked < g_hash_table_size (got));
}

/* Ensure the export is the same bytes on 1 and 4 threads. */
static void
test_threads_give_the_same_table (void **state)
{
  g_autoptr (MdlSweep) s = small_grid ();
  g_autofree char *db1 = db_path ("threads-1.db"), *db4 = db_path ("threads-4.db");
  g_autofree char *one = NULL, *four = NULL;
  (void) state;
  mdl_sweep_add_seeds (s, "1,2");
  one = run_into (s, db1, 1, NULL);
  four = run_into (s, db4, 4, NULL);
  assert_string_equal (one, four);
}

/* Ensure a source recorded in this process (no runner) gives the rows of one recorded by the
 * runner for an engine whose counts do not depend on addresses (count: accesses by kind and
 * size), and that a failing algorithm run is reported with its configuration either way. */
static void
test_in_process_recording_counts_the_same (void **state)
{
  g_autoptr (MdlSweep) s = mdl_sweep_new ();
  g_autofree char *here = db_path ("in-process.db"), *spawned = db_path ("spawned.db");
  g_autofree char *a = NULL, *b = NULL;
  GError *error = NULL;
  (void) state;
  mdl_sweep_add_algo (s, "scan/seq,scan/random,heap/sort,reduce/tree");
  mdl_sweep_add_sizes (s, "1k,3000");
  mdl_sweep_add_engine (s, "count");
  a = run_into (s, here, 2, NULL);
  mdl_sweep_set_runner (s, models_bin ());
  b = run_into (s, spawned, 2, NULL);
  assert_string_equal (a, b);
  {
    /* sort/qsort refuses n above 2^32 before allocating, in both builds. */
    g_autoptr (MdlSweep) bad = mdl_sweep_new ();
    mdl_sweep_add_algo (bad, "sort/qsort");
    mdl_sweep_add_sizes (bad, "8G");
    mdl_sweep_add_engine (bad, "count");
    assert_false (mdl_sweep_run (bad, here, 1, NULL, NULL, NULL, &error));
    assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM,
                      "n=8589934592 seed=1: sort/qsort: n=8589934592: cannot allocate the array");
    mdl_sweep_set_runner (bad, models_bin ());
    assert_false (mdl_sweep_run (bad, spawned, 1, NULL, NULL, NULL, &error));
    assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM,
                      "n=8589934592 seed=1: sort/qsort: n=8589934592: cannot allocate the array");
  }
}

/* Ensure a rerun skips what is done, a grown grid runs only what it adds, and the table is then
 * that of the grown grid run at once. */
static void
test_rerun_skips_what_is_done (void **state)
{
  g_autoptr (MdlSweep) s = small_grid ();
  g_autofree char *db = db_path ("resume.db"), *fresh = db_path ("resume-fresh.db");
  g_autofree char *grown = NULL, *at_once = NULL;
  MdlSweepProgress stats;
  (void) state;
  g_free (run_into (s, db, 2, &stats));
  assert_int_equal (stats.done, 20);     /* 2 x 2 sources, 5 specs each */
  g_free (run_into (s, db, 2, &stats));
  assert_int_equal (stats.done, 0);
  assert_int_equal (stats.skipped, 20);
  mdl_sweep_add_sizes (s, "4k");         /* 2 more sources */
  grown = run_into (s, db, 2, &stats);
  assert_int_equal (stats.skipped, 20);
  assert_int_equal (stats.done, 10);
  at_once = run_into (s, fresh, 2, NULL);
  assert_string_equal (grown, at_once);
}

static gboolean
stop_after_first (const MdlSweepProgress *p, void *data)
{
  (void) data;
  return p->done == 0;
}

/* Ensure a sweep stopped by its progress callback says so, keeps what it committed, and a rerun
 * completes it to the table of an uninterrupted run. The callback runs on the writer thread after
 * each commit: on a loaded machine the writer may wake only when every row is queued, and then its
 * first commit is the whole table and there is nothing left to stop. So each attempt, on a fresh
 * table, checks the rerun either way, and at least one of a few attempts must stop mid-way. */
static void
test_stopped_sweep_keeps_its_rows (void **state)
{
  g_autoptr (MdlSweep) s = small_grid ();
  g_autofree char *whole = db_path ("stopped-whole.db");
  g_autofree char *expect = run_into (s, whole, 2, NULL);
  gboolean stopped_midway = FALSE;
  (void) state;
  for (int attempt = 0; attempt < 8 && !stopped_midway; attempt++)
    {
      g_autofree char *name = g_strdup_printf ("stopped-%d.db", attempt);
      g_autofree char *db = db_path (name), *resumed = NULL;
      MdlSweepProgress stats;
      guint committed;
      GError *error = NULL;
      assert_false (mdl_sweep_run (s, db, 1, stop_after_first, NULL, &stats, &error));
      assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_IO, "stopped");
      assert_true (stats.done > 0 && stats.done <= stats.total);
      committed = stats.done;
      stopped_midway = committed < stats.total;
      resumed = run_into (s, db, 2, &stats);
      assert_int_equal (stats.skipped, committed);
      assert_string_equal (resumed, expect);
    }
  assert_true (stopped_midway);
}

/* Ensure a `models sweep` killed with SIGKILL at random moments leaves a table that a rerun
 * completes to the uninterrupted run's. The moments are drawn from the uninterrupted run's
 * duration with a seeded GRand (MODELS_TEST_SEED). */
static void
test_killed_sweep_resumes_to_the_same_table (void **state)
{
  guint32 seed = test_seed (18);
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  g_autofree char *whole = db_path ("killed-whole.db");
  const char *grid[] = { "--algo", "scan/seq,scan/random,binsearch/sorted", "--n", "1k..16k",
                         "--engine", "vat:policy=lru,islru,W=8..64", "--engine", "count",
                         "--threads", "2" };
  g_autofree char *expect = NULL;
  gint64 start_us, whole_us;
  (void) state;
  {
    g_autoptr (GPtrArray) argv = g_ptr_array_new ();
    g_autoptr (GError) error = NULL;
    int status;
    g_ptr_array_add (argv, (gpointer) models_bin ());
    g_ptr_array_add (argv, (gpointer) "sweep");
    for (guint i = 0; i < G_N_ELEMENTS (grid); i++)
      g_ptr_array_add (argv, (gpointer) grid[i]);
    g_ptr_array_add (argv, (gpointer) "--db");
    g_ptr_array_add (argv, whole);
    g_ptr_array_add (argv, NULL);
    start_us = g_get_monotonic_time ();
    assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL,
                               NULL, NULL, NULL, &status, &error));
    whole_us = g_get_monotonic_time () - start_us;
    assert_int_equal (status, 0);
    expect = export_csv (whole);
  }
  for (guint round = 0; round < 3; round++)
    {
      g_autofree char *name = g_strdup_printf ("killed-%u.db", round);
      g_autofree char *db = db_path (name);
      g_autofree char *got = NULL;
      g_autoptr (GPtrArray) argv = g_ptr_array_new ();
      gint64 kill_at_us = g_rand_int_range (rand, 0, (gint32) MAX (whole_us, 2));
      GPid pid;
      int status;
      g_ptr_array_add (argv, (gpointer) models_bin ());
      g_ptr_array_add (argv, (gpointer) "sweep");
      for (guint i = 0; i < G_N_ELEMENTS (grid); i++)
        g_ptr_array_add (argv, (gpointer) grid[i]);
      g_ptr_array_add (argv, (gpointer) "--db");
      g_ptr_array_add (argv, db);
      g_ptr_array_add (argv, NULL);
      assert_true (g_spawn_async (NULL, (char **) argv->pdata, NULL,
                                  G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDERR_TO_DEV_NULL, NULL,
                                  NULL, &pid, NULL));
      g_usleep ((gulong) kill_at_us);
      kill (pid, SIGKILL);
      waitpid (pid, &status, 0);
      g_spawn_close_pid (pid);
      {
        g_autoptr (MdlSweep) s = mdl_sweep_new ();
        g_autoptr (GError) error = NULL;
        mdl_sweep_add_algo (s, grid[1]);
        mdl_sweep_add_sizes (s, grid[3]);
        mdl_sweep_add_engine (s, grid[5]);
        mdl_sweep_add_engine (s, grid[7]);
        mdl_sweep_set_runner (s, models_bin ());
        if (!mdl_sweep_run (s, db, 2, NULL, NULL, NULL, &error))
          fail_msg ("seed %u, killed after %" G_GINT64_FORMAT " us: %s", seed, kill_at_us,
                    error->message);
      }
      got = export_csv (db);
      if (strcmp (got, expect) != 0)
        fail_msg ("seed %u: killed after %" G_GINT64_FORMAT " us, the resumed table differs", seed,
                  kill_at_us);
    }
}

/* Ensure the merged tables of the shards export as the whole grid's table. */
static void
test_merged_shards_equal_the_whole (void **state)
{
  g_autoptr (MdlSweep) s = small_grid ();
  g_autofree char *whole = db_path ("merge-whole.db"), *merged = db_path ("merged.db");
  g_autofree char *expect = NULL, *got = NULL;
  g_autoptr (GPtrArray) shards = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GError) error = NULL;
  (void) state;
  expect = run_into (s, whole, 2, NULL);
  for (guint i = 0; i < 3; i++)
    {
      char *db = g_strdup_printf ("%s.shard-%u", merged, i);
      assert_true (mdl_sweep_set_shard (s, i, 3, NULL));
      g_free (run_into (s, db, 1, NULL));
      g_ptr_array_add (shards, db);
    }
  g_ptr_array_add (shards, NULL);
  assert_true (mdl_sweep_merge (merged, (const char *const *) shards->pdata, &error));
  got = export_csv (merged);
  assert_string_equal (got, expect);
}

/* The times of each configuration of a --times CSV export, in time_columns' order (NAN where
 * empty), keyed by "algo|n|seed|spec"; each row of a configuration repeats them. */
enum { T_SOURCE, T_ENGINE, T_REPORT, T_SOURCE_START, T_SOURCE_END, T_SOURCE_THREAD,
       T_ENGINE_START, T_ENGINE_END, T_ENGINE_THREAD, N_TIMES };

static GHashTable *
export_times (const char *db)
{
  g_autoptr (GString) out = g_string_new (NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlCsv) csv = NULL;
  GHashTable *times = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  if (!mdl_sweep_export (db, MDL_FORMAT_CSV, TRUE, out, &error))
    fail_msg ("%s: %s", db, error->message);
  csv = mdl_csv_parse (out->str, "export", 1, NULL);
  assert_string_equal (mdl_csv_field (mdl_csv_row (csv, 0), 7 + T_ENGINE_THREAD),
                       "engine_thread");
  for (guint i = 1; i < csv->rows->len; i++)
    {
      GPtrArray *row = mdl_csv_row (csv, i);
      double *t = g_new (double, N_TIMES);
      for (guint k = 0; k < N_TIMES; k++)
        {
          const char *field = mdl_csv_field (row, 7 + k);
          t[k] = *field ? g_ascii_strtod (field, NULL) : NAN;
        }
      g_hash_table_insert (times, g_strjoin ("|", mdl_csv_field (row, 0), mdl_csv_field (row, 1),
                                             mdl_csv_field (row, 2), mdl_csv_field (row, 3),
                                             NULL), t);
    }
  return times;
}

/* Ensure each configuration's timeline tells a possible story: its recording's span lasts its
 * source_seconds (the same two clock readings), its replay starts once the recording has and
 * ends (with the report) after the recording ends, the report is part of the engine's time, and
 * both ran on one of the sweep's workers. Merging keeps the timeline. */
static void
test_timeline_is_consistent (void **state)
{
  g_autoptr (MdlSweep) s = small_grid ();
  g_autofree char *db = db_path ("timeline.db"), *merged = db_path ("timeline-merged.db");
  g_autoptr (GHashTable) times = NULL, merged_times = NULL;
  g_autoptr (GError) error = NULL;
  const char *in[] = { db, NULL };
  GHashTableIter it;
  gpointer key, value;
  (void) state;
  g_free (run_into (s, db, 2, NULL));
  times = export_times (db);
  assert_int_equal (g_hash_table_size (times), 20);   /* 4 sources x 5 specs */
  g_hash_table_iter_init (&it, times);
  while (g_hash_table_iter_next (&it, &key, &value))
    {
      const double *t = value;
      if (!(fabs (t[T_SOURCE_END] - t[T_SOURCE_START] - t[T_SOURCE]) < 1e-5
            && t[T_SOURCE_START] >= 0 && t[T_ENGINE_START] >= t[T_SOURCE_START]
            && t[T_ENGINE_END] >= t[T_SOURCE_END] && t[T_ENGINE_END] >= t[T_ENGINE_START]
            && t[T_REPORT] >= 0 && t[T_REPORT] <= t[T_ENGINE]
            && t[T_SOURCE_THREAD] >= 1 && t[T_SOURCE_THREAD] <= 2
            && t[T_ENGINE_THREAD] >= 1 && t[T_ENGINE_THREAD] <= 2))
        fail_msg ("%s: recorded %g s from %g to %g on worker %g; engine %g s (report %g) from "
                  "%g to %g on worker %g", (const char *) key, t[T_SOURCE], t[T_SOURCE_START],
                  t[T_SOURCE_END], t[T_SOURCE_THREAD], t[T_ENGINE], t[T_REPORT],
                  t[T_ENGINE_START], t[T_ENGINE_END], t[T_ENGINE_THREAD]);
    }
  assert_true (mdl_sweep_merge (merged, in, &error));
  merged_times = export_times (merged);
  g_hash_table_iter_init (&it, times);
  while (g_hash_table_iter_next (&it, &key, &value))
    {
      const double *t = value, *m = g_hash_table_lookup (merged_times, key);
      assert_non_null (m);
      assert_memory_equal (t, m, N_TIMES * sizeof *t);
    }
}

/* Ensure a table of schema 1 (before the timeline) is read as it is, its times empty, and is
 * brought up to the timeline's schema by the next sweep into it, its old rows kept. */
static void
test_schema_1_table_is_read_and_upgraded (void **state)
{
  static const char v1[] =
    "CREATE TABLE configs (key TEXT PRIMARY KEY, algo TEXT NOT NULL, n INTEGER NOT NULL,"
    " seed INTEGER NOT NULL, spec TEXT NOT NULL, engine TEXT NOT NULL, version TEXT NOT NULL,"
    " events INTEGER NOT NULL, source_seconds REAL NOT NULL, engine_seconds REAL NOT NULL);"
    "CREATE TABLE counters (key TEXT NOT NULL REFERENCES configs (key), position INTEGER NOT NULL,"
    " name TEXT NOT NULL, unit TEXT NOT NULL, is_real INTEGER NOT NULL, count INTEGER, real REAL,"
    " PRIMARY KEY (key, name));"
    "INSERT INTO configs VALUES ('old', 'scan/seq', 7, 1, 'count', 'count', 'x', 3, 0.5, 0.25);"
    "INSERT INTO counters VALUES ('old', 0, 'accesses', 'count', 0, 3, NULL);"
    "PRAGMA user_version = 1;";
  g_autoptr (MdlSweep) s = small_grid ();
  g_autofree char *db = db_path ("schema-1.db");
  g_autoptr (GHashTable) times = NULL;
  g_autofree char *csv = NULL;
  sqlite3 *raw = NULL;
  const double *old;
  GHashTableIter it;
  gpointer key, value;
  (void) state;
  assert_int_equal (sqlite3_open (db, &raw), SQLITE_OK);
  assert_int_equal (sqlite3_exec (raw, v1, NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close (raw);
  csv = export_csv (db);
  assert_string_equal (csv, "algo,n,seed,spec,counter,value,unit\n"
                            "scan/seq,7,1,count,accesses,3,count\n");
  times = export_times (db);
  old = g_hash_table_lookup (times, "scan/seq|7|1|count");
  assert_non_null (old);
  assert_true (old[T_SOURCE] == 0.5 && old[T_ENGINE] == 0.25 && isnan (old[T_REPORT])
               && isnan (old[T_ENGINE_THREAD]));
  g_clear_pointer (&times, g_hash_table_unref);
  g_free (run_into (s, db, 1, NULL));
  times = export_times (db);
  assert_int_equal (g_hash_table_size (times), 21);
  g_hash_table_iter_init (&it, times);
  while (g_hash_table_iter_next (&it, &key, &value))
    assert_true (isnan (((double *) value)[T_REPORT])
                 == (strcmp (key, "scan/seq|7|1|count") == 0));
}

/* Ensure the sweep file holds the grid: saved and loaded, it plans the same configurations. */
static void
test_sweep_file_round_trips (void **state)
{
  g_autoptr (MdlSweep) s = small_grid ();
  g_autofree char *path = db_path ("grid.ini");
  g_autoptr (MdlSweep) back = NULL;
  g_autoptr (SweepPlan) a = NULL, b = NULL;
  g_autoptr (GError) error = NULL;
  (void) state;
  mdl_sweep_add_seeds (s, "3,4");
  mdl_sweep_set_machine (s, "x86-64");
  assert_true (mdl_sweep_set_shard (s, 1, 2, NULL));
  assert_true (mdl_sweep_save (s, path, &error));
  back = mdl_sweep_load (path, &error);
  assert_non_null (back);
  a = mdl_sweep_plan (s, NULL);
  b = mdl_sweep_plan (back, NULL);
  assert_int_equal (a->configs->len, b->configs->len);
  for (guint i = 0; i < a->configs->len; i++)
    assert_string_equal (((SweepConfig *) g_ptr_array_index (a->configs, i))->key,
                         ((SweepConfig *) g_ptr_array_index (b->configs, i))->key);
}

/* ---- bad input ---- */

/* Ensure bad grids, sweep files and tables are refused with the place named. */
static void
test_bad_input_names_the_place (void **state)
{
  g_autofree char *not_db = NULL, *bad_key = NULL, *bad_shard = NULL;
  g_autofree char *missing = db_path ("missing.db");
  g_autoptr (GString) out = g_string_new (NULL);
  GError *error = NULL;
  (void) state;
  {
    g_autoptr (MdlSweep) s = mdl_sweep_new ();
    mdl_sweep_add_algo (s, "scan/seq");
    mdl_sweep_add_engine (s, "vat:policy=lru,lur");
    assert_int_equal (mdl_sweep_count (s, NULL, &error), 0);
    assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM, "lur");
  }
  {
    g_autoptr (MdlSweep) s = mdl_sweep_new ();
    mdl_sweep_add_algo (s, "scan/sequential");
    mdl_sweep_add_engine (s, "count");
    assert_int_equal (mdl_sweep_count (s, NULL, &error), 0);
    assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_UNKNOWN_NAME, "scan/sequential");
  }
  {
    g_autoptr (MdlSweep) s = mdl_sweep_new ();
    mdl_sweep_add_engine (s, "count");
    assert_int_equal (mdl_sweep_count (s, NULL, &error), 0);
    assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM, "at least one algorithm");
  }
  not_db = test_write_temp ("not.db", "[sweep]\nalgos=scan/seq\n", 23);
  assert_false (mdl_sweep_export (not_db, MDL_FORMAT_CSV, FALSE, out, &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_FORMAT, "not.db");
  assert_false (mdl_sweep_export (missing, MDL_FORMAT_CSV, FALSE, out, &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_IO, "missing.db: no such file");
  bad_key = test_write_temp ("bad-key.ini", "[sweep]\nalgos=scan/seq\nengine=count\n", 36);
  assert_null (mdl_sweep_load (bad_key, &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_FORMAT, "unknown key \"engine\"");
  bad_shard = test_write_temp ("bad-shard.ini", "[sweep]\nshard=3/3\n", 18);
  assert_null (mdl_sweep_load (bad_shard, &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_FORMAT, "shard=3/3");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_grid_expands_as_written),
    cmocka_unit_test (test_bad_grid_is_refused),
    cmocka_unit_test (test_values_expand),
    cmocka_unit_test (test_count_is_the_distinct_product),
    cmocka_unit_test (test_shards_partition_the_plan),
    cmocka_unit_test (test_rows_equal_analyze_of_the_recording),
    cmocka_unit_test (test_trace_sources_equal_analyze),
    cmocka_unit_test (test_threads_give_the_same_table),
    cmocka_unit_test (test_in_process_recording_counts_the_same),
    cmocka_unit_test (test_rerun_skips_what_is_done),
    cmocka_unit_test (test_stopped_sweep_keeps_its_rows),
    cmocka_unit_test (test_killed_sweep_resumes_to_the_same_table),
    cmocka_unit_test (test_merged_shards_equal_the_whole),
    cmocka_unit_test (test_timeline_is_consistent),
    cmocka_unit_test (test_schema_1_table_is_read_and_upgraded),
    cmocka_unit_test (test_sweep_file_round_trips),
    cmocka_unit_test (test_bad_input_names_the_place),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
