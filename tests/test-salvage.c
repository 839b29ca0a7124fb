/* Traces of runs that die (src/traces/reader.c, reader-bin.c; `models convert --salvage`; SIGINT of
 * `models run` and `models trace`): a binary trace cut at any byte is reported as truncated at the
 * record that was cut, and salvage gives back exactly the records before it, with the phases still
 * open closed; gzip data cut anywhere ends at a record too. The CLI tests kill real runs at random
 * moments ($MODELS_BIN, default build/bin/models). Record sizes come from docs/trace-format.md. */
#include "helpers.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <gio/gio.h>

/* ---- a stream whose record sizes the test knows ---- */

/* A stream of CPU records, nested phases, site names, a launch, barriers, syncs and warp
 * instructions whose binary records have a size fixed by the format (strided memory
 * instructions: 64 bytes; one- or two-lane explicit ones: 48 or 64; others: 48), with the size of
 * each record in @sizes. Every phase is closed at the end; a cut leaves some open. */
static TestCollector *
sized_stream (guint32 seed, GArray *sizes)
{
  GRand *rand = g_rand_new_with_seed (seed);
  TestCollector *c = test_collector_new ();
  MdlSink sink = test_collector_sink (c);
  static const char *const names[] = { "outer", "a phase name of exactly 32 bytes", "p" };
  guint depth = 0;
  GError *error = NULL;

  for (guint s = 0; s < 200; s++)
    {
      guint size;
      MdlMarker m = { .kind = MDL_MARK_SYNC };
      switch (g_rand_int_range (rand, 0, 8))
        {
        case 0: case 1: case 2:
          {
            MdlCpuEvent e = { .kind = (guint8) g_rand_int_range (rand, 0, 3), .size = 8,
                              .thread = 1, .site = 2, .addr = g_rand_int (rand) };
            assert_true (sink.batch (sink.data, &(MdlEventBatch) { .cpu = &e, .n_cpu = 1 }, &error));
            size = 16;
            break;
          }
        case 3:
          {
            guint64 lanes[2] = { g_rand_int (rand), 7 };
            guint kind = (guint) g_rand_int_range (rand, 0, 3);
            MdlWarpEvent w = { .active = kind == 2 ? 0x5 : 0xffffffff, .launch = 1, .block = 2,
                               .warp = 3, .op = kind == 0 ? MDL_WARP_ALU : MDL_WARP_LOAD };
            if (w.op == MDL_WARP_LOAD)
              {
                w.space = MDL_SPACE_GLOBAL;
                w.width = 4;
                if (kind == 1)
                  {
                    w.flags = MDL_WARP_STRIDED;
                    w.base = lanes[0];
                    w.stride = 4;
                  }
              }
            assert_true (sink.batch (sink.data, &(MdlEventBatch) { .warp = &w, .n_warp = 1,
                                                                    .lane_addrs = lanes,
                                                                    .n_lane_addrs = 2 }, &error));
            size = kind == 0 ? 48 : 64;   /* 40 + 0, 40 + 16 or 40 + 2 * 8, rounded up to 16 */
            break;
          }
        case 4:
          m = (MdlMarker) { .kind = MDL_MARK_BARRIER, .launch = 1, .block = 2 };
          /* fall through */
        case 5:
          assert_true (sink.marker (sink.data, &m, &error));
          size = 16;
          break;
        case 6:
          if (depth < G_N_ELEMENTS (names) && g_rand_boolean (rand))
            m = (MdlMarker) { .kind = MDL_MARK_PHASE_BEGIN, .name = names[depth++] };
          else if (depth > 0)
            m = (MdlMarker) { .kind = MDL_MARK_PHASE_END, .name = names[--depth] };
          else
            m = (MdlMarker) { .kind = MDL_MARK_SITE, .site = 2, .name = names[2] };
          assert_true (sink.marker (sink.data, &m, &error));
          size = 16 + 16 * (guint) ((strlen (m.name) + 15) / 16);
          break;
        default:
          m = (MdlMarker) { .kind = MDL_MARK_LAUNCH, .launch = 1, .grid_blocks = 4,
                            .block_threads = 128, .warp_width = 32 };
          assert_true (sink.marker (sink.data, &m, &error));
          size = 32;
        }
      g_array_append_val (sizes, size);
    }
  while (depth > 0)
    {
      MdlMarker m = { .kind = MDL_MARK_PHASE_END, .name = names[--depth] };
      guint size = 16 + 16 * (guint) ((strlen (m.name) + 15) / 16);
      assert_true (sink.marker (sink.data, &m, &error));
      g_array_append_val (sizes, size);
    }
  g_rand_free (rand);
  return c;
}

/* The first @n items of @c, then a phase end for every phase left open by them. */
static TestCollector *
prefix_closed (const TestCollector *c, guint n)
{
  TestCollector *p = test_collector_new ();
  MdlSink sink = test_collector_sink (p);
  MdlEventBatch lanes = { .lane_addrs = (const guint64 *) (void *) c->lane_addrs->data,
                          .n_lane_addrs = c->lane_addrs->len };
  GPtrArray *open = g_ptr_array_new ();
  guint ci = 0, wi = 0, mi = 0;
  GError *error = NULL;

  for (guint i = 0; i < n; i++)
    switch (c->order->str[i])
      {
      case 'c':
        assert_true (sink.batch (p, &(MdlEventBatch) {
                                   .cpu = &g_array_index (c->cpu, MdlCpuEvent, ci++), .n_cpu = 1 },
                                 &error));
        break;
      case 'w':
        {
          MdlEventBatch one = lanes;
          one.warp = &g_array_index (c->warp, MdlWarpEvent, wi++);
          one.n_warp = 1;
          assert_true (sink.batch (p, &one, &error));
          break;
        }
      default:
        {
          const TestMarker *t = g_ptr_array_index (c->markers, mi++);
          if (t->marker.kind == MDL_MARK_PHASE_BEGIN)
            g_ptr_array_add (open, (gpointer) t->name);
          else if (t->marker.kind == MDL_MARK_PHASE_END)
            g_ptr_array_set_size (open, open->len - 1);
          assert_true (sink.marker (p, &t->marker, &error));
        }
      }
  while (open->len > 0)
    {
      MdlMarker m = { .kind = MDL_MARK_PHASE_END, .name = g_ptr_array_steal_index (open, open->len - 1) };
      assert_true (sink.marker (p, &m, &error));
    }
  g_ptr_array_unref (open);
  return p;
}

/* @c written as a binary trace into memory (gzip-compressed when @gzip), ended properly. */
static GBytes *
write_bin (const TestCollector *c, gboolean gzip)
{
  GOutputStream *mem = g_memory_output_stream_new_resizable ();
  MdlTraceWriter *w = mdl_trace_writer_new (mem, "mem", MDL_TRACE_BIN, gzip);
  MdlSink sink = mdl_trace_writer_sink (w);
  GError *error = NULL;
  GBytes *bytes;
  if (!test_collector_replay (c, &sink, 3, &error) || !mdl_trace_writer_close (w, &error))
    fail_msg ("writing: %s", error->message);
  mdl_trace_writer_free (w);
  bytes = g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (mem));
  g_object_unref (mem);
  return bytes;
}

/* Reads the first @len bytes of @data (salvaging when asked) into a new collector; returns the
 * error, if any, in *@error and the reader's truncation note in *@note (transfer full). */
static TestCollector *
read_cut (const guint8 *data, gsize len, gboolean salvage, GError **error, char **note)
{
  GInputStream *in = g_memory_input_stream_new_from_data (data, (gssize) len, NULL);
  MdlTraceReader *r = mdl_trace_reader_new (in, "cut.bin", MDL_TRACE_BIN, error);
  TestCollector *c = test_collector_new ();
  MdlSink sink = test_collector_sink (c);
  gboolean done = FALSE;

  *note = NULL;
  if (r)
    mdl_trace_reader_set_salvage (r, salvage);
  while (r && !done && mdl_trace_reader_pump (r, &sink, 5, &done, error))
    ;
  if (r && done)
    *note = g_strdup (mdl_trace_reader_truncation (r));
  mdl_trace_reader_free (r);
  g_object_unref (in);
  return c;
}

/* Ensure a binary trace cut at every byte after its header is, without salvage, an
 * MDL_ERROR_FORMAT naming the record that was cut and its byte offset (record N + 1 when N
 * records are whole), and with salvage exactly its first N records, the phases they leave open
 * closed, and the same place named in the truncation note; a whole trace has no note. */
static void
test_cut_binary_trace_names_the_record_and_salvages_the_rest (void **state)
{
  guint32 seed = test_seed (19);
  GArray *sizes = g_array_new (FALSE, FALSE, sizeof (guint));
  TestCollector *orig = sized_stream (seed, sizes);
  TestCollector *empty = test_collector_new ();
  GBytes *bytes = write_bin (orig, FALSE);
  GBytes *empty_bytes = write_bin (empty, FALSE);
  gsize len, header = g_bytes_get_size (empty_bytes) - 16;   /* an empty trace: header + end */
  const guint8 *data = g_bytes_get_data (bytes, &len);
  guint whole = 0;
  gsize end_of_whole = header;
  (void) state;

  assert_int_equal (sizes->len, orig->order->len);
  for (gsize cut = header; cut <= len; cut++)
    {
      GError *error = NULL;
      char *note = NULL;
      TestCollector *back, *expect;
      g_autofree char *place = NULL;
      g_autofree char *why = NULL;
      while (whole < sizes->len && end_of_whole + g_array_index (sizes, guint, whole) <= cut)
        end_of_whole += g_array_index (sizes, guint, whole++);
      place = g_strdup_printf ("cut.bin: record %u (byte %" G_GSIZE_FORMAT "): truncated",
                               whole + 1, end_of_whole);

      back = read_cut (data, cut, FALSE, &error, &note);
      if (cut == len)
        {
          if (error)
            fail_msg ("seed %u: the whole trace: %s", seed, error->message);
          test_collector_assert_equal (orig, back);
          assert_null (note);
        }
      else if (error == NULL || strstr (error->message, place) == NULL)
        fail_msg ("seed %u, cut at byte %" G_GSIZE_FORMAT ": expected \"%s\", got %s", seed, cut,
                  place, error ? error->message : "no error");
      g_clear_error (&error);
      test_collector_free (back);
      if (cut == len)
        continue;

      back = read_cut (data, cut, TRUE, &error, &note);
      if (error)
        fail_msg ("seed %u, salvage of a cut at byte %" G_GSIZE_FORMAT ": %s", seed, cut,
                  error->message);
      if (note == NULL || strstr (note, place) == NULL)
        fail_msg ("seed %u, cut at byte %" G_GSIZE_FORMAT ": note \"%s\", expected \"%s\"", seed,
                  cut, note ? note : "(none)", place);
      expect = prefix_closed (orig, whole);
      test_collector_assert_equal (expect, back);
      test_collector_free (expect);
      test_collector_free (back);
      g_free (note);
    }
  g_bytes_unref (bytes);
  g_bytes_unref (empty_bytes);
  test_collector_free (orig);
  test_collector_free (empty);
  g_array_unref (sizes);
}

/* Ensure gzip data cut anywhere is an MDL_ERROR_FORMAT that says the gzip data was cut and at
 * which record the trace stops, and that salvage then gives back a prefix of the stream, with its
 * open phases closed, that grows with the cut and is the whole stream once only the gzip trailer
 * is missing. */
static void
test_cut_gzip_trace_salvages_a_growing_prefix (void **state)
{
  guint32 seed = test_seed (23);
  GArray *sizes = g_array_new (FALSE, FALSE, sizeof (guint));
  TestCollector *orig = sized_stream (seed, sizes);
  GBytes *bytes = write_bin (orig, TRUE);
  gsize len;
  const guint8 *data = g_bytes_get_data (bytes, &len);
  guint last = 0;
  (void) state;

  /* The gzip header is 10 bytes: a cut inside it leaves nothing to salvage. Every third byte,
   * and every one of the last 16 (the end of the deflate data and the trailer). */
  for (gsize cut = 10; cut < len; cut += cut + 16 >= len ? 1 : 3)
    {
      GError *error = NULL;
      char *note = NULL;
      TestCollector *back = read_cut (data, cut, FALSE, &error, &note);
      guint n;
      if (error == NULL || error->code != MDL_ERROR_FORMAT
          || strstr (error->message, "cut.bin: corrupt or truncated gzip data after ") == NULL)
        fail_msg ("seed %u, gzip cut at byte %" G_GSIZE_FORMAT ": %s", seed, cut,
                  error ? error->message : "no error");
      g_clear_error (&error);
      test_collector_free (back);

      back = read_cut (data, cut, TRUE, &error, &note);
      if (error)
        {
          /* too little inflated for the header: nothing to salvage, and it says why */
          assert_int_equal (back->order->len, 0);
          assert_non_null (strstr (error->message, "corrupt or truncated gzip data"));
          g_clear_error (&error);
          test_collector_free (back);
          continue;
        }
      assert_non_null (note);
      /* what came back is a prefix of n records with the phases closed; n is searched from the
       * top, because a prefix ending in phase ends equals the shorter one that salvage closes */
      for (n = orig->order->len; n != G_MAXUINT; n--)
        {
          TestCollector *expect = prefix_closed (orig, n);
          gboolean same = strcmp (expect->order->str, back->order->str) == 0;
          if (same)
            test_collector_assert_equal (expect, back);
          test_collector_free (expect);
          if (same)
            break;
        }
      if (n == G_MAXUINT)
        fail_msg ("seed %u, gzip cut at byte %" G_GSIZE_FORMAT ": not a prefix of the stream",
                  seed, cut);
      if (n < last)
        fail_msg ("seed %u: a longer cut (%" G_GSIZE_FORMAT ") salvaged fewer records (%u < %u)",
                  seed, cut, n, last);
      last = n;
      if (cut == len - 1)
        assert_int_equal (n, orig->order->len);
      g_free (note);
      test_collector_free (back);
    }
  assert_int_equal (last, orig->order->len);
  g_bytes_unref (bytes);
  test_collector_free (orig);
  g_array_unref (sizes);
}

/* Ensure salvaging gzip-compressed text cut anywhere keeps whole lines only: the cut last line
 * (" L 7ff0,1" of " L 7ff0,16") is dropped, not misread, and the note says so. */
static void
test_cut_gzip_text_drops_its_cut_line (void **state)
{
  GString *text = g_string_new (NULL);
  GOutputStream *mem = g_memory_output_stream_new_resizable ();
  GZlibCompressor *z = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, 1);
  GOutputStream *gz = g_converter_output_stream_new (mem, G_CONVERTER (z));
  const guint8 *data;
  gsize len;
  (void) state;

  for (guint i = 0; i < 3000; i++)
    g_string_append_printf (text, " L %x,16\n", 0x10000 + 16 * i);
  assert_true (g_output_stream_write_all (gz, text->str, text->len, NULL, NULL, NULL));
  assert_true (g_output_stream_close (gz, NULL, NULL));
  data = g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (mem));
  len = g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (mem));
  for (gsize cut = 20; cut < len; cut += 7)
    {
      GInputStream *in = g_memory_input_stream_new_from_data (data, (gssize) cut, NULL);
      GError *error = NULL;
      MdlTraceReader *r = mdl_trace_reader_new (in, "cut.lackey.gz", MDL_TRACE_LACKEY, &error);
      TestCollector *c = test_collector_new ();
      MdlSink sink = test_collector_sink (c);
      gboolean done = FALSE;
      assert_non_null (r);
      mdl_trace_reader_set_salvage (r, TRUE);
      while (!done && mdl_trace_reader_pump (r, &sink, 0, &done, &error))
        ;
      if (error)
        fail_msg ("cut at %" G_GSIZE_FORMAT ": %s", cut, error->message);
      for (guint i = 0; i < c->cpu->len; i++)
        {
          const MdlCpuEvent *e = &g_array_index (c->cpu, MdlCpuEvent, i);
          if (e->size != 16 || e->addr != 0x10000 + 16 * (guint64) i)
            fail_msg ("cut at %" G_GSIZE_FORMAT ": record %u misread (size %u at 0x%"
                      G_GINT64_MODIFIER "x)", cut, i + 1, e->size, e->addr);
        }
      assert_non_null (mdl_trace_reader_truncation (r));
      assert_non_null (strstr (mdl_trace_reader_truncation (r), "corrupt or truncated gzip data"));
      mdl_trace_reader_free (r);
      g_object_unref (in);
      test_collector_free (c);
    }
  g_object_unref (gz);
  g_object_unref (z);
  g_object_unref (mem);
  g_string_free (text, TRUE);
}

/* ---- real runs, killed at random moments ---- */

/* Removes @dir and the files in it (the tests make no subfolders). */
static void
test_remove_dir (const char *dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const char *name;
  while (d && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_unlink (path);
    }
  if (d)
    g_dir_close (d);
  g_rmdir (dir);
}

static const char *
models_bin (void)
{
  const char *bin = g_getenv ("MODELS_BIN");
  return bin && *bin ? bin : "build/bin/models";
}

/* Starts `models ARGS...` with stdout and stderr to files in @dir; returns its pid. */
static GPid
start_models (const char *dir, const char *const *args)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autofree char *out = g_build_filename (dir, "stdout", NULL);
  g_autofree char *err = g_build_filename (dir, "stderr", NULL);
  int out_fd = open (out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int err_fd = open (err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  g_autoptr (GError) error = NULL;
  GPid pid;

  assert_true (out_fd >= 0 && err_fd >= 0);
  g_ptr_array_add (argv, (gpointer) models_bin ());
  for (const char *const *a = args; *a; a++)
    g_ptr_array_add (argv, (gpointer) *a);
  g_ptr_array_add (argv, NULL);
  if (!g_spawn_async_with_fds (NULL, (char **) argv->pdata, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL,
                               NULL, &pid, -1, out_fd, err_fd, &error))
    fail_msg ("cannot run %s: %s", models_bin (), error->message);
  close (out_fd);
  close (err_fd);
  return pid;
}

/* Waits until @path holds at least @bytes (the run is writing its trace: the moment of the signal
 * is set by how far the run got, not by a clock), then sends @sig; returns the exit status
 * (128 + the signal's number when it killed the process). */
static int
signal_when_written (GPid pid, const char *path, guint64 bytes, int sig)
{
  int status;
  GStatBuf st;
  while (g_stat (path, &st) != 0 || (guint64) st.st_size < bytes)
    {
      if (waitpid (pid, &status, WNOHANG) == pid)
        fail_msg ("models ended (status 0x%x) before writing %" G_GUINT64_FORMAT " bytes of %s",
                  status, bytes, path);
      g_usleep (100);
    }
  kill (pid, sig);
  assert_int_equal (waitpid (pid, &status, 0), pid);
  return WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
}

typedef struct {
  int status;
  char *out;
  char *err;
} Run;

G_GNUC_NULL_TERMINATED static Run
run_models (const char *first, ...)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  Run r = { 0 };
  int wait_status;
  va_list ap;
  g_ptr_array_add (argv, (gpointer) models_bin ());
  va_start (ap, first);
  for (const char *a = first; a; a = va_arg (ap, const char *))
    g_ptr_array_add (argv, (gpointer) a);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  if (!g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &r.out, &r.err,
                     &wait_status, &error))
    fail_msg ("cannot run %s: %s", models_bin (), error->message);
  r.status = WIFEXITED (wait_status) ? WEXITSTATUS (wait_status) : -1;
  return r;
}

static void
run_clear (Run *r)
{
  g_free (r->out);
  g_free (r->err);
}

/* The number after @key in @text (a message or a JSON document); fails when @key is absent. */
static guint64
number_after (const char *text, const char *key)
{
  const char *p = strstr (text, key);
  if (p == NULL)
    fail_msg ("expected \"%s\" in: %s", key, text);
  return g_ascii_strtoull (p + strlen (key), NULL, 10);
}

/* Checks that @path holds what `models run scan/seq` records, cut anywhere and salvaged: phase
 * "scan" begins, the two site records naming its MDL_READ and MDL_OPS lines come before the first
 * event, then read (8 bytes, each 8 bytes after the last) and op count 1 alternate, and the phase
 * ends (closed by salvage); returns the number of records before that closing end. */
static guint64
check_salvaged_scan (const char *path)
{
  GError *error = NULL;
  MdlTraceReader *r = mdl_trace_reader_open (path, MDL_TRACE_AUTO, &error);
  TestCollector *c = test_collector_new ();
  MdlSink sink = test_collector_sink (c);
  gboolean done = FALSE;
  guint64 n;

  while (r && !done && mdl_trace_reader_pump (r, &sink, 0, &done, &error))
    ;
  if (error)
    fail_msg ("%s: %s", path, error->message);
  mdl_trace_reader_free (r);
  n = c->order->len - 1;
  assert_true (n >= 1);
  assert_int_equal (c->order->str[0], 'm');
  assert_int_equal (c->order->str[n], 'm');
  assert_int_equal (c->markers->len, c->cpu->len ? 4 : 2);
  assert_string_equal (((TestMarker *) g_ptr_array_index (c->markers, 0))->name, "scan");
  for (guint m = 1; m + 1 < c->markers->len; m++)
    assert_int_equal (((TestMarker *) g_ptr_array_index (c->markers, m))->marker.kind,
                      MDL_MARK_SITE);
  assert_int_equal (((TestMarker *) g_ptr_array_index (c->markers, c->markers->len - 1))->marker.kind,
                    MDL_MARK_PHASE_END);
  for (guint i = 0; i < c->cpu->len; i++)
    {
      const MdlCpuEvent *e = &g_array_index (c->cpu, MdlCpuEvent, i);
      const MdlCpuEvent *first = &g_array_index (c->cpu, MdlCpuEvent, 0);
      gboolean ok = i % 2 == 0 ? e->kind == MDL_CPU_READ && e->size == 8
                                   && e->addr == first->addr + 8 * (guint64) (i / 2)
                               : e->kind == MDL_CPU_OPS && e->addr == 1;
      if (!ok)
        fail_msg ("%s: record %u is not the scan's", path, i + 2);
    }
  test_collector_free (c);
  return n;
}

/* Ensure `models run --trace-out` killed with SIGKILL at a random moment leaves a trace (plain or
 * gzip) that `models analyze` reports as truncated at the record after the last whole one (for a
 * plain file, the one its size says), and that `models convert --salvage` recovers every whole
 * record: the scan's records in order, as many as its message says. */
static void
test_killed_run_leaves_a_salvageable_trace (void **state)
{
  guint32 seed = test_seed (1919);
  GRand *rand = g_rand_new_with_seed (seed);
  g_autofree char *dir = g_dir_make_tmp ("models-killed-XXXXXX", NULL);
  (void) state;

  print_message ("kill points from seed %u (MODELS_TEST_SEED)\n", seed);
  for (guint round = 0; round < 4; round++)
    {
      gboolean gz = round % 2 == 1;
      g_autofree char *trace = g_build_filename (dir, gz ? "t.bin.gz" : "t.bin", NULL);
      g_autofree char *whole = g_build_filename (dir, "whole.bin", NULL);
      g_autofree char *place = NULL;
      const char *args[] = { "run", "scan/seq", "--n", "2M", "-e", "count", "--trace-out", trace,
                             NULL };
      /* a random point in the first quarter of the trace (64 MiB plain, 3.5 MiB gzip) */
      guint64 at = (guint64) g_rand_int_range (rand, 1, gz ? 7 << 17 : 16 << 20);
      GPid pid = start_models (dir, args);
      int status = signal_when_written (pid, trace, at, SIGKILL);
      Run a, s;
      guint64 n_salvaged, n_said;

      if (status != 128 + SIGKILL)
        fail_msg ("round %u: the run ended with status %d, not killed at byte %" G_GUINT64_FORMAT,
                  round, status, at);
      a = run_models ("analyze", "-e", "count", trace, NULL);
      assert_int_equal (a.status, 1);
      if (!gz)
        {
          GStatBuf st;
          guint8 head[16];
          FILE *f = fopen (trace, "rb");
          guint64 header, whole_records;
          assert_true (f && fread (head, 1, 16, f) == 16);
          fclose (f);
          assert_int_equal (g_stat (trace, &st), 0);
          header = (16 + (guint64) (head[12] | head[13] << 8 | head[14] << 16) + 15) / 16 * 16;
          /* the phase begin "scan" takes 32 bytes, the two site records that follow 48 each
           * (16 and a name of 23 bytes, "src/algos/cpu/scan.c:45", padded to 32), every other
           * record 16; the kill comes after the first batch */
          whole_records = 3 + ((guint64) st.st_size - header - 32 - 96) / 16;
          place = g_strdup_printf ("%s: record %" G_GUINT64_FORMAT " (byte %" G_GUINT64_FORMAT
                                   "): truncated", trace, whole_records + 1,
                                   header + 32 + 96 + 16 * (whole_records - 3));
        }
      else
        place = g_strdup_printf ("%s: corrupt or truncated gzip data after ", trace);
      if (strstr (a.err, place) == NULL)
        fail_msg ("round %u (killed at byte %" G_GUINT64_FORMAT "): expected \"%s\" in: %s", round,
                  at, place, a.err);
      s = run_models ("convert", "--salvage", trace, whole, NULL);
      if (s.status != 0)
        fail_msg ("round %u: salvage failed: %s", round, s.err);
      n_said = number_after (s.err, "salvaged ");
      n_salvaged = check_salvaged_scan (whole);
      assert_int_equal (n_salvaged, n_said);
      if (!gz)
        assert_int_equal (n_said + 1, number_after (place, ": record "));
      run_clear (&a);
      run_clear (&s);
      g_unlink (trace);
      g_unlink (whole);
    }
  g_rand_free (rand);
  test_remove_dir (dir);
}

/* Ensure SIGINT at a random point of the run stops `models run` with status 130, its JSON report marked
 * partial, and a trace whose complete records are exactly the events the report counted. */
static void
test_interrupted_run_reports_partial_and_keeps_its_trace (void **state)
{
  guint32 seed = test_seed (1920);
  GRand *rand = g_rand_new_with_seed (seed);
  g_autofree char *dir = g_dir_make_tmp ("models-interrupted-XXXXXX", NULL);
  g_autofree char *trace = g_build_filename (dir, "t.bin", NULL);
  g_autofree char *whole = g_build_filename (dir, "whole.bin", NULL);
  g_autofree char *report = g_build_filename (dir, "report.json", NULL);
  g_autofree char *json = NULL, *again_json = NULL;
  const char *args[] = { "run", "scan/seq", "--n", "2M", "-e", "count", "--trace-out", trace,
                         "--format", "json", "--output", report, NULL };
  GPid pid;
  int status;
  Run s, again;
  (void) state;

  pid = start_models (dir, args);
  status = signal_when_written (pid, trace, (guint64) g_rand_int_range (rand, 1, 16 << 20), SIGINT);
  assert_int_equal (status, 130);
  assert_true (g_file_get_contents (report, &json, NULL, NULL));
  if (strstr (json, "\"partial\": \"interrupted by SIGINT\"") == NULL)
    fail_msg ("seed %u: the report is not marked partial: %.300s", seed, json);
  s = run_models ("convert", "--salvage", trace, whole, NULL);
  assert_int_equal (s.status, 0);
  assert_int_equal (number_after (s.err, "salvaged "), number_after (json, "\"events\": "));
  assert_int_equal (check_salvaged_scan (whole), number_after (json, "\"events\": "));
  again = run_models ("analyze", "-e", "count", "--format", "json", whole, NULL);
  assert_int_equal (again.status, 0);
  assert_int_equal (number_after (again.out, "\"cpu_reads\": "), number_after (json, "\"cpu_reads\": "));
  run_clear (&s);
  run_clear (&again);
  g_rand_free (rand);
  test_remove_dir (dir);
}

/* Ensure `models trace --save`, killed with SIGKILL or stopped with SIGINT while Valgrind runs a
 * busy shell loop, leaves a trace reported as truncated and salvaged whole; SIGINT also gives
 * status 130 and a partial report whose event count is the salvaged record count. Skipped
 * (and said) when Valgrind is not installed. */
static void
test_killed_and_interrupted_trace_command (void **state)
{
  g_autofree char *valgrind = g_find_program_in_path ("valgrind");
  g_autofree char *dir = g_dir_make_tmp ("models-trace-killed-XXXXXX", NULL);
  g_autofree char *trace = g_build_filename (dir, "t.bin", NULL);
  g_autofree char *whole = g_build_filename (dir, "whole.bin", NULL);
  g_autofree char *report = g_build_filename (dir, "report.json", NULL);
  (void) state;

  if (valgrind == NULL)
    {
      print_message ("skipped: valgrind is not installed (make deps installs it)\n");
      test_remove_dir (dir);
      skip ();
    }
  for (guint round = 0; round < 2; round++)
    {
      int sig = round == 0 ? SIGKILL : SIGINT;
      const char *args[] = { "trace", "--save", trace, "-e", "count", "-f", "json", "-o", report,
                             "--", "sh", "-c", "i=0; while [ $i -lt 2000000 ]; do i=$((i+1)); done",
                             NULL };
      GPid pid = start_models (dir, args);
      int status = signal_when_written (pid, trace, 1, sig);
      g_autofree char *json = NULL;
      Run a, s;
      assert_int_equal (status, sig == SIGKILL ? 128 + SIGKILL : 130);
      a = run_models ("analyze", trace, NULL);
      assert_int_equal (a.status, 1);
      assert_non_null (strstr (a.err, "truncated trace: the end record is missing"));
      s = run_models ("convert", "--salvage", trace, whole, NULL);
      assert_int_equal (s.status, 0);
      assert_true (number_after (s.err, "salvaged ") > 0);
      if (sig == SIGINT)
        {
          assert_true (g_file_get_contents (report, &json, NULL, NULL));
          assert_non_null (strstr (json, "\"partial\": \"interrupted by SIGINT\""));
          assert_int_equal (number_after (s.err, "salvaged "), number_after (json, "\"events\": "));
        }
      run_clear (&a);
      run_clear (&s);
      g_unlink (trace);
      g_unlink (whole);
      g_unlink (report);
    }
  test_remove_dir (dir);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_cut_binary_trace_names_the_record_and_salvages_the_rest),
    cmocka_unit_test (test_cut_gzip_trace_salvages_a_growing_prefix),
    cmocka_unit_test (test_cut_gzip_text_drops_its_cut_line),
    cmocka_unit_test (test_killed_run_leaves_a_salvageable_trace),
    cmocka_unit_test (test_interrupted_run_reports_partial_and_keeps_its_trace),
    cmocka_unit_test (test_killed_and_interrupted_trace_command),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
