/* libFuzzer target: the binary trace reader (src/traces/reader-bin.c) on arbitrary bytes.
 *
 * Besides "no crash, no leak, no undefined behaviour", it checks one property: whatever the reader
 * accepts, the binary writer writes, and the reader accepts that again with the same number of
 * records. The input is read as MDL_TRACE_BIN in one pump call (straight into a writer), and as
 * MDL_TRACE_AUTO in pump calls of two records, so that detection and the budget logic see every
 * input too. */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>

/* Hands events on to a writer's sink and aborts if the writer refuses one the reader accepted. */
static gboolean
check_batch (void *data, const MdlEventBatch *batch, GError **error)
{
  const MdlSink *writer = data;
  if (!writer->batch (writer->data, batch, error))
    {
      fprintf (stderr, "the writer refused a batch the reader accepted: %s\n", (*error)->message);
      abort ();
    }
  return TRUE;
}

static gboolean
check_marker (void *data, const MdlMarker *marker, GError **error)
{
  const MdlSink *writer = data;
  if (!writer->marker (writer->data, marker, error))
    {
      fprintf (stderr, "the writer refused a marker the reader accepted: %s\n", (*error)->message);
      abort ();
    }
  return TRUE;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  GOutputStream *out = g_memory_output_stream_new_resizable ();
  MdlTraceWriter *w = mdl_trace_writer_new (out, "fuzz-out", MDL_TRACE_BIN, FALSE);
  MdlSink writer_sink = mdl_trace_writer_sink (w);
  MdlSink to_writer = { check_batch, check_marker, &writer_sink };
  gint64 n = fuzz_read (data, size, MDL_TRACE_BIN, 0, FALSE, &to_writer);
  GError *error = NULL;

  if (n >= 0)
    {
      gint64 again;
      if (!mdl_trace_writer_close (w, &error))
        {
          fprintf (stderr, "an accepted trace could not be written: %s\n", error->message);
          abort ();
        }
      again = fuzz_read (g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (out)),
                         g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (out)),
                         MDL_TRACE_BIN, 0, FALSE, &fuzz_drop);
      if (again != n)
        {
          fprintf (stderr, "an accepted trace of %" G_GINT64_FORMAT " records was written and read "
                   "back as %" G_GINT64_FORMAT "\n", n, again);
          abort ();
        }
    }
  mdl_trace_writer_free (w);
  g_object_unref (out);
  if (fuzz_read (data, size, MDL_TRACE_AUTO, 2, FALSE, &fuzz_drop) != n && n >= 0)
    {
      fprintf (stderr, "detected and read in steps, an accepted trace gives another result\n");
      abort ();
    }
  return 0;
}
