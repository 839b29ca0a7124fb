/* Round trips through trace files (src/traces/reader.c, writer.c and both formats): every pair of
 * bin, bin.gz, lackey and lackey.gz carries what both can carry unchanged; compression and format
 * are detected from the bytes; opening, detection and gzip failures give the documented errors;
 * every input in tests/data/regress/ (inputs that once broke a reader) ends cleanly; and, as a
 * property over thousands of seeds, small random streams of everything round-trip through bin,
 * Lackey, din and warp text, plain and gzip, each compared on what its format carries. */
#include "helpers.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <gio/gio.h>

/* assert_mdl_error() frees the error; this also clears the variable for its next use. */
#define assert_error_clear(error, code, needle)                                                    \
  do                                                                                               \
    {                                                                                              \
      assert_mdl_error ((error), (code), (needle));                                                \
      (error) = NULL;                                                                              \
    }                                                                                              \
  while (0)

static const char *const suffixes[] = { "bin", "bin.gz", "lackey", "lackey.gz" };

static gboolean
is_lackey (const char *suffix)
{
  return g_str_has_prefix (suffix, "lackey");
}

static guint64
rand64 (GRand *rand)
{
  return ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand);
}

/* Random CPU records as Lackey can carry them: no thread or site, op counts of at least 1 and
 * never two in a row (Lackey would merge them). */
static void
add_cpu (GRand *rand, guint n, gboolean lackey_only, TestCollector *c)
{
  MdlSink sink = test_collector_sink (c);
  MdlCpuEvent e[256];
  gboolean last_ops = c->cpu->len > 0
                      && g_array_index (c->cpu, MdlCpuEvent, c->cpu->len - 1).kind == MDL_CPU_OPS;
  GError *error = NULL;

  while (n > 0)
    {
      guint k = MIN (n, G_N_ELEMENTS (e));
      for (guint i = 0; i < k; i++)
        {
          guint kind = (guint) g_rand_int_range (rand, 0, 4);
          if (kind == MDL_CPU_OPS && last_ops)
            kind = MDL_CPU_READ;
          last_ops = kind == MDL_CPU_OPS;
          e[i] = (MdlCpuEvent) { .kind = (guint8) kind };
          if (kind == MDL_CPU_OPS)
            e[i].addr = (guint64) g_rand_int_range (rand, 1, 6);
          else
            {
              e[i].size = (guint16) g_rand_int_range (rand, 1, 65536);
              e[i].addr = rand64 (rand) >> g_rand_int_range (rand, 0, 64);
            }
          if (!lackey_only)
            {
              e[i].thread = (guint16) g_rand_int (rand);
              e[i].site = (guint16) g_rand_int (rand);
              if (kind == MDL_CPU_OPS)
                e[i].addr = rand64 (rand);
            }
        }
      assert_true (sink.batch (sink.data, &(MdlEventBatch) { .cpu = e, .n_cpu = k }, &error));
      n -= k;
    }
}

/* A kernel launch with every marker kind and warp instructions in all three address forms
 * (strided, explicit and regular, explicit and irregular), inside nested phases. */
static void
add_gpu (GRand *rand, guint32 launch, TestCollector *c)
{
  MdlSink sink = test_collector_sink (c);
  GError *error = NULL;
  const MdlMarker marks[] = {
    { .kind = MDL_MARK_PHASE_BEGIN, .name = "sort" },
    { .kind = MDL_MARK_SITE, .site = 7, .name = "bitonic merge (shared)" },
    { .kind = MDL_MARK_LAUNCH, .launch = launch, .grid_blocks = 4, .block_threads = 64,
      .shared_bytes = 4096, .warp_width = 32 },
    { .kind = MDL_MARK_PHASE_BEGIN, .name = "pass 1" },
  };
  MdlWarpEvent w[6];
  guint64 lanes[6 * 32];
  guint n_lanes = 0;

  for (guint i = 0; i < G_N_ELEMENTS (marks); i++)
    assert_true (sink.marker (sink.data, &marks[i], &error));
  for (guint i = 0; i < G_N_ELEMENTS (w); i++)
    {
      guint64 active = g_rand_int (rand) | 1u;
      guint op = i % MDL_WARP_N_OPS;
      w[i] = (MdlWarpEvent) { .active = active, .op = (guint8) op, .launch = launch,
                              .block = g_rand_int_range (rand, 0, 4), .warp = (guint16) (i % 2),
                              .site = 7 };
      if (op == MDL_WARP_BRANCH)
        w[i].taken = active & g_rand_int (rand);
      if (op <= MDL_WARP_ATOMIC)
        {
          guint64 base = rand64 (rand);
          w[i].space = (guint8) (1 + i % 3);
          w[i].width = 4;
          if (i == 0)
            {
              w[i].flags = MDL_WARP_STRIDED;
              w[i].base = base;
              w[i].stride = -12;
            }
          else
            {
              w[i].first_addr = n_lanes;
              for (guint64 m = active; m; m &= m - 1)
                lanes[n_lanes++] = i == 1 ? base + 4 * (guint64) __builtin_ctzll (m) : rand64 (rand);
            }
        }
    }
  assert_true (sink.batch (sink.data, &(MdlEventBatch) { .warp = w, .n_warp = G_N_ELEMENTS (w),
                                                          .lane_addrs = lanes,
                                                          .n_lane_addrs = n_lanes }, &error));
  {
    const MdlMarker after[] = {
      { .kind = MDL_MARK_BARRIER, .launch = launch, .block = 3 },
      { .kind = MDL_MARK_PHASE_END, .name = "pass 1" },
      { .kind = MDL_MARK_SYNC },
      { .kind = MDL_MARK_PHASE_END, .name = "sort" },
    };
    for (guint i = 0; i < G_N_ELEMENTS (after); i++)
      assert_true (sink.marker (sink.data, &after[i], &error));
  }
}

/* The test stream: about 1.5 MiB in every format, so records and lines straddle chunk boundaries.
 * @lackey_cpu: CPU records as Lackey carries them; @gpu: launches with warps and markers too. */
static TestCollector *
make_stream (guint32 seed, gboolean lackey_cpu, gboolean gpu)
{
  GRand *rand = g_rand_new_with_seed (seed);
  TestCollector *c = test_collector_new ();
  for (guint32 i = 0; i < 24; i++)
    {
      add_cpu (rand, 4000, lackey_cpu, c);
      if (gpu)
        add_gpu (rand, i, c);
    }
  g_rand_free (rand);
  return c;
}

static void
write_file (const TestCollector *c, const char *path)
{
  GError *error = NULL;
  MdlTraceWriter *w = mdl_trace_writer_open (path, MDL_TRACE_AUTO, &error);
  MdlSink sink;
  if (w == NULL)
    fail_msg ("%s", error->message);
  sink = mdl_trace_writer_sink (w);
  if (!test_collector_replay (c, &sink, 1000, &error) || !mdl_trace_writer_close (w, &error))
    fail_msg ("writing %s: %s", path, error->message);
  mdl_trace_writer_free (w);
}

/* Reads @path (format detected) into a new collector; fails the test on an error. */
static TestCollector *
read_file (const char *path, const char *suffix)
{
  GError *error = NULL;
  MdlTraceReader *r = mdl_trace_reader_open (path, MDL_TRACE_AUTO, &error);
  TestCollector *c = test_collector_new ();
  MdlSink sink = test_collector_sink (c);
  gboolean done = FALSE;

  if (r == NULL)
    fail_msg ("%s", error->message);
  while (!done)
    if (!mdl_trace_reader_pump (r, &sink, 0, &done, &error))
      fail_msg ("reading %s: %s", path, error->message);
  assert_int_equal (mdl_trace_reader_format (r), is_lackey (suffix) ? MDL_TRACE_LACKEY : MDL_TRACE_BIN);
  assert_int_equal (mdl_trace_reader_compressed (r), g_str_has_suffix (suffix, ".gz"));
  assert_int_equal (mdl_trace_reader_n_records (r), c->cpu->len + c->warp->len + c->markers->len);
  mdl_trace_reader_free (r);
  return c;
}

/* Ensure that for every pair of formats (A, B), writing a stream as A, reading it, writing that as
 * B and reading it again gives back exactly the original stream: CPU records only when either is
 * Lackey, everything (warp events in all address forms, every marker kind) between binary files. */
static void
test_every_pair_of_formats_round_trips (void **state)
{
  guint32 seed = test_seed (7);
  g_autofree char *dir = g_dir_make_tmp ("models-roundtrip-XXXXXX", NULL);
  TestCollector *full = make_stream (seed, FALSE, TRUE);
  TestCollector *cpu_only = make_stream (seed, TRUE, FALSE);
  (void) state;

  print_message ("round trips with seed %u (MODELS_TEST_SEED)\n", seed);
  for (guint a = 0; a < G_N_ELEMENTS (suffixes); a++)
    for (guint b = 0; b < G_N_ELEMENTS (suffixes); b++)
      {
        const TestCollector *orig = is_lackey (suffixes[a]) || is_lackey (suffixes[b]) ? cpu_only : full;
        g_autofree char *path_a = g_strdup_printf ("%s/a-%u%u.%s", dir, a, b, suffixes[a]);
        g_autofree char *path_b = g_strdup_printf ("%s/b-%u%u.%s", dir, a, b, suffixes[b]);
        TestCollector *once, *twice;
        write_file (orig, path_a);
        once = read_file (path_a, suffixes[a]);
        test_collector_assert_equal (orig, once);
        write_file (once, path_b);
        twice = read_file (path_b, suffixes[b]);
        test_collector_assert_equal (orig, twice);
        test_collector_free (once);
        test_collector_free (twice);
        g_unlink (path_a);
        g_unlink (path_b);
      }
  g_rmdir (dir);
  test_collector_free (full);
  test_collector_free (cpu_only);
}

/* Ensure a stream with markers written as Lackey keeps its CPU records and counts the markers it
 * had to drop. */
static void
test_lackey_file_drops_and_counts_markers (void **state)
{
  TestCollector *full = make_stream (3, TRUE, TRUE);
  g_autofree char *dir = g_dir_make_tmp ("models-roundtrip-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "t.lackey", NULL);
  GError *error = NULL;
  MdlTraceWriter *w = mdl_trace_writer_open (path, MDL_TRACE_LACKEY, &error);
  MdlSink sink = mdl_trace_writer_sink (w);
  (void) state;

  /* replays CPU batches and markers; the first warp batch must fail as unsupported */
  assert_false (test_collector_replay (full, &sink, 100000, &error));
  assert_error_clear (error, MDL_ERROR_UNSUPPORTED, "lackey text cannot carry warp events");
  assert_int_equal (mdl_trace_writer_n_records (w), 4000);
  assert_int_equal (mdl_trace_writer_n_dropped (w), 4);   /* the markers before the first warps */
  mdl_trace_writer_free (w);
  g_unlink (path);
  g_rmdir (dir);
  test_collector_free (full);
}

/* Reads @path to its end, dropping the events; returns the error of the open or of a pump call.
 * After a failed pump, checks that the reader refuses to go on. */
static GError *
read_to_end (const char *path)
{
  GError *error = NULL;
  MdlTraceReader *r = mdl_trace_reader_open (path, MDL_TRACE_AUTO, &error);
  TestCollector *c = test_collector_new ();
  MdlSink sink = test_collector_sink (c);
  gboolean done = FALSE;

  while (r && !done && mdl_trace_reader_pump (r, &sink, 0, &done, &error))
    ;
  if (r && !done)
    {
      GError *again = NULL;
      assert_false (mdl_trace_reader_pump (r, &sink, 0, &done, &again));
      assert_error_clear (again, MDL_ERROR_FORMAT, "cannot be read further after an earlier error");
    }
  mdl_trace_reader_free (r);
  test_collector_free (c);
  return error;
}

/* Ensure a gzip stream cut short (in its header, in the middle, in its trailer) or damaged is an
 * MDL_ERROR_FORMAT that says so, for both formats, and never a crash or a silently shorter trace. */
static void
test_damaged_gzip_is_a_format_error (void **state)
{
  TestCollector *cpu_only = make_stream (5, TRUE, FALSE);
  g_autofree char *dir = g_dir_make_tmp ("models-roundtrip-XXXXXX", NULL);
  (void) state;

  for (guint i = 0; i < 2; i++)
    {
      g_autofree char *path = g_strdup_printf ("%s/t.%s", dir, i == 0 ? "bin.gz" : "lackey.gz");
      g_autofree char *cut = g_strdup_printf ("%s/cut.%s", dir, i == 0 ? "bin.gz" : "lackey.gz");
      g_autofree char *needle = g_strdup_printf ("%s: corrupt or truncated gzip data after ", cut);
      g_autofree char *data = NULL;
      gsize len;
      GError *error;

      write_file (cpu_only, path);
      assert_true (g_file_get_contents (path, &data, &len, NULL));
      {
        const gsize cuts[] = { 5, 100, len / 2, len - 4 };
        for (guint j = 0; j < G_N_ELEMENTS (cuts); j++)
          {
            assert_true (g_file_set_contents (cut, data, (gssize) cuts[j], NULL));
            error = read_to_end (cut);
            if (error == NULL || strstr (error->message, needle) == NULL)
              fail_msg ("cut at %" G_GSIZE_FORMAT ": %s", cuts[j], error ? error->message : "no error");
            assert_int_equal (error->code, MDL_ERROR_FORMAT);
            g_error_free (error);
          }
      }
      for (gsize j = len / 3; j < len / 3 + 64; j++)
        data[j] = (char) ~data[j];
      assert_true (g_file_set_contents (cut, data, (gssize) len, NULL));
      error = read_to_end (cut);
      assert_non_null (error);
      assert_int_equal (error->domain, MDL_ERROR);
      assert_int_equal (error->code, MDL_ERROR_FORMAT);
      g_error_free (error);
      g_unlink (path);
      g_unlink (cut);
    }
  g_rmdir (dir);
  test_collector_free (cpu_only);
}

/* Compresses @len bytes as one gzip member. */
static GBytes *
gzip_member (const void *data, gsize len)
{
  GOutputStream *mem = g_memory_output_stream_new_resizable ();
  GZlibCompressor *z = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, 6);
  GOutputStream *out = g_converter_output_stream_new (mem, G_CONVERTER (z));
  GBytes *bytes;
  assert_true (g_output_stream_write_all (out, data, len, NULL, NULL, NULL));
  assert_true (g_output_stream_close (out, NULL, NULL));
  bytes = g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (mem));
  g_object_unref (out);
  g_object_unref (z);
  g_object_unref (mem);
  return bytes;
}

/* Ensure a gzip file of several members (what `gzip -c more >> t.gz`, pigz and bgzip make) is read
 * whole, member after member, and that bytes after the last member are an error rather than
 * ignored. */
static void
test_concatenated_gzip_members_are_read_whole (void **state)
{
  TestCollector *orig = make_stream (11, FALSE, TRUE);
  g_autofree char *dir = g_dir_make_tmp ("models-roundtrip-XXXXXX", NULL);
  g_autofree char *plain = g_build_filename (dir, "t.bin", NULL);
  g_autofree char *multi = g_build_filename (dir, "multi.bin.gz", NULL);
  g_autofree char *data = NULL;
  GByteArray *joined = g_byte_array_new ();
  gsize len;
  (void) state;

  write_file (orig, plain);
  assert_true (g_file_get_contents (plain, &data, &len, NULL));
  /* cut the trace at uneven places, so that members end inside records */
  for (gsize start = 0, step = 1; start < len; start += step, step = step * 7 + 13)
    {
      GBytes *member = gzip_member (data + start, MIN (step, len - start));
      g_byte_array_append (joined, g_bytes_get_data (member, NULL), (guint) g_bytes_get_size (member));
      g_bytes_unref (member);
    }
  assert_true (g_file_set_contents (multi, (const char *) joined->data, joined->len, NULL));
  {
    TestCollector *back = read_file (multi, "bin.gz");
    test_collector_assert_equal (orig, back);
    test_collector_free (back);
  }
  g_byte_array_append (joined, (const guint8 *) "junk", 4);
  assert_true (g_file_set_contents (multi, (const char *) joined->data, joined->len, NULL));
  {
    GError *error = read_to_end (multi);
    g_autofree char *needle = g_strdup_printf ("%s: corrupt or truncated gzip data after %" G_GSIZE_FORMAT
                                               " decompressed bytes (byte %u of the file): data after "
                                               "the end of the gzip stream", multi, len, joined->len - 4);
    assert_error_clear (error, MDL_ERROR_FORMAT, needle);
  }
  g_byte_array_unref (joined);
  g_unlink (plain);
  g_unlink (multi);
  g_rmdir (dir);
  test_collector_free (orig);
}

/* Ensure files that cannot be opened, created or recognised give MDL_ERROR_IO or the documented
 * MDL_ERROR_FORMAT message naming the file, and empty gzip input is not recognised either. */
static void
test_open_errors_name_the_file (void **state)
{
  g_autofree char *junk = test_write_temp ("junk.txt", "hello\n", 6);
  g_autofree char *empty = test_write_temp ("empty.bin", "", 0);
  g_autofree char *expect = g_strdup_printf ("cannot detect the format of %s (expected a binary "
                                             "trace starting with MDLTRACE, Valgrind Lackey text",
                                             junk);
  GError *error = NULL;
  (void) state;

  assert_null (mdl_trace_reader_open ("/nonexistent/t.bin", MDL_TRACE_AUTO, &error));
  assert_error_clear (error, MDL_ERROR_IO, "cannot open /nonexistent/t.bin: ");
  assert_null (mdl_trace_reader_open (junk, MDL_TRACE_AUTO, &error));
  assert_error_clear (error, MDL_ERROR_FORMAT, expect);
  assert_null (mdl_trace_reader_open (empty, MDL_TRACE_AUTO, &error));
  assert_error_clear (error, MDL_ERROR_FORMAT, ": it is empty");
  assert_null (mdl_trace_reader_open (empty, MDL_TRACE_BIN, &error));
  assert_error_clear (error, MDL_ERROR_FORMAT, "truncated header: 0 of 16 bytes");
  assert_null (mdl_trace_writer_open ("/nonexistent/dir/t.bin", MDL_TRACE_AUTO, &error));
  assert_error_clear (error, MDL_ERROR_IO, "cannot create /nonexistent/dir/t.bin: ");
  {
    /* an explicitly requested Lackey reader reads an empty file as an empty trace */
    MdlTraceReader *r = mdl_trace_reader_open (empty, MDL_TRACE_LACKEY, &error);
    TestCollector *c = test_collector_new ();
    MdlSink sink = test_collector_sink (c);
    gboolean done = FALSE;
    assert_non_null (r);
    assert_true (mdl_trace_reader_pump (r, &sink, 0, &done, &error));
    assert_true (done);
    assert_int_equal (c->order->len, 0);
    mdl_trace_reader_free (r);
    test_collector_free (c);
  }
}

/* Reads "-" with standard input redirected from @path; returns what was read. */
static TestCollector *
read_stdin_from (const char *path, gboolean compressed)
{
  int saved = dup (0), fd = open (path, O_RDONLY);
  GError *error = NULL;
  MdlTraceReader *r;
  TestCollector *back = test_collector_new ();
  MdlSink sink = test_collector_sink (back);
  gboolean done = FALSE;

  assert_true (saved >= 0 && fd >= 0 && dup2 (fd, 0) == 0);
  close (fd);
  r = mdl_trace_reader_open ("-", MDL_TRACE_AUTO, &error);
  if (r == NULL)
    fail_msg ("%s", error->message);
  while (!done)
    if (!mdl_trace_reader_pump (r, &sink, 0, &done, &error))
      fail_msg ("%s", error->message);
  assert_int_equal (mdl_trace_reader_compressed (r), compressed);
  mdl_trace_reader_free (r);
  dup2 (saved, 0);
  close (saved);
  return back;
}

/* Ensure "-" writes to standard output and reads from standard input (both redirected to files
 * here), gzip input included. */
static void
test_dash_means_stdin_and_stdout (void **state)
{
  TestCollector *orig = make_stream (13, FALSE, TRUE);
  g_autofree char *dir = g_dir_make_tmp ("models-roundtrip-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "stdout.bin", NULL);
  g_autofree char *gz = g_build_filename (dir, "stdout.bin.gz", NULL);
  g_autofree char *data = NULL;
  gsize len;
  int saved, fd;
  GError *error = NULL;
  gboolean ok;
  (void) state;

  fflush (stdout);
  saved = dup (1);
  fd = open (path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  assert_true (saved >= 0 && fd >= 0 && dup2 (fd, 1) == 1);
  close (fd);
  {
    MdlTraceWriter *w = mdl_trace_writer_open ("-", MDL_TRACE_AUTO, &error);
    MdlSink sink = mdl_trace_writer_sink (w);
    ok = test_collector_replay (orig, &sink, 500, &error) && mdl_trace_writer_close (w, &error);
    mdl_trace_writer_free (w);
  }
  dup2 (saved, 1);
  close (saved);
  if (!ok)
    fail_msg ("%s", error->message);

  assert_true (g_file_get_contents (path, &data, &len, NULL));
  {
    GBytes *member = gzip_member (data, len);
    assert_true (g_file_set_contents (gz, g_bytes_get_data (member, NULL),
                                      (gssize) g_bytes_get_size (member), NULL));
    g_bytes_unref (member);
  }
  for (guint i = 0; i < 2; i++)
    {
      TestCollector *back = read_stdin_from (i == 0 ? path : gz, i == 1);
      test_collector_assert_equal (orig, back);
      test_collector_free (back);
    }
  g_unlink (path);
  g_unlink (gz);
  g_rmdir (dir);
  test_collector_free (orig);
}

/* Ensure format names parse as they print, and an unknown one lists the valid names. */
static void
test_format_names (void **state)
{
  MdlTraceFormat f;
  GError *error = NULL;
  (void) state;
  for (MdlTraceFormat i = MDL_TRACE_AUTO; i <= MDL_TRACE_LACKEY; i++)
    {
      assert_true (mdl_trace_format_from_name (mdl_trace_format_name (i), &f, &error));
      assert_int_equal (f, i);
    }
  assert_null (mdl_trace_format_name ((MdlTraceFormat) 99));
  assert_false (mdl_trace_format_from_name ("binary", &f, &error));
  assert_error_clear (error, MDL_ERROR_UNKNOWN_NAME,
                      "unknown trace format \"binary\" (valid: auto, bin, lackey, din, raw");
}

static gboolean
drop_batch (void *data, const MdlEventBatch *batch, GError **error)
{
  (void) data, (void) batch, (void) error;
  return TRUE;
}

static gboolean
drop_marker (void *data, const MdlMarker *marker, GError **error)
{
  (void) data, (void) marker, (void) error;
  return TRUE;
}

/* Ensure every input that once broke a reader (tests/data/regress/, mostly found by the fuzzers)
 * now ends in success or an MDL_ERROR, with every format choice and in small pump steps. */
static void
test_regress_inputs_end_cleanly (void **state)
{
  g_autofree char *src = g_path_get_dirname (__FILE__);
  g_autofree char *dir_path = g_build_filename (src, "data", "regress", NULL);
  GDir *dir = g_dir_open (dir_path, 0, NULL);
  const char *name;
  MdlSink sink = { drop_batch, drop_marker, NULL };
  guint n_files = 0;
  (void) state;

  if (dir == NULL)
    fail_msg ("cannot open %s (run the tests from the source root)", dir_path);
  while ((name = g_dir_read_name (dir)) != NULL)
    for (MdlTraceFormat f = MDL_TRACE_AUTO; f <= MDL_TRACE_LACKEY; f++)
      for (guint64 budget = 0; budget < 3; budget += 2)
        {
          g_autofree char *path = g_build_filename (dir_path, name, NULL);
          GError *error = NULL;
          MdlTraceReader *r = mdl_trace_reader_open (path, f, &error);
          gboolean done = FALSE;
          while (r && !done && mdl_trace_reader_pump (r, &sink, budget, &done, &error))
            ;
          if (error && error->domain != MDL_ERROR)
            fail_msg ("%s (%s): error outside MDL_ERROR: %s", name, mdl_trace_format_name (f),
                      error->message);
          if (error == NULL && !done)
            fail_msg ("%s (%s): neither done nor failed", name, mdl_trace_format_name (f));
          g_clear_error (&error);
          mdl_trace_reader_free (r);
          n_files += f == MDL_TRACE_AUTO && budget == 0;
        }
  g_dir_close (dir);
  assert_true (n_files > 0);
}

/* ---- round trips as a property: thousands of small random streams in every format ---- */

/* Phase and site names: plain, with spaces and UTF-8, and the longest allowed. */
static const char *
random_name (GRand *rand)
{
  static char longest[MDL_NAME_MAX + 1];
  static const char *const names[] = { "a", "pass 1", "σ-merge ≤ k", "sort/partition", longest };
  if (longest[0] == '\0')
    memset (longest, 'n', MDL_NAME_MAX);
  return names[g_rand_int_range (rand, 0, G_N_ELEMENTS (names))];
}

/* One random warp instruction of @launch (warp width @width) into @c, with its lane addresses
 * either strided or explicit. */
static void
add_random_warp (GRand *rand, guint32 launch, guint width, TestCollector *c)
{
  MdlSink sink = test_collector_sink (c);
  guint64 lanes[MDL_WARP_MAX_LANES];
  guint n = 0;
  guint64 mask = width == 64 ? G_MAXUINT64 : ((guint64) 1 << width) - 1;
  MdlWarpEvent w = { .launch = launch, .block = g_rand_int (rand),
                     .warp = (guint16) g_rand_int (rand), .site = (guint16) g_rand_int (rand),
                     .op = (guint8) g_rand_int_range (rand, 0, MDL_WARP_N_OPS) };
  GError *error = NULL;

  /* a full warp, one lane, or a random subset */
  switch (g_rand_int_range (rand, 0, 3))
    {
    case 0: w.active = mask; break;
    case 1: w.active = (guint64) 1 << g_rand_int_range (rand, 0, (gint32) width); break;
    default: w.active = rand64 (rand) & mask; break;
    }
  if (w.active == 0)
    w.active = 1;
  if (g_rand_boolean (rand))
    w.flags = MDL_WARP_MACHINE;
  if (w.op == MDL_WARP_BRANCH)
    w.taken = w.active & rand64 (rand);
  if (mdl_warp_is_memory (&w))
    {
      w.space = (guint8) g_rand_int_range (rand, 1, MDL_SPACE_N);
      w.width = (guint16) g_rand_int_range (rand, 1, 65);
      if (g_rand_boolean (rand))
        {
          w.flags |= MDL_WARP_STRIDED;
          w.base = rand64 (rand);
          w.stride = (gint64) (rand64 (rand) % (2 * (guint64) MDL_WARP_STRIDE_MAX + 1))
                     - MDL_WARP_STRIDE_MAX;
          if (g_rand_boolean (rand))
            w.stride = g_rand_int_range (rand, -64, 65);
        }
      else
        for (guint64 m = w.active; m; m &= m - 1)
          lanes[n++] = rand64 (rand) >> g_rand_int_range (rand, 0, 64);
    }
  assert_true (sink.batch (sink.data, &(MdlEventBatch) { .warp = &w, .n_warp = 1,
                                                          .lane_addrs = lanes, .n_lane_addrs = n },
                           &error));
}

/* A small random stream of everything: runs of CPU records of every kind, nested phases, site
 * names, launches of random warp widths with warp instructions, barriers and syncs; every phase
 * is closed at the end. */
static TestCollector *
random_stream (guint32 seed)
{
  GRand *rand = g_rand_new_with_seed (seed);
  TestCollector *c = test_collector_new ();
  MdlSink sink = test_collector_sink (c);
  GPtrArray *open = g_ptr_array_new ();
  guint32 launch = 0;
  guint width = MDL_WARP_MAX_LANES;   /* before any launch marker */
  guint steps = (guint) g_rand_int_range (rand, 0, 40);
  GError *error = NULL;

  for (guint s = 0; s < steps; s++)
    {
      MdlMarker m = { .kind = MDL_MARK_SYNC };
      switch (g_rand_int_range (rand, 0, 9))
        {
        case 0: case 1: case 2:
          {
            MdlCpuEvent e[12];
            guint k = (guint) g_rand_int_range (rand, 1, G_N_ELEMENTS (e) + 1);
            for (guint i = 0; i < k; i++)
              {
                guint kind = (guint) g_rand_int_range (rand, 0, MDL_CPU_N_KINDS);
                e[i] = (MdlCpuEvent) { .kind = (guint8) kind, .thread = (guint16) g_rand_int (rand),
                                       .site = (guint16) g_rand_int (rand) };
                if (kind == MDL_CPU_OPS)
                  e[i].addr = (guint64) g_rand_int_range (rand, 0, 300);
                else if (kind == MDL_CPU_BRANCH)
                  {
                    e[i].addr = rand64 (rand);
                    e[i].flags = g_rand_boolean (rand) ? MDL_CPU_FLAG_TAKEN : 0;
                  }
                else
                  {
                    e[i].size = (guint16) g_rand_int_range (rand, 1, 65536);
                    e[i].addr = rand64 (rand) >> g_rand_int_range (rand, 0, 64);
                    if (kind == MDL_CPU_READ && g_rand_boolean (rand))
                      e[i].flags = MDL_CPU_FLAG_DEPENDENT;
                  }
              }
            assert_true (sink.batch (sink.data, &(MdlEventBatch) { .cpu = e, .n_cpu = k }, &error));
            continue;
          }
        case 3:
          for (guint i = g_rand_int_range (rand, 1, 6); i > 0; i--)
            add_random_warp (rand, launch, width, c);
          continue;
        case 4:
          m = (MdlMarker) { .kind = MDL_MARK_LAUNCH, .grid_blocks = g_rand_int (rand),
                            .block_threads = g_rand_int (rand), .shared_bytes = g_rand_int (rand),
                            .warp_width = (guint32) g_rand_int_range (rand, 1, MDL_WARP_MAX_LANES + 1) };
          if (g_rand_boolean (rand))
            m.warp_width = 32;
          launch = m.launch = launch + (guint32) g_rand_int_range (rand, 0, 3);
          width = m.warp_width;
          break;
        case 5:
          m = (MdlMarker) { .kind = MDL_MARK_BARRIER, .launch = launch, .block = g_rand_int (rand) };
          break;
        case 6:
          m = (MdlMarker) { .kind = MDL_MARK_PHASE_BEGIN, .name = random_name (rand) };
          g_ptr_array_add (open, (gpointer) m.name);
          break;
        case 7:
          if (open->len == 0)
            continue;
          m = (MdlMarker) { .kind = MDL_MARK_PHASE_END, .name = g_ptr_array_steal_index (open, open->len - 1) };
          break;
        default:
          if (g_rand_boolean (rand))
            m = (MdlMarker) { .kind = MDL_MARK_SITE, .site = (guint16) g_rand_int (rand),
                              .name = random_name (rand) };
        }
      assert_true (sink.marker (sink.data, &m, &error));
    }
  while (open->len > 0)
    {
      MdlMarker m = { .kind = MDL_MARK_PHASE_END,
                      .name = g_ptr_array_steal_index (open, open->len - 1) };
      assert_true (sink.marker (sink.data, &m, &error));
    }
  g_ptr_array_unref (open);
  g_rand_free (rand);
  return c;
}

/* What each format carries, from docs/trace-format.md:
 *  - bin: everything;
 *  - lackey: CPU accesses with kind, address and size (no thread, no site, no dependent flag:
 *    such a read is written as a plain one), and op counts as
 *    instruction lines, so consecutive counts read back as their sum and a count of 0 vanishes;
 *    no markers and no branch records (dropped and counted by the writer), no warp instructions
 *    (refused, so the writer is not given them);
 *  - din: as Lackey, but a modify is written as a read and a write of the same bytes;
 *  - warp: warp instructions without site ids (the strided form becomes explicit addresses, which
 *    the comparison cannot tell apart), launch, barrier and sync markers; phases and site names
 *    dropped and counted; no CPU events (not given).
 * Raw address arrays have a reader and no writer, so they have no round trip. */
typedef struct {
  MdlTraceFormat format;
  gboolean cpu, warp;
} Carries;

static const Carries carried[] = {
  { MDL_TRACE_BIN, TRUE, TRUE },
  { MDL_TRACE_LACKEY, TRUE, FALSE },
  { MDL_TRACE_DIN, TRUE, FALSE },
  { MDL_TRACE_WARP, FALSE, TRUE },
};

/* Splits @orig into what the writer of @f is given (*@input: the events it can carry and every
 * marker) and what its reader must give back (*@expect); *@n_dropped: markers it must drop. */
static void
project (const TestCollector *orig, const Carries *f, TestCollector **input, TestCollector **expect,
         guint64 *n_dropped)
{
  TestCollector *in = test_collector_new (), *out = test_collector_new ();
  MdlSink in_sink = test_collector_sink (in), out_sink = test_collector_sink (out);
  MdlEventBatch lanes = { .lane_addrs = (const guint64 *) (void *) orig->lane_addrs->data,
                          .n_lane_addrs = orig->lane_addrs->len };
  guint ci = 0, wi = 0, mi = 0;
  guint64 ops = 0;
  GError *error = NULL;

  *n_dropped = 0;
  for (const char *k = orig->order->str; *k; k++)
    {
      if (*k == 'c')
        {
          MdlCpuEvent e = g_array_index (orig->cpu, MdlCpuEvent, ci++);
          MdlCpuEvent pair[2];
          guint n = 1;
          if (!f->cpu)
            continue;
          assert_true (in_sink.batch (in, &(MdlEventBatch) { .cpu = &e, .n_cpu = 1 }, &error));
          if (f->format != MDL_TRACE_BIN)
            {
              e.thread = e.site = 0;
              /* A text line has no place for them. */
              e.flags &= (guint8) ~(MDL_CPU_FLAG_DEPENDENT | MDL_CPU_FLAG_CHASE);
              if (e.kind == MDL_CPU_OPS)
                {
                  ops += e.addr;
                  continue;
                }
              if (e.kind == MDL_CPU_BRANCH)
                {
                  (*n_dropped)++;
                  continue;
                }
            }
          if (ops > 0)
            {
              MdlCpuEvent o = { .kind = MDL_CPU_OPS, .addr = ops };
              assert_true (out_sink.batch (out, &(MdlEventBatch) { .cpu = &o, .n_cpu = 1 }, &error));
              ops = 0;
            }
          pair[0] = e;
          if (f->format == MDL_TRACE_DIN && e.kind == MDL_CPU_MODIFY)
            {
              pair[0].kind = MDL_CPU_READ;
              pair[1] = e;
              pair[1].kind = MDL_CPU_WRITE;
              n = 2;
            }
          assert_true (out_sink.batch (out, &(MdlEventBatch) { .cpu = pair, .n_cpu = n }, &error));
        }
      else if (*k == 'w')
        {
          MdlWarpEvent w = g_array_index (orig->warp, MdlWarpEvent, wi++);
          MdlEventBatch one = lanes;
          if (!f->warp)
            continue;
          one.warp = &w;
          one.n_warp = 1;
          assert_true (in_sink.batch (in, &one, &error));
          if (f->format == MDL_TRACE_WARP)
            w.site = 0;
          assert_true (out_sink.batch (out, &one, &error));
        }
      else
        {
          const TestMarker *t = g_ptr_array_index (orig->markers, mi++);
          gboolean kept = f->format == MDL_TRACE_BIN
                          || (f->format == MDL_TRACE_WARP && t->marker.kind <= MDL_MARK_SYNC);
          assert_true (in_sink.marker (in, &t->marker, &error));
          if (kept)
            assert_true (out_sink.marker (out, &t->marker, &error));
          *n_dropped += !kept;
        }
    }
  if (ops > 0)
    {
      MdlCpuEvent o = { .kind = MDL_CPU_OPS, .addr = ops };
      assert_true (out_sink.batch (out, &(MdlEventBatch) { .cpu = &o, .n_cpu = 1 }, &error));
    }
  *input = in;
  *expect = out;
}

/* Where two collections first differ, or NULL when they hold the same stream (transfer full).
 * Warp flags are compared except MDL_WARP_STRIDED: the same addresses may be stored either way. */
static char *
stream_diff (const TestCollector *a, const TestCollector *b)
{
  MdlEventBatch la = { .lane_addrs = (const guint64 *) (void *) a->lane_addrs->data,
                       .n_lane_addrs = a->lane_addrs->len };
  MdlEventBatch lb = { .lane_addrs = (const guint64 *) (void *) b->lane_addrs->data,
                       .n_lane_addrs = b->lane_addrs->len };
  if (strcmp (a->order->str, b->order->str) != 0)
    return g_strdup_printf ("the order of events differs: expected \"%s\", read \"%s\"",
                            a->order->str, b->order->str);
  for (guint i = 0; i < a->cpu->len; i++)
    {
      const MdlCpuEvent *x = &g_array_index (a->cpu, MdlCpuEvent, i);
      const MdlCpuEvent *y = &g_array_index (b->cpu, MdlCpuEvent, i);
      if (memcmp (x, y, sizeof *x) != 0)
        return g_strdup_printf ("CPU event %u: expected kind %u size %u thread %u site %u addr %"
                                G_GINT64_MODIFIER "x, read kind %u size %u thread %u site %u addr %"
                                G_GINT64_MODIFIER "x", i, x->kind, x->size, x->thread, x->site,
                                x->addr, y->kind, y->size, y->thread, y->site, y->addr);
    }
  for (guint i = 0; i < a->warp->len; i++)
    {
      const MdlWarpEvent *x = &g_array_index (a->warp, MdlWarpEvent, i);
      const MdlWarpEvent *y = &g_array_index (b->warp, MdlWarpEvent, i);
      guint64 ax[MDL_WARP_MAX_LANES] = { 0 }, ay[MDL_WARP_MAX_LANES] = { 0 };
      if (x->active != y->active || x->taken != y->taken || x->launch != y->launch
          || x->block != y->block || x->warp != y->warp || x->width != y->width
          || x->site != y->site || x->op != y->op || x->space != y->space
          || (x->flags & ~MDL_WARP_STRIDED) != (y->flags & ~MDL_WARP_STRIDED))
        return g_strdup_printf ("warp event %u differs outside its addresses", i);
      if (mdl_warp_is_memory (x))
        {
          mdl_warp_addrs (&la, x, ax);
          mdl_warp_addrs (&lb, y, ay);
          if (memcmp (ax, ay, sizeof ax) != 0)
            return g_strdup_printf ("warp event %u: lane addresses differ", i);
        }
    }
  for (guint i = 0; i < a->markers->len; i++)
    {
      const TestMarker *x = g_ptr_array_index (a->markers, i);
      const TestMarker *y = g_ptr_array_index (b->markers, i);
      if (x->marker.kind != y->marker.kind || x->marker.launch != y->marker.launch
          || x->marker.block != y->marker.block || x->marker.grid_blocks != y->marker.grid_blocks
          || x->marker.block_threads != y->marker.block_threads
          || x->marker.shared_bytes != y->marker.shared_bytes
          || x->marker.warp_width != y->marker.warp_width || x->marker.site != y->marker.site
          || strcmp (x->name, y->name) != 0)
        return g_strdup_printf ("marker %u (%s) differs", i, mdl_marker_kind_name (x->marker.kind));
    }
  return NULL;
}

/* Writes @in as @format into memory (gzip-compressed when @gzip), reads it back with the format
 * named, and returns what was read; fails naming @seed on any error. */
static TestCollector *
memory_round_trip (const TestCollector *in, MdlTraceFormat format, gboolean gzip, guint32 seed,
                   guint64 *n_dropped)
{
  GOutputStream *mem = g_memory_output_stream_new_resizable ();
  MdlTraceWriter *w = mdl_trace_writer_new (mem, "mem", format, gzip);
  MdlSink sink = mdl_trace_writer_sink (w);
  TestCollector *back = test_collector_new ();
  MdlSink back_sink = test_collector_sink (back);
  GError *error = NULL;
  GBytes *bytes;
  GInputStream *src;
  MdlTraceReader *r;
  gboolean done = FALSE;
  /* small batches, so that runs and markers interleave as a real source delivers them */
  guint batch = 1 + seed % 5;

  if (!test_collector_replay (in, &sink, batch, &error) || !mdl_trace_writer_close (w, &error))
    fail_msg ("seed %u, %s%s: writing: %s", seed, mdl_trace_format_name (format),
              gzip ? ".gz" : "", error->message);
  *n_dropped = mdl_trace_writer_n_dropped (w);
  mdl_trace_writer_free (w);
  bytes = g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (mem));
  g_object_unref (mem);
  src = g_memory_input_stream_new_from_bytes (bytes);
  r = mdl_trace_reader_new (src, "mem", format, &error);
  /* pump in random-sized steps, as the CLI does with its progress line */
  while (r && !done && mdl_trace_reader_pump (r, &back_sink, 1 + seed % 7, &done, &error))
    ;
  if (error)
    fail_msg ("seed %u, %s%s: reading back: %s", seed, mdl_trace_format_name (format),
              gzip ? ".gz" : "", error->message);
  assert_int_equal (mdl_trace_reader_compressed (r), gzip);
  mdl_trace_reader_free (r);
  g_object_unref (src);
  g_bytes_unref (bytes);
  return back;
}

/* Ensure that for thousands of seeds a random stream of CPU records, warp instructions, launches,
 * barriers, syncs, nested phases and site names, written in every format (plain and gzip) and
 * read back, gives exactly what that format carries (see `carried` above): everything for bin,
 * the documented projection for Lackey, din and warp text, with every marker the format cannot
 * carry counted as dropped. */
static void
test_random_streams_round_trip_in_every_format (void **state)
{
  guint32 first = test_seed (1);
  const char *count_text = g_getenv ("MODELS_TEST_SEEDS");
  guint32 n_seeds = count_text ? (guint32) g_ascii_strtoull (count_text, NULL, 10) : 2000;
  guint64 n_events = 0;
  (void) state;

  print_message ("round trips of seeds %u..%u (MODELS_TEST_SEED, MODELS_TEST_SEEDS)\n", first,
                 first + n_seeds - 1);
  for (guint32 seed = first; seed < first + n_seeds; seed++)
    {
      TestCollector *orig = random_stream (seed);
      n_events += orig->order->len;
      for (guint f = 0; f < G_N_ELEMENTS (carried); f++)
        for (guint gz = 0; gz < 2; gz++)
          {
            TestCollector *input, *expect, *back;
            guint64 dropped, expect_dropped;
            g_autofree char *why = NULL;
            project (orig, &carried[f], &input, &expect, &expect_dropped);
            back = memory_round_trip (input, carried[f].format, gz, seed, &dropped);
            why = stream_diff (expect, back);
            if (why)
              fail_msg ("seed %u, %s%s: %s", seed, mdl_trace_format_name (carried[f].format),
                        gz ? ".gz" : "", why);
            if (dropped != expect_dropped)
              fail_msg ("seed %u, %s: %" G_GUINT64_FORMAT " records dropped, expected %"
                        G_GUINT64_FORMAT, seed, mdl_trace_format_name (carried[f].format),
                        dropped, expect_dropped);
            test_collector_free (input);
            test_collector_free (expect);
            test_collector_free (back);
          }
      test_collector_free (orig);
    }
  /* the generator must not have degenerated into empty streams */
  assert_true (n_events > 20 * (guint64) n_seeds);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_every_pair_of_formats_round_trips),
    cmocka_unit_test (test_lackey_file_drops_and_counts_markers),
    cmocka_unit_test (test_damaged_gzip_is_a_format_error),
    cmocka_unit_test (test_concatenated_gzip_members_are_read_whole),
    cmocka_unit_test (test_open_errors_name_the_file),
    cmocka_unit_test (test_dash_means_stdin_and_stdout),
    cmocka_unit_test (test_format_names),
    cmocka_unit_test (test_regress_inputs_end_cleanly),
    cmocka_unit_test (test_random_streams_round_trip_in_every_format),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
