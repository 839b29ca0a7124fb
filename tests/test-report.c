/* Tests of reports (include/models/report.h): counters, lookup and phases, and the three output
 * formats. The golden texts below are written by hand from the shapes that report.h documents
 * (key order, separators, NaN spelling); they do not come from running the code. */
#include "helpers.h"

#include <math.h>
#include <string.h>

/* The report of the format tests: three counters (a count with a hardware metric, a real, a
 * not-applicable real) and one phase. */
static MdlReport *
sample_report (const char *spec)
{
  MdlReport *r = mdl_report_new ("demo", spec);
  MdlReport *ph = mdl_report_new ("p", spec);
  mdl_report_add_count (r, "hits", "count", "lookups that hit", "lts__t_hits.sum", 3);
  mdl_report_add_real (r, "rate", "ratio", "hits per lookup", NULL, 0.25);
  mdl_report_add_real (r, "na", "percent", "not applicable here", NULL, NAN);
  mdl_report_add_count (ph, "hits", "count", "lookups that hit", "lts__t_hits.sum", 1);
  mdl_report_add_phase (r, ph);
  return r;
}

/* Ensure counts and reals keep their fields and order, lookup finds them by name, and a NULL
 * description or spec gets its documented default. */
static void
test_counters_keep_fields_and_order (void **state)
{
  g_autoptr (MdlReport) r = mdl_report_new ("demo", NULL);
  const MdlCounter *c;
  (void) state;
  assert_string_equal (mdl_report_engine (r), "demo");
  assert_string_equal (mdl_report_spec (r), "demo");
  mdl_report_add_count (r, "misses", "count", NULL, "l1tex__t_sectors.sum", G_MAXUINT64);
  mdl_report_add_real (r, "miss_ratio", "ratio", "misses per access", NULL, 0.125);
  assert_int_equal (mdl_report_n_counters (r), 2);

  c = mdl_report_counter (r, 0);
  assert_string_equal (c->name, "misses");
  assert_string_equal (c->unit, "count");
  assert_string_equal (c->description, "");
  assert_string_equal (c->metric, "l1tex__t_sectors.sum");
  assert_false (c->is_real);
  assert_true (c->count == G_MAXUINT64);

  c = mdl_report_counter (r, 1);
  assert_string_equal (c->name, "miss_ratio");
  assert_true (c->is_real);
  assert_null (c->metric);
  assert_true (c->real == 0.125);

  assert_ptr_equal (mdl_report_lookup (r, "miss_ratio"), mdl_report_counter (r, 1));
  assert_ptr_equal (mdl_report_lookup (r, "misses"), mdl_report_counter (r, 0));
  assert_null (mdl_report_lookup (r, "miss"));
}

/* Ensure mdl_report_get finds a counter as lookup does, and reports a missing name as
 * MDL_ERROR_UNKNOWN_NAME naming the spec, the valid names and the closest one, not as a NULL. */
static void
test_get_reports_unknown_counter_with_suggestion (void **state)
{
  g_autoptr (MdlReport) r = mdl_report_new ("vat", "vat:policy=lru");
  GError *error = NULL;
  (void) state;
  mdl_report_add_count (r, "accesses", "count", "translations", NULL, 5);
  mdl_report_add_count (r, "tc_misses", "count", "insertions", NULL, 3);

  assert_ptr_equal (mdl_report_get (r, "tc_misses", &error), mdl_report_counter (r, 1));
  assert_null (error);
  assert_null (mdl_report_get (r, "tc_mises", &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_UNKNOWN_NAME,
                    "report \"vat:policy=lru\" has no counter \"tc_mises\"; valid: accesses, "
                    "tc_misses (did you mean \"tc_misses\"?)");
  /* Nothing within two edits: the valid names, no guess. */
  assert_null (mdl_report_get (r, "cycles", &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_UNKNOWN_NAME,
                    "has no counter \"cycles\"; valid: accesses, tc_misses");
  /* A NULL error is allowed: the result still says "absent". */
  assert_null (mdl_report_get (r, "tc_mises", NULL));
}

/* Ensure a report of many counters (a VAT curve) names the closest one instead of listing all. */
static void
test_get_on_a_long_report_names_only_the_closest (void **state)
{
  g_autoptr (MdlReport) r = mdl_report_new ("vat", "vat:curve=1");
  GError *error = NULL;
  (void) state;
  for (guint w = 1; w <= 100; w++)
    {
      g_autofree char *name = g_strdup_printf ("curve_w%u", w);
      mdl_report_add_count (r, name, "count", "misses at this W", NULL, w);
    }
  assert_int_equal (mdl_report_get (r, "curve_w77", &error)->count, 77);
  assert_null (mdl_report_get (r, "curve_w0077", &error));
  assert_mdl_error (error, MDL_ERROR_UNKNOWN_NAME,
                    "has no counter \"curve_w0077\"; it has 100 counters");
  error = NULL;
  assert_null (mdl_report_get (r, "curve_w1x", &error));
  assert_mdl_error (error, MDL_ERROR_UNKNOWN_NAME, "(did you mean \"curve_w1\"?)");
}

/* Ensure phase sub-reports keep their order and names. */
static void
test_phases_keep_order (void **state)
{
  g_autoptr (MdlReport) r = mdl_report_new ("demo", "demo:x=1");
  (void) state;
  assert_int_equal (mdl_report_n_phases (r), 0);
  mdl_report_add_phase (r, mdl_report_new ("partition", "demo:x=1"));
  mdl_report_add_phase (r, mdl_report_new ("merge", "demo:x=1"));
  assert_int_equal (mdl_report_n_phases (r), 2);
  assert_string_equal (mdl_report_engine (mdl_report_phase (r, 0)), "partition");
  assert_string_equal (mdl_report_engine (mdl_report_phase (r, 1)), "merge");
}

/* Ensure the JSON document has exactly the documented shape: source, then per report engine,
 * spec, counters (NaN as null), units, metrics (only counters that have one), phases. */
static void
test_json_matches_hand_written_golden (void **state)
{
  g_autoptr (MdlReport) demo = sample_report ("demo:k=1");
  g_autoptr (MdlReport) empty = mdl_report_new ("empty", NULL);
  MdlReport *reports[] = { demo, empty };
  MdlSourceInfo src = { "t.bin", 7, 0.5 };
  g_autoptr (GString) out = g_string_new ("before ");
  (void) state;
  mdl_reports_write (&src, reports, 2, MDL_FORMAT_JSON, out);
  assert_string_equal (out->str,
    "before {\"source\": {\"name\": \"t.bin\", \"events\": 7, \"seconds\": 0.5},\n"
    " \"reports\": [\n"
    "  {\"engine\": \"demo\", \"spec\": \"demo:k=1\",\n"
    "   \"counters\": {\"hits\": 3, \"rate\": 0.25, \"na\": null},\n"
    "   \"units\": {\"hits\": \"count\", \"rate\": \"ratio\", \"na\": \"percent\"},\n"
    "   \"metrics\": {\"hits\": \"lts__t_hits.sum\"},\n"
    "   \"phases\": {\n"
    "     \"p\": {\"hits\": 1}}},\n"
    "  {\"engine\": \"empty\", \"spec\": \"empty\",\n"
    "   \"counters\": {},\n"
    "   \"units\": {},\n"
    "   \"metrics\": {},\n"
    "   \"phases\": {}}\n"
    " ]}\n");
}

/* Ensure JSON strings escape quotes, backslashes and control characters, and a NaN time or a
 * missing source name are still valid JSON. */
static void
test_json_escapes_strings_and_nan_source (void **state)
{
  g_autoptr (MdlReport) r = mdl_report_new ("demo", "demo:label=say \"hi\"\\\n");
  MdlReport *reports[] = { r };
  MdlSourceInfo src = { NULL, 0, NAN };
  g_autoptr (GString) out = g_string_new (NULL);
  (void) state;
  mdl_reports_write (&src, reports, 1, MDL_FORMAT_JSON, out);
  assert_non_null (strstr (out->str,
                           "{\"source\": {\"name\": \"\", \"events\": 0, \"seconds\": null},"));
  assert_non_null (strstr (out->str, "\"spec\": \"demo:label=say \\\"hi\\\"\\\\\\u000a\","));

  g_string_truncate (out, 0);
  mdl_reports_write (&src, NULL, 0, MDL_FORMAT_JSON, out);
  assert_string_equal (out->str, "{\"source\": {\"name\": \"\", \"events\": 0, \"seconds\": null},\n"
                                 " \"reports\": [\n ]}\n");
}

/* Ensure CSV has the documented header, one row per counter (phase rows name the phase), NaN as
 * an empty value, and quotes fields holding commas or quotes with the quotes doubled. */
static void
test_csv_rows_and_quoting (void **state)
{
  g_autoptr (MdlReport) demo = sample_report ("demo:a=1,b=2");
  g_autoptr (MdlReport) quoted = mdl_report_new ("q", "q:label=say \"hi\"");
  MdlReport *reports[] = { demo, quoted };
  MdlSourceInfo src = { "t.bin", 7, 0.5 };
  g_autoptr (GString) out = g_string_new (NULL);
  (void) state;
  mdl_report_add_count (quoted, "n", "count", "", NULL, 0);
  mdl_reports_write (&src, reports, 2, MDL_FORMAT_CSV, out);
  assert_string_equal (out->str,
    "engine,spec,phase,counter,value,unit,metric\n"
    "demo,\"demo:a=1,b=2\",,hits,3,count,lts__t_hits.sum\n"
    "demo,\"demo:a=1,b=2\",,rate,0.25,ratio,\n"
    "demo,\"demo:a=1,b=2\",,na,,percent,\n"
    "demo,\"demo:a=1,b=2\",p,hits,1,count,lts__t_hits.sum\n"
    "q,\"q:label=say \"\"hi\"\"\",,n,0,count,\n");
}

/* Rows: counts and their table text, with a comma every three digits from the right. */
static const struct {
  guint64 value;
  const char *text;
} thousands_rows[] = {
  { 0, "0" },
  { 999, "999" },
  { 1000, "1,000" },
  { 12345, "12,345" },
  { 100000, "100,000" },
  { 1234567, "1,234,567" },
  { G_MAXUINT64, "18,446,744,073,709,551,615" },
};

/* Ensure table values carry thousands separators. */
static void
test_table_separates_thousands (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (thousands_rows); i++)
    {
      g_autoptr (MdlReport) r = mdl_report_new ("t", NULL);
      MdlReport *reports[] = { r };
      MdlSourceInfo src = { "s", 0, 0.0 };
      g_autoptr (GString) out = g_string_new (NULL);
      g_autofree char *needle = g_strdup_printf (" %s count", thousands_rows[i].text);
      mdl_report_add_count (r, "n", "count", "d", NULL, thousands_rows[i].value);
      mdl_reports_write (&src, reports, 1, MDL_FORMAT_TABLE, out);
      if (strstr (out->str, needle) == NULL)
        fail_msg ("%" G_GUINT64_FORMAT ": expected \"%s\" in:\n%s", thousands_rows[i].value,
                  thousands_rows[i].text, out->str);
    }
}

/* Ensure the whole table: source line, spec heading, columns padded to the widest entry (names
 * 4, values 9 = "1,234,567", units 5), n/a for NaN, and indented phase blocks. */
static void
test_table_matches_hand_written_golden (void **state)
{
  g_autoptr (MdlReport) r = mdl_report_new ("demo", "demo:x=1");
  MdlReport *ph = mdl_report_new ("p", "demo:x=1");
  MdlReport *reports[] = { r };
  MdlSourceInfo src = { "t", 1234, 0.5 };
  g_autoptr (GString) out = g_string_new (NULL);
  (void) state;
  mdl_report_add_count (r, "big", "count", "a big count", NULL, 1234567);
  mdl_report_add_real (r, "rate", "ratio", "not applicable", NULL, NAN);
  mdl_report_add_count (ph, "big", "count", "a big count", NULL, 7);
  mdl_report_add_phase (r, ph);
  mdl_reports_write (&src, reports, 1, MDL_FORMAT_TABLE, out);
  assert_string_equal (out->str,
    "source: t  (1234 events, 0.500 s)\n"
    "\n"
    "demo:x=1\n"
    "  big  1,234,567 count  a big count\n"
    "  rate       n/a ratio  not applicable\n"
    "  phase p\n"
    "    big      7 count  a big count\n");
}

/* Ensure format names parse, and others are MDL_ERROR_UNKNOWN_NAME listing the valid ones. */
static void
test_format_names (void **state)
{
  static const struct {
    const char *name;
    MdlFormat format;
  } good[] = { { "table", MDL_FORMAT_TABLE }, { "json", MDL_FORMAT_JSON }, { "csv", MDL_FORMAT_CSV } };
  MdlFormat f;
  GError *error = NULL;
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      f = (MdlFormat) 99;
      if (!mdl_format_from_name (good[i].name, &f, NULL) || f != good[i].format)
        fail_msg ("%s: not parsed as %d", good[i].name, good[i].format);
    }
  assert_false (mdl_format_from_name ("jsn", &f, &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_UNKNOWN_NAME,
                    "unknown output format \"jsn\"; valid: table, json, csv (did you mean \"json\"?)");
  assert_false (mdl_format_from_name ("JSON", &f, &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_UNKNOWN_NAME, "(did you mean \"json\"?)");
  assert_false (mdl_format_from_name ("xml", &f, &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_UNKNOWN_NAME,
                    "unknown output format \"xml\"; valid: table, json, csv");
  assert_false (mdl_format_from_name (NULL, &f, &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_UNKNOWN_NAME, "unknown output format \"\"");
}

/* Ensure a long series of counters (NAME_wN, as the vat curve writes one per W) is summarized
 * in a table: W = 3..100 is 98 points, of which the table shows the two ends and the powers of two
 * between (4, 8, 16, 32, 64), under one line that says so; a series of 32 points is shown whole;
 * CSV keeps every point. */
static void
test_table_summarizes_long_series (void **state)
{
  g_autoptr (MdlReport) r = mdl_report_new ("demo", "demo:curve=1");
  g_autoptr (MdlReport) short_r = mdl_report_new ("demo", "demo:curve=1,curve_max=34");
  g_autoptr (GString) table = g_string_new (NULL), csv = g_string_new (NULL);
  g_autoptr (GString) short_table = g_string_new (NULL);
  MdlSourceInfo src = { "t", 0, 0 };
  guint shown = 0;
  (void) state;
  mdl_report_add_count (r, "misses", "count", "total", NULL, 1);
  for (guint w = 3; w <= 100; w++)
    {
      g_autofree char *name = g_strdup_printf ("misses_w%u", w);
      mdl_report_add_count (r, name, "count", "at W", NULL, 1000 - w);
    }
  mdl_report_add_count (r, "after", "count", "a counter after the series", NULL, 5);
  for (guint w = 3; w <= 34; w++)
    {
      g_autofree char *name = g_strdup_printf ("misses_w%u", w);
      mdl_report_add_count (short_r, name, "count", "at W", NULL, w);
    }
  mdl_reports_write (&src, (MdlReport *[]) { r }, 1, MDL_FORMAT_TABLE, table);
  mdl_reports_write (&src, (MdlReport *[]) { r }, 1, MDL_FORMAT_CSV, csv);
  mdl_reports_write (&src, (MdlReport *[]) { short_r }, 1, MDL_FORMAT_TABLE, short_table);
  for (guint w = 3; w <= 100; w++)
    {
      g_autofree char *row = g_strdup_printf ("  misses_w%u ", w);
      g_autofree char *csv_row = g_strdup_printf (",misses_w%u,%u,", w, 1000 - w);
      gboolean want = w == 3 || w == 100 || (w & (w - 1)) == 0;
      if ((strstr (table->str, row) != NULL) != want)
        fail_msg ("W=%u %s in the table:\n%s", w, want ? "missing" : "shown", table->str);
      shown += want;
      if (strstr (csv->str, csv_row) == NULL)
        fail_msg ("W=%u missing from the CSV", w);
    }
  assert_int_equal (shown, 7);
  assert_int_equal (mdl_reports_longest_series ((MdlReport *[]) { r }, 1), 98);
  assert_int_equal (mdl_reports_longest_series ((MdlReport *[]) { short_r, r }, 2), 98);
  assert_int_equal (mdl_reports_longest_series ((MdlReport *[]) { short_r }, 1), 32);
  assert_non_null (strstr (table->str, "(98 points from misses_w3 to misses_w100;"));
  assert_non_null (strstr (table->str, "  after "));
  for (guint w = 3; w <= 34; w++)
    {
      g_autofree char *row = g_strdup_printf ("  misses_w%u ", w);
      if (strstr (short_table->str, row) == NULL)
        fail_msg ("W=%u missing from a 32-point series:\n%s", w, short_table->str);
    }
  assert_null (strstr (short_table->str, "points from"));
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_counters_keep_fields_and_order),
    cmocka_unit_test (test_get_reports_unknown_counter_with_suggestion),
    cmocka_unit_test (test_get_on_a_long_report_names_only_the_closest),
    cmocka_unit_test (test_phases_keep_order),
    cmocka_unit_test (test_json_matches_hand_written_golden),
    cmocka_unit_test (test_json_escapes_strings_and_nan_source),
    cmocka_unit_test (test_csv_rows_and_quoting),
    cmocka_unit_test (test_table_separates_thousands),
    cmocka_unit_test (test_table_matches_hand_written_golden),
    cmocka_unit_test (test_format_names),
    cmocka_unit_test (test_table_summarizes_long_series),
  };
  return cmocka_run_group_tests_name ("report", tests, NULL, NULL);
}
