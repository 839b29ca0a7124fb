/* Reader of the binary trace format v1 (docs/trace-format.md).
 *
 * CPU records are the hot path: their file layout is MdlCpuEvent's, so on a little-endian host a run
 * of them is validated in place (one 32-bit load and two compares per record) and delivered as a
 * batch that points into the input buffer, a mapped window of a regular file (reader-map.c) or
 * what read() filled; nothing is copied beyond that read(). Warp records
 * are decoded into a batch of their own; markers flush the pending warp batch first, so that the
 * sink sees everything in file order. Every field is checked before it is used: reserved bytes and
 * padding must be zero, lengths are bounded by the format (at most 64 lane addresses, names of at
 * most 255 bytes), so no input size ever reaches an allocation. */
#include "trace-private.h"

#include "core/clones.h"
#include "core/lanes.h"

/* CPU records per delivered batch: 16 KiB, so that the records the check below has just read are
 * still in L1 when the engines walk them. With 8192 (128 KiB, in L2) bench-trace's read+count ran
 * at 0.58 / 0.62x of plain read+sum, with 1024 at 0.62 / 0.68 / 0.74x (alternated, loaded VM). */
#define CPU_BATCH 1024
#define WARP_BATCH 1024
#define LANE_CAP (WARP_BATCH * 8)

/* The batches are allocated apart from the state: inline, the 112 KiB state moved the read buffer
 * on the heap, and bench-trace's read+count ran 5% slower (187 against 197 M records/s, best of
 * five, the same instructions per record under callgrind). */
typedef struct {
  MdlWarpEvent *warp;       /* the pending warp batch */
  guint64 *lanes;           /* its lane addresses */
  gsize n_warp;
  gsize n_lanes;
#if G_BYTE_ORDER == G_BIG_ENDIAN
  MdlCpuEvent *cpu;         /* CPU records converted to host order */
#endif
  char name[MDL_NAME_MAX + 1];
} BinReader;

static gboolean
all_zero (const guint8 *p, gsize from, gsize to)
{
  for (gsize i = from; i < to; i++)
    if (p[i] != 0)
      return FALSE;
  return TRUE;
}

static gboolean
flush_warps (BinReader *b, const MdlSink *sink, GError **error)
{
  MdlEventBatch batch = { .warp = b->warp, .n_warp = b->n_warp, .lane_addrs = b->lanes,
                          .n_lane_addrs = b->n_lanes };
  if (b->n_warp == 0)
    return TRUE;
  b->n_warp = 0;
  b->n_lanes = 0;
  return sink->batch (sink->data, &batch, error);
}

/* Makes the @n bytes of the current record available. When the data ends first, the trace was cut
 * in this record: an error naming it, or with salvage the end after the records before it.
 * Returns FALSE in both cases (the caller stops; bin_pump() tells them apart by reader->done). */
static gboolean
need (MdlTraceReader *r, BinReader *b, const MdlSink *sink, gsize n, const char *what,
      GError **error)
{
  gsize avail;
  if (r->len - r->pos >= n)
    return TRUE;
  if (!mdl_trace_reader_fill (r, n, error))
    return FALSE;
  avail = r->len - r->pos;
  if (avail >= n)
    return TRUE;
  if (flush_warps (b, sink, error))
    mdl_trace_reader_cut (r, sink, error, "truncated %s: the data ends after %" G_GSIZE_FORMAT
                          " of its %" G_GSIZE_FORMAT " bytes", what, avail, n);
  return FALSE;
}

/* Parses "key=value\n" lines into reader->meta. */
static gboolean
parse_meta (MdlTraceReader *r, const char *text, gsize len, GError **error)
{
  const char *end = text + len;
  const char *line = text;
  guint line_no = 1;
  const char *why = NULL;

  if (!g_utf8_validate (text, (gssize) len, NULL))
    why = "it is not valid UTF-8 (or holds a NUL byte)";
  else if (len > 0 && text[len - 1] != '\n')
    why = "the last line does not end with a newline";
  if (why)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "%s: header metadata (byte 16): %s",
                   r->name, why);
      return FALSE;
    }
  for (; line < end; line_no++)
    {
      const char *nl = memchr (line, '\n', (gsize) (end - line));
      const char *eq = memchr (line, '=', (gsize) (nl - line));
      const char *k;
      if (eq == NULL || eq == line)
        why = eq ? "empty key" : "no '=' in the line";
      for (k = line; why == NULL && k < eq; k++)
        if (!g_ascii_isalnum (*k) && *k != '.' && *k != '_' && *k != '-')
          why = "key with a character other than letters, digits, '.', '_' or '-'";
      if (why == NULL)
        {
          char *key = g_strndup (line, (gsize) (eq - line));
          if (g_hash_table_contains (r->meta, key))
            {
              g_free (key);
              why = "duplicate key";
            }
          else
            g_hash_table_insert (r->meta, key, g_strndup (eq + 1, (gsize) (nl - eq - 1)));
        }
      if (why)
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT,
                       "%s: header metadata line %u (byte %" G_GSIZE_FORMAT "): %s", r->name,
                       line_no, (gsize) (MDL_BIN_HEADER_BYTES + (line - text)), why);
          return FALSE;
        }
      line = nl + 1;
    }
  return TRUE;
}

static gboolean
bin_start (MdlTraceReader *r, GError **error)
{
  const guint8 *p;
  guint version, flags;
  guint32 meta_len;
  gsize header_len;
  char *why = NULL;
  BinReader *b = r->priv;

  if (!mdl_trace_reader_fill (r, MDL_BIN_HEADER_BYTES, error))
    return FALSE;
  if (r->len < MDL_BIN_HEADER_BYTES)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT,
                   "%s: truncated header: %" G_GSIZE_FORMAT " of 16 bytes", r->name, r->len);
      return FALSE;
    }
  p = r->buf;
  version = mdl_load16 (p + 8);
  flags = mdl_load16 (p + 10);
  meta_len = mdl_load32 (p + 12);
  if (memcmp (p, MDL_BIN_MAGIC, 8) != 0)
    why = g_strdup ("byte 0: not a libmodels binary trace (it does not start with MDLTRACE)");
  else if (version != MDL_BIN_VERSION)
    why = g_strdup_printf ("byte 8: unsupported version %u (this reader knows version %d)",
                           version, MDL_BIN_VERSION);
  else if (flags != 0)
    why = g_strdup_printf ("byte 10: unknown header flags 0x%04x", flags);
  else if (meta_len > MDL_BIN_META_MAX)
    why = g_strdup_printf ("byte 12: header metadata length %u exceeds the limit of %u bytes",
                           meta_len, MDL_BIN_META_MAX);
  if (why)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "%s: %s", r->name, why);
      g_free (why);
      return FALSE;
    }
  header_len = mdl_round16 (MDL_BIN_HEADER_BYTES + meta_len);
  if (!mdl_trace_reader_fill (r, header_len, error))
    return FALSE;
  if (r->len < header_len)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT,
                   "%s: truncated header: the data ends after %" G_GSIZE_FORMAT " of its %"
                   G_GSIZE_FORMAT " bytes", r->name, r->len, header_len);
      return FALSE;
    }
  if (!parse_meta (r, (const char *) r->buf + MDL_BIN_HEADER_BYTES, meta_len, error))
    return FALSE;
  if (!all_zero (r->buf, MDL_BIN_HEADER_BYTES + meta_len, header_len))
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT,
                   "%s: byte %u: nonzero padding after the header metadata", r->name,
                   MDL_BIN_HEADER_BYTES + meta_len);
      return FALSE;
    }
  r->pos = header_len;
  b->warp = g_new (MdlWarpEvent, WARP_BATCH);
  b->lanes = g_new (guint64, LANE_CAP);
#if G_BYTE_ORDER == G_BIG_ENDIAN
  b->cpu = g_new (MdlCpuEvent, CPU_BATCH);
#endif
  return TRUE;
}

static void
bin_finalize (MdlTraceReader *r)
{
  BinReader *b = r->priv;
  g_free (b->warp);
  g_free (b->lanes);
#if G_BYTE_ORDER == G_BIG_ENDIAN
  g_free (b->cpu);
#endif
}

/* Records that the vector test looks at before its one branch. */
#define CHECK_GROUP 16

/* A conservative test of the CHECK_GROUP records at @p: FALSE when each is a read, write or
 * modify with no flag and a nonzero size, or an op count (kind 3, no flag, size 0), at an address
 * below the top 4 GiB (where no access of at most 65535 bytes can wrap); otherwise TRUE, and
 * cpu_run() walks the group record by record with the exact rules (so this test may doubt more
 * than they refuse: a branch, or a read with the dependent flag, only costs the walk of its
 * group). Eight records a vector (core/lanes.h). Before, with SSE2 intrinsics four records a
 * vector and a branch per eight: docs/trace-format.md, "branch s11-trace-cache". */
static inline __attribute__ ((always_inline)) gboolean
cpu_group_suspect (const guint8 *p)
{
  MdlLanes wrong = { 0 };
  MdlQuads any;
#pragma GCC unroll 2
  for (guint g = 0; g < CHECK_GROUP; g += MDL_LANES)
    {
      MdlLanes v[4], heads, addr_high, access, op_count;
      mdl_lanes_load_records (p + 16 * g, v);
      mdl_lanes_heads (v, &heads);
      mdl_lanes_addr_high (v, &addr_high);
      access = (MdlLanes) ((MdlSignedLanes) (heads & 0xffff) < MDL_CPU_OPS)
               & ~(MdlLanes) ((heads >> 16) == 0);
      op_count = (MdlLanes) (heads == MDL_CPU_OPS);
      wrong |= ~(access | op_count) | (MdlLanes) (addr_high == G_MAXUINT32);
    }
  any = (MdlQuads) wrong;
  return (any[0] | any[1] | any[2] | any[3]) != 0;
}

/* How many of the @n whole records at @p form a run of valid CPU records; sets *@bad when the run
 * ends at a CPU record that breaks a rule (its head, or an access running past 2^64 - 1) rather
 * than at another record type. Runs of valid records are the common case, so they are checked
 * CHECK_GROUP at a time with one branch; a group that may hold anything else, and the last
 * records, are walked one by one with the exact rules, and the groups after it go back to the
 * vector test. */
MDL_CLONES static gsize
cpu_run (const guint8 *p, gsize n, gboolean *bad)
{
  gsize i = 0;
  for (;;)
    {
      gsize stop;
      while (i + CHECK_GROUP <= n && !cpu_group_suspect (p + 16 * i))
        i += CHECK_GROUP;
      for (stop = MIN (n, i + CHECK_GROUP); i < stop; i++)
        {
          guint32 head = mdl_load32 (p + 16 * i);
          if ((head & 0xff) >= MDL_CPU_N_KINDS)
            return i;
          if (!mdl_cpu_head_ok (head)
              || mdl_access_wraps (mdl_load64 (p + 16 * i + 8), head >> 16))
            {
              *bad = TRUE;
              return i;
            }
        }
      if (i == n)
        return n;
    }
}

static gboolean
read_cpu (MdlTraceReader *r, BinReader *b, const MdlSink *sink, guint64 *budget, GError **error)
{
  const guint8 *p = r->buf + r->pos;
  gsize n = MIN ((r->len - r->pos) / 16, MIN (*budget, (guint64) CPU_BATCH));
  gboolean bad = FALSE;
  gsize run = cpu_run (p, n, &bad);
  MdlEventBatch batch = { .n_cpu = run };

  if (!flush_warps (b, sink, error))
    return FALSE;
  if (run > 0)
    {
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
      /* Why the cast is safe: buf comes from g_malloc (16-byte aligned) or is a mapped window
       * starting at a page boundary of the file, and every record starts at a multiple of 16 from
       * buf, because the header and all records are multiples of 16 bytes and
       * mdl_trace_reader_fill() moves unread bytes to buf[0] from a record boundary (or maps the
       * window from the page that holds it). */
      batch.cpu = (const MdlCpuEvent *) (const void *) p;
#else
      for (gsize i = 0; i < run; i++)
        b->cpu[i] = (MdlCpuEvent) { .kind = p[16 * i], .flags = p[16 * i + 1],
                                    .size = mdl_load16 (p + 16 * i + 2),
                                    .thread = mdl_load16 (p + 16 * i + 4),
                                    .site = mdl_load16 (p + 16 * i + 6),
                                    .addr = mdl_load64 (p + 16 * i + 8) };
      batch.cpu = b->cpu;
#endif
      /* The next batch's lines are asked for now, so that they come from memory while the
       * engines work on this one (a mapped file is read from DRAM, not from a copy in L2):
       * docs/trace-format.md, "Branch s12-trace". */
#pragma GCC unroll 4
      for (gsize at = 16 * run; at < MIN (r->len - r->pos, 32 * run); at += 64)
        __builtin_prefetch (p + at);
      if (!sink->batch (sink->data, &batch, error))
        return FALSE;
      r->pos += 16 * run;
      r->n_records += run;
      *budget -= run;
    }
  if (bad)
    {
      const guint8 *q = r->buf + r->pos;
      char *why = mdl_trace_cpu_problem (q[0], q[1], mdl_load16 (q + 2), mdl_load64 (q + 8));
      mdl_trace_reader_fail (r, error, "%s", why);
      g_free (why);
      return FALSE;
    }
  return TRUE;
}

static gboolean
read_warp (MdlTraceReader *r, BinReader *b, const MdlSink *sink, GError **error)
{
  const guint8 *p;
  MdlWarpEvent w = { 0 };
  guint32 warp_id, reserved;
  gsize body, total;
  GError *local = NULL;
  MdlEventBatch view;

  if (!need (r, b, sink, MDL_BIN_WARP_HEAD_BYTES, "warp record", error))
    return FALSE;
  p = r->buf + r->pos;
  w.op = p[1];
  w.space = p[2];
  w.flags = p[3];
  w.width = mdl_load16 (p + 4);
  w.site = mdl_load16 (p + 6);
  w.launch = mdl_load32 (p + 8);
  w.block = mdl_load32 (p + 12);
  warp_id = mdl_load32 (p + 16);
  reserved = mdl_load32 (p + 20);
  w.active = mdl_load64 (p + 24);
  w.taken = mdl_load64 (p + 32);
  if (reserved != 0)
    return mdl_trace_reader_fail (r, error, "warp record has nonzero reserved bytes 20..23");
  if (warp_id > G_MAXUINT16)
    return mdl_trace_reader_fail (r, error, "warp record has warp id %u (at most 65535)", warp_id);
  w.warp = (guint16) warp_id;

  /* The body size depends only on op, flags and the popcount of a 64-bit mask: at most 512 bytes. */
  if (!mdl_warp_is_memory (&w))
    body = 0;
  else if (w.flags & MDL_WARP_STRIDED)
    body = 16;
  else
    body = 8 * (gsize) __builtin_popcountll (w.active);
  total = mdl_round16 (MDL_BIN_WARP_HEAD_BYTES + body);
  if ((b->n_warp == WARP_BATCH || b->n_lanes + MDL_WARP_MAX_LANES > LANE_CAP)
      && !flush_warps (b, sink, error))
    return FALSE;
  if (!need (r, b, sink, total, "warp record", error))
    return FALSE;
  p = r->buf + r->pos;
  if (mdl_warp_is_memory (&w) && (w.flags & MDL_WARP_STRIDED))
    {
      w.base = mdl_load64 (p + 40);
      w.stride = (gint64) mdl_load64 (p + 48);
    }
  else if (body > 0)
    {
      w.first_addr = (guint32) b->n_lanes;
      for (gsize i = 0; i < body / 8; i++)
        b->lanes[b->n_lanes + i] = mdl_load64 (p + 40 + 8 * i);
    }
  if (!all_zero (p, MDL_BIN_WARP_HEAD_BYTES + body, total))
    return mdl_trace_reader_fail (r, error, "warp record has nonzero padding");
  view = (MdlEventBatch) { .lane_addrs = b->lanes, .n_lane_addrs = b->n_lanes + body / 8 };
  if (!mdl_warp_event_check (&view, &w, mdl_trace_check_warp_width (&r->check, w.launch), &local))
    {
      mdl_trace_reader_fail (r, error, "%s", local->message);
      g_error_free (local);
      return FALSE;
    }
  b->warp[b->n_warp++] = w;
  b->n_lanes += body / 8;
  r->pos += total;
  r->n_records++;
  return TRUE;
}

static gboolean
read_marker (MdlTraceReader *r, BinReader *b, guint type, const MdlSink *sink, GError **error)
{
  const guint8 *p;
  MdlMarker m = { 0 };
  gsize total = MDL_BIN_SMALL_BYTES;
  GError *local = NULL;
  const char *what = mdl_marker_kind_name (type - MDL_REC_LAUNCH);

  if (!need (r, b, sink, type == MDL_REC_LAUNCH ? MDL_BIN_LAUNCH_BYTES : MDL_BIN_SMALL_BYTES,
             what, error))
    return FALSE;
  p = r->buf + r->pos;
  m.kind = (MdlMarkerKind) (type - MDL_REC_LAUNCH);
  switch (type)
    {
    case MDL_REC_LAUNCH:
      total = MDL_BIN_LAUNCH_BYTES;
      if (!all_zero (p, 1, 4) || !all_zero (p, 24, 32))
        return mdl_trace_reader_fail (r, error, "launch record has nonzero reserved bytes");
      m.launch = mdl_load32 (p + 4);
      m.grid_blocks = mdl_load32 (p + 8);
      m.block_threads = mdl_load32 (p + 12);
      m.shared_bytes = mdl_load32 (p + 16);
      m.warp_width = mdl_load32 (p + 20);
      break;
    case MDL_REC_BARRIER:
      if (!all_zero (p, 1, 4) || !all_zero (p, 12, 16))
        return mdl_trace_reader_fail (r, error, "barrier record has nonzero reserved bytes");
      m.launch = mdl_load32 (p + 4);
      m.block = mdl_load32 (p + 8);
      break;
    case MDL_REC_SYNC:
      if (!all_zero (p, 1, 16))
        return mdl_trace_reader_fail (r, error, "sync record has nonzero reserved bytes");
      break;
    default:
      {
        guint name_len = mdl_load16 (p + 2);
        m.site = mdl_load16 (p + 4);
        if (p[1] != 0 || !all_zero (p, 6, 16) || (type != MDL_REC_SITE && m.site != 0))
          return mdl_trace_reader_fail (r, error, "%s record has nonzero reserved bytes", what);
        if (name_len == 0 || name_len > MDL_NAME_MAX)
          return mdl_trace_reader_fail (r, error, "%s record has a name of %u bytes (valid: 1..%d)",
                                        what, name_len, MDL_NAME_MAX);
        total = MDL_BIN_SMALL_BYTES + mdl_round16 (name_len);
        if (!need (r, b, sink, total, what, error))
          return FALSE;
        p = r->buf + r->pos;
        if (memchr (p + 16, 0, name_len) != NULL)
          return mdl_trace_reader_fail (r, error, "%s record has a NUL byte in its name", what);
        if (!all_zero (p, 16 + name_len, total))
          return mdl_trace_reader_fail (r, error, "%s record has nonzero padding", what);
        memcpy (b->name, p + 16, name_len);
        b->name[name_len] = '\0';
        m.name = b->name;
      }
    }
  if (!mdl_trace_check_marker (&r->check, &m, &local))
    {
      mdl_trace_reader_fail (r, error, "%s", local->message);
      g_error_free (local);
      return FALSE;
    }
  if (!flush_warps (b, sink, error) || !sink->marker (sink->data, &m, error))
    return FALSE;
  r->pos += total;
  r->n_records++;
  return TRUE;
}

static gboolean
read_end (MdlTraceReader *r, BinReader *b, const MdlSink *sink, GError **error)
{
  const guint8 *p = r->buf + r->pos;
  guint64 count = mdl_load64 (p + 8);
  GError *local = NULL;

  if (!all_zero (p, 1, 8))
    return mdl_trace_reader_fail (r, error, "end record has nonzero reserved bytes");
  if (count != r->n_records)
    return mdl_trace_reader_fail (r, error, "record count lies: the end record says %"
                                  G_GUINT64_FORMAT " records, the trace holds %" G_GUINT64_FORMAT,
                                  count, r->n_records);
  if (!mdl_trace_check_end (&r->check, &local))
    {
      mdl_trace_reader_fail (r, error, "%s", local->message);
      g_error_free (local);
      return FALSE;
    }
  if (!flush_warps (b, sink, error))
    return FALSE;
  r->pos += MDL_BIN_SMALL_BYTES;
  if (!mdl_trace_reader_fill (r, 1, error))
    return FALSE;
  if (r->len > r->pos)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT,
                   "%s: byte %" G_GUINT64_FORMAT ": trailing data after the end record", r->name,
                   r->buf_offset + r->pos);
      return FALSE;
    }
  r->done = TRUE;
  return TRUE;
}

static gboolean
bin_pump (MdlTraceReader *r, const MdlSink *sink, guint64 budget, GError **error)
{
  BinReader *b = r->priv;

  while (budget > 0 || (r->len - r->pos >= 16 && r->buf[r->pos] == MDL_REC_END))
    {
      guint type;
      gboolean ok;
      if (r->len - r->pos < 16)
        {
          if (!mdl_trace_reader_fill (r, 16, error))
            return FALSE;
          if (r->len - r->pos < 16 && !flush_warps (b, sink, error))
            return FALSE;
          if (r->pos == r->len)
            return mdl_trace_reader_cut (r, sink, error,
                                         "truncated trace: the end record is missing");
          if (r->len - r->pos < 16)
            return mdl_trace_reader_cut (r, sink, error, "truncated record: the data ends after %"
                                         G_GSIZE_FORMAT " bytes", r->len - r->pos);
        }
      type = r->buf[r->pos];
      if (type < MDL_CPU_N_KINDS)
        ok = read_cpu (r, b, sink, &budget, error);
      else if (type == MDL_REC_WARP)
        {
          ok = read_warp (r, b, sink, error);
          budget--;
        }
      else if (type >= MDL_REC_LAUNCH && type <= MDL_REC_SITE)
        {
          ok = read_marker (r, b, type, sink, error);
          budget--;
        }
      else if (type == MDL_REC_END)
        return read_end (r, b, sink, error);
      else
        return mdl_trace_reader_fail (r, error, "unknown record type 0x%02x", type);
      if (!ok)
        return r->done;   /* done: salvaged up to a record that was cut */
    }
  return flush_warps (b, sink, error);
}

const MdlTraceReaderClass mdl_trace_reader_bin_class = {
  .priv_bytes = sizeof (BinReader),
  .start = bin_start,
  .pump = bin_pump,
  .finalize = bin_finalize,
};
