/* The cross-check of the `cache` engine against Cachegrind on a real program: a merge sort of 32 Ki
 * random keys (256 KiB of data), compiled here with $CC, run once under
 * `valgrind --tool=cachegrind --cache-sim=yes` (I1 = D1 = 32 KiB 8-way, LL = 128 KiB 8-way, 64-byte
 * lines) and once under Lackey, whose trace streams through a pipe into several cache engines:
 *
 *   A  cachegrind=1 with icache= (fetches kept): Cachegrind's rules; must equal all nine of its
 *      counts (Ir, I1mr, ILmr, Dr, D1mr, DLmr, Dw, D1mw, DLmw) exactly.
 *   B  cachegrind=1 without icache: D1 must still be exact (instruction fetches never touch D1);
 *      the last level misses no more data than Cachegrind's, whose unified LL also holds the
 *      instruction lines (removing references from an LRU set's stream never turns a hit into a
 *      miss). The difference is the instruction lines' doing.
 *   C  the natural rules with icache=: a modify is a read and a write, an access is one reference
 *      per line it touches, sizes are not clipped. Its references must be what the trace implies
 *      (counted here independently), and its misses differ from Cachegrind's by at most what the
 *      straddling and oversized accesses allow.
 *   D  the plain spec a user writes, `cache:levels=32k:8:64/128k:8:64`: printed for reference.
 *
 * Both runs get the same argv, environment (PATH only) and silenced standard streams: the stack's
 * position depends on the environment's size, and the C library's stdio paths on what stdout is,
 * so anything else makes the two programs run slightly different instructions. Without valgrind
 * or a C compiler the test is skipped with a message. */
#include "helpers.h"

#include <glib/gstdio.h>
#include <glib-unix.h>
#include <gio/gunixinputstream.h>
#include <string.h>
#include <unistd.h>

#define KEYS "32768"

static const char *const run_env[] = { "PATH=/usr/local/bin:/usr/bin:/bin", NULL };

typedef struct {
  char *dir;
  char *prog;
  char *valgrind;
} Fixture;

static int
setup (void **state)
{
  Fixture *f = g_new0 (Fixture, 1);
  g_autoptr (GError) error = NULL;
  g_autofree char *src = NULL, *here = g_path_get_dirname (__FILE__);
  const char *cc = g_getenv ("CC") && *g_getenv ("CC") ? g_getenv ("CC") : "cc";
  int status = 0;
  f->valgrind = g_find_program_in_path ("valgrind");
  f->dir = g_dir_make_tmp ("models-cg-XXXXXX", NULL);
  src = g_build_filename (here, "data", "programs", "msort.c", NULL);
  f->prog = g_build_filename (f->dir, "sort", NULL);
  if (!g_file_test (src, G_FILE_TEST_IS_REGULAR))
    fail_msg ("%s: the test program is missing", src);
  {
    g_autofree char *cmd = g_strdup_printf ("%s -O2 -o %s %s", cc, f->prog, src);
    if (!g_spawn_command_line_sync (cmd, NULL, NULL, &status, &error) || status != 0)
      g_clear_pointer (&f->prog, g_free);
  }
  *state = f;
  return 0;
}

static int
teardown (void **state)
{
  Fixture *f = *state;
  if (f->prog)
    g_unlink (f->prog);
  g_rmdir (f->dir);
  g_free (f->dir);
  g_free (f->prog);
  g_free (f->valgrind);
  g_free (f);
  return 0;
}

/* TRUE when the tools are there; prints why the test is skipped otherwise. */
static gboolean
tools_present (const Fixture *f)
{
  if (f->valgrind == NULL)
    {
      print_message ("valgrind not found: the Cachegrind cross-check is skipped (`make deps` "
                     "installs it)\n");
      return FALSE;
    }
  if (f->prog == NULL)
    {
      print_message ("no working C compiler ($CC or cc): the Cachegrind cross-check is skipped\n");
      return FALSE;
    }
  return TRUE;
}

static GSubprocessLauncher *
launcher_new (void)
{
  GSubprocessLauncher *l = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE
                                                      | G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  g_subprocess_launcher_set_environ (l, (char **) run_env);
  return l;
}

/* Cachegrind's totals by event name (Ir, I1mr, ...), from its output file. */
static GHashTable *
run_cachegrind (const Fixture *f)
{
  g_autofree char *out = g_build_filename (f->dir, "cachegrind.out", NULL);
  g_autofree char *out_opt = g_strdup_printf ("--cachegrind-out-file=%s", out);
  const char *argv[] = { f->valgrind, "--tool=cachegrind", "--cache-sim=yes", "--I1=32768,8,64",
                         "--D1=32768,8,64", "--LL=131072,8,64", out_opt, f->prog, KEYS, NULL };
  g_autoptr (GSubprocessLauncher) l = launcher_new ();
  g_autoptr (GSubprocess) p = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL, names = NULL, values = NULL;
  GHashTable *totals = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  p = g_subprocess_launcher_spawnv (l, argv, &error);
  if (p == NULL || !g_subprocess_wait_check (p, NULL, &error))
    fail_msg ("cachegrind: %s", error->message);
  if (!g_file_get_contents (out, &text, NULL, &error))
    fail_msg ("cachegrind output: %s", error->message);
  lines = g_strsplit (text, "\n", -1);
  for (char **ln = lines; *ln; ln++)
    {
      if (g_str_has_prefix (*ln, "events: "))
        names = g_strsplit (g_strstrip (*ln + 8), " ", -1);
      else if (g_str_has_prefix (*ln, "summary: "))
        values = g_strsplit (g_strstrip (*ln + 9), " ", -1);
    }
  assert_non_null (names);
  assert_non_null (values);
  for (guint i = 0; names[i] && values[i]; i++)
    {
      guint64 *v = g_new (guint64, 1);
      *v = g_ascii_strtoull (values[i], NULL, 10);
      g_hash_table_insert (totals, g_strdup (names[i]), v);
    }
  g_unlink (out);
  return totals;
}

static guint64
total (GHashTable *t, const char *name)
{
  guint64 *v = g_hash_table_lookup (t, name);
  if (v == NULL)
    fail_msg ("Cachegrind reported no %s", name);
  return *v;
}

/* What the trace implies independently of any cache: the accesses that make the natural rules
 * differ from Cachegrind's. */
typedef struct {
  MdlPipeline *pipeline;
  MdlSink next;
  guint64 read_lines;    /* 64-byte lines read (reads, modifies), each access's lines counted */
  guint64 write_lines;   /* 64-byte lines written (writes, modifies) */
  guint64 modifies;
  guint64 straddles;     /* accesses of at most 64 bytes that cover two lines */
  guint64 oversized;     /* accesses over 64 bytes, which Cachegrind clips to 64 */
  guint64 fetches;
} Tally;

static gboolean
tally_batch (void *data, const MdlEventBatch *b, GError **error)
{
  Tally *t = data;
  for (gsize i = 0; i < b->n_cpu; i++)
    {
      const MdlCpuEvent *e = &b->cpu[i];
      guint64 lines;
      if (e->kind == MDL_CPU_OPS)
        continue;
      if (e->flags & MDL_CPU_FLAG_FETCH)
        {
          t->fetches++;
          continue;
        }
      lines = ((e->addr + e->size - 1) >> 6) - (e->addr >> 6) + 1;
      if (e->size > 64)
        t->oversized++;
      else if (lines == 2)
        t->straddles++;
      if (e->kind != MDL_CPU_WRITE)
        t->read_lines += lines;
      if (e->kind != MDL_CPU_READ)
        t->write_lines += lines;
      t->modifies += e->kind == MDL_CPU_MODIFY;
    }
  return t->next.batch (t->next.data, b, error);
}

static gboolean
tally_marker (void *data, const MdlMarker *m, GError **error)
{
  Tally *t = data;
  return t->next.marker (t->next.data, m, error);
}

/* Runs the program under Lackey into the engines of @specs; returns their reports in order. */
static MdlReport **
run_lackey (const Fixture *f, const char *const *specs, guint n_specs, Tally *tally)
{
  const char *argv[] = { f->valgrind, "--tool=lackey", "--trace-mem=yes", "--log-fd=3", f->prog,
                         KEYS, NULL };
  g_autoptr (GSubprocessLauncher) l = launcher_new ();
  g_autoptr (GSubprocess) p = NULL;
  g_autoptr (GInputStream) in = NULL;
  g_autoptr (MdlTraceReader) r = NULL;
  g_autoptr (GError) error = NULL;
  MdlSink sink = { tally_batch, tally_marker, tally };
  gboolean done = FALSE;
  guint n;
  int fds[2];

  tally->pipeline = mdl_pipeline_new ();
  for (guint i = 0; i < n_specs; i++)
    if (!mdl_pipeline_add_engine_spec (tally->pipeline, specs[i], &error))
      fail_msg ("%s: %s", specs[i], error->message);
  tally->next = mdl_pipeline_sink (tally->pipeline);
  assert_true (g_unix_open_pipe (fds, FD_CLOEXEC, NULL));
  g_subprocess_launcher_take_fd (l, fds[1], 3);
  p = g_subprocess_launcher_spawnv (l, argv, &error);
  g_clear_object (&l);
  if (p == NULL)
    fail_msg ("lackey: %s", error->message);
  in = g_unix_input_stream_new (fds[0], TRUE);
  r = mdl_trace_reader_new (in, "lackey", MDL_TRACE_LACKEY, &error);
  if (r == NULL)
    fail_msg ("lackey: %s", error->message);
  mdl_trace_reader_set_fetches (r, TRUE);
  while (!done)
    if (!mdl_trace_reader_pump (r, &sink, 0, &done, &error))
      fail_msg ("lackey trace: %s", error->message);
  if (!g_subprocess_wait_check (p, NULL, &error))
    fail_msg ("lackey: %s", error->message);
  return mdl_pipeline_reports (tally->pipeline, &n);
}

/* Ensure our cache engine over the Lackey trace reproduces Cachegrind's counts, exactly with
 * cachegrind=1, and explain every difference of the natural rules. */
static void
test_matches_cachegrind (void **state)
{
  Fixture *f = *state;
  static const char *const specs[] = {
    "cache:levels=32k:8:64/128k:8:64,icache=32k:8:64,cachegrind=1",
    "cache:levels=32k:8:64/128k:8:64,cachegrind=1",
    "cache:levels=32k:8:64/128k:8:64,icache=32k:8:64",
    "cache:levels=32k:8:64/128k:8:64",
  };
  /* Cachegrind's event, and our counter in engine A that must equal it. */
  static const struct { const char *cg; const char *ours; } same[] = {
    { "Ir", "i1_fetch_refs" }, { "I1mr", "i1_fetch_misses" }, { "ILmr", "l2_fetch_misses" },
    { "Dr", "l1_read_refs" }, { "D1mr", "l1_read_misses" }, { "DLmr", "l2_read_misses" },
    { "Dw", "l1_write_refs" }, { "D1mw", "l1_write_misses" }, { "DLmw", "l2_write_misses" },
  };
  g_autoptr (GHashTable) cg = NULL;
  Tally tally = { 0 };
  MdlReport **rep;
  guint64 d1_cg, dl_cg, d1_nat, dl_nat, dl_b, slack;

  if (!tools_present (f))
    {
      skip ();
      return;
    }
  cg = run_cachegrind (f);
  rep = run_lackey (f, specs, G_N_ELEMENTS (specs), &tally);

  print_message ("Cachegrind vs cache engine over Lackey (merge sort of " KEYS " keys):\n");
  print_message ("  %-5s %12s %12s   %s\n", "event", "cachegrind", "cachegrind=1", "our counter");
  for (guint i = 0; i < G_N_ELEMENTS (same); i++)
    {
      guint64 want = total (cg, same[i].cg), got = test_report_count (rep[0], same[i].ours);
      print_message ("  %-5s %12" G_GUINT64_FORMAT " %12" G_GUINT64_FORMAT "   %s\n", same[i].cg,
                     want, got, same[i].ours);
      if (want != got)
        fail_msg ("%s: Cachegrind %" G_GUINT64_FORMAT ", cache engine (cachegrind=1) %"
                  G_GUINT64_FORMAT, same[i].cg, want, got);
    }

  /* B: no instruction cache. D1 exact; the LL's data misses can only be fewer. */
  d1_cg = total (cg, "D1mr") + total (cg, "D1mw");
  dl_cg = total (cg, "DLmr") + total (cg, "DLmw");
  assert_int_equal (test_report_count (rep[1], "l1_read_misses"), total (cg, "D1mr"));
  assert_int_equal (test_report_count (rep[1], "l1_write_misses"), total (cg, "D1mw"));
  dl_b = test_report_count (rep[1], "l2_read_misses")
         + test_report_count (rep[1], "l2_write_misses");
  assert_true (dl_b <= dl_cg);
  print_message ("  without fetches (cachegrind=1, no icache): D1 misses %" G_GUINT64_FORMAT
                 " (equal), LL data misses %" G_GUINT64_FORMAT " vs %" G_GUINT64_FORMAT
                 ": %" G_GUINT64_FORMAT " fewer, the evictions caused by the %" G_GUINT64_FORMAT
                 " instruction lines Cachegrind's unified LL also holds\n", d1_cg, dl_b, dl_cg,
                 dl_cg - dl_b, total (cg, "I1mr"));

  /* C: natural rules. References follow from the trace alone. */
  assert_int_equal (test_report_count (rep[2], "l1_read_refs"), tally.read_lines);
  assert_int_equal (test_report_count (rep[2], "l1_write_refs"), tally.write_lines);
  assert_int_equal (tally.fetches, total (cg, "Ir"));
  d1_nat = test_report_count (rep[2], "l1_read_misses")
           + test_report_count (rep[2], "l1_write_misses");
  dl_nat = test_report_count (rep[2], "l2_read_misses")
           + test_report_count (rep[2], "l2_write_misses");
  print_message ("  natural rules (icache, no cachegrind=1): Dr+Dw %" G_GUINT64_FORMAT
                 " line references vs %" G_GUINT64_FORMAT " accesses: %" G_GUINT64_FORMAT
                 " modifies count a write too, %" G_GUINT64_FORMAT " straddling and %"
                 G_GUINT64_FORMAT " oversized accesses count each line\n",
                 tally.read_lines + tally.write_lines, total (cg, "Dr") + total (cg, "Dw"),
                 tally.modifies, tally.straddles, tally.oversized);
  print_message ("  natural rules: D1 misses %" G_GUINT64_FORMAT " vs %" G_GUINT64_FORMAT
                 ", LL data misses %" G_GUINT64_FORMAT " vs %" G_GUINT64_FORMAT "\n", d1_nat,
                 d1_cg, dl_nat, dl_cg);
  /* Why these bounds: a modify's write always hits after its read, so modifies change no miss;
   * a straddling access can miss on both lines (one more miss than Cachegrind counts) and its
   * second line's lookup moves LRU state; an oversized access touches up to 1 + size/64 lines
   * where Cachegrind touches at most 2. Each can change the count by a few misses; a much larger
   * difference would be a bug. */
  slack = 4 * tally.straddles + 20 * tally.oversized + 16;
  if (d1_nat > d1_cg + slack || d1_cg > d1_nat + slack)
    fail_msg ("natural D1 misses %" G_GUINT64_FORMAT " too far from Cachegrind's %" G_GUINT64_FORMAT
              " (allowed %" G_GUINT64_FORMAT ")", d1_nat, d1_cg, slack);
  print_message ("  plain spec (%s): D1 misses %" G_GUINT64_FORMAT ", LL misses %" G_GUINT64_FORMAT
                 "\n", specs[3], test_report_count (rep[3], "l1_misses"),
                 test_report_count (rep[3], "l2_misses"));

  for (guint i = 0; i < G_N_ELEMENTS (specs); i++)
    mdl_report_free (rep[i]);
  g_free (rep);
  mdl_pipeline_free (tally.pipeline);
}

/* Ensure `models trace` streams a program's trace into the engines, and fails clearly without
 * valgrind or a program. */
static void
test_models_trace_command (void **state)
{
  Fixture *f = *state;
  g_autofree char *out = NULL, *err = NULL;
  const char *bin = g_getenv ("MODELS_BIN") ? g_getenv ("MODELS_BIN") : "build/bin/models";
  const char *missing[] = { "trace", "--valgrind", "/nonexistent/valgrind", "--", "/bin/true", NULL };
  const char *usage[] = { "trace", NULL };
  int rc;

  if (!g_file_test (bin, G_FILE_TEST_IS_EXECUTABLE))
    {
      print_message ("%s not built: `models trace` not tested\n", bin);
      skip ();
      return;
    }
  rc = test_run_models (NULL, usage, &out, &err);
  assert_int_equal (rc, 2);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  rc = test_run_models (NULL, missing, &out, &err);
  assert_int_equal (rc, 1);
  assert_non_null (strstr (err, "cannot run /nonexistent/valgrind"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  if (!tools_present (f))
    return;
  {
    const char *args[] = { "trace", "--fetches", "--format", "csv", "-e",
                           "cache:levels=32k:8:64/128k:8:64,icache=32k:8:64,cachegrind=1", "-e",
                           "count", "--", f->prog, "1000", NULL };
    rc = test_run_models (NULL, args, &out, &err);
    if (rc != 0)
      fail_msg ("models trace: exit %d: %s", rc, err);
    assert_non_null (strstr (out, ",i1_fetch_refs,"));
    assert_non_null (strstr (out, ",cpu_reads,"));
  }
}

/* cpu_reads from the CSV report @csv (engine count). */
static guint64
csv_cpu_reads (const char *csv)
{
  const char *at = strstr (csv, ",cpu_reads,");
  if (at == NULL)
    fail_msg ("no cpu_reads in:\n%s", csv);
  return g_ascii_strtoull (at + strlen (",cpu_reads,"), NULL, 10);
}

/* Ensure `models trace` follows the programs a PROGRAM starts (Valgrind's --trace-children): with
 * a wrapper script that execs the test program, as pyenv's shims do, the report's source names
 * both (the script, then the program, as Valgrind's Command: lines give them), and the counts
 * hold the program's accesses: more reads than the program alone, since the shell's come on top.
 * Before, only the shell was traced and the program ran untraced. */
static void
test_models_trace_follows_children (void **state)
{
  Fixture *f = *state;
  g_autofree char *wrapper = g_build_filename (f->dir, "wrapper.sh", NULL);
  g_autofree char *script = NULL, *expect = NULL;
  g_autofree char *table = NULL, *csv = NULL, *direct = NULL, *err = NULL;
  int rc;
  if (!tools_present (f))
    return;
  script = g_strdup_printf ("#!/bin/sh\nexec %s \"$@\"\n", f->prog);
  assert_true (g_file_set_contents (wrapper, script, -1, NULL));
  assert_int_equal (g_chmod (wrapper, 0755), 0);
  {
    const char *args[] = { "trace", "-e", "count", "--", wrapper, "3000", NULL };
    rc = test_run_models (NULL, args, &table, &err);
    if (rc != 0)
      fail_msg ("models trace wrapper: exit %d: %s", rc, err);
    expect = g_strdup_printf ("source: lackey:%s (traced: %s 3000; %s 3000)", wrapper, wrapper,
                              f->prog);
    if (strstr (table, expect) == NULL)
      fail_msg ("expected \"%s\" in:\n%s", expect, table);
    g_clear_pointer (&err, g_free);
  }
  {
    const char *via[] = { "trace", "-e", "count", "-f", "csv", "--", wrapper, "3000", NULL };
    const char *alone[] = { "trace", "-e", "count", "-f", "csv", "--", f->prog, "3000", NULL };
    assert_int_equal (test_run_models (NULL, via, &csv, &err), 0);
    g_clear_pointer (&err, g_free);
    assert_int_equal (test_run_models (NULL, alone, &direct, &err), 0);
    if (csv_cpu_reads (csv) <= csv_cpu_reads (direct))
      fail_msg ("through the wrapper %" G_GUINT64_FORMAT " reads, alone %" G_GUINT64_FORMAT,
                csv_cpu_reads (csv), csv_cpu_reads (direct));
  }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_matches_cachegrind),
    cmocka_unit_test (test_models_trace_command),
    cmocka_unit_test (test_models_trace_follows_children),
  };
  return cmocka_run_group_tests (tests, setup, teardown);
}
