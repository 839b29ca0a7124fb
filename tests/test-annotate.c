/* `models annotate`: counts by source line.
 *
 * (i) An instrumented algorithm: under every kind of engine (online, and vat/em whose phases the
 *     engine keeps itself, offline min included), the per-line counts of every column add up to
 *     the engine's own totals exactly, and a hand-derived scan puts its counts on its lines.
 * (ii) A real program (tests/data/programs/hot.c, built here -g -O0 as a PIE) traced under Lackey:
 *     its strided line gets the most D1 read misses, exactly one per 64-byte line it reads.
 * (iii) Cachegrind's own per-line D1 read and write misses on the same program (built -no-pie),
 *     parsed from cachegrind.out, equal the cache engine's (cachegrind=1) line by line.
 * And the errors: no debug information, a trace of another program, an unknown --sort counter.
 * Without valgrind or a C compiler the program tests are skipped with a message. */
#include "helpers.h"

#include <string.h>

/* Ensure the per-line counts of every column of every engine sum to the engine's totals. */
static void
test_algorithm_lines_sum_to_totals (void **state)
{
  static const char *const algos[] = { "scan/random", "mergesort/bottom-up", "heap/sort",
                                       "quicksort/intro" };
  static const char *const engines[] = {
    "count", "cache:machine=x86-64", "tlb:machine=x86-64", "vat:machine=x86-64",
    "vat:machine=x86-64,policy=min,W=16", "em:M=4096,B=64",
  };
  (void) state;
  for (guint a = 0; a < G_N_ELEMENTS (algos); a++)
    {
      g_autoptr (MdlPipeline) pipeline = mdl_pipeline_new ();
      g_autoptr (GError) error = NULL;
      g_autoptr (MdlAnnotation) ann = NULL;
      const MdlAlgo *algo = mdl_algo_lookup (algos[a], &error);
      g_autoptr (MdlParams) params = NULL;
      MdlReport **reports;
      MdlSink sink;
      guint n_reports;
      assert_non_null (algo);
      params = mdl_params_parse (algo->name, algo->params, NULL, &error);
      assert_non_null (params);
      for (guint e = 0; e < G_N_ELEMENTS (engines); e++)
        if (!mdl_pipeline_add_engine_spec (pipeline, engines[e], &error))
          fail_msg ("%s: %s", engines[e], error->message);
      for (guint e = 0; e < mdl_pipeline_n_engines (pipeline); e++)
        mdl_engine_set_site_phases (mdl_pipeline_engine (pipeline, e), TRUE);
      sink = mdl_pipeline_sink (pipeline);
      if (!mdl_algo_run_into (algo, params, 3000, 7, &sink, NULL, &error))
        fail_msg ("%s: %s", algos[a], error->message);
      reports = mdl_pipeline_reports (pipeline, &n_reports);
      ann = mdl_annotation_new (mdl_code_sites (), reports, n_reports);
      assert_true (mdl_annotation_n_columns (ann) > 20);
      for (guint c = 0; c < mdl_annotation_n_columns (ann); c++)
        {
          guint64 sum = 0;
          for (guint s = 1; s <= mdl_site_table_size (mdl_code_sites ()); s++)
            sum += mdl_annotation_count (ann, s, c);
          /* Why markers are left out: a phase or site marker is no line's access, and the
           * engine ends the site run before one, so no line gets its count. */
          if (strstr (mdl_annotation_column (ann, c), ".markers_"))
            assert_int_equal (sum, 0);
          else if (sum != mdl_annotation_total (ann, c))
            fail_msg ("%s: %s: the lines sum to %" G_GUINT64_FORMAT ", the total is %"
                      G_GUINT64_FORMAT, algos[a], mdl_annotation_column (ann, c), sum,
                      mdl_annotation_total (ann, c));
        }
      for (guint i = 0; i < n_reports; i++)
        mdl_report_free (reports[i]);
      g_free (reports);
    }
}

/* The site of the line of src/algos/cpu/scan.c holding @text (its MDL_ call). */
static guint
scan_site (const char *text)
{
  g_autofree char *src = NULL;
  g_auto (GStrv) lines = NULL;
  if (!g_file_get_contents ("src/algos/cpu/scan.c", &src, NULL, NULL))
    fail_msg ("src/algos/cpu/scan.c not readable from the test's directory");
  lines = g_strsplit (src, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    if (strstr (lines[i], text))
      {
        g_autofree char *name = g_strdup_printf ("src/algos/cpu/scan.c:%u", i + 1);
        return mdl_site_table_find (mdl_code_sites (), name);
      }
  fail_msg ("no line holds %s", text);
  return 0;
}

/* Ensure a sequential scan of n elements puts its n reads on the MDL_READ line and its n RAM
 * operations on the MDL_OPS line, and nothing else anywhere (scan_seq's loop body is those two
 * lines: count them by hand). */
static void
test_scan_counts_on_its_lines (void **state)
{
  g_autoptr (MdlPipeline) pipeline = mdl_pipeline_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlAnnotation) ann = NULL;
  const MdlAlgo *algo = mdl_algo_lookup ("scan/seq", &error);
  g_autoptr (MdlParams) params = mdl_params_parse (algo->name, algo->params, NULL, &error);
  MdlReport **reports;
  MdlSink sink;
  guint n_reports, read_site, ops_site;
  gint reads, ops;
  (void) state;
  assert_true (mdl_pipeline_add_engine_spec (pipeline, "count", &error));
  mdl_engine_set_site_phases (mdl_pipeline_engine (pipeline, 0), TRUE);
  sink = mdl_pipeline_sink (pipeline);
  assert_true (mdl_algo_run_into (algo, params, 1000, 1, &sink, NULL, &error));
  reports = mdl_pipeline_reports (pipeline, &n_reports);
  ann = mdl_annotation_new (mdl_code_sites (), reports, n_reports);
  read_site = scan_site ("MDL_READ (rec, &a[i]);");
  ops_site = scan_site ("MDL_OPS (rec, 1);");
  reads = mdl_annotation_find_column (ann, "cpu_reads", &error);
  ops = mdl_annotation_find_column (ann, "count.ram_ops", &error);
  assert_true (reads >= 0 && ops >= 0 && read_site && ops_site);
  assert_int_equal (mdl_annotation_count (ann, read_site, (guint) reads), 1000);
  assert_int_equal (mdl_annotation_count (ann, read_site, (guint) ops), 0);
  assert_int_equal (mdl_annotation_count (ann, ops_site, (guint) ops), 1000);
  assert_int_equal (mdl_annotation_count (ann, ops_site, (guint) reads), 0);
  assert_int_equal (mdl_annotation_total (ann, (guint) reads), 1000);
  assert_int_equal (mdl_annotation_find_column (ann, "l1_misses", &error), -1);
  assert_mdl_error (error, MDL_ERROR_UNKNOWN_NAME, "unknown counter \"l1_misses\"");
  for (guint i = 0; i < n_reports; i++)
    mdl_report_free (reports[i]);
  g_free (reports);
}

/* ---- real programs ------------------------------------------------------------------------- */

/* The cache both sides simulate: Cachegrind's D1 and LL, our cache engine's levels. */
#define CACHE_SPEC "cache:levels=32k:8:64/128k:8:64,cachegrind=1"
#define HOT_LINE 12

typedef struct {
  char *dir;
  char *pie;      /* hot.c built -g -O0 (a PIE where that is the compiler's default) */
  char *fixed;    /* the same, -no-pie */
  char *valgrind;
} Fixture;

static char *
compile (const char *dir, const char *name, const char *flags)
{
  const char *cc = g_getenv ("CC") && *g_getenv ("CC") ? g_getenv ("CC") : "cc";
  g_autofree char *here = g_path_get_dirname (__FILE__);
  g_autofree char *src = g_build_filename (here, "data", "programs", "hot.c", NULL);
  g_autofree char *abs_src = g_canonicalize_filename (src, NULL);
  char *out = g_build_filename (dir, name, NULL);
  g_autofree char *cmd = g_strdup_printf ("%s %s -o %s %s", cc, flags, out, abs_src);
  int status = 0;
  if (!g_spawn_command_line_sync (cmd, NULL, NULL, &status, NULL) || status != 0)
    g_clear_pointer (&out, g_free);
  return out;
}

static int
setup (void **state)
{
  Fixture *f = g_new0 (Fixture, 1);
  f->valgrind = g_find_program_in_path ("valgrind");
  f->dir = test_temp_dir ();
  f->pie = compile (f->dir, "hot-pie", "-g -O0");
  f->fixed = compile (f->dir, "hot", "-g -O0 -no-pie");
  *state = f;
  return 0;
}

static int
teardown (void **state)
{
  Fixture *f = *state;
  g_free (f->dir);   /* removed with what it holds when the program exits (helpers.h) */
  g_free (f->pie);
  g_free (f->fixed);
  g_free (f->valgrind);
  g_free (f);
  return 0;
}

static gboolean
tools_present (const Fixture *f)
{
  if (f->valgrind == NULL)
    print_message ("valgrind not found: the program annotations are skipped (`make deps` "
                   "installs it)\n");
  else if (f->pie == NULL || f->fixed == NULL)
    print_message ("no working C compiler ($CC or cc): the program annotations are skipped\n");
  return f->valgrind && f->pie && f->fixed;
}

/* Both the Lackey and the Cachegrind runs get this environment: the stack's position depends on
 * it, and with it the stack lines' misses. */
static const char *const run_env[] = { "PATH=/usr/local/bin:/usr/bin:/bin", "MODELS_ASLR=1", NULL };

/* Per-line counts of hot.c from `models annotate -f csv`: line -> [read misses, write misses]. */
static GHashTable *
annotate_lines (const char *prog)
{
  const char *args[] = { "annotate", "-f", "csv", "--threshold", "0", "-e", CACHE_SPEC, "-e",
                         "vat:machine=x86-64", "--", prog, NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_auto (GStrv) rows = NULL, head = NULL;
  GHashTable *lines = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  gint rd = -1, wr = -1;
  int rc = test_run_models (run_env, args, &out, &err);
  if (rc != 0)
    fail_msg ("models annotate -- %s: exit %d: %s", prog, rc, err);
  rows = g_strsplit (out, "\n", -1);
  head = g_strsplit (rows[0], ",", -1);
  for (guint i = 0; head[i]; i++)
    {
      if (strcmp (head[i], "cache.l1_read_misses") == 0)
        rd = (gint) i;
      if (strcmp (head[i], "cache.l1_write_misses") == 0)
        wr = (gint) i;
    }
  assert_true (rd > 0 && wr > 0);
  for (guint r = 1; rows[r]; r++)
    {
      g_auto (GStrv) cell = g_strsplit (rows[r], ",", -1);
      guint64 *v;
      if (g_strv_length (cell) <= (guint) MAX (rd, wr) || strcmp (cell[0], "line") != 0
          || !g_str_has_suffix (cell[1], "/hot.c"))
        continue;
      v = g_new (guint64, 2);
      v[0] = g_ascii_strtoull (cell[rd], NULL, 10);
      v[1] = g_ascii_strtoull (cell[wr], NULL, 10);
      g_hash_table_insert (lines, GUINT_TO_POINTER (atoi (cell[2])), v);
    }
  return lines;
}

/* Ensure the strided line of hot.c, a PIE, gets the most D1 misses: 4 rounds over 4096 lines of
 * 64 bytes, each round evicting the last from a 32 KiB cache, is 4 x 4096 read misses. */
static void
test_hot_line_gets_most_misses (void **state)
{
  Fixture *f = *state;
  g_autoptr (GHashTable) lines = NULL;
  GHashTableIter it;
  gpointer key, value;
  guint hottest = 0;
  guint64 most = 0;
  if (!tools_present (f))
    {
      skip ();
      return;
    }
  lines = annotate_lines (f->pie);
  g_hash_table_iter_init (&it, lines);
  while (g_hash_table_iter_next (&it, &key, &value))
    if (((guint64 *) value)[0] > most)
      most = ((guint64 *) value)[0], hottest = GPOINTER_TO_UINT (key);
  assert_int_equal (hottest, HOT_LINE);
  assert_int_equal (most, 4 * 4096);
}

/* Cachegrind's D1mr and D1mw per line of hot.c, from its output file (fl=, fn= and count lines;
 * the format of cachegrind.out, not cg_annotate's, which changes across versions). */
static GHashTable *
cachegrind_lines (const Fixture *f)
{
  g_autofree char *out = g_build_filename (f->dir, "cachegrind.out", NULL);
  g_autofree char *out_opt = g_strdup_printf ("--cachegrind-out-file=%s", out);
  const char *argv[] = { f->valgrind, "--tool=cachegrind", "--cache-sim=yes", "--I1=32768,8,64",
                         "--D1=32768,8,64", "--LL=131072,8,64", out_opt, f->fixed, NULL };
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;
  g_auto (GStrv) rows = NULL, events = NULL;
  GHashTable *lines = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  gint d1mr = -1, d1mw = -1;
  gboolean in_hot = FALSE;
  int status = 0;
  if (!g_spawn_sync (NULL, (char **) argv, (char **) run_env, G_SPAWN_STDOUT_TO_DEV_NULL
                     | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, &error)
      || !g_file_get_contents (out, &text, NULL, &error))
    fail_msg ("cachegrind: %s", error ? error->message : "failed");
  rows = g_strsplit (text, "\n", -1);
  for (guint r = 0; rows[r]; r++)
    {
      const char *row = rows[r];
      if (g_str_has_prefix (row, "events: "))
        {
          events = g_strsplit (row + 8, " ", -1);
          for (guint i = 0; events[i]; i++)
            {
              if (strcmp (events[i], "D1mr") == 0)
                d1mr = (gint) i + 1;
              if (strcmp (events[i], "D1mw") == 0)
                d1mw = (gint) i + 1;
            }
        }
      else if (g_str_has_prefix (row, "fl="))
        in_hot = g_str_has_suffix (row, "/hot.c");
      else if (in_hot && g_ascii_isdigit (row[0]))
        {
          g_auto (GStrv) cell = g_strsplit (row, " ", -1);
          guint line = (guint) atoi (cell[0]);
          guint64 *v = g_hash_table_lookup (lines, GUINT_TO_POINTER (line));
          assert_true (d1mr > 0 && d1mw > 0);
          if (v == NULL)
            {
              v = g_new0 (guint64, 2);
              g_hash_table_insert (lines, GUINT_TO_POINTER (line), v);
            }
          /* Trailing zero counts may be left off a line. */
          if ((gint) g_strv_length (cell) > d1mr)
            v[0] += g_ascii_strtoull (cell[d1mr], NULL, 10);
          if ((gint) g_strv_length (cell) > d1mw)
            v[1] += g_ascii_strtoull (cell[d1mw], NULL, 10);
        }
    }
  return lines;
}

/* Ensure the cache engine's D1 misses per line of hot.c equal Cachegrind's, line by line. */
static void
test_lines_match_cachegrind (void **state)
{
  Fixture *f = *state;
  g_autoptr (GHashTable) cg = NULL, ours = NULL;
  GHashTableIter it;
  gpointer key, value;
  guint compared = 0;
  if (!tools_present (f))
    {
      skip ();
      return;
    }
  cg = cachegrind_lines (f);
  ours = annotate_lines (f->fixed);
  print_message ("  hot.c  line  D1mr (cachegrind, ours)  D1mw (cachegrind, ours)\n");
  g_hash_table_iter_init (&it, cg);
  while (g_hash_table_iter_next (&it, &key, &value))
    {
      const guint64 *want = value, *got = g_hash_table_lookup (ours, key);
      guint64 zero[2] = { 0, 0 };
      if (got == NULL)
        got = zero;
      print_message ("  %10u  %10" G_GUINT64_FORMAT " %10" G_GUINT64_FORMAT "  %10"
                     G_GUINT64_FORMAT " %10" G_GUINT64_FORMAT "\n", GPOINTER_TO_UINT (key),
                     want[0], got[0], want[1], got[1]);
      if (want[0] != got[0] || want[1] != got[1])
        fail_msg ("hot.c:%u: Cachegrind D1mr %" G_GUINT64_FORMAT " D1mw %" G_GUINT64_FORMAT
                  ", models annotate %" G_GUINT64_FORMAT " and %" G_GUINT64_FORMAT,
                  GPOINTER_TO_UINT (key), want[0], want[1], got[0], got[1]);
      compared++;
    }
  /* Lines we count that Cachegrind does not list must have no misses. */
  g_hash_table_iter_init (&it, ours);
  while (g_hash_table_iter_next (&it, &key, &value))
    if (!g_hash_table_contains (cg, key)
        && (((guint64 *) value)[0] || ((guint64 *) value)[1]))
      fail_msg ("hot.c:%u: misses that Cachegrind puts on no line", GPOINTER_TO_UINT (key));
  assert_true (compared >= 5);
}

/* The address of symbol @name in @prog, from nm; 0 when nm is missing. */
static guint64
symbol_address (const char *prog, const char *name)
{
  g_autofree char *cmd = g_strdup_printf ("nm %s", prog), *out = NULL;
  g_auto (GStrv) rows = NULL;
  if (!g_spawn_command_line_sync (cmd, &out, NULL, NULL, NULL) || out == NULL)
    return 0;
  rows = g_strsplit (out, "\n", -1);
  for (guint i = 0; rows[i]; i++)
    {
      g_auto (GStrv) cell = g_strsplit (rows[i], " ", -1);
      if (g_strv_length (cell) == 3 && strcmp (cell[2], name) == 0)
        return g_ascii_strtoull (cell[0], NULL, 16);
    }
  return 0;
}

/* Ensure a hand-written Lackey trace (--trace, --binary) charges each access to the instruction
 * before it: two instructions at main's first address, the line of main's opening brace, one with
 * a load and a store, one with a load; in the -no-pie build at main's address, in the PIE at
 * Valgrind's base 0x108000 plus it, and at a base given with --load-base. */
static void
test_trace_file_charges_the_instruction_line (void **state)
{
  Fixture *f = *state;
  static const struct { const char *which; guint64 base; const char *load_base; } rows[] = {
    { "fixed", 0, NULL },
    { "pie", 0x108000, NULL },
    { "pie", 0x5555000, "0x5555000" },
  };
  if (f->fixed == NULL || f->pie == NULL || symbol_address (f->fixed, "main") == 0)
    {
      print_message ("no C compiler or nm: the trace file annotation is skipped\n");
      skip ();
      return;
    }
  for (guint r = 0; r < G_N_ELEMENTS (rows); r++)
    {
      const char *prog = strcmp (rows[r].which, "pie") == 0 ? f->pie : f->fixed;
      guint64 main_at = rows[r].base + symbol_address (prog, "main");
      g_autofree char *trace = g_build_filename (f->dir, "hand.lackey", NULL);
      g_autofree char *text = g_strdup_printf ("I  %" G_GINT64_MODIFIER "x,4\n L 7ff0,8\n S 7ff8,8\n"
                                               "I  %" G_GINT64_MODIFIER "x,4\n L 7ff0,8\n",
                                               main_at, main_at);
      g_autofree char *out = NULL, *err = NULL;
      const char *args[] = { "annotate", "-f", "csv", "--trace", trace, "--binary", prog,
                             rows[r].load_base ? "--load-base" : NULL, rows[r].load_base, NULL };
      assert_true (g_file_set_contents (trace, text, -1, NULL));
      if (test_run_models (run_env, args, &out, &err) != 0)
        fail_msg ("%s: %s", rows[r].which, err);
      /* kind,file,line,function,count.cpu_reads,count.cpu_writes,...,count.ram_ops */
      if (!strstr (out, "/hot.c,7,main,2,1,"))
        fail_msg ("%s: no row of hot.c:7 with 2 reads and 1 write in:\n%s", rows[r].which, out);
    }
}

/* Ensure a binary without debug information, a trace of another program and an unknown --sort
 * counter each fail with a message that names the problem. */
static void
test_errors_name_the_problem (void **state)
{
  Fixture *f = *state;
  g_autofree char *out = NULL, *err = NULL;
  g_autofree char *nodebug = NULL, *trace = NULL;
  int rc;
  {
    const char *args[] = { "annotate", "scan/seq", "--n", "100", "--sort", "l1_mises", NULL };
    rc = test_run_models (run_env, args, &out, &err);
    assert_int_equal (rc, 1);
    assert_non_null (strstr (err, "unknown counter \"l1_mises\""));
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
  }
  if (f->fixed == NULL)
    {
      skip ();
      return;
    }
  nodebug = compile (f->dir, "hot-nodebug", "-O0");
  trace = g_build_filename (f->dir, "other.lackey", NULL);
  /* Instructions at addresses where hot (fixed at 0x400000 and up) has no code. */
  assert_true (g_file_set_contents (trace, "I  7ff000100,3\n L 1ffefff000,8\nI  7ff000103,4\n", -1,
                                    NULL));
  {
    const char *args[] = { "annotate", "--trace", trace, "--binary", nodebug, NULL };
    rc = test_run_models (run_env, args, &out, &err);
    assert_int_equal (rc, 1);
    assert_non_null (strstr (err, "no DWARF debug information (build it with -g"));
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
  }
  {
    const char *args[] = { "annotate", "--trace", trace, "--binary", f->fixed, NULL };
    rc = test_run_models (run_env, args, &out, &err);
    assert_int_equal (rc, 1);
    assert_non_null (strstr (err, "trace/binary mismatch: none of the 2 instructions"));
  }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_algorithm_lines_sum_to_totals),
    cmocka_unit_test (test_scan_counts_on_its_lines),
    cmocka_unit_test (test_hot_line_gets_most_misses),
    cmocka_unit_test (test_lines_match_cachegrind),
    cmocka_unit_test (test_trace_file_charges_the_instruction_line),
    cmocka_unit_test (test_errors_name_the_problem),
  };
  return cmocka_run_group_tests (tests, setup, teardown);
}
