/* Private to src/traces: the reader and writer objects, the per-format vtables behind them, the
 * byte layout of the binary format v1 and the stream rules (marker validity, phase nesting, warp
 * widths) that readers and writers share, so that a writer never produces a trace its reader
 * rejects. The formats themselves are described byte by byte in docs/trace-format.md. */
#ifndef TRACES_TRACE_PRIVATE_H
#define TRACES_TRACE_PRIVATE_H

#include <string.h>
#include <glib.h>
#include <gio/gio.h>
#include <models/error.h>
#include <models/event.h>
#include <models/trace.h>

/* Readers fill, and writers drain, buffers of up to this size: 1 MiB is large enough that the
 * read() or write() per chunk disappears next to the per-record work, and small enough to stay in
 * L2/L3. */
#define MDL_TRACE_CHUNK_BYTES ((gsize) 1 << 20)
/* The reader's buffer at its largest holds a chunk plus the largest unit that must be contiguous:
 * the binary header (16 + 1 MiB of metadata) or one Lackey line (MDL_LACKEY_LINE_MAX). */
#define MDL_TRACE_BUF_BYTES (MDL_TRACE_CHUNK_BYTES + ((gsize) 64 << 10))
/* Buffers start at this size and double while the stream keeps going, so that small traces (tests,
 * fuzzing, one reader per file of a large batch) do not pay for two 1 MiB buffers. */
#define MDL_TRACE_BUF_MIN ((gsize) 64 << 10)

/* The binary format v1. */
#define MDL_BIN_MAGIC "MDLTRACE"
#define MDL_BIN_VERSION 1
#define MDL_BIN_HEADER_BYTES 16
#define MDL_BIN_META_MAX ((guint32) 1 << 20)   /* bytes of header metadata text */
#define MDL_BIN_WARP_HEAD_BYTES 40
#define MDL_BIN_LAUNCH_BYTES 32
#define MDL_BIN_SMALL_BYTES 16                 /* barrier, sync, end, and the head of named records */

enum {
  MDL_REC_WARP = 0x10,
  MDL_REC_LAUNCH = 0x20,
  MDL_REC_BARRIER = 0x21,
  MDL_REC_SYNC = 0x22,
  MDL_REC_PHASE_BEGIN = 0x23,
  MDL_REC_PHASE_END = 0x24,
  MDL_REC_SITE = 0x25,
  MDL_REC_END = 0x7f,
};

/* Lackey lines longer than this are an error; real ones are under 40 bytes, banners under 1 KiB. */
#define MDL_LACKEY_LINE_MAX ((gsize) 64 << 10)

/* Phases may nest this deep; a bound, so that a hostile trace cannot grow the stack without end. */
#define MDL_TRACE_PHASE_DEPTH_MAX 4096

static inline gsize
mdl_round16 (gsize n)
{
  return (n + 15) & ~(gsize) 15;
}

/* mdl_loadN (p) and mdl_storeN (p, v): little-endian N-bit fields at any alignment, for N = 16,
 * 32 and 64 (a macro because the three differ only in their type; memcpy compiles to one move). */
#define MDL_LE_FIELD(bits)                                                                         \
  static inline guint##bits mdl_load##bits (const guint8 *p)                                       \
  {                                                                                                \
    guint##bits v;                                                                                 \
    memcpy (&v, p, sizeof v);                                                                      \
    return GUINT##bits##_FROM_LE (v);                                                              \
  }                                                                                                \
  static inline void mdl_store##bits (guint8 *p, guint##bits v)                                    \
  {                                                                                                \
    v = GUINT##bits##_TO_LE (v);                                                                   \
    memcpy (p, &v, sizeof v);                                                                      \
  }
MDL_LE_FIELD (16)
MDL_LE_FIELD (32)
MDL_LE_FIELD (64)

/* TRUE when the 16 bytes of a CPU record obey its rules (flags 0, but a branch's taken flag and a
 * read's dependent flag, alone or with the chase flag; size 1..65535 for accesses, 0 for op counts
 * and branches); @head is the record's first 32-bit word, @kind already known to be <
 * MDL_CPU_N_KINDS. The same rules as mdl_trace_cpu_problem(), inline and without a branch on the
 * kind, because the reader's and writer's hot loops run it once per record. */
static inline gboolean
mdl_cpu_head_ok (guint32 head)
{
  guint kind = head & 0xff;
  guint size = head >> 16;
  guint flags = (head >> 8) & 0xff;
  guint flags_allowed = (guint) (kind == MDL_CPU_BRANCH) * MDL_CPU_FLAG_TAKEN
                        | (guint) (kind == MDL_CPU_READ)
                            * (MDL_CPU_FLAG_DEPENDENT | MDL_CPU_FLAG_CHASE);
  gboolean chase_alone = (flags & (MDL_CPU_FLAG_DEPENDENT | MDL_CPU_FLAG_CHASE))
                         == MDL_CPU_FLAG_CHASE;
  return (flags & ~flags_allowed) == 0 && !chase_alone
         && (size == 0) == !mdl_cpu_is_access (kind);
}

/* TRUE when @size bytes at @addr run past the last byte of the 64-bit address space (the last one
 * would wrap to address 0). No machine makes such an access, and engines that split an access at
 * page or line boundaries would count it at the bottom of memory, so readers and writers refuse
 * it. Size 0 (op counts) never wraps. */
static inline gboolean
mdl_access_wraps (guint64 addr, guint size)
{
  return size > 0 && addr + (size - 1) < addr;
}

/* What is wrong with a CPU record: a message to free, or NULL when it is valid. */
char *mdl_trace_cpu_problem (guint kind, guint flags, guint size, guint64 addr);

/* The stream rules shared by readers and writers: phase nesting and the warp width of each launch
 * (the warp width a warp event is checked against: its launch's, or MDL_WARP_MAX_LANES before any
 * launch marker named it). */
typedef struct {
  GPtrArray *phases;        /* names of the open phases, innermost last */
  GHashTable *widths;       /* launch id -> warp width */
  guint32 last_launch;      /* one-entry cache in front of @widths: warps of one launch come in runs */
  guint last_width;
} MdlTraceCheck;

void mdl_trace_check_init (MdlTraceCheck *check);
void mdl_trace_check_clear (MdlTraceCheck *check);
/* Validates @marker against the rules of event.h and the open phases, then applies it.
 * Sets MDL_ERROR_FORMAT with an unprefixed message. */
gboolean mdl_trace_check_marker (MdlTraceCheck *check, const MdlMarker *marker, GError **error);
/* The warp width to check events of @launch against. */
guint mdl_trace_check_warp_width (MdlTraceCheck *check, guint32 launch);
/* Fails when a phase is still open at the end of the stream. */
gboolean mdl_trace_check_end (MdlTraceCheck *check, GError **error);

/* Format detection from the first bytes of the (decompressed) stream; MDL_TRACE_AUTO when neither
 * format fits. */
MdlTraceFormat mdl_trace_detect (const guint8 *data, gsize len);
/* TRUE for a line that Valgrind prints around a tool's output ("==pid== ...", "--pid-- ...",
 * "**pid** ..."): readers skip and count these. */
gboolean mdl_lackey_is_banner (const char *line, gsize len);

typedef struct MdlTraceReaderClass MdlTraceReaderClass;

/* ---- line-oriented text readers: Lackey, din, warp (text-lines.c) ---- */

/* CPU records per delivered batch (64 KiB). */
#define MDL_TEXT_BATCH 4096
/* How much of a bad line an error message quotes. */
#define MDL_TEXT_QUOTE_MAX 80

/* The records a text reader has built from its lines and not yet delivered. */
typedef struct {
  MdlCpuEvent out[MDL_TEXT_BATCH];
  gsize n_out;
  gsize ops_at;             /* index in out of the op count that further instruction lines
                               extend, or G_MAXSIZE */
  guint64 line;             /* number of the last line read */
} MdlTextBatch;

typedef enum {
  MDL_TEXT_OK,              /* a line: its text, length without the newline (and a '\r' before
                               it), and the bytes it takes with its newline */
  MDL_TEXT_END,             /* the end of the input; reader->done is set */
  MDL_TEXT_TOO_LONG,        /* a line longer than MDL_LACKEY_LINE_MAX; *line and *len are what
                               there is of it, for the message */
  MDL_TEXT_FAILED,          /* reading failed: @error is set */
} MdlTextLine;

/* The next line of @r's buffer, reading more as needed; counts it in *line_no. The caller moves
 * r->pos past it (by *consumed) once the line is used. */
MdlTextLine mdl_text_next_line (MdlTraceReader *r, guint64 *line_no, const char **line, gsize *len,
                                gsize *consumed, GError **error);
/* The first MDL_TEXT_QUOTE_MAX bytes of a line, printable: other bytes as \xNN (transfer full). */
char *mdl_text_quote (const char *s, gsize len);
/* The start of the text readers whose state (reader->priv) begins with their MdlTextBatch. */
gboolean mdl_text_reader_start (MdlTraceReader *r, GError **error);
/* Hands the pending records to @sink (nothing when there are none) and counts them in @r. */
gboolean mdl_text_batch_deliver (MdlTraceReader *r, MdlTextBatch *b, const MdlSink *sink,
                                 GError **error);
/* One instruction: extends the open op count, or appends one (room for a record is the
 * caller's to make). */
void mdl_text_batch_count_op (MdlTextBatch *b);

struct MdlTraceReader {
  const MdlTraceReaderClass *klass;
  GInputStream *stream;     /* the raw stream */
  GConverter *gunzip;       /* a GZlibDecompressor for gzip input, else NULL */
  guint8 *zbuf;             /* gzip input: compressed bytes, zbuf[zpos..zlen) not yet inflated */
  gsize zpos;
  gsize zlen;
  gboolean zeof;            /* the raw stream has no more bytes beyond zbuf[zlen] */
  gboolean zmember;         /* inside a gzip member (another may follow the one that ended) */
  guint64 zoffset;          /* raw stream offset of zbuf[0] */
  char *name;               /* for messages */
  MdlTraceFormat format;
  gboolean compressed;
  GHashTable *meta;         /* header key -> value */
  guint8 *buf;              /* @cap bytes; buf[pos..len) is unread */
  gsize cap;                /* MDL_TRACE_BUF_MIN up to MDL_TRACE_BUF_BYTES */
  gsize pos;
  gsize len;
  guint64 buf_offset;       /* (decompressed) stream offset of buf[0] */
  int map_fd;               /* >= 0: buf is a window of this file mapped (reader-map.c), else -1 */
  guint64 map_file_bytes;   /* the mapped file's size */
  guint64 n_records;
  guint64 n_skipped;
  gboolean eof;             /* the stream has no more bytes beyond buf[len] */
  gboolean done;            /* the trace ended and was verified */
  gboolean failed;
  gboolean fetches;         /* keep instruction fetches as flagged reads (set_fetches) */
  gboolean salvage;         /* a trace cut short ends at its last complete record (set_salvage) */
  char *truncation;         /* salvage: where and why the trace stopped short, or NULL */
  char *gzip_cut;           /* salvage: the gzip error that ended the data early, or NULL */
  MdlTraceCheck check;      /* the stream rules, for the formats with markers and warp events */
  void *priv;               /* the format's state: klass->priv_bytes, zeroed at the start */
};

/* One input format. Its state, reader->priv, is a block of @priv_bytes that the reader allocates
 * zeroed before start and frees with itself. */
struct MdlTraceReaderClass {
  gsize priv_bytes;
  /* Reads the header, if the format has one, and sets up reader->priv beyond its zeros; the
   * buffer already holds the first chunk. NULL: nothing to do. */
  gboolean (*start) (MdlTraceReader *reader, GError **error);
  /* Delivers at most @budget records (>= 1) to @sink; sets reader->done at the verified end. */
  gboolean (*pump) (MdlTraceReader *reader, const MdlSink *sink, guint64 budget, GError **error);
  /* Frees what reader->priv points to, also after a failed start. NULL: it points to nothing. */
  void (*finalize) (MdlTraceReader *reader);
};

extern const MdlTraceReaderClass mdl_trace_reader_bin_class;
extern const MdlTraceReaderClass mdl_trace_reader_lackey_class;
extern const MdlTraceReaderClass mdl_trace_reader_din_class;
extern const MdlTraceReaderClass mdl_trace_reader_raw_class;
extern const MdlTraceReaderClass mdl_trace_reader_warp_class;

/* Makes at least @need (<= MDL_TRACE_BUF_BYTES) bytes available at buf + pos unless the stream ends
 * first; moves the unread bytes to the front of the buffer, so pointers into it die. Sets
 * MDL_ERROR_IO for a failed read and MDL_ERROR_FORMAT for corrupt or truncated gzip data. */
gboolean mdl_trace_reader_fill (MdlTraceReader *reader, gsize need, GError **error);
/* Sets MDL_ERROR_FORMAT "NAME: record N (byte B): MESSAGE" for the record at buf + pos; returns
 * FALSE. */
gboolean mdl_trace_reader_fail (MdlTraceReader *reader, GError **error, const char *format, ...)
  G_GNUC_PRINTF (3, 4);
/* The trace stops short at the record at buf + pos (MESSAGE says how). Without salvage: as
 * mdl_trace_reader_fail(). With salvage: closes the open phases with phase-end markers into @sink,
 * keeps the message for mdl_trace_reader_truncation(), sets reader->done and returns TRUE (or
 * FALSE with the sink's error). The caller delivers its pending events first. */
gboolean mdl_trace_reader_cut (MdlTraceReader *reader, const MdlSink *sink, GError **error,
                               const char *format, ...) G_GNUC_PRINTF (4, 5);

/* ---- an uncompressed regular file read in place (reader-map.c) ---- */

/* Maps the first window of @stream's file when it is a regular file read from its start and not
 * gzip; TRUE when reader->buf is now that window (reader->buf must be NULL), FALSE to read it. */
gboolean mdl_trace_map_open (MdlTraceReader *reader, GInputStream *stream);
/* mdl_trace_reader_fill() for a mapped reader short of bytes: maps the window from buf + pos on,
 * which holds any need() or the rest of the file. Sets MDL_ERROR_IO when mmap(2) fails. */
gboolean mdl_trace_map_next (MdlTraceReader *reader, GError **error);
/* Unmaps the window; reader->buf is NULL after it. */
void mdl_trace_map_close (MdlTraceReader *reader);

typedef struct MdlTraceWriterClass MdlTraceWriterClass;

struct MdlTraceWriter {
  const MdlTraceWriterClass *klass;
  GOutputStream *stream;    /* the target */
  GOutputStream *out;       /* @stream, or the gzip filter over it */
  char *name;
  MdlTraceFormat format;
  gboolean gzip;
  gboolean started;         /* the header has been written */
  gboolean closed;
  gboolean failed;
  guint8 *buf;              /* @cap bytes; buf[0..len) is pending */
  gsize cap;                /* MDL_TRACE_BUF_MIN up to MDL_TRACE_CHUNK_BYTES */
  gsize len;
  guint64 n_records;
  guint64 n_dropped;
  GPtrArray *meta;          /* key, value, key, value... in the order first set */
  MdlTraceCheck check;
  guint32 latest_launch;    /* warp text: the id of the latest launch marker (0 before any) */
  guint64 ops_owed;         /* din text: RAM operations not yet written as "i" lines */
};

/* One output format. The writer refuses the events the format cannot carry, and checks every
 * marker against the stream rules before the format sees it. */
struct MdlTraceWriterClass {
  const char *name;         /* for messages: "lackey text" */
  gboolean cpu, warp;       /* the format carries CPU events, warp events */
  /* Writes the header. NULL: the format has none. */
  gboolean (*start) (MdlTraceWriter *writer, GError **error);
  gboolean (*batch) (MdlTraceWriter *writer, const MdlEventBatch *batch, GError **error);
  /* Writes a valid marker. NULL: the format has no markers; they are dropped and counted. */
  gboolean (*marker) (MdlTraceWriter *writer, const MdlMarker *marker, GError **error);
  /* Ends the trace. NULL: nothing to write. */
  gboolean (*finish) (MdlTraceWriter *writer, GError **error);
};

extern const MdlTraceWriterClass mdl_trace_writer_bin_class;
extern const MdlTraceWriterClass mdl_trace_writer_lackey_class;
extern const MdlTraceWriterClass mdl_trace_writer_din_class;
extern const MdlTraceWriterClass mdl_trace_writer_warp_class;

/* Writes the pending bytes to the stream, and grows the buffer towards MDL_TRACE_CHUNK_BYTES.
 * Sets MDL_ERROR_IO. */
gboolean mdl_trace_writer_flush (MdlTraceWriter *writer, GError **error);
/* Writes @len bytes, bypassing the buffer for large ones. */
gboolean mdl_trace_writer_write (MdlTraceWriter *writer, const void *data, gsize len,
                                 GError **error);

/* The largest op count a text writer spells out as instruction lines (Lackey "I", din "i"): each
 * is a line of 6 to 14 bytes, so this is gigabytes of text already; a larger count is almost
 * surely not an instruction count, and writing it would fill a disk. */
#define MDL_TRACE_TEXT_OPS_MAX ((guint64) 1 << 30)

/* Writes the @len-byte @line @n times (the text formats' op counts). Sets MDL_ERROR_IO. */
gboolean mdl_trace_writer_repeat (MdlTraceWriter *writer, const char *line, gsize len, guint64 n,
                                  GError **error);
/* MDL_ERROR_UNSUPPORTED naming the next record: an op count of @n is above
 * MDL_TRACE_TEXT_OPS_MAX, too many @format lines ("Lackey"); returns FALSE. */
gboolean mdl_trace_writer_fail_ops (MdlTraceWriter *writer, guint64 n, const char *format,
                                    GError **error);

/* Room for @n (<= MDL_TRACE_BUF_MIN) bytes at buf + len, flushing first if needed; the caller
 * fills them and adds @n to len. NULL on a write error. */
static inline guint8 *
mdl_trace_writer_reserve (MdlTraceWriter *writer, gsize n, GError **error)
{
  if (G_UNLIKELY (writer->len + n > writer->cap) && !mdl_trace_writer_flush (writer, error))
    return NULL;
  return writer->buf + writer->len;
}

/* Sets MDL_ERROR_FORMAT "NAME: cannot write record N: WHY" for the next record; returns FALSE. */
gboolean mdl_trace_writer_fail (MdlTraceWriter *writer, GError **error, const char *why);
/* The same for CPU record @e, which breaks a rule: WHY says which. */
gboolean mdl_trace_writer_fail_cpu (MdlTraceWriter *writer, const MdlCpuEvent *e, GError **error);

/* Checks warp event @e of @batch against the event rules and its launch's warp width; FALSE with
 * the writer's error naming the record. Inline: writers run it once per warp event. */
static inline gboolean
mdl_trace_writer_check_warp (MdlTraceWriter *writer, const MdlEventBatch *batch,
                             const MdlWarpEvent *e, GError **error)
{
  GError *local = NULL;
  if (G_LIKELY (mdl_warp_event_check (batch, e,
                                      mdl_trace_check_warp_width (&writer->check, e->launch),
                                      &local)))
    return TRUE;
  mdl_trace_writer_fail (writer, error, local->message);
  g_error_free (local);
  return FALSE;
}

#endif
