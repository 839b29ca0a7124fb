/* libFuzzer target: the Valgrind Lackey reader (src/traces/reader-lackey.c) on arbitrary bytes.
 *
 * Besides "no crash, no leak, no undefined behaviour", it checks one property: whatever the reader
 * accepts, the Lackey writer writes, and the reader reads back as the same records (Lackey text is
 * canonical after one round: banners and instruction addresses are gone, op runs are merged). The
 * input is also read as MDL_TRACE_AUTO in pump calls of one record, so that detection and the
 * budget logic see every input. */
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <gio/gio.h>
#include <models/models.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static gboolean
keep_batch (void *data, const MdlEventBatch *batch, GError **error)
{
  (void) error;
  if (data)
    g_array_append_vals (data, batch->cpu, (guint) batch->n_cpu);
  return TRUE;
}

static gboolean
drop_marker (void *data, const MdlMarker *marker, GError **error)
{
  (void) data, (void) marker, (void) error;
  return TRUE;
}

/* Reads @data as @format, appending CPU records to @keep (may be NULL); FALSE when refused. */
static gboolean
read_all (const void *data, gsize size, MdlTraceFormat format, guint64 budget, GArray *keep)
{
  GInputStream *in = g_memory_input_stream_new_from_data (data, (gssize) size, NULL);
  GError *error = NULL;
  MdlTraceReader *r = mdl_trace_reader_new (in, "fuzz", format, &error);
  MdlSink sink = { keep_batch, drop_marker, keep };
  gboolean done = FALSE;

  while (r && !done && mdl_trace_reader_pump (r, &sink, budget, &done, &error))
    ;
  g_clear_error (&error);
  mdl_trace_reader_free (r);
  g_object_unref (in);
  return done;
}

/* Writes @records as Lackey text; returns the bytes. */
static GBytes *
write_lackey (GArray *records)
{
  GOutputStream *out = g_memory_output_stream_new_resizable ();
  MdlTraceWriter *w = mdl_trace_writer_new (out, "fuzz-out", MDL_TRACE_LACKEY, FALSE);
  MdlSink sink = mdl_trace_writer_sink (w);
  MdlEventBatch batch = { .cpu = (const MdlCpuEvent *) (void *) records->data, .n_cpu = records->len };
  GError *error = NULL;
  GBytes *bytes;

  if (!sink.batch (sink.data, &batch, &error) || !mdl_trace_writer_close (w, &error))
    {
      fprintf (stderr, "accepted records could not be written: %s\n", error->message);
      abort ();
    }
  mdl_trace_writer_free (w);
  bytes = g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (out));
  g_object_unref (out);
  return bytes;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  GArray *first = g_array_new (FALSE, FALSE, sizeof (MdlCpuEvent));
  GArray *second = g_array_new (FALSE, FALSE, sizeof (MdlCpuEvent));
  gboolean ok = read_all (data, size, MDL_TRACE_LACKEY, 0, first);

  if (ok)
    {
      GBytes *text = write_lackey (first);
      if (!read_all (g_bytes_get_data (text, NULL), g_bytes_get_size (text), MDL_TRACE_LACKEY, 0,
                     second)
          || second->len != first->len
          || (first->len > 0
              && memcmp (first->data, second->data, first->len * sizeof (MdlCpuEvent)) != 0))
        {
          fprintf (stderr, "accepted records did not survive a Lackey round trip\n");
          abort ();
        }
      g_bytes_unref (text);
    }
  read_all (data, size, MDL_TRACE_AUTO, 1, NULL);
  g_array_unref (first);
  g_array_unref (second);
  return 0;
}
