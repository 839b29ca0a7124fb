/* Tests of the VAT experiment's journal (src/experiments/vat-journal.c): a run cut short after
 * any number of journal rows and continued (resume) ends with the counts of a run never cut, and
 * with results that a refit of its journal (refit_only, `--from`) reproduces byte for byte; no
 * step in the journal is run twice; options and machines that differ, and malformed rows, are
 * refused by name; a row cut in the middle by a kill is dropped. */
#include "helpers.h"

#include <models/error.h>
#include <models/experiment.h>

#include <math.h>
#include <string.h>

#include "experiments/vat-journal.h"

static const char *const algos[] = { "scan/seq", "binsearch/sorted", NULL };

static void
small_config (MdlVatExperimentConfig *cfg, const char *dir)
{
  mdl_vat_experiment_config_init (cfg);
  cfg->algorithms = algos;
  cfg->max_bytes = 64 << 10;
  cfg->growth = 2;
  cfg->reps = 2;
  cfg->min_seconds = 0;
  cfg->huge = FALSE;
  cfg->jobs = 2;
  cfg->journal_dir = dir;
}

static char *
journal_text (const char *dir)
{
  g_autofree char *path = g_build_filename (dir, MDL_VAT_JOURNAL_FILE, NULL);
  char *text = NULL;
  if (!g_file_get_contents (path, &text, NULL, NULL))
    fail_msg ("no journal at %s", path);
  return text;
}

static void
write_journal (const char *dir, const char *text)
{
  g_autofree char *path = g_build_filename (dir, MDL_VAT_JOURNAL_FILE, NULL);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
}

static gint
cmp_rows (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* The journal's rows of @kind ("counts," ...), sorted, one a line. */
static char *
rows_of (const char *text, const char *kind)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  g_autoptr (GPtrArray) kept = g_ptr_array_new ();
  g_autoptr (GString) out = g_string_new (NULL);
  for (guint i = 0; lines[i]; i++)
    if (g_str_has_prefix (lines[i], kind))
      g_ptr_array_add (kept, lines[i]);
  g_ptr_array_sort (kept, cmp_rows);
  for (guint i = 0; i < kept->len; i++)
    g_string_append_printf (out, "%s\n", (const char *) g_ptr_array_index (kept, i));
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* The JSON document from its points on: everything the measurements and the fits make, without
 * the notes (the run's load and durations). */
static char *
results_json (const MdlVatExperiment *exp)
{
  g_autoptr (GString) out = g_string_new (NULL);
  const char *points;
  mdl_vat_experiment_write (exp, MDL_FORMAT_JSON, out);
  points = strstr (out->str, "\"points\"");
  if (points == NULL)
    fail_msg ("no points in the JSON");
  return g_strdup (points);
}

static MdlVatExperiment *
refit (const char *dir)
{
  MdlVatExperimentConfig cfg;
  g_autoptr (GError) error = NULL;
  MdlVatExperiment *exp;
  mdl_vat_experiment_config_init (&cfg);
  cfg.journal_dir = dir;
  cfg.refit_only = TRUE;
  if ((exp = mdl_vat_experiment_run (&cfg, &error)) == NULL)
    fail_msg ("refit of %s: %s", dir, error->message);
  return exp;
}

/* Ensure a run stopped after every 4 journal rows and resumed each time (so cut in the timings,
 * between passes and among the instrumented runs) ends with the counts of an uninterrupted run,
 * times every (point, pass) exactly once, and gives the JSON that a refit of its journal gives. */
static void
test_resumed_run_equals_uninterrupted (void **state)
{
  g_autofree char *whole_dir = test_temp_dir (), *cut_dir = test_temp_dir ();
  g_autoptr (MdlVatExperiment) whole = NULL, cut = NULL, again = NULL;
  g_autofree char *whole_text = NULL, *cut_text = NULL, *times = NULL;
  g_autofree char *whole_counts = NULL, *cut_counts = NULL, *json_cut = NULL, *json_again = NULL;
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_auto (GStrv) lines = NULL;
  MdlVatExperimentConfig cfg;
  guint stops = 0;
  (void) state;

  small_config (&cfg, whole_dir);
  whole = mdl_vat_experiment_run (&cfg, NULL);
  assert_non_null (whole);
  small_config (&cfg, cut_dir);
  cfg.stop_after = 4;
  for (;;)
    {
      g_autoptr (GError) error = NULL;
      if ((cut = mdl_vat_experiment_run (&cfg, &error)) != NULL)
        break;
      assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_IO, "stopped after 4 rows");
      cfg.resume = TRUE;
      if (++stops > 40)
        fail_msg ("the resumed run never ends");
    }
  /* 8 points: a probe row, 2 x 8 time rows, 8 counts rows: 25 rows, 6 stops. */
  assert_int_equal (stops, 6);
  whole_text = journal_text (whole_dir);
  cut_text = journal_text (cut_dir);
  whole_counts = rows_of (whole_text, "counts,");
  cut_counts = rows_of (cut_text, "counts,");
  assert_int_equal (strlen (whole_counts) > 0, TRUE);
  assert_string_equal (whole_counts, cut_counts);
  times = rows_of (cut_text, "time,");
  lines = g_strsplit (times, "\n", -1);
  for (guint i = 0; lines[i] && *lines[i]; i++)
    {
      g_auto (GStrv) f = g_strsplit (lines[i], ",", 6);
      g_autofree char *key = g_strjoin (",", f[1], f[2], f[3], f[4], NULL);
      if (!g_hash_table_add (seen, g_steal_pointer (&key)))
        fail_msg ("timed twice: %s", lines[i]);
    }
  assert_int_equal (g_hash_table_size (seen), 16);
  again = refit (cut_dir);
  json_cut = results_json (cut);
  json_again = results_json (again);
  assert_string_equal (json_cut, json_again);
}

/* Ensure the dependent loads are counted (MdlVatPoint.dependent_reads) as the algorithms flag
 * them: none in scan/seq; in binsearch/sorted every probe but each of the n queries' first, which
 * no compare chose (src/algos/cpu/binsearch.c), and it reads nothing else: accesses - n; and
 * that neither records a store (their inputs are built before the recording). */
static void
test_dependent_reads_by_hand (void **state)
{
  g_autofree char *dir = test_temp_dir ();
  g_autoptr (MdlVatExperiment) exp = NULL;
  const MdlVatResults *r;
  MdlVatExperimentConfig cfg;
  (void) state;
  small_config (&cfg, dir);
  cfg.reps = 1;
  exp = mdl_vat_experiment_run (&cfg, NULL);
  assert_non_null (exp);
  r = mdl_vat_experiment_results (exp);
  assert_int_equal (r->n_points, 8);
  for (guint i = 0; i < r->n_points; i++)
    {
      const MdlVatPoint *p = &r->points[i];
      guint64 want = strcmp (p->algorithm, "scan/seq") == 0 ? 0 : p->accesses - p->n;
      if (p->writes != 0)   /* neither writes while it is recorded */
        fail_msg ("%s n=%" G_GUINT64_FORMAT ": %" G_GUINT64_FORMAT " writes, expected none",
                  p->algorithm, p->n, p->writes);
      if (p->dependent_reads != want)
        fail_msg ("%s n=%" G_GUINT64_FORMAT ": %" G_GUINT64_FORMAT " dependent reads, expected %"
                  G_GUINT64_FORMAT, p->algorithm, p->n, p->dependent_reads, want);
    }
}

/* Ensure a refit of a journal whose last row was cut in the middle (a kill while writing it)
 * drops that row and refits the rest; and that a malformed row is refused with its line. */
static void
test_cut_row_dropped_and_bad_row_named (void **state)
{
  g_autofree char *dir = test_temp_dir ();
  g_autoptr (MdlVatExperiment) first = NULL, second = NULL;
  g_autofree char *text = NULL, *cut = NULL, *bad = NULL, *a = NULL, *b = NULL;
  g_autoptr (GError) error = NULL;
  MdlVatExperimentConfig cfg;
  guint lines = 0;
  (void) state;
  small_config (&cfg, dir);
  first = mdl_vat_experiment_run (&cfg, NULL);
  assert_non_null (first);
  text = journal_text (dir);
  cut = g_strconcat (text, "counts,scan/se", NULL);
  write_journal (dir, cut);
  second = refit (dir);
  a = results_json (first);
  b = results_json (second);
  assert_string_equal (a, b);
  for (const char *p = text; *p; p++)
    lines += *p == '\n';
  bad = g_strconcat (text, "time,scan/seq,many,4k,0,1,7,1e-6\n", NULL);
  write_journal (dir, bad);
  mdl_vat_experiment_config_init (&cfg);
  cfg.journal_dir = dir;
  cfg.refit_only = TRUE;
  assert_null (mdl_vat_experiment_run (&cfg, &error));
  {
    g_autofree char *where = g_strdup_printf ("vat-journal.csv:%u: field 3: expected an unsigned "
                                              "integer, got \"many\"", lines + 1);
    assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_FORMAT, where);
  }
  g_free (bad);
  bad = g_strconcat (text, "time,scan/seq,-1,4k,0,1,7,1e-6\n", NULL);
  write_journal (dir, bad);
  assert_null (mdl_vat_experiment_run (&cfg, &error));
  {
    g_autofree char *where = g_strdup_printf ("vat-journal.csv:%u: field 3: expected an unsigned "
                                              "integer, got \"-1\"", lines + 1);
    assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_FORMAT, where);
  }
}

/* Ensure a resume with another option is refused naming the option and both values; that timings
 * still to measure are refused on another machine, naming both; and that a refit of a journal
 * that lacks a step names the first one it lacks. */
static void
test_mismatches_refused_by_name (void **state)
{
  g_autofree char *dir = test_temp_dir (), *text = NULL;
  g_autoptr (GString) foreign = g_string_new (NULL);
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) lines = NULL;
  MdlVatExperimentConfig cfg;
  (void) state;
  small_config (&cfg, dir);
  cfg.stop_after = 3;
  assert_null (mdl_vat_experiment_run (&cfg, &error));
  g_clear_error (&error);
  cfg.stop_after = 0;
  cfg.resume = TRUE;
  cfg.reps = 3;
  assert_null (mdl_vat_experiment_run (&cfg, &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM,
                    "the journal's option reps=2 differs from this run's reps=3");

  text = journal_text (dir);
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] && *lines[i]; i++)
    g_string_append_printf (foreign, "%s\n", g_str_has_prefix (lines[i], "machine,")
                                             ? "machine,\"Imaginary CPU, 64 CPUs\"" : lines[i]);
  write_journal (dir, foreign->str);
  cfg.reps = 2;
  assert_null (mdl_vat_experiment_run (&cfg, &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM,
                    "measured on Imaginary CPU, 64 CPUs, this machine is");

  mdl_vat_experiment_config_init (&cfg);
  cfg.journal_dir = dir;
  cfg.refit_only = TRUE;
  assert_null (mdl_vat_experiment_run (&cfg, &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM,
                    "lacks the timing of scan/seq n=1024 (pass 1)");
}

/* The journal @text of one repetition per pass with a thp row before each time row, asking
 * @asked bytes: at n=1024 pass 0 is made the fastest (1 ns) and denied its pages, at n=2048 every
 * repetition is denied; the rest are granted. */
static char *
with_grants (const char *text, guint64 asked)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  g_autoptr (GString) out = g_string_new (NULL);
  for (guint i = 0; lines[i] && *lines[i]; i++)
    {
      g_auto (GStrv) f = g_strsplit (lines[i], ",", -1);
      gboolean fastest = FALSE, denied;
      if (g_str_has_prefix (lines[i], "thp,"))
        continue;
      if (!g_str_has_prefix (lines[i], "time,"))
        {
          g_string_append_printf (out, "%s\n", lines[i]);
          continue;
        }
      g_assert_cmpstr (f[5], ==, "1");
      fastest = strcmp (f[2], "1024") == 0 && strcmp (f[4], "0") == 0;
      denied = fastest || strcmp (f[2], "2048") == 0;
      g_string_append_printf (out, "thp,%s,%s,%s,%s,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
                              "\n", f[1], f[2], f[3], f[4], asked, denied ? (guint64) 0 : asked);
      if (fastest)
        g_string_append_printf (out, "time,%s,%s,%s,%s,1,%s,1e-9\n", f[1], f[2], f[3], f[4], f[6]);
      else
        g_string_append_printf (out, "%s\n", lines[i]);
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* The time of point n=@n in pass @pass of the journal @text. */
static double
time_of (const char *text, guint64 n, guint pass)
{
  g_autofree char *prefix = g_strdup_printf ("\ntime,matmul/naive,%" G_GUINT64_FORMAT ",4k,%u,",
                                             n, pass);
  const char *row = strstr (text, prefix);
  g_autofree char *line = NULL;
  if (row == NULL)
    fail_msg ("no %s", prefix + 1);
  line = g_strndup (row + 1, strcspn (row + 1, "\n"));
  return g_ascii_strtod (strrchr (line, ',') + 1, NULL);   /* its one repetition */
}

/* Ensure a point whose arrays asked for 2 MiB pages takes its time from the repetitions that got
 * them all (thp rows, written here: n=1024's fastest repetition denied, so its time is the other
 * one's, its share granted 1/2), or from every repetition where none did (n=2048: the faster of
 * its two, share 0); that both are 2M in vat.csv and named in the warnings; and that a thp row
 * whose grants are not one per repetition is refused. And that the run's TLB counts are of the
 * pages it ran on. */
static void
test_huge_grants_choose_the_time (void **state)
{
  static const char *const matmul[] = { "matmul/naive", NULL };
  g_autofree char *dir = test_temp_dir (), *text = NULL, *granted = NULL, *bad = NULL;
  g_autoptr (MdlVatExperiment) run = NULL, exp = NULL;
  g_autoptr (GString) csv = g_string_new (NULL);
  g_autoptr (GError) error = NULL;
  const MdlVatResults *r;
  MdlVatExperimentConfig cfg;
  (void) state;
  small_config (&cfg, dir);
  cfg.algorithms = matmul;
  run = mdl_vat_experiment_run (&cfg, NULL);
  assert_non_null (run);
  r = mdl_vat_experiment_results (run);
  for (guint i = 0; i < r->n_points; i++)
    {
      /* Three N x N matrices, each from a page boundary: 3 pages of 2 MiB, or 3 x ceil(8 N^2 /
       * 4096) of 4 KiB, each walked once (the TLBs hold them all). */
      const MdlVatPoint *p = &r->points[i];
      guint64 side = (guint64) floor (sqrt ((double) p->n));
      guint64 want = p->huge_asked ? 3 : 3 * ((side * side * 8 + 4095) / 4096);
      if (p->walks != want)
        fail_msg ("matmul/naive n=%" G_GUINT64_FORMAT " on %s pages: %" G_GUINT64_FORMAT " walks, "
                  "expected %" G_GUINT64_FORMAT, p->n, p->huge_asked ? "2 MiB" : "4 KiB",
                  p->walks, want);
    }
  text = journal_text (dir);
  granted = with_grants (text, 6 << 20);
  write_journal (dir, granted);
  exp = refit (dir);
  r = mdl_vat_experiment_results (exp);
  assert_int_equal (r->n_points, 2);
  assert_true (r->points[0].huge_asked && r->points[1].huge_asked);
  assert_true (r->points[0].n == 1024 && r->points[0].seconds == time_of (granted, 1024, 1));
  assert_true (r->points[0].huge_granted == 0.5);
  assert_true (r->points[1].seconds == MIN (time_of (granted, 2048, 0),
                                            time_of (granted, 2048, 1)));
  assert_true (r->points[1].huge_granted == 0);
  assert_non_null (strstr (mdl_vat_experiment_warnings (exp),
                           "matmul/naive n=1024 asked for 2 MiB pages and got 50% of them"));
  mdl_vat_experiment_write (exp, MDL_FORMAT_CSV, csv);
  assert_non_null (strstr (csv->str, ",2M,0.5\n"));
  assert_non_null (strstr (csv->str, ",2M,0\n"));

  bad = g_strconcat (granted, "thp,matmul/naive,1024,4k,0,6291456,6291456,6291456\n"
                     "time,matmul/naive,1024,4k,0,1,7,1e-6\n", NULL);
  write_journal (dir, bad);
  mdl_vat_experiment_config_init (&cfg);
  cfg.journal_dir = dir;
  cfg.refit_only = TRUE;
  assert_null (mdl_vat_experiment_run (&cfg, &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_FORMAT,
                    "the thp row before a time row needs one grant per repetition");
}

/* The journal @text with its probe_end row made of its probe row's fields, the L1 chase (field 1)
 * multiplied by @l1_factor; without a probe_end row when @l1_factor is 0. */
static char *
with_probe_end (const char *text, double l1_factor)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  g_autoptr (GString) out = g_string_new (NULL);
  const char *probe = NULL;
  for (guint i = 0; lines[i]; i++)
    if (g_str_has_prefix (lines[i], "probe,"))
      probe = lines[i];
  assert_non_null (probe);
  for (guint i = 0; lines[i] && lines[i + 1]; i++)
    {
      g_auto (GStrv) f = NULL;
      char l1[G_ASCII_DTOSTR_BUF_SIZE];
      if (!g_str_has_prefix (lines[i], "probe_end,"))
        {
          g_string_append_printf (out, "%s\n", lines[i]);
          continue;
        }
      if (l1_factor == 0)
        continue;
      f = g_strsplit (probe, ",", -1);
      g_ascii_dtostr (l1, sizeof l1, g_ascii_strtod (f[1], NULL) * l1_factor);
      g_free (f[0]), f[0] = g_strdup ("probe_end");
      g_free (f[1]), f[1] = g_strdup (l1);
      {
        g_autofree char *row = g_strjoinv (",", f);
        g_string_append_printf (out, "%s\n", row);
      }
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* Ensure a run probes again after its timed passes (one probe_end row, after every time row and
 * before any counts row) and notes both probes; that a refit warns of a drift when the two L1
 * chases differ by more than 10%, and not at 5%; and that a journal without the row (before s10)
 * gets neither the line nor the warning. */
static void
test_probe_end_flags_drift (void **state)
{
  static const struct { const char *name; double l1_factor; gboolean line, drift; } rows[] = {
    { "L1 chase 1.5 times slower after", 1.5, TRUE, TRUE },
    { "L1 chase 0.8 times after", 0.8, TRUE, TRUE },
    { "L1 chase 1.05 times after", 1.05, TRUE, FALSE },
    { "no probe_end row", 0, FALSE, FALSE },
  };
  g_autofree char *dir = test_temp_dir ();
  g_autoptr (MdlVatExperiment) first = NULL;
  g_autofree char *text = NULL;
  const char *end, *last_time, *first_counts;
  MdlVatExperimentConfig cfg;
  (void) state;
  small_config (&cfg, dir);
  first = mdl_vat_experiment_run (&cfg, NULL);
  assert_non_null (first);
  assert_non_null (strstr (mdl_vat_experiment_notes (first), "steadiness: probe before / after"));
  text = journal_text (dir);
  end = strstr (text, "\nprobe_end,");
  last_time = g_strrstr (text, "\ntime,");
  first_counts = strstr (text, "\ncounts,");
  assert_non_null (end);
  assert_null (strstr (end + 1, "\nprobe_end,"));
  assert_true (last_time < end && end < first_counts);
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *edited = with_probe_end (text, rows[i].l1_factor);
      g_autoptr (MdlVatExperiment) again = NULL;
      gboolean line, drift;
      write_journal (dir, edited);
      again = refit (dir);
      line = strstr (mdl_vat_experiment_notes (again), "steadiness:") != NULL;
      drift = strstr (mdl_vat_experiment_warnings (again), "the host drifted while it timed: the "
                      "L1 chase") != NULL;
      if (line != rows[i].line || drift != rows[i].drift)
        fail_msg ("%s: steadiness line %d, drift warning %d; expected %d, %d", rows[i].name,
                  line, drift, rows[i].line, rows[i].drift);
    }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_resumed_run_equals_uninterrupted),
    cmocka_unit_test (test_cut_row_dropped_and_bad_row_named),
    cmocka_unit_test (test_dependent_reads_by_hand),
    cmocka_unit_test (test_mismatches_refused_by_name),
    cmocka_unit_test (test_huge_grants_choose_the_time),
    cmocka_unit_test (test_probe_end_flags_drift),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
