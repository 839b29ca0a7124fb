/* What the libFuzzer targets share: reading bytes as one trace format, and the round trip of the
 * text formats (what the reader accepts, the writer writes and the reader reads back unchanged). */
#ifndef TESTS_FUZZ_COMMON_H
#define TESTS_FUZZ_COMMON_H

#include <stdint.h>
#include <gio/gio.h>
#include <models/models.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* A sink that drops everything. */
extern const MdlSink fuzz_drop;

/* Reads @data as @format into @sink in pump calls of @budget records (0: no limit), instruction
 * fetches kept when @fetches; returns the records read, or -1 when the reader refused the input. */
gint64 fuzz_read (const void *data, gsize size, MdlTraceFormat format, guint64 budget,
                  gboolean fetches, const MdlSink *sink);

/* The round-trip property of a text @format: if the reader accepts @data, the records it gives
 * (op counts left out unless @keep_ops; modifies split into a read and a write when @split_modifies,
 * as a format without modifies writes them) must come back the same after the writer; aborts
 * otherwise. */
void fuzz_text_round_trip (const void *data, gsize size, MdlTraceFormat format, gboolean fetches,
                           gboolean keep_ops, gboolean split_modifies);

#endif
