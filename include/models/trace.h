/* libmodels: trace files.
 *
 * Readers turn a file or stream into the event stream (batches and markers pushed into an MdlSink);
 * writers are sinks that turn the event stream into a file. Formats (docs/trace-format.md):
 *  - "bin":    the binary format v1 (self-describing header, 16-byte CPU records, warp records,
 *              markers, an end record with the record count);
 *  - "lackey": Valgrind Lackey text (`valgrind --tool=lackey --trace-mem=yes`); instruction lines
 *              become RAM operation counts, not accesses.
 *  - "din":    Dinero IV text, classic ("LABEL ADDRESS") or extended ("TYPE ADDRESS SIZE");
 *              instruction fetches become operation counts, as Lackey's do. Written as extended,
 *              an operation count as that many "i" lines.
 *  - "warp":   warp text: one GPU warp instruction or launch/barrier/sync marker per line
 *              (`B W ld global 4 MASK ADDR...`); no CPU events.
 *  - "raw":    an array of little-endian 64-bit addresses, each a 1-byte read; read only, and
 *              never detected (it has no magic): ask for it by name.
 * Any format may be gzip-compressed; readers detect compression and format from the first bytes,
 * writers compress when the path ends in ".gz". Readers validate every record and report the
 * record number and byte offset (binary) or the line number (text) of the first bad one. */
#ifndef MODELS_TRACE_H
#define MODELS_TRACE_H

#include <glib.h>
#include <gio/gio.h>
#include <models/api.h>
#include <models/event.h>

G_BEGIN_DECLS

/** MdlTraceFormat: a trace format; MDL_TRACE_AUTO asks a reader to detect it. */
typedef enum {
  MDL_TRACE_AUTO = 0,
  MDL_TRACE_BIN,
  MDL_TRACE_LACKEY,
  MDL_TRACE_DIN,
  MDL_TRACE_RAW,
  MDL_TRACE_WARP,
} MdlTraceFormat;

/** mdl_trace_format_name: "auto", "bin", "lackey", "din", "raw" or "warp"; NULL for an invalid
 * value. */
MDL_API const char *mdl_trace_format_name (MdlTraceFormat format);

/**
 * mdl_trace_format_from_name: parses a format name as mdl_trace_format_name() spells it.
 * @error: MDL_ERROR_UNKNOWN_NAME listing the valid names.
 * Returns: TRUE and sets @format on success.
 */
MDL_API gboolean mdl_trace_format_from_name (const char *name, MdlTraceFormat *format,
                                             GError **error);

/** MdlTraceReader: an open trace being read; opaque. */
typedef struct MdlTraceReader MdlTraceReader;

/**
 * mdl_trace_reader_open: opens a trace file. An uncompressed regular file is read in place through
 * mmap(2), a bounded window at a time (no copy out of the page cache); as with any mapped file,
 * another process truncating it while it is read raises SIGBUS. Pipes, standard input and gzip
 * are read with read(2).
 * @path: a file name, or "-" for standard input.
 * @format: the format, or MDL_TRACE_AUTO to detect it (gzip is always detected).
 * @error: MDL_ERROR_IO when the file cannot be opened, MDL_ERROR_FORMAT when the format cannot be
 *   detected or the header is bad.
 * Returns: (transfer full) the reader, or NULL.
 */
MDL_API MdlTraceReader *mdl_trace_reader_open (const char *path, MdlTraceFormat format,
                                               GError **error);

/**
 * mdl_trace_reader_new: reads a trace from a stream.
 * @stream: (transfer none) the stream; the reader takes its own reference.
 * @name: the name used in error messages (a file name, "<stdin>").
 * @format: as for mdl_trace_reader_open().
 * @error: as for mdl_trace_reader_open().
 * Returns: (transfer full) the reader, or NULL.
 */
MDL_API MdlTraceReader *mdl_trace_reader_new (GInputStream *stream, const char *name,
                                              MdlTraceFormat format, GError **error);

/** mdl_trace_reader_free: closes the trace; NULL is fine. */
MDL_API void mdl_trace_reader_free (MdlTraceReader *reader);

/** mdl_trace_reader_format: the detected (or requested) format. */
MDL_API MdlTraceFormat mdl_trace_reader_format (const MdlTraceReader *reader);

/** mdl_trace_reader_compressed: TRUE when the stream was gzip-compressed. */
MDL_API gboolean mdl_trace_reader_compressed (const MdlTraceReader *reader);

/**
 * mdl_trace_reader_meta: the header metadata of the trace (binary format: producer, algorithm,
 * params, seed, machine.*; Lackey text: commands, the programs Valgrind ran as its
 * "==PID== Command:" lines name them, one per line, at most 64 then "..."; other text formats:
 * none). Text formats fill it as they read.
 * Returns: (transfer none) a table of string keys to string values, owned by the reader.
 */
MDL_API GHashTable *mdl_trace_reader_meta (const MdlTraceReader *reader);

/**
 * mdl_trace_reader_pump: reads up to @max_records records and delivers them to @sink, in order.
 * @reader: the reader.
 * @sink: where the events go.
 * @max_records: how many records to read at most in this call (0: all); lets a caller show
 *   progress between calls.
 * @done: (out) set to TRUE once the whole trace has been read and verified.
 * @error: MDL_ERROR_FORMAT naming the record and byte offset (or line) of a bad record,
 *   MDL_ERROR_IO, or whatever the sink reported.
 * Returns: FALSE on error; the reader is then unusable.
 * Cost: a binary trace reads at the speed of memory; records are validated once, here.
 */
MDL_API gboolean mdl_trace_reader_pump (MdlTraceReader *reader, const MdlSink *sink,
                                        guint64 max_records, gboolean *done, GError **error);

/**
 * mdl_trace_reader_set_fetches: keeps instruction fetches (Lackey "I" lines, din fetch records) as
 * read records flagged MDL_CPU_FLAG_FETCH, besides the operation counts they always make, so that
 * an instruction cache or Cachegrind's unified last level can see them. Formats without
 * instruction addresses ignore it. Call it before the first mdl_trace_reader_pump().
 * Cost: one more 16-byte record per instruction.
 */
MDL_API void mdl_trace_reader_set_fetches (MdlTraceReader *reader, gboolean keep);

/**
 * mdl_trace_reader_set_salvage: lets a trace that stops short end after its last complete record
 * instead of failing: what a writer killed mid-run leaves (a binary trace without its end record
 * or with its last record cut, gzip data cut anywhere). The phases still open there are closed
 * with phase-end markers, so that the salvaged stream obeys the stream rules and can be written
 * again. A corrupt record (bytes that are there but wrong) is still an error. Call it before the
 * first mdl_trace_reader_pump(); mdl_trace_reader_truncation() then says where the trace stopped.
 */
MDL_API void mdl_trace_reader_set_salvage (MdlTraceReader *reader, gboolean salvage);

/**
 * mdl_trace_reader_truncation: after a salvaged read, what was missing: the message the reader
 * would have failed with ("NAME: record N (byte B): truncated trace: the end record is missing"),
 * and the number of phases it closed. NULL when the trace was whole.
 * Returns: (transfer none) owned by the reader.
 */
MDL_API const char *mdl_trace_reader_truncation (const MdlTraceReader *reader);

/** mdl_trace_reader_n_records: records read so far (CPU, warp and marker records). */
MDL_API guint64 mdl_trace_reader_n_records (const MdlTraceReader *reader);

/** mdl_trace_reader_n_bytes: bytes of the (decompressed) stream consumed so far. */
MDL_API guint64 mdl_trace_reader_n_bytes (const MdlTraceReader *reader);

/** mdl_trace_reader_n_skipped: input that was skipped rather than turned into events (Valgrind's
 * "==pid==" banner lines of a Lackey log); every reader counts what it skips. */
MDL_API guint64 mdl_trace_reader_n_skipped (const MdlTraceReader *reader);

/** MdlTraceWriter: a trace being written; opaque. */
typedef struct MdlTraceWriter MdlTraceWriter;

/**
 * mdl_trace_writer_open: creates a trace file.
 * @path: a file name, or "-" for standard output; a name ending in ".gz" is gzip-compressed.
 * @format: MDL_TRACE_BIN, MDL_TRACE_LACKEY, MDL_TRACE_DIN or MDL_TRACE_WARP (MDL_TRACE_AUTO:
 *   from the name, ".din" or ".din.gz" for din, ".lackey" or ".lackey.gz" for Lackey, ".warp" or
 *   ".warp.gz" for warp text, binary otherwise).
 * @error: MDL_ERROR_IO; MDL_ERROR_UNSUPPORTED for a format without a writer (raw).
 * Returns: (transfer full) the writer, or NULL.
 */
MDL_API MdlTraceWriter *mdl_trace_writer_open (const char *path, MdlTraceFormat format,
                                               GError **error);

/**
 * mdl_trace_writer_new: writes a trace to a stream.
 * @stream: (transfer none) the stream; the writer takes its own reference.
 * @name: the name used in error messages.
 * @format: MDL_TRACE_BIN, MDL_TRACE_LACKEY or MDL_TRACE_DIN.
 * @gzip: compress the output.
 * Closing the writer closes @stream (after writing the gzip trailer, if any).
 * Returns: (transfer full) the writer.
 */
MDL_API MdlTraceWriter *mdl_trace_writer_new (GOutputStream *stream, const char *name,
                                              MdlTraceFormat format, gboolean gzip);

/**
 * mdl_trace_writer_set_meta: adds a header key (producer, algorithm, params, seed, machine.NAME...).
 * Must be called before the first event; formats without a header ignore it.
 * @key: letters, digits, '.', '_' and '-'.
 * @value: any UTF-8 text without newlines.
 */
MDL_API void mdl_trace_writer_set_meta (MdlTraceWriter *writer, const char *key, const char *value);

/**
 * mdl_trace_writer_sink: the sink that writes events into the trace.
 * Returns: the sink, valid while the writer lives. Its callbacks fail with MDL_ERROR_IO, or with
 * MDL_ERROR_UNSUPPORTED for events the format cannot carry (warp events in Lackey text).
 */
MDL_API MdlSink mdl_trace_writer_sink (MdlTraceWriter *writer);

/** mdl_trace_writer_n_records: records written so far. */
MDL_API guint64 mdl_trace_writer_n_records (const MdlTraceWriter *writer);

/**
 * mdl_trace_writer_n_dropped: records that the format cannot carry and that were therefore left
 * out: markers (Lackey, din and warp text lack some or all) and branch records (Lackey, din); 0
 * for the binary format. A caller
 * warns when it is not 0.
 */
MDL_API guint64 mdl_trace_writer_n_dropped (const MdlTraceWriter *writer);

/**
 * mdl_trace_writer_close: writes the end of the trace and flushes it.
 * @error: MDL_ERROR_IO; MDL_ERROR_FORMAT when a phase is still open (binary format).
 * Returns: FALSE on error. The writer must still be freed.
 */
MDL_API gboolean mdl_trace_writer_close (MdlTraceWriter *writer, GError **error);

/**
 * mdl_trace_writer_abandon: writes the records written so far and closes the file without ending
 * the trace, as a run stopped early must: a complete-looking trace of an interrupted run could not
 * be told from a whole one. Readers then report the file as truncated after its last record, and
 * salvage (mdl_trace_reader_set_salvage()) recovers every record. A gzip stream is still ended
 * properly. Text formats have no end record: for them this is mdl_trace_writer_close().
 * @error: MDL_ERROR_IO.
 * Returns: FALSE on error. The writer takes no more events and must still be freed.
 */
MDL_API gboolean mdl_trace_writer_abandon (MdlTraceWriter *writer, GError **error);

/** mdl_trace_writer_free: frees the writer, closing it first if needed (errors are dropped: call
 * mdl_trace_writer_close() to see them); NULL is fine. */
MDL_API void mdl_trace_writer_free (MdlTraceWriter *writer);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MdlTraceReader, mdl_trace_reader_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (MdlTraceWriter, mdl_trace_writer_free)

G_END_DECLS

#endif
