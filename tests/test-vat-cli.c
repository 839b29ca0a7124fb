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
static char *
run_models (const char *const *args)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *err = NULL;
  char *out = NULL;
  int status = 0;
  g_ptr_array_add (argv, (gpointer) models_bin ());
  for (const char *const *a = args; *a; a++)
    g_ptr_array_add (argv, (gpointer) *a);
  g_ptr_array_add (argv, NULL);
  if (!g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err,
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

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_analyze_json),
    cmocka_unit_test (test_curve_csv),
  };
  return cmocka_run_group_tests_name ("vat-cli", tests, NULL, NULL);
}
