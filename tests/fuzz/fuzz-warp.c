/* libFuzzer target: the warp text reader (src/traces/reader-warp.c) on arbitrary bytes.
 *
 * Besides "no crash, no leak, no undefined behaviour", it checks one property: whatever the reader
 * accepts, the warp text writer writes, and the reader reads back as the same launches, barriers,
 * syncs and warp instructions, lane by lane. Reading in pump calls of one record, and with format
 * detection, must accept exactly what one call accepts. */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Events go to the log and to a warp writer, which must take every one the reader accepted. */
typedef struct {
  MdlSink log, writer;
} Tee;

static gboolean
tee_batch (void *data, const MdlEventBatch *batch, GError **error)
{
  Tee *t = data;
  t->log.batch (t->log.data, batch, error);
  if (!t->writer.batch (t->writer.data, batch, error))
    {
      fprintf (stderr, "the warp writer refused a batch the reader accepted: %s\n",
               (*error)->message);
      abort ();
    }
  return TRUE;
}

static gboolean
tee_marker (void *data, const MdlMarker *marker, GError **error)
{
  Tee *t = data;
  t->log.marker (t->log.data, marker, error);
  if (!t->writer.marker (t->writer.data, marker, error))
    {
      fprintf (stderr, "the warp writer refused a marker the reader accepted: %s\n",
               (*error)->message);
      abort ();
    }
  return TRUE;
}

/* Reads @data as warp text, @budget records per pump call, into @log and, when @out is given, into
 * a warp writer on @out; returns the records read or -1. */
static gint64
read_logged (const void *data, gsize size, guint64 budget, GByteArray *log, GOutputStream *out)
{
  MdlSink logger = fuzz_log_sink (log);
  MdlTraceWriter *w;
  Tee tee;
  MdlSink both = { tee_batch, tee_marker, &tee };
  GError *error = NULL;
  gint64 n;

  if (out == NULL)
    return fuzz_read (data, size, MDL_TRACE_WARP, budget, FALSE, &logger);
  w = mdl_trace_writer_new (out, "fuzz-out", MDL_TRACE_WARP, FALSE);
  tee = (Tee) { logger, mdl_trace_writer_sink (w) };
  n = fuzz_read (data, size, MDL_TRACE_WARP, budget, FALSE, &both);
  if (n >= 0 && !mdl_trace_writer_close (w, &error))
    {
      fprintf (stderr, "an accepted warp trace could not be written: %s\n", error->message);
      abort ();
    }
  mdl_trace_writer_free (w);
  return n;
}

static gboolean
same_log (const GByteArray *a, const GByteArray *b)
{
  return a->len == b->len && (a->len == 0 || memcmp (a->data, b->data, a->len) == 0);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  GByteArray *first = g_byte_array_new (), *stepped = g_byte_array_new ();
  GOutputStream *out = g_memory_output_stream_new_resizable ();
  gint64 n = read_logged (data, size, 0, first, out);
  gint64 n_stepped = read_logged (data, size, 1, stepped, NULL);

  if (n_stepped != n || (n >= 0 && !same_log (first, stepped)))
    {
      fprintf (stderr, "read one record per pump call, the trace gives another result (%"
               G_GINT64_FORMAT " records, not %" G_GINT64_FORMAT ")\n", n_stepped, n);
      abort ();
    }
  if (n >= 0)
    {
      GMemoryOutputStream *mem = G_MEMORY_OUTPUT_STREAM (out);
      GByteArray *again = g_byte_array_new ();
      gint64 n_again = read_logged (g_memory_output_stream_get_data (mem),
                                    g_memory_output_stream_get_data_size (mem), 0, again, NULL);
      if (n_again != n || !same_log (again, first))
        {
          fprintf (stderr, "an accepted warp trace of %" G_GINT64_FORMAT " records was written and "
                   "read back as %" G_GINT64_FORMAT " records, or other ones\n", n, n_again);
          abort ();
        }
      g_byte_array_unref (again);
    }
  /* Detection must not crash; what it picks may be another text format. */
  fuzz_read (data, size, MDL_TRACE_AUTO, 3, FALSE, &fuzz_drop);
  g_object_unref (out);
  g_byte_array_unref (first);
  g_byte_array_unref (stepped);
  return 0;
}
