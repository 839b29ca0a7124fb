/* Writer of Dinero IV extended din text (docs/trace-format.md, "Dinero din"): one line
 * "TYPE ADDRESS SIZE" per reference, ADDRESS and SIZE in lower-case hex, which `dineroIV -informat D`
 * reads and our din reader reads back as the same accesses. The extended form is written rather
 * than the classic one because it keeps sizes: classic din would turn every access into a 4-byte
 * word. A read is "r", a write "w", a modify "r" then "w" of the same bytes (Dinero has no
 * modify), a fetch record "i". Op counts and markers have no din form: they are left out and
 * counted (mdl_trace_writer_n_dropped); warp events fail with MDL_ERROR_UNSUPPORTED. */
#include "trace-private.h"

/* The longest line: "r " + 16 hex digits + " " + 4 hex digits + "\n". */
#define LINE_MAX_BYTES 32

/* Writes "T ADDR SIZE\n" at @p; returns the bytes written. */
static gsize
format_line (char *p, char type, guint64 addr, guint size)
{
  static const char digits[] = "0123456789abcdef";
  guint n_addr = addr ? (guint) (16 - __builtin_clzll (addr) / 4) : 1;
  guint n_size = (guint) (8 - __builtin_clz (size) / 4);   /* size >= 1 */
  char *q = p;
  *q++ = type;
  *q++ = ' ';
  for (guint i = n_addr; i-- > 0;)
    *q++ = digits[(addr >> (4 * i)) & 0xf];
  *q++ = ' ';
  for (guint i = n_size; i-- > 0;)
    *q++ = digits[(size >> (4 * i)) & 0xf];
  *q++ = '\n';
  return (gsize) (q - p);
}

static gboolean
put (MdlTraceWriter *w, char type, const MdlCpuEvent *e, GError **error)
{
  guint8 *p = mdl_trace_writer_reserve (w, LINE_MAX_BYTES, error);
  if (p == NULL)
    return FALSE;
  w->len += format_line ((char *) p, type, e->addr, e->size);
  return TRUE;
}

static gboolean
din_batch (MdlTraceWriter *w, const MdlEventBatch *batch, GError **error)
{
  for (gsize i = 0; i < batch->n_cpu; i++)
    {
      const MdlCpuEvent *e = &batch->cpu[i];
      gboolean fetch = e->kind == MDL_CPU_READ && e->flags == MDL_CPU_FLAG_FETCH;
      gboolean ok;
      char *why = mdl_trace_cpu_problem (e->kind, fetch ? 0 : e->flags, e->size);
      if (why)
        {
          mdl_trace_writer_fail (w, error, why);
          g_free (why);
          return FALSE;
        }
      switch (e->kind)
        {
        case MDL_CPU_READ:
          ok = put (w, fetch ? 'i' : 'r', e, error);
          break;
        case MDL_CPU_WRITE:
          ok = put (w, 'w', e, error);
          break;
        case MDL_CPU_MODIFY:
          ok = put (w, 'r', e, error) && put (w, 'w', e, error);
          break;
        default:
          w->n_dropped++;
          ok = TRUE;
          break;
        }
      if (!ok)
        return FALSE;
      w->n_records++;
    }
  return TRUE;
}

const MdlTraceWriterClass mdl_trace_writer_din_class = {
  .name = "din text",
  .cpu = TRUE,
  .batch = din_batch,
};
