/* libFuzzer target: gzip-wrapped input of every format (src/traces/reader.c's inflation, then the
 * format readers).
 *
 * The first byte picks the format (auto, bin, lackey, din, raw, warp), the second a cut point; the
 * rest is the payload. The payload is read as it is (so mutated gzip streams from the seeds reach
 * the inflater's error paths), then compressed as one gzip member and as two members split at the
 * cut point: each must be accepted exactly when the plain payload is, as the same stream. A gzip
 * stream cut short (at least its two magic bytes kept) must be refused: nothing is lost
 * silently. */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static gint64
read_log (const void *data, gsize size, MdlTraceFormat format, guint64 budget, GByteArray *log)
{
  MdlSink sink = fuzz_log_sink (log);
  g_byte_array_set_size (log, 0);
  return fuzz_read (data, size, format, budget, FALSE, &sink);
}

static void
expect_same (const char *how, MdlTraceFormat format, gint64 n_plain, const GByteArray *plain,
             gint64 n, const GByteArray *got)
{
  if ((n_plain >= 0) != (n >= 0)
      || (n >= 0 && (n != n_plain || got->len != plain->len
                     || (plain->len > 0 && memcmp (got->data, plain->data, plain->len) != 0))))
    {
      fprintf (stderr, "%s %s: %" G_GINT64_FORMAT " records, but %" G_GINT64_FORMAT " plain "
               "(-1: refused), or other records\n", how, mdl_trace_format_name (format), n,
               n_plain);
      abort ();
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  MdlTraceFormat format;
  const uint8_t *payload;
  gsize len, cut;
  GByteArray *plain, *got;
  GBytes *whole, *head, *tail;
  GByteArray *two;
  gint64 n_plain, n;

  if (size < 2)
    return 0;
  format = (MdlTraceFormat) (data[0] % (MDL_TRACE_WARP + 1));
  payload = data + 2;
  len = size - 2;
  cut = len ? (gsize) data[1] * len / 255 : 0;
  plain = g_byte_array_new ();
  got = g_byte_array_new ();
  n_plain = read_log (payload, len, format, 0, plain);
  if (len >= 2 && payload[0] == 0x1f && payload[1] == 0x8b)
    {
      /* Already gzip: only robustness, and the same answer in small pump steps. */
      n = read_log (payload, len, format, 2, got);
      expect_same ("read in steps of 2 records,", format, n_plain, plain, n, got);
      g_byte_array_unref (plain);
      g_byte_array_unref (got);
      return 0;
    }

  whole = fuzz_gzip (payload, len);
  n = read_log (g_bytes_get_data (whole, NULL), g_bytes_get_size (whole), format, 0, got);
  expect_same ("one gzip member,", format, n_plain, plain, n, got);

  head = fuzz_gzip (payload, cut);
  tail = fuzz_gzip (payload + cut, len - cut);
  two = g_byte_array_new ();
  g_byte_array_append (two, g_bytes_get_data (head, NULL), (guint) g_bytes_get_size (head));
  g_byte_array_append (two, g_bytes_get_data (tail, NULL), (guint) g_bytes_get_size (tail));
  n = read_log (two->data, two->len, format, 3, got);
  expect_same ("two gzip members, read in steps of 3 records,", format, n_plain, plain, n, got);

  /* A member cut anywhere after its magic is truncated, whatever it holds. */
  {
    gsize full = g_bytes_get_size (whole);
    gsize keep = 2 + (gsize) data[1] % (full - 2);
    n = read_log (g_bytes_get_data (whole, NULL), keep, format, 0, got);
    if (n >= 0)
      {
        fprintf (stderr, "a gzip stream of %" G_GSIZE_FORMAT " bytes cut to %" G_GSIZE_FORMAT
                 " was accepted as %s with %" G_GINT64_FORMAT " records\n", full, keep,
                 mdl_trace_format_name (format), n);
        abort ();
      }
  }
  g_byte_array_unref (two);
  g_bytes_unref (head);
  g_bytes_unref (tail);
  g_bytes_unref (whole);
  g_byte_array_unref (plain);
  g_byte_array_unref (got);
  return 0;
}
