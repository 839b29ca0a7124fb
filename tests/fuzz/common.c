/* Shared part of the libFuzzer targets (common.h). */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

const MdlSink fuzz_drop = { drop_batch, drop_marker, NULL };

gint64
fuzz_read (const void *data, gsize size, MdlTraceFormat format, guint64 budget, gboolean fetches,
           const MdlSink *sink)
{
  GInputStream *in = g_memory_input_stream_new_from_data (data, (gssize) size, NULL);
  GError *error = NULL;
  MdlTraceReader *r = mdl_trace_reader_new (in, "fuzz", format, &error);
  gboolean done = FALSE;
  gint64 n = -1;

  if (r)
    mdl_trace_reader_set_fetches (r, fetches);
  while (r && !done && mdl_trace_reader_pump (r, sink, budget, &done, &error))
    ;
  g_clear_error (&error);
  if (done)
    n = (gint64) mdl_trace_reader_n_records (r);
  mdl_trace_reader_free (r);
  g_object_unref (in);
  return n;
}

typedef struct {
  GArray *records;
  gboolean keep_ops, split_modifies;
} Keep;

static gboolean
keep_batch (void *data, const MdlEventBatch *batch, GError **error)
{
  Keep *k = data;
  (void) error;
  for (gsize i = 0; i < batch->n_cpu; i++)
    {
      MdlCpuEvent e = batch->cpu[i];
      if (e.kind == MDL_CPU_OPS && !k->keep_ops)
        continue;
      if (e.kind == MDL_CPU_MODIFY && k->split_modifies)
        {
          e.kind = MDL_CPU_READ;
          g_array_append_val (k->records, e);
          e.kind = MDL_CPU_WRITE;
        }
      g_array_append_val (k->records, e);
    }
  return TRUE;
}

static GBytes *
write_records (GArray *records, MdlTraceFormat format)
{
  GOutputStream *out = g_memory_output_stream_new_resizable ();
  MdlTraceWriter *w = mdl_trace_writer_new (out, "fuzz-out", format, FALSE);
  MdlSink sink = mdl_trace_writer_sink (w);
  MdlEventBatch batch = { .cpu = (const MdlCpuEvent *) (void *) records->data,
                          .n_cpu = records->len };
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

void
fuzz_text_round_trip (const void *data, gsize size, MdlTraceFormat format, gboolean fetches,
                      gboolean keep_ops, gboolean split_modifies)
{
  Keep first = { g_array_new (FALSE, FALSE, sizeof (MdlCpuEvent)), keep_ops, FALSE };
  Keep second = { g_array_new (FALSE, FALSE, sizeof (MdlCpuEvent)), keep_ops, FALSE };
  MdlSink to_first = { keep_batch, drop_marker, &first };
  MdlSink to_second = { keep_batch, drop_marker, &second };

  if (fuzz_read (data, size, format, 0, fetches, &to_first) >= 0)
    {
      /* Written as they came; compared after splitting, as the writer does. */
      GBytes *text = write_records (first.records, format);
      GArray *want = g_array_new (FALSE, FALSE, sizeof (MdlCpuEvent));
      Keep split = { want, TRUE, split_modifies };
      MdlEventBatch all = { .cpu = (const MdlCpuEvent *) (void *) first.records->data,
                            .n_cpu = first.records->len };
      keep_batch (&split, &all, NULL);
      if (fuzz_read (g_bytes_get_data (text, NULL), g_bytes_get_size (text), format, 0, fetches,
                     &to_second) < 0
          || second.records->len != want->len
          || (want->len > 0
              && memcmp (want->data, second.records->data, want->len * sizeof (MdlCpuEvent)) != 0))
        {
          fprintf (stderr, "accepted records did not survive a %s round trip\n",
                   mdl_trace_format_name (format));
          abort ();
        }
      g_array_unref (want);
      g_bytes_unref (text);
    }
  g_array_unref (first.records);
  g_array_unref (second.records);
}
