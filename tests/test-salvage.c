/* Traces of runs that die (src/traces/reader.c, reader-bin.c; `models convert --salvage`; SIGINT of
 * `models run` and `models trace`): a binary trace cut at any byte is reported as truncated at the
 * record that was cut, and salvage gives back exactly the records before it, with the phases still
 * open closed; gzip data cut anywhere ends at a record too. The CLI tests kill real runs at random
 * moments ($MODELS_BIN, default build/bin/models). Record sizes come from docs/trace-format.md. */
#include "helpers.h"

#include <signal.h>
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
 * each record in @sizes. Phases are left open at the end when @leave_open. */
static TestCollector *
sized_stream (guint32 seed, gboolean leave_open, GArray *sizes)
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
  while (!leave_open && depth > 0)
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
  TestCollector *orig = sized_stream (seed, FALSE, sizes);
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
  TestCollector *orig = sized_stream (seed, TRUE, sizes);
  GBytes *bytes = write_bin (orig, TRUE);
  gsize len;
  const guint8 *data = g_bytes_get_data (bytes, &len);
  guint last = 0;
  (void) state;

  /* The gzip header is 10 bytes: a cut inside it leaves nothing to salvage. */
  for (gsize cut = 10; cut < len; cut++)
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
      /* what came back is a prefix of n records with the phases closed: find n from the CPU,
       * warp and marker counts, then compare the whole prefix */
      for (n = 0; n <= orig->order->len; n++)
        {
          TestCollector *expect = prefix_closed (orig, n);
          gboolean same = strcmp (expect->order->str, back->order->str) == 0;
          if (same)
            test_collector_assert_equal (expect, back);
          test_collector_free (expect);
          if (same)
            break;
        }
      if (n > orig->order->len)
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

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_cut_binary_trace_names_the_record_and_salvages_the_rest),
    cmocka_unit_test (test_cut_gzip_trace_salvages_a_growing_prefix),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
