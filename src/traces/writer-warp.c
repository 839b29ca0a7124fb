/* Writer of the warp text format (docs/trace-format.md, "Warp text"; reader-warp.c reads it).
 * Warp events and the launch, barrier and sync markers have a line each; strided events are
 * written with explicit addresses, lowercase hexadecimal without "0x". The format has no CPU
 * events (MDL_ERROR_UNSUPPORTED) and no phase or site lines: those markers are dropped and
 * counted (mdl_trace_writer_n_dropped). Header metadata is ignored. An instruction names no
 * launch: the reader puts it in the latest launch, so an event of another launch than the
 * latest launch line is an error. */
#include "trace-private.h"

#include <stdio.h>

/* The longest line: "4294967295 65535 atom.red.m global 64 " + mask + 64 addresses of 17 bytes. */
#define LINE_MAX_BYTES (72 + 17 + 17 * MDL_WARP_MAX_LANES + 24)   /* the last: failed=MASK */

static gboolean
warp_batch (MdlTraceWriter *w, const MdlEventBatch *batch, GError **error)
{
  for (gsize i = 0; i < batch->n_warp; i++)
    {
      const MdlWarpEvent *e = &batch->warp[i];
      guint64 addrs[MDL_WARP_MAX_LANES];
      guint8 *p;
      int n;
      if (!mdl_trace_writer_check_warp (w, batch, e, error))
        return FALSE;
      if (e->launch != w->latest_launch)
        {
          g_autofree char *why = g_strdup_printf ("warp event of launch %u where the latest launch "
                                                  "is %u (warp text puts events in the latest "
                                                  "launch)", e->launch, w->latest_launch);
          return mdl_trace_writer_fail (w, error, why);
        }
      p = mdl_trace_writer_reserve (w, LINE_MAX_BYTES, error);
      if (p == NULL)
        return FALSE;
      n = g_snprintf ((char *) p, LINE_MAX_BYTES, "%u %u %s%s%s", e->block, e->warp,
                      mdl_warp_op_name (e->op),
                      (e->flags & MDL_WARP_ATOM_RED) ? ".red"
                      : (e->flags & MDL_WARP_ATOM_CAS) ? ".cas" : "",
                      (e->flags & MDL_WARP_MACHINE) ? ".m" : "");
      if (mdl_warp_is_memory (e))
        {
          mdl_warp_addrs (batch, e, addrs);
          n += g_snprintf ((char *) p + n, LINE_MAX_BYTES - (gsize) n, " %s %u %" G_GINT64_MODIFIER "x",
                           mdl_space_name (e->space), e->width, e->active);
          for (guint64 r = e->active; r; r &= r - 1)
            n += g_snprintf ((char *) p + n, LINE_MAX_BYTES - (gsize) n, " %" G_GINT64_MODIFIER "x",
                             addrs[__builtin_ctzll (r)]);
          if (e->taken)
            n += g_snprintf ((char *) p + n, LINE_MAX_BYTES - (gsize) n, " failed=%"
                             G_GINT64_MODIFIER "x", e->taken);
        }
      else if (e->op == MDL_WARP_BRANCH)
        n += g_snprintf ((char *) p + n, LINE_MAX_BYTES - (gsize) n, " %" G_GINT64_MODIFIER "x %"
                         G_GINT64_MODIFIER "x", e->active, e->taken);
      else
        n += g_snprintf ((char *) p + n, LINE_MAX_BYTES - (gsize) n, " %" G_GINT64_MODIFIER "x",
                         e->active);
      p[n++] = '\n';
      w->len += (gsize) n;
      w->n_records++;
    }
  return TRUE;
}

static gboolean
warp_marker (MdlTraceWriter *w, const MdlMarker *m, GError **error)
{
  char line[160];
  int n = 0;
  switch (m->kind)
    {
    case MDL_MARK_LAUNCH:
      n = g_snprintf (line, sizeof line, "launch %u grid=%u block=%u shared=%u", m->launch,
                      m->grid_blocks, m->block_threads, m->shared_bytes);
      if (m->warp_width != 32)
        n += g_snprintf (line + n, sizeof line - (gsize) n, " warp=%u", m->warp_width);
      w->latest_launch = m->launch;
      break;
    case MDL_MARK_BARRIER:
      n = g_snprintf (line, sizeof line, "bar %u", m->block);
      break;
    case MDL_MARK_SYNC:
      n = g_snprintf (line, sizeof line, "sync");
      break;
    default:
      w->n_dropped++;
      return TRUE;
    }
  line[n++] = '\n';
  w->n_records++;
  return mdl_trace_writer_write (w, line, (gsize) n, error);
}

const MdlTraceWriterClass mdl_trace_writer_warp_class = {
  .name = "warp text",
  .warp = TRUE,
  .batch = warp_batch,
  .marker = warp_marker,
};
