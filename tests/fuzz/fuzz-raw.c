/* libFuzzer target: the raw address reader (src/traces/reader-raw.c) on arbitrary bytes.
 *
 * The raw format has no header and no writer, so its property is exact: a stream of 8k bytes is
 * read as k one-byte reads of the little-endian words, in order; any other length is refused.
 * Read in one pump call, in calls of one record and in calls of 4097 (one more than a batch), the
 * result must be the same. */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const uint8_t *data;
  gsize size, n_seen;
} Expect;

/* Checks each event against the word it must come from. */
static gboolean
expect_batch (void *data, const MdlEventBatch *batch, GError **error)
{
  Expect *x = data;
  (void) error;
  if (batch->n_warp != 0)
    {
      fprintf (stderr, "the raw reader gave warp events\n");
      abort ();
    }
  for (gsize i = 0; i < batch->n_cpu; i++, x->n_seen++)
    {
      const MdlCpuEvent *e = &batch->cpu[i];
      guint64 want = 0;
      if (8 * (x->n_seen + 1) > x->size)
        {
          fprintf (stderr, "more raw records than whole words in %" G_GSIZE_FORMAT " bytes\n",
                   x->size);
          abort ();
        }
      for (guint b = 0; b < 8; b++)
        want |= (guint64) x->data[8 * x->n_seen + b] << (8 * b);
      if (e->kind != MDL_CPU_READ || e->size != 1 || e->flags != 0 || e->thread != 0
          || e->site != 0 || e->addr != want)
        {
          fprintf (stderr, "record %" G_GSIZE_FORMAT ": expected a 1-byte read of 0x%"
                   G_GINT64_MODIFIER "x, got kind %u size %u address 0x%" G_GINT64_MODIFIER "x\n",
                   x->n_seen, want, e->kind, e->size, e->addr);
          abort ();
        }
    }
  return TRUE;
}

static gboolean
no_marker (void *data, const MdlMarker *marker, GError **error)
{
  (void) data, (void) marker, (void) error;
  fprintf (stderr, "the raw reader gave a marker\n");
  abort ();
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static const guint64 budgets[] = { 0, 1, 4097 };
  /* Gzip is detected before the format: such input is the gzip target's. */
  gboolean gzip = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;

  for (guint i = 0; i < G_N_ELEMENTS (budgets); i++)
    {
      Expect x = { data, size, 0 };
      MdlSink sink = gzip ? fuzz_drop : (MdlSink) { expect_batch, no_marker, &x };
      gint64 n = fuzz_read (data, size, MDL_TRACE_RAW, budgets[i], FALSE, &sink);
      if (gzip)
        continue;
      if (size % 8 == 0 ? n != (gint64) (size / 8) : n >= 0)
        {
          fprintf (stderr, "%" G_GSIZE_FORMAT " bytes read as %" G_GINT64_FORMAT " raw records "
                   "(pump budget %" G_GUINT64_FORMAT ")\n", size, n, budgets[i]);
          abort ();
        }
    }
  return 0;
}
