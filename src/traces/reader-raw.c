/* Reader of raw address arrays (docs/trace-format.md, "Raw addresses"): the stream is a sequence
 * of 64-bit little-endian byte addresses and nothing else, as a simulator or a quick `fwrite` of a
 * uint64_t array produces. Each address becomes a 1-byte read, so it touches exactly the one line
 * and page that hold it. There is no header or magic, so the format is never detected: it must be
 * asked for (MDL_TRACE_RAW, `--trace-format raw`). A stream whose length is not a multiple of 8
 * fails at its last, partial record. */
#include "trace-private.h"

/* CPU records per delivered batch (64 KiB of output). */
#define OUT_BATCH 4096

typedef struct {
  MdlCpuEvent out[OUT_BATCH];
} RawReader;

static gboolean
raw_pump (MdlTraceReader *r, const MdlSink *sink, guint64 budget, GError **error)
{
  RawReader *k = r->priv;
  while (budget > 0)
    {
      gsize avail, n;
      MdlEventBatch batch;
      if (!mdl_trace_reader_fill (r, 8 * OUT_BATCH, error))
        return FALSE;
      avail = (r->len - r->pos) / 8;
      if (avail == 0)
        {
          if (r->len > r->pos)
            return mdl_trace_reader_fail (r, error, "%" G_GSIZE_FORMAT " trailing bytes do not "
                                          "make an 8-byte address (a raw trace is a multiple of 8 "
                                          "bytes long)", r->len - r->pos);
          r->done = TRUE;
          return TRUE;
        }
      n = (gsize) MIN ((guint64) MIN (avail, OUT_BATCH), budget);
      for (gsize i = 0; i < n; i++)
        k->out[i] = (MdlCpuEvent) { .kind = MDL_CPU_READ, .size = 1,
                                    .addr = mdl_load64 (r->buf + r->pos + 8 * i) };
      r->pos += 8 * n;
      r->n_records += n;
      budget -= n;
      batch = (MdlEventBatch) { .cpu = k->out, .n_cpu = n };
      if (!sink->batch (sink->data, &batch, error))
        return FALSE;
    }
  return TRUE;
}

const MdlTraceReaderClass mdl_trace_reader_raw_class = {
  .priv_bytes = sizeof (RawReader),
  .pump = raw_pump,
};
