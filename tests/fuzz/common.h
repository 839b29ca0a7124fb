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

/* Aborts when @error is set but is not an MDL_ERROR with a message: the library's promise for bad
 * input (what = what was being done, for the abort message). */
void fuzz_check_error (const GError *error, const char *what);

/* A sink that appends every event and marker to @log in a canonical binary form: two streams are
 * equal exactly when their logs are (warp lanes are logged by address, strided or not). */
MdlSink fuzz_log_sink (GByteArray *log);

/* @data gzip-compressed in memory, as one member. (transfer full) */
GBytes *fuzz_gzip (const void *data, gsize size);

/* The memory budget of an engine's tables under the fuzz targets (MODELS_MEMORY_BUDGET, unless
 * already set): legal but huge sizes (vat's W up to 2^26, em's M, a cache's or a TLB's entries)
 * are refused before any work instead of spending seconds on tables, so no unit times out. */
#define FUZZ_MEMORY_BUDGET "128M"

/* Builds the engine @spec (on preset @machine unless NULL), and if that succeeds drives it with a
 * small stream of every kind of event and marker, asks for its report, resets it and asks again;
 * aborts on an error outside MDL_ERROR. Sets the budget FUZZ_MEMORY_BUDGET first. */
void fuzz_engine (const char *spec, const char *machine);

/* Reads @data as @format into @sink in pump calls of @budget records (0: no limit), instruction
 * fetches kept when @fetches; returns the records read, or -1 when the reader refused the input. */
gint64 fuzz_read (const void *data, gsize size, MdlTraceFormat format, guint64 budget,
                  gboolean fetches, const MdlSink *sink);

/* The round-trip property of a text @format: if the reader accepts @data, the records it gives
 * (op counts left out unless @keep_ops; modifies split into a read and a write when
 * @split_modifies, as a format without modifies writes them) must come back the same after the
 * writer; aborts otherwise. */
void fuzz_text_round_trip (const void *data, gsize size, MdlTraceFormat format, gboolean fetches,
                           gboolean keep_ops, gboolean split_modifies);

#endif
