/* libFuzzer target: the Dinero din reader (src/traces/reader-din.c) and the raw address reader
 * (reader-raw.c) on arbitrary bytes.
 *
 * Besides "no crash, no leak, no undefined behaviour", it checks one property: whatever the din
 * reader accepts (fetches kept), the din writer writes, and the reader reads back as the same
 * accesses and fetches (op counts are not written, and come back only from the fetches). The
 * input is also read as MDL_TRACE_AUTO and MDL_TRACE_RAW in pump calls of one record. */
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <gio/gio.h>
#include <models/models.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* Keeps the accesses and fetches, not the op counts. */
static gboolean
keep_batch (void *data, const MdlEventBatch *batch, GError **error)
{
  (void) error;
  for (gsize i = 0; data && i < batch->n_cpu; i++)
    if (batch->cpu[i].kind != MDL_CPU_OPS)
      g_array_append_val ((GArray *) data, batch->cpu[i]);
  return TRUE;
}

static gboolean
drop_marker (void *data, const MdlMarker *marker, GError **error)
{
  (void) data, (void) marker, (void) error;
  return TRUE;
}

static gboolean
read_all (const void *data, gsize size, MdlTraceFormat format, guint64 budget, GArray *keep)
{
  GInputStream *in = g_memory_input_stream_new_from_data (data, (gssize) size, NULL);
  GError *error = NULL;
  MdlTraceReader *r = mdl_trace_reader_new (in, "fuzz", format, &error);
  MdlSink sink = { keep_batch, drop_marker, keep };
  gboolean done = FALSE;

  if (r)
    mdl_trace_reader_set_fetches (r, TRUE);
  while (r && !done && mdl_trace_reader_pump (r, &sink, budget, &done, &error))
    ;
  g_clear_error (&error);
  mdl_trace_reader_free (r);
  g_object_unref (in);
  return done;
}

/* A modify is written as a read and a write: expand them, to compare with what comes back. */
static void
expand_modifies (GArray *a)
{
  GArray *b = g_array_new (FALSE, FALSE, sizeof (MdlCpuEvent));
  for (guint i = 0; i < a->len; i++)
    {
      MdlCpuEvent e = g_array_index (a, MdlCpuEvent, i);
      if (e.kind == MDL_CPU_MODIFY)
        {
          e.kind = MDL_CPU_READ;
          g_array_append_val (b, e);
          e.kind = MDL_CPU_WRITE;
        }
      g_array_append_val (b, e);
    }
  g_array_set_size (a, 0);
  g_array_append_vals (a, b->data, b->len);
  g_array_unref (b);
}

static GBytes *
write_din (GArray *records)
{
  GOutputStream *out = g_memory_output_stream_new_resizable ();
  MdlTraceWriter *w = mdl_trace_writer_new (out, "fuzz-out", MDL_TRACE_DIN, FALSE);
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

  if (read_all (data, size, MDL_TRACE_DIN, 0, first))
    {
      GBytes *text = write_din (first);
      expand_modifies (first);
      if (!read_all (g_bytes_get_data (text, NULL), g_bytes_get_size (text), MDL_TRACE_DIN, 0,
                     second)
          || second->len != first->len
          || (first->len > 0
              && memcmp (first->data, second->data, first->len * sizeof (MdlCpuEvent)) != 0))
        {
          fprintf (stderr, "accepted records did not survive a din round trip\n");
          abort ();
        }
      g_bytes_unref (text);
    }
  read_all (data, size, MDL_TRACE_AUTO, 1, NULL);
  read_all (data, size, MDL_TRACE_RAW, 1, NULL);
  g_array_unref (first);
  g_array_unref (second);
  return 0;
}
