/* Tests of the clocked schedule's latency table (include/models/simt-clock.h, src/simt/clock.c):
 * the per-SM probe's CSV read into picoseconds with the rows the table takes, its errors naming
 * the file and line, and the seeded spread staying within its bounds and repeating. */
#include "helpers.h"

#include <glib/gstdio.h>
#include <string.h>

/* Writes @text to a new temporary file; returns its path (g_free, and unlink it). */
static char *
write_tmp (const char *text)
{
  GError *error = NULL;
  char *path = NULL;
  int fd = g_file_open_tmp ("simt-clock-XXXXXX.csv", &path, &error);
  assert_true (fd >= 0);
  close (fd);
  assert_true (g_file_set_contents (path, text, -1, &error));
  return path;
}

/* Reads @text as a table of @mode; the table, or NULL with *@error set. */
static MdlSimtClock *
load_text (const char *text, const char *mode, GError **error)
{
  g_autofree char *path = write_tmp (text);
  MdlSimtClock *clock = mdl_simt_clock_load (path, mode, error);
  g_unlink (path);
  return clock;
}

/* Ensure a table takes, of the rows of its mode, load_own as the load (and the store, with no
 * store_own row) and cas_own as the atomic, in picoseconds; reads over the shared rows, extra
 * columns in any order, CRLF line ends and blank lines; and leaves the issue cost at 0. */
static void
test_probe_csv_gives_the_own_rows (void **state)
{
  static const char csv[] =
    "wall_ns_per_op,ns_per_op,smid,op,mode\r\n"
    "1,612.5,0,load_own,all\r\n"
    "1,700.25,0,cas_own,all\r\n"
    "1,9999,0,cas_shared,all\r\n"
    "1,500,0,load_own,alone\r\n"
    "\r\n"
    "1,640,1,load_own,all\r\n"
    "1,720,1,cas_own,all\r\n"
    "1,30,1,store_own,all\r\n"
    "1,520,1,load_own,alone\r\n"
    "1,600,0,cas_own,alone\r\n"
    "1,610,1,cas_own,alone\r\n";
  GError *error = NULL;
  g_autoptr (MdlSimtClock) all = load_text (csv, "all", &error);
  g_autoptr (MdlSimtClock) alone = NULL;
  (void) state;
  assert_null (error);
  assert_int_equal (mdl_simt_clock_n_sms (all), 2);
  assert_int_equal (mdl_simt_clock_get (all, 0, MDL_SIMT_LAT_LOAD), 612500);
  assert_int_equal (mdl_simt_clock_get (all, 0, MDL_SIMT_LAT_STORE), 612500);
  assert_int_equal (mdl_simt_clock_get (all, 0, MDL_SIMT_LAT_ATOMIC), 700250);
  assert_int_equal (mdl_simt_clock_get (all, 0, MDL_SIMT_LAT_ISSUE), 0);
  assert_int_equal (mdl_simt_clock_get (all, 1, MDL_SIMT_LAT_LOAD), 640000);
  assert_int_equal (mdl_simt_clock_get (all, 1, MDL_SIMT_LAT_STORE), 30000);
  assert_int_equal (mdl_simt_clock_get (all, 1, MDL_SIMT_LAT_ATOMIC), 720000);
  alone = load_text (csv, "alone", &error);
  assert_null (error);
  assert_int_equal (mdl_simt_clock_get (alone, 0, MDL_SIMT_LAT_LOAD), 500000);
  assert_int_equal (mdl_simt_clock_get (alone, 1, MDL_SIMT_LAT_ATOMIC), 610000);
}

/* Ensure a malformed table is refused with the file, the line and what was wrong. */
static void
test_malformed_tables_name_the_line (void **state)
{
  static const struct {
    const char *csv, *mode, *needle;
  } rows[] = {
    { "smid,op,ns_per_op\n0,load_own,1\n", "all", ":1: no column \"mode\"" },
    { "smid,op,mode,ns_per_op\n0,load_own,all,1\n0,cas_own,all,x\n", "all",
      ":3: expected ns_per_op a number" },
    { "smid,op,mode,ns_per_op\n0,load_own,all,0\n", "all", ":2: expected ns_per_op" },
    { "smid,op,mode,ns_per_op\n-1,load_own,all,1\n", "all", ":2: expected an smid" },
    { "smid,op,mode,ns_per_op\n0,load_own\n", "all", ":2: expected 4 or more fields, got 2" },
    { "smid,op,mode,ns_per_op\n0,load_own,all,1\n0,cas_own,all,1\n2,load_own,all,1\n"
      "2,cas_own,all,1\n", "all", "SM 1 has no load_own row" },
    { "smid,op,mode,ns_per_op\n0,load_own,all,1\n", "all", "SM 0 has no cas_own row" },
    { "smid,op,mode,ns_per_op\n0,load_own,all,1\n0,cas_own,all,1\n", "alone",
      "no load_own or cas_own row of mode \"alone\"" },
  };
  (void) state;
  for (gsize r = 0; r < G_N_ELEMENTS (rows); r++)
    {
      GError *error = NULL;
      MdlSimtClock *clock = load_text (rows[r].csv, rows[r].mode, &error);
      if (clock != NULL)
        fail_msg ("row %" G_GSIZE_FORMAT ": accepted", r);
      assert_mdl_error (error, MDL_ERROR_FORMAT, rows[r].needle);
    }
}

/* Ensure a file that cannot be read is an I/O error naming it. */
static void
test_missing_table_is_an_io_error (void **state)
{
  GError *error = NULL;
  (void) state;
  assert_null (mdl_simt_clock_load ("/nonexistent/sm.csv", "all", &error));
  assert_mdl_error (error, MDL_ERROR_IO, "/nonexistent/sm.csv");
}

/* Ensure the spread scales every latency of an SM by one factor within 1 ± percent, SM by SM,
 * the same for the same seed and another for another seed; 0 percent leaves the table alone. */
static void
test_spread_is_bounded_and_seeded (void **state)
{
  const guint n = 132, percent = 15;
  g_autoptr (MdlSimtClock) a = mdl_simt_clock_new (n, 100000, 2000);
  g_autoptr (MdlSimtClock) b = mdl_simt_clock_new (n, 100000, 2000);
  g_autoptr (MdlSimtClock) c = mdl_simt_clock_new (n, 100000, 2000);
  g_autoptr (MdlSimtClock) z = mdl_simt_clock_new (n, 100000, 2000);
  guint differ = 0;
  guint64 lo = G_MAXUINT64, hi = 0;
  (void) state;
  mdl_simt_clock_spread (a, percent, 3);
  mdl_simt_clock_spread (b, percent, 3);
  mdl_simt_clock_spread (c, percent, 4);
  mdl_simt_clock_spread (z, 0, 3);
  for (guint sm = 0; sm < n; sm++)
    {
      guint64 load = mdl_simt_clock_get (a, sm, MDL_SIMT_LAT_LOAD);
      assert_in_range (load, 85000, 115000);
      assert_int_equal (mdl_simt_clock_get (a, sm, MDL_SIMT_LAT_ATOMIC), load);
      /* The issue cost took the same factor (rounded from 2000 ps). */
      assert_in_range (mdl_simt_clock_get (a, sm, MDL_SIMT_LAT_ISSUE), load / 50 - 1, load / 50 + 1);
      assert_int_equal (mdl_simt_clock_get (b, sm, MDL_SIMT_LAT_LOAD), load);
      differ += mdl_simt_clock_get (c, sm, MDL_SIMT_LAT_LOAD) != load;
      assert_int_equal (mdl_simt_clock_get (z, sm, MDL_SIMT_LAT_LOAD), 100000);
      lo = MIN (lo, load);
      hi = MAX (hi, load);
    }
  assert_true (differ > n / 2);
  /* 132 uniform draws over ±15% reach past ±10% on both sides (a miss has odds below 1e-9). */
  assert_true (lo < 90000 && hi > 110000);
}

/* Ensure a table's ops act at their issue until it is told otherwise, new or loaded, and keep
 * what they are told. */
static void
test_effect_is_issue_until_set (void **state)
{
  g_autoptr (MdlSimtClock) clock = mdl_simt_clock_new (2, 1000, 0);
  GError *error = NULL;
  g_autoptr (MdlSimtClock) loaded = load_text ("smid,op,mode,ns_per_op\n0,load_own,all,1\n"
                                               "0,cas_own,all,2\n", "all", &error);
  (void) state;
  assert_null (error);
  assert_int_equal (mdl_simt_clock_effect (clock), MDL_SIMT_EFFECT_ISSUE);
  assert_int_equal (mdl_simt_clock_effect (loaded), MDL_SIMT_EFFECT_ISSUE);
  mdl_simt_clock_set_effect (clock, MDL_SIMT_EFFECT_ARRIVE);
  assert_int_equal (mdl_simt_clock_effect (clock), MDL_SIMT_EFFECT_ARRIVE);
  mdl_simt_clock_set_effect (clock, MDL_SIMT_EFFECT_ISSUE);
  assert_int_equal (mdl_simt_clock_effect (clock), MDL_SIMT_EFFECT_ISSUE);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_probe_csv_gives_the_own_rows),
    cmocka_unit_test (test_malformed_tables_name_the_line),
    cmocka_unit_test (test_missing_table_is_an_io_error),
    cmocka_unit_test (test_spread_is_bounded_and_seeded),
    cmocka_unit_test (test_effect_is_issue_until_set),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
