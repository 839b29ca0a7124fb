/* The command-line contract of the vat engine (issue 7): `models analyze --engine vat:... --format
 * json TRACE` reports tc_misses for a Lackey trace, several --engine options give one report each,
 * and the curve comes out of --format csv as one tc_misses_wN row per W. Runs $MODELS_BIN (default
 * build/bin/models) and skips when it is not built.
 *
 * The fixture tests/data/vat/straddle.lackey, with P=16, K=4, d=6 (pages of 16 bytes, a path of 7
 * nodes), by hand: L 0x10 reads page 1, a cold path: 7 misses. L 0x18 reads page 1 again: 0. S 0x20
 * writes page 2, which shares every node but the leaf with page 1: 1. M 0xffc,8 straddles pages
 * 0xff and 0x100, two accesses: page 0xff shares layers 4-6 with what is cached (0xff >> 8 = 0), so
 * layers 0-3 miss: 4; page 0x100 shares layers 5-6 (0x100 >> 10 = 0) and misses layers 0-4: 5.
 * Total 17 misses, 17 distinct nodes, 5 accesses; W=16 evicts once, at the very last insertion,
 * which changes no count. So every policy reports tc_misses 17. */
#include "helpers.h"

#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>

#define FIXTURE "tests/data/vat/straddle.lackey"

static const char *
models_bin (void)
{
  const char *bin = g_getenv ("MODELS_BIN");
  return bin && *bin ? bin : "build/bin/models";
}

/* Runs the command with @args (NULL-terminated); returns its standard output, fails on a non-zero
 * exit. */
static char *run_models_in (const char *cwd, const char *const *args);

static char *
run_models (const char *const *args)
{
  return run_models_in (NULL, args);
}

/* run_models() in the working directory @cwd (NULL: this one). */
static char *
run_models_in (const char *cwd, const char *const *args)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *err = NULL;
  char *out = NULL;
  int status = 0;
  g_autofree char *bin = g_canonicalize_filename (models_bin (), NULL);
  g_ptr_array_add (argv, (gpointer) bin);
  for (const char *const *a = args; *a; a++)
    g_ptr_array_add (argv, (gpointer) *a);
  g_ptr_array_add (argv, NULL);
  if (!g_spawn_sync (cwd, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err,
                     &status, &error))
    fail_msg ("cannot run %s: %s", models_bin (), error->message);
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    fail_msg ("%s exited with %d\nstdout: %s\nstderr: %s", models_bin (), status, out, err);
  return out;
}

static void
skip_unless_built (void)
{
  if (!g_file_test (models_bin (), G_FILE_TEST_IS_EXECUTABLE))
    {
      print_message ("skipping: %s is not built\n", models_bin ());
      skip ();
    }
}

/* The value of counter @name in the JSON text @from (the first occurrence after it). */
static guint64
json_count (const char *from, const char *name)
{
  g_autofree char *key = g_strdup_printf ("\"%s\": ", name);
  const char *at = strstr (from, key);
  if (at == NULL)
    fail_msg ("no counter %s in:\n%s", name, from);
  return g_ascii_strtoull (at + strlen (key), NULL, 10);
}

/* Ensure the command of the issue reports tc_misses, one report per --engine, with the numbers
 * derived by hand above and cost = ram_ops + tau * tc_misses. */
static void
test_analyze_json (void **state)
{
  const char *args[] = { "analyze", "--engine", "vat:policy=ismin,P=16,K=4,d=6,W=16,tau=3",
                         "--engine", "vat:policy=lru,P=16,K=4,d=6,W=16,tau=3",
                         "--engine", "vat:policy=min,P=16,K=4,d=6,W=16,tau=3",
                         "--format", "json", FIXTURE, NULL };
  g_autofree char *out = NULL;
  const char *report;
  guint n = 0;
  (void) state;
  skip_unless_built ();
  report = out = run_models (args);
  while ((report = strstr (report, "{\"engine\": \"vat\"")) != NULL)
    {
      guint64 misses = json_count (report, "tc_misses");
      if (misses != 17 || json_count (report, "accesses") != 5 || json_count (report, "compulsory") != 17
          || json_count (report, "cost") != json_count (report, "ram_ops") + 3 * misses)
        fail_msg ("report %u: tc_misses %" G_GUINT64_FORMAT " (expected 17), accesses %"
                  G_GUINT64_FORMAT " (5), cost %" G_GUINT64_FORMAT " in:\n%s", n, misses,
                  json_count (report, "accesses"), json_count (report, "cost"), out);
      report++;
      n++;
    }
  assert_int_equal (n, 3);
}

/* Ensure curve=1 in CSV gives one total row per W from d+1 to curve_max, each equal to what that W
 * gives alone (here 17 everywhere: the trace touches 17 nodes and reuses only under W >= 7). */
static void
test_curve_csv (void **state)
{
  const char *args[] = { "analyze", "--engine", "vat:policy=lru,P=16,K=4,d=6,W=7,curve=1,curve_max=20",
                         "--format", "csv", FIXTURE, NULL };
  g_autofree char *out = NULL;
  g_auto (GStrv) lines = NULL;
  guint rows = 0;
  (void) state;
  skip_unless_built ();
  out = run_models (args);
  lines = g_strsplit (out, "\n", -1);
  for (char **l = lines; *l; l++)
    {
      const char *at = strstr (*l, ",,tc_misses_w");
      if (at == NULL)
        continue;
      if (!g_str_has_suffix (*l, ",17,count,"))
        fail_msg ("unexpected curve row: %s", *l);
      assert_int_equal (g_ascii_strtoull (at + strlen (",,tc_misses_w"), NULL, 10), 7 + rows);
      rows++;
    }
  /* W = d+1 = 7 up to the 17 distinct nodes (the fixture's derivation at the top), not to
   * curve_max=20: beyond 17 every W has the 17 compulsory misses. */
  assert_int_equal (rows, 17 - 7 + 1);
  assert_non_null (strstr (out, ",,curve_w_max,17,count,"));
}

/* Ensure a curve too long for a table goes whole to a CSV file beside the summarized table (issue
 * 19, item 6): 64k sequential 8-byte elements touch 128 pages, so 133 distinct nodes (128 leaves
 * and one node per layer above) and a curve from W = d+1 = 5 to 133, 129 points, over the 32 a
 * table shows whole. The table names the file; the file is byte for byte what --format csv
 * prints; with -o FILE it is FILE.series.csv; a short curve (1k elements: 7 nodes) writes none. */
static void
test_long_curve_goes_to_csv_beside_the_table (void **state)
{
  const char *table_args[] = { "run", "scan/seq", "--n", "64k", "-e",
                               "vat:curve=1,curve_max=1048576", NULL };
  const char *csv_args[] = { "run", "scan/seq", "--n", "64k", "-e",
                             "vat:curve=1,curve_max=1048576", "--format", "csv", NULL };
  const char *out_args[] = { "run", "scan/seq", "--n", "64k", "-e",
                             "vat:curve=1,curve_max=1048576", "-o", "out.txt", NULL };
  const char *short_args[] = { "run", "scan/seq", "--n", "1k", "-e",
                               "vat:curve=1,curve_max=1048576", NULL };
  g_autofree char *dir = NULL, *table = NULL, *csv = NULL, *file = NULL, *other = NULL;
  g_autofree char *empty = NULL, *short_table = NULL, *out_text = NULL, *path = NULL;
  g_autofree char *out_path = NULL, *series_path = NULL, *series2 = NULL;
  (void) state;
  skip_unless_built ();
  dir = g_dir_make_tmp ("models-test-curve-XXXXXX", NULL);
  assert_non_null (dir);
  path = g_build_filename (dir, "models-series.csv", NULL);
  out_path = g_build_filename (dir, "out.txt", NULL);
  series_path = g_build_filename (dir, "out.txt.series.csv", NULL);

  short_table = run_models_in (dir, short_args);
  assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  assert_null (strstr (short_table, "series"));

  /* The curve stops at the distinct nodes: 64k elements are 512 KiB, 128 pages from an aligned
   * simulated address, and one node on each of the 4 levels above them: 132. */
  table = run_models_in (dir, table_args);
  assert_non_null (strstr (table, "  (128 points from tc_misses_w5 to tc_misses_w132;"));
  assert_true (g_str_has_suffix (table, "\nevery point of the series (128 in the longest) is in "
                                        "models-series.csv (CSV, as --format csv writes it)\n"));
  assert_true (g_file_get_contents (path, &file, NULL, NULL));
  csv = run_models_in (dir, csv_args);
  assert_string_equal (file, csv);
  assert_non_null (strstr (file, ",,tc_misses_w132,132,count,"));
  assert_null (strstr (file, "tc_misses_w133"));

  empty = run_models_in (dir, out_args);
  assert_string_equal (empty, "");
  assert_true (g_file_get_contents (out_path, &out_text, NULL, NULL));
  assert_true (g_str_has_suffix (out_text, "is in " "out.txt.series.csv (CSV, as --format csv "
                                           "writes it)\n"));
  assert_true (g_file_get_contents (series_path, &series2, NULL, NULL));
  assert_string_equal (series2, csv);

  g_unlink (path);
  g_unlink (out_path);
  g_unlink (series_path);
  assert_int_equal (g_rmdir (dir), 0);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_analyze_json),
    cmocka_unit_test (test_curve_csv),
    cmocka_unit_test (test_long_curve_goes_to_csv_beside_the_table),
  };
  return cmocka_run_group_tests_name ("vat-cli", tests, NULL, NULL);
}
