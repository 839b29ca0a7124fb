/* Writer of the binary trace format v1 (docs/trace-format.md).
 *
 * CPU batches are checked and copied into the output chunk as they are (the record layout is
 * MdlCpuEvent's on little-endian hosts). Warp events are checked with the same rules the reader
 * applies and stored in the smallest form that is exact: strided when the source says so, strided
 * too when explicit addresses happen to be base + lane * stride for every active lane and that is
 * shorter (three lanes or more), explicit otherwise. */
#include "trace-private.h"

static gboolean
bin_start (MdlTraceWriter *w, GError **error)
{
  GString *meta = g_string_new (NULL);
  guint8 head[MDL_BIN_HEADER_BYTES];
  static const guint8 zeros[16] = { 0 };
  gboolean ok;

  for (guint i = 0; i < w->meta->len; i += 2)
    g_string_append_printf (meta, "%s=%s\n", (const char *) g_ptr_array_index (w->meta, i),
                            (const char *) g_ptr_array_index (w->meta, i + 1));
  if (meta->len > MDL_BIN_META_MAX)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM,
                   "%s: header metadata of %" G_GSIZE_FORMAT " bytes exceeds the limit of %u",
                   w->name, meta->len, MDL_BIN_META_MAX);
      g_string_free (meta, TRUE);
      return FALSE;
    }
  memcpy (head, MDL_BIN_MAGIC, 8);
  mdl_store16 (head + 8, MDL_BIN_VERSION);
  mdl_store16 (head + 10, 0);
  mdl_store32 (head + 12, (guint32) meta->len);
  ok = mdl_trace_writer_write (w, head, sizeof head, error)
       && mdl_trace_writer_write (w, meta->str, meta->len, error)
       && mdl_trace_writer_write (w, zeros, mdl_round16 (meta->len) - meta->len, error);
  g_string_free (meta, TRUE);
  return ok;
}

static gboolean
write_cpu (MdlTraceWriter *w, const MdlCpuEvent *cpu, gsize n, GError **error)
{
  while (n > 0)
    {
      gsize room = (w->cap - w->len) / 16;
      gsize run, i;
      guint8 *p;
      if (room == 0)
        {
          if (!mdl_trace_writer_flush (w, error))
            return FALSE;
          continue;
        }
      run = MIN (room, n);
      p = w->buf + w->len;
      for (i = 0; i < run; i++)
        {
          guint32 head = (guint32) cpu[i].kind | (guint32) cpu[i].flags << 8
                         | (guint32) cpu[i].size << 16;
          if (G_UNLIKELY (cpu[i].kind >= MDL_CPU_N_KINDS || !mdl_cpu_head_ok (head)
                          || mdl_access_wraps (cpu[i].addr, cpu[i].size)))
            break;
        }
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
      memcpy (p, cpu, 16 * i);
#else
      for (gsize j = 0; j < i; j++)
        {
          guint8 *q = p + 16 * j;
          q[0] = cpu[j].kind;
          q[1] = cpu[j].flags;
          mdl_store16 (q + 2, cpu[j].size);
          mdl_store16 (q + 4, cpu[j].thread);
          mdl_store16 (q + 6, cpu[j].site);
          mdl_store64 (q + 8, cpu[j].addr);
        }
#endif
      w->len += 16 * i;
      w->n_records += i;
      if (i < run)
        return mdl_trace_writer_fail_cpu (w, &cpu[i], error);
      cpu += run;
      n -= run;
    }
  return TRUE;
}

/* TRUE, with *base and *stride, when the @n addresses of the active lanes of @active are
 * base + lane * stride for one stride within MDL_WARP_STRIDE_MAX. */
static gboolean
find_stride (guint64 active, const guint64 *addrs, guint n, guint64 *base, gint64 *stride)
{
  guint lane0 = (guint) __builtin_ctzll (active);
  guint64 rest = active & (active - 1);
  guint lane1 = (guint) __builtin_ctzll (rest);
  gint64 diff = (gint64) (addrs[1] - addrs[0]);
  gint64 gap = (gint64) (lane1 - lane0);
  gint64 s;
  guint64 b, mask = active;

  if (diff % gap != 0)
    return FALSE;
  s = diff / gap;
  if (s < -MDL_WARP_STRIDE_MAX || s > MDL_WARP_STRIDE_MAX)
    return FALSE;
  b = addrs[0] - (guint64) ((gint64) lane0 * s);
  for (guint i = 0; i < n; i++, mask &= mask - 1)
    {
      guint lane = (guint) __builtin_ctzll (mask);
      if (b + (guint64) ((gint64) lane * s) != addrs[i])
        return FALSE;
    }
  *base = b;
  *stride = s;
  return TRUE;
}

static gboolean
write_warp (MdlTraceWriter *w, const MdlEventBatch *batch, const MdlWarpEvent *e, GError **error)
{
  gboolean memory = mdl_warp_is_memory (e);
  guint n = (guint) __builtin_popcountll (e->active);
  gboolean strided = memory && (e->flags & MDL_WARP_STRIDED);
  const guint64 *addrs = NULL;
  guint64 base = e->base;
  gint64 stride = e->stride;
  gsize body, total;
  guint8 *p;

  if (!mdl_trace_writer_check_warp (w, batch, e, error))
    return FALSE;
  if (memory && !strided)
    {
      addrs = batch->lane_addrs + e->first_addr;
      /* Three lanes or more: 16 bytes of base and stride beat 8 bytes per lane after padding. */
      strided = n >= 3 && find_stride (e->active, addrs, n, &base, &stride);
    }
  body = !memory ? 0 : strided ? 16 : 8 * (gsize) n;
  total = mdl_round16 (MDL_BIN_WARP_HEAD_BYTES + body);
  p = mdl_trace_writer_reserve (w, total, error);
  if (p == NULL)
    return FALSE;
  memset (p, 0, total);
  p[0] = MDL_REC_WARP;
  p[1] = e->op;
  p[2] = e->space;
  p[3] = (guint8) ((strided ? MDL_WARP_STRIDED : 0) | (e->flags & ~MDL_WARP_STRIDED & MDL_WARP_FLAGS));
  mdl_store16 (p + 4, e->width);
  mdl_store16 (p + 6, e->site);
  mdl_store32 (p + 8, e->launch);
  mdl_store32 (p + 12, e->block);
  mdl_store32 (p + 16, e->warp);
  mdl_store64 (p + 24, e->active);
  mdl_store64 (p + 32, e->taken);
  if (strided)
    {
      mdl_store64 (p + 40, base);
      mdl_store64 (p + 48, (guint64) stride);
    }
  else
    for (guint i = 0; i < body / 8; i++)
      mdl_store64 (p + 40 + 8 * i, addrs[i]);
  w->len += total;
  w->n_records++;
  return TRUE;
}

static gboolean
bin_batch (MdlTraceWriter *w, const MdlEventBatch *batch, GError **error)
{
  if (batch->n_cpu > 0 && !write_cpu (w, batch->cpu, batch->n_cpu, error))
    return FALSE;
  for (gsize i = 0; i < batch->n_warp; i++)
    if (!write_warp (w, batch, &batch->warp[i], error))
      return FALSE;
  return TRUE;
}

static gboolean
bin_marker (MdlTraceWriter *w, const MdlMarker *m, GError **error)
{
  gsize name_len = 0, total;
  guint8 *p;

  switch (m->kind)
    {
    case MDL_MARK_LAUNCH:
      total = MDL_BIN_LAUNCH_BYTES;
      break;
    case MDL_MARK_BARRIER:
    case MDL_MARK_SYNC:
      total = MDL_BIN_SMALL_BYTES;
      break;
    default:
      name_len = strlen (m->name);
      total = MDL_BIN_SMALL_BYTES + mdl_round16 (name_len);
    }
  p = mdl_trace_writer_reserve (w, total, error);
  if (p == NULL)
    return FALSE;
  memset (p, 0, total);
  p[0] = (guint8) (MDL_REC_LAUNCH + m->kind);
  switch (m->kind)
    {
    case MDL_MARK_LAUNCH:
      mdl_store32 (p + 4, m->launch);
      mdl_store32 (p + 8, m->grid_blocks);
      mdl_store32 (p + 12, m->block_threads);
      mdl_store32 (p + 16, m->shared_bytes);
      mdl_store32 (p + 20, m->warp_width);
      break;
    case MDL_MARK_BARRIER:
      mdl_store32 (p + 4, m->launch);
      mdl_store32 (p + 8, m->block);
      break;
    case MDL_MARK_SYNC:
      break;
    default:
      mdl_store16 (p + 2, (guint16) name_len);
      if (m->kind == MDL_MARK_SITE)
        mdl_store16 (p + 4, m->site);
      memcpy (p + 16, m->name, name_len);
    }
  w->len += total;
  w->n_records++;
  return TRUE;
}

static gboolean
bin_finish (MdlTraceWriter *w, GError **error)
{
  guint8 *p = mdl_trace_writer_reserve (w, MDL_BIN_SMALL_BYTES, error);
  GError *local = NULL;

  if (!mdl_trace_check_end (&w->check, &local))
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "%s: cannot end the trace: %s", w->name,
                   local->message);
      g_error_free (local);
      return FALSE;
    }
  if (p == NULL)
    return FALSE;
  memset (p, 0, MDL_BIN_SMALL_BYTES);
  p[0] = MDL_REC_END;
  mdl_store64 (p + 8, w->n_records);
  w->len += MDL_BIN_SMALL_BYTES;
  return TRUE;
}

const MdlTraceWriterClass mdl_trace_writer_bin_class = {
  .name = "binary",
  .cpu = TRUE,
  .warp = TRUE,
  .start = bin_start,
  .batch = bin_batch,
  .marker = bin_marker,
  .finish = bin_finish,
};
