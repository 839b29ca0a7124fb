/* The trace reader: opens a file or stream, detects gzip and the format, and drives the format's
 * reader (reader-bin.c, reader-lackey.c) over one large input buffer: what read(2) filled, or for
 * an uncompressed regular file opened by name, a window of its mapping (reader-map.c).
 *
 * Compression is detected from the first two bytes (1f 8b) of the raw stream. Gzip input is
 * inflated here, with a GZlibDecompressor driven by hand rather than through GConverterInputStream:
 * that stream drops whatever follows the first gzip member, so a file made by appending gzip
 * members (`gzip -c more >> trace.gz`, pigz, bgzip) would silently lose its tail, and garbage after
 * the end would go unnoticed. Here each member that ends is followed by the next one or by the end
 * of the stream, and anything else is an error. The format is then detected from the first chunk of
 * the decompressed stream, which the format reader goes on to use as its first chunk. */
#include "trace-private.h"

#include <stdarg.h>
#include <gio/gunixinputstream.h>

/* Compressed bytes read per raw read. */
#define ZBUF_BYTES ((gsize) 64 << 10)
/* Compressed bytes handed to zlib per call. GLib's decompressor reports neither the input it
 * consumed nor the output it made in a call that fails, so an error can only be placed at the
 * start of that call's input: feeding 64 KiB at once put every corrupt byte of the first 64 KiB
 * at "byte 0". 1 KiB places it within 1 KiB at no measurable cost (analyze -e count of a 27 MB
 * gzip trace of 4M random accesses: 0.28 s of user time with 1 KiB or 64 KiB calls). */
#define ZCHUNK_BYTES ((gsize) 1 << 10)
_Static_assert (ZBUF_BYTES <= MDL_TRACE_BUF_MIN, "open_stream() copies a raw read into buf");

static gboolean
io_error (MdlTraceReader *r, GError *local, GError **error)
{
  g_set_error (error, MDL_ERROR, MDL_ERROR_IO, "%s: read error after byte %" G_GUINT64_FORMAT
               ": %s", r->name, r->gunzip ? r->zoffset + r->zlen : r->buf_offset + r->len,
               local->message);
  g_error_free (local);
  return FALSE;
}

/* @fed: the compressed bytes of the failing call, from zpos (0 when no call was made). */
static gboolean
gzip_error (MdlTraceReader *r, guint64 produced, gsize fed, const char *why, GError **error)
{
  guint64 at = r->zoffset + r->zpos;
  g_autofree char *where = fed > 1
    ? g_strdup_printf ("bytes %" G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT " of the file", at,
                       at + fed - 1)
    : g_strdup_printf ("byte %" G_GUINT64_FORMAT " of the file", at);
  g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT,
               "%s: corrupt or truncated gzip data after %" G_GUINT64_FORMAT
               " decompressed bytes (%s): %s", r->name, produced, where, why);
  return FALSE;
}

/* Appends raw bytes to zbuf, first dropping the inflated ones; sets zeof at the end. */
static gboolean
raw_more (MdlTraceReader *r, GError **error)
{
  gsize want, got = 0;
  GError *local = NULL;

  if (r->zpos > 0)
    {
      memmove (r->zbuf, r->zbuf + r->zpos, r->zlen - r->zpos);
      r->zoffset += r->zpos;
      r->zlen -= r->zpos;
      r->zpos = 0;
    }
  want = ZBUF_BYTES - r->zlen;
  if (!g_input_stream_read_all (r->stream, r->zbuf + r->zlen, want, &got, NULL, &local))
    return io_error (r, local, error);
  r->zlen += got;
  if (got < want)
    r->zeof = TRUE;
  return TRUE;
}

/* Inflates into @dest until @want bytes are there or the input ends; *@got says how many. */
static gboolean
gunzip_read (MdlTraceReader *r, guint8 *dest, gsize want, gsize *got, GError **error)
{
  guint64 produced = r->buf_offset + r->len;
  gsize chunk = ZCHUNK_BYTES;

  *got = 0;
  while (*got < want)
    {
      gsize n_in = 0, n_out = 0, fed;
      gboolean at_end;
      GConverterResult res;
      GError *local = NULL;

      if (r->zpos == r->zlen && !r->zeof)
        {
          if (!raw_more (r, error))
            return FALSE;
          continue;
        }
      if (!r->zmember)
        {
          if (r->zpos == r->zlen)
            break;   /* the last member ended with the stream: the clean end */
          if (r->zlen - r->zpos < 2 && !r->zeof)
            {
              if (!raw_more (r, error))
                return FALSE;
              continue;
            }
          if (r->zlen - r->zpos < 2 || r->zbuf[r->zpos] != 0x1f || r->zbuf[r->zpos + 1] != 0x8b)
            return gzip_error (r, produced + *got, 0, "data after the end of the gzip stream",
                               error);
          g_converter_reset (r->gunzip);
          r->zmember = TRUE;
        }
      fed = MIN (r->zlen - r->zpos, chunk);
      at_end = r->zeof && fed == r->zlen - r->zpos;
      res = g_converter_convert (r->gunzip, r->zbuf + r->zpos, fed, dest + *got, want - *got,
                                 at_end ? G_CONVERTER_INPUT_AT_END : G_CONVERTER_NO_FLAGS,
                                 &n_in, &n_out, &local);
      if (res == G_CONVERTER_ERROR)
        {
          /* zlib makes progress on any input, so "need more" with a full buffer means garbage */
          gboolean can_read = !r->zeof && (r->zpos > 0 || r->zlen < ZBUF_BYTES);
          gboolean partial = g_error_matches (local, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT);
          if (partial && fed < r->zlen - r->zpos)
            {
              g_error_free (local);
              chunk *= 2;   /* more of what is buffered */
              continue;
            }
          if (partial && can_read)
            {
              g_error_free (local);
              if (!raw_more (r, error))
                return FALSE;
              continue;
            }
          /* The input ended inside a member (a writer killed mid-run): what inflated so far is
           * the data, so that the format reader can say which record was cut (or, with salvage,
           * keep every complete one); mdl_trace_reader_pump() still fails without salvage. */
          if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT))
            {
              GError *cut = NULL;
              gzip_error (r, produced + *got, fed, local->message, &cut);
              r->gzip_cut = g_strdup (cut->message);
              g_error_free (cut);
              g_error_free (local);
              r->zpos = r->zlen;
              r->zmember = FALSE;
              break;
            }
          gzip_error (r, produced + *got, fed, local->message, error);
          g_error_free (local);
          return FALSE;
        }
      chunk = ZCHUNK_BYTES;
      r->zpos += n_in;
      *got += n_out;
      if (res == G_CONVERTER_FINISHED)
        r->zmember = FALSE;
    }
  return TRUE;
}

gboolean
mdl_trace_reader_fill (MdlTraceReader *r, gsize need, GError **error)
{
  gsize avail = r->len - r->pos;
  gsize want, got = 0;
  GError *local = NULL;

  g_assert (need <= MDL_TRACE_BUF_BYTES);
  if (avail >= need || r->eof)
    return TRUE;
  if (r->map_fd >= 0)
    return mdl_trace_map_next (r, error);
  if (r->pos > 0)
    {
      memmove (r->buf, r->buf + r->pos, avail);
      r->buf_offset += r->pos;
      r->pos = 0;
      r->len = avail;
    }
  /* Every read but the first found the buffer too small for the stream: double it. */
  if (need > r->cap || (r->cap < MDL_TRACE_BUF_BYTES && r->buf_offset + r->len > 0))
    {
      r->cap = MIN (MAX (need, 2 * r->cap), MDL_TRACE_BUF_BYTES);
      r->buf = g_realloc (r->buf, r->cap);
    }
  /* Fill the whole free space: read_all loops until the space is full or the stream ends, so a
   * short count means the end, even on a pipe; gunzip_read does the same. */
  want = r->cap - r->len;
  if (r->gunzip)
    {
      if (!gunzip_read (r, r->buf + r->len, want, &got, error))
        return FALSE;
    }
  else if (!g_input_stream_read_all (r->stream, r->buf + r->len, want, &got, NULL, &local))
    return io_error (r, local, error);
  r->len += got;
  if (got < want)
    r->eof = TRUE;
  return TRUE;
}

gboolean
mdl_trace_reader_fail (MdlTraceReader *r, GError **error, const char *format, ...)
{
  va_list args;
  char *message;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT,
               "%s: record %" G_GUINT64_FORMAT " (byte %" G_GUINT64_FORMAT "): %s", r->name,
               r->n_records + 1, r->buf_offset + r->pos, message);
  g_free (message);
  return FALSE;
}

gboolean
mdl_trace_reader_cut (MdlTraceReader *r, const MdlSink *sink, GError **error, const char *format,
                      ...)
{
  va_list args;
  char *message;
  GString *note;
  GPtrArray *open = r->check.phases;
  guint n_open = open->len;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  note = g_string_new (NULL);
  g_string_printf (note, "%s: record %" G_GUINT64_FORMAT " (byte %" G_GUINT64_FORMAT "): %s",
                   r->name, r->n_records + 1, r->buf_offset + r->pos, message);
  g_free (message);
  if (!r->salvage)
    {
      g_set_error_literal (error, MDL_ERROR, MDL_ERROR_FORMAT, note->str);
      g_string_free (note, TRUE);
      return FALSE;
    }
  if (r->gzip_cut)
    g_string_append_printf (note, " (%s)", r->gzip_cut);
  if (n_open > 0)
    g_string_append_printf (note, "; closed the %u phase%s still open", n_open,
                            n_open == 1 ? "" : "s");
  r->truncation = g_string_free (note, FALSE);
  /* Innermost first, as the stream rules want; the check pops each name as it passes. */
  while (open->len > 0)
    {
      g_autofree char *name = g_strdup (g_ptr_array_index (open, open->len - 1));
      MdlMarker m = { .kind = MDL_MARK_PHASE_END, .name = name };
      if (!mdl_trace_check_marker (&r->check, &m, error) || !sink->marker (sink->data, &m, error))
        return FALSE;
    }
  r->done = TRUE;
  return TRUE;
}

/* Reads the first raw bytes and switches to inflating them when they start with the gzip magic. */
static gboolean
open_stream (MdlTraceReader *r, GError **error)
{
  r->zbuf = g_malloc (ZBUF_BYTES);
  if (!raw_more (r, error))
    return FALSE;
  if (r->zlen >= 2 && r->zbuf[0] == 0x1f && r->zbuf[1] == 0x8b)
    {
      r->gunzip = G_CONVERTER (g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP));
      r->compressed = TRUE;
      return TRUE;
    }
  /* Not compressed: the bytes read are the first of the trace. */
  memcpy (r->buf, r->zbuf, r->zlen);
  r->len = r->zlen;
  r->eof = r->zeof;
  g_clear_pointer (&r->zbuf, g_free);
  return TRUE;
}

/* Frees @r after a failed open; a gzip stream cut within the first chunk is the reason given. */
static MdlTraceReader *
open_failed (MdlTraceReader *r, GError **error)
{
  if (r->gzip_cut && error && g_error_matches (*error, MDL_ERROR, MDL_ERROR_FORMAT))
    {
      g_clear_error (error);
      g_set_error_literal (error, MDL_ERROR, MDL_ERROR_FORMAT, r->gzip_cut);
    }
  mdl_trace_reader_free (r);
  return NULL;
}

/* @may_map: @stream was just opened on @name, so a regular file may be read through mmap(2). */
static MdlTraceReader *
reader_new (GInputStream *stream, const char *name, MdlTraceFormat format, gboolean may_map,
            GError **error)
{
  MdlTraceReader *r;
  MdlTraceFormat detected;

  r = g_new0 (MdlTraceReader, 1);
  r->name = g_strdup (name ? name : "<stream>");
  r->meta = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  mdl_trace_check_init (&r->check);
  r->stream = g_object_ref (stream);
  r->map_fd = -1;
  if (!(may_map && mdl_trace_map_open (r, stream)))
    {
      r->cap = MDL_TRACE_BUF_MIN;   /* >= ZBUF_BYTES, for open_stream() */
      r->buf = g_malloc (r->cap);
      if (!open_stream (r, error) || !mdl_trace_reader_fill (r, r->cap, error))
        return open_failed (r, error);
    }
  detected = format;
  if (detected == MDL_TRACE_AUTO)
    detected = mdl_trace_detect (r->buf, r->len);
  if (detected == MDL_TRACE_AUTO)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT,
                   "cannot detect the format of %s (expected a binary trace starting with "
                   "MDLTRACE, Valgrind Lackey text, Dinero din text or warp text; raw address "
                   "arrays need the format raw named)%s", r->name,
                   r->len == 0 ? ": it is empty" : "");
      return open_failed (r, error);
    }
  r->format = detected;
  r->klass = detected == MDL_TRACE_BIN ? &mdl_trace_reader_bin_class
             : detected == MDL_TRACE_DIN ? &mdl_trace_reader_din_class
             : detected == MDL_TRACE_RAW ? &mdl_trace_reader_raw_class
             : detected == MDL_TRACE_WARP ? &mdl_trace_reader_warp_class
                                         : &mdl_trace_reader_lackey_class;
  r->priv = g_malloc0 (r->klass->priv_bytes);
  if (r->klass->start && !r->klass->start (r, error))
    return open_failed (r, error);
  return r;
}

MdlTraceReader *
mdl_trace_reader_new (GInputStream *stream, const char *name, MdlTraceFormat format,
                      GError **error)
{
  g_return_val_if_fail (G_IS_INPUT_STREAM (stream), NULL);
  g_return_val_if_fail (format >= MDL_TRACE_AUTO && format <= MDL_TRACE_WARP, NULL);
  return reader_new (stream, name, format, FALSE, error);
}

MdlTraceReader *
mdl_trace_reader_open (const char *path, MdlTraceFormat format, GError **error)
{
  GInputStream *stream;
  MdlTraceReader *r;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (format >= MDL_TRACE_AUTO && format <= MDL_TRACE_WARP, NULL);
  if (strcmp (path, "-") == 0)
    {
      stream = g_unix_input_stream_new (0, FALSE);
      r = reader_new (stream, "<stdin>", format, FALSE, error);
    }
  else
    {
      GFile *file = g_file_new_for_path (path);
      GError *local = NULL;
      stream = G_INPUT_STREAM (g_file_read (file, NULL, &local));
      g_object_unref (file);
      if (stream == NULL)
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_IO, "cannot open %s: %s", path, local->message);
          g_error_free (local);
          return NULL;
        }
      r = reader_new (stream, path, format, TRUE, error);
    }
  /* The reader holds its own reference; ours goes, so the file closes with the reader. */
  g_object_unref (stream);
  return r;
}

void
mdl_trace_reader_free (MdlTraceReader *r)
{
  if (r == NULL)
    return;
  g_clear_object (&r->stream);
  g_clear_object (&r->gunzip);
  g_free (r->zbuf);
  if (r->priv && r->klass->finalize)
    r->klass->finalize (r);
  mdl_trace_check_clear (&r->check);
  g_free (r->priv);
  g_hash_table_unref (r->meta);
  g_free (r->truncation);
  g_free (r->gzip_cut);
  if (r->map_fd >= 0)
    mdl_trace_map_close (r);
  g_free (r->buf);
  g_free (r->name);
  g_free (r);
}

MdlTraceFormat
mdl_trace_reader_format (const MdlTraceReader *r)
{
  g_return_val_if_fail (r != NULL, MDL_TRACE_AUTO);
  return r->format;
}

gboolean
mdl_trace_reader_compressed (const MdlTraceReader *r)
{
  g_return_val_if_fail (r != NULL, FALSE);
  return r->compressed;
}

GHashTable *
mdl_trace_reader_meta (const MdlTraceReader *r)
{
  g_return_val_if_fail (r != NULL, NULL);
  return r->meta;
}

gboolean
mdl_trace_reader_pump (MdlTraceReader *r, const MdlSink *sink, guint64 max_records,
                       gboolean *done, GError **error)
{
  gboolean ok;
  g_return_val_if_fail (r != NULL && sink != NULL && done != NULL, FALSE);
  *done = FALSE;
  if (r->failed)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT,
                   "%s: the trace cannot be read further after an earlier error", r->name);
      return FALSE;
    }
  ok = r->done || r->klass->pump (r, sink, max_records ? max_records : G_MAXUINT64, error);
  /* Cut gzip data is an error without salvage even when the records in it happen to end well; a
   * format error after the cut is its consequence, so the cut is what the message says. */
  if (r->gzip_cut && !r->salvage
      && (r->done || (error && g_error_matches (*error, MDL_ERROR, MDL_ERROR_FORMAT))))
    {
      g_clear_error (error);
      g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "%s; the trace stops short at record %"
                   G_GUINT64_FORMAT " (byte %" G_GUINT64_FORMAT " of the decompressed data)",
                   r->gzip_cut, r->n_records + 1, r->buf_offset + r->pos);
      r->done = FALSE;
      ok = FALSE;
    }
  if (!ok)
    {
      r->failed = TRUE;
      return FALSE;
    }
  *done = r->done;
  return TRUE;
}

void
mdl_trace_reader_set_fetches (MdlTraceReader *r, gboolean keep)
{
  g_return_if_fail (r != NULL);
  r->fetches = keep;
}

void
mdl_trace_reader_set_salvage (MdlTraceReader *r, gboolean salvage)
{
  g_return_if_fail (r != NULL);
  r->salvage = salvage;
}

const char *
mdl_trace_reader_truncation (const MdlTraceReader *r)
{
  g_return_val_if_fail (r != NULL, NULL);
  /* a text trace has no end record: a cut gzip stream is all that shows it stopped short */
  return r->truncation ? r->truncation : r->gzip_cut;
}

guint64
mdl_trace_reader_n_records (const MdlTraceReader *r)
{
  g_return_val_if_fail (r != NULL, 0);
  return r->n_records;
}

guint64
mdl_trace_reader_n_bytes (const MdlTraceReader *r)
{
  g_return_val_if_fail (r != NULL, 0);
  return r->buf_offset + r->pos;
}

guint64
mdl_trace_reader_n_skipped (const MdlTraceReader *r)
{
  g_return_val_if_fail (r != NULL, 0);
  return r->n_skipped;
}
